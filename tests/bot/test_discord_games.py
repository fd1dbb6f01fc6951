"""A whole game of every variant through the cog layer: /play, the Accept button,
/move chosen from the legal actions (checked against autocomplete), the Re-roll button
and /pass when offered, until a result. A ply cap then resigning is the safety net."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # the fakes toolkit lives beside this file
from fakes import Table  # noqa: E402

import variants  # noqa: E402
from bot.cogs.game import GameCog  # noqa: E402
from bot.cogs.info import InfoCog  # noqa: E402

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
async def test_a_full_game_through_the_cogs(tmp_path: Path, variant: str) -> None:
    rng = random.Random(f"cog-game-{variant}")
    table = await Table.open(tmp_path, seed=11)
    try:
        game, info = GameCog(table.client), InfoCog(table.client)  # type: ignore[arg-type]
        alice, bob = table.member("alice"), table.member("bob")
        await game.play.callback(game, table.interaction(alice), variant, bob, "random")
        challenge = table.last_sent(with_view=True)
        await table.press(
            challenge.button("Accept"),
            table.interaction(bob, message=table.message_of(challenge)),
        )
        players = {alice.id: alice, bob.id: bob}
        plies = rerolls = 0
        while plies < PLY_CAP:
            view = await table.service.view(location_id=table.channel.id)
            if view.is_over:
                break
            assert view.to_move_id is not None
            mover = players[view.to_move_id]
            board = table.last_sent()
            assert not board.ephemeral and mover.mention in (board.content or ""), board.text
            if view.dice:
                assert "dice.png" in board.filenames() and "Dice" in board.text
            legal = await table.service.legal_moves(location_id=table.channel.id)
            assert legal, f"{variant}: an active game with no legal action"
            suggested = await game.move_autocomplete(table.interaction(mover), "")
            assert 0 < len(suggested) <= 25 and {c.value for c in suggested} <= set(legal)
            choice = choose(legal, rng)
            typed = choice[:2]
            matches = await game.move_autocomplete(table.interaction(mover), typed)
            assert len(matches) == 25 or choice in {c.value for c in matches}
            before = len(table.sent)
            if choice == "reroll" and rerolls < 20:
                rerolls += 1
                await table.press(board.button("Re-roll"), table.interaction(mover))
            elif choice == "pass":
                await game.pass_.callback(game, table.interaction(mover))
            else:
                await game.move.callback(game, table.interaction(mover), choice)
            assert len(table.sent) == before + 1
            assert not table.last_sent().ephemeral, table.last_sent().text
            plies += 1
        view = await table.service.view(location_id=table.channel.id)
        if not view.is_over:  # the safety net: the side to move resigns through the buttons
            mover = players[view.to_move_id]  # type: ignore[index]
            board = table.last_sent(with_view=True)
            await table.press(board.button("Resign"), table.interaction(mover))
            confirm = table.last_sent()
            assert confirm.ephemeral
            await table.press(confirm.button("Yes, resign"), table.interaction(mover))
            view = await table.service.view(location_id=table.channel.id)
        assert view.status == "finished" and view.result is not None
        final = table.last_sent()
        assert view.seed is not None and view.seed in final.text
        assert "Result" in final.text
        await info.history.callback(info, table.interaction(table.member("eve")))
        record = table.last_sent().files[0].fp.read().decode()
        replayed = variants.replay((await table.service.history(game_id=view.id)).record)
        assert replayed.record() in record
        await info.verify.callback(info, table.interaction(table.member("eve")))
        assert "all rolls check out" in table.last_sent().text
    finally:
        await table.close()
