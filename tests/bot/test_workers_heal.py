"""Worker processes that heal, and that never outlive their parent (issue 24, item 5).

Real processes throughout: workers are killed with SIGKILL while idle and while they
search, more often than the 3 deaths after which all work used to stay in this process;
each time the next search or verification runs in a new worker process (its pid is not
this process's) and ``Workers.restarts`` counts the new pool. A real parent process that
started a pool (idle, or busy searching) is killed with SIGKILL: within a few seconds none
of its descendants (the fork server, the workers, the resource tracker) remains."""

from __future__ import annotations

import asyncio
import os
import select
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from worker_probe import (
    command_lines_with,
    deaf_to_sigint,
    descendants,
    is_running,
    process_state,
    process_times,
    search_where,
)

import bot.service.verify as verify
import variants
from bot.service import GameService
from bot.service.workers import Workers

ROOT = Path(__file__).resolve().parents[2]
ALICE, BOB = 101, 202
ROUNDS = 5  # deaths in a row: more than the 3 after which work used to stay here
BUSY_ROUNDS = 4  # the same, each costing a search of 1 s


def _position(seed: int) -> tuple[str, list[str]]:
    """A game a few moves in: its record and its legal actions."""
    game = variants.new_game(variants.names()[0], seed=seed)
    for ply in range(4):
        game.play(sorted(game.legal_moves())[ply % 3])
    return game.record(), game.legal_moves()


