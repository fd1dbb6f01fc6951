"""One call per move (contract C9): ``Outcome.legal`` and ``Outcome.dice_image`` come with
the result, drawn through the injected renderers in a worker thread; and board messages
(contract C8) are remembered per game, across restarts."""

from __future__ import annotations

import random
import threading
from pathlib import Path
from typing import Any

import pytest

from bot.service import GameService, NotFound, Outcome
from bot.service.live import dice_sides

render_dice_png = pytest.importorskip("renderers").render_dice_png

ALICE, BOB = 101, 202
PNG = b"\x89PNG\r\n\x1a\n"


class Drawn:
    """Fake renderers that note what they drew and on which thread."""

    def __init__(self) -> None:
        self.threads: set[int] = set()
        self.dice: list[tuple[str, tuple[int, ...]]] = []

    def board(self, game: Any, side: str) -> bytes:
        self.threads.add(threading.get_ident())
        return b"board:" + side.encode()

    def dice_png(self, variant: str, dice: tuple[int, ...]) -> bytes:
        self.threads.add(threading.get_ident())
        self.dice.append((variant, dice))
        return b"dice:" + bytes(dice)


async def start(service: GameService, variant: str, location: int = 1) -> Outcome:
    await service.challenge(
        location_id=location, challenger_id=ALICE, opponent_id=BOB, variant=variant, colour="white"
    )
    return await service.accept(location_id=location, user_id=BOB)


@pytest.mark.parametrize("variant", ["guardener", "jepps_random", "tquarchess"])
async def test_a_move_returns_the_legal_list_and_the_dice(tmp_path: Path, variant: str) -> None:
    service = await GameService.open(str(tmp_path / "c9.sqlite3"), rng=random.Random(1))
    try:
        outcome = await start(service, variant)
        rng = random.Random(variant)
        for _ in range(12):
            assert outcome.legal == await service.legal_moves(game_id=outcome.game.id)
            assert outcome.image is not None and outcome.image.startswith(PNG)
            if outcome.dice:
                sides = dice_sides(4 if variant != "jepps_random" else 6, outcome.dice)
                assert outcome.dice_image == render_dice_png(outcome.dice, sides)
            else:
                assert outcome.dice_image is None
            outcome = await service.act(
                game_id=outcome.game.id,
                user_id=outcome.next_user_id,
                text=rng.choice(outcome.legal),
            )
            if outcome.game_over:
                break
        quiet = await service.act(
            game_id=outcome.game.id,
            user_id=outcome.next_user_id,
            text=outcome.legal[0],
            render=False,
        )
        assert quiet.image is None and quiet.dice_image is None
        assert quiet.legal == await service.legal_moves(game_id=outcome.game.id)
        over = await service.resign(game_id=outcome.game.id, user_id=ALICE, render=True)
        assert over.legal == () and over.dice_image is None and over.image is not None
    finally:
        await service.close()


async def test_drawing_goes_through_the_injected_renderers_off_the_loop(tmp_path: Path) -> None:
    drawn = Drawn()
    service = await GameService.open(
        str(tmp_path / "inject.sqlite3"), renderer=drawn.board, dice_renderer=drawn.dice_png
    )
    try:
        started = await start(service, "guardener")
        assert started.image == b"board:white"
        assert started.dice is not None and started.dice_image == b"dice:" + bytes(started.dice)
        board = await service.board(game_id=started.game.id, orientation="black")
        assert board.image == b"board:black" and board.legal == started.legal
        assert board.dice_image == started.dice_image
        moved = await service.act(game_id=started.game.id, user_id=ALICE, text=started.legal[0])
        assert moved.dice is not None and drawn.dice[-1] == ("guardener", moved.dice)
        offered = await service.offer_draw(game_id=started.game.id, user_id=BOB, render=True)
        assert offered.image is not None and offered.legal == moved.legal
        assert threading.get_ident() not in drawn.threads  # never on the event loop's thread
    finally:
        await service.close()


def test_dice_faces() -> None:
    assert dice_sides(4, (2, 3)) == 4
    assert dice_sides(6, (6, 1)) == 6
    assert dice_sides(0, (5, 2)) == 6  # no die of its own: the smallest common die that fits
    assert dice_sides(4, (7,)) == 8


async def test_board_messages_are_remembered_across_a_restart(tmp_path: Path) -> None:
    db = str(tmp_path / "c8.sqlite3")
    service = await GameService.open(db, renderer=None)
    try:
        started = await start(service, "tquarchess")
        gid = started.game.id
        assert await service.board_message(game_id=gid) is None
        assert await service.set_board_message(game_id=gid, channel_id=77, message_id=1001) is None
        replaced = await service.set_board_message(game_id=gid, channel_id=77, message_id=1002)
        assert replaced == (77, 1001)  # the board it replaces, in the same call
        with pytest.raises(NotFound):
            await service.set_board_message(game_id=gid + 1, channel_id=1, message_id=2)
        with pytest.raises(NotFound):
            await service.board_message(game_id=gid + 1)
        await service.resign(game_id=gid, user_id=ALICE)
    finally:
        await service.close()
    again = await GameService.open(db, renderer=None)
    try:
        assert await again.board_message(game_id=gid) == (77, 1002)
    finally:
        await again.close()


async def test_forced_placements_are_said_apart_from_the_players_choice(tmp_path: Path) -> None:
    """Jepps Random: the last piece of a side's setup is placed by itself, and follows the
    action before it in the record; the headline does not credit it to that player."""
    service = await GameService.open(str(tmp_path / "f.sqlite3"), rng=random.Random(2))
    try:
        outcome = await start(service, "jepps_random")
        headlines = []
        for _ in range(20):
            view = outcome.game
            assert view.to_move_id is not None
            outcome = await service.act(
                user_id=view.to_move_id, text=outcome.legal[0], game_id=view.id, render=False
            )
            headlines.append((outcome.recorded, str(outcome.messages[0])))
        forced = [(r, h) for r, h in headlines if r and " (" in r]
        assert forced, headlines
        for recorded, headline in forced:
            chosen, _, rest = recorded.partition(" (")
            placed = ", ".join(rest.rstrip(")").split(") ("))
            assert headline.endswith(f"played {chosen}; placed by themselves: {placed}."), headline
        for recorded, headline in headlines:
            if recorded and " (" not in recorded:
                assert headline.endswith(f"played {recorded}."), headline
    finally:
        await service.close()
