"""The migration that admits ``undo`` log entries (issue 11, hot-seat take-backs), on a
real database written by the schema just before it (the version-1 dump of
``data/v1_games.sql`` brought up to that schema). The migration is found by what it
does, not by its number: the lead renumbers migrations when branches merge (C11)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from bot.service import GameService
from storage import LATEST_VERSION, ConflictError, NewAction, SqliteRepository, StorageError
from storage.migrations import MIGRATIONS

V1_DUMP = Path(__file__).parent / "data" / "v1_games.sql"
UNDO = next(n for n, m in enumerate(MIGRATIONS, 1) if any("'undo'" in s for s in m))
TRIGGERS = {
    "actions_no_update",
    "actions_no_delete",
    "actions_in_order",
    "actions_counted",
    "actions_undo_rolls_nothing",
}


def rows(path: Path, sql: str) -> list[tuple[object, ...]]:
    conn = sqlite3.connect(path)
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


@pytest.fixture
def before_undo(tmp_path: Path) -> Path:
    """A database at the version just before the undo migration."""
    path = tmp_path / "before.sqlite3"
    conn = sqlite3.connect(path, isolation_level=None)
    conn.executescript(V1_DUMP.read_text())
    conn.execute("PRAGMA foreign_keys = OFF")
    conn.execute("BEGIN")
    for number in range(2, UNDO):
        for statement in MIGRATIONS[number - 1]:
            conn.execute(statement)
        conn.execute(f"PRAGMA user_version = {number}")
    conn.execute("COMMIT")
    conn.close()
    return path


def test_the_undo_migration_is_the_last_or_before_it(before_undo: Path) -> None:
    assert 2 <= UNDO <= LATEST_VERSION
    assert rows(before_undo, "PRAGMA user_version") == [(UNDO - 1,)]
    with pytest.raises(sqlite3.IntegrityError, match="CHECK"):  # the old schema refuses it
        conn = sqlite3.connect(before_undo)
        try:
            conn.execute(
                "INSERT INTO actions (game_id, seq, kind, text, roll_index, created_at) "
                "VALUES (3, 10, 'undo', 'undo x', (SELECT roll_count FROM games WHERE id = 3), '')"
            )
        finally:
            conn.close()


async def test_the_log_comes_through_unchanged_and_takes_undo(before_undo: Path) -> None:
    columns = "game_id, seq, kind, request_id, actor_id, text, rolls, roll_index, created_at"
    log = rows(before_undo, f"SELECT {columns} FROM actions ORDER BY game_id, seq")
    games = rows(before_undo, "SELECT * FROM games ORDER BY id")
    repo = await SqliteRepository.open(before_undo)
    try:
        assert await repo.schema_version() == LATEST_VERSION
        with pytest.raises(ConflictError):  # still in order only: entry 11 would leave a gap
            async with repo.write() as tx:
                await tx.append_action(NewAction(3, 11, "undo", 101, "undo x"))
        with pytest.raises(StorageError, match="an undo rolls no dice"):
            async with repo.write() as tx:
                await tx.append_action(NewAction(3, 10, "undo", 101, "undo x", ((4, 1),)))
    finally:
        await repo.close()
    assert rows(before_undo, f"SELECT {columns} FROM actions ORDER BY game_id, seq") == log
    # Every column the games had comes through unchanged (later migrations add columns).
    old_columns = ", ".join(r[1] for r in rows(before_undo, "PRAGMA table_info(games)")[:24])
    assert len(games[0]) == 24
    assert rows(before_undo, f"SELECT {old_columns} FROM games ORDER BY id") == games
    names = {
        r[0] for r in rows(before_undo, "SELECT name FROM sqlite_master WHERE type = 'trigger'")
    }
    assert TRIGGERS <= names
    assert "actions_undo" not in {r[0] for r in rows(before_undo, "SELECT name FROM sqlite_master")}
    assert rows(before_undo, "PRAGMA integrity_check") == [("ok",)]
    assert rows(before_undo, "PRAGMA foreign_key_check") == []
    conn = sqlite3.connect(before_undo)
    try:
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            conn.execute("UPDATE actions SET text = 'e5' WHERE game_id = 3 AND seq = 1")
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            conn.execute("DELETE FROM actions WHERE game_id = 3")
    finally:
        conn.close()


async def test_a_migrated_game_plays_and_takes_back(before_undo: Path) -> None:
    service = await GameService.open(str(before_undo), renderer=None, dice_renderer=None)
    try:
        view = await service.view(game_id=8)  # an active game stored before the migration
        legal = await service.legal_moves(game_id=8)
        moved = await service.act(game_id=8, user_id=view.to_move_id, text=legal[0])
        if moved.rolls:  # the variant rolled dice after it: no take-back, and nothing logged
            with pytest.raises(Exception, match="cannot be taken back"):
                await service.undo(game_id=8, user_id=view.white_id)
        else:
            back = await service.undo(game_id=8, user_id=view.white_id)
            assert back.game.ply == view.ply and back.game.dice == view.dice
        await service.resign(game_id=8, user_id=view.white_id)
        assert (await service.verify(game_id=8)).ok
    finally:
        await service.close()
