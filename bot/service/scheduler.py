"""The deadline scheduler: one background task that ends games on time, reminds players
and expires challenges (issue 13). A service component: no discord import; whoever runs
it passes a ``Notifier`` that tells the players (the Discord bot posts in the game's
channel or thread; ``chessgarden sweep`` prints a line).

How it runs::

    scheduler = Scheduler(service, notifier)   # the service's clock unless told otherwise
    scheduler.start()                          # the background task
    ...
    await scheduler.stop()
    await scheduler.run_once(now=...)          # one pass, e.g. for `chessgarden sweep`

Each pass handles everything due by now (``GameService.run_due``: claimed in the
database, so each item is handled exactly once, by one process, however many run), then
asks the store when the next item is due (one indexed query, ``next_due``) and sleeps
until then. It never looks at games that have nothing due. A new deadline set by this
process wakes it early if it comes before the one it sleeps for (the service tells it:
``add_deadline_listener``). Deadlines set by another process sharing the store are seen
at the latest after ``max_sleep`` (5 minutes), the longest it ever sleeps: one indexed
query, not a scan.

After a restart the first pass catches up on everything that fell due while the bot was
down. A game whose deadline cannot be handled (its log does not replay) stays due; the
scheduler then waits ``retry_after`` before trying again instead of spinning.
"""

from __future__ import annotations

import asyncio
import logging
from contextlib import suppress
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Protocol

from bot.service.clock import Clock
from bot.service.results import DeadlineEvent

if TYPE_CHECKING:
    from bot.service.service import GameService

log = logging.getLogger(__name__)

MAX_SLEEP = timedelta(minutes=5)
RETRY_AFTER = timedelta(minutes=1)


class Notifier(Protocol):
    """Tells the players what the scheduler did (the Discord layer implements it)."""

    async def deadline_event(self, event: DeadlineEvent) -> None: ...


class Scheduler:
    """Finds the next due deadline, sleeps until then, handles it; see the module."""

    def __init__(
        self,
        service: GameService,
        notifier: Notifier | None = None,
        *,
        clock: Clock | None = None,
        render: bool = False,
        max_sleep: timedelta = MAX_SLEEP,
        retry_after: timedelta = RETRY_AFTER,
    ) -> None:
        self.service = service
        self.notifier = notifier
        self._clock = clock
        self.render = render
        self.max_sleep = max_sleep
        self.retry_after = retry_after
        self.passes = 0  # passes made (for tests and logs)
        self.sleeping_until: datetime | None = None
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._in_pass = False  # a pass is handling deadlines now
        self._stopping = False

    @property
    def clock(self) -> Clock:
        """The clock it sleeps on: the service's unless another was given."""
        return self._clock or self.service.clock

    async def run_once(self, now: datetime | None = None) -> tuple[DeadlineEvent, ...]:
        """One pass: handle everything due at ``now`` (default: the clock's now) and tell
        the notifier about each, in order. A notifier's failure is logged; the game has
        been handled all the same (a reminder is not sent twice)."""
        events = await self.service.run_due(now=now or self.clock.now(), render=self.render)
        self.passes += 1
        for event in events:
            log.info("deadline: %s", event.line)
            if self.notifier is None:
                continue
            try:
                await self.notifier.deadline_event(event)
            except Exception:  # one failed post must not stop the others
                log.exception(
                    "could not tell the players of game %s (%s)", event.game.id, event.kind
                )
        return events

    def wake(self, due: datetime) -> None:
        """Something is due at ``due``: wake up now if that is before the planned time."""
        target = self.sleeping_until
        if target is None or due < target:
            self._wake.set()

    async def run(self) -> None:
        """Forever: a pass, then sleep until the next due item (or a wake-up)."""
        self.service.add_deadline_listener(self.wake)
        try:
            while not self._stopping:
                self._wake.clear()  # before the pass: a deadline set during it wakes us
                started = self.clock.now()
                self._in_pass = True
                try:
                    await self.run_once(started)
                    upcoming = await self.service.next_due()
                except Exception:  # a busy store, a bug: log, wait, try again
                    log.exception("the deadline scheduler's pass failed; trying again later")
                    upcoming = started + self.retry_after
                finally:
                    self._in_pass = False
                if self._stopping:
                    return
                now = self.clock.now()
                target = now + self.max_sleep
                if upcoming is not None:
                    if upcoming <= started:  # still due after the pass: it could not be handled
                        upcoming = now + self.retry_after
                    target = min(target, upcoming)
                if target <= now or self._wake.is_set():
                    continue
                await self._sleep(target)
        finally:
            self.service.remove_deadline_listener(self.wake)

    async def _sleep(self, target: datetime) -> None:
        self.sleeping_until = target
        sleeper = asyncio.ensure_future(self.clock.sleep_until(target))
        waker = asyncio.ensure_future(self._wake.wait())
        try:
            await asyncio.wait({sleeper, waker}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            self.sleeping_until = None
            for task in (sleeper, waker):
                task.cancel()
            for task in (sleeper, waker):
                with suppress(asyncio.CancelledError):
                    await task

    def start(self) -> asyncio.Task[None]:
        """Start the background task (once)."""
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(
                self.run(), name="chessgarden-deadlines"
            )
        return self._task

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    async def stop(self, grace: float = 0.0) -> bool:
        """Stop the background task. Asleep, it stops at once; within a pass, the pass may
        finish for up to ``grace`` seconds (what it handled is committed and told), then
        it is cancelled: a deadline it had not yet claimed stays due, for the next start.
        True if a pass was cut short."""
        task, self._task = self._task, None
        if task is None:
            return False
        self._stopping = True
        try:
            if grace > 0 and self._in_pass and not task.done():
                await asyncio.wait({task}, timeout=grace)
            cut = self._in_pass and not task.done()
            task.cancel()
            with suppress(asyncio.CancelledError):
                await task
            return cut
        finally:
            self._stopping = False
