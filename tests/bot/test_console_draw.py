"""The console's hot-seat draw is one transaction (issue 9). It used to be two commits, an
offer and its acceptance; a kill between them left "you have already offered a draw" for
good. Both players sit at the keyboard, so the console agrees the draw in one call."""

from __future__ import annotations

import io
import sqlite3
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from bot.console import session as console
from bot.service import GameService, ServiceError


@pytest.fixture
async def session(tmp_path: Path):
    service = await GameService.open(str(tmp_path / "draw.sqlite3"), renderer=None)
    out = io.StringIO()
    answers = io.StringIO("y\n" * 10)  # every y/N question answered yes
    play = console.Session(service, answers, out, show_board=False)
    view = await play.start("tquarchess", None, 1)
    assert view is not None
    yield play, service, out
    await service.close()


def count_transactions(service: GameService) -> list[int]:
    """Count the write transactions the service opens from now on."""
    opened: list[int] = []
    real = service.repo.write

    @asynccontextmanager
    async def counting(*, durable: bool = True) -> Any:
        opened.append(1)
        async with real(durable=durable) as tx:
            yield tx

    service.repo.write = counting  # type: ignore[method-assign]
    return opened


async def test_draw_is_one_transaction(session: Any) -> None:
    play, service, out = session
    await play.handle("e4")
    opened = count_transactions(service)
    await play.handle("draw")
    assert len(opened) == 1
    assert "Draw agreed.\nresult 1/2-1/2 draw (agreement)\n" in out.getvalue()
    view = await service.view(game_id=play.game_id)
    assert (view.result, view.result_reason, view.draw_offer) == ("1/2-1/2", "agreement", None)
    entries = (await service.history(game_id=play.game_id)).entries
    assert [e.kind for e in entries] == ["move", "draw_accept"]
    assert (await service.verify(game_id=play.game_id)).ok


async def test_an_offer_left_by_a_killed_draw_does_not_block_the_next(session: Any) -> None:
    # What a kill between the old two commits left behind: the mover's offer, unanswered.
    play, service, out = session
    await service.offer_draw(game_id=play.game_id, user_id=console.WHITE_ID)
    await play.handle("draw")
    assert "already offered" not in out.getvalue()
    assert "result 1/2-1/2 draw (agreement)" in out.getvalue().splitlines()


@pytest.mark.parametrize("failing", [1, 2])
async def test_a_draw_killed_at_any_commit_leaves_no_offer(session: Any, failing: int) -> None:
    """The k-th transaction of the draw fails (as a kill before its commit would): the
    game is then either drawn or exactly as before, never left with a stray offer."""
    play, service, out = session
    real = service.repo.write
    opened: list[int] = []

    @asynccontextmanager
    async def failing_at_k(*, durable: bool = True) -> Any:
        opened.append(1)
        async with real(durable=durable) as tx:
            yield tx
            if len(opened) == failing:
                raise sqlite3.OperationalError("killed before the commit")

    service.repo.write = failing_at_k  # type: ignore[method-assign]
    try:
        await play.handle("draw")
    except (sqlite3.OperationalError, ServiceError):  # the store's error, in the service's words
        pass
    service.repo.write = real  # type: ignore[method-assign]
    view = await service.view(game_id=play.game_id)
    assert view.draw_offer is None, "a stray draw offer was left behind"
    assert view.status == "active" or view.result_reason == "agreement"
    if view.status == "active":
        await play.handle("draw")
        assert "result 1/2-1/2 draw (agreement)" in out.getvalue().splitlines()
