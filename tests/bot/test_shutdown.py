"""The graceful stop's parts (issue 24): ordered, time-bounded steps (``bot.discord.shutdown``),
the scheduler and the computer runner letting work in flight finish, or giving it back."""

from __future__ import annotations

import asyncio
import logging
import random
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

import variants
from bot.discord.shutdown import Deadline, Step, run_steps, tasks_named
from bot.service import ComputerRunner, GameService, Outcome, Scheduler

HUMAN = 101


async def test_steps_run_in_order_each_bounded(caplog: pytest.LogCaptureFixture) -> None:
    done: list[str] = []

    def step(name: str, seconds: float, fail: bool = False) -> Step:
        async def stop() -> str | None:
            await asyncio.sleep(seconds)
            if fail:
                raise RuntimeError("broken")
            done.append(name)
            return "a note" if name == "b" else None

        return Step(name, stop, timeout=0.2)

    caplog.set_level(logging.INFO, logger="bot.discord.shutdown")
    clean = await run_steps(
        [step("a", 0), step("b", 0), step("slow", 5), step("bad", 0, True), step("c", 0)]
    )
    assert not clean and done == ["a", "b", "c"]  # a slow or failed step does not stop the rest
    lines = [r.getMessage() for r in caplog.records]
    assert lines[0].startswith("shutdown: a stopped (") and lines[1].endswith("; a note)")
    assert lines[2] == "shutdown: slow did not stop within 0.2 s; cancelled"
    assert lines[3] == "shutdown: bad failed to stop"


async def test_one_budget_for_all_steps_but_every_step_runs() -> None:
    ran: list[str] = []

    async def sleepy() -> None:
        await asyncio.sleep(10)

    async def close() -> None:
        ran.append("close")

    deadline = Deadline(0.3)
    loop = asyncio.get_running_loop()
    started = loop.time()
    await run_steps([Step("slow", sleepy, 5.0), Step("store", close, 5.0)], deadline)
    assert loop.time() - started < 1.0 and ran == ["close"]  # 0.3 s budget, then the floor


async def test_tasks_named_waits_for_new_ones_too() -> None:
    async def work(seconds: float) -> None:
        await asyncio.sleep(seconds)

    first = asyncio.create_task(work(0.1), name="CommandTree-invoker")
    asyncio.get_running_loop().call_later(
        0.05, lambda: asyncio.create_task(work(0.2), name="CommandTree-invoker")
    )
    await tasks_named(("CommandTree-invoker",))
    assert first.done()
    assert not [t for t in asyncio.all_tasks() if t.get_name() == "CommandTree-invoker"]


# ----- the scheduler --------------------------------------------------------------------


class SlowPass:
    """Just enough of a service for a Scheduler: one pass that takes ``seconds``."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.passes_done = 0
        self.started = asyncio.Event()

    @property
    def clock(self) -> Any:
        class Clock:
            def now(self) -> datetime:
                return datetime.now(UTC)

            async def sleep_until(self, when: datetime) -> None:
                await asyncio.sleep(max(0.0, (when - datetime.now(UTC)).total_seconds()))

        return Clock()

    async def run_due(self, *, now: datetime, render: bool) -> tuple[()]:
        self.started.set()
        await asyncio.sleep(self.seconds)
        self.passes_done += 1
        return ()

    async def next_due(self) -> datetime:
        return datetime.now(UTC) + timedelta(hours=1)

    def add_deadline_listener(self, listener: Any) -> None: ...

    def remove_deadline_listener(self, listener: Any) -> None: ...


@pytest.mark.parametrize(("grace", "finished"), [(2.0, True), (0.05, False)])
async def test_the_scheduler_lets_its_pass_finish_within_the_grace(
    grace: float, finished: bool
) -> None:
    service = SlowPass(0.3)
    scheduler = Scheduler(service)  # type: ignore[arg-type]
    scheduler.start()
    await service.started.wait()
    cut = await scheduler.stop(grace)
    assert (service.passes_done == 1) is finished and cut is not finished
    assert not scheduler.running


async def test_an_idle_scheduler_stops_at_once() -> None:
    service = SlowPass(0.0)
    scheduler = Scheduler(service)  # type: ignore[arg-type]
    scheduler.start()
    await service.started.wait()
    await asyncio.sleep(0.05)  # asleep until the next due item, an hour away
    loop = asyncio.get_running_loop()
    started = loop.time()
    assert await scheduler.stop(5.0) is False
    assert loop.time() - started < 0.5


# ----- the computer -----------------------------------------------------------------------


class Told:
    def __init__(self) -> None:
        self.moves: list[Outcome] = []

    async def computer_moved(self, outcome: Outcome) -> None:
        self.moves.append(outcome)


async def computer_to_move(
    tmp_path: Path, budget: float, level: int = 1
) -> tuple[GameService, int]:
    service = await GameService.open(
        str(tmp_path / "db.sqlite3"), renderer=None, rng=random.Random(1)
    )
    service.computer_budget_s = budget
    started = await service.play_computer(
        user_id=HUMAN, location_id=1, variant=variants.names()[0], level=level, colour="black"
    )
    return service, started.game.id


async def claimed(service: GameService, game_id: int) -> bool:
    row = await service.repo.get_game(game_id)
    return row is not None and row.thinking_until_ms is not None


async def test_the_computer_finishes_its_move_within_the_grace(tmp_path: Path) -> None:
    service, game_id = await computer_to_move(tmp_path, budget=0.3)
    told = Told()
    runner = ComputerRunner(service, told)
    try:
        await runner.start()
        while not await claimed(service, game_id):
            await asyncio.sleep(0.01)
        assert await runner.stop(grace=10.0) == 0
        assert len(told.moves) == 1 and (await service.view(game_id=game_id)).ply >= 1
    finally:
        await service.close()


async def test_a_move_cut_short_gives_its_turn_back(tmp_path: Path) -> None:
    service, game_id = await computer_to_move(tmp_path, budget=3.0, level=3)  # thinks 3 s
    told = Told()
    runner = ComputerRunner(service, told)
    try:
        await runner.start()
        while not await claimed(service, game_id):
            await asyncio.sleep(0.01)
        assert await runner.stop(grace=0.1) == 1
        assert told.moves == [] and (await service.view(game_id=game_id)).ply == 0
        assert not await claimed(service, game_id)  # a restart thinks about it at once
        assert await service.computer_turns() == (game_id,)
    finally:
        await service.close()
