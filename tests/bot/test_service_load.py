"""Replays off the event loop (issue 9): 20 concurrent ``verify`` calls on a finished
~600-ply game while another game's board is requested. A lag probe (a task sleeping
1 ms in a loop) records the loop's largest block, which is PRINTED, not asserted: wall
clock on a shared machine is no test. Asserted: every report is right, the board came
back, and the heavy work ran off the loop: the verification in a worker process (never
in this one), the rebuild of the other game and the drawing in worker threads. ``benchmarks/loop_lag.py`` compares the figure with the code
before issue 9, interleaved in one run."""

from __future__ import annotations

import asyncio
import random
import threading
import time
from pathlib import Path
from typing import Any

import pytest

import bot.service.core as core
import bot.service.verify as verify
from bot.service import GameService
from storage import GameChanges, NewAction
from variants.dice import VerifiableDice

ALICE, BOB = 101, 202
PLIES = 600
PNG = b"\x89PNG\r\n\x1a\n"


async def long_finished_game(service: GameService, variant: str, seed: int) -> int:
    """A finished game of about ``PLIES`` plies, stored exactly as the service stores one
    (same seed, same dice, one log entry per action) but in one transaction, for speed."""
    await service.challenge(
        location_id=1, challenger_id=ALICE, opponent_id=BOB, variant=variant, colour="white"
    )
    secret = f"load-seed-{seed}"
    started = await service.accept(location_id=1, user_id=BOB, seed=secret, render=False)
    gid = started.game.id
    import variants

    game = variants.new_game(variant, dice=VerifiableDice(secret, gid))
    assert tuple(game.dice or ()) == tuple(started.dice or ())
    rng = random.Random(seed)
    entries: list[NewAction] = []
    while len(entries) < PLIES and game.result is None:
        mover = ALICE if game.turn == "white" else BOB
        before = len(game.rolls)
        text = game.play(rng.choice(game.legal_moves()))
        entries.append(
            NewAction(gid, len(entries) + 1, "move", mover, text, tuple(game.rolls[before:]))
        )
    async with service.repo.write() as tx:
        for entry in entries:
            await tx.append_action(entry)
        if game.result is None:
            await tx.append_action(
                NewAction(gid, len(entries) + 1, "resign", ALICE, "white resigns")
            )
            await tx.update_game(
                gid, GameChanges(status="finished", result="0-1", result_reason="resignation")
            )
        else:
            winner = game.result.winner
            await tx.update_game(
                gid,
                GameChanges(
                    status="finished",
                    result={"white": "1-0", "black": "0-1", None: "1/2-1/2"}[winner],
                    result_reason=game.result.reason,
                ),
            )
    return gid


class LagProbe:
    """Sleeps 1 ms in a loop and records the largest overshoot: the loop's longest block."""

    def __init__(self) -> None:
        self.largest = 0.0
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    async def _run(self) -> None:
        while not self._stop.is_set():
            started = time.perf_counter()
            await asyncio.sleep(0.001)
            self.largest = max(self.largest, time.perf_counter() - started - 0.001)

    def __enter__(self) -> LagProbe:
        self._task = asyncio.get_running_loop().create_task(self._run())
        return self

    async def stop(self) -> float:
        self._stop.set()
        assert self._task is not None
        await self._task
        return self.largest

    def __exit__(self, *exc: object) -> None:
        self._stop.set()


