"""Work off the event loop, chosen by measurement (``benchmarks/loop_lag.py``).

- Verifying an ended game (a 600-ply replay takes 150-600 ms) and the computer's search
  run in a worker PROCESS (``Workers.process``): each is a pure function of small,
  picklable values with a small result. In threads, eight such replays at once held the
  interpreter lock against the loop: its largest block was 100-250 ms and they ran one at
  a time (7 s); in two processes it was 15-23 ms and they ran in parallel (3.3 s).
- Rebuilding a game from its log, the legal-move list and the images run in worker
  THREADS (``Workers.thread``): they hand back or read a whole engine game, which a
  process would have to pickle (a 600-ply game: 250-330 kB, 13-20 ms to unpickle, in C
  code that holds the interpreter lock all along: a worse block than the replay saved).

Players first (issue 26): the warm-up after a restart (its rebuilds, its snapshots, the
renderer's tiles and empty boards) runs on a thread of its own (``Workers.background``),
never on the threads that serve players. A player's request never queues behind
warm-up work: at most it shares the interpreter with one piece of it at a time (the
service starts each piece only when no player is being served, up to a short wait;
``bot.service.core``).

Worker processes heal (issue 24):

- A dead worker breaks its whole pool (``concurrent.futures`` stops the others). The
  next call, or the calls whose work was lost, start a new pool and run there: work lost
  with a worker is tried once more on the new pool. ``Workers.restarts`` counts the new
  pools, and each is logged. If pools keep dying before they finish any work, each new
  start waits longer (``RESTART_BACKOFF_S`` doubling up to ``RESTART_BACKOFF_CAP_S``).
- Work runs in a thread of this process only while such a wait lasts, or when its
  second try failed too; the next call tries worker processes again. Nothing stays in
  this process for good (until issue 24, three dead workers sent all work here until a
  restart).
- No worker outlives the process that started it. Each worker watches a pipe whose
  writing end only this process holds: at its end of file (this process is gone, even
  by SIGKILL) the worker exits at once. The fork server then exits by itself: the
  standard library ends it when this process and every worker it forked have closed
  its "alive" pipe, and the resource tracker likewise.

``show`` is what one move needs drawn and listed, done in one hop to a thread (C9). Once
the warm-up has started the painter process (``bot.service.painter``, issue 26), the
service's own renderers draw players' boards and dice there instead, and a thread draws
only what the painter could not.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from multiprocessing import resource_tracker
from multiprocessing.connection import Connection
from typing import Any, ParamSpec, TypeVar

import variants
from bot.i18n import DEFAULT, said
from bot.service.errors import RenderUnavailable, ServiceError
from bot.service.live import DiceRenderer, Renderer, legal_actions, render_board

log = logging.getLogger(__name__)

# The wait before starting a new pool after pools that died before finishing any work:
# none after the first such death, then this, doubling up to the cap.
RESTART_BACKOFF_S = 0.5
RESTART_BACKOFF_CAP_S = 30.0
ORPHAN_EXIT_CODE = 70  # a worker that found the process that started it gone

# Errors of a pool that cannot start, or that lost a worker.
_POOL_FAILURES = (BrokenProcessPool, OSError, NotImplementedError)

P = ParamSpec("P")
T = TypeVar("T")

# The names of the threads: those that serve players, and the warm-up's one.
PLAYER_THREADS = "chessgarden-cpu"
BACKGROUND_THREAD = "chessgarden-warm"


@dataclass(frozen=True)
class Shown:
    """What ``_present`` computed off the loop for an outcome."""

    legal: Sequence[str] = ()  # ``live.LegalActions``: each text written when read
    image: bytes | None = None
    dice_image: bytes | None = None
    failure: ServiceError | None = None  # why the board image is missing, if asked for
    status: variants.Status | None = None  # the position in words (C1)
    side: str | None = None  # the side at the bottom of ``image`` (None: no image)


class Workers:
    """The service's worker threads, and its worker processes (started on first use, and
    started again when one dies; see the module)."""

    def __init__(
        self,
        count: int,
        *,
        backoff_s: float = RESTART_BACKOFF_S,
        backoff_cap_s: float = RESTART_BACKOFF_CAP_S,
    ) -> None:
        self.count = max(1, count)
        self._threads = ThreadPoolExecutor(
            max_workers=self.count, thread_name_prefix=PLAYER_THREADS
        )
        # One thread, for work no player waits for (the warm-up): one piece at a time.
        self._background = ThreadPoolExecutor(max_workers=1, thread_name_prefix=BACKGROUND_THREAD)
        self.backoff_s = backoff_s
        self.backoff_cap_s = backoff_cap_s
        self.restarts = 0  # pools started in place of one that failed (read by /metrics)
        # The fields below change from worker threads and from the loop: under this
        # lock, held only for quick steps (the loop takes it too). A new pool is made
        # under ``_starting`` instead, one at a time, in worker threads only.
        self._lock = threading.Lock()
        self._starting = threading.Lock()
        self._pool: ProcessPoolExecutor | None = None
        self._pools_started = 0
        self._served = False  # the current pool has finished a piece of work
        self._early_failures = 0  # pools in a row that failed before finishing any work
        self._start_after = 0.0  # time.monotonic() before which no new pool is started
        self._closed = False

    async def thread(self, function: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """``function(*args, **kwargs)`` in a worker thread."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(
            self._threads, functools.partial(function, *args, **kwargs)
        )

    async def background(self, function: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """``function(*args, **kwargs)`` on the background thread: work no player waits
        for (the warm-up), never on the threads that serve players."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(
            self._background, functools.partial(function, *args, **kwargs)
        )

    async def process(self, function: Callable[..., T], *args: Any) -> T:
        """A pure, module-level ``function`` of picklable values in a worker process, where
        it does not share the interpreter lock with the event loop. If the pool fails (a
        worker died, or processes could not be started), a new pool is started and the
        work is tried once more there. Only if that fails too, or while new pools wait
        out a backoff (they kept failing before finishing any work), does this piece of
        work run in a thread instead."""
        loop = asyncio.get_running_loop()
        for _ in range(2):
            if self._is_backing_off():
                break
            try:
                # Starting a pool and submitting may start the fork server or a worker, a
                # blocking wait of up to half a second: done from a thread, never the loop.
                pool, future = await loop.run_in_executor(
                    self._threads, self._submit, function, args
                )
            except _POOL_FAILURES:
                continue  # noted by ``_submit``
            try:
                result = await asyncio.wrap_future(future)
            except BrokenProcessPool as error:  # the function's own errors pass through
                self._failed(pool, error)
                continue
            self._succeeded(pool)
            return result
        log.info("no worker processes for now (see above); this work runs in a thread")
        return await self.thread(function, *args)

    def processes(self) -> ProcessPoolExecutor:
        """The current pool, started if there is none. It can block (the first pool
        starts the resource tracker): call it from a thread."""
        with self._starting:
            with self._lock:
                if self._closed:
                    raise RuntimeError("the workers are closed")
                if self._pool is not None:
                    return self._pool
            pool = ProcessPoolExecutor(
                max_workers=min(self.count, os.cpu_count() or 1),
                mp_context=_process_context(),
                initializer=_start_worker,
                initargs=(_alive_reader(), variants.added()),
            )
            restarted = False
            with self._lock:
                closed = self._closed
                if not closed:
                    self._pool = pool
                    self._served = False
                    self._pools_started += 1
                    if self._pools_started > 1:  # in place of one that failed
                        self.restarts += 1
                        restarted = True
            if closed:
                pool.shutdown(wait=False)
                raise RuntimeError("the workers are closed")
            if restarted:
                log.warning("worker processes restarted (restart %d)", self.restarts)
            return pool

    def process_ids(self) -> tuple[int, ...]:
        """The pids of the current pool's worker processes (none before the first use),
        from the standard library's own table of them."""
        with self._lock:
            pool = self._pool
        table = getattr(pool, "_processes", None) or {}
        return tuple(table.copy())  # one step: the pool's thread may change it meanwhile

    def close(self) -> None:
        with self._lock:
            self._closed = True
            pool, self._pool = self._pool, None
        self._threads.shutdown(wait=False, cancel_futures=True)
        self._background.shutdown(wait=False, cancel_futures=True)
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)

    def _submit(
        self, function: Callable[..., T], args: tuple[Any, ...]
    ) -> tuple[ProcessPoolExecutor, Future[T]]:
        """In a worker thread: the current pool and the work's future on it. A failure
        of the pool is noted (``_failed``) and raised."""
        while True:
            pool: ProcessPoolExecutor | None = None
            try:
                _no_ctrl_c()
                pool = self.processes()
                return pool, pool.submit(function, *args)
            except _POOL_FAILURES as error:
                self._failed(pool, error)
                raise
            except RuntimeError:
                # Shut down since we took it, as another call found it broken: try the
                # next one. Anything else (closed, no thread to be had) is raised.
                with self._lock:
                    dropped = pool is not None and pool is not self._pool and not self._closed
                if not dropped:
                    raise

    def _is_backing_off(self) -> bool:
        with self._lock:
            return self._pool is None and time.monotonic() < self._start_after

    def _succeeded(self, pool: ProcessPoolExecutor) -> None:
        with self._lock:
            if pool is self._pool:
                self._served = True
                self._early_failures = 0

    def _failed(self, pool: ProcessPoolExecutor | None, error: BaseException) -> None:
        """``pool`` (``None``: one that could not be made) lost a worker or could not
        start one: drop it, and say when the next may start."""
        with self._lock:
            if pool is not self._pool or self._closed:
                return  # another call dealt with it already
            self._pool = None
            self._early_failures = 0 if self._served else self._early_failures + 1
            self._served = False  # of the next pool
            wait = self._backoff(self._early_failures)
            self._start_after = time.monotonic() + wait
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)
        log.warning(
            "worker processes failed (%s: %s); new ones start %s",
            type(error).__name__,
            error,
            f"in {wait:.1f} s, work runs in threads until then" if wait else "now",
        )

    def _backoff(self, early_failures: int) -> float:
        """None after one pool that failed before finishing any work (a worker killed
        during its first piece of work), then ``backoff_s``, doubling up to the cap."""
        if early_failures <= 1:
            return 0.0
        return min(self.backoff_cap_s, self.backoff_s * 2.0 ** (early_failures - 2))


