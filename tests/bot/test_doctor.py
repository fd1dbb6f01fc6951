"""``chessgarden doctor`` (issue 24): one line per check, and each check's failure.

The Discord part talks to a recorded fake at the HTTP edge: ``HTTPClient.request`` is
replaced, as in the payload harness (``discord_fake.py``), so discord.py's own login,
guild, member and channel requests run and only the network is missing. The payloads
come from ``discord_payloads.py``.
"""

from __future__ import annotations

import asyncio
import os
import re
import sqlite3
import sys
import time
from collections import namedtuple
from pathlib import Path
from typing import Any

import discord
import pytest
from stores import raw

sys.path.insert(0, str(Path(__file__).parent))  # the payload helpers live beside this file
from discord_fake import http_error  # noqa: E402
from discord_payloads import (  # noqa: E402
    channel_payload,
    guild_payload,
    member_payload,
    overwrite,
    role_payload,
    thread_payload,
    user_payload,
)

from bot.cli import main  # noqa: E402
from bot.discord import doctor  # noqa: E402
from bot.discord.doctor import Check, run_checks  # noqa: E402
from bot.service import health
from storage import LATEST_VERSION, NewGame, open_repository  # noqa: E402

BOT, GUILD, ROLE, CHANNEL, THREAD, OTHER = 900, 700, 701, 710, 711, 712
P = discord.Permissions


def by_name(checks: list[Check]) -> dict[str, list[Check]]:
    found: dict[str, list[Check]] = {}
    for check in checks:
        found.setdefault(check.name, []).append(check)
    return found


async def store_with_games(path: str, locations: list[tuple[int | None, int]]) -> None:
    repo = await open_repository(path)
    try:
        async with repo.write() as tx:
            await tx.upsert_player(1, "one")
            for guild, location in locations:
                await tx.insert_game(NewGame(variant="guardener", options={},
                                             status="challenge", location_id=location,
                                             guild_id=guild, challenger_id=1, opponent_id=None,
                                             challenger_colour="white"))  # fmt: skip
    finally:
        await repo.close()


# ----- settings, store, disk, heartbeat ---------------------------------------------------------


async def test_a_sound_sqlite_store_passes_every_local_check(tmp_path: Path) -> None:
    db = str(tmp_path / "ok.sqlite3")
    await store_with_games(db, [(GUILD, CHANNEL), (None, 5)])
    checks = await run_checks({"CHESSGARDEN_DB": db})
    lines = [c.line for c in checks]
    assert [c.name for c in checks] == ["settings", "store", "disk", "heartbeat", "discord"]
    assert lines[0].startswith("warn  settings: DISCORD_TOKEN is not set")
    assert lines[1] == (
        f"ok    store: the SQLite file {db} opens at schema version {LATEST_VERSION}, "
        "quick check passed, live games in 1 Discord channels."
    )
    assert re.fullmatch(r"ok    disk: [\d,]+ MB free in .*\.", lines[2])
    assert lines[3].startswith("skip  heartbeat: CHESSGARDEN_HEARTBEAT is not set")
    assert lines[4] == "skip  discord: not checked: DISCORD_TOKEN is not set."


async def test_bad_settings_fail(tmp_path: Path) -> None:
    env = {"CHESSGARDEN_DB": str(tmp_path / "s.sqlite3"), "CHESSGARDEN_SHARDS": "two"}
    checks = by_name(await run_checks({**env, "DISCORD_TOKEN": "token"}))
    assert checks["settings"][0].line == (
        "FAIL  settings: CHESSGARDEN_SHARDS must be a whole number of at least 1, not 'two'."
    )
    assert checks["discord"][0].line == "skip  discord: not checked: the settings are not valid."