@pytest.mark.parametrize("variant", ["tquarchess"])
async def test_twenty_verifies_of_a_long_game_leave_the_loop_free(
    tmp_path: Path, variant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = str(tmp_path / "load.sqlite3")
    setup = await GameService.open(db, renderer=None, rng=random.Random(0))
    try:
        long_id = await long_finished_game(setup, variant, seed=15)
        await setup.challenge(
            location_id=2, challenger_id=ALICE, opponent_id=BOB, variant="guardener"
        )
        other = (await setup.accept(location_id=2, user_id=BOB, render=False)).game.id
        plies = (await setup.view(game_id=long_id)).ply
    finally:
        await setup.close()
    assert plies >= 400

    # Note the thread of every heavy call.
    loop_thread = threading.get_ident()
    threads: dict[str, set[int]] = {}

    def noting(name: str, function: Any) -> Any:
        def run(*args: Any, **kwargs: Any) -> Any:
            threads.setdefault(name, set()).add(threading.get_ident())
            return function(*args, **kwargs)

        return run

    # Verification runs in a worker process: this process must never replay for it
    # (the worker imports the real module; this patched copy would note a local run).
    monkeypatch.setattr(verify, "_replay", noting("verify here", verify._replay))  # noqa: SLF001
    monkeypatch.setattr(core, "rebuild", noting("rebuild", core.rebuild))
    monkeypatch.setattr(core, "show", noting("draw", core.show))

    service = await GameService.open(db)  # a restart: nothing cached
    try:
        with LagProbe() as probe:
            started = time.perf_counter()
            results = await asyncio.gather(
                *(service.verify(game_id=long_id) for _ in range(20)),
                service.board(game_id=other),
            )
            elapsed = time.perf_counter() - started
            largest = await probe.stop()
    finally:
        await service.close()
    reports, board = results[:-1], results[-1]
    print(
        f"\n20 x verify of a {plies}-ply {variant} game + 1 board: {elapsed * 1000:.0f} ms; "
        f"the event loop's largest block: {largest * 1000:.1f} ms"
    )
    assert all(r.ok and r.game_id == long_id for r in reports)  # type: ignore[union-attr]
    assert all(r.rolls_checked == reports[0].rolls_checked for r in reports)  # type: ignore[union-attr]
    assert board.image is not None and board.image.startswith(PNG)  # type: ignore[union-attr]
    assert board.legal and board.game.id == other  # type: ignore[union-attr]
    assert set(threads) == {"rebuild", "draw"}, "verification ran in this process"
    for name, seen in threads.items():
        assert loop_thread not in seen, f"{name} ran on the event loop"


async def test_history_of_a_finished_game_rebuilds_off_the_loop(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = str(tmp_path / "history.sqlite3")
    setup = await GameService.open(db, renderer=None)
    try:
        gid = await long_finished_game(setup, "guardener", seed=6)
    finally:
        await setup.close()
    seen: list[int] = []
    real = core.rebuild

    def rebuild(*args: Any) -> Any:
        seen.append(threading.get_ident())
        return real(*args)

    monkeypatch.setattr(core, "rebuild", rebuild)
    service = await GameService.open(db, renderer=None)
    try:
        history = await service.history(game_id=gid)
        assert history.record and len(history.entries) >= 100
        assert seen and threading.get_ident() not in seen
    finally:
        await service.close()


async def test_verification_works_in_threads_while_worker_processes_cannot_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Worker processes that cannot start are tried twice, then again only after a
    backoff (here a minute); meanwhile verification runs in threads. That new pools are
    tried again and take the work back is ``tests/bot/test_workers_heal.py``."""
    service = await GameService.open(str(tmp_path / "fallback.sqlite3"), renderer=None)
    attempts = []

    def no_processes() -> Any:
        attempts.append(1)
        raise OSError("no processes here")

    monkeypatch.setattr(service._workers, "processes", no_processes)  # noqa: SLF001
    service._workers.backoff_s = 60.0  # noqa: SLF001
    try:
        await service.challenge(
            location_id=1, challenger_id=ALICE, opponent_id=BOB, variant="guardener"
        )
        await service.accept(location_id=1, user_id=BOB, render=False)
        await service.resign(location_id=1, user_id=ALICE)
        for _ in range(5):
            service._verified.clear()  # noqa: SLF001 - verify afresh each time
            assert (await service.verify(location_id=1)).ok
        assert len(attempts) == 2  # then threads, until the backoff's minute is over
        assert service._workers.restarts == 0  # noqa: SLF001 - no pool started
    finally:
        await service.close()