def _no_ctrl_c() -> None:
    """Block SIGINT in this thread (a player thread, which starts the worker processes).
    The fork server and the workers it forks inherit the mask, across fork and exec, so
    a Ctrl-C at the console reaches this process alone (its main thread turns it into
    ``KeyboardInterrupt``), and the workers end with it anyway (``_exit_with_parent``).
    Without it, a Ctrl-C while a worker was still starting interrupted that interpreter's
    imports and printed a fatal error under the console's goodbye.

    The standard library's resource tracker, started with the first process, blocks
    SIGINT while it starts and then unblocks it in the starting thread (it ignores the
    signal itself): so it is started first, and the mask set again after it, each time
    (it is started anew if it died)."""
    if not hasattr(signal, "pthread_sigmask"):
        return
    resource_tracker.ensure_running()
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})


def _process_context() -> Any:
    """Worker processes forked from a small server that has already imported the
    verifier (fast to start, and no copy of the bot's threads); spawned where there is
    no fork server. Like every use of ``multiprocessing``, a program that uses the
    service must guard its main module with ``if __name__ == "__main__":`` (the
    ``chessgarden`` commands do); without the guard, worker processes fail to start and
    the work runs in threads, new processes being tried at the backoff's pace."""
    if "forkserver" in multiprocessing.get_all_start_methods():
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(
            ["bot.service.verify", "bot.service.painter", "renderers.board"]
        )
        return context
    return multiprocessing.get_context("spawn")