async def test_each_store_failure_is_one_line(tmp_path: Path) -> None:
    async def store(path: Path) -> Check:
        (check,) = by_name(await run_checks({"CHESSGARDEN_DB": str(path)}))["store"]
        return check

    damaged = tmp_path / "damaged.sqlite3"
    damaged.write_bytes(b"SQLite format 3\x00" + b"\xff" * 5000)
    check = await store(damaged)
    assert check.label == "FAIL" and "damaged" in check.text and "\n" not in check.text

    newer = tmp_path / "newer.sqlite3"
    await store_with_games(str(newer), [])
    raw(str(newer), f"PRAGMA user_version = {LATEST_VERSION + 1}")
    check = await store(newer)
    assert check.label == "FAIL" and "written by a newer Chess Garden" in check.text

    older = tmp_path / "older.sqlite3"
    await store_with_games(str(older), [])
    raw(str(older), f"PRAGMA user_version = {LATEST_VERSION - 1}")
    check = await store(older)
    assert check.label == "warn" and f"migrates it to {LATEST_VERSION}" in check.text

    # a page the quick check finds broken: an index that no longer matches its table
    broken = tmp_path / "broken.sqlite3"
    await store_with_games(str(broken), [(GUILD, n) for n in range(200)])
    with sqlite3.connect(broken) as conn:
        conn.execute("PRAGMA writable_schema = ON")
        (root,) = conn.execute(
            "SELECT rootpage FROM sqlite_master WHERE type = 'index' AND tbl_name = 'games' "
            "AND sql IS NOT NULL LIMIT 1"
        ).fetchone()
    page_size = raw(str(broken), "PRAGMA page_size")[0][0]
    with open(broken, "r+b") as f:  # zero the index's root page
        f.seek((root - 1) * page_size + 100)
        f.write(b"\x00" * 200)
    check = await store(broken)
    assert check.label == "FAIL" and "quick check" in check.text, check

    check = await store(tmp_path / "missing" / "x.sqlite3")
    assert check.line == (
        f"FAIL  store: the folder {tmp_path / 'missing'} does not exist, so the bot cannot "
        f"create {tmp_path / 'missing' / 'x.sqlite3'}."
    )
    check = await store(tmp_path / "new.sqlite3")
    assert check.label == "warn" and "sets it up when it first starts" in check.text
    assert not (tmp_path / "new.sqlite3").exists()  # the doctor creates nothing

    assert raw(str(older), "PRAGMA user_version") == [(LATEST_VERSION - 1,)]  # nor migrates


