"""``chessgarden run`` stops gracefully on SIGTERM (issue 24): a real subprocess against the
loopback fake Discord, a computer game in the store, the signal while the computer
thinks (or while Discord hangs on its post). Exit code 0 within 10 s, one log line per
step, the store sound afterwards, and no worker process left behind."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import variants
from bot.discord_app import service_label
from bot.service import GameService

sys.path.insert(0, str(Path(__file__).parent))  # the fake lives beside this file
from loopback_discord import LoopbackDiscord  # noqa: E402

POST = "POST /channels/{channel_id}/messages"
HUMAN = 424242424242424242
STEPS = (
    "shutdown: SIGTERM received; stopping",
    "shutdown: the deadline scheduler stopped",
    "shutdown: interactions in flight finished",
    "shutdown: the Discord connection closed",
    "shutdown: the store closed",
    "shutdown: done in",
)


@pytest.fixture
def fake() -> Iterator[LoopbackDiscord]:
    with LoopbackDiscord() as server:
        yield server


def computer_game(db: str, fake: LoopbackDiscord) -> int:
    """A game where the computer (White, level 3) is to move; the bot resumes it."""

    async def make() -> int:
        service = await GameService.open(db, label=service_label)
        try:
            outcome = await service.play_computer(
                user_id=HUMAN,
                location_id=fake.channel_id,
                guild_id=fake.guild_id,
                variant=variants.names()[0],
                level=3,
                colour="black",
                render=False,
            )
            return outcome.game.id
        finally:
            await service.close()

    return asyncio.run(make())


def row(db: str, game_id: int) -> tuple[int, int | None]:
    """(log_count, thinking_until_ms) of the game, read as another process would."""
    with sqlite3.connect(db, timeout=5) as con:
        found = con.execute(
            "SELECT log_count, thinking_until_ms FROM games WHERE id = ?", (game_id,)
        ).fetchone()
    return int(found[0]), found[1]


def descendants(pid: int) -> set[int]:
    """Every process below ``pid`` (from /proc), worker processes and the fork server."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            parents[int(entry)] = int(stat.rsplit(")", 1)[1].split()[1])
    found: set[int] = set()
    frontier = [pid]
    while frontier:
        parent = frontier.pop()
        children = [p for p, pp in parents.items() if pp == parent and p not in found]
        found.update(children)
        frontier += children
    return found


def alive(pids: set[int]) -> set[int]:
    living = set()
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            living.add(pid)
    return living


def stop(proc: subprocess.Popen[bytes], log: Path) -> tuple[int, float, str, set[int]]:
    """SIGTERM; (exit code, seconds to exit, the log, the processes below it that are
    still alive 3 s after it exited)."""
    below = descendants(proc.pid)
    started = time.monotonic()
    proc.send_signal(signal.SIGTERM)
    try:
        code = proc.wait(20)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    took = time.monotonic() - started
    end = time.monotonic() + 3
    while alive(below) and time.monotonic() < end:
        time.sleep(0.05)
    left = alive(below)
    for pid in left:  # do not leave them to the next test
        os.kill(pid, signal.SIGKILL)
    return code, took, re.sub(r"\x1b\[[0-9;]*m", "", log.read_text(errors="replace")), left


def sound(db: str) -> str:
    """The store's integrity check, after the service has opened and closed it again."""

    async def reopen() -> None:
        service = await GameService.open(db)
        await service.close()

    asyncio.run(reopen())
    with sqlite3.connect(db) as con:
        return str(con.execute("PRAGMA integrity_check").fetchone()[0])


def test_sigterm_while_the_computer_thinks(fake: LoopbackDiscord, tmp_path: Path) -> None:
    db, log = str(tmp_path / "db.sqlite3"), tmp_path / "bot.log"
    game_id = computer_game(db, fake)
    proc = fake.spawn_bot(db, log)
    try:
        fake.wait_for(lambda: row(db, game_id)[1] is not None, 60)  # the turn is claimed
        # the search runs in a worker process, forked by the fork server
        fake.wait_for(lambda: len(descendants(proc.pid)) >= 2, 20)
        assert row(db, game_id)[0] == 0  # thinking, not moved yet
        code, took, text, left = stop(proc, log)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert code == 0, text
    assert took < 10, text
    for step in (*STEPS, "shutdown: the computer's moves stopped"):
        assert step in text, f"{step!r} missing:\n{text}"
    assert "Traceback" not in text, text
    assert not left, f"processes left behind: {left}"
    assert sound(db) == "ok"
    moved, claim = row(db, game_id)
    posted = [m for m in fake.messages(fake.channel_id) if f"game {game_id}" in m.text.lower()]
    # The move in flight finished: played, committed and posted, before the connection
    # closed (the search takes 2 s, the grace is 4 s).
    assert moved >= 1, text
    assert posted and "board.png" in posted[-1].files, [r.line for r in fake.requests()]


def test_sigterm_while_discord_hangs_on_the_post(fake: LoopbackDiscord, tmp_path: Path) -> None:
    db, log = str(tmp_path / "db.sqlite3"), tmp_path / "bot.log"
    game_id = computer_game(db, fake)
    fake.fault(POST, "hang", count=10)
    proc = fake.spawn_bot(db, log)
    try:
        fake.wait_for(lambda: fake.held, 60)  # the move is stored; its post hangs
        assert row(db, game_id)[0] >= 1
        code, took, text, left = stop(proc, log)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert code == 0, text
    assert took < 10, text
    assert "shutdown: the computer's moves stopped" in text and "cut short in 1 game" in text, text
    for step in STEPS:
        assert step in text, f"{step!r} missing:\n{text}"
    assert not left, f"processes left behind: {left}"
    assert sound(db) == "ok"
    assert row(db, game_id)[1] is None or row(db, game_id)[0] >= 1  # nothing half-done
