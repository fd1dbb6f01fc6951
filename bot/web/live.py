"""Live pages: server-sent events, fanned out per game (issue 28).

The service tells the hub of each committed change (``add_row_listener``). The hub reads
the game once (``GameStates``), turns it into one event, and every open page of that
game is woken to send the same bytes: the work per move does not grow with the watchers,
only the writes do. The watchers are woken in waves (``Waves``: at most ``WAVE`` writes
per loop iteration), so a thousand open pages never hold the event loop for one long
block: a move's commit and reply run between the waves, and while a command is acting
on a game the waves wait for it (up to ``YIELD_MAX_S`` per delivery). An event comes in
two forms: the whole move list, and only the new steps for a page that has the event
before; a watcher that falls behind skips to the newest event in its whole form.
Connections are bounded per game, per address and in total. Where it can, the hub hands
a page's connection to the relay (``bot.web.relay``), another process that writes every
event to the pages it holds, so that a thousand pages cost the bot one write per event.

A web server in another process than the one that moves (``chessgarden web`` beside a
console game) sees no commits: ``poll_s`` then makes the hub look at the watched games'
state every few seconds (one read per watched game, never one per watcher).
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from bot.service import ServiceError
from bot.web.relay import KEEP_ALIVE, OVER, Relay, chunk

log = logging.getLogger(__name__)

KEEP_ALIVE_S = 25.0
WAVE = 32  # watchers woken (each writes once) per loop iteration
# Between waves, while a command is acting on a game (``Waves.yield_to``), the waves
# wait, looking again every YIELD_POLL_S, for at most YIELD_MAX_S in one delivery run:
# a move's latency comes first, its watchers' a moment later.
YIELD_POLL_S = 0.001
YIELD_MAX_S = 0.05


@dataclass(frozen=True)
class Limits:
    per_game: int = 1024  # open live pages of one game
    per_address: int = 64  # open live pages from one address
    total: int = 8192  # open live pages in all


class Busy(Exception):
    """Too many live pages already; one line saying which bound."""


class Watcher:
    """One open live page. The hub's waves write the events straight to its connection
    (``transport``: the same bytes aiohttp's chunked writer would send), so a page costs
    one socket write per event, not a task switch and aiohttp's write path. Its own task
    (the ``events`` handler) writes only when the page is behind (its connection holds
    more than ``BEHIND_BYTES`` unsent, or its response cannot take direct writes), through
    aiohttp with its back-pressure, and ends the stream after the last event."""

    __slots__ = ("transport", "chunked", "seen", "busy", "over", "ping", "queued", "_waiter")

    def __init__(self, transport: Any, chunked: bool) -> None:
        self.transport = transport  # asyncio.Transport, or None: always through the task
        self.chunked = chunked  # the response uses chunked encoding (HTTP/1.1)
        self.seen = 0  # the channel's version this page has
        self.busy = False  # its task is writing: the waves leave it alone
        self.over = False  # the last event is written: its task ends the stream
        self.ping = False  # a keep-alive its task should write
        self.queued = False  # in the waves' queue already
        self._waiter: asyncio.Future[None] | None = None

    def wake(self) -> None:
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def wait(self) -> None:
        self._waiter = asyncio.get_running_loop().create_future()
        try:
            await self._waiter
        finally:
            self._waiter = None


class Waves:
    """Delivers a poked channel's events to its watchers a bounded number at a time:
    ``size`` per loop iteration, yielding between waves, so that a move's commit and reply
    (and any other ready work) run between them instead of waiting behind every open
    page's write. One per hub, shared by all its games, so that many games poked at once
    (a keep-alive, a round of moves) are spread over iterations too."""

    def __init__(
        self,
        size: int = 32,
        yield_to: Callable[[], bool] | None = None,
        yield_max_s: float = YIELD_MAX_S,
    ) -> None:
        self.size = max(1, size)
        self.yield_to = yield_to  # True while a player's command runs: wait before a wave
        self.yield_max_s = yield_max_s
        self.yielded_s = 0.0  # waited for players, in all (the benchmark reads it)
        self._due: deque[tuple[Channel, Watcher]] = deque()
        self._task: asyncio.Task[None] | None = None

    def add(self, channel: Channel, watchers: Iterable[Watcher]) -> None:
        due = self._due
        for watcher in watchers:
            if not watcher.queued:  # a page poked twice before its turn is written once
                watcher.queued = True
                due.append((channel, watcher))
        if due and self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run())

    async def _run(self) -> None:
        due, size, yield_to = self._due, self.size, self.yield_to
        loop = asyncio.get_running_loop()
        waited = 0.0
        try:
            while due:
                if yield_to is not None and waited < self.yield_max_s and yield_to():
                    began = loop.time()
                    await asyncio.sleep(YIELD_POLL_S)  # players first
                    took = loop.time() - began
                    waited += took
                    self.yielded_s += took
                    continue
                for _ in range(min(size, len(due))):
                    channel, watcher = due.popleft()
                    watcher.queued = False
                    try:
                        channel.deliver(watcher)
                    except Exception:  # one broken page must not stop the others' events
                        log.exception("a live page could not be written")
                        watcher.wake()
                await asyncio.sleep(0)  # the I/O that arrived meanwhile runs now
        finally:
            self._task = None

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)


BEHIND_BYTES = 0x10000  # unsent bytes past which a page is written through its own task


class Channel:
    """The newest event of one game, and its watchers: a publish encodes the event once
    (framed once too), and the hub's ``Waves`` write those same bytes to every page, a
    bounded number per loop iteration."""

    def __init__(self, waves: Waves | None = None) -> None:
        self.watchers = 0
        self.version = 0
        self.full = b""  # the whole state: a watcher's first event, or after it skipped one
        self.delta = b""  # only what changed since the version before
        self.mark = ""  # the state version the payload shows
        self._framed = (b"", b"")  # full and delta as chunks
        self._waves = waves or Waves()
        self._pages: dict[Watcher, None] = {}  # in the order they opened

    def publish(self, full: bytes, delta: bytes, mark: str) -> bool:
        """A new event (``False``: the pages have it already)."""
        if mark == self.mark:
            return False
        self.mark = mark
        self.full, self.delta = full, delta
        self._framed = (chunk(full), chunk(delta))
        self.version += 1
        self.poke()
        return True

    def state(self) -> tuple[bytes, bytes] | None:
        """The newest event, whole and as new steps (``None``: none yet)."""
        return (self.full, self.delta) if self.version else None

    def poke(self) -> None:
        """Bring every page up to date, in waves (a publish, or a keep-alive with nothing
        new: then the pages that have the newest event get a comment)."""
        if self._pages:
            self._waves.add(self, self._pages)

    def add(self, watcher: Watcher) -> None:
        self._pages[watcher] = None

    def remove(self, watcher: Watcher) -> None:
        self._pages.pop(watcher, None)

    def payload_after(self, seen: int) -> bytes:
        """What a watcher that has seen version ``seen`` needs now."""
        return self.delta if seen and seen == self.version - 1 else self.full

    def deliver(self, watcher: Watcher) -> None:
        """Write what ``watcher`` lacks (or a keep-alive) straight to its connection, or
        wake its task when that cannot be done at once."""
        if watcher.busy or watcher.over or watcher not in self._pages:
            return  # its task is writing and catches up by itself, or it has ended
        transport = watcher.transport
        direct = (
            watcher.chunked
            and transport is not None
            and not transport.is_closing()
            and transport.get_write_buffer_size() <= BEHIND_BYTES
        )
        if watcher.seen == self.version:
            if direct:
                transport.write(chunk(KEEP_ALIVE))
            else:
                watcher.ping = True
                watcher.wake()
            return
        if not direct:
            watcher.wake()  # behind: its task writes with aiohttp's back-pressure
            return
        skipped = watcher.seen != self.version - 1 or not watcher.seen
        payload = self.full if skipped else self.delta
        transport.write(self._framed[0] if skipped else self._framed[1])
        watcher.seen = self.version
        if payload.startswith(OVER):
            watcher.over = True
            watcher.wake()  # its task ends the stream


class Hub:
    """The games being watched and their channels."""

    def __init__(
        self,
        build: Callable[[int], Any],
        limits: Limits | None = None,
        *,
        poll_s: float | None = None,
        wave: int = WAVE,
        yield_to: Callable[[], bool] | None = None,
    ) -> None:
        # build(game_id) -> awaitable (full bytes, delta bytes, mark): a game's event;
        # yield_to() -> True while a player's command runs (``Waves``)
        self._build = build
        self.limits = limits or Limits()
        self.channels: dict[int, Channel] = {}
        self.waves = Waves(wave, yield_to)
        self.total = 0
        self._addresses: dict[str, int] = {}
        self._refreshing: dict[int, asyncio.Task[None]] = {}
        self._again: set[int] = set()
        self._poll_s = poll_s
        self._poller: asyncio.Task[None] | None = None
        self._keeper: asyncio.Task[None] | None = None
        self.keep_alive_s = KEEP_ALIVE_S
        self.commits_seen = 0
        # the process that writes the pages it was handed (``bot.web.relay``); its pages
        # are counted here all the same, and get every event through it
        self.relay: Relay | None = None
        self.closed = False

    # ----- the service's hook ---------------------------------------------------

    def row_committed(self, row: Any) -> None:
        """``GameService.add_row_listener``'s listener: runs inside the service's command,
        after its commit, so it only notes the game and returns (it never raises)."""
        try:
            game_id = int(row.id)
            if game_id in self.channels and not self.closed:
                self.commits_seen += 1
                self.refresh(game_id)
        except Exception:  # a listener must never break the command that called it
            log.exception("the web hub could not take a commit")

    def refresh(self, game_id: int) -> None:
        """Read the game again and publish the event, once at a time per game (a commit
        during a read reads again after it)."""
        if game_id in self._refreshing:
            self._again.add(game_id)
            return
        task = asyncio.get_running_loop().create_task(self._refresh(game_id))
        self._refreshing[game_id] = task

    async def _refresh(self, game_id: int) -> None:
        try:
            while True:
                self._again.discard(game_id)
                channel = self.channels.get(game_id)
                if channel is None:
                    return
                try:
                    full, delta, mark = await self._build(game_id)
                except ServiceError as error:
                    log.warning("game %s: no live event (%s)", game_id, error)
                    return
                if channel.publish(full, delta, mark) and self.relay is not None:
                    self.relay.publish(game_id, full, delta)
                if game_id not in self._again:
                    return
        except Exception:
            log.exception("game %s: the live event failed", game_id)
        finally:
            self._refreshing.pop(game_id, None)

    # ----- watchers -------------------------------------------------------------

    def join(self, game_id: int, address: str) -> Channel:
        """A new live page of ``game_id``; ``Busy`` past a bound."""
        limits = self.limits
        if self.total >= limits.total:
            raise Busy("this server has too many live pages open; try again later")
        if self._addresses.get(address, 0) >= limits.per_address:
            raise Busy("too many live pages are open from your address")
        channel = self.channels.get(game_id)
        if channel is not None and channel.watchers >= limits.per_game:
            raise Busy("this game has too many live pages open; reload it later")
        if channel is None:
            channel = self.channels[game_id] = Channel(self.waves)
        channel.watchers += 1
        self.total += 1
        self._addresses[address] = self._addresses.get(address, 0) + 1
        return channel

    def leave(self, game_id: int, address: str, channel: Channel) -> None:
        channel.watchers -= 1
        self.total -= 1
        left = self._addresses.get(address, 1) - 1
        if left > 0:
            self._addresses[address] = left
        else:
            self._addresses.pop(address, None)
        if channel.watchers <= 0 and self.channels.get(game_id) is channel:
            del self.channels[game_id]

    # ----- another process's moves ------------------------------------------------

    def start(self) -> None:
        loop = asyncio.get_running_loop()
        if self._keeper is None:
            self._keeper = loop.create_task(self._keep_alive())
        if self._poll_s is not None and self._poller is None:
            self._poller = loop.create_task(self._poll())

    async def stop(self) -> None:
        self.closed = True
        tasks = list(self._refreshing.values())
        for task in (self._poller, self._keeper):
            if task is not None:
                tasks.append(task)
        self._poller = self._keeper = None
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await self.waves.stop()

    async def _keep_alive(self) -> None:
        """Every open page gets a comment now and then, so that proxies keep it open."""
        while True:
            await asyncio.sleep(self.keep_alive_s)
            for channel in list(self.channels.values()):
                channel.poke()

    async def _poll(self) -> None:
        assert self._poll_s is not None
        while True:
            await asyncio.sleep(self._poll_s)
            for game_id in list(self.channels):
                self.refresh(game_id)
