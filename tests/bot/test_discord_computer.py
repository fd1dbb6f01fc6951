"""/play computer:LEVEL through the payload harness: real interactions, only the HTTP
edges replaced. A game against the computer to a result through the cog layer; the
thinking indication; the computer's moves posted like a player's (a new board pinging the
player, the old board's buttons off); refusals; a restart resumes the computer's turn."""

from __future__ import annotations

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))  # the harness lives beside this file
from harness import World, game_of, latest_board  # noqa: E402

from bot.service import COMPUTER_ID  # noqa: E402


async def open_world(tmp_path: Path) -> World:
    world = await World.open(tmp_path)
    world.service.computer_budget_s = 0.05  # level 1 finishes its iteration at once
    return world


async def test_a_game_against_the_computer_to_a_result(tmp_path: Path) -> None:
    world = await open_world(tmp_path)
    try:
        alice = world.user("alice")
        started = await world.command(
            alice, "play", variant="kings_guard", computer=1, colour="black"
        )
        # The answer: the first board, saying the computer thinks; nobody pinged by it.
        first = started.public[0]
        assert first.how in ("response", "deferred-filled")
        assert "The computer is thinking… (level 1)" in first.content and not first.pings
        assert "White: the computer" in first.text and "unrated" in first.text
        # Then the computer's move, posted with the bot's token, pinging Alice only.
        posted = [
            r for r in started.bot_requests if r.route == "POST /channels/{channel_id}/messages"
        ]
        assert len(posted) == 1
        assert posted[0].body is not None
        assert [int(u) for u in posted[0].body["allowed_mentions"]["users"]] == [alice.id]
        game_id = (await world.game()).id
        board = latest_board(world, game_id)
        assert board.id != first.id and board.pings == {alice.id}
        assert f"<@{alice.id}>, your move (black)." in board.content
        assert first.buttons() == {}  # the old board's buttons came off
        rng = random.Random(5)
        for _ in range(300):
            view = await world.service.view(game_id=game_id)
            if view.is_over:
                break
            assert view.turn == "black"
            legal = await world.service.legal_moves(game_id=game_id)
            played = await world.command(alice, "move", notation=rng.choice(legal))
            assert played.public, played.summary()
            assert all(COMPUTER_ID not in m.pings for m in world.discord.messages.values())
        view = await world.service.view(game_id=game_id)
        assert view.is_over and view.result is not None, "no result in 300 moves"
        assert view.computer == "white" and view.computer_level == 1
        history = await world.service.history(game_id=game_id)
        assert any(e.actor_id == COMPUTER_ID for e in history.entries)
        last = max(
            (m for m in world.discord.messages.values() if m.channel_id == world.chess),
            key=lambda m: m.id,
        )
        assert f"game {game_id} is over" in last.content
        assert (await world.service.verify(game_id=game_id)).ok
    finally:
        await world.close()


async def test_computer_and_opponent_together_are_refused(tmp_path: Path) -> None:
    world = await open_world(tmp_path)
    try:
        alice, bob = world.user("alice"), world.user("bob")
        refused = await world.command(alice, "play", variant="guardener", computer=2, opponent=bob)
        message = refused.only_private()
        assert "Choose an opponent or the computer, not both" in message.text
        assert await world.service.list_games() == ()
    finally:
        await world.close()


async def test_after_a_restart_the_computer_moves(tmp_path: Path) -> None:
    world = await open_world(tmp_path)
    try:
        alice = world.user("alice")
        await world.bot.computer_runner.stop()  # the bot "dies" before the computer moves
        started = await world.command(
            alice, "play", variant="stone_garden", computer=1, colour="black"
        )
        game_id = game_of(started.public[0])  # no move yet: its buttons are on
        assert (await world.service.view(game_id=game_id)).ply == 0
        await world.restart()  # the new bot resumes the computer's turn when it starts
        await world.bot.computer_runner.idle()
        await world.deliver()  # the new bot's outbox worker posts the move
        view = await world.service.view(game_id=game_id)
        assert view.ply >= 1 and view.turn == "black"
        board = latest_board(world, game_id)
        assert board.pings == {alice.id}
    finally:
        await world.close()
