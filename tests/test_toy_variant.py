"""A variant owns its facts (issue 25, item 1): Toy Dice Chess (``tests/toy_variant.py``)
lives only in the tests, is registered here, and with nothing outside its module made
for it, it:

- plays a game to a result in the console (``bot.console.session``, in process);
- plays through the Discord payload harness: /play, Accept, /move to a result;
- plays against the computer at level 1 (the service's worker processes, the engine);
- times out on the service's clock and is rated;
- draws its board and its die (``renderers``);
- has its rule page (``chessgarden rules``, ``variants.rulebook_*``).

The registry also refuses a variant that does not say whether a side can still win.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import random
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from PIL import Image

sys.path.insert(0, str(Path(__file__).parent / "bot"))  # the payload harness
import toy_variant  # noqa: E402
from toy_variant import KEY, ToyDiceChess  # noqa: E402

import variants  # noqa: E402
from variants.dice import VerifiableDice  # noqa: E402


@pytest.fixture
def toy() -> Iterator[variants.Variant]:
    rules = variants.register(ToyDiceChess)
    try:
        yield rules
    finally:
        variants.unregister(KEY)
    assert KEY not in variants.names()


def random_game(seed: int, dice: variants.DiceSource | None = None) -> variants.Game:
    """A toy game played to its end by random legal actions."""
    rng = random.Random(seed)
    game = variants.new_game(KEY, dice=dice) if dice else variants.new_game(KEY, seed=seed)
    for _ in range(400):
        if game.result is not None:
            return game
        game.play(rng.choice(game.legal_moves()))
    raise AssertionError("no result in 400 actions")


# ----- the registry ---------------------------------------------------------------------


def test_registering_and_the_refusals(toy: variants.Variant) -> None:
    assert variants.names()[-1] == KEY and variants.rules(KEY) is toy
    assert variants.added() == (ToyDiceChess,)
    with pytest.raises(ValueError, match="already a variant"):
        variants.register(ToyDiceChess)

    class Silent(ToyDiceChess):  # says nothing about who can still win
        key = "toy_silent"
        can_still_win = variants.Variant.can_still_win

    with pytest.raises(ValueError, match="can still win"):
        variants.register(Silent)
    assert "toy_silent" not in variants.names()
    with pytest.raises(NotImplementedError, match="can still win"):
        Silent().can_still_win(toy.initial_position({}, lambda n: 1), 0)
    with pytest.raises(ValueError, match="built in"):
        variants.unregister(variants.names()[0])


def test_the_rules_of_the_toy(toy: variants.Variant) -> None:
    leap = variants.from_fen(KEY, "4k/5/5/5/R3K w - - 0 1 4")
    assert {"Kc2", "Kd3"} <= set(leap.legal_moves())  # a 4: the King leaps like a Knight
    assert "Kc2" not in variants.from_fen(KEY, "4k/5/5/5/R3K w - - 0 1 3").legal_moves()
    game = random_game(1)
    assert variants.replay(game.record()).history == game.history
    lone = variants.from_fen(KEY, "4k/5/5/5/Q3K w - - 0 1")
    assert toy.can_still_win(lone.pos, 0) and not toy.can_still_win(lone.pos, 1)


# ----- the rule page -----------------------------------------------------------------------


def test_its_rule_page(toy: variants.Variant) -> None:
    from bot import cli

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert cli.main(["rules", KEY]) == 0
    text = out.getvalue()
    assert text.startswith("Toy Dice Chess\n") and "leap like a Knight" in text
    assert "Readings in force" in text and toy.readings[0].split(":")[0] in text
    markdown = variants.rulebook_markdown(KEY)
    assert markdown.startswith("# Toy Dice Chess (`toy_dice`)")
    assert variants.rulebook_pages(KEY)
    assert f"{KEY}.md" in variants.rulebook_docs()


# ----- the console ---------------------------------------------------------------------------


async def test_a_game_in_the_console(toy: variants.Variant, tmp_path: Path) -> None:
    from bot.console import session as console

    # The console's dice for seed 5 in game 1: the same game, played here first.
    game = random_game(3, dice=VerifiableDice("5", 1))
    typed = [text for text in game.history]
    args = argparse.Namespace(
        variant=KEY,
        db=str(tmp_path / "console.sqlite3"),
        game=None,
        seed=5,
        images=None,
        option=[],
        show_board=True,
        orientation=None,
    )
    out = io.StringIO()
    code = await console._play(args, io.StringIO("\n".join(["help", *typed, "rules"]) + "\n"), out)  # noqa: SLF001
    assert code == 0
    text = out.getvalue()
    assert text.startswith("game 1\n") and "  a  b  c  d  e" in text
    assert f"result {game.result.score}" in text  # type: ignore[union-attr]
    assert "Toy Dice Chess\n==============" in text  # ``rules`` after the end
    assert "error" not in text
    help_text = console.variant_list()
    assert KEY in help_text and help_text.endswith(f"or {KEY}")


# ----- the computer ------------------------------------------------------------------------


async def test_against_the_computer_at_level_1(toy: variants.Variant, tmp_path: Path) -> None:
    from bot.service import GameService

    service = await GameService.open(
        str(tmp_path / "ai.sqlite3"), renderer=None, rng=random.Random(0)
    )
    try:
        out = await service.play_computer(
            user_id=7, location_id=1, variant=KEY, level=1, colour="black", render=False
        )
        gid = out.game.id
        rng = random.Random(2)
        computer_moves = 0
        for _ in range(300):
            view = await service.view(game_id=gid)
            if view.is_over:
                break
            if view.turn == view.computer:
                moved = await service.computer_move(game_id=gid, budget_s=0.3)
                assert moved is not None
                computer_moves += 1
            else:
                legal = await service.legal_moves(game_id=gid)
                await service.act(game_id=gid, user_id=7, text=rng.choice(legal), render=False)
        view = await service.view(game_id=gid)
        assert view.is_over and view.result is not None and computer_moves >= 3
        report = await service.verify(game_id=gid)  # replayed in a worker process too
        assert report.ok, report.problems
    finally:
        await service.close()


async def test_worker_processes_know_it(toy: variants.Variant) -> None:
    """A variant registered at run time reaches the service's worker processes (the
    computer's search and the verifier run there)."""
    import os

    from bot.service.workers import Workers

    workers = Workers(1)
    try:
        pid, names = await workers.process(toy_variant.known_here)
    finally:
        workers.close()
    assert pid != os.getpid() and KEY in names


