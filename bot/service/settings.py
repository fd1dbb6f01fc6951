"""Per-server settings and per-user board preferences (issue 27): a service component.

A server's moderators set (``/settings`` on Discord):

- ``days``: the days per move a challenge gets when none is chosen (0: no time limit);
- ``threads``: whether games may get threads of their own;
- ``rated``: whether a challenge is rated when nobody says;
- ``channels``: the channels where games may start (none: everywhere);
- ``tournament_role``: the role that may run tournaments (kept for issue 30);
- ``max_challenges``: open challenges per user at once;
- ``threads_per_hour``: new game threads per channel in any hour;
- ``web_list``: whether the server's live games are listed on its web page (issue 28;
  off unless a moderator turns it on: a game is otherwise reachable by its link only);
- ``max_tournaments``: tournaments in registration or running at once (issue 30);
- ``tournament_players``: players a tournament takes at most (issue 30).

Whatever a server has not set is the operator's default (``SettingDefaults``: the
environment variables of ``bot.discord.app.Settings``). Every change is stored with a
log entry per setting changed (who, from what, to what, when), in one transaction.

A user sets their boards' ``theme`` (classic or high-contrast) and ``orientation``
(White at the bottom, or the side to act). Reads are cached for ``CACHE_S`` seconds:
another process sharing the store sees a change within that time.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field, replace
from typing import Any

from bot.i18n import said
from bot.service.clock import MAX_DAYS, MIN_DAYS
from bot.service.core import check_id
from bot.service.errors import InvalidInput
from storage import Repository, SettingChange, WriteTx

CACHE_S = 30.0
MAX_CHANNELS = 25
MAX_CHALLENGES_LIMIT = 25
MAX_THREADS_LIMIT = 100
MAX_TOURNAMENTS_LIMIT = 20
MAX_TOURNAMENT_PLAYERS_LIMIT = 500
THEMES = ("classic", "high-contrast")
ORIENTATIONS = ("white", "mover")
NAMES = (
    "days",
    "threads",
    "rated",
    "channels",
    "tournament_role",
    "max_challenges",
    "threads_per_hour",
    "web_list",
    "max_tournaments",
    "tournament_players",
)


@dataclass(frozen=True)
class SettingDefaults:
    """The operator's defaults: what a server has not set."""

    days: int = 3
    threads: bool = True
    rated: bool = True
    max_challenges: int = 3
    threads_per_hour: int = 10
    max_tournaments: int = 3
    tournament_players: int = 64


@dataclass(frozen=True)
class GuildSettings:
    """A server's settings in force. ``days`` 0 means no time limit; ``channels`` empty
    means games may start anywhere. ``chosen``: the names a moderator set (the rest are
    the defaults)."""

    days: int
    threads: bool
    rated: bool
    channels: tuple[int, ...]
    tournament_role: int | None
    max_challenges: int
    threads_per_hour: int
    web_list: bool = False
    max_tournaments: int = 3
    tournament_players: int = 64
    chosen: frozenset[str] = frozenset()

    def allows_games_in(self, *channel_ids: int | None) -> bool:
        """May a game start in this channel (or, for a thread, its parent)?"""
        if not self.channels:
            return True
        return any(c in self.channels for c in channel_ids if c is not None)


@dataclass(frozen=True)
class UserPrefs:
    """A user's board preferences; ``None``: not chosen (the classic theme, and each
    board's own orientation)."""

    theme: str | None = None
    orientation: str | None = None


@dataclass(frozen=True)
class SettingsChanged:
    """What ``change`` did: the settings now, and each ``(name, old, new)`` changed."""

    settings: GuildSettings
    changes: tuple[tuple[str, Any, Any], ...] = ()


@dataclass
class _Cached:
    value: Any
    at: float = field(default_factory=time.monotonic)


