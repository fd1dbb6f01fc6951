"""The live pages' relay: another process writes the events to the open pages (issue 28).

A thousand open pages of one game cost the bot's event loop a thousand socket writes per
move (about 12 us each, most of it the kernel's send), on the same interpreter lock as
the players' moves. The relay takes that off the bot's process: once a live page's
response has started (its headers and the ``retry`` line are sent, through aiohttp),
``Relay.watch`` hands the page's connection (a duplicate of its socket, passed with
``SCM_RIGHTS``) to a child process, and from then on the bot sends each game's event to
the child once, whatever the number of pages; the child frames it and writes it to every
page, keeps the slow ones on their newest event, writes the keep-alives, and ends a page's
stream after the game's last event.

The bot keeps the page's request open (its handler waits, its transport no longer
reads), so the per-game, per-address and total bounds are counted where they were. The
child tells the bot when a page is gone (the browser closed it, it broke, or its stream
ended); the handler then returns. If the child dies, the bot shuts the relayed
connections: each browser reconnects after the ``retry`` delay, to a new child.

Only a plain HTTP/1.1 chunked response over a TCP socket with nothing left unsent is
relayed; any other page (TLS, compression, HTTP/1.0, no relay) is written by the bot
itself (``bot.web.live``). The child is started on the first relayed page, with the
interpreter running the bot, and it imports only the standard library.

The messages between them are ``SOCK_SEQPACKET`` records: a header (``HEADER``: kind,
page, game, two lengths) and the payload in records of at most ``PART`` bytes after it.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import os
import select
import signal
import socket
import struct
import subprocess
import sys
import time
from collections import deque
from typing import Any

log = logging.getLogger(__name__)

HEADER = struct.Struct("!cIQII")  # kind, page id, game id, first length, second length
PART = 32 * 1024  # payload bytes per record
BUFFER = 1 << 20  # the control socket's buffers (the kernel may give less)
# kinds, bot -> relay
PUBLISH = b"P"  # a game's newest event: the whole state, then only the new steps
WATCH = b"W"  # a page (its socket in the record's ancillary data) of a game
FORGET = b"F"  # no page of the game is relayed any more: drop its event
# relay -> bot
LEFT = b"L"  # a page is gone (closed, broken, or its stream ended)

# The live events' framing, shared with the pages the bot writes itself (``bot.web.live``).
KEEP_ALIVE = b": still here\n\n"
OVER = b"event: over"  # a game's last event starts so: the page's stream ends after it
END = b"0\r\n\r\n"  # the chunked body's end
RESTART_S = 5.0  # the least time between two starts of the child
# A page's events: it closed, or sent something; and while bytes wait, room for them
# (``getattr``: this module imports where there is no epoll too, and is not used there).
READABLE = getattr(select, "EPOLLIN", 0) | getattr(select, "EPOLLRDHUP", 0)
WRITABLE = READABLE | getattr(select, "EPOLLOUT", 0)
# The child's scheduling priority below the bot's (``os.nice``): on a busy machine the
# players' moves get the CPU first, and the pages a moment later.
NICE = 10


def chunk(data: bytes) -> bytes:
    """``data`` as one chunk of a chunked HTTP/1.1 body, as aiohttp's writer frames it."""
    return b"%x\r\n%b\r\n" % (len(data), data)


def shut(transport: Any) -> None:
    """End a page's connection in every process that holds it (its browser sees the
    stream end and reconnects), whatever that process does with its own copy."""
    with contextlib.suppress(OSError):
        raw = transport.get_extra_info("socket")
        if raw is not None:
            raw.shutdown(socket.SHUT_RDWR)


def records(
    kind: bytes, page: int, game: int, first: bytes = b"", second: bytes = b""
) -> list[bytes]:
    """One message as its records: the header, then the payload in parts."""
    body = first + second
    out = [HEADER.pack(kind, page, game, len(first), len(second))]
    out.extend(body[i : i + PART] for i in range(0, len(body), PART))
    return out


class Reader:
    """Puts a message together from its records (the header first, then the parts)."""

    def __init__(self) -> None:
        self.head: tuple[bytes, int, int, int, int] | None = None
        self.body = bytearray()
        self.fds: list[int] = []

    def feed(
        self, record: bytes, fds: list[int]
    ) -> tuple[bytes, int, int, bytes, bytes, list[int]] | None:
        self.fds.extend(fds)
        if self.head is None:
            self.head = HEADER.unpack(record)
        else:
            self.body += record
        kind, page, game, first, second = self.head
        if len(self.body) < first + second:
            return None
        body = bytes(self.body)
        message = (kind, page, game, body[:first], body[first:], self.fds)
        self.head, self.body, self.fds = None, bytearray(), []
        return message