def test_the_engine_alone(toy: variants.Variant) -> None:
    import engine

    game = variants.new_game(KEY, seed=4)
    for _ in range(6):
        if game.result is not None:
            break
        choice = engine.choose_for_game(game, 1, budget_s=0.2, seed=1)
        assert choice.action in game.legal_moves()
        game.play(choice.action)
    assert engine.evaluate.evaluator(KEY).mating  # its own hint


# ----- the clock and the ratings ---------------------------------------------------------------


async def test_a_timeout_is_rated(toy: variants.Variant, tmp_path: Path) -> None:
    from bot.service import GameService, ManualClock

    clock = ManualClock(datetime(2030, 1, 1, tzinfo=UTC))
    service = await GameService.open(
        str(tmp_path / "clock.sqlite3"), renderer=None, rng=random.Random(0), clock=clock
    )
    try:
        made = await service.challenge(
            location_id=3, challenger_id=1, opponent_id=2, colour="white", variant=KEY,
            guild_id=9, rated=True, days=1,
        )  # fmt: skip
        await service.accept(location_id=3, user_id=2, render=False)
        for user in (1, 2, 1):
            legal = await service.legal_moves(location_id=3)
            await service.act(location_id=3, user_id=user, text=legal[0], render=False)
        clock.advance(days=2)  # black, to act, runs out: white has all its pieces
        (event,) = [e for e in await service.run_due() if e.kind == "timeout"]
        assert event.game.id == made.game.id
        assert (event.game.winner, event.game.result_reason) == ("white", "timeout")
        assert event.ratings and any("Rating changes" in m for m in event.messages)
        board = await service.leaderboard(variant=KEY, guild_id=9)
        assert [s.player_id for s in board.top] == [1, 2] and board.variant_title == toy.title
    finally:
        await service.close()


# ----- pictures ------------------------------------------------------------------------------


def test_its_board_and_its_die(toy: variants.Variant) -> None:
    from bot.service import render_dice
    from renderers import board, render_png

    game = variants.new_game(KEY, rolls=[4])
    for orientation in ("white", "black"):
        png = render_png(game, size=400, orientation=orientation)
        image = Image.open(io.BytesIO(png))
        assert image.format == "PNG" and image.width == 400
    assert board.warm(KEY, size=200) > 0
    die = Image.open(io.BytesIO(render_dice(KEY, game.dice or ())))
    assert die.format == "PNG" and die.width > 0


# ----- Discord --------------------------------------------------------------------------------


async def test_a_game_through_discord_payloads(toy: variants.Variant, tmp_path: Path) -> None:
    from harness import World, game_of, latest_board

    world = await World.open(tmp_path, seed=3, real_images=True)
    try:
        alice, bob = world.user("alice"), world.user("bob")
        players = {alice.id: alice, bob.id: bob}
        made = await world.command(alice, "play", variant=KEY, opponent=bob)
        (challenge,) = made.public
        game_id = game_of(challenge)
        await world.press(bob, challenge, "Accept")
        rng = random.Random(4)
        for _ in range(300):
            view = await world.service.view(game_id=game_id)
            if view.is_over:
                break
            mover = players[view.to_move_id]  # type: ignore[index]
            board = latest_board(world, game_id)
            assert "dice.png" in board.files and "Dice" in board.text
            legal = await world.service.legal_moves(game_id=game_id)
            exchange = await world.command(mover, "move", notation=rng.choice(legal))
            assert not exchange.private, exchange.text
        view = await world.service.view(game_id=game_id)
        assert view.status == "finished" and view.result is not None
        shown = await world.command(alice, "rules", variant=KEY)
        assert "Toy Dice Chess" in shown.text
    finally:
        await world.close()


def test_the_module_is_the_only_place_it_is_named() -> None:
    """Nothing outside ``tests/`` knows the toy: its key and class appear only in its
    module and in this test."""
    root = Path(__file__).resolve().parent.parent
    here = {Path(__file__).resolve(), Path(toy_variant.__file__).resolve()}
    for path in root.rglob("*.py"):
        if path.resolve() in here or any(p.startswith(".") for p in path.parts):
            continue
        text = path.read_text(encoding="utf-8")
        assert KEY not in text and "ToyDiceChess" not in text, path
