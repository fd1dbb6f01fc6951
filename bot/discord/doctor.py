"""``chessgarden doctor [--db PATH] [--health]``: is this bot set up to run for months?

One line per check, ``ok``, ``warn``, ``FAIL`` or ``skip``, then a sentence:

- **settings**: the environment as ``chessgarden run`` reads it (``Settings.from_env``);
- **store**: the store opens, read-only (nothing is created or migrated), at this code's
  schema version; for SQLite, its quick check passes;
- **disk**: free space where the SQLite file lives (a backup or a ``VACUUM`` needs as
  much again as the file);
- **heartbeat**: with ``CHESSGARDEN_HEARTBEAT`` (``bot.service.health``), the running bot beat
  recently;
- **discord**: with a token, the bot's permissions in each server's game channels (the
  channels and threads of live games), asked of Discord's REST API through discord.py's
  ``HTTPClient``; without a token, skipped.

``--health`` is the Docker image's ``HEALTHCHECK``: the cheap checks only (no quick check,
no Discord), and a missing or stale heartbeat is a failure, not a warning.

Exit status: 0 nothing failed (warnings allowed); 1 a check failed; 2 a usage error.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

EXIT_OK = 0
EXIT_FAILED = 1
MIB = 1024 * 1024
FAIL_BELOW = 64 * MIB  # writes will soon fail: players would see "the disk is full"
WARN_BELOW = 1024 * MIB
MAX_GUILDS = 50  # servers with live games checked in one run (each costs a few requests)
THREAD_TYPES = (10, 11, 12)  # Discord channel types of threads
PERMISSION_ALIASES = {"read_messages": "view_channel"}  # discord.py's two names for one bit


@dataclass(frozen=True)
class Check:
    label: str  # "ok", "warn", "FAIL" or "skip"
    name: str
    text: str

    @property
    def line(self) -> str:
        return f"{self.label:<4}  {self.name}: {self.text}"


def add_subcommands(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "doctor",
        help="check the settings, the store, the disk and the bot's Discord permissions",
        description=(
            "Check what the bot needs to run: the settings, the store and its schema "
            "version, free disk space, the heartbeat, and (with DISCORD_TOKEN) the bot's "
            "permissions in every server's game channels. One line per check; exit 1 if "
            "one failed."
        ),
    )
    p.add_argument(
        "--db",
        default=None,
        metavar="PATH",
        help="SQLite file or postgresql:// URL (default: $CHESSGARDEN_DB or ./chessgarden.sqlite3)",
    )
    p.add_argument(
        "--health",
        action="store_true",
        help="the container health check: cheap checks only, and the heartbeat must be fresh",
    )
    p.set_defaults(func=main_doctor)


def main_doctor(args: argparse.Namespace) -> int:
    from bot.discord.app import DB_VAR

    env = dict(os.environ)
    if args.db is not None:
        env[DB_VAR] = args.db
    checks = asyncio.run(run_checks(env, health=args.health))
    for check in checks:
        print(check.line, flush=True)
    return EXIT_FAILED if any(c.label == "FAIL" for c in checks) else EXIT_OK


async def run_checks(env: Mapping[str, str], *, health: bool = False) -> list[Check]:
    from bot.discord.app import DB_VAR, Settings, SettingsError
    from storage import DEFAULT_DB_PATH

    checks: list[Check] = []
    settings = None
    try:
        settings = Settings.from_env(env)
    except SettingsError as error:
        checks.append(Check("FAIL", "settings", f"{error}."))
    if settings is not None:
        checks.append(settings_check(settings))
    target = (env.get(DB_VAR) or "").strip() or DEFAULT_DB_PATH
    store, facts = await store_check(target, thorough=not health)
    checks.append(store)
    checks.append(disk_check(target, facts))
    checks.append(heartbeat_check(env, health=health))
    if health:
        checks.append(Check("skip", "discord", "not checked by --health."))
    elif settings is None:
        checks.append(Check("skip", "discord", "not checked: the settings are not valid."))
    elif settings.token is None:
        checks.append(Check("skip", "discord", "not checked: DISCORD_TOKEN is not set."))
    else:
        channels = facts.channels if facts is not None else ()
        checks.extend(await discord_checks(settings.token, channels))
    return checks


def settings_check(settings: Any) -> Check:
    shards = settings.shards
    where = "one unsharded connection"
    if shards is not None:
        where = f"shards {', '.join(map(str, shards.ids))} of {shards.count}"
    if settings.token is None:
        return Check(
            "warn",
            "settings",
            f"DISCORD_TOKEN is not set, so `chessgarden run` cannot start ({where}).",
        )
    return Check("ok", "settings", f"the token is set; the bot would run {where}.")


# ----- the store and the disk ---------------------------------------------------------------


async def store_check(target: str, *, thorough: bool) -> tuple[Check, Any]:
    from storage import StoreOpenError, is_postgres_url
    from storage.maintenance import probe_postgres, probe_sqlite

    postgres = is_postgres_url(target)
    try:
        if postgres:
            facts = await probe_postgres(target, thorough=thorough)
        else:
            loop = asyncio.get_running_loop()
            facts = await loop.run_in_executor(
                None, lambda: probe_sqlite(target, thorough=thorough)
            )
    except StoreOpenError as error:
        return Check("FAIL", "store", f"{error}."), None
    kind = "PostgreSQL database" if postgres else "SQLite file"
    if facts.version is None:
        if not postgres:
            folder = Path(target).parent
            if not folder.is_dir():
                text = f"the folder {folder} does not exist, so the bot cannot create {target}."
                return Check("FAIL", "store", text), facts
            if not os.access(folder, os.W_OK):
                text = f"the folder {folder} is not writable, so the bot cannot create {target}."
                return Check("FAIL", "store", text), facts
        text = f"there is no store at {facts.shown} yet; the bot sets it up when it first starts."
        return Check("warn", "store", text), facts
    if facts.version > facts.latest:
        text = (
            f"the {kind} {facts.shown} was written by a newer Chess Garden (schema version "
            f"{facts.version}; this one knows up to {facts.latest}); upgrade Chess Garden."
        )
        return Check("FAIL", "store", text), facts
    if facts.integrity not in (None, "ok"):
        text = f"SQLite's quick check of {facts.shown} found damage: {facts.integrity}."
        return Check("FAIL", "store", text), facts
    if facts.version < facts.latest:
        text = (
            f"the {kind} {facts.shown} has schema version {facts.version}; the bot migrates it "
            f"to {facts.latest} when it next starts (back it up first)."
        )
        return Check("warn", "store", text), facts
    checked = ", quick check passed" if facts.integrity == "ok" else ""
    live = f", live games in {len(facts.channels)} Discord channels" if thorough else ""
    text = f"the {kind} {facts.shown} opens at schema version {facts.version}{checked}{live}."
    return Check("ok", "store", text), facts


def disk_check(target: str, facts: Any) -> Check:
    from storage import is_postgres_url

    if is_postgres_url(target):
        return Check("skip", "disk", "the store is PostgreSQL: watch the database server's disk.")
    folder = Path(target).parent
    if not folder.is_dir():
        return Check("skip", "disk", f"the folder {folder} does not exist.")
    try:
        free = shutil.disk_usage(folder).free
    except OSError as error:
        return Check("FAIL", "disk", f"cannot read the free space of {folder}: {error.strerror}.")
    size = (facts.size_bytes if facts is not None else None) or 0
    said = f"{free / MIB:,.0f} MB free in {folder}"
    if free < FAIL_BELOW:
        return Check("FAIL", "disk", f"only {said}; moves will soon fail to save.")
    if free < max(WARN_BELOW, size):
        need = "the database's size" if size > WARN_BELOW else "1 GB"
        return Check("warn", "disk", f"only {said}, less than {need} (room for a backup).")
    return Check("ok", "disk", f"{said}.")


def heartbeat_check(env: Mapping[str, str], *, health: bool) -> Check:
    from bot.service.health import HEARTBEAT_VAR, STALE_AFTER, age, heartbeat_path

    path = heartbeat_path(env)
    if path is None:
        return Check("skip", "heartbeat", f"{HEARTBEAT_VAR} is not set (the Docker image sets it).")
    bad = "FAIL" if health else "warn"
    seconds = age(path)
    if seconds is None:
        return Check(bad, "heartbeat", f"no heartbeat at {path}: the bot is not running.")
    if seconds > STALE_AFTER:
        text = f"the last heartbeat is {seconds:.0f} s old: the bot is stuck or stopped."
        return Check(bad, "heartbeat", text)
    return Check("ok", "heartbeat", f"the bot beat {seconds:.0f} s ago.")


# ----- Discord ------------------------------------------------------------------------------


def needed_permissions(*, thread: bool) -> Any:
    """What the bot needs where a game lives: in a channel, what the invite asks for
    (``invite_permissions``) and to see it; in a thread (checked on its parent), to see,
    to post in threads, embeds and files."""
    import discord

    from bot.discord.app import invite_permissions

    if thread:
        return discord.Permissions(
            view_channel=True, send_messages_in_threads=True, embed_links=True, attach_files=True
        )
    return invite_permissions() | discord.Permissions(view_channel=True)


def channel_permissions(
    guild: Mapping[str, Any], member: Mapping[str, Any], channel: Mapping[str, Any], user_id: int
) -> Any:
    """The member's permissions in the channel, from Discord's payloads, as Discord computes
    them: @everyone and the member's roles, Administrator, then the channel's overwrites for
    @everyone, for the member's roles together, and for the member."""
    import discord

    guild_id = int(guild["id"])
    if int(guild.get("owner_id") or 0) == user_id:
        return discord.Permissions.all()
    roles = {int(r["id"]): int(r["permissions"]) for r in guild.get("roles", [])}
    mine = {int(r) for r in member.get("roles", [])}
    value = roles.get(guild_id, 0)
    for role in mine:
        value |= roles.get(role, 0)
    perms = discord.Permissions(value)
    if perms.administrator:
        return discord.Permissions.all()
    overwrites = {int(o["id"]): o for o in channel.get("permission_overwrites", [])}
    everyone = overwrites.get(guild_id)
    if everyone is not None:
        perms.handle_overwrite(allow=int(everyone["allow"]), deny=int(everyone["deny"]))
    allow = deny = 0
    for role in mine:
        o = overwrites.get(role)
        if o is not None and int(o.get("type", 0)) == 0:
            allow |= int(o["allow"])
            deny |= int(o["deny"])
    perms.handle_overwrite(allow=allow, deny=deny)
    own = overwrites.get(user_id)
    if own is not None and int(own.get("type", 1)) == 1:
        perms.handle_overwrite(allow=int(own["allow"]), deny=int(own["deny"]))
    return perms


