"""The live pages' fan-out alone (issue 28): the CPU the hub's waves spend writing one event
to every open page, per page.

    python benchmarks/fanout.py [--watchers 1000] [--events 200] [--reps 5]

``--watchers`` TCP connections over loopback, each accepted by an asyncio server in this
process and given to a ``Watcher`` of one ``Channel`` (as ``bot.web.app.events`` does);
the client ends are left unread (the events fit in the sockets' buffers). Each event is a
delta of the size a move's event has (one step); the time is the loop thread's CPU
(``time.thread_time``) from the publish until the waves are done, over the events, per
page, the kernel's send included. Then the same with the events not framed per publish
(``framed per page``: the chunk built in each page's write, what a naive fan-out does),
as a reference. Median over ``--reps``.
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import socket
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.web.live import Channel, Watcher, Waves  # noqa: E402

STEP = (
    b'{"i":57,"side":"white","dice":[3,5],"text":"Nf3","head":"White rolled 3 and 5",'
    b'"img":"/g/1-qvjhz7ckdm5d7l2r2ilzwseh2b/board/57.png?v=abcdef012345"}'
)


def event(n: int) -> bytes:
    head = b'{"v":"c0ffee:active:%d","last":%d,"over":false,"status":"White to move",' % (n, n)
    return b'data: %b"clock":"","first":%d,"steps":[%b]}\n\n' % (head, n, STEP)


READER = """
import select, socket, sys, os
port, n = int(sys.argv[1]), int(sys.argv[2])
socks = [socket.create_connection(("127.0.0.1", port)) for _ in range(n)]
ep = select.epoll()
by = {}
for s in socks:
    s.setblocking(False)
    ep.register(s.fileno(), select.EPOLLIN)
    by[s.fileno()] = s
ep.register(0, select.EPOLLIN)
buf = bytearray(1 << 16)
while True:
    for fd, _ in ep.poll():
        if fd == 0:
            sys.exit(0)
        try:
            by[fd].recv_into(buf)
        except BlockingIOError:
            pass
"""


async def run(watchers: int, events: int, read: bool) -> float:
    """The loop's CPU per event per page, in microseconds."""
    loop = asyncio.get_running_loop()
    transports: list[asyncio.Transport] = []

    class Sink(asyncio.Protocol):
        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            assert isinstance(transport, asyncio.Transport)
            transports.append(transport)

    server = await loop.create_server(Sink, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    clients = []
    reader = None
    if read:  # another process reads the pages' ends as they are written, as pages do
        reader = await asyncio.create_subprocess_exec(
            sys.executable, "-c", READER, str(port), str(watchers), stdin=asyncio.subprocess.PIPE
        )
    else:
        for k in range(watchers):
            sock = socket.create_connection(("127.0.0.1", port))
            sock.setblocking(False)
            clients.append(sock)
            if k % 50 == 49:  # the server accepts them meanwhile
                await asyncio.sleep(0.01)
    while len(transports) < watchers:
        await asyncio.sleep(0.01)
    waves = Waves()
    channel = Channel(waves)
    pages = [Watcher(t, True) for t in transports]
    for page in pages:
        channel.add(page)
    channel.publish(event(0), event(0), "0")  # every page's first event
    while waves._task is not None:
        await asyncio.sleep(0)
    used = 0.0
    for n in range(1, events + 1):
        start = time.thread_time()
        channel.publish(event(n), event(n), str(n))
        while waves._task is not None:
            await asyncio.sleep(0)
        used += time.thread_time() - start
        if n % 20 == 0:  # the client ends drained now and then, outside the timing
            for sock in clients:
                try:
                    while sock.recv(1 << 16):
                        pass
                except BlockingIOError:
                    pass
    assert all(page.seen == channel.version for page in pages), "a page missed an event"
    for sock in clients:
        sock.close()
    if reader is not None:
        assert reader.stdin is not None
        reader.stdin.close()
        await reader.wait()
    server.close()
    for transport in transports:
        transport.close()
    await server.wait_closed()
    return used / events / watchers * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--watchers", type=int, default=1000)
    parser.add_argument("--events", type=int, default=200)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument(
        "--read", action="store_true", help="another process reads the pages' ends meanwhile"
    )
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    figures = [asyncio.run(run(args.watchers, args.events, args.read)) for _ in range(args.reps)]
    print(
        f"{args.watchers} pages, {args.events} events of {len(event(1))} bytes: the loop's CPU "
        f"{statistics.median(figures):.2f} us per page per event (median of {args.reps}: "
        + ", ".join(f"{f:.2f}" for f in figures)
        + ")"
    )


if __name__ == "__main__":
    main()
