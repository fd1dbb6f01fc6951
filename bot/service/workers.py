"""Work off the event loop, chosen by measurement (``benchmarks/loop_lag.py``).

- Verifying an ended game (a 600-ply replay takes 150-600 ms) runs in a worker
  PROCESS (``Workers.process``): it is a pure function of small, picklable values with
  a small result. In threads, eight such replays at once held the interpreter lock
  against the loop: its largest block was 100-250 ms and they ran one at a time
  (7 s); in two processes it was 15-23 ms and they ran in parallel (3.3 s).
- Rebuilding a game from its log, the legal-move list and the images run in worker
  THREADS (``Workers.thread``): they hand back or read a whole engine game, which a
  process would have to pickle (a 600-ply game: 250-330 kB, 13-20 ms to unpickle, in C
  code that holds the interpreter lock all along: a worse block than the replay saved).

``show`` is what one move needs drawn and listed, done in one hop to a thread (C9).
"""

from __future__ import annotations

import asyncio
import functools
import logging
import multiprocessing
import os
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any, ParamSpec, TypeVar

import variants
from bot.service.errors import RenderUnavailable, ServiceError
from bot.service.live import DiceRenderer, Renderer

log = logging.getLogger(__name__)

MAX_PROCESS_FAILURES = 3  # worker processes that fail to start or die, before threads only

P = ParamSpec("P")
T = TypeVar("T")


@dataclass(frozen=True)
class Shown:
    """What ``_present`` computed off the loop for an outcome."""

    legal: tuple[str, ...] = ()
    image: bytes | None = None
    dice_image: bytes | None = None
    failure: ServiceError | None = None  # why the board image is missing, if asked for
    status: variants.Status | None = None  # the position in words (C1)


class Workers:
    """The service's worker threads, and its worker processes (made on first use)."""

    def __init__(self, count: int) -> None:
        self.count = max(1, count)
        self._threads = ThreadPoolExecutor(
            max_workers=self.count, thread_name_prefix="chessgarden-cpu"
        )
        self._pool: ProcessPoolExecutor | None = None
        self.process_failures = 0

    async def thread(self, function: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """``function(*args, **kwargs)`` in a worker thread."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(
            self._threads, functools.partial(function, *args, **kwargs)
        )

    async def process(self, function: Callable[..., T], *args: Any) -> T:
        """A pure, module-level ``function`` of picklable values in a worker process, where
        it does not share the interpreter lock with the event loop. If worker processes
        cannot be had (or one died), the work runs in a thread instead; after
        ``MAX_PROCESS_FAILURES`` failures, always in threads."""
        loop = asyncio.get_running_loop()
        if self.process_failures >= MAX_PROCESS_FAILURES:
            return await self.thread(function, *args)
        try:
            pool = self.processes()  # only the executor object; no process yet
            # Submitting may start the fork server or a worker, a blocking wait of up
            # to half a second: done from a thread, never from the loop.
            future = await loop.run_in_executor(self._threads, pool.submit, function, *args)
            return await asyncio.wrap_future(future)
        except (BrokenProcessPool, OSError, NotImplementedError) as error:
            self.process_failures += 1
            log.warning(
                "worker process failed (%s); working in a thread%s",
                error,
                " from now on" if self.process_failures >= MAX_PROCESS_FAILURES else "",
            )
            if self._pool is not None:
                self._pool.shutdown(wait=False, cancel_futures=True)
                self._pool = None
            return await self.thread(function, *args)

    def processes(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                max_workers=min(self.count, os.cpu_count() or 1), mp_context=_process_context()
            )
        return self._pool

    def close(self) -> None:
        self._threads.shutdown(wait=False, cancel_futures=True)
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None


def _process_context() -> Any:
    """Worker processes forked from a small server that has already imported the
    verifier (fast to start, and no copy of the bot's threads); spawned where there is
    no fork server. Like every use of ``multiprocessing``, a program that uses the
    service must guard its main module with ``if __name__ == "__main__":`` (the
    ``chessgarden`` commands do); without the guard, verification runs in threads."""
    if "forkserver" in multiprocessing.get_all_start_methods():
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(["bot.service.verify"])
        return context
    return multiprocessing.get_context("spawn")


def show(
    game: Any,
    active: bool,
    variant: str,
    dice: tuple[int, ...] | None,
    side: str,
    renderer: Renderer | None,
    dice_renderer: DiceRenderer | None,
    render: bool,
) -> Shown:
    """Runs in a worker thread: the legal list, the status in words, the board and the
    dice images."""
    legal = tuple(game.legal_moves()) if active else ()
    status = variants.describe(game)
    image = dice_image = None
    failure: ServiceError | None = None
    if render:
        if renderer is None:
            failure = RenderUnavailable("this service draws no images")
        else:
            try:
                image = renderer(game, side)
            except ServiceError as error:
                failure = error
            except Exception as error:
                failure = RenderUnavailable(f"the board could not be drawn: {error}")
    if dice_renderer is not None and dice:
        try:
            dice_image = dice_renderer(variant, dice)
        except Exception as error:  # a missing dice picture never fails a move
            log.warning("cannot draw the dice %s for %s: %s", dice, variant, error)
    return Shown(legal, image, dice_image, failure, status)


def text_and_status(game: Any, orientation: str) -> tuple[str, variants.Status]:
    """Runs in a worker thread: the board as text and the status in words."""
    return variants.text_board(game, orientation=orientation), variants.describe(game)
