"""A write transaction's trips to the SQLite writer's thread (``storage.sqlite``, "Trips to
the writer"): its statements run on the event loop's thread, its ``BEGIN IMMEDIATE`` and
``COMMIT`` too unless another connection holds the file, and only a ``DELETE`` or
``executemany`` are trips; a transaction that sends nothing sends no ``BEGIN`` either; a
first statement that fails still rolls the transaction back; and a transaction cut off in
the middle of a trip leaves the next one to wait for the writer's thread. (The sync a
durable write waits for: ``test_wal_sync.py``.)"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from store_rows import new_game

from storage import (
    ConflictError,
    GameChanges,
    NewAction,
    NotFoundError,
    SqliteRepository,
    StoreBusyError,
    open_repository,
)
from storage.outbox import NewPost
from storage.sqlite import SqliteRepository as Repository


@pytest.fixture
async def repo(tmp_path: Path) -> AsyncIterator[SqliteRepository]:
    repository = await open_repository(tmp_path / "db.sqlite3", busy_timeout_ms=100)
    assert isinstance(repository, Repository)
    yield repository
    await repository.close()


def count_trips(repo: SqliteRepository, monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Every trip queued to the writer's thread from now on (aiosqlite queues each one
    through ``Connection._execute``: the test fails if that ever changes)."""
    writer = repo._writer  # noqa: SLF001 - the trips themselves are what is measured
    real = writer._execute  # noqa: SLF001
    trips: list[Any] = []

    async def counted(fn: Any, *args: Any, **kwargs: Any) -> Any:
        trips.append(args[0] if args else fn)
        return await real(fn, *args, **kwargs)

    monkeypatch.setattr(writer, "_execute", counted)
    return trips


def statements(repo: SqliteRepository) -> list[tuple[str, bool]]:
    """Every statement the writer connection runs from now on, and whether it ran on the
    event loop's thread (SQLite's own trace: it sees the statements, wherever they run)."""
    seen: list[tuple[str, bool]] = []
    loop_thread = threading.get_ident()

    def trace(sql: str) -> None:
        seen.append((sql, threading.get_ident() == loop_thread))

    repo._writer._conn.set_trace_callback(trace)  # noqa: SLF001
    return seen


def kind(sql: str) -> str:
    """``SELECT games``, ``INSERT actions``, ``UPDATE outbox``, ``BEGIN IMMEDIATE``..."""
    words = sql.split()
    if words[0] == "SELECT" and "FROM" in words:
        return f"SELECT {words[words.index('FROM') + 1]}"
    if words[0] in ("INSERT", "DELETE"):
        return f"{words[0]} {words[2]}"
    return " ".join(words[:2])


def kinds(seen: list[tuple[str, bool]]) -> list[str]:
    """The statements' kinds, without the busy timeout's changes around an opening."""
    return [kind(sql) for sql, _ in seen if not sql.startswith("PRAGMA busy")]


async def game(repo: SqliteRepository, location: int = 10) -> int:
    async with repo.write() as tx:
        await tx.upsert_player(1)
        await tx.upsert_player(2)
        return (await tx.insert_game(new_game(location))).id


async def test_statements_and_the_commit_run_on_the_loop(
    repo: SqliteRepository, monkeypatch: pytest.MonkeyPatch
) -> None:
    gid = await game(repo)
    trips = count_trips(repo, monkeypatch)
    seen = statements(repo)
    async with repo.write() as tx:
        await tx.get_game(gid)
        await tx.update_game(gid, GameChanges(draw_offer="white"))
        await tx.set_board_message(gid, 10, 500)
    assert trips == []  # BEGIN, three statements and the COMMIT, on the loop's thread
    assert all(here for _, here in seen)
    assert kinds(seen) == [
        "BEGIN IMMEDIATE",
        "SELECT games",
        "UPDATE games",
        "UPDATE games",
        "COMMIT",
    ]
    seen.clear()
    assert await repo.replace_board_message(gid, 10, 501, durable=False) == (10, 500)
    assert trips == []
    assert kinds(seen) == ["BEGIN IMMEDIATE", "SELECT games", "UPDATE games", "COMMIT"]
    assert seen[-1] == ("COMMIT", True)
    row = await repo.get_game(gid)
    assert row is not None and (row.draw_offer, row.board_message_id) == ("white", 501)
    # A statement that may touch any number of rows, and executemany, are trips.
    async with repo.write(durable=False) as tx:
        assert await tx.outbox_prune(0) == 0
        assert len(trips) == 1
        await tx._run_many("UPDATE players SET name = ? WHERE id = ?", [("a", 1), ("b", 2)])  # noqa: SLF001
        assert len(trips) == 2
    assert [p.name for p in await repo.list_players()] == ["a", "b"]


