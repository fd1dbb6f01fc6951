"""A damaged SQLite file, and one whose schema version was set back, each give one clear
line (issue 24), in this process and through the command line: no traceback, and a
non-zero exit.

The damage is real: a page of a real store (found with SQLite's ``dbstat`` table) is
overwritten with garbage, as a failing disk or a stray write would leave it. The version
is set back with ``PRAGMA user_version``, as an operator restoring by hand might.
"""

from __future__ import annotations

import asyncio
import os
import random
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from bot.service import GameService, ServiceError, StoreDamaged
from storage import (
    LATEST_VERSION,
    SchemaError,
    SqliteRepository,
    StoreDamagedError,
    StoreOpenError,
)

ROOT = Path(__file__).resolve().parents[2]
W, B = 1, 2  # the console's two players
MALFORMED = "database disk image is malformed"


async def _play(db: Path, games: int = 30, moves: int = 5) -> list[int]:
    service = await GameService.open(str(db), renderer=None)
    ids = []
    try:
        for location in range(1, games + 1):
            made = await service.challenge(
                location_id=location, challenger_id=W, opponent_id=B, variant="guardener"
            )
            outcome = await service.accept(game_id=made.game.id, user_id=B, render=False)
            for _ in range(moves):
                legal = await service.legal_moves(game_id=outcome.game.id)
                outcome = await service.act(
                    game_id=outcome.game.id,
                    user_id=outcome.next_user_id,
                    text=legal[0],
                    render=False,
                )
            ids.append(outcome.game.id)
    finally:
        await service.close()
    return ids


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[int]]:
    """A store with 30 games of 5 moves each, every page in the main file."""
    db = tmp_path_factory.mktemp("played") / "chessgarden.sqlite3"
    ids = asyncio.run(_play(db))
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    return db, ids


def copy_of(played: tuple[Path, list[int]], folder: Path) -> Path:
    target = folder / "chessgarden.sqlite3"
    target.write_bytes(played[0].read_bytes())
    return target


def pages_of(db: Path, table: str) -> list[int]:
    conn = sqlite3.connect(db)
    try:
        rows = conn.execute("SELECT pageno FROM dbstat WHERE name = ? ORDER BY pageno", (table,))
        return [int(r[0]) for r in rows]
    finally:
        conn.close()


def damage(db: Path, page: int) -> None:
    """Overwrite page ``page`` (1-based) with garbage."""
    size = sqlite3.connect(db).execute("PRAGMA page_size").fetchone()[0]
    with open(db, "r+b") as out:
        out.seek((page - 1) * size)
        out.write(random.Random(page).randbytes(size))


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bot.cli", *args],
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )


def one_error_line(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode != 0
    assert "Traceback" not in done.stderr, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("error: ")
    return lines[0]


# ----- a damaged page ---------------------------------------------------------------------


async def test_a_damaged_log_page_is_one_line_when_used(
    played: tuple[Path, list[int]], tmp_path: Path
) -> None:
    db = copy_of(played, tmp_path)
    damage(db, pages_of(db, "actions")[-1])
    service = await GameService.open(str(db), renderer=None)  # the games table is whole
    try:
        for call in (
            service.history(game_id=played[1][-1]),
            service.list_games(limit=100, count_moves=True),
        ):
            with pytest.raises(StoreDamaged) as info:
                await call
            assert isinstance(info.value, ServiceError)
            assert str(info.value) == (
                f"chessgarden.sqlite3 is damaged ({MALFORMED}): restore it from a backup"
            )
    finally:
        await service.close()
    done = run_cli("games", "--db", str(db))
    assert one_error_line(done) == (
        f"error: chessgarden.sqlite3 is damaged ({MALFORMED}): restore it from a backup"
    )


async def test_a_damaged_games_page_is_one_line(
    played: tuple[Path, list[int]], tmp_path: Path
) -> None:
    db = copy_of(played, tmp_path)
    damage(db, pages_of(db, "games")[-1])
    expected = f"chessgarden.sqlite3 is damaged ({MALFORMED}): restore it from a backup"
    service = await GameService.open(str(db), renderer=None)  # counting reads an index
    try:
        with pytest.raises(StoreDamaged) as info:
            await service.list_games(limit=100)
        assert str(info.value) == expected
    finally:
        await service.close()
    assert one_error_line(run_cli("games", "--db", str(db))) == f"error: {expected}"


async def test_a_damaged_index_is_one_line_when_opened(
    played: tuple[Path, list[int]], tmp_path: Path
) -> None:
    db = copy_of(played, tmp_path)
    conn = sqlite3.connect(db)
    plan = " ".join(str(r) for r in conn.execute("EXPLAIN QUERY PLAN SELECT count(*) FROM games"))
    conn.close()
    index = re.findall(r"INDEX (\w+)", plan)[0]
    damage(db, pages_of(db, index)[-1])  # the index the opening count reads
    expected = (
        f"cannot open the database {db}: it is damaged ({MALFORMED}); restore it from a backup"
    )
    try:
        repo = await SqliteRepository.open(db)
    except StoreDamagedError as error:
        assert isinstance(error, StoreOpenError)
        assert str(error) == expected
    else:
        await repo.close()
        pytest.fail("a damaged index was opened")
    assert one_error_line(run_cli("games", "--db", str(db))) == f"error: {expected}"


async def test_a_damaged_first_page_is_one_line_when_opened(
    played: tuple[Path, list[int]], tmp_path: Path
) -> None:
    db = copy_of(played, tmp_path)
    damage(db, 1)
    with pytest.raises(StoreDamagedError) as info:
        await SqliteRepository.open(db)
    assert "it is not an SQLite database, or it is damaged" in str(info.value)
    line = one_error_line(run_cli("games", "--db", str(db)))
    assert line == f"error: {info.value}"


# ----- a schema version set back ------------------------------------------------------------


def set_version(db: Path, version: int) -> None:
    conn = sqlite3.connect(db)
    conn.execute(f"PRAGMA user_version = {version}")
    conn.close()


@pytest.mark.parametrize("back", [1, 2])
async def test_a_version_set_back_is_named(
    played: tuple[Path, list[int]], tmp_path: Path, back: int
) -> None:
    db = copy_of(played, tmp_path)
    before = db.read_bytes()
    said = LATEST_VERSION - back
    set_version(db, said)
    expected = (
        f"cannot open the database {db}: its schema version says {said} but the tables are "
        f"those of version {LATEST_VERSION}: the version was set back; set it to "
        f"{LATEST_VERSION} (sqlite3 {db} 'PRAGMA user_version = {LATEST_VERSION}') or "
        "restore a backup"
    )
    with pytest.raises(SchemaError) as info:
        await GameService.open(str(db), renderer=None)
    assert str(info.value) == expected
    assert one_error_line(run_cli("games", "--db", str(db))) == f"error: {expected}"
    changed = db.read_bytes()
    assert len(changed) == len(before)  # nothing was migrated
    set_version(db, LATEST_VERSION)  # the advice works
    service = await GameService.open(str(db), renderer=None)
    try:
        assert len(await service.list_games(limit=100)) == len(played[1])
    finally:
        await service.close()


async def test_tables_of_no_version_name_the_migration_that_failed(
    played: tuple[Path, list[int]], tmp_path: Path
) -> None:
    db = copy_of(played, tmp_path)
    conn = sqlite3.connect(db)
    # The tables of the latest version with one of its indexes gone: no version's exactly.
    index = conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL LIMIT 1"
    ).fetchone()[0]
    conn.execute(f"DROP INDEX {index}")
    conn.execute("PRAGMA user_version = 5")
    conn.close()
    with pytest.raises(SchemaError) as info:
        await SqliteRepository.open(db)
    text = str(info.value)
    assert text.startswith(
        f"cannot open the database {db}: its schema version says 5 but its tables do not "
        "match that version ("
    )
    assert text.endswith("); restore it from a backup") and "\n" not in text
    assert one_error_line(run_cli("games", "--db", str(db))) == f"error: {text}"


async def test_a_fresh_store_and_an_old_one_still_migrate(tmp_path: Path) -> None:
    """The check before migrating passes the tables each version really has."""
    from storage.migrations import MIGRATIONS

    for version in range(LATEST_VERSION):
        db = tmp_path / f"v{version}.sqlite3"
        conn = sqlite3.connect(db, isolation_level=None)
        for statements in MIGRATIONS[:version]:
            for statement in statements:
                conn.execute(statement)
        conn.execute(f"PRAGMA user_version = {version}")
        conn.close()
        repo = await SqliteRepository.open(db)
        try:
            assert await repo.schema_version() == LATEST_VERSION
        finally:
            await repo.close()