def test_the_doctor_exits_1_on_a_failure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("DISCORD_TOKEN", "CHESSGARDEN_HEARTBEAT", "CHESSGARDEN_SHARDS"):
        monkeypatch.delenv(name, raising=False)
    assert main(["doctor", "--db", str(tmp_path / "fresh.sqlite3")]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 5
    assert main(["doctor", "--db", str(tmp_path / "no" / "x.sqlite3")]) == 1
    out = capsys.readouterr().out
    assert "FAIL  store:" in out and "skip  disk:" in out


async def test_little_free_disk_warns_then_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = str(tmp_path / "d.sqlite3")
    usage = namedtuple("usage", "total used free")

    async def disk(free: int) -> Check:
        monkeypatch.setattr(doctor.shutil, "disk_usage", lambda _: usage(10**12, 0, free))
        (check,) = by_name(await run_checks({"CHESSGARDEN_DB": db}))["disk"]
        return check

    assert (await disk(5 * 1024**3)).label == "ok"
    check = await disk(500 * 1024**2)
    assert check.label == "warn" and "less than 1 GB" in check.text
    check = await disk(10 * 1024**2)
    assert check.line == f"FAIL  disk: only 10 MB free in {tmp_path}; moves will soon fail to save."
    (check,) = by_name(await run_checks({"CHESSGARDEN_DB": "postgresql://u:p@127.0.0.1:1/x"}))[
        "disk"
    ]
    assert check.label == "skip"


async def test_the_heartbeat_decides_health(tmp_path: Path) -> None:
    beat = tmp_path / "hb"
    env = {"CHESSGARDEN_DB": str(tmp_path / "h.sqlite3"), "CHESSGARDEN_HEARTBEAT": str(beat)}

    async def heartbeat(*, health_: bool) -> Check:
        (check,) = by_name(await run_checks(env, health=health_))["heartbeat"]
        return check

    assert (await heartbeat(health_=False)).label == "warn"
    assert (await heartbeat(health_=True)).line == (
        f"FAIL  heartbeat: no heartbeat at {beat}: the bot is not running."
    )
    # the bot's own writer, on this loop
    running = health.Heartbeat(beat, every=0.01, is_ready=lambda: False)
    running.start()
    await asyncio.sleep(0.05)
    assert (await heartbeat(health_=True)).label == "ok"
    assert '"ready": false' in beat.read_text()
    await running.stop()
    assert not beat.exists()  # a stopped bot is not healthy
    health.beat(beat)
    old = time.time() - health.STALE_AFTER - 5
    os.utime(beat, (old, old))
    check = await heartbeat(health_=True)
    assert check.label == "FAIL" and "stuck or stopped" in check.text
    assert (await heartbeat(health_=False)).label == "warn"


async def test_the_bot_beats_while_it_runs(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from bot.discord.app import ChessGardenBot, Settings
    from bot.service import GameService

    beat = tmp_path / "bot.hb"
    monkeypatch.setenv("CHESSGARDEN_HEARTBEAT", str(beat))
    service = await GameService.open(str(tmp_path / "b.sqlite3"), renderer=None, dice_renderer=None)
    bot = ChessGardenBot(service, Settings(token="x"))
    try:
        await bot.setup_hook()
        await asyncio.sleep(0.05)
        assert health.age(beat) is not None and health.age(beat) < 5
    finally:
        await bot.close()
        await service.close()
    assert not beat.exists()


# ----- Discord, through a recorded fake at the HTTP edge ----------------------------------------


class RecordedDiscord:
    """Answers discord.py's REST requests from payloads; records what was asked."""

    def __init__(self) -> None:
        self.asked: list[str] = []
        self.token_ok = True
        self.down = False
        everyone = P(view_channel=True, send_messages=True, read_message_history=True)
        bot_role = P(embed_links=True, attach_files=True, create_public_threads=True,
                     send_messages_in_threads=True)  # fmt: skip
        self.guild = guild_payload(GUILD, "Garden", roles=[
            role_payload(GUILD, "@everyone", everyone.value, 0),
            role_payload(ROLE, "Chess Garden", bot_role.value, 1),
        ], channels=[], threads=[], members=[], owner_id=1)  # fmt: skip
        self.member = member_payload(user_payload(BOT, "garden", bot=True), [ROLE])
        self.channels: dict[int, dict[str, Any]] = {
            CHANNEL: channel_payload(CHANNEL, GUILD, "games", 0),
            OTHER: channel_payload(OTHER, GUILD, "quiet", 0),
            THREAD: thread_payload(THREAD, GUILD, OTHER, BOT, "game 4"),
        }

    async def request(self, http: Any, route: Any, **kwargs: Any) -> Any:
        path = route.url.split("/api/v10", 1)[1]
        self.asked.append(f"{route.method} {path}")
        if self.down:
            raise http_error(503, 0, "Service Unavailable")
        if path == "/users/@me":
            if not self.token_ok:
                raise http_error(401, 0, "401: Unauthorized")
            return user_payload(BOT, "garden", bot=True)
        if path == "/users/@me/guilds":
            return [{"id": str(GUILD), "name": "Garden"}]
        if path == f"/guilds/{GUILD}":
            return self.guild
        if path == f"/guilds/{GUILD}/members/{BOT}":
            return self.member
        match = re.fullmatch(r"/channels/(\d+)", path)
        if match and int(match[1]) in self.channels:
            return self.channels[int(match[1])]
        raise http_error(404, 10003, "Unknown Channel")


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> RecordedDiscord:
    recorded = RecordedDiscord()

    async def request(self: Any, route: Any, **kwargs: Any) -> Any:
        return await recorded.request(self, route, **kwargs)

    monkeypatch.setattr(discord.http.HTTPClient, "request", request)
    return recorded


async def discord_lines(tmp_path: Path, locations: list[tuple[int | None, int]]) -> list[str]:
    db = str(tmp_path / "g.sqlite3")
    if not Path(db).exists():
        await store_with_games(db, locations)
    checks = await run_checks({"CHESSGARDEN_DB": db, "DISCORD_TOKEN": "token"})
    return [c.line for c in by_name(checks)["discord"]]


async def test_the_bot_has_what_it_needs_in_its_game_channels(
    fake: RecordedDiscord, tmp_path: Path
) -> None:
    lines = await discord_lines(tmp_path, [(GUILD, CHANNEL), (GUILD, THREAD), (None, 3)])
    assert lines == [
        "ok    discord: logged in as garden in 1 servers; 1 of them have live games.",
        f"ok    discord: in Garden ({GUILD}) the bot has what it needs in its 2 game channels.",
    ]
    assert fake.asked == [
        "GET /users/@me",
        "GET /users/@me/guilds",
        f"GET /guilds/{GUILD}",
        f"GET /guilds/{GUILD}/members/{BOT}",
        f"GET /channels/{CHANNEL}",
        f"GET /channels/{THREAD}",
        f"GET /channels/{OTHER}",  # a thread's permissions are its channel's
    ]


async def test_a_missing_permission_fails_and_is_named(
    fake: RecordedDiscord, tmp_path: Path
) -> None:
    # The bot's role may not embed in #games; in the thread's channel the bot itself may
    # not post in threads.
    fake.channels[CHANNEL]["permission_overwrites"] = [
        overwrite(ROLE, deny=P(embed_links=True).value)
    ]
    fake.channels[OTHER]["permission_overwrites"] = [
        overwrite(BOT, deny=P(send_messages_in_threads=True).value, member=True)
    ]
    lines = await discord_lines(tmp_path, [(GUILD, CHANNEL), (GUILD, THREAD)])
    assert lines[1] == (
        f"FAIL  discord: in Garden ({GUILD}) the bot lacks Embed Links in #games ({CHANNEL}); "
        f"lacks Send Messages in Threads in #game 4 ({THREAD})."
    )
    # @everyone may not see the channel, and the bot's role does not allow it back
    fake.channels[CHANNEL]["permission_overwrites"] = [
        overwrite(GUILD, deny=P(view_channel=True).value)
    ]
    fake.channels[OTHER]["permission_overwrites"] = []
    lines = await discord_lines(tmp_path, [])
    assert lines[1].startswith("FAIL") and "lacks View Channel in #games" in lines[1]
    # ... and an allow for the bot's role brings it back
    fake.channels[CHANNEL]["permission_overwrites"].append(
        overwrite(ROLE, allow=P(view_channel=True).value)
    )
    assert (await discord_lines(tmp_path, []))[1].startswith("ok")


async def test_a_deleted_channel_and_a_server_left_are_reported(
    fake: RecordedDiscord, tmp_path: Path
) -> None:
    lines = await discord_lines(tmp_path, [(GUILD, 999), (GUILD + 1, 5)])
    assert lines == [
        "ok    discord: logged in as garden in 1 servers; 2 of them have live games.",
        f"warn  discord: 1 servers with live games no longer have the bot ({GUILD + 1}); "
        "their games cannot be posted.",
        f"FAIL  discord: in Garden ({GUILD}) the bot cannot see channel 999 (Unknown Channel).",
    ]


async def test_a_refused_token_or_an_unreachable_discord_fails(
    fake: RecordedDiscord, tmp_path: Path
) -> None:
    fake.token_ok = False
    assert await discord_lines(tmp_path, [(GUILD, CHANNEL)]) == [
        "FAIL  discord: Discord refused the token; reset it in the Developer Portal and set it "
        "again."
    ]
    fake.token_ok, fake.down = True, True
    (line,) = await discord_lines(tmp_path, [])
    assert line.startswith("FAIL  discord: cannot ask Discord: 503")


# ----- PostgreSQL ---------------------------------------------------------------------------------


async def test_a_postgresql_store_is_checked_without_migrating_it(pg_url: str) -> None:
    (check,) = by_name(await run_checks({"CHESSGARDEN_DB": pg_url}))["store"]
    assert check.label == "warn" and "sets it up when it first starts" in check.text
    repo = await open_repository(pg_url)  # the bot's first start
    await repo.close()
    checks = by_name(await run_checks({"CHESSGARDEN_DB": pg_url}))
    assert checks["store"][0].label == "ok" and "PostgreSQL database" in checks["store"][0].text
    assert checks["disk"][0].label == "skip"
    raw(pg_url, "UPDATE chessgarden_schema SET version = version + 1")
    (check,) = by_name(await run_checks({"CHESSGARDEN_DB": pg_url}))["store"]
    assert check.label == "FAIL" and "newer Chess Garden" in check.text
    password = re.search(r":([^:@/]+)@", pg_url)
    if password:
        assert password[1] not in check.text


async def test_an_unreachable_postgresql_fails_in_one_line() -> None:
    url = "postgresql://chessgarden:s3cret@127.0.0.1:1/chessgarden"
    (check,) = by_name(await run_checks({"CHESSGARDEN_DB": url}))["store"]
    assert check.label == "FAIL" and "s3cret" not in check.text and "\n" not in check.text
