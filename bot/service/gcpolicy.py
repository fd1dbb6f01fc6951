"""Keeping the garbage collector's long pauses off the event loop (issue 12).

With thousands of live games in memory, a full (generation 2) collection walks every
engine object the cache holds: 114-283 ms during which the loop answers nobody. The
policy:

- from the start of the warm-up, ``hold``: automatic full collections off (the third
  threshold out of reach); young collections (generations 0 and 1) stay as they are:
  they walk only recent objects;
- after the warm-up, ``settle``: a young collection, then ``gc.freeze()``: the warm
  games move to the permanent generation, which no collection walks again. (Not a full
  collection: with the games loaded, that alone was a 290 ms pause of the loop.)
- every ``refreeze_every`` seconds, ``tick``: a young collection, then ``gc.freeze()``
  again, so the games and positions made since join the permanent generation before
  they can add up to a long walk.

What this gives up: a reference cycle that becomes garbage after it was frozen is not
collected (memory, not correctness). The engine's games and positions hold no cycles
and are freed by reference counting when the cache drops them, frozen or not.
Other code can make cycles (asyncio tasks and futures, exceptions with their
tracebacks), so ``full_collect`` (unfreeze, collect, freeze) runs every ``full_every``
seconds (6 hours) at a quiet moment: a tick at which nothing was written for
``quiet_for`` seconds (``note_activity``). If no quiet moment comes, it runs anyway
after twice that, so that a bot that is never idle does not grow for months.

``GcWatch`` records every collection's pause by generation (``gc.callbacks``): the
benchmark prints them, and the policy can be judged by them.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

log = logging.getLogger(__name__)

FULL_OFF = 1_000_000_000  # a third threshold that automatic collections never reach


@dataclass
class GcWatch:
    """Pauses of the collector, by generation: count, total and largest (seconds)."""

    counts: list[int] = field(default_factory=lambda: [0, 0, 0])
    total: list[float] = field(default_factory=lambda: [0.0, 0.0, 0.0])
    largest: list[float] = field(default_factory=lambda: [0.0, 0.0, 0.0])
    _started: float = 0.0
    _installed: bool = False

    def _callback(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._started = time.perf_counter()
            return
        generation = int(info.get("generation", 2))
        pause = time.perf_counter() - self._started
        self.counts[generation] += 1
        self.total[generation] += pause
        self.largest[generation] = max(self.largest[generation], pause)

    def install(self) -> GcWatch:
        if not self._installed:
            gc.callbacks.append(self._callback)
            self._installed = True
        return self

    def remove(self) -> None:
        if self._installed:
            gc.callbacks.remove(self._callback)
            self._installed = False

    def reset(self) -> None:
        self.counts = [0, 0, 0]
        self.total = [0.0, 0.0, 0.0]
        self.largest = [0.0, 0.0, 0.0]

    def summary(self) -> dict[str, Any]:
        return {
            "counts": list(self.counts),
            "total_ms": [round(t * 1000, 2) for t in self.total],
            "largest_ms": [round(t * 1000, 2) for t in self.largest],
        }


class GcPolicy:
    """Freeze after the warm-up; no automatic full collections; re-freeze now and then."""

    def __init__(
        self,
        *,
        refreeze_every: float = 10.0,
        full_every: float = 6 * 3600.0,
        quiet_for: float = 2.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.refreeze_every = refreeze_every
        self.full_every = full_every
        self.quiet_for = quiet_for
        self._clock = clock
        self._last_full = clock()
        self._last_activity = float("-inf")
        self.full_collections = 0
        self._saved: tuple[int, int, int] | None = None
        self._task: asyncio.Task[None] | None = None

    def hold(self) -> None:
        """No automatic full collections from now on (young ones go on)."""
        if self._saved is None:
            self._saved = gc.get_threshold()
            young, middle, _ = self._saved
            gc.set_threshold(young, middle, FULL_OFF)

    def settle(self) -> None:
        """After the warm-up: a young collection, then freeze the survivors; and no
        automatic full collections (``hold``)."""
        self.hold()
        gc.collect(1)
        gc.freeze()

    def tick(self) -> None:
        """A young collection, then the survivors join the permanent generation."""
        gc.collect(1)
        gc.freeze()

    def full_collect(self) -> None:
        """Everything, frozen or not (a long pause: for a quiet moment only)."""
        gc.unfreeze()
        gc.collect()
        gc.freeze()
        self._last_full = self._clock()
        self.full_collections += 1

    def note_activity(self) -> None:
        """A request was served now (the service calls this on every write)."""
        self._last_activity = self._clock()

    def full_due(self) -> bool:
        """Whether the periodic full collection should run now: it is due and the bot
        has been quiet, or it is long overdue."""
        now = self._clock()
        since = now - self._last_full
        if since >= 2 * self.full_every:
            return True
        return since >= self.full_every and now - self._last_activity >= self.quiet_for

    def step(self) -> None:
        """One periodic step: the full collection if due, else a young one and a freeze."""
        if self.full_due():
            self.full_collect()
        else:
            self.tick()

    def start(self) -> None:
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._run())

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.refreeze_every)
            self.step()

    async def stop(self) -> None:
        """Stop re-freezing and give the collector back its thresholds (the frozen
        objects stay frozen: ``gc.unfreeze()`` is the caller's choice)."""
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass
            self._task = None
        if self._saved is not None:
            gc.set_threshold(*self._saved)
            self._saved = None