def missing_words(have: Any, need: Any) -> str:
    """The needed permissions ``have`` lacks, in words ("" when none)."""
    from bot.discord.adapter import permission_words

    names: list[str] = []
    for name, wanted in need:
        name = PERMISSION_ALIASES.get(name, name)
        if wanted and not getattr(have, name) and name not in names:
            names.append(name)
    return permission_words(names)


async def discord_checks(
    token: str, channels: tuple[tuple[int, int], ...], *, http: Any = None
) -> list[Check]:
    """Log in over REST and check every server that has live games in the store."""
    import aiohttp
    import discord

    own = http is None
    if http is None:
        http = discord.http.HTTPClient(asyncio.get_running_loop())
    try:
        try:
            me = await http.static_login(token)
        except discord.LoginFailure:
            text = "Discord refused the token; reset it in the Developer Portal and set it again."
            return [Check("FAIL", "discord", text)]
        bot_id = int(me["id"])
        guilds = {int(g["id"]): g for g in await _all_guilds(http)}
        by_guild: dict[int, list[int]] = {}
        for guild_id, channel_id in channels:
            by_guild.setdefault(guild_id, []).append(channel_id)
        checks = [
            Check(
                "ok",
                "discord",
                f"logged in as {me.get('username', bot_id)} in {len(guilds)} servers; "
                f"{len(by_guild)} of them have live games.",
            )
        ]
        gone = sorted(set(by_guild) - set(guilds))
        if gone:
            checks.append(
                Check(
                    "warn",
                    "discord",
                    f"{len(gone)} servers with live games no longer have the bot "
                    f"({', '.join(map(str, gone[:5]))}); their games cannot be posted.",
                )
            )
        present = [g for g in sorted(by_guild) if g in guilds]
        for guild_id in present[:MAX_GUILDS]:
            checks.append(await _guild_check(http, bot_id, guilds[guild_id], by_guild[guild_id]))
        if len(present) > MAX_GUILDS:
            checks.append(
                Check("warn", "discord", f"{len(present) - MAX_GUILDS} more servers not checked.")
            )
        return checks
    except (discord.HTTPException, aiohttp.ClientError, TimeoutError) as error:
        said = " ".join(str(error).split()) or type(error).__name__
        return [Check("FAIL", "discord", f"cannot ask Discord: {said}.")]
    finally:
        if own:
            await http.close()


