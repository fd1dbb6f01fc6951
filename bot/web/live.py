"""Live pages: server-sent events, fanned out per game (issue 28).

The service tells the hub of each committed change (``add_row_listener``). The hub reads
the game once (``GameStates``), turns it into one event, and every open page of that
game is woken to send the same bytes: the work per move does not grow with the watchers,
only the writes do. A watcher that falls behind skips to the newest event (each event
holds the whole move list). Connections are bounded per game, per address and in total.

A web server in another process than the one that moves (``chessgarden web`` beside a
console game) sees no commits: ``poll_s`` then makes the hub look at the watched games'
state every few seconds (one read per watched game, never one per watcher).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bot.service import ServiceError

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Limits:
    per_game: int = 1024  # open live pages of one game
    per_address: int = 64  # open live pages from one address
    total: int = 8192  # open live pages in all


class Busy(Exception):
    """Too many live pages already; one line saying which bound."""


class Channel:
    """The newest event of one game, and a wake-up for its watchers."""

    def __init__(self) -> None:
        self.watchers = 0
        self.version = 0
        self.payload = b""
        self.mark = ""  # the state version the payload shows
        self._changed = asyncio.Event()

    def publish(self, payload: bytes, mark: str) -> None:
        if mark == self.mark:
            return
        self.mark = mark
        self.payload = payload
        self.version += 1
        changed, self._changed = self._changed, asyncio.Event()
        changed.set()

    async def wait(self, seen: int, timeout: float) -> bool:
        """True when there is an event newer than ``seen``; False after ``timeout``."""
        if self.version != seen:
            return True
        changed = self._changed
        try:
            await asyncio.wait_for(changed.wait(), timeout)
        except TimeoutError:
            return False
        return True


class Hub:
    """The games being watched and their channels."""

    def __init__(
        self,
        build: Callable[[int], Any],
        limits: Limits | None = None,
        *,
        poll_s: float | None = None,
    ) -> None:
        # build(game_id) -> awaitable (payload bytes, mark): the event a game's page needs
        self._build = build
        self.limits = limits or Limits()
        self.channels: dict[int, Channel] = {}
        self.total = 0
        self._addresses: dict[str, int] = {}
        self._refreshing: dict[int, asyncio.Task[None]] = {}
        self._again: set[int] = set()
        self._poll_s = poll_s
        self._poller: asyncio.Task[None] | None = None
        self.commits_seen = 0
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
                    payload, mark = await self._build(game_id)
                except ServiceError as error:
                    log.warning("game %s: no live event (%s)", game_id, error)
                    return
                channel.publish(payload, mark)
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
            channel = self.channels[game_id] = Channel()
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
        if self._poll_s is not None and self._poller is None:
            self._poller = asyncio.get_running_loop().create_task(self._poll())

    async def stop(self) -> None:
        self.closed = True
        tasks = list(self._refreshing.values())
        if self._poller is not None:
            tasks.append(self._poller)
            self._poller = None
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def _poll(self) -> None:
        assert self._poll_s is not None
        while True:
            await asyncio.sleep(self._poll_s)
            for game_id in list(self.channels):
                self.refresh(game_id)