async def test_a_locked_file_waits_on_the_writers_thread_not_on_the_loop(
    repo: SqliteRepository, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Another process holds the write lock: the ``BEGIN`` tried on the loop (no busy wait)
    is sent to the writer's thread, which waits for the lock (up to the repository's busy
    timeout) while the loop goes on; the writer's statements on the loop wait for no lock
    afterwards either (busy timeout 0)."""
    gid = await game(repo)
    slow = await open_repository(tmp_path / "db.sqlite3", busy_timeout_ms=3_000)
    try:
        trips = count_trips(slow, monkeypatch)
        ticks = 0

        async def ticker() -> None:
            nonlocal ticks
            while True:
                await asyncio.sleep(0.01)
                ticks += 1

        with sqlite3.connect(slow.path, timeout=0) as other:
            other.execute("BEGIN IMMEDIATE")
            ticking = asyncio.get_running_loop().create_task(ticker())

            async def write() -> None:
                async with slow.write() as tx:
                    await tx.set_board_message(gid, 10, 1_000)

            writing = asyncio.get_running_loop().create_task(write())
            await asyncio.sleep(0.4)
            assert not writing.done() and ticks >= 20  # the loop was free all along
            other.execute("ROLLBACK")
            await writing
            ticking.cancel()
        assert len(trips) == 1  # the BEGIN that waited
        row = await slow.get_game(gid)
        assert row is not None and row.board_message_id == 1_000
        async with slow.write() as tx:
            assert (await tx._rows("PRAGMA busy_timeout"))[0][0] == 0  # noqa: SLF001 - as before
    finally:
        await slow.close()


async def test_a_transaction_cut_off_in_a_trip_leaves_the_next_to_wait(
    repo: SqliteRepository,
) -> None:
    """A write whose task is cancelled while a trip of it (a DELETE) is queued on the
    writer's thread, and again while its ROLLBACK is: the next write must not run a
    statement on the loop's thread before that thread is done with them."""
    gid = await game(repo)
    seen = statements(repo)
    writer = repo._writer  # noqa: SLF001
    blocker = asyncio.get_running_loop().create_task(writer._execute(lambda: time.sleep(0.3)))  # noqa: SLF001
    await asyncio.sleep(0.05)  # the writer's thread is busy for a while

    async def cut_off() -> None:
        async with repo.write() as tx:
            await tx.set_board_message(gid, 10, 1_100)
            await tx.outbox_prune(0)

    first = asyncio.get_running_loop().create_task(cut_off())
    await asyncio.sleep(0.05)  # its DELETE is queued behind the sleep
    first.cancel()
    await asyncio.sleep(0.01)  # now in its ROLLBACK, queued too
    first.cancel()
    with pytest.raises(asyncio.CancelledError):
        await first
    async with repo.write() as tx:  # waits for the writer's thread first
        await tx.set_board_message(gid, 10, 1_101)
    await blocker
    order = kinds(seen)
    assert order.count("BEGIN IMMEDIATE") == 2
    second_begin = len(order) - 1 - order[::-1].index("BEGIN IMMEDIATE")
    before = order[:second_begin]  # the first one's trips are done before it begins
    assert before.index("DELETE outbox") < before.index("ROLLBACK")
    row = await repo.get_game(gid)
    assert row is not None and row.board_message_id == 1_101