# ----- the child process -----------------------------------------------------------


class _Page:
    __slots__ = ("sock", "page", "game", "seen", "pending", "over")

    def __init__(self, sock: socket.socket, page: int, game: int) -> None:
        self.sock = sock
        self.page = page
        self.game = game
        self.seen = 0  # the game's version this page has
        self.pending = b""  # written in part: the rest goes out when the socket can take it
        self.over = False  # the game's last event is (being) written: end after it


class _Game:
    __slots__ = ("version", "full", "delta", "last", "pages")

    def __init__(self) -> None:
        self.version = 0
        self.full = b""  # framed chunks
        self.delta = b""
        self.last = False  # the newest event is the game's last
        self.pages: dict[int, _Page] = {}  # by socket fd


class Child:
    """The relay's loop: one epoll over the control socket and the pages' sockets."""

    def __init__(self, control: socket.socket, keep_alive_s: float) -> None:
        self.control = control
        self.keep_alive_s = keep_alive_s
        self.poll = select.epoll()
        self.pages: dict[int, _Page] = {}
        self.games: dict[int, _Game] = {}
        self.reader = Reader()
        self.outbox: deque[bytes] = deque()  # LEFT records the control socket could not take
        control.setblocking(False)
        self.poll.register(control.fileno(), select.EPOLLIN)

    def run(self) -> None:
        next_ping = time.monotonic() + self.keep_alive_s
        while True:
            timeout = max(0.0, next_ping - time.monotonic())
            for fd, events in self.poll.poll(timeout):
                if fd == self.control.fileno():
                    if events & select.EPOLLOUT:
                        self._flush_outbox()
                    if events & (select.EPOLLIN | select.EPOLLHUP | select.EPOLLERR):
                        if not self._read_control():
                            return
                    continue
                page = self.pages.get(fd)
                if page is None:
                    continue
                if events & (
                    select.EPOLLIN | select.EPOLLRDHUP | select.EPOLLHUP | select.EPOLLERR
                ):
                    if self._hung_up(page):
                        continue
                if events & select.EPOLLOUT:
                    self._flush(page)
            if time.monotonic() >= next_ping:
                next_ping = time.monotonic() + self.keep_alive_s
                for page in list(self.pages.values()):
                    if not page.pending and not page.over:
                        self._send(page, chunk(KEEP_ALIVE))

    # the bot's messages

    def _read_control(self) -> bool:
        """Read every record waiting; ``False`` once the bot is gone."""
        while True:
            try:
                record, fds, _flags, _addr = socket.recv_fds(self.control, PART + HEADER.size, 4)
            except BlockingIOError:
                return True
            except OSError:
                return False
            if not record and not fds:
                return False
            message = self.reader.feed(record, fds)
            if message is not None:
                self._take(*message)

    def _take(
        self, kind: bytes, page: int, game: int, first: bytes, second: bytes, fds: list[int]
    ) -> None:
        if kind == PUBLISH:
            state = self.games.setdefault(game, _Game())
            state.version += 1
            state.full, state.delta = chunk(first), chunk(second)
            state.last = first.startswith(OVER)
            for each in list(state.pages.values()):
                self._deliver(each, state)
        elif kind == WATCH:
            for fd in fds[1:]:
                os.close(fd)
            if not fds:
                self._left(page)
                return
            sock = socket.socket(fileno=fds[0])
            sock.setblocking(False)
            each = _Page(sock, page, game)
            state = self.games.setdefault(game, _Game())
            self.pages[sock.fileno()] = state.pages[sock.fileno()] = each
            self.poll.register(sock.fileno(), READABLE)
            if state.version:
                self._deliver(each, state)
        elif kind == FORGET:
            gone = self.games.pop(game, None)
            for each in list(gone.pages.values()) if gone is not None else ():
                self._drop(each)

    # the pages

    def _deliver(self, page: _Page, game: _Game) -> None:
        """Write what ``page`` lacks of ``game``'s newest event (unless it is still writing
        an older one: it catches up when that is out)."""
        if page.pending or page.over or page.seen == game.version:
            return
        payload = game.delta if page.seen and page.seen == game.version - 1 else game.full
        page.seen = game.version
        if game.last:
            page.over = True
            payload += END
        self._send(page, payload)

    def _send(self, page: _Page, data: bytes) -> bool:
        """Write ``data`` to the page; what its socket does not take now waits in
        ``pending`` for the socket to be writable. ``True`` when all of it went out and
        the page goes on (a page whose stream is over is dropped then)."""
        try:
            sent = page.sock.send(data)
        except BlockingIOError:
            sent = 0
        except OSError:
            self._drop(page)
            return False
        if sent < len(data):
            page.pending = data[sent:]
            self.poll.modify(page.sock.fileno(), WRITABLE)
            return False
        if page.over:
            self._drop(page)
            return False
        return True

    def _flush(self, page: _Page) -> None:
        data, page.pending = page.pending, b""
        if self._send(page, data):
            self.poll.modify(page.sock.fileno(), READABLE)
            game = self.games.get(page.game)
            if game is not None:
                self._deliver(page, game)  # an event came meanwhile: its whole form

    def _hung_up(self, page: _Page) -> bool:
        """Read what the browser sent (nothing is expected); ``True`` if it is gone."""
        try:
            data = page.sock.recv(4096)
        except BlockingIOError:
            return False
        except OSError:
            data = b""
        if data:
            return False  # a page sends nothing: whatever it sent is not read
        self._drop(page)
        return True

    def _drop(self, page: _Page) -> None:
        fd = page.sock.fileno()
        if self.pages.pop(fd, None) is None:
            return
        game = self.games.get(page.game)
        if game is not None:
            game.pages.pop(fd, None)
        with contextlib.suppress(OSError):
            self.poll.unregister(fd)
        with contextlib.suppress(OSError):
            page.sock.shutdown(socket.SHUT_RDWR)  # the bot holds the socket too
        page.sock.close()
        self._left(page.page)

    def _left(self, page: int) -> None:
        self.outbox.extend(records(LEFT, page, 0))
        self._flush_outbox()

    def _flush_outbox(self) -> None:
        outbox = self.outbox
        while outbox:
            try:
                self.control.send(outbox[0])
            except BlockingIOError:
                self.poll.modify(self.control.fileno(), select.EPOLLIN | select.EPOLLOUT)
                return
            except OSError:
                outbox.clear()
                return
            outbox.popleft()
        self.poll.modify(self.control.fileno(), select.EPOLLIN)