def _check_value(name: str, value: Any) -> Any:
    """The stored form of ``value`` for setting ``name``, or ``InvalidInput``."""
    if name in ("threads", "rated", "web_list"):
        if not isinstance(value, bool):
            raise InvalidInput(said("{name} must be true or false", name=name))
        return value
    if name == "channels":
        ids = tuple(dict.fromkeys(check_id(c, "a channel id") for c in value))
        if len(ids) > MAX_CHANNELS:
            raise InvalidInput(said("at most {n} channels can be listed", n=MAX_CHANNELS))
        return list(ids)
    if name == "tournament_role":
        return check_id(value, "the role id")
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidInput(said("{name} must be a whole number", name=name))
    low, high = {
        "days": (0, MAX_DAYS),
        "max_challenges": (1, MAX_CHALLENGES_LIMIT),
        "threads_per_hour": (1, MAX_THREADS_LIMIT),
        "max_tournaments": (1, MAX_TOURNAMENTS_LIMIT),
        "tournament_players": (2, MAX_TOURNAMENT_PLAYERS_LIMIT),
    }[name]
    if name == "days" and value != 0 and value < MIN_DAYS:
        raise InvalidInput(
            said("days must be 0 (no time limit) or {low} to {high}", low=MIN_DAYS, high=MAX_DAYS)
        )
    if not low <= value <= high:
        raise InvalidInput(
            said("{name} must be from {low} to {high}", name=name, low=low, high=high)
        )
    return value


def settings_from(stored: Mapping[str, Any] | None, defaults: SettingDefaults) -> GuildSettings:
    """A server's settings in force: what it set, over the defaults."""
    stored = stored or {}
    return GuildSettings(
        days=int(stored.get("days", defaults.days)),
        threads=bool(stored.get("threads", defaults.threads)),
        rated=bool(stored.get("rated", defaults.rated)),
        channels=tuple(int(c) for c in stored.get("channels", ())),
        tournament_role=stored.get("tournament_role"),
        max_challenges=int(stored.get("max_challenges", defaults.max_challenges)),
        threads_per_hour=int(stored.get("threads_per_hour", defaults.threads_per_hour)),
        web_list=bool(stored.get("web_list", False)),
        max_tournaments=int(stored.get("max_tournaments", defaults.max_tournaments)),
        tournament_players=int(stored.get("tournament_players", defaults.tournament_players)),
        chosen=frozenset(n for n in stored if n in NAMES),
    )