async def test_a_transaction_that_sends_nothing_begins_nothing(
    repo: SqliteRepository, monkeypatch: pytest.MonkeyPatch
) -> None:
    trips = count_trips(repo, monkeypatch)
    async with repo.write(durable=False):
        pass
    assert trips == []
    # Nothing was left open: another connection can write at once.
    path = repo.path
    with sqlite3.connect(path, timeout=0) as other:
        other.execute("BEGIN IMMEDIATE")
        other.execute("ROLLBACK")


async def test_a_failing_first_statement_rolls_back(repo: SqliteRepository) -> None:
    await game(repo, 10)
    with pytest.raises(ConflictError) as info:
        async with repo.write(durable=False) as tx:  # the switch and BEGIN ran first
            await tx.insert_game(new_game(10))  # a second live game at location 10
    assert info.value.what == "location"
    with sqlite3.connect(repo.path, timeout=0) as other:  # no transaction left open
        other.execute("BEGIN IMMEDIATE")
        other.execute("ROLLBACK")
    assert await game(repo, 11) > 0


async def test_a_begin_refused_leaves_nothing_open(repo: SqliteRepository) -> None:
    """A write whose ``BEGIN`` finds the file locked past the busy timeout is refused,
    and leaves the connection as it was: its busy timeout, and no transaction."""
    gid = await game(repo)
    with sqlite3.connect(repo.path, timeout=0) as other:
        other.execute("BEGIN IMMEDIATE")  # another process holds the write lock
        with pytest.raises(StoreBusyError):
            async with repo.write(durable=False) as tx:
                await tx.set_board_message(gid, 10, 600)
        other.execute("ROLLBACK")
    async with repo.write() as tx:
        assert (await tx._rows("PRAGMA busy_timeout"))[0][0] == 0  # noqa: SLF001 - as before
        await tx.set_board_message(gid, 10, 601)
    row = await repo.get_game(gid)
    assert row is not None and row.board_message_id == 601


async def test_a_game_read_twice_before_a_write_is_read_once(
    repo: SqliteRepository, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An action's transaction reads its game, then appends (which needs the game as the
    transaction sees it): one read, until a statement may have changed it."""
    gid = await game(repo)
    seen = statements(repo)
    async with repo.write() as tx:
        first = await tx.get_game(gid)
        assert await tx.get_game(gid) is first  # no second read
        assert kinds(seen) == ["BEGIN IMMEDIATE", "SELECT games"]
        await tx.set_board_message(gid, 10, 700)  # a write: the next read is a real one
        again = await tx.get_game(gid)
        assert again is not None and again.board_message_id == 700
        assert kinds(seen)[2:] == ["UPDATE games", "SELECT games"]
        await tx.upsert_player(3)  # any write, even of another table
        assert await tx.get_game(gid) == again
        assert kinds(seen)[4:] == ["INSERT players", "SELECT games"]


async def test_a_board_message_is_remembered_without_a_trip_with_its_outbox_row(
    repo: SqliteRepository, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The board posted after every action: the old message read, the new one kept and
    the outbox row it delivers settled, and the COMMIT (not durable): all on the loop."""
    gid = await game(repo)
    async with repo.write() as tx:
        owed = await tx.owe(NewPost(channel_id=10, kind="board", game_id=gid, seq=0), 1_000)
    trips = count_trips(repo, monkeypatch)
    seen = statements(repo)
    assert (
        await repo.replace_board_message(gid, 10, 800, durable=False, settle=(owed, 2_000)) is None
    )
    assert trips == []
    assert kinds(seen)[-4:] == ["SELECT games", "UPDATE games", "UPDATE outbox", "COMMIT"]
    assert all(here for _, here in seen)
    assert await repo.replace_board_message(gid, 10, 801) == (10, 800)
    (row,) = await repo.outbox_of_game(gid)
    assert (row.state, row.message_id, row.settled_ms) == ("sent", 800, 2_000)
    with pytest.raises(NotFoundError):
        await repo.replace_board_message(gid + 99, 10, 802)
    assert await repo.replace_board_message(gid, 10, 803) == (10, 801)  # nothing left open