# ----- no worker outlives this process --------------------------------------------

_alive_lock = threading.Lock()
_alive: tuple[Connection, Connection] | None = None  # (reading end, writing end)


def _alive_reader() -> Connection:
    """The reading end of this process's "alive" pipe, handed to each worker. The writing
    end stays in this process and is never written to, so a worker reads end of file
    exactly when this process is gone."""
    global _alive
    with _alive_lock:
        if _alive is None:
            _alive = multiprocessing.Pipe(duplex=False)
        return _alive[0]


def _forget_alive_pipe() -> None:
    """In a child forked from this process (the workers come from the fork server, not
    from here): its copy of the writing end would keep the workers alive after this
    process died, so it closes it and makes its own pipe if it needs one."""
    global _alive, _alive_lock
    _alive_lock = threading.Lock()
    if _alive is not None:
        for end in _alive:
            end.close()
        _alive = None


os.register_at_fork(after_in_child=_forget_alive_pipe)


def _start_worker(alive: Connection, added: tuple[type[variants.Variant], ...]) -> None:
    """Each worker process's initializer: it ends with this process
    (``_exit_with_parent``), and knows the variants registered here at run time
    (``variants.register``; passed by reference, so their modules must be importable)."""
    _exit_with_parent(alive)
    variants.adopt(added)


