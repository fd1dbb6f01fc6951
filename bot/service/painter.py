"""Boards and dice painted in a process of their own (issue 26).

Why a process: a move's board costs 1.2-2.3 ms of drawing and compressing (the dice, once
each roll is in their cache, almost nothing). In worker threads that work shares the interpreter lock with
the event loop, and it starves the loop: each time the loop lets the lock go (every SQLite
statement, every socket write) it waits up to the interpreter's switch interval to have it
back. At 250 actions a second a move then waited 200-800 ms, most of it with the loop
ready to run (``benchmarks/service.py --rate 250``, issue 26's closing note). Here only
the loop's thread runs this process's Python for a move: it makes the picture
(``bot.service.live.board_picture``: the engine game read where it is, about 0.1 ms), sends
it down a pipe (about 1 kB pickled) and reads the PNG back through the loop's own
transports. No thread of this process takes part.

The painter:

- is started by the service's warm-up (``ServiceCore.start_warm_up``: ``chessgarden run``),
  and draws every tile, empty board and start position before it says it is ready, so a
  player's first board after a restart draws nothing new. Until it is ready, and in a
  service that never warms up (the console, the tests), boards are drawn in worker threads
  as before.
- paints one job at a time, in the order sent: one process keeps one set of caches, and a
  game's next board reuses the bands of its last one.
- is replaced when it dies (the jobs it had are drawn in a thread, so no board is lost),
  at once after a death that follows some painting, else after a backoff
  (``RESTART_BACKOFF_S`` doubling up to ``RESTART_BACKOFF_CAP_S``), drawing in threads
  meanwhile. A job that takes more than ``JOB_TIMEOUT_S`` kills it (a hung painter) and is
  drawn in a thread. A job the painter could not do (an error, a variant registered after it
  started) is drawn in a thread too, where any error is the one the player is told.
- ends with this process: it watches this process's "alive" pipe (``workers``), and the
  end of its job pipe.

The wire: frames of ``FRAME`` (job number, kind, body length) and a body. This process sends
``BOARD`` (a pickled ``renderers.board.Picture``) and ``DICE`` (the pickled variant key and
dice); the painter answers ``DONE`` with the PNG, or ``FAILED`` with the error in words, and
says ``READY`` (job 0) once warm.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import os
import pickle
import signal
import struct
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any

import variants
from bot.service.live import board_picture, paint_board, render_board, render_dice
from bot.service.workers import (
    _alive_reader,
    _no_ctrl_c,
    _process_context,
    _start_worker,
    warm_drawings,
)

log = logging.getLogger(__name__)

FRAME = struct.Struct("!IBI")  # job number, kind, body length
BOARD, DICE, DONE, FAILED, READY = 1, 2, 3, 4, 5
LOST = 6  # not on the wire: the painter ended before it answered
JOB_TIMEOUT_S = 10.0  # a job not done by then: the painter is taken to hang
RESTART_BACKOFF_S = 0.5
RESTART_BACKOFF_CAP_S = 30.0
START_TIMEOUT_S = 120.0  # a painter not ready by then (its warm-up included) is replaced
PROCESS_NAME = "chessgarden-painter"


@dataclass(eq=False)
class _Run:
    """One painter process, and the jobs it has not answered."""

    process: Any  # multiprocessing.Process
    jobs: asyncio.WriteTransport | None = None
    pictures: asyncio.ReadTransport | None = None
    pending: dict[int, asyncio.Future[tuple[int, bytes]]] = field(default_factory=dict)
    ready: asyncio.Future[None] | None = None  # done when it says READY
    ended: asyncio.Future[str] | None = None  # done (with why) when it ended
    painted: int = 0  # jobs answered

    def end(self, why: str) -> None:
        """Stop it (if it still runs) and fail what it had."""
        if self.ended is not None and not self.ended.done():
            self.ended.set_result(why)
        for future in self.pending.values():
            if not future.done():
                future.set_result((LOST, why.encode()))
        self.pending.clear()
        for transport in (self.jobs, self.pictures):
            if transport is not None:
                transport.close()
        if self.process.is_alive():
            self.process.kill()


@dataclass(frozen=True, eq=False)
class _Ticket:
    """A job sent to a painter, awaited with ``Painter.receive``."""

    run: _Run
    number: int
    kind: int
    future: asyncio.Future[tuple[int, bytes]]
    timer: asyncio.TimerHandle


class _Answers(asyncio.Protocol):
    """The painter's end of the pipe, as the loop reads it."""

    def __init__(self, run: _Run, on_frame: Callable[[_Run, int, int, bytes], None]) -> None:
        self.run = run
        self.on_frame = on_frame
        self.buffer = bytearray()

    def data_received(self, data: bytes) -> None:
        buffer = self.buffer
        buffer += data
        while len(buffer) >= FRAME.size:
            job, kind, length = FRAME.unpack_from(buffer)
            end = FRAME.size + length
            if len(buffer) < end:
                return
            body = bytes(buffer[FRAME.size : end])
            del buffer[:end]
            self.on_frame(self.run, job, kind, body)

    def connection_lost(self, exc: Exception | None) -> None:
        self.run.end("the painter process ended")


