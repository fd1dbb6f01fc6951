"""A graceful stop, as an ordered list of steps (issue 24).

``chessgarden run`` stops on SIGTERM or SIGINT (``docker stop``, Ctrl-C, systemd) by
running the steps in order, each bounded in time, and logging one line for each:

    shutdown: SIGTERM received; stopping
    shutdown: the deadline scheduler stopped (0.00 s)
    shutdown: the computer's moves stopped (1.84 s)
    shutdown: interactions in flight finished (0.00 s)
    shutdown: the Discord connection closed (0.01 s)
    shutdown: the store closed (0.01 s)
    shutdown: done in 1.92 s

Work that producers started finishes first (a deadline pass, a move being thought
about); what cannot finish in its step's time is cancelled, and is redone after a
restart (a claim on the computer's turn is given back; a deadline not handled is still
due). The whole list has one budget (``SHUTDOWN_BUDGET_S``): a step never gets more than
what is left of it, but always ``MIN_STEP_S`` (closing the store must not be skipped
because an earlier step used everything).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass

log = logging.getLogger("bot.discord.shutdown")

SHUTDOWN_BUDGET_S = 9.0  # `docker stop` sends SIGKILL after 10 s
MIN_STEP_S = 0.5


@dataclass(frozen=True)
class Step:
    """One thing to stop: ``name`` for the log ("the deadline scheduler"), ``stop`` the
    coroutine function that stops it, ``timeout`` the most it may take."""

    name: str
    stop: Callable[[], Awaitable[str | None]]  # may return a note for the log line
    timeout: float = 3.0
    done: str = "stopped"  # the log's word once it has: "stopped", "closed", "finished"


class Deadline:
    """The time left of one shutdown's budget."""

    def __init__(self, budget: float = SHUTDOWN_BUDGET_S) -> None:
        self.started = time.monotonic()
        self.budget = budget

    def left(self) -> float:
        return self.budget - (time.monotonic() - self.started)

    def elapsed(self) -> float:
        return time.monotonic() - self.started


async def run_step(step: Step, deadline: Deadline | None = None) -> bool:
    """Run one step within its time; log one line. True if it stopped cleanly."""
    limit = step.timeout
    if deadline is not None:
        limit = min(limit, max(MIN_STEP_S, deadline.left()))
    started = time.monotonic()
    try:
        note = await asyncio.wait_for(step.stop(), limit)
    except TimeoutError:
        log.warning("shutdown: %s did not stop within %.1f s; cancelled", step.name, limit)
        return False
    except Exception:
        log.exception("shutdown: %s failed to stop", step.name)
        return False
    took = time.monotonic() - started
    log.info("shutdown: %s %s (%.2f s%s)", step.name, step.done, took, f"; {note}" if note else "")
    return True


async def run_steps(steps: Iterable[Step], deadline: Deadline | None = None) -> bool:
    """Every step, in order, even after one fails. True if all stopped cleanly."""
    deadline = deadline or Deadline()
    clean = True
    for step in steps:
        clean = await run_step(step, deadline) and clean
    return clean


async def tasks_named(prefixes: tuple[str, ...], *, poll: float = 0.05) -> str | None:
    """Wait until no task whose name starts with one of ``prefixes`` is running (new ones
    that start meanwhile too). Cancel the wait to give up."""
    me = asyncio.current_task()
    while True:
        running = [
            t
            for t in asyncio.all_tasks()
            if t is not me and not t.done() and t.get_name().startswith(prefixes)
        ]
        if not running:
            return None
        await asyncio.wait(running, timeout=poll)
