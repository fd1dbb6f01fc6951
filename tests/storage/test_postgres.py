"""What only the PostgreSQL store has to show (issue 16): its migrations mirror SQLite's one
for one (same schema at the end, same rows from a real version-1 database), its locks keep
two processes' commands on one game apart, its claim skips a game another transaction
holds, and its faults are the storage errors the service knows."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pgcluster
import pytest

from storage import (
    LATEST_VERSION,
    GameQuery,
    NewAction,
    NewGame,
    PgRepository,
    SchemaError,
    SqliteRepository,
    StoreBusyError,
    StoreOpenError,
    is_postgres_url,
    open_repository,
    redact,
)
from storage.migrations import MIGRATIONS
from storage.pg_migrations import PG_MIGRATIONS

V1_DUMP = Path(__file__).parent / "data" / "v1_games.sql"


def test_one_postgresql_migration_per_sqlite_version() -> None:
    assert len(PG_MIGRATIONS) == len(MIGRATIONS) == LATEST_VERSION
    assert all(PG_MIGRATIONS)


def test_urls_choose_postgresql_and_passwords_stay_hidden() -> None:
    assert is_postgres_url("postgresql://u@h/db") and is_postgres_url("postgres://u@h/db")
    assert not is_postgres_url("games.sqlite3") and not is_postgres_url(None)
    assert redact("postgresql://me:secret@db:5432/cg") == "postgresql://me:***@db:5432/cg"
    assert redact("postgresql://me@db/cg") == "postgresql://me@db/cg"


async def test_both_stores_end_with_the_same_columns(pg_url: str, tmp_path: Path) -> None:
    repo = await open_repository(pg_url)
    await repo.close()
    lite = await SqliteRepository.open(tmp_path / "x.sqlite3")
    await lite.close()
    with sqlite3.connect(tmp_path / "x.sqlite3") as conn:
        for table in ("players", "games", "actions"):
            sqlite_columns = [r[1] for r in conn.execute(f"PRAGMA table_xinfo({table})")]
            pg_columns = [
                r[0]
                for r in pgcluster.query(
                    pg_url,
                    "SELECT column_name FROM information_schema.columns "
                    "WHERE table_name = $1 AND table_schema = current_schema() "
                    "ORDER BY ordinal_position",
                    (table,),
                )
            ]
            assert sorted(pg_columns) == sorted(sqlite_columns), table


async def test_a_version_1_database_migrates_to_the_same_rows_on_both(
    pg_url: str, tmp_path: Path
) -> None:
    """The real version-1 database of tests/storage/data, loaded into PostgreSQL at version 1,
    then both stores migrated to the end: every game and log entry reads the same."""
    lite_path = tmp_path / "v1.sqlite3"
    with sqlite3.connect(lite_path) as conn:
        conn.executescript(V1_DUMP.read_text())
        tables = {}
        for table in ("players", "games", "actions"):
            cursor = conn.execute(f"SELECT * FROM {table}")
            tables[table] = ([d[0] for d in cursor.description], cursor.fetchall())
    pgcluster.execute(pg_url, "CREATE TABLE chessgarden_schema (version INTEGER NOT NULL)")
    pgcluster.execute(pg_url, "INSERT INTO chessgarden_schema VALUES (1)")
    for statement in PG_MIGRATIONS[0]:
        pgcluster.execute(pg_url, statement)
    for table, (columns, rows) in tables.items():
        marks = ", ".join(f"${i}" for i in range(1, len(columns) + 1))
        for row in rows:
            pgcluster.execute(
                pg_url, f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})", row
            )
    pgcluster.execute(
        pg_url, "SELECT setval(pg_get_serial_sequence('games', 'id'), (SELECT max(id) FROM games))"
    )
    lite, pg = await SqliteRepository.open(lite_path), await open_repository(pg_url)
    try:
        assert await pg.schema_version() == LATEST_VERSION
        games = await lite.list_games(GameQuery(limit=1000))
        assert len(games) >= 3
        assert await pg.list_games(GameQuery(limit=1000)) == games
        for game in games:
            assert await pg.actions(game.id) == await lite.actions(game.id)
        assert await pg.due_games(10**15) == await lite.due_games(10**15)
        # and the migrated store goes on: the next game gets the next id on both
        for repo in (lite, pg):
            async with repo.write() as tx:
                made = await tx.insert_game(
                    NewGame("guardener", {}, "challenge", 999, None, games[0].challenger_id,
                            None, "white")
                )  # fmt: skip
            assert made.id == max(g.id for g in games) + 1
    finally:
        await lite.close()
        await pg.close()


async def test_a_newer_schema_is_refused(pg_url: str) -> None:
    repo = await open_repository(pg_url)
    await repo.close()
    pgcluster.execute(pg_url, f"UPDATE chessgarden_schema SET version = {LATEST_VERSION + 1}")
    with pytest.raises(SchemaError, match="newer"):
        await open_repository(pg_url)


async def test_a_server_that_is_not_there_is_one_clear_line(pg_cluster: object) -> None:
    with pytest.raises(StoreOpenError) as info:
        await open_repository("postgresql://me:topsecret@127.0.0.1:1/nothing")
    text = str(info.value)
    assert text.startswith("cannot open the database postgresql://me:***@127.0.0.1:1/nothing: ")
    assert "topsecret" not in text and "\n" not in text


async def two_repos(url: str, **kw: int) -> tuple[PgRepository, PgRepository, int]:
    first = await PgRepository.open(url, **kw)
    second = await PgRepository.open(url, **kw)
    async with first.write() as tx:
        await tx.upsert_player(1)
        row = await tx.insert_game(
            NewGame("guardener", {}, "active", 10, None, 1, None, "white", seed="s",
                    commitment="c", deadline_ms=5)
        )  # fmt: skip
    return first, second, row.id


async def test_a_game_row_is_locked_for_the_whole_transaction(pg_url: str) -> None:
    """As two processes would: the second reads the game only after the first commits,
    and then sees its action (its next entry is 2, not a conflicting 1)."""
    first, second, gid = await two_repos(pg_url)
    order: list[str] = []

    async def later() -> int:
        async with second.write() as tx:
            row = await tx.get_game(gid)
            assert row is not None
            order.append("second read")
            await tx.append_action(NewAction(gid, row.log_count + 1, "move", 1, "d4"))
            return row.log_count + 1

    try:
        async with first.write() as tx:
            row = await tx.get_game(gid)
            assert row is not None
            task = asyncio.create_task(later())
            await asyncio.sleep(0.3)
            assert not task.done() and order == []  # waiting on the row lock
            await tx.append_action(NewAction(gid, row.log_count + 1, "move", 1, "e4"))
            order.append("first wrote")
        assert await task == 2
        assert order == ["first wrote", "second read"]
        assert [a.text for a in await first.actions(gid)] == ["e4", "d4"]
    finally:
        await first.close()
        await second.close()


async def test_a_claim_skips_a_game_another_transaction_holds(pg_url: str) -> None:
    first, second, gid = await two_repos(pg_url)
    try:
        async with first.write() as tx:
            assert await tx.claim_due(gid, 10) is not None
            async with second.write() as other:
                assert await other.claim_due(gid, 10) is None  # at once, without waiting
    finally:
        await first.close()
        await second.close()


async def test_a_lock_held_past_the_busy_timeout_is_store_busy(pg_url: str) -> None:
    first, second, gid = await two_repos(pg_url, busy_timeout_ms=200)
    try:
        async with first.write() as tx:
            await tx.get_game(gid)
            with pytest.raises(StoreBusyError):
                async with second.write() as other:
                    await other.get_game(gid)
        async with second.write() as other:  # and the same call works once it is free
            assert await other.get_game(gid) is not None
    finally:
        await first.close()
        await second.close()


async def test_a_non_durable_write_commits_without_waiting_for_the_disk(pg_url: str) -> None:
    """``write(durable=False)`` turns synchronous_commit off for its own transaction
    only; the next write (a game action) waits for the disk again. (The test cluster
    runs with synchronous_commit off for speed: these connections get production's on.)"""
    repo = await open_repository(f"{pg_url}&synchronous_commit=on")
    try:
        seen = []
        for durable in (False, True):
            async with repo.write(durable=durable) as tx:
                rows = await tx._q.fetch("SHOW synchronous_commit")  # noqa: SLF001
                seen.append(rows[0][0])
        assert seen == ["off", "on"]
    finally:
        await repo.close()


async def test_replacing_a_board_message_waits_for_the_row_and_reads_its_last_value(
    pg_url: str,
) -> None:
    """One statement locks the row and reads it: while another transaction holds the game
    and changes its board, the replacement waits, and then names that new board (not the
    one committed before), so its buttons come off."""
    first, second, gid = await two_repos(pg_url)
    try:
        assert await second.replace_board_message(gid, 1, 10) is None
        async with first.write() as tx:
            await tx.get_game(gid)
            task = asyncio.create_task(second.replace_board_message(gid, 1, 30))
            await asyncio.sleep(0.3)
            assert not task.done()  # waiting on the row lock
            await tx.set_board_message(gid, 1, 20)
        assert await task == (1, 20)
        row = await first.get_game(gid)
        assert row is not None and (row.board_channel_id, row.board_message_id) == (1, 30)
    finally:
        await first.close()
        await second.close()


async def test_a_connection_given_back_to_the_pool_is_not_reset(pg_url: str) -> None:
    """No session state is made, so no reset query (a round trip) follows each use: the
    last statement a pooled connection ran is the store's own."""
    repo = await PgRepository.open(pg_url, pool_size=1)
    try:
        async with repo._pool.acquire() as conn:  # noqa: SLF001 - the one connection
            pid = conn.get_server_pid()
        assert await repo.get_game(12345) is None
        ran = pgcluster.query(pg_url, "SELECT query FROM pg_stat_activity WHERE pid = $1", (pid,))
        assert "FROM games WHERE id = $1" in ran[0][0], ran
    finally:
        await repo.close()


async def test_a_board_message_kept_without_waiting_for_the_disk_changes_no_setting(
    pg_url: str,
) -> None:
    """``durable=False`` relaxes that one commit only: the answers are the same, and the
    connection goes back to the pool with its commits durable (this test's sessions start
    with ``synchronous_commit`` on; the test server's default is off)."""
    first, second, gid = await two_repos(f"{pg_url}&synchronous_commit=on")
    await second.close()
    try:
        assert await first.replace_board_message(gid, 1, 10, durable=False) is None
        assert await first.replace_board_message(gid, 1, 11, durable=False) == (1, 10)
        row = await first.get_game(gid)
        assert row is not None and (row.board_channel_id, row.board_message_id) == (1, 11)
        for _ in range(10):  # every pooled connection
            async with first._pool.acquire() as conn:  # noqa: SLF001
                assert await conn.fetchval("SHOW synchronous_commit") == "on"
    finally:
        await first.close()
