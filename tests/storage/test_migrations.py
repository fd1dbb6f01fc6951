"""Migration 2 on a real version-1 database (``data/v1_games.sql``, written by the code
before issue 9): every game keeps working, and challenges stored with start rolls lose
them and get a fresh seed at acceptance."""

from __future__ import annotations

import json
import random
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.service import GameService, ManualClock
from storage import (
    LATEST_VERSION,
    ConflictError,
    GameQuery,
    NewAction,
    SqliteRepository,
    StorageError,
)
from variants.dice import seed_commitment, verifiable_roll

V1_DUMP = Path(__file__).parent / "data" / "v1_games.sql"


@pytest.fixture
def v1_db(tmp_path: Path) -> Path:
    path = tmp_path / "v1.sqlite3"
    conn = sqlite3.connect(path)
    conn.executescript(V1_DUMP.read_text())
    conn.close()
    return path


def rows(path: Path, sql: str, params: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
    conn = sqlite3.connect(path)
    try:
        return conn.execute(sql, params).fetchall()
    finally:
        conn.close()


def test_the_dump_is_version_1_with_dice_on_pending_challenges(v1_db: Path) -> None:
    assert rows(v1_db, "PRAGMA user_version") == [(1,)]
    pending = rows(v1_db, "SELECT id, seed, start_rolls FROM games WHERE status = 'challenge'")
    assert [r[0] for r in pending] == [1, 2]
    assert all(r[1] and r[2] != "[]" for r in pending)  # the finding: dice before acceptance


async def test_migration_2_keeps_every_game_and_drops_the_dice_of_challenges(
    v1_db: Path,
) -> None:
    before = {r[0]: r for r in rows(v1_db, "SELECT * FROM games ORDER BY id")}
    actions_before = rows(v1_db, "SELECT game_id, seq, kind, text, rolls FROM actions")
    repo = await SqliteRepository.open(v1_db)
    try:
        assert await repo.schema_version() == LATEST_VERSION >= 2
        for game_id, old in before.items():
            game = await repo.get_game(game_id)
            assert game is not None and game.status == old[3] and game.variant == old[1]
            actions = await repo.actions(game_id)
            if game.status == "challenge":  # no die before acceptance, whatever v1 stored
                assert game.seed is None and game.commitment is None
                assert game.start_rolls == () and game.roll_count == 0
                continue
            assert game.seed == old[14] and game.commitment == old[15]
            assert game.start_rolls == tuple(tuple(r) for r in json.loads(str(old[16])))
            # the counts and the roll numbers the new verify relies on
            assert game.log_count == len(actions) == (actions[-1].seq if actions else 0)
            index = len(game.start_rolls)
            for action in actions:
                assert action.roll_index == index
                index += len(action.rolls)
            assert game.roll_count == index
    finally:
        await repo.close()
    assert rows(v1_db, "SELECT game_id, seq, kind, text, rolls FROM actions") == actions_before
    assert rows(v1_db, "PRAGMA foreign_key_check") == []
    assert rows(v1_db, "PRAGMA integrity_check") == [("ok",)]
    # the AUTOINCREMENT counter went over with the table: no game id is ever reused
    assert rows(v1_db, "SELECT seq FROM sqlite_sequence WHERE name = 'games'") == [(8,)]
    names = {r[0] for r in rows(v1_db, "SELECT name FROM sqlite_master")}
    assert {"games_by_location", "games_open_challenges", "actions_in_order"} <= names
    assert not {"games_v2", "actions_v2"} & names


async def test_the_store_keeps_its_rules_after_the_migration(v1_db: Path) -> None:
    repo = await SqliteRepository.open(v1_db)
    try:
        with pytest.raises(ConflictError):  # game 3 has 9 entries: entry 11 would leave a gap
            async with repo.write() as tx:
                await tx.append_action(NewAction(3, 11, "resign", 101, "white resigns"))
        with pytest.raises(ConflictError):  # entry 9 is taken
            async with repo.write() as tx:
                await tx.append_action(NewAction(3, 9, "resign", 101, "white resigns"))
        async with repo.write() as tx:
            added = await tx.append_action(NewAction(3, 10, "resign", 101, "white resigns"))
        game = await repo.get_game(3)
        assert game is not None and added.roll_index == game.roll_count
        assert game.log_count == 10
    finally:
        await repo.close()
    conn = sqlite3.connect(v1_db)
    try:
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            conn.execute("DELETE FROM actions WHERE game_id = 3")
        with pytest.raises(sqlite3.IntegrityError, match="already drawn"):
            conn.execute("UPDATE games SET seed = 'another' WHERE id = 3")
        with pytest.raises(sqlite3.IntegrityError, match="already stored"):
            conn.execute("UPDATE games SET start_rolls = '[[4,1]]' WHERE id = 3")
    finally:
        conn.close()


async def test_every_v1_game_plays_on_through_the_service(v1_db: Path) -> None:
    seeds = iter(f"fresh-seed-{n}" for n in range(10))
    # An hour after the dump was made: its challenges expire a day after they were made.
    clock = ManualClock(datetime(2026, 11, 23, 12, 1, 36, tzinfo=UTC))
    service = await GameService.open(
        str(v1_db),
        renderer=None,
        rng=random.Random(2),
        seed_factory=lambda: next(seeds),
        clock=clock,
    )
    try:
        # a v1 challenge is accepted with a fresh seed, not the one drawn when it was made
        started = await service.accept(game_id=1, user_id=202)
        assert started.game.commitment == seed_commitment("fresh-seed-0")
        assert started.game.dice == tuple(
            verifiable_roll("fresh-seed-0", 1, k, 4) for k in range(2)
        )
        await service.accept(game_id=2, user_id=303)
        # the active games go on where they were, on their own seeds
        for game_id in (3, 8):
            view = await service.view(game_id=game_id)
            legal = await service.legal_moves(game_id=game_id)
            moved = await service.act(game_id=game_id, user_id=view.to_move_id, text=legal[0])
            assert moved.game.ply == view.ply + 1
            await service.resign(game_id=game_id, user_id=view.white_id)
        for game_id in (1, 2):
            await service.resign(game_id=game_id, user_id=101)
        # every game that has dice verifies, old and new
        for game_id in (1, 2, 3, 4, 5, 6, 7, 8):
            report = await service.verify(game_id=game_id)
            assert report.ok, report.messages
        history = await service.history(game_id=7)
        assert history.entries[-1].kind == "abort" and history.entries[-1].actor_id == 999
    finally:
        await service.close()


async def test_a_failed_migration_changes_nothing(v1_db: Path) -> None:
    # an orphan log entry (its game is gone) breaks a reference: the migration must refuse
    conn = sqlite3.connect(v1_db)
    conn.execute("PRAGMA foreign_keys = OFF")
    conn.execute(
        "INSERT INTO actions (game_id, seq, kind, text, created_at) VALUES (99, 1, 'move', 'e4', '')"
    )
    conn.commit()
    conn.close()
    with pytest.raises(StorageError, match="references"):
        await SqliteRepository.open(v1_db)
    assert rows(v1_db, "PRAGMA user_version") == [(1,)]
    assert rows(v1_db, "SELECT count(*) FROM games") == [(8,)]
    names = {r[0] for r in rows(v1_db, "SELECT name FROM sqlite_master")}
    assert "games_v2" not in names and "games_one_live_per_location" in names


# ----- version 3 (issue 13): time ---------------------------------------------------------


def v2_db(v1_db: Path) -> Path:
    """The v1 dump brought to version 2 only (as the code before issue 13 left it)."""
    from storage.migrations import MIGRATIONS

    conn = sqlite3.connect(v1_db, isolation_level=None)
    conn.execute("PRAGMA foreign_keys = OFF")
    conn.execute("BEGIN IMMEDIATE")
    for statement in MIGRATIONS[1]:
        conn.execute(statement)
    conn.execute("PRAGMA user_version = 2")
    conn.execute("COMMIT")
    conn.close()
    return v1_db


async def test_migration_3_adds_the_clock_and_keeps_every_entry(v1_db: Path) -> None:
    path = v2_db(v1_db)
    games_before = rows(path, "SELECT * FROM games ORDER BY id")
    actions_before = rows(path, "SELECT * FROM actions ORDER BY game_id, seq")
    created = dict(rows(path, "SELECT id, created_at FROM games WHERE status = 'challenge'"))
    repo = await SqliteRepository.open(path)
    try:
        assert await repo.schema_version() == LATEST_VERSION >= 3
        for game_id, created_at in created.items():  # old challenges expire 24 hours after
            game = await repo.get_game(game_id)
            assert game is not None and game.time_days is None
            made = datetime.fromisoformat(str(created_at))
            assert game.deadline_ms == int(made.timestamp()) * 1000 + 86_400_000
        for game in await repo.list_games(GameQuery(statuses=("active",))):
            assert game.time_days is None and game.deadline_ms is None  # untimed
        # every game and every entry is still there, column for column (the new ones last)
        after = rows(path, "SELECT * FROM games ORDER BY id")
        assert [r[: len(games_before[0])] for r in after] == games_before
        log = rows(path, "SELECT * FROM actions ORDER BY game_id, seq")
        assert [r[: len(actions_before[0])] for r in log] == actions_before
        # the challenges are due (their 24 hours are long past); nothing else is
        due = await repo.due_games(2**53)
        assert sorted(d.game_id for d in due) == sorted(created)
        async with repo.write() as tx:  # the new kinds are accepted, in order
            count = (await tx.get_game(3)).log_count  # type: ignore[union-attr]
            await tx.upsert_player(999)
            await tx.append_action(
                NewAction(3, count + 1, "extend", 999, "1 day added to white's clock")
            )
            await tx.append_action(
                NewAction(3, count + 2, "timeout", None, "white ran out of time")
            )
        with pytest.raises(StorageError):  # refused by the store when it arrives, in write()
            async with repo.write() as tx:
                await tx.append_action(NewAction(3, count + 3, "bogus", None, "x"))  # type: ignore[arg-type]
        assert (await repo.get_game(3)).log_count == count + 2  # type: ignore[union-attr]
    finally:
        await repo.close()
    assert rows(path, "PRAGMA foreign_key_check") == []
    assert rows(path, "PRAGMA integrity_check") == [("ok",)]
    names = {r[0] for r in rows(path, "SELECT name FROM sqlite_master")}
    assert {"games_due", "actions_in_order", "actions_counted", "actions_no_update"} <= names
    assert "actions_v3" not in names
    conn = sqlite3.connect(path)
    try:
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            conn.execute("UPDATE actions SET text = 'x' WHERE game_id = 3")
        with pytest.raises(sqlite3.IntegrityError, match="out of order"):
            conn.execute(
                "INSERT INTO actions (game_id, seq, kind, text, roll_index, created_at) "
                "VALUES (3, 99, 'move', 'e4', 0, '')"
            )
    finally:
        conn.close()


def schema_of(path: Path) -> list[tuple[object, ...]]:
    """Every table, column, index and trigger of a file, with the SQL SQLite keeps."""
    objects = rows(
        path,
        "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' "
        "ORDER BY type, name",
    )
    columns = [
        (table, *column)
        for (kind, table, _, _) in objects
        if kind == "table"
        for column in rows(path, f"PRAGMA table_info({table!r})")
    ]
    return [*objects, *columns, *rows(path, "PRAGMA user_version")]


async def test_a_new_file_gets_the_schema_every_migration_in_turn_makes(tmp_path: Path) -> None:
    """A new file is given the latest schema at once (``latest_schema``); a file that was
    made by the first migration alone takes every later one in turn. Both end with the
    same tables, columns, indexes, triggers and SQL, and the same version."""
    from storage.migrations import MIGRATIONS

    new, old = tmp_path / "new.sqlite3", tmp_path / "old.sqlite3"
    conn = sqlite3.connect(old, isolation_level=None)
    for statement in MIGRATIONS[0]:
        conn.execute(statement)
    conn.execute("PRAGMA user_version = 1")
    conn.close()
    for path in (new, old):
        store = await SqliteRepository.open(str(path))
        await store.close()
    assert rows(new, "PRAGMA user_version") == [(LATEST_VERSION,)]
    assert schema_of(new) == schema_of(old)
    assert len(schema_of(new)) > 100  # the comparison sees the whole schema
