"""Open live game pages for ``benchmarks/service.py --watchers``: ``N`` server-sent event
streams spread over the game paths given, each read to its end, in this process (as in
production the browsers are not in the bot's process).

    python benchmarks/sse_watchers.py [--client epoll|aiohttp] BASE_URL N PATH...

It prints ``READY n`` once every stream is open. Then, on stdin, ``mark`` answers
``CPU s`` (this process's CPU seconds so far), and the end of stdin answers one JSON line:
the streams, the events and bytes read, the CPU (and its part in the kernel), and each
stream's arrivals (the event's ``last`` step and when its last byte was read,
``time.monotonic()``, the clock the bot's process reads too).

The client is cheap on purpose, since on a benchmark machine it shares the cores with the
bot it measures (in production the browsers are elsewhere), and honest: it reads every
byte of every event of every stream and stamps each event when the read that completes
it returns. ``epoll`` (the default) is no event loop but the kernel's: one ``epoll`` over
the sockets, each ready socket read once into one reused buffer, the response's head and
the chunked framing parsed by hand (``Stream``). ``aiohttp`` is the client it replaced
(``ClientSession``, a task per stream iterating over lines), kept to compare the two. On
this 2-core machine, 1,000 streams at 5 events a second: about 10 us of CPU per event
read with ``epoll`` against 25 with ``aiohttp`` (and 25 with an ``asyncio.Protocol``
per stream, most of it the kernel's: asyncio reads into a new 256 KiB buffer each time).
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import resource
import select
import socket
import sys
import time
from typing import Any
from urllib.parse import urlsplit

LAST = re.compile(rb'"last":(-?\d+)')
HEAD_END = b"\r\n\r\n"


def _nofile() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def cpu_s() -> float:
    used = resource.getrusage(resource.RUSAGE_SELF)
    return used.ru_utime + used.ru_stime


class Stream:
    """One live page's answer, read to the last byte: the response's head, then the
    chunked framing undone by hand, then each blank line ends an event, stamped with the
    time the data that completed it was read. ``arrivals`` lists (last step, time) per
    data event, in the order read."""

    def __init__(self) -> None:
        self.head = bytearray()  # the response's head, until it is whole
        self.in_body = False
        self.status = b""
        self.chunked = False
        self.size = -1  # bytes left in the current chunk (-1: its size line is next)
        self.framing = bytearray()  # a chunk's size line, read so far
        self.trailer = 0  # bytes of the CRLF after a chunk's data still to skip
        self.event = bytearray()  # the current event's bytes, until its blank line
        self.arrivals: list[tuple[int, float]] = []
        self.events = 0  # every event, comments (keep-alives) included
        self.bytes = 0
        self.ended = False  # the last chunk was read

    def feed(self, data: bytes, now: float) -> None:
        self.bytes += len(data)
        if not self.in_body:
            self.head += data
            end = self.head.find(HEAD_END)
            if end < 0:
                return
            head, data = bytes(self.head[:end]).lower(), bytes(self.head[end + 4 :])
            self.head.clear()
            self.status = head.split(b"\r\n", 1)[0]
            if not self.status.startswith((b"http/1.1 200", b"http/1.0 200")):
                raise ConnectionError(f"the page answered {self.status!r}")
            self.in_body = True
            self.chunked = b"\r\ntransfer-encoding: chunked" in head
        if self.chunked:
            self._chunks(data, now)
        else:
            self._body(data, now)

    def _chunks(self, data: bytes, now: float) -> None:
        """Undo the chunked framing (size line, data, CRLF), passing the data on."""
        at, n = 0, len(data)
        while at < n:
            if self.trailer:
                skip = min(self.trailer, n - at)
                self.trailer -= skip
                at += skip
            elif self.size < 0:
                end = data.find(b"\n", at)
                if end < 0:
                    self.framing += data[at:]
                    return
                self.framing += data[at:end]
                self.size = int(bytes(self.framing).split(b";", 1)[0].strip() or b"0", 16)
                self.framing.clear()
                at = end + 1
                if self.size == 0:  # the last chunk: the stream is over
                    self.size, self.ended = -1, True
                    return
            else:
                take = min(self.size, n - at)
                self._body(data[at : at + take] if at or take < n else data, now)
                self.size -= take
                at += take
                if self.size == 0:
                    self.size, self.trailer = -1, 2

    def _body(self, data: bytes, now: float) -> None:
        """The stream's bytes: each blank line ends an event, stamped ``now``."""
        event = self.event
        start = max(0, len(event) - 1)  # a boundary may straddle two reads
        event += data
        while True:
            end = event.find(b"\n\n", start)
            if end < 0:
                return
            self.events += 1
            if event.startswith(b"data: ") or b"\ndata: " in event[:end]:
                found = LAST.search(event, 0, min(end, 400))
                if found:
                    self.arrivals.append((int(found.group(1)), now))
            del event[: end + 2]
            start = 0


def request_bytes(host: str, port: int, path: str) -> bytes:
    return (
        f"GET {path}/events HTTP/1.1\r\nHost: {host}:{port}\r\nAccept: text/event-stream\r\n\r\n"
    ).encode()


class Client:
    """The streams a client opened, each with its page's path; ``run`` reads them until
    stdin ends, answering each ``mark`` line with this process's CPU seconds."""

    streams: list[tuple[str, Stream]]

    def counts(self) -> tuple[int, int]:
        return sum(s.events for _, s in self.streams), sum(s.bytes for _, s in self.streams)


