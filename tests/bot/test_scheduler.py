"""The deadline scheduler (issue 13): a real background task on a manual clock. It sleeps
until the next due item (one indexed query), wakes for a new earlier deadline, catches up
after a restart, never spins on a game it cannot handle, and handles each item exactly
once however many schedulers share the store: two in one process, and two processes."""

from __future__ import annotations

import asyncio
import itertools
import os
import random
import re
import subprocess
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

from stores import is_pg, raw

from bot.service import DeadlineEvent, GameService, ManualClock, Scheduler

START = datetime(2030, 1, 1, 12, 0, tzinfo=UTC)
W, B = 1, 2
LOCATIONS = itertools.count(5000)


class Recorder:
    """A notifier that keeps what it is told (and can fail on purpose)."""

    def __init__(self, fail_first: bool = False) -> None:
        self.events: list[DeadlineEvent] = []
        self.fail_first = fail_first

    async def deadline_event(self, event: DeadlineEvent) -> None:
        if self.fail_first:
            self.fail_first = False
            raise RuntimeError("Discord is down")
        self.events.append(event)


async def open_service(path: str, clock: ManualClock) -> GameService:
    seeds = itertools.count()
    name = Path(path).name if not is_pg(path) else path.rsplit("=", 1)[-1]
    return await GameService.open(
        path,
        clock=clock,
        renderer=None,
        dice_renderer=None,
        rng=random.Random(1),
        seed_factory=lambda: f"sched-{name}-{next(seeds)}",
    )


async def timed_game(svc: GameService, days: int = 1, moves: int = 1) -> int:
    made = await svc.challenge(
        location_id=next(LOCATIONS),
        challenger_id=W,
        opponent_id=B,
        colour="white",
        variant="kings_guard",
        days=days,
    )
    await svc.accept(game_id=made.game.id, user_id=B, render=False)
    for _ in range(moves):
        view = await svc.view(game_id=made.game.id)
        legal = await svc.legal_moves(game_id=made.game.id)
        await svc.act(game_id=view.id, user_id=view.to_move_id, text=legal[0], render=False)
    return made.game.id


async def until(condition: Callable[[], bool], what: str, seconds: float = 20.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.01)


async def test_it_sleeps_until_the_next_deadline_and_wakes_for_an_earlier_one(
    store_target: str,
) -> None:
    clock = ManualClock(START)
    svc = await open_service(store_target, clock)
    recorder = Recorder()
    scheduler = Scheduler(svc, recorder, max_sleep=timedelta(days=30))
    scheduler.start()
    try:
        await until(lambda: scheduler.sleeping_until is not None, "the first sleep")
        assert scheduler.sleeping_until == START + timedelta(days=30)  # nothing is due
        assert scheduler.passes == 1
        gid = await timed_game(svc, days=1, moves=0)  # a challenge, then White's turn
        reminder = START + timedelta(hours=18)
        await until(lambda: scheduler.sleeping_until == reminder, "a wake-up for the reminder")
        passes = scheduler.passes
        clock.set(reminder)  # a day goes by in one step: one pass, no polling
        await until(lambda: len(recorder.events) == 1, "the reminder")
        assert recorder.events[0].kind == "reminder" and recorder.events[0].game.id == gid
        await until(lambda: scheduler.sleeping_until == START + timedelta(days=1), "the deadline")
        clock.set(START + timedelta(days=1))
        await until(lambda: len(recorder.events) == 2, "the timeout")
        assert recorder.events[1].kind == "timeout"
        assert recorder.events[1].game.status == "aborted"  # nobody had moved
        assert scheduler.passes - passes <= 3  # one pass per due item, plus a wake-up or so
    finally:
        await scheduler.stop()
        await svc.close()
    assert not scheduler.running


async def test_after_a_restart_it_catches_up_on_everything_once(store_target: str) -> None:
    clock = ManualClock(START)
    path = store_target
    svc = await open_service(path, clock)
    white_to_lose = await timed_game(svc, days=1, moves=2)
    black_to_lose = await timed_game(svc, days=2, moves=1)
    nobody_moved = await timed_game(svc, days=1, moves=0)
    to_remind = await timed_game(svc, days=10, moves=1)
    untimed = (
        await svc.challenge(
            location_id=next(LOCATIONS), challenger_id=W, opponent_id=B, variant="guardener"
        )
    ).game.id
    await svc.accept(game_id=untimed, user_id=B)
    challenge = (
        await svc.challenge(location_id=next(LOCATIONS), challenger_id=B, variant="tquarchess")
    ).game.id
    await svc.close()  # the bot goes down for three days

    clock.advance(days=3)
    svc = await open_service(path, clock)
    recorder = Recorder()
    scheduler = Scheduler(svc, recorder)
    scheduler.start()
    try:
        await until(lambda: scheduler.sleeping_until is not None, "the catch-up pass")
        seen = {(e.game.id, e.kind, e.game.status, e.game.winner) for e in recorder.events}
        assert seen == {
            (white_to_lose, "timeout", "finished", "black"),
            (black_to_lose, "timeout", "finished", "white"),
            (nobody_moved, "timeout", "aborted", None),
            (challenge, "expired", "cancelled", None),
        }
        assert scheduler.passes == 1
        # the 10-day game is reminded with 24 hours left, 9 days after its turn began; till
        # then the scheduler looks again every max_sleep (a deadline set by another process)
        assert await svc.next_due() == START + timedelta(days=9)
        assert scheduler.sleeping_until == clock.now() + scheduler.max_sleep
        clock.set(START + timedelta(days=9))
        await until(lambda: len(recorder.events) == 5, "the reminder")
        assert (recorder.events[-1].game.id, recorder.events[-1].kind) == (to_remind, "reminder")
        assert (await svc.view(game_id=untimed)).status == "active"
        for gid in (white_to_lose, black_to_lose, nobody_moved):
            assert (await svc.verify(game_id=gid)).ok
    finally:
        await scheduler.stop()
        await svc.close()