class _Jobs(asyncio.BaseProtocol):
    """This process's end of the job pipe: a painter gone shows here first when the loop
    writes to it."""

    def __init__(self, run: _Run) -> None:
        self.run = run

    def connection_lost(self, exc: Exception | None) -> None:
        self.run.end("the painter's job pipe closed")


class Painter:
    """The service's painter process (see the module): ``start`` it; ``send_board`` and
    ``send_dice`` send a job, and ``receive`` gives its PNG, or ``None`` when the painter
    cannot (not ready, gone, hung, failed): the caller then draws in a thread."""

    def __init__(
        self,
        *,
        job_timeout_s: float = JOB_TIMEOUT_S,
        backoff_s: float = RESTART_BACKOFF_S,
        backoff_cap_s: float = RESTART_BACKOFF_CAP_S,
        warm: bool = True,
    ) -> None:
        self.job_timeout_s = job_timeout_s
        self.backoff_s = backoff_s
        self.backoff_cap_s = backoff_cap_s
        self.warm = warm
        self.restarts = 0  # painters started in place of one that ended (read by /metrics)
        self.boards = 0  # boards painters drew (the others were drawn in threads)
        self._run: _Run | None = None  # the painter taking jobs (ready)
        self._numbers = itertools.count(1)
        self._supervisor: asyncio.Task[None] | None = None
        self._first_ready: asyncio.Event | None = None
        self._closed = False

    # ----- life -------------------------------------------------------------------------

    def start(self) -> None:
        """Start the painter, and keep one running until ``close``."""
        if self._supervisor is None and not self._closed:
            self._first_ready = asyncio.Event()
            self._supervisor = asyncio.create_task(self._supervise(), name=PROCESS_NAME)

    @property
    def started(self) -> bool:
        return self._supervisor is not None

    @property
    def ready(self) -> bool:
        return self._run is not None

    async def wait_ready(self) -> bool:
        """Wait until the first painter is ready (its warm-up done) or could not be
        started; whether it is ready."""
        if self._first_ready is None:
            return False
        await self._first_ready.wait()
        return self.ready

    def pid(self) -> int | None:
        run = self._run
        return None if run is None else run.process.pid

    async def close(self) -> None:
        self._closed = True
        supervisor, self._supervisor = self._supervisor, None
        if supervisor is not None:
            supervisor.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await supervisor

    async def _supervise(self) -> None:
        early = 0  # painters in a row that ended before painting anything
        assert self._first_ready is not None
        try:
            while not self._closed:
                run: _Run | None = None
                try:
                    run = await self._launch()
                    assert run.ready is not None and run.ended is not None
                    await asyncio.wait(
                        (run.ready, run.ended),
                        timeout=START_TIMEOUT_S,
                        return_when=asyncio.FIRST_COMPLETED,
                    )
                    if run.ready.done() and not run.ended.done():
                        self._run = run
                        self._first_ready.set()
                        await asyncio.wait((run.ended,))
                    why = run.ended.result() if run.ended.done() else "it did not start in time"
                except Exception as error:  # it could not start, or died starting
                    why = f"{type(error).__name__}: {error}"
                finally:
                    self._run = None
                    if run is not None:
                        run.end("the painter was stopped")
                        await _reap(run.process)
                if self._closed:
                    return
                early = 0 if run is not None and run.painted else early + 1
                wait = self._backoff(early)
                self.restarts += 1
                self._first_ready.set()  # the bot goes on without it (threads draw)
                log.warning(
                    "the painter process stopped (%s); a new one starts %s",
                    why,
                    f"in {wait:.1f} s, boards are drawn in threads until then" if wait else "now",
                )
                await asyncio.sleep(wait)
        finally:
            self._first_ready.set()

    def _backoff(self, early: int) -> float:
        if early <= 1:
            return 0.0
        return min(self.backoff_cap_s, self.backoff_s * 2.0 ** (early - 2))

    async def _launch(self) -> _Run:
        """A new painter process, its pipes joined to the loop."""
        loop = asyncio.get_running_loop()
        process, jobs_fd, pictures_fd = await loop.run_in_executor(None, _spawn, self.warm)
        run = _Run(process, ready=loop.create_future(), ended=loop.create_future())
        jobs, pictures = open(jobs_fd, "wb", buffering=0), open(pictures_fd, "rb", buffering=0)
        try:
            run.jobs, _ = await loop.connect_write_pipe(lambda: _Jobs(run), jobs)
            run.pictures, _ = await loop.connect_read_pipe(
                lambda: _Answers(run, self._on_frame), pictures
            )
        except BaseException:
            run.end("its pipes could not be joined")
            for end in (jobs, pictures):
                end.close()
            raise
        return run

    def _on_frame(self, run: _Run, job: int, kind: int, body: bytes) -> None:
        if kind == READY:
            if run.ready is not None and not run.ready.done():
                run.ready.set_result(None)
            return
        future = run.pending.pop(job, None)
        run.painted += 1
        if future is not None and not future.done():
            future.set_result((kind, body))

    # ----- work -------------------------------------------------------------------------

    def send_board(self, picture: Any) -> _Ticket | None:
        """Send a ``board_picture`` to be painted; None if no painter takes jobs now
        (draw it in a thread)."""
        return self._send(BOARD, picture)

    def send_dice(self, variant: str, dice: tuple[int, ...]) -> _Ticket | None:
        """Send ``render_dice(variant, dice)`` to be painted; None as for ``send_board``."""
        return self._send(DICE, (variant, dice))

    async def receive(self, ticket: _Ticket) -> bytes | None:
        """The PNG a sent job made, or None if the painter failed it, ended or hung
        (draw it in a thread)."""
        try:
            answer, data = await ticket.future
        finally:
            ticket.timer.cancel()
            ticket.run.pending.pop(ticket.number, None)
        if answer == LOST:  # said once, by the supervisor
            return None
        if answer != DONE:
            log.warning("the painter could not draw this (%s); drawing it here", data.decode())
            return None
        self.boards += ticket.kind == BOARD
        return data

    def _send(self, kind: int, value: Any) -> _Ticket | None:
        run = self._run
        if run is None or run.jobs is None or run.jobs.is_closing():
            return None
        loop = asyncio.get_running_loop()
        number = next(self._numbers) & 0xFFFFFFFF or 1
        body = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
        future: asyncio.Future[tuple[int, bytes]] = loop.create_future()
        run.pending[number] = future
        run.jobs.write(FRAME.pack(number, kind, len(body)) + body)
        timer = loop.call_later(self.job_timeout_s, self._hung, run, future)
        return _Ticket(run, number, kind, future, timer)

    def _hung(self, run: _Run, future: asyncio.Future[tuple[int, bytes]]) -> None:
        if not future.done():
            log.warning(
                "a painter job took over %.0f s: the painter is replaced", self.job_timeout_s
            )
            run.end("a job took too long")


