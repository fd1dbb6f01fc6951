"""Per-server settings, their log, and per-user preferences in the store (issue 27).

- ``guild_settings``: a server's settings as one JSON object, holding only what a
  moderator set (``bot.service.settings`` fills in the operator's defaults);
- ``settings_log``: every change, append-only (triggers refuse an update or a delete):
  who changed which setting, from what to what, and when;
- ``user_prefs``: a user's board preferences as one JSON object.

The SQL is shared by both stores (``?`` marks; PostgreSQL's store numbers them), as
``storage.outbox`` and ``storage.standings`` are.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class SettingChange:
    """One entry of a server's settings log. ``old``/``new`` are the values as stored
    (``None``: the operator's default)."""

    id: int
    guild_id: int
    actor_id: int
    name: str
    old: Any
    new: Any
    created_at: str


GUILD_SETTINGS_SQL = "SELECT settings FROM guild_settings WHERE guild_id = ?"
SAVE_GUILD_SQL = (
    "INSERT INTO guild_settings (guild_id, settings, updated_by, updated_at) VALUES (?, ?, ?, ?) "
    "ON CONFLICT (guild_id) DO UPDATE SET settings = excluded.settings, "
    "updated_by = excluded.updated_by, updated_at = excluded.updated_at"
)
LOG_SQL = (
    "INSERT INTO settings_log (guild_id, actor_id, name, old, new, created_at) "
    "VALUES (?, ?, ?, ?, ?, ?)"
)
READ_LOG_SQL = (
    "SELECT id, guild_id, actor_id, name, old, new, created_at FROM settings_log "
    "WHERE guild_id = ? ORDER BY id DESC LIMIT ?"
)
USER_PREFS_SQL = "SELECT prefs FROM user_prefs WHERE user_id = ?"
SAVE_PREFS_SQL = (
    "INSERT INTO user_prefs (user_id, prefs, updated_at) VALUES (?, ?, ?) "
    "ON CONFLICT (user_id) DO UPDATE SET prefs = excluded.prefs, updated_at = excluded.updated_at"
)


def _dump(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def _maybe(value: Any) -> str | None:
    return None if value is None else _dump(value)


def _load(text: Any) -> Any:
    return None if text is None else json.loads(text)


class SettingsReads:
    """Settings reads, on the repository (a committed snapshot) and in a transaction."""

    async def _rows(self, sql: str, params: tuple[Any, ...] = ()) -> list[Any]:
        raise NotImplementedError

    async def guild_settings(self, guild_id: int) -> dict[str, Any] | None:
        """The settings a server's moderators set, or ``None`` if they never did."""
        rows = await self._rows(GUILD_SETTINGS_SQL, (guild_id,))
        return dict(json.loads(rows[0][0])) if rows else None

    async def settings_log(self, guild_id: int, limit: int = 20) -> list[SettingChange]:
        """A server's latest setting changes, the newest first."""
        rows = await self._rows(READ_LOG_SQL, (guild_id, max(1, limit)))
        return [
            SettingChange(
                int(r[0]), int(r[1]), int(r[2]), str(r[3]), _load(r[4]), _load(r[5]), str(r[6])
            )
            for r in rows
        ]

    async def user_prefs(self, user_id: int) -> dict[str, Any] | None:
        """A user's board preferences, or ``None`` if they never set any."""
        rows = await self._rows(USER_PREFS_SQL, (user_id,))
        return dict(json.loads(rows[0][0])) if rows else None


class SettingsWrites(SettingsReads):
    """Settings writes inside one write transaction."""

    _now: Callable[[], str]

    async def save_guild_settings(
        self,
        guild_id: int,
        settings: dict[str, Any],
        actor_id: int,
        changes: Sequence[tuple[str, Any, Any]],
    ) -> None:
        """Store a server's settings and log each ``(name, old, new)`` change, in this
        transaction: the settings change if and only if their log entries are written."""
        now = self._now()
        await self._rows(SAVE_GUILD_SQL, (guild_id, _dump(settings), actor_id, now))
        for name, old, new in changes:
            await self._rows(LOG_SQL, (guild_id, actor_id, name, _maybe(old), _maybe(new), now))

    async def save_user_prefs(self, user_id: int, prefs: dict[str, Any]) -> None:
        await self._rows(SAVE_PREFS_SQL, (user_id, _dump(prefs), self._now()))