async def test_a_failed_post_does_not_stop_the_rest_or_repeat_a_reminder(
    store_target: str,
) -> None:
    clock = ManualClock(START)
    svc = await open_service(store_target, clock)
    try:
        first = await timed_game(svc, days=1, moves=1)
        second = await timed_game(svc, days=1, moves=1)
        recorder = Recorder(fail_first=True)
        clock.advance(hours=20)
        events = await Scheduler(svc, recorder).run_once()
        assert [e.game.id for e in events] == [first, second]
        assert [e.game.id for e in recorder.events] == [second]  # the first post failed
        assert await Scheduler(svc, recorder).run_once() == ()  # and is not sent twice
    finally:
        await svc.close()


async def test_a_game_that_cannot_be_handled_does_not_make_it_spin(store_target: str) -> None:
    clock = ManualClock(START)
    path = store_target
    svc = await open_service(path, clock)
    broken = await timed_game(svc, days=1, moves=1)
    fine = await timed_game(svc, days=1, moves=1)
    await svc.close()
    # the stored game no longer replays
    raw(path, "UPDATE games SET options = '{\"bogus\": 1}' WHERE id = ?", (broken,))
    svc = await open_service(path, clock)
    clock.advance(days=2)
    recorder = Recorder()
    scheduler = Scheduler(svc, recorder)
    scheduler.start()
    try:
        await until(lambda: scheduler.sleeping_until is not None, "the first pass")
        assert [e.game.id for e in recorder.events] == [fine]
        assert scheduler.sleeping_until == clock.now() + scheduler.retry_after
        await asyncio.sleep(0.3)
        assert scheduler.passes == 1  # no busy loop on the broken game
        clock.advance(scheduler.retry_after)
        await until(lambda: scheduler.passes == 2, "the retry")
    finally:
        await scheduler.stop()
        await svc.close()


async def test_two_schedulers_on_one_store_handle_each_item_once(store_target: str) -> None:
    clock = ManualClock(START)
    path = store_target
    first = await open_service(path, clock)
    second = await open_service(path, clock)
    try:
        games = [await timed_game(first, days=1, moves=i % 3) for i in range(24)]
        clock.advance(days=2)
        one, two = Recorder(), Recorder()
        a, b = await asyncio.gather(
            Scheduler(first, one).run_once(), Scheduler(second, two).run_once()
        )
        handled = [e.game.id for e in a] + [e.game.id for e in b]
        assert sorted(handled) == sorted(games)  # each game once, by one of them
        assert await first.run_due() == () and await second.run_due() == ()
    finally:
        await first.close()
        await second.close()
    assert_one_timeout_each(path, games)


def assert_one_timeout_each(path: str, games: list[int]) -> None:
    counts = dict(
        raw(path, "SELECT game_id, count(*) FROM actions WHERE kind = 'timeout' GROUP BY game_id")
    )
    assert counts == dict.fromkeys(games, 1)


CHILD = r"""
import os, sys, time
from pathlib import Path
go = Path(sys.argv[1])
print("ready", flush=True)
while not go.exists():
    time.sleep(0.001)
from bot.cli import main
sys.exit(main(["sweep", "--db", sys.argv[2], "--now", sys.argv[3]]))
"""


async def test_two_processes_sweeping_one_store_handle_each_item_once(
    tmp_path: Path, store_target: str
) -> None:
    clock = ManualClock(START)
    path = store_target
    svc = await open_service(path, clock)
    games = [await timed_game(svc, days=1, moves=i % 3) for i in range(40)]
    reminded = [await timed_game(svc, days=4, moves=1) for _ in range(10)]
    expired = [
        (
            await svc.challenge(
                location_id=next(LOCATIONS), challenger_id=W + i, variant="guardener"
            )
        ).game.id
        for i in range(10)
    ]
    await svc.close()
    now = (START + timedelta(days=3, hours=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    go = tmp_path / "go"
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[2])}
    children = [
        subprocess.Popen(
            [sys.executable, str(script), str(go), str(path), now],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        for _ in range(2)
    ]
    for child in children:  # both have started Python before either begins
        assert child.stdout is not None and child.stdout.readline().strip() == "ready"
    go.touch()
    outputs = [child.communicate(timeout=120) for child in children]
    for child, (_, err) in zip(children, outputs, strict=True):
        assert child.returncode == 0, err
    ids = [[int(m[1]) for m in re.finditer(r"^game (\d+): ", out, re.M)] for out, _ in outputs]
    assert sorted(ids[0] + ids[1]) == sorted(games + reminded + expired)  # each once, in all
    assert set(ids[0]).isdisjoint(ids[1])
    assert_one_timeout_each(path, games)
    lines = "".join(out for out, _ in outputs)
    assert lines.count("ran out of time") == 40 and lines.count("reminded") == 10
    assert lines.count("challenge expired") == 10
