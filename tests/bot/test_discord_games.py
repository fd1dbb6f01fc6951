"""A whole game of every variant through raw Discord payloads: /play, the Accept button,
/move chosen from the legal actions (checked against autocomplete), the Re-roll button
and /pass when offered, until a result. A ply cap then resigning is the safety net.

At every turn: the prompt for the player to act is a NEW public message (an interaction
response of type 4) that pings exactly that player; nobody else is pinged; only the latest
board keeps its buttons; every request is within Discord's limits (the harness checks);
the bot-token requests per move are counted and printed (at most 2 beyond the
interaction's own).
"""

from __future__ import annotations

import random
import statistics
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # the harness lives beside this file
from harness import World, game_of, latest_board  # noqa: E402

import variants  # noqa: E402

PLY_CAP = 400


def choose(legal: tuple[str, ...], rng: random.Random) -> str:
    """Random, but keen on mates and captures so that games end on the board."""
    mates = [m for m in legal if m.endswith("#")]
    if mates:
        return mates[0]
    captures = [m for m in legal if "x" in m]
    if captures and rng.random() < 0.8:
        return rng.choice(captures)
    return rng.choice(legal)


@pytest.mark.parametrize("variant", variants.names())
async def test_a_full_game_through_discord_payloads(tmp_path: Path, variant: str) -> None:
    rng = random.Random(f"payload-game-{variant}")
    world = await World.open(tmp_path, seed=11)
    try:
        alice, bob, eve = world.user("alice"), world.user("bob"), world.user("eve")
        players = {alice.id: alice, bob.id: bob}
        made = await world.command(alice, "play", variant=variant, opponent=bob)
        (challenge,) = made.public
        assert challenge.how == "response" and challenge.pings == {bob.id}
        game_id = game_of(challenge)
        exchange = await world.press(bob, challenge, "Accept")
        assert "Accept" not in world.discord.messages[challenge.id].buttons()
        plies = rerolls = 0
        bot_requests: list[int] = []
        while True:
            view = await world.service.view(game_id=game_id)
            # the message that tells the player to act: new, public, pinging them alone
            prompts = [m for m in exchange.public if m.pings]
            assert exchange.pings <= set(players), "someone other than a player was pinged"
            assert eve.id not in exchange.pings
            if view.is_over or plies >= PLY_CAP:
                break
            mover = players[view.to_move_id]  # type: ignore[index]
            assert [m.pings for m in prompts] == [{mover.id}], exchange.summary()
            assert prompts[0].how == "response" and mover.mention in prompts[0].content
            board = latest_board(world, game_id)
            assert board.id == prompts[0].id  # the old boards lost their buttons
            if view.dice:
                assert "dice.png" in board.files and "Dice" in board.text
            legal = await world.service.legal_moves(game_id=game_id)
            assert legal, f"{variant}: an active game with no legal action"
            suggested = await world.autocomplete(mover, "move", "notation", notation="")
            assert 0 < len(suggested) <= 25 and {c["value"] for c in suggested} <= set(legal)
            choice = choose(legal, rng)
            if choice == "reroll" and rerolls < 20:
                rerolls += 1
                exchange = await world.press(mover, board, "Re-roll")
            elif choice == "pass":
                exchange = await world.command(mover, "pass")
            else:
                typed = choice[:2]
                matches = await world.autocomplete(mover, "move", "notation", notation=typed)
                assert len(matches) == 25 or choice in {c["value"] for c in matches}
                exchange = await world.command(mover, "move", notation=choice)
            assert not exchange.private, exchange.text
            bot_requests.append(len(exchange.bot_requests))
            plies += 1
        if not view.is_over:  # the safety net: the side to move resigns through the buttons
            mover = players[view.to_move_id]  # type: ignore[index]
            asked = await world.press(mover, latest_board(world, game_id), "Resign")
            confirm = asked.only_private()
            exchange = await world.press(mover, confirm, "Yes, resign")
            view = await world.service.view(game_id=game_id)
        assert view.status == "finished" and view.result is not None
        (final,) = exchange.public
        assert view.seed is not None and view.seed in final.text and "Result" in final.text
        # only the final board keeps buttons: Rematch, Analyse (rated) and Flip
        assert [m.id for m in world.with_buttons()] == [final.id]
        assert set(final.buttons()) == {"Rematch", "Analyse", "Flip"}  # a rated game
        assert len(exchange.bot_requests) <= 2  # the previous board's buttons (and a thread)
        history = await world.command(eve, "history", game=game_id)
        (record,) = history.public
        assert f"chessgarden-game-{game_id}.txt" in record.files
        verified = await world.command(eve, "verify", game=game_id)
        assert "all rolls check out" in verified.text
        worst = max(bot_requests)
        print(
            f"\n{variant}: {plies} plies; bot-token requests per move beyond the interaction's "
            f"own: max {worst}, mean {statistics.mean(bot_requests):.2f}"
        )
        assert worst <= 2
    finally:
        await world.close()


async def test_real_boards_and_dice_reach_discord(tmp_path: Path) -> None:
    """With the real renderers: the board and dice PNGs are attached and shown by the embed,
    and the answer still comes as a type-4 response (the harness checks the 3 s deadline)."""
    world = await World.open(tmp_path, real_images=True)
    try:
        alice, bob = world.user("alice"), world.user("bob")
        made = await world.command(alice, "play", variant="guardener", opponent=bob, colour="white")
        exchange = await world.press(bob, made.public[0], "Accept")
        players = {alice.id: alice, bob.id: bob}
        latencies = []
        for _ in range(4):
            view = await world.game()
            if view.is_over:
                break
            (board,) = exchange.public
            assert board.files[:1] == ["board.png"] and board.how == "response"
            embed = board.payload["embeds"][0]
            assert embed["image"]["url"] == "attachment://board.png"
            if view.dice:
                assert "dice.png" in board.files
                assert embed["thumbnail"]["url"] == "attachment://dice.png"
            legal = [m for m in await world.service.legal_moves(game_id=view.id) if m != "reroll"]
            exchange = await world.command(players[view.to_move_id], "move", notation=legal[0])  # type: ignore[index]
            latencies.append(exchange.interaction.first_callback_after or 0.0)
        print(
            f"\nreal images: first callback after {', '.join(f'{t * 1000:.0f} ms' for t in latencies)}"
        )
    finally:
        await world.close()
