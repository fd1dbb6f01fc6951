"""The live pages' relay (``bot.web.relay``): another process writes the events to the
pages the bot hands it. Through a real web server and real connections: the events
reach every relayed page and only the new steps are sent; a page that closes is counted
out; the game's end ends the streams; a page that does not read skips to the newest whole
event; and when the relay dies, its pages end and the next ones go to a new relay."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import socket
import sys
import threading
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from bot.service import GameService
from bot.web import relay as relay_module
from bot.web.app import Site, WebServer

sys.path.insert(0, str(Path(__file__).parent))  # the helpers live beside this file
from webgames import BLACK, make_site, play_moves, start_game  # noqa: E402

pytestmark = pytest.mark.skipif(not relay_module.AVAILABLE, reason="the relay needs Linux")


@contextlib.asynccontextmanager
async def serving(
    tmp_path: Path, keep_alive_s: float | None = None
) -> AsyncIterator[tuple[GameService, Site, WebServer]]:
    """A service and its web server (with the relay), stopped on the way out."""
    service = await GameService.open(tmp_path / "games.sqlite3", cpu_workers=1)
    site, _ = make_site(service, tmp_path)
    if keep_alive_s is not None:
        site.hub.keep_alive_s = keep_alive_s
    server = WebServer(site, "127.0.0.1", 0)
    await server.start()
    try:
        yield service, site, server
    finally:
        await asyncio.wait_for(server.stop(), 10)
        await service.close()


@pytest.fixture
async def served(tmp_path: Path) -> AsyncIterator[tuple[GameService, Site, WebServer]]:
    async with serving(tmp_path) as running:
        yield running


class Page:
    """One live page's connection, read as a browser's EventSource reads it (HTTP/1.1,
    chunked), with the events parsed as they arrive."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer
        self.buffer = b""

    @classmethod
    async def open(cls, server: WebServer, path: str) -> Page:
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        writer.write(
            f"GET {path} HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n".encode()
        )
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
        assert head.startswith(b"HTTP/1.1 200") and b"chunked" in head.lower(), head
        return cls(reader, writer)

    async def body(self) -> bytes:
        """The next chunk's bytes; ``b""`` at the body's end or the connection's."""
        size = await self.reader.readline()
        if not size:
            return b""
        length = int(size.strip(), 16)
        data = await self.reader.readexactly(length + 2)
        return data[:-2]

    async def event(self) -> tuple[str, dict[str, Any]] | None:
        """The next event (its name, its data), passing comments; ``None`` at the end."""
        while b"\n\n" not in self.buffer:
            data = await self.body()
            if not data:
                return None
            self.buffer += data
        block, self.buffer = self.buffer.split(b"\n\n", 1)
        name, data = "message", None
        for line in block.split(b"\n"):
            if line.startswith(b"event: "):
                name = line[7:].decode()
            elif line.startswith(b"data: "):
                data = json.loads(line[6:])
        if data is None:
            return await self.event()  # a comment or the retry line
        return name, data

    def close(self) -> None:
        self.writer.close()


async def watching(
    service: GameService, site: Site, server: WebServer, count: int
) -> tuple[int, str, list[Page]]:
    """A new game and ``count`` live pages of it, each with its first event read."""
    game_id = await start_game(service, "tquarchess")
    path = site.links.game_path(game_id) + "/events"
    pages = [await Page.open(server, path) for _ in range(count)]
    for page in pages:
        assert await asyncio.wait_for(page.event(), 5) is not None
    return game_id, path, pages


async def until(condition: Any, seconds: float = 5.0) -> None:
    for _ in range(int(seconds / 0.02)):
        if condition():
            return
        await asyncio.sleep(0.02)
    raise AssertionError("not within the time")


async def test_a_move_reaches_every_relayed_page_and_closed_ones_are_counted_out(served) -> None:
    service, site, server = served
    game_id = await start_game(service, "tquarchess")
    await play_moves(service, game_id, 2)
    path = site.links.game_path(game_id) + "/events"
    pages = [await Page.open(server, path) for _ in range(40)]
    relay = site.hub.relay
    assert relay is not None and relay.process is not None
    await until(lambda: relay.pages_relayed == 40)
    assert site.hub.total == 40
    firsts = await asyncio.gather(*(asyncio.wait_for(p.event(), 5) for p in pages))
    assert all(e is not None and e[1]["last"] == 2 and len(e[1]["steps"]) == 3 for e in firsts)
    # the relay yields the CPU to the bot's threads on a busy machine
    ours = os.getpriority(os.PRIO_PROCESS, 0)
    assert os.getpriority(os.PRIO_PROCESS, relay.process.pid) == min(19, ours + relay_module.NICE)
    for turn in (3, 4):
        outcome = await play_moves(service, game_id, 1)
        assert outcome is not None
        events = await asyncio.gather(*(asyncio.wait_for(p.event(), 5) for p in pages))
        for event in events:
            assert event is not None and event[1]["last"] == turn
            assert event[1]["first"] == turn and len(event[1]["steps"]) == 1
            assert event[1]["steps"][-1]["text"] == outcome.recorded
    for page in pages[:30]:
        page.close()
    await until(lambda: site.hub.total == 10)
    assert relay.relays(game_id)
    for page in pages[30:]:
        page.close()
    await until(lambda: site.hub.total == 0 and not site.hub.channels)
    assert not relay.relays(game_id)  # the relay was told to forget the game