async def _all_guilds(http: Any) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    after = None
    while True:
        page = await http.get_guilds(200, after=after)
        found.extend(page)
        if len(page) < 200:
            return found
        after = int(page[-1]["id"])


async def _guild_check(
    http: Any, bot_id: int, listed: Mapping[str, Any], channel_ids: list[int]
) -> Check:
    import discord

    guild_id = int(listed["id"])
    name = f"{listed.get('name', guild_id)} ({guild_id})"
    guild = await http.get_guild(guild_id)
    member = await http.get_member(guild_id, bot_id)
    problems: list[str] = []
    for channel_id in channel_ids:
        try:
            channel = await http.get_channel(channel_id)
            thread = int(channel.get("type", 0)) in THREAD_TYPES
            place = await http.get_channel(int(channel["parent_id"])) if thread else channel
        except (discord.Forbidden, discord.NotFound) as error:
            problems.append(f"cannot see channel {channel_id} ({error.text or error.status})")
            continue
        have = channel_permissions(guild, member, place, bot_id)
        lacking = missing_words(have, needed_permissions(thread=thread))
        if lacking:
            where = f"#{channel.get('name', channel_id)} ({channel_id})"
            problems.append(f"lacks {lacking} in {where}")
    if problems:
        return Check("FAIL", "discord", f"in {name} the bot {'; '.join(problems)}.")
    return Check(
        "ok",
        "discord",
        f"in {name} the bot has what it needs in its {len(channel_ids)} game channels.",
    )