class ServerSettings:
    """Settings per server and preferences per user, over the store's reads and a
    write-transaction opener."""

    def __init__(
        self,
        repo: Repository,
        write: Callable[[], AbstractAsyncContextManager[WriteTx]],
        defaults: SettingDefaults,
        *,
        cache_s: float = CACHE_S,
    ) -> None:
        self._repo = repo
        self._write = write
        self.defaults = defaults
        self.cache_s = cache_s
        self._guilds: dict[int, _Cached] = {}
        self._prefs: dict[int, _Cached] = {}

    def _fresh(self, cache: dict[int, _Cached], key: int) -> _Cached | None:
        hit = cache.get(key)
        if hit is None or time.monotonic() - hit.at > self.cache_s:
            return None
        return hit

    # ----- servers ---------------------------------------------------------------

    async def stored(self, guild_id: int) -> dict[str, Any]:
        hit = self._fresh(self._guilds, guild_id)
        if hit is None:
            hit = _Cached(await self._repo.guild_settings(guild_id) or {})
            self._guilds[guild_id] = hit
        return dict(hit.value)

    async def of_guild(self, guild_id: int | None) -> GuildSettings:
        """The settings in force in a server (the defaults outside one)."""
        if guild_id is None:
            return settings_from(None, self.defaults)
        return settings_from(await self.stored(guild_id), self.defaults)

    async def chosen(self, guild_id: int | None, name: str) -> Any:
        """The value a server's moderators chose for ``name``; ``None`` if they did not
        (then the caller's own default holds)."""
        if guild_id is None:
            return None
        return (await self.stored(guild_id)).get(name)

    async def change(
        self,
        *,
        guild_id: int,
        actor_id: int,
        values: Mapping[str, Any] | None = None,
        reset: Iterable[str] = (),
        add_channels: Iterable[int] = (),
        remove_channels: Iterable[int] = (),
    ) -> SettingsChanged:
        """Set ``values`` (by name), return ``reset`` ones to their defaults, and add or
        remove channels where games may start; stored with one log entry per setting
        that changed. The caller has checked that ``actor_id`` may (a moderator)."""
        guild_id = check_id(guild_id, "the guild id")
        actor_id = check_id(actor_id, "the user id")
        values = dict(values or {})
        unknown = [n for n in (*values, *reset) if n not in NAMES]
        if unknown:
            raise InvalidInput(
                said(
                    "there is no setting {name}; the settings are {names}",
                    name=repr(unknown[0]),
                    names=", ".join(NAMES),
                )
            )
        checked = {name: _check_value(name, value) for name, value in values.items()}
        added = [check_id(c, "a channel id") for c in add_channels]
        removed = {check_id(c, "a channel id") for c in remove_channels}
        async with self._write() as tx:
            before = await tx.guild_settings(guild_id) or {}
            after = dict(before)
            for name in reset:
                after.pop(name, None)
            after.update(checked)
            if added or removed:
                channels = [c for c in after.get("channels", ()) if c not in removed]
                channels += [c for c in added if c not in channels]
                after["channels"] = _check_value("channels", channels)
                if not after["channels"]:
                    after.pop("channels")
            changes = tuple(
                (name, before.get(name), after.get(name))
                for name in NAMES
                if before.get(name) != after.get(name)
            )
            if changes:
                await tx.save_guild_settings(guild_id, after, actor_id, changes)
        self._guilds[guild_id] = _Cached(after)
        return SettingsChanged(settings_from(after, self.defaults), changes)

    async def log(self, guild_id: int, limit: int = 20) -> list[SettingChange]:
        """The server's latest changes, the newest first."""
        return await self._repo.settings_log(check_id(guild_id, "the guild id"), limit)

    # ----- users ------------------------------------------------------------------

    async def prefs(self, user_id: int) -> UserPrefs:
        hit = self._fresh(self._prefs, user_id)
        if hit is None:
            stored = await self._repo.user_prefs(user_id) or {}
            hit = _Cached(
                UserPrefs(theme=stored.get("theme"), orientation=stored.get("orientation"))
            )
            self._prefs[user_id] = hit
        prefs: UserPrefs = hit.value
        return prefs

    async def set_prefs(
        self, *, user_id: int, theme: str | None = None, orientation: str | None = None
    ) -> UserPrefs:
        """Change a user's theme and/or orientation (``None``: leave it)."""
        user_id = check_id(user_id, "the user id")
        if theme is not None and theme not in THEMES:
            raise InvalidInput(said("the theme must be one of: {themes}", themes=", ".join(THEMES)))
        if orientation is not None and orientation not in ORIENTATIONS:
            raise InvalidInput(
                said("the orientation must be one of: {choices}", choices=", ".join(ORIENTATIONS))
            )
        async with self._write() as tx:
            stored = await tx.user_prefs(user_id) or {}
            prefs = replace(
                UserPrefs(stored.get("theme"), stored.get("orientation")),
                **{k: v for k, v in (("theme", theme), ("orientation", orientation)) if v},
            )
            await tx.save_user_prefs(
                user_id, {k: v for k, v in vars(prefs).items() if v is not None}
            )
        self._prefs[user_id] = _Cached(prefs)
        return prefs

    async def board_orientation(self, user_id: int | None) -> str | None:
        """The side at the bottom of the public boards of the games ``user_id`` started:
        ``"white"`` if they chose White; ``None`` (the side to act) if they chose "mover"
        or nothing, as every public board faces the side to act by default."""
        if user_id is None:
            return None
        return "white" if (await self.prefs(user_id)).orientation == "white" else None

    async def board_theme(self, user_id: int | None) -> str | None:
        """The theme of boards drawn for ``user_id`` (``None``: the classic one)."""
        if user_id is None:
            return None
        theme = (await self.prefs(user_id)).theme
        return None if theme in (None, "classic") else theme