async def _until(condition: Any, what: str, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting until {what}"
        await asyncio.sleep(0.02)


def _kill(pid: int) -> int:
    """SIGKILL ``pid``; its start time, to tell it from a later process with its pid."""
    state = process_state(pid)
    assert state is not None, f"process {pid} is not there to kill"
    os.kill(pid, signal.SIGKILL)
    return state[1]


async def _killed(pid: int) -> None:
    started = _kill(pid)
    await _until(lambda: not is_running(pid, started), f"worker {pid} died")


async def test_a_worker_killed_while_idle_is_replaced_every_time() -> None:
    record, legal = _position(1)
    workers = Workers(1)
    seen: set[int] = set()
    try:
        for round_ in range(ROUNDS + 1):
            pid, action = await workers.process(search_where, record, 1, 0.3, round_)
            assert pid != os.getpid(), "the search ran in this process"
            assert pid not in seen, "a killed worker served again"
            assert action in legal
            assert workers.restarts == round_
            assert workers.process_ids() == (pid,)
            seen.add(pid)
            if round_ < ROUNDS:
                await _killed(pid)
    finally:
        workers.close()


async def test_a_worker_killed_while_searching_is_replaced_and_the_search_done_again(
    tmp_path: Path,
) -> None:
    record, legal = _position(2)
    workers = Workers(1)
    long_while = tmp_path / "search-long"
    try:
        for round_ in range(1, BUSY_ROUNDS + 1):
            pid = await workers.process(os.getpid)
            assert pid != os.getpid()
            before = process_times(pid)
            long_while.touch()
            search = asyncio.ensure_future(
                workers.process(search_where, record, 3, 0.2, round_, str(long_while))
            )
            # Killed while it searches (it has used 100 ms of processor time since).
            await _until(lambda: process_times(pid) >= before + 10, "the worker searched")  # noqa: B023
            assert not search.done()
            long_while.unlink()
            await _killed(pid)
            where, action = await search  # done again, in a new worker
            assert where not in (pid, os.getpid())
            assert action in legal
            assert workers.restarts == round_
    finally:
        workers.close()


async def test_work_lost_with_a_pool_is_done_again_on_one_new_pool(tmp_path: Path) -> None:
    """Two searches in flight; one worker killed: the pool is lost with both pieces of
    work, and both are done again on a single new pool."""
    record, legal = _position(3)
    workers = Workers(2)
    expected = min(2, os.cpu_count() or 1)
    long_while = tmp_path / "search-long"
    long_while.touch()
    try:
        searches = [
            asyncio.ensure_future(workers.process(search_where, record, 3, 0.2, n, str(long_while)))
            for n in range(2)
        ]
        await _until(lambda: len(workers.process_ids()) == expected, "the workers started")
        old = workers.process_ids()
        before = {pid: process_times(pid) for pid in old}
        await _until(
            lambda: all(process_times(pid) >= before[pid] + 10 for pid in old),
            "the workers searched",
        )
        assert not any(search.done() for search in searches)
        long_while.unlink()
        await _killed(old[0])
        results = await asyncio.gather(*searches)
        for where, action in results:
            assert where not in old and where != os.getpid()
            assert action in legal
        assert workers.restarts == 1
    finally:
        workers.close()


async def test_while_processes_cannot_start_work_runs_here_until_they_can(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Pools that fail before finishing any work are started again at a capped backoff
    (0, then 1 s, then the 1.8 s cap); only meanwhile does the work run in a thread here,
    and the first pool that starts ends that."""
    record, legal = _position(4)
    workers = Workers(1, backoff_s=1.0, backoff_cap_s=1.8)
    real = workers.processes
    attempts: list[float] = []

    def cannot_start() -> Any:
        attempts.append(time.monotonic())
        raise OSError("no processes here")

    monkeypatch.setattr(workers, "processes", cannot_start)

    async def where() -> int:
        pid, action = await workers.process(search_where, record, 1, 0.1, 1)
        assert action in legal
        return pid

    try:
        assert await where() == os.getpid()  # tried twice (0 s apart), then a thread
        assert len(attempts) == 2
        assert await where() == os.getpid()  # within the 1 s: not tried
        assert len(attempts) == 2
        await asyncio.sleep(1.1)
        assert await where() == os.getpid()  # tried once more; next wait: 2 s, capped to 1.8
        assert await where() == os.getpid()
        assert len(attempts) == 3
        await asyncio.sleep(1.0)
        assert await where() == os.getpid()  # about 1.0 s < 1.8 s: not tried
        assert len(attempts) == 3
        monkeypatch.setattr(workers, "processes", real)  # processes can start again
        await asyncio.sleep(1.0)
        for _ in range(3):
            assert await where() != os.getpid()  # in a worker process again, for good
        assert workers.restarts == 0  # no pool had been started before this one
        await _killed(workers.process_ids()[0])
        assert await where() != os.getpid()
        assert workers.restarts == 1

        # That pool served, then died; its successors cannot start: the backoff starts
        # over from none.
        def only_the_dead_one() -> Any:
            attempts.append(time.monotonic())
            if workers._pool is not None:  # noqa: SLF001 - not yet found dead
                return real()
            raise OSError("no processes here")

        monkeypatch.setattr(workers, "processes", only_the_dead_one)
        await _killed(workers.process_ids()[0])
        del attempts[:]
        assert await where() == os.getpid()  # the dead pool, then one that cannot start
        assert len(attempts) == 2
        assert await where() == os.getpid()  # cannot start; the next wait is 1 s
        assert len(attempts) == 3
        assert await where() == os.getpid()
        assert len(attempts) == 3
        assert workers.restarts == 1
    finally:
        workers.close()


async def test_verification_after_a_worker_died_runs_in_a_new_worker(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    here: list[int] = []
    real_replay = verify._replay  # noqa: SLF001

    def replay_here(*args: Any) -> Any:  # a worker imports the real one
        here.append(threading.get_ident())
        return real_replay(*args)

    monkeypatch.setattr(verify, "_replay", replay_here)
    service = await GameService.open(str(tmp_path / "verify.sqlite3"), renderer=None)
    workers = service._workers  # noqa: SLF001
    try:
        await service.challenge(
            location_id=1, challenger_id=ALICE, opponent_id=BOB, variant=variants.names()[0]
        )
        await service.accept(location_id=1, user_id=BOB, render=False)
        await service.resign(location_id=1, user_id=ALICE)
        for round_ in range(ROUNDS + 1):
            service._verified.clear()  # noqa: SLF001 - verify afresh each time
            assert (await service.verify(location_id=1)).ok
            assert workers.restarts == round_
            pids = workers.process_ids()
            assert pids and os.getpid() not in pids
            if round_ < ROUNDS:
                await _killed(pids[0])
        assert not here, "a verification ran in this process"
    finally:
        await service.close()


PARENT = """
import asyncio, sys
import variants
from bot.service.computer import think
from bot.service.workers import Workers
from worker_probe import busy_where


async def main(mode: str) -> None:
    workers = Workers(2)
    game = variants.new_game(variants.names()[0], seed=5)
    record = game.record()
    await asyncio.gather(*(workers.process(think, record, 1, 0.2, n) for n in range(2)))
    if mode == "busy":  # a minute of work in each worker, killed with the parent
        busy = [asyncio.ensure_future(workers.process(busy_where, 60.0)) for _ in range(2)]
        await asyncio.sleep(0.3)
    print(*workers.process_ids(), flush=True)
    await asyncio.sleep(600)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
"""


def _read_line(process: subprocess.Popen[str], timeout: float) -> str:
    assert process.stdout is not None
    ready, _, _ = select.select([process.stdout], [], [], timeout)
    assert ready, "the parent process did not start its workers in time"
    return process.stdout.readline()


@pytest.mark.parametrize("mode", ["idle", "busy"])
def test_a_parent_killed_with_sigkill_leaves_no_process_behind(tmp_path: Path, mode: str) -> None:
    # The script's folder is on the workers' sys.path, which the fork server's command
    # line shows (and the workers', forked from it): a mark of this parent's processes.
    marker = str(tmp_path / "parent-dir")
    Path(marker).mkdir()
    script = Path(marker) / "parent.py"
    script.write_text(textwrap.dedent(PARENT))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "tests")])}
    parent = subprocess.Popen(
        [sys.executable, str(script), mode], stdout=subprocess.PIPE, text=True, env=env
    )
    family: dict[int, int] = {}
    try:
        workers = [int(pid) for pid in _read_line(parent, 60).split()]
        family = descendants(parent.pid)
        marked = set(command_lines_with(marker)) - {parent.pid}
        print(f"\n{mode}: parent {parent.pid}, its processes {sorted(family)}")
        assert len(workers) == min(2, os.cpu_count() or 1)
        assert set(workers) <= set(family) and set(workers) <= marked
        server = marked - set(workers)
        assert len(server) == 1 and server <= set(family), "no fork server seen"
        assert len(family) >= len(workers) + 1
        # A Ctrl-C at a console reaches the parent alone: every process it started
        # (fork server, workers, resource tracker) blocks or ignores SIGINT.
        assert {pid: deaf_to_sigint(pid) for pid in family} == dict.fromkeys(family, True)
        if mode == "busy":
            before = {pid: process_times(pid) for pid in workers}
            deadline = time.monotonic() + 20
            while any(process_times(pid) < before[pid] + 5 for pid in workers):
                assert time.monotonic() < deadline, "the workers did not search"
                time.sleep(0.02)
        parent.send_signal(signal.SIGKILL)
        parent.wait(10)
        killed = time.monotonic()
        while True:
            left = [pid for pid, started in family.items() if is_running(pid, started)]
            left += [pid for pid in command_lines_with(marker) if pid not in left]
            if not left or time.monotonic() - killed > 5:
                break
            time.sleep(0.02)
        print(f"{mode}: gone {time.monotonic() - killed:.2f} s after the SIGKILL; left {left}")
        assert not left, f"processes outlived their parent: {left}"
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait()
        for pid, started in family.items():  # clean up after a failure
            if is_running(pid, started):
                os.kill(pid, signal.SIGKILL)
        if parent.stdout is not None:
            parent.stdout.close()
