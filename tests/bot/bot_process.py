"""A real ``chessgarden run`` subprocess against the loopback fake Discord: the helpers the
subprocess tests share (``test_run_shutdown``, ``test_outbox_kill``)."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

from loopback_discord import LoopbackDiscord

import variants
from bot.discord.app import service_label
from bot.service import GameService

HUMAN = 424242424242424242


def computer_game(db: str, fake: LoopbackDiscord, level: int = 3) -> int:
    """A game where the computer (White, ``level``: 3 thinks its whole 2 s budget, 1
    moves at once) is to move; the bot resumes it."""

    async def make() -> int:
        service = await GameService.open(db, label=service_label)
        try:
            outcome = await service.play_computer(
                user_id=HUMAN,
                location_id=fake.channel_id,
                guild_id=fake.guild_id,
                variant=variants.names()[0],
                level=level,
                colour="black",
                render=False,
            )
            return outcome.game.id
        finally:
            await service.close()

    return asyncio.run(make())


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
