"""Players first after a restart (issue 26).

- a player whose game is not warm yet is served while the warm-up is busy, on the
  players' threads, and the warm-up then skips that game;
- everything the warm-up computes (rebuilds, snapshots, drawings) runs on its own
  thread, never on the threads that serve players;
- the bot accepts no interaction before the warm-up's drawings are done;
- the warm-up reads only the live games' ids at first, most recent first.

No figure here is a time: the order is forced with gates (threading events).
"""

from __future__ import annotations

import asyncio
import random
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # the harness lives beside this file
from harness import World  # noqa: E402

import bot.service.core as core  # noqa: E402
import variants  # noqa: E402
from bot.service import GameService, ManualClock  # noqa: E402
from bot.service.snapshots import SNAPSHOT_EVERY  # noqa: E402
from bot.service.workers import BACKGROUND_THREAD, PLAYER_THREADS  # noqa: E402

WHITE, BLACK = 101, 202
GATE_WAIT = 30.0  # seconds: only a broken order ever waits this long


async def open_service(path: Path | str, **kwargs: Any) -> GameService:
    kwargs.setdefault("rng", random.Random(3))
    kwargs.setdefault("renderer", None)
    kwargs.setdefault("dice_renderer", None)
    return await GameService.open(str(path), **kwargs)


async def start(service: GameService, location: int) -> int:
    made = await service.challenge(
        location_id=location,
        challenger_id=WHITE,
        opponent_id=BLACK,
        variant="kings_guard",
        colour="white",
    )
    outcome = await service.accept(game_id=made.game.id, user_id=BLACK, seed="s", render=False)
    return outcome.game.id


async def play(service: GameService, game_id: int, plies: int) -> None:
    """``plies`` random actions (seeded); the game is still live after them."""
    rng = random.Random(game_id)
    for _ in range(plies):
        view = await service.view(game_id=game_id)
        legal = await service.legal_moves(game_id=game_id)
        await service.act(
            game_id=game_id, user_id=view.to_move_id or 0, text=rng.choice(legal), render=False
        )
    assert (await service.view(game_id=game_id)).status == "active"


async def aged_games(path: Path, count: int) -> list[int]:
    """``count`` live games with snapshots, played in order: the last is the most recent."""
    clock = ManualClock()
    service = await open_service(path, clock=clock)
    try:
        ids = [await start(service, location) for location in range(1, count + 1)]
        for game_id in ids:
            clock.advance(minutes=1)
            await play(service, game_id, SNAPSHOT_EVERY + 1)
        await service.idle()
        return ids
    finally:
        await service.close()


def spy(
    calls: dict[int, list[str]], function: Callable[..., Any], hold: Callable[[int], None]
) -> Callable[..., Any]:
    """``function`` noting, per game, the threads that ran it; ``hold(game id)`` first."""

    def spied(row: Any, *args: Any) -> Any:
        calls.setdefault(row.id, []).append(threading.current_thread().name)
        hold(row.id)
        return function(row, *args)

    return spied


async def in_thread(event: threading.Event) -> bool:
    return await asyncio.get_running_loop().run_in_executor(None, event.wait, GATE_WAIT)


async def test_a_player_is_served_while_the_warm_up_is_busy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "w.sqlite3"
    ids = await aged_games(path, 3)
    newest, cold = ids[-1], ids[0]
    entered, gate = threading.Event(), threading.Event()

    def hold(game_id: int) -> None:
        if game_id == newest:  # the warm-up's first game: it stays in its rebuild
            entered.set()
            gate.wait(GATE_WAIT)

    calls: dict[int, list[str]] = {}
    monkeypatch.setattr(core, "restore", spy(calls, core.restore, hold))
    monkeypatch.setattr(core, "rebuild", spy(calls, core.rebuild, hold))
    # One thread for players: a warm-up sharing it would hold it while it waits.
    again = await open_service(path, cpu_workers=1)
    try:
        warming = again.start_warm_up(gc_policy=False)
        assert await in_thread(entered)
        # A player reaches a game the warm-up has not come to: served now, not after it.
        legal = await asyncio.wait_for(again.legal_moves(game_id=cold), GATE_WAIT)
        view = await again.view(game_id=cold)
        moved = await asyncio.wait_for(
            again.act(game_id=cold, user_id=view.to_move_id or 0, text=legal[0], render=False),
            GATE_WAIT,
        )
        assert moved.game.ply == view.ply + 1
        assert not warming.done() and not gate.is_set()
        gate.set()
        warmed = await warming
    finally:
        gate.set()
        await again.close()
    assert warmed == [newest, ids[1]]  # the player's game was warm already: skipped
    assert len(calls[cold]) == 1  # one rebuild for the player, as at any other time
    assert calls[cold][0].startswith(PLAYER_THREADS)
    for game_id in warmed:
        assert all(name.startswith(BACKGROUND_THREAD) for name in calls[game_id])