async def test_the_games_end_ends_the_relayed_streams(served) -> None:
    service, site, server = served
    game_id = await start_game(service, "tquarchess")
    path = site.links.game_path(game_id) + "/events"
    pages = [await Page.open(server, path) for _ in range(5)]
    for page in pages:
        assert await asyncio.wait_for(page.event(), 5) is not None
    await service.resign(user_id=BLACK, game_id=game_id)
    for page in pages:
        event = await asyncio.wait_for(page.event(), 5)
        assert event is not None and event[0] == "over"
        assert await asyncio.wait_for(page.event(), 5) is None  # and the stream ends
    await until(lambda: site.hub.total == 0)
    late = await Page.open(server, path)  # a page opened after the end gets it, and ends
    event = await asyncio.wait_for(late.event(), 5)
    assert event is not None and event[0] == "over"
    assert await asyncio.wait_for(late.event(), 5) is None
    await until(lambda: site.hub.total == 0)


def test_a_page_that_does_not_read_skips_to_the_newest_whole_event() -> None:
    """The relay's own loop (in a thread here), a page whose socket takes little: the
    events written while it was full are skipped, and it gets the newest in its whole
    form; a page that reads gets every event's new steps."""
    control, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    child = relay_module.Child(theirs, keep_alive_s=3600.0)
    thread = threading.Thread(target=child.run, daemon=True)
    thread.start()
    ends = {}
    for name, size in (("slow", 4096), ("fast", 1 << 20)):
        ours, page = socket.socketpair()
        page.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, size)
        ends[name] = ours
        for record in relay_module.records(relay_module.WATCH, len(ends), 7):
            socket.send_fds(control, [record], [page.fileno()])
        page.close()

    def event(last: int) -> tuple[bytes, bytes]:
        step = b'{"n": %d, "pad": "%s"}' % (last, b"x" * 600)
        full = b'data: {"last": %d, "steps": [%s]}\n\n' % (last, b", ".join([step] * (last + 1)))
        delta = b'data: {"last": %d, "first": %d, "steps": [%s]}\n\n' % (last, last, step)
        return full, delta

    for last in range(60):
        for record in relay_module.records(relay_module.PUBLISH, 0, 7, *event(last)):
            control.send(record)
    for record in relay_module.records(relay_module.PUBLISH, 0, 7, *event(60)):
        control.send(record)

    def read(sock: socket.socket) -> list[dict[str, Any]]:
        sock.settimeout(5)
        data, seen = b"", []
        while not seen or seen[-1]["last"] < 60:
            data += sock.recv(1 << 16)
            while True:  # whole chunks: size line, data, CRLF
                head, sep, rest = data.partition(b"\r\n")
                if not sep or len(rest) < int(head, 16) + 2:
                    break
                length = int(head, 16)
                body, data = rest[:length], rest[length + 2 :]
                assert body.startswith(b"data: ")
                seen.append(json.loads(body[6:]))
        return seen

    for name in ("fast", "slow"):
        seen = read(ends[name])
        steps: list[int] = []  # the plies the page was given, whole or new, in order
        for data in seen:
            first = data.get("first", 0)
            assert first <= len(steps), "a new step that does not follow what the page has"
            del steps[first:]
            steps.extend(range(first, data["last"] + 1))
        assert steps == list(range(61))
        if name == "fast":
            assert len(seen) == 61
        else:
            assert len(seen) < 61, "it never skipped"
            assert "first" not in seen[-1]  # the newest event, whole
    control.close()
    thread.join(5)
    assert not thread.is_alive()


async def test_when_the_relay_dies_its_pages_end_and_new_pages_go_to_a_new_one(
    served, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(relay_module, "RESTART_S", 0.0)
    service, site, server = served
    game_id, path, pages = await watching(service, site, server, 3)
    relay = site.hub.relay
    assert relay is not None and relay.process is not None
    first = relay.process
    os.kill(first.pid, signal.SIGKILL)
    for page in pages:  # each browser sees its stream end, and reconnects
        assert await asyncio.wait_for(page.event(), 5) is None
    await until(lambda: site.hub.total == 0)
    again = await Page.open(server, path)
    assert await asyncio.wait_for(again.event(), 5) is not None
    assert relay.process is not None and relay.process.pid != first.pid
    outcome = await play_moves(service, game_id, 1)
    event = await asyncio.wait_for(again.event(), 5)
    assert outcome is not None and event is not None and event[1]["last"] == 1
    again.close()


async def test_relayed_pages_get_keep_alives(tmp_path: Path) -> None:
    async with serving(tmp_path, keep_alive_s=0.2) as (service, site, server):
        game_id = await start_game(service, "tquarchess")
        page = await Page.open(server, site.links.game_path(game_id) + "/events")
        assert await asyncio.wait_for(page.event(), 5) is not None
        comment = b""
        while b": still here" not in comment:
            comment += await asyncio.wait_for(page.body(), 5)
        page.close()


async def test_stopping_the_server_ends_the_relayed_pages_and_the_relay(tmp_path: Path) -> None:
    async with serving(tmp_path) as (service, site, server):
        _game_id, _path, pages = await watching(service, site, server, 3)
        relay = site.hub.relay
        assert relay is not None and relay.process is not None
        process = relay.process
    assert process.poll() is not None  # the relay ended with the server
    for page in pages:  # and each page's stream with it (its browser reconnects)
        assert await asyncio.wait_for(page.event(), 5) is None
