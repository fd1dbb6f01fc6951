"""The live pages' fan-out in waves (issue 28): a move watched by hundreds of open pages
must not hold the event loop for one long block of writes. No clock is read: a probe
counts the loop's iterations, and every event written to a page is noted with the
iteration it ran in."""

from __future__ import annotations

import asyncio
import resource
import sys
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp.test_utils import TestClient, TestServer

from bot.service import GameService
from bot.web.app import Site, create_app
from bot.web.live import BEHIND_BYTES, Channel, Limits, Watcher, Waves

sys.path.insert(0, str(Path(__file__).parent))  # the helpers live beside this file
from webgames import make_site, play_moves, start_game  # noqa: E402

PAGES = 300
WAVE = 16


@pytest.fixture
async def service(tmp_path: Path) -> AsyncIterator[GameService]:
    service = await GameService.open(tmp_path / "games.sqlite3", cpu_workers=1)
    yield service
    await service.close()


@pytest.fixture
def files() -> Iterator[None]:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 4096)), hard))
    yield
    resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


class Iterations:
    """Counts the loop's iterations: a callback that schedules itself again runs once in
    each (``call_soon`` from inside an iteration lands in the next one)."""

    def __init__(self) -> None:
        self.count = 0
        self._handle: asyncio.Handle | None = None

    def _tick(self) -> None:
        self.count += 1
        self._handle = asyncio.get_running_loop().call_soon(self._tick)

    def start(self) -> None:
        self._handle = asyncio.get_running_loop().call_soon(self._tick)

    def stop(self) -> None:
        if self._handle is not None:
            self._handle.cancel()


@pytest.fixture
def writes(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Iterations, list[tuple[int, bytes]]]]:
    """Every write to a socket, with the iteration it ran in (asyncio's own write is
    called as before): the pages' events, however the server writes them."""
    iterations = Iterations()
    noted: list[tuple[int, bytes]] = []
    from asyncio.selector_events import _SelectorSocketTransport as Transport

    write = Transport.write

    def counted(self: Any, data: Any) -> None:
        noted.append((iterations.count, bytes(data)))
        write(self, data)

    monkeypatch.setattr(Transport, "write", counted)
    yield iterations, noted
    iterations.stop()


async def open_pages(site: Site, games: list[int]) -> tuple[TestClient, list[Any]]:  # type: ignore[type-arg]
    session_args = {"connector": aiohttp.TCPConnector(limit=0)}
    client: TestClient = TestClient(TestServer(create_app(site)), **session_args)  # type: ignore[type-arg]
    await client.start_server()
    site.service.add_row_listener(site.hub.row_committed)
    paths = [site.links.game_path(g) + "/events" for g in games]
    streams = await asyncio.gather(*(client.get(paths[k % len(paths)]) for k in range(PAGES)))
    assert all(s.status == 200 for s in streams)
    # each page's first event: the game as it is
    await asyncio.wait_for(asyncio.gather(*(next_data(s) for s in streams)), 30)
    return client, streams


async def next_data(stream: Any) -> bytes:
    async for line in stream.content:
        if line.startswith(b"data: "):
            return bytes(line)
    raise AssertionError("the stream ended")


async def next_comment(stream: Any) -> None:
    async for line in stream.content:
        if line.startswith(b": still here"):
            return
    raise AssertionError("the stream ended")


def per_iteration(noted: list[tuple[int, bytes]], kind: bytes) -> Counter[int]:
    """How many writes of ``kind`` (a page's event or keep-alive) ran in each iteration."""
    return Counter(n for n, data in noted if kind in data[:24])


async def test_a_move_reaches_300_pages_of_one_game_in_waves(service, tmp_path, files, writes):
    iterations, noted = writes
    site, _ = make_site(service, tmp_path, limits=Limits(per_game=1000, per_address=1000))
    site.hub.waves.size = WAVE
    game_id = await start_game(service, "tquarchess")
    await play_moves(service, game_id, 2)
    client, streams = await open_pages(site, [game_id])
    try:
        noted.clear()
        iterations.start()
        waiting = [asyncio.ensure_future(next_data(s)) for s in streams]
        outcome = await play_moves(service, game_id, 1)
        assert outcome is not None and outcome.recorded
        events = await asyncio.wait_for(asyncio.gather(*waiting), 30)
        assert all(b'"last":3' in e for e in events)  # every page has the move
        counts = per_iteration(noted, b"data: ")
        assert sum(counts.values()) == PAGES  # one write per page, the same event
        assert max(counts.values()) <= WAVE, counts.most_common(3)
        assert len(counts) >= PAGES // WAVE  # spread over that many iterations at least
    finally:
        for stream in streams:
            stream.close()
        await site.hub.stop()
        await client.close()


