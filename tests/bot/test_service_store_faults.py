"""Database faults (issue 9, contract C6): a lock held past the busy timeout, or a full disk
at commit, reach the caller as ``StoreBusy``/``StoreFull`` (service errors with a plain
message) instead of a raw ``sqlite3.OperationalError``; nothing is half-applied, and the
same command works when it is sent again."""

from __future__ import annotations

import inspect
import os
import random
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import pytest

from bot.service import (
    GameService,
    Outcome,
    ServiceError,
    StoreBusy,
    StoreFull,
    StoreUnavailable,
)

ALICE, BOB = 101, 202
IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
CAN_MOUNT = IS_ROOT and sys.platform.startswith("linux") and shutil.which("mount") is not None


async def start(service: GameService, location: int = 1) -> Outcome:
    await service.challenge(
        location_id=location, challenger_id=ALICE, opponent_id=BOB, variant="guardener"
    )
    return await service.accept(location_id=location, user_id=BOB, render=False)


def count(db: Path, sql: str) -> int:
    conn = sqlite3.connect(db)
    try:
        return int(conn.execute(sql).fetchone()[0])
    finally:
        conn.close()


def test_every_public_command_translates_store_faults() -> None:
    methods = [
        name
        for name, member in inspect.getmembers(GameService)
        if not name.startswith("_") and inspect.iscoroutinefunction(member) and name != "open"
    ]
    assert {"act", "accept", "challenge", "verify", "history", "set_board_message"} <= set(methods)
    for name in methods:
        assert getattr(getattr(GameService, name), "__store_faults__", False), name


async def test_a_busy_database_says_so_and_the_retry_works(tmp_path: Path) -> None:
    db = tmp_path / "busy.sqlite3"
    service = await GameService.open(str(db), renderer=None, busy_timeout_ms=200)
    blocker = sqlite3.connect(db, isolation_level=None)
    try:
        started = await start(service)
        legal = await service.legal_moves(game_id=started.game.id)
        blocker.execute("BEGIN IMMEDIATE")  # another process holds the write lock
        entries = count(db, "SELECT count(*) FROM actions")
        with pytest.raises(StoreBusy) as info:
            await service.act(game_id=started.game.id, user_id=started.next_user_id, text=legal[0])
        assert str(info.value) == "The database is busy; try again in a moment."
        assert isinstance(info.value, StoreUnavailable) and isinstance(info.value, ServiceError)
        with pytest.raises(StoreBusy):
            await service.challenge(location_id=2, challenger_id=BOB, variant="tquarchess")
        assert (await service.view(game_id=started.game.id)).ply == 0  # reading still works
        blocker.execute("ROLLBACK")
        assert count(db, "SELECT count(*) FROM actions") == entries  # nothing half-applied
        moved = await service.act(
            game_id=started.game.id, user_id=started.next_user_id, text=legal[0]
        )
        assert moved.game.ply == 1 and moved.recorded is not None
        await service.resign(game_id=started.game.id, user_id=ALICE)
        assert (await service.verify(game_id=started.game.id)).ok  # the dice are the seed's
    finally:
        blocker.close()
        await service.close()


@contextmanager
def small_disk(where: Path) -> Iterator[Path]:
    where.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(where)], check=True)
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def fill(folder: Path) -> Path:
    filler = folder / "filler"
    with open(filler, "wb", buffering=0) as out, suppress(OSError):
        while True:
            out.write(b"\0" * 4096)
    return filler


@pytest.mark.skipif(
    not CAN_MOUNT, reason="the full-disk test mounts a small tmpfs, which needs root on Linux"
)
async def test_a_full_disk_says_so_and_the_retry_works(tmp_path: Path) -> None:
    with small_disk(tmp_path / "disk") as disk:
        db = disk / "full.sqlite3"
        service = await GameService.open(str(db), renderer=None)
        try:
            outcome = await start(service)
            rng = random.Random(7)
            for _ in range(6):
                legal = await service.legal_moves(game_id=outcome.game.id)
                outcome = await service.act(
                    game_id=outcome.game.id, user_id=outcome.next_user_id, text=rng.choice(legal)
                )
            conn = sqlite3.connect(db)  # an empty WAL, so the next commit needs new space
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            conn.close()
            entries = count(db, "SELECT count(*) FROM actions")
            filler = fill(disk)
            legal = await service.legal_moves(game_id=outcome.game.id)
            with pytest.raises(StoreFull) as info:
                await service.act(
                    game_id=outcome.game.id, user_id=outcome.next_user_id, text=legal[0]
                )
            assert str(info.value) == (
                "The database disk is full; nothing was saved. Try again later."
            )
            assert isinstance(info.value, StoreUnavailable)
            filler.unlink()
            assert count(db, "SELECT count(*) FROM actions") == entries  # nothing half-applied
            again = await service.act(
                game_id=outcome.game.id, user_id=outcome.next_user_id, text=legal[0]
            )
            assert again.game.ply == outcome.game.ply + 1
            await service.resign(game_id=outcome.game.id, user_id=ALICE)
            report = await service.verify(game_id=outcome.game.id)
            assert report.ok, report.messages
        finally:
            await service.close()