async def _reap(process: Any) -> None:
    """Wait (in a thread, briefly) for an ended painter, so that it leaves no zombie."""
    with contextlib.suppress(Exception):
        await asyncio.get_running_loop().run_in_executor(None, process.join, 5.0)


# ----- the painter process --------------------------------------------------------------


def _spawn(warm: bool) -> tuple[Any, int, int]:
    """In a thread: start a painter process; its process object, and this process's ends
    of its job and picture pipes (file descriptors)."""
    _no_ctrl_c()
    context = _process_context()
    jobs_r, jobs_w = context.Pipe(duplex=False)
    pictures_r, pictures_w = context.Pipe(duplex=False)
    process = context.Process(
        target=_main,
        args=(jobs_r, pictures_w, _alive_reader(), variants.added(), warm),
        name=PROCESS_NAME,
        daemon=True,
    )
    try:
        process.start()
        return process, _own_fd(jobs_w), _own_fd(pictures_r)
    finally:
        for end in (jobs_r, pictures_w, jobs_w, pictures_r):
            end.close()


def _own_fd(end: Connection) -> int:
    """A descriptor of its own for a pipe end (the ``Connection`` closes its own)."""
    fd = os.dup(end.fileno())
    os.set_inheritable(fd, False)
    return fd


def _main(
    jobs: Connection,
    pictures: Connection,
    alive: Connection,
    added: tuple[type[variants.Variant], ...],
    warm: bool,
) -> None:
    """The painter process: warm up, say so, then answer jobs until the job pipe ends."""
    _start_worker(alive, added)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the bot's own Ctrl-C ends it (the pipe)
    with contextlib.suppress(BrokenPipeError):  # the service is gone, or gave up on it
        _serve(jobs.fileno(), pictures.fileno(), warm)


