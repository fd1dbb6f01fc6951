"""Which servers list their live games on the web (``/settings web-list on``, issue 28).

Kept in a small JSON file beside the store (``<db>.web-list.json``): a sorted list of
server ids. ``set_listed`` is what the Discord ``/settings web-list`` command calls
(moderators only: the caller checks); ``is_listed`` is what the live games page asks.
Nothing is listed unless a server said so. (A store table could replace the file later:
the web server only needs an ``is_listed(guild_id)`` coroutine, ``bot.web.app.Site``.)
"""

from __future__ import annotations

import asyncio
import json
import os
import tempfile
from pathlib import Path

from bot.web.links import DB_VAR, DEFAULT_DB

SUFFIX = ".web-list.json"


def listing_path(db: str | os.PathLike[str] | None) -> Path:
    name = str(db) if db is not None else os.environ.get(DB_VAR) or DEFAULT_DB
    if "://" in name:
        return Path("chessgarden" + SUFFIX)
    return Path(name + SUFFIX)


class WebList:
    """The servers that opted in, read again when the file changes."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = asyncio.Lock()
        self._seen: tuple[float, set[int]] | None = None

    def _read(self) -> set[int]:
        try:
            stamp = self.path.stat().st_mtime
        except FileNotFoundError:
            return set()
        if self._seen is not None and self._seen[0] == stamp:
            return self._seen[1]
        try:
            data = json.loads(self.path.read_text())
            ids = {int(x) for x in data if isinstance(x, int) and not isinstance(x, bool)}
        except (OSError, ValueError, TypeError):
            ids = set()  # unreadable: list nothing rather than too much
        self._seen = (stamp, ids)
        return ids

    async def is_listed(self, guild_id: int) -> bool:
        return guild_id in self._read()

    async def listed(self) -> set[int]:
        return set(self._read())

    async def set_listed(self, guild_id: int, on: bool) -> None:
        """List (``on``) or stop listing a server's live games."""
        if isinstance(guild_id, bool) or not isinstance(guild_id, int) or guild_id <= 0:
            raise ValueError("a server id is a positive whole number")
        async with self._lock:
            ids = set(self._read())
            if on:
                ids.add(guild_id)
            else:
                ids.discard(guild_id)
            directory = self.path.parent if str(self.path.parent) else Path(".")
            fd, temporary = tempfile.mkstemp(dir=directory, prefix=".web-list.")
            with os.fdopen(fd, "w") as out:
                json.dump(sorted(ids), out)
            os.replace(temporary, self.path)
            self._seen = None
