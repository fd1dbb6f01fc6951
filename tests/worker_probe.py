"""Work for the worker-process tests (``tests/bot/test_workers_heal.py``), at module level
so that a worker process can import it by name (``tests/`` is on ``sys.path``; see
``conftest.py``). Each function does the real work and says which process did it."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

from bot.service.computer import think

# Long enough that the engine, which stops when its next depth would not fit in the budget,
# never stops on its own before the test kills it, even when a loaded machine makes each
# depth take longer on the clock (the worker is killed within seconds).
LONG_BUDGET_S = 600.0


def search_where(
    record: str, level: int, budget_s: float, seed: int, long_while: str = ""
) -> tuple[int, str]:
    """The computer's real search; (the pid of the process it ran in, the action). While
    the file ``long_while`` exists, the search may take ``LONG_BUDGET_S`` (the engine
    stops sooner when the next depth would not fit): a test kills it meanwhile, removes
    the file, and the search done again is short."""
    if long_while and Path(long_while).exists():
        budget_s = LONG_BUDGET_S
    return os.getpid(), think(record, level, budget_s, seed).action


def busy_where(seconds: float) -> int:
    """Python code that holds the processor (and the interpreter lock) for ``seconds``;
    the pid of the process it ran in."""
    deadline = time.monotonic() + seconds
    count = 0
    while time.monotonic() < deadline:
        count += sum(range(1000))
    return os.getpid()


def process_times(pid: int) -> int:
    """CPU clock ticks process ``pid`` has used (user + system); -1 if it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return -1
    return int(fields[11]) + int(fields[12])


def process_state(pid: int) -> tuple[str, int] | None:
    """(state letter, start time in ticks) of process ``pid``; ``None`` if gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return fields[0], int(fields[19])


def is_running(pid: int, started: int) -> bool:
    """Process ``pid``, started at ``started``, still exists and is not a zombie (a dead
    process that nobody reaped yet: this machine's init does not reap)."""
    state = process_state(pid)
    return state is not None and state[1] == started and state[0] not in "ZX"


def deaf_to_sigint(pid: int) -> bool | None:
    """Whether process ``pid`` blocks or ignores SIGINT (its ``SigBlk`` and ``SigIgn``
    masks); ``None`` if it is gone."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    masks = [
        line.split()[1] for line in status.splitlines() if line.startswith(("SigBlk:", "SigIgn:"))
    ]
    return any(int(mask, 16) >> (signal.SIGINT - 1) & 1 for mask in masks)


def descendants(root: int) -> dict[int, int]:
    """Every living descendant of process ``root``: {pid: start time}."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[0] not in "ZX":
            parents[int(entry.name)] = int(fields[1])
    found: dict[int, int] = {}
    frontier = [root]
    while frontier:
        parent = frontier.pop()
        for pid, ppid in parents.items():
            if ppid == parent and pid not in found:
                state = process_state(pid)
                if state is not None:
                    found[pid] = state[1]
                    frontier.append(pid)
    return found


def command_lines_with(marker: str) -> list[int]:
    """Living processes whose command line contains ``marker``."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        state = process_state(int(entry.name))
        if marker in command and state is not None and state[0] not in "ZX":
            pids.append(int(entry.name))
    return pids