async def test_a_trip_that_fails_before_its_commit_commits_nothing(repo: SqliteRepository) -> None:
    gid = await game(repo)

    def half(raw: sqlite3.Connection) -> None:
        raw.execute("UPDATE games SET board_message_id = 900 WHERE id = ?", (gid,))
        raw.execute("INSERT INTO no_such_table VALUES (1)")  # fails: no COMMIT follows

    with pytest.raises(sqlite3.OperationalError):
        async with repo.write() as tx:
            await tx._conn.run(half, commit=True)  # type: ignore[union-attr]  # noqa: SLF001
    row = await repo.get_game(gid)
    assert row is not None and row.board_message_id is None  # rolled back
    assert await repo.replace_board_message(gid, 10, 901) is None  # nothing left open


async def test_an_action_starts_with_its_game_and_request_together(
    repo: SqliteRepository, monkeypatch: pytest.MonkeyPatch
) -> None:
    gid = await game(repo)
    async with repo.write() as tx:
        await tx.append_action(NewAction(gid, 1, "move", 1, "e3", (), "req-1"))
    seen = statements(repo)
    async with repo.write() as tx:
        row, found = await tx.game_and_request(gid, "req-1")
        assert row is not None and row.log_count == 1
        assert found is not None and (found.seq, found.text) == (1, "e3")
        assert kinds(seen) == ["BEGIN IMMEDIATE", "SELECT games", "SELECT actions"]
        assert await tx.get_game(gid) is row  # read once until a write
        assert await tx.game_and_request(gid, "req-2") == (row, None)
        assert await tx.game_and_request(gid + 99, "req-1") == (None, None)
        assert await tx.game_and_request(gid, None) == (row, None)


async def test_a_log_entry_goes_with_the_next_statement(
    repo: SqliteRepository, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An action's entry is sent with the statement after it (as on PostgreSQL): its row
    at once, its refusal from that statement, inside the same ``write()``."""
    gid = await game(repo)
    trips = count_trips(repo, monkeypatch)
    seen = statements(repo)
    async with repo.write() as tx:
        row, _ = await tx.game_and_request(gid, "m1")
        entry = await tx.append_action(NewAction(gid, 1, "move", 1, "e3", (), "m1"))
        assert "INSERT actions" not in kinds(seen)  # not sent yet
        updated = await tx.update_game(gid, GameChanges(draw_offer="white"))
        assert kinds(seen)[-2:] == ["INSERT actions", "UPDATE games"]
        assert updated.log_count == 1 and updated.log_head == entry.digest  # counted first
    assert trips == []
    assert (await repo.actions(gid)) == [entry]  # the row returned is the row stored
    # An entry as the last statement goes with the COMMIT.
    seen.clear()
    async with repo.write() as tx:
        await tx.game_and_request(gid, "m2")
        await tx.append_action(NewAction(gid, 2, "move", 2, "e6", (), "m2"))
    assert [a.seq for a in await repo.actions(gid)] == [1, 2]
    assert kinds(seen)[-2:] == ["INSERT actions", "COMMIT"]
    # A refused entry (out of order, a used request id) fails its write(); nothing stays.
    for seq, request in ((5, "m3"), (3, "m1")):
        with pytest.raises(ConflictError):
            async with repo.write() as tx:
                await tx.append_action(NewAction(gid, seq, "move", 1, "e4", (), request))
                await tx.set_board_message(gid, 10, 1)
    row = await repo.get_game(gid)
    assert row is not None and row.log_count == 2 and row.board_message_id is None
    # A transaction that fails before its entry was sent never sends it.
    trips.clear()
    seen.clear()
    with pytest.raises(RuntimeError):
        async with repo.write() as tx:
            await tx.append_action(NewAction(gid, 3, "move", 1, "e4", (), "m4"))
            raise RuntimeError("the engine refused")
    assert trips == ["ROLLBACK"]  # the game read (with BEGIN) ran on the loop
    assert "INSERT actions" not in kinds(seen)
    assert len(await repo.actions(gid)) == 2