def main(argv: list[str]) -> int:
    """``python -m bot.web.relay FD KEEP_ALIVE_S``: relay until the bot closes FD."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a console's Ctrl-C is the bot's to take
    with contextlib.suppress(OSError):
        os.nice(NICE)  # players first: a busy machine gives the bot's threads the CPU
    control = socket.socket(fileno=int(argv[0]))
    Child(control, float(argv[1])).run()
    return 0


# ----- the bot's side --------------------------------------------------------------

# The relay needs Linux's epoll, descriptor passing and record sockets; elsewhere the bot
# writes its pages itself.
AVAILABLE = all(
    (hasattr(select, "epoll"), hasattr(socket, "send_fds"), hasattr(socket, "SOCK_SEQPACKET"))
)


def _child_env() -> dict[str, str]:
    """The bot's environment, with the directory this package is in first on the path (a
    checkout run without installing finds ``bot`` there too)."""
    env = dict(os.environ)
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env["PYTHONPATH"] = os.pathsep.join(filter(None, (root, env.get("PYTHONPATH"))))
    return env


class Relay:
    """The bot's end of the relay: starts the child on the first page, sends it each
    watched game's events, and tells each relayed page's handler when it is gone."""

    def __init__(self, keep_alive_s: float = 25.0) -> None:
        self.keep_alive_s = keep_alive_s
        self.process: subprocess.Popen[bytes] | None = None
        self.pages_relayed = 0  # in all (the tests and the benchmark read it)
        self._sock: socket.socket | None = None
        self._reader = Reader()
        self._out: deque[tuple[bytes, list[int]]] = deque()  # records waiting, with fds to pass
        self._writing = False
        self._waiting: dict[
            int, tuple[int, asyncio.Future[None], Any]
        ] = {}  # page: game, left, transport
        self._games: dict[int, int] = {}  # game: pages relayed
        self._next_page = 0
        self._started_at = -RESTART_S
        self._closed = False

    # -- the child

    def _start(self) -> bool:
        if self._sock is not None:
            return True
        now = time.monotonic()
        if self._closed or now - self._started_at < RESTART_S:
            return False
        self._started_at = now
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        for each in (ours, theirs):
            for option in (socket.SO_SNDBUF, socket.SO_RCVBUF):
                with contextlib.suppress(OSError):
                    each.setsockopt(socket.SOL_SOCKET, option, BUFFER)
        try:
            self.process = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "bot.web.relay",
                    str(theirs.fileno()),
                    str(self.keep_alive_s),
                ],
                pass_fds=[theirs.fileno()],
                stdin=subprocess.DEVNULL,
                env=_child_env(),
            )
        except OSError:
            log.exception("the live pages' relay could not start; the bot writes them itself")
            ours.close()
            theirs.close()
            return False
        finally:
            theirs.close()
        ours.setblocking(False)
        self._sock = ours
        asyncio.get_running_loop().add_reader(ours.fileno(), self._read)
        log.info("the live pages' relay started (pid %s)", self.process.pid)
        return True

    async def close(self) -> None:
        """Stop the child; the relayed pages end (their browsers reconnect elsewhere)."""
        self._closed = True
        self._gone()
        process, self.process = self.process, None
        if process is not None:
            loop = asyncio.get_running_loop()
            try:
                await asyncio.wait_for(loop.run_in_executor(None, process.wait), 5.0)
            except TimeoutError:
                process.kill()
                await loop.run_in_executor(None, process.wait)

    def _gone(self) -> None:
        """The child is gone (or going): end every relayed page."""
        sock, self._sock = self._sock, None
        if sock is not None:
            loop = asyncio.get_running_loop()
            loop.remove_reader(sock.fileno())
            if self._writing:
                loop.remove_writer(sock.fileno())
                self._writing = False
            sock.close()
        for _kind, fds in self._out:
            for fd in fds:
                os.close(fd)
        self._out.clear()
        self._reader = Reader()
        waiting, self._waiting = self._waiting, {}
        self._games.clear()
        for _game, left, transport in waiting.values():
            shut(transport)
            if not left.done():
                left.set_result(None)

    # -- pages

    def watch(
        self, game_id: int, transport: Any, state: tuple[bytes, bytes] | None
    ) -> asyncio.Future[None] | None:
        """Hand a live page's connection to the child; the future is done when the page
        is gone. ``None``: it cannot be relayed (the caller writes the page itself).
        ``state``: the game's newest event (whole, new steps), if there is one yet."""
        raw = transport.get_extra_info("socket")
        if (
            raw is None
            or raw.family not in (socket.AF_INET, socket.AF_INET6)
            or transport.get_extra_info("sslcontext") is not None
            or transport.is_closing()
            or transport.get_write_buffer_size()
            or not self._start()
        ):
            return None
        fd = os.dup(raw.fileno())
        self._next_page += 1
        page = self._next_page
        if game_id not in self._games and state is not None:
            self._send(records(PUBLISH, 0, game_id, *state))
        self._games[game_id] = self._games.get(game_id, 0) + 1
        transport.pause_reading()  # the child reads the page now (to see it close)
        left: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiting[page] = (game_id, left, transport)
        self._send(records(WATCH, page, game_id), fd)
        self.pages_relayed += 1
        return left

    def publish(self, game_id: int, full: bytes, delta: bytes) -> None:
        """A game's newest event, for its relayed pages (nothing if it has none)."""
        if game_id in self._games and self._sock is not None:
            self._send(records(PUBLISH, 0, game_id, full, delta))

    def relays(self, game_id: int) -> bool:
        return game_id in self._games

    def _page_left(self, page: int) -> None:
        entry = self._waiting.pop(page, None)
        if entry is None:
            return
        game_id, left, _transport = entry
        count = self._games.get(game_id, 0) - 1
        if count > 0:
            self._games[game_id] = count
        else:
            self._games.pop(game_id, None)
            self._send(records(FORGET, 0, game_id))
        if not left.done():
            left.set_result(None)

    # -- the control socket

    def _send(self, message: list[bytes], fd: int | None = None) -> None:
        out = self._out
        for i, record in enumerate(message):
            out.append((record, [fd] if fd is not None and i == 0 else []))
        if not self._writing:
            self._write()

    def _write(self) -> None:
        sock, out = self._sock, self._out
        if sock is None:
            return
        while out:
            record, fds = out[0]
            try:
                if fds:
                    socket.send_fds(sock, [record], fds)
                else:
                    sock.send(record)
            except BlockingIOError:
                if not self._writing:
                    asyncio.get_running_loop().add_writer(sock.fileno(), self._write)
                    self._writing = True
                return
            except OSError as error:
                if error.errno != errno.EINTR:
                    log.warning("the live pages' relay is gone (%s)", error)
                    self._gone()
                return
            out.popleft()
            for each in fds:
                os.close(each)
        if self._writing:
            asyncio.get_running_loop().remove_writer(sock.fileno())
            self._writing = False

    def _read(self) -> None:
        sock = self._sock
        if sock is None:
            return
        while True:
            try:
                record = sock.recv(PART + HEADER.size)
            except BlockingIOError:
                return
            except OSError:
                record = b""
            if not record:
                log.warning("the live pages' relay stopped; its pages reconnect")
                self._gone()
                return
            message = self._reader.feed(record, [])
            if message is not None and message[0] == LEFT:
                self._page_left(message[1])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