class EpollClient(Client):
    """No event loop but the kernel's: one ``epoll`` over every stream's socket, each
    ready socket read once (``recv``) and its bytes parsed. The cheapest honest reader:
    no handle, callback or task per read."""

    def __init__(self, base: str, total: int, paths: list[str]) -> None:
        parts = urlsplit(base)
        host, port = parts.hostname or "127.0.0.1", parts.port or 80
        self.epoll = select.epoll()
        # one buffer for every read (no large allocation per read), copied out by the slice
        self.buffer = bytearray(0x10000)
        self.by_fd: dict[int, tuple[socket.socket, Stream]] = {}
        self.streams = []
        for k in range(total):
            path = paths[k % len(paths)]
            sock = socket.create_connection((host, port))
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            sock.sendall(request_bytes(host, port, path))
            sock.setblocking(False)
            stream = Stream()
            self.streams.append((path, stream))
            self.by_fd[sock.fileno()] = (sock, stream)
            self.epoll.register(sock.fileno(), select.EPOLLIN)
        while not all(stream.in_body for _, stream in self.streams):
            self._read(1.0)

    def _read(self, timeout: float) -> bool:
        """One round: every ready socket read once. True when stdin has something."""
        said = False
        buffer = self.buffer
        for fd, _ in self.epoll.poll(timeout):
            if fd == 0:
                said = True
                continue
            sock, stream = self.by_fd[fd]
            try:
                n = sock.recv_into(buffer)
            except (BlockingIOError, InterruptedError):
                continue
            if n:
                stream.feed(buffer[:n], time.monotonic())
                continue
            if not stream.in_body:
                raise ConnectionError("a page closed its stream before it answered")
            self.epoll.unregister(fd)  # its stream ended (the game did) and then the socket
            del self.by_fd[fd]
            sock.close()
        return said

    def run(self) -> None:
        os.set_blocking(0, False)
        self.epoll.register(0, select.EPOLLIN)
        pending = b""
        while True:
            if not self._read(1.0):
                continue
            try:
                said = os.read(0, 4096)
            except BlockingIOError:
                continue
            if not said:
                break
            pending += said
            while b"\n" in pending:
                line, pending = pending.split(b"\n", 1)
                if line.strip() != b"mark":
                    return
                print(f"CPU {cpu_s():.3f}", flush=True)

    def close(self) -> None:
        for sock, _ in self.by_fd.values():
            sock.close()
        self.epoll.close()


class AiohttpClient(Client):
    """The client these replaced: aiohttp's ``ClientSession``, a task per stream reading
    its lines."""

    def __init__(self, base: str, total: int, paths: list[str]) -> None:
        self.base, self.total, self.paths = base, total, paths
        self.streams = []

    def run(self) -> None:
        asyncio.run(self._run())

    async def _run(self) -> None:
        import aiohttp

        session = aiohttp.ClientSession(
            connector=aiohttp.TCPConnector(limit=0),
            timeout=aiohttp.ClientTimeout(total=None, sock_read=None),
        )

        async def watch(path: str, stream: Stream) -> None:
            async with session.get(self.base + path + "/events") as response:
                assert response.status == 200, response.status
                stream.in_body = True
                async for line in response.content:
                    stream.bytes += len(line)
                    if line == b"\n":
                        stream.events += 1
                    elif line.startswith(b"data: "):
                        now = time.monotonic()
                        last = LAST.search(line, 0, 400)
                        if last:
                            stream.arrivals.append((int(last.group(1)), now))

        tasks = []
        for k in range(self.total):
            path = self.paths[k % len(self.paths)]
            self.streams.append((path, Stream()))
            tasks.append(asyncio.create_task(watch(path, self.streams[-1][1])))
        while not all(stream.in_body for _, stream in self.streams):
            failed = [t for t in tasks if t.done() and t.exception() is not None]
            if failed:
                raise SystemExit(f"a page could not be opened: {failed[0].exception()!r}")
            await asyncio.sleep(0.05)
        print(f"READY {len(self.streams)}", flush=True)
        loop = asyncio.get_running_loop()
        while (await loop.run_in_executor(None, sys.stdin.readline)).strip() == "mark":
            print(f"CPU {cpu_s():.3f}", flush=True)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await session.close()


CLIENTS: dict[str, type[Client]] = {
    "epoll": EpollClient,
    "aiohttp": AiohttpClient,
}


def main(client: str, base: str, total: int, paths: list[str]) -> None:
    _nofile()
    opened: Any = CLIENTS[client](base, total, paths)
    if isinstance(opened, EpollClient):
        print(f"READY {len(opened.streams)}", flush=True)
    opened.run()
    events, read = opened.counts()
    if isinstance(opened, EpollClient):
        opened.close()
    print(
        json.dumps(
            {
                "client": client,
                "open": len(opened.streams),
                "events": events,
                "bytes": read,
                "cpu_s": round(cpu_s(), 3),
                "sys_s": round(resource.getrusage(resource.RUSAGE_SELF).ru_stime, 3),
                "arrivals": [[path, stream.arrivals] for path, stream in opened.streams],
            }
        ),
        flush=True,
    )


if __name__ == "__main__":
    argv = sys.argv[1:]
    chosen = "epoll"
    if argv[:1] == ["--client"]:
        chosen, argv = argv[1], argv[2:]
    main(chosen, argv[0], int(argv[1]), argv[2:])