async def test_keep_alives_of_many_games_at_once_are_spread_in_waves(
    service, tmp_path, files, writes
):
    iterations, noted = writes
    site, _ = make_site(service, tmp_path, limits=Limits(per_game=1000, per_address=1000))
    site.hub.waves.size = WAVE
    games = [await start_game(service, "tquarchess", location_id=n) for n in range(1, 31)]
    client, streams = await open_pages(site, games)  # 10 pages on each of 30 games
    try:
        noted.clear()
        iterations.start()
        waiting = [asyncio.ensure_future(next_comment(s)) for s in streams]
        for channel in list(site.hub.channels.values()):  # what the keep-alive does
            channel.poke()
        await asyncio.wait_for(asyncio.gather(*waiting), 30)
        counts = per_iteration(noted, b": still here")
        assert sum(counts.values()) == PAGES  # every page, once
        assert max(counts.values()) <= WAVE, counts.most_common(3)
    finally:
        for stream in streams:
            stream.close()
        await site.hub.stop()
        await client.close()


class Connection:
    """A connection's side the waves see: what was written, and how much is unsent."""

    def __init__(self, unsent: int = 0) -> None:
        self.written: list[bytes] = []
        self.unsent = unsent

    def write(self, data: bytes) -> None:
        self.written.append(data)

    def is_closing(self) -> bool:
        return False

    def get_write_buffer_size(self) -> int:
        return self.unsent


async def test_a_page_behind_or_not_chunked_is_left_to_its_own_task() -> None:
    waves = Waves(size=2)
    channel = Channel(waves)
    fast, slow, plain = Connection(), Connection(unsent=BEHIND_BYTES + 1), Connection()
    pages = [Watcher(fast, True), Watcher(slow, True), Watcher(plain, False)]
    for page in pages:
        channel.add(page)
    woken = [asyncio.ensure_future(page.wait()) for page in pages]
    channel.publish(b"data: one\n\n", b"data: one\n\n", "v1")
    await asyncio.wait(woken[1:], timeout=5)
    assert fast.written == [b"b\r\ndata: one\n\n\r\n"]  # one chunk, as aiohttp frames it
    assert pages[0].seen == 1 and not woken[0].done()
    assert slow.written == [] and plain.written == []  # their tasks write, with back-pressure
    assert woken[1].done() and woken[2].done() and pages[1].seen == pages[2].seen == 0
    channel.remove(pages[1])
    channel.remove(pages[2])
    channel.poke()  # a keep-alive: nothing new
    for _ in range(3):
        await asyncio.sleep(0)
    assert not woken[0].done()  # a keep-alive written for it: its task sleeps on
    assert fast.written[1:] == [b"e\r\n: still here\n\n\r\n"]
    ending = woken[0]
    channel.publish(b"event: over\ndata: all\n\n", b"event: over\ndata: two\n\n", "v2")
    await asyncio.wait_for(ending, 5)  # woken to end the stream
    assert fast.written[2:] == [b"17\r\nevent: over\ndata: two\n\n\r\n"] and pages[0].over


async def test_the_waves_wait_while_a_command_acts_and_not_for_ever() -> None:
    acting = [True]
    waves = Waves(size=2, yield_to=lambda: acting[0], yield_max_s=10.0)
    channel = Channel(waves)
    connections = [Connection() for _ in range(6)]
    for connection in connections:
        channel.add(Watcher(connection, True))
    channel.publish(b"data: one\n\n", b"data: one\n\n", "v1")
    await asyncio.sleep(0.05)  # a player's command holds a game's lock all this time
    assert not any(c.written for c in connections)  # the players first
    assert waves.yielded_s > 0.02
    acting[0] = False  # the command is done: the waves go on at their next look
    await asyncio.wait_for(asyncio.gather(*(_written(c) for c in connections)), 2)
    # Under a command that never ends, the waves go on after yield_max_s.
    patient = Waves(size=2, yield_to=lambda: True, yield_max_s=0.02)
    channel = Channel(patient)
    later = Connection()
    channel.add(Watcher(later, True))
    channel.publish(b"data: two\n\n", b"data: two\n\n", "v1")
    await asyncio.wait_for(_written(later), 2)  # not for ever
    assert patient.yielded_s >= 0.02  # but it did wait its 20 ms first


async def _written(connection: Connection) -> None:
    while not connection.written:
        await asyncio.sleep(0.005)
