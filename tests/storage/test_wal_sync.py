"""Group commit on SQLite (``storage.wal_sync``): a durable write returns only after a
sync of the log that began after its COMMIT; reads and non-durable writes wait for the
syncs of the durable commits before them; the write lock is not held during a sync, so
the commits made meanwhile share the next one; the sync is of the ``-wal`` file; and a
failed sync is final."""

from __future__ import annotations

import asyncio
import errno
import os
import sqlite3
import threading
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from store_rows import new_game

from storage import CommitUnknownError, SqliteRepository, StoreLostError, open_repository
from storage.sqlite import SqliteRepository as Repository


@pytest.fixture
async def repo(tmp_path: Path) -> AsyncIterator[SqliteRepository]:
    repository = await open_repository(tmp_path / "db.sqlite3")
    assert isinstance(repository, Repository)
    yield repository
    await repository.close()


async def game(repo: SqliteRepository) -> int:
    async with repo.write() as tx:
        await tx.upsert_player(1)
        await tx.upsert_player(2)
        return (await tx.insert_game(new_game(10))).id


def gate_syncs(repo: SqliteRepository) -> tuple[threading.Event, list[str]]:
    """Every sync of the log from now on waits for the returned event; the list gets
    the path of each one as it starts."""
    gate = threading.Event()
    calls: list[str] = []

    def sync(path: str) -> None:
        calls.append(path)
        gate.wait(10)

    repo._syncs._sync = sync  # noqa: SLF001
    return gate, calls


def stored_board(repo: SqliteRepository, gid: int) -> Any:
    """The board message id as another process reads the file (committed, synced or not)."""
    with sqlite3.connect(repo.path) as other:
        return other.execute("SELECT board_message_id FROM games WHERE id = ?", (gid,)).fetchone()[
            0
        ]


async def until(condition: Any) -> None:
    for _ in range(500):
        if condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("timed out")


async def test_nothing_is_answered_or_shown_before_its_sync(repo: SqliteRepository) -> None:
    gid = await game(repo)
    gate, calls = gate_syncs(repo)
    loop = asyncio.get_running_loop()

    async def board(message: int, durable: bool = True) -> None:
        async with repo.write(durable=durable) as tx:
            await tx.set_board_message(gid, 10, message)

    first = loop.create_task(board(1))
    await until(lambda: len(calls) == 1)  # its sync has started and waits
    await asyncio.sleep(0.05)
    assert not first.done()  # committed, not answered
    assert stored_board(repo, gid) == 1

    read = loop.create_task(repo.get_game(gid))
    quiet = loop.create_task(board(2, durable=False))  # may have read the first's row
    second = loop.create_task(board(3))
    third = loop.create_task(board(4))
    await until(lambda: stored_board(repo, gid) == 4)  # the lock is free during a sync
    await asyncio.sleep(0.05)
    assert not any(t.done() for t in (read, quiet, second, third))
    assert len(calls) == 1

    gate.set()
    await asyncio.gather(first, read, quiet)
    await asyncio.gather(second, third)
    assert len(calls) == 2  # the second and the third shared one sync
    assert calls == [f"{repo.path}-wal"] * 2
    assert repo._syncs.synced == repo._syncs.written  # noqa: SLF001


async def test_a_non_durable_write_waits_for_no_sync_of_its_own(repo: SqliteRepository) -> None:
    gid = await game(repo)
    _, calls = gate_syncs(repo)  # never opened: any sync would hang the test
    async with repo.write(durable=False) as tx:
        await tx.set_board_message(gid, 10, 7)
    assert (await repo.get_game(gid)).board_message_id == 7  # type: ignore[union-attr]
    assert await repo.replace_board_message(gid, 10, 8, durable=False) == (10, 7)
    assert calls == []


async def test_the_sync_is_an_fsync_of_the_log(
    repo: SqliteRepository, monkeypatch: pytest.MonkeyPatch
) -> None:
    synced: list[str] = []
    real = os.fsync

    def fsync(fd: int) -> None:
        synced.append(os.readlink(f"/proc/self/fd/{fd}"))
        real(fd)

    monkeypatch.setattr("storage.wal_sync.os.fsync", fsync)
    await game(repo)
    assert synced == [os.path.realpath(f"{repo.path}-wal")]


async def test_a_failed_sync_is_final(repo: SqliteRepository) -> None:
    gid = await game(repo)

    def broken(path: str) -> None:
        raise OSError(errno.EIO, "Input/output error")

    repo._syncs._sync = broken  # noqa: SLF001
    with pytest.raises(CommitUnknownError, match="may be lost"):
        async with repo.write() as tx:
            await tx.set_board_message(gid, 10, 9)
    with pytest.raises(StoreLostError, match="until the bot restarts"):
        await repo.get_game(gid)
    with pytest.raises(StoreLostError):
        async with repo.write(durable=False) as tx:
            await tx.set_board_message(gid, 10, 10)
    assert stored_board(repo, gid) == 9  # refused before it began


async def test_a_database_in_memory_has_nothing_to_sync() -> None:
    repo = await open_repository(":memory:")
    try:
        gid = await game(repo)
        assert (await repo.get_game(gid)) is not None
        assert repo._syncs.syncs == 0  # type: ignore[attr-defined]  # noqa: SLF001
    finally:
        await repo.close()


async def test_a_failed_sync_is_lost_to_readers_and_unknown_to_its_writer(
    repo: SqliteRepository,
) -> None:
    """The transaction whose sync failed cannot tell whether it is on the disk; a read
    waiting for that sync can only say the store is lost."""
    gid = await game(repo)
    failing = threading.Event()
    calls: list[str] = []

    def broken(path: str) -> None:
        calls.append(path)
        failing.wait(10)
        raise OSError(errno.EIO, "Input/output error")

    repo._syncs._sync = broken  # noqa: SLF001
    loop = asyncio.get_running_loop()

    async def board() -> None:
        async with repo.write() as tx:
            await tx.set_board_message(gid, 10, 11)

    writing = loop.create_task(board())
    await until(lambda: len(calls) == 1)
    reading = loop.create_task(repo.get_game(gid))
    await asyncio.sleep(0.05)
    failing.set()
    with pytest.raises(CommitUnknownError):
        await writing
    with pytest.raises(StoreLostError):
        await reading


def test_a_log_already_removed_needs_no_sync(tmp_path: Path) -> None:
    from storage.wal_sync import _sync_file

    _sync_file(str(tmp_path / "gone.sqlite3-wal"))  # nothing raised: nothing to sync