def _serve(read_fd: int, write_fd: int, warm: bool) -> None:
    if warm:
        started = time.perf_counter()
        try:
            warm_drawings(render_board, render_dice)
        except Exception as error:  # its first jobs will say what is wrong
            log.warning("the painter could not warm up: %s", error)
        log.info("the painter is warm after %.1f s", time.perf_counter() - started)
    _write_frame(write_fd, 0, READY, b"")
    while True:
        head = _read_exactly(read_fd, FRAME.size)
        if head is None:
            return
        number, kind, length = FRAME.unpack(head)
        body = _read_exactly(read_fd, length) if length else b""
        if body is None:
            return
        try:
            value = pickle.loads(body)
            if kind == BOARD:
                png = paint_board(value)
            elif kind == DICE:
                png = render_dice(*value)
            else:
                raise ValueError(f"no such job kind {kind}")
        except Exception as error:  # said to the service, which draws it itself
            _write_frame(write_fd, number, FAILED, f"{type(error).__name__}: {error}".encode())
        else:
            _write_frame(write_fd, number, DONE, png)


def warm_pictures() -> None:
    """In the service's process, before its first player: the picture of every variant's
    start position, both ways up (``board_picture``: its modules imported, its layouts
    made), so that no player's first picture waits for an import on the loop."""
    for key in variants.names():
        game = variants.new_game(key, seed=0)
        for side in ("white", "black"):
            board_picture(game, side)


def _read_exactly(fd: int, n: int) -> bytes | None:
    parts = bytearray()
    while len(parts) < n:
        chunk = os.read(fd, n - len(parts))
        if not chunk:
            return None
        parts += chunk
    return bytes(parts)


def _write_frame(fd: int, number: int, kind: int, body: bytes) -> None:
    data = memoryview(FRAME.pack(number, kind, len(body)) + body)
    while data:
        data = data[os.write(fd, data) :]