async def test_the_warm_up_never_uses_the_players_threads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its rebuilds, the snapshots it takes and its drawings: all on its own thread."""
    path = tmp_path / "t.sqlite3"
    ids = await aged_games(path, 2)
    # One more game whose snapshot is due: the warm-up takes it after the rebuild.
    service = await open_service(path, snapshots=False)
    try:
        await play(service, ids[0], SNAPSHOT_EVERY)
    finally:
        await service.close()

    threads: dict[str, list[str]] = {"rebuild": [], "take": [], "draw": [], "dice": []}

    def noting(what: str, function: Callable[..., Any]) -> Callable[..., Any]:
        def noted(*args: Any) -> Any:
            threads[what].append(threading.current_thread().name)
            return function(*args)

        return noted

    monkeypatch.setattr(core, "restore", noting("rebuild", core.restore))
    monkeypatch.setattr(core, "rebuild", noting("rebuild", core.rebuild))
    monkeypatch.setattr(core, "take", noting("take", core.take))
    again = await open_service(
        path,
        renderer=noting("draw", lambda game, side: b"png"),
        dice_renderer=noting("dice", lambda variant, dice: b"png"),
    )
    try:
        warmed = await again.start_warm_up(gc_policy=False)
        await again.idle()
    finally:
        await again.close()
    assert sorted(warmed) == sorted(ids)
    assert len(threads["rebuild"]) == 2 and threads["take"]
    assert len(threads["draw"]) == 2 * len(variants.names())  # each variant, both sides
    assert threads["dice"]
    for what, names in threads.items():
        assert all(name.startswith(BACKGROUND_THREAD) for name in names), (what, names)


async def test_the_bot_accepts_interactions_only_once_the_drawings_are_done(
    tmp_path: Path,
) -> None:
    world = await World.open(tmp_path)
    entered, gate = threading.Event(), threading.Event()

    def slow_board(game: Any, side: str) -> bytes:
        entered.set()
        gate.wait(GATE_WAIT)
        return b"png"

    service = world.service
    service._renderer = slow_board
    login: asyncio.Future[None] | None = None
    try:
        # As ``chessgarden run`` starts: the warm-up first, then the bot logs in.
        warming = service.start_warm_up(gc_policy=False)
        login = asyncio.ensure_future(world.restart())
        assert await in_thread(entered)
        for _ in range(20):  # the login goes as far as it can meanwhile
            await asyncio.sleep(0.01)
        assert not login.done()  # setup_hook waits: no gateway, no interaction yet
        gate.set()
        await asyncio.wait_for(login, GATE_WAIT)
        await warming
    finally:
        gate.set()
        if login is not None:
            await asyncio.gather(login, return_exceptions=True)
        await world.close()


async def test_the_live_games_ids_most_recent_first(store_target: str) -> None:
    clock = ManualClock()
    service = await open_service(store_target, clock=clock)
    try:
        ids = [await start(service, location) for location in range(1, 5)]
        for game_id in (ids[2], ids[0], ids[3], ids[1]):
            clock.advance(minutes=1)
            await play(service, game_id, 1)
        await service.resign(game_id=ids[3], user_id=WHITE)  # over: not live
        recent = await service.repo.recent_live_game_ids(10)
        assert recent == [ids[1], ids[0], ids[2]]
        assert await service.repo.recent_live_game_ids(2) == [ids[1], ids[0]]
        assert await service.repo.recent_live_game_ids(0) == []
    finally:
        await service.close()