def _exit_with_parent(alive: Connection) -> None:
    """Each worker process's initializer: a thread that ends the worker at once, whatever
    it is doing, when the process that started the pool is gone (even by SIGKILL)."""

    def watch() -> None:
        try:
            alive.recv_bytes()  # nothing is ever sent: this returns only at end of file
        except (EOFError, OSError):
            pass
        os._exit(ORPHAN_EXIT_CODE)

    threading.Thread(target=watch, name="chessgarden-parent-watch", daemon=True).start()


def show(
    game: Any,
    active: bool,
    variant: str,
    dice: tuple[int, ...] | None,
    side: str,
    renderer: Renderer | None,
    dice_renderer: DiceRenderer | None,
    render: bool,
    theme: str | None = None,
    locale: str | None = None,
) -> Shown:
    """Runs in a worker thread: the legal list (its texts written when read), the status
    in words, the board and the dice images. ``theme``: the board's, if not the classic
    one; ``locale``: the language of its words, if not English (issue 27)."""
    legal = legal_actions(game) if active else ()
    status = variants.describe(game)
    image = dice_image = None
    failure: ServiceError | None = None
    if render:
        if renderer is None:
            failure = RenderUnavailable(said("this service draws no images"))
        else:
            try:
                extra = {} if locale is None or locale == DEFAULT else {"locale": locale}
                if theme is None:
                    image = renderer(game, side, **extra)
                else:
                    image = renderer(game, side, theme, **extra)
            except Exception as error:
                failure = board_failure(error)
    if dice_renderer is not None and dice:
        dice_image = dice_or_none(dice_renderer, variant, dice)
    return Shown(legal, image, dice_image, failure, status, side if image is not None else None)


def board_failure(error: Exception) -> ServiceError:
    """What a player is told when their board could not be drawn."""
    if isinstance(error, ServiceError):
        return error
    return RenderUnavailable(said("the board could not be drawn: {error}", error=str(error)))


def paint_or_failure(paint: Callable[[Any], bytes], picture: Any) -> bytes | ServiceError:
    """In a worker thread: ``paint(picture)``, or why it could not be drawn."""
    try:
        return paint(picture)
    except Exception as error:
        return board_failure(error)


def dice_or_none(dice_renderer: DiceRenderer, variant: str, dice: tuple[int, ...]) -> bytes | None:
    """The dice's picture; None if it cannot be drawn (a missing dice picture never fails
    a move)."""
    try:
        return dice_renderer(variant, dice)
    except Exception as error:
        log.warning("cannot draw the dice %s for %s: %s", dice, variant, error)
        return None


def warm_drawings(renderer: Renderer | None, dice_renderer: DiceRenderer | None) -> None:
    """Every tile and empty board the service's own renderer can show
    (``renderers.board.warm``), and each variant's start position both ways up and its
    dice, with these renderers: what a bot draws before its first player (on the
    warm-up's thread, or in the painter process)."""
    warm_tiles: Callable[[str], object] | None = None
    if renderer is render_board:
        try:
            from renderers.board import warm as warm_tiles
        except ImportError:  # the first board will say what is wrong
            warm_tiles = None
    for key in variants.names():
        if warm_tiles is not None:
            warm_tiles(key)
        game = variants.new_game(key, seed=0)
        if renderer is not None:
            renderer(game, "white")
            renderer(game, "black")
        if dice_renderer is not None and game.dice:
            dice_renderer(key, tuple(game.dice))


def text_and_status(game: Any, orientation: str) -> tuple[str, variants.Status]:
    """Runs in a worker thread: the board as text and the status in words."""
    return variants.text_board(game, orientation=orientation), variants.describe(game)
