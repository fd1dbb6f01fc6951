"""The ratings migration (issue 15) on a populated database written by the schema just
before it: the version-1 dump brought up to that schema, plus a few thousand games of
every status. Found by what it does, not by its number (C11: the lead renumbers)."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

import pytest

from bot.service import GameService
from storage import LATEST_VERSION, SqliteRepository
from storage.migrations import MIGRATIONS

V1_DUMP = Path(__file__).parent / "data" / "v1_games.sql"
RATINGS = next(
    n for n, m in enumerate(MIGRATIONS, 1) if any("CREATE TABLE ratings" in s for s in m)
)
SYNTHETIC = 3000


def rows(path: Path, sql: str) -> list[tuple[object, ...]]:
    conn = sqlite3.connect(path)
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


def _populate(conn: sqlite3.Connection) -> None:
    """Games of every status with their logs, as the service writes them."""
    rng = random.Random(11)
    statuses = ["finished", "finished", "active", "aborted", "challenge", "declined"]
    for pid in range(1, 41):
        conn.execute(
            "INSERT OR IGNORE INTO players (id, name, created_at, updated_at) "
            "VALUES (?, ?, '2026-01-01T00:00:00.000+00:00', '2026-01-01T00:00:00.000+00:00')",
            (pid, f"p{pid}"),
        )
    for n in range(SYNTHETIC):
        status = rng.choice(statuses)
        white, black = rng.sample(range(1, 41), 2)
        started = status not in ("challenge", "declined")
        stamp = f"2026-02-{1 + n % 27:02d}T{n % 24:02d}:{n % 60:02d}:00.{n % 1000:03d}+00:00"
        result = rng.choice(["1-0", "0-1", "1/2-1/2"]) if status == "finished" else None
        cur = conn.execute(
            "INSERT INTO games (variant, options, status, location_id, guild_id, "
            "challenger_id, opponent_id, challenger_colour, white_id, black_id, result, "
            "result_reason, seed, commitment, start_rolls, created_at, updated_at) "
            "VALUES (?, '{}', ?, ?, ?, ?, ?, 'white', ?, ?, ?, ?, ?, ?, '[]', ?, ?)",
            (
                rng.choice(["guardener", "stone_garden"]),
                status,
                100_000 + n,
                rng.choice([None, 5, 6]),
                white,
                black,
                white if started else None,
                black if started else None,
                result,
                "resignation" if result else None,
                f"seed{n}" if started else None,
                f"commit{n}" if started else None,
                stamp,
                stamp,
            ),
        )
        if started:
            game_id = cur.lastrowid
            kind = {"finished": "resign", "aborted": "abort"}.get(status, "move")
            conn.execute(
                "INSERT INTO actions (game_id, seq, kind, actor_id, text, rolls, roll_index, "
                "created_at) VALUES (?, 1, ?, ?, 'x', '[]', 0, ?)",
                (game_id, kind, white, stamp),
            )


@pytest.fixture
def before_ratings(tmp_path: Path) -> Path:
    path = tmp_path / "before.sqlite3"
    conn = sqlite3.connect(path, isolation_level=None)
    conn.executescript(V1_DUMP.read_text())
    conn.execute("PRAGMA foreign_keys = OFF")
    conn.execute("BEGIN")
    for number in range(2, RATINGS):
        for statement in MIGRATIONS[number - 1]:
            conn.execute(statement)
        conn.execute(f"PRAGMA user_version = {number}")
    _populate(conn)
    conn.execute("COMMIT")
    conn.close()
    return path


async def test_the_ratings_migration_keeps_everything_and_rates_nothing_old(
    before_ratings: Path,
) -> None:
    assert rows(before_ratings, "PRAGMA user_version") == [(RATINGS - 1,)]
    games = rows(before_ratings, "SELECT * FROM games ORDER BY id")
    width = len(games[0])
    log = rows(before_ratings, "SELECT * FROM actions ORDER BY game_id, seq")
    players = rows(before_ratings, "SELECT * FROM players ORDER BY id")
    assert len(games) > SYNTHETIC
    repo = await SqliteRepository.open(before_ratings)
    try:
        assert await repo.schema_version() == LATEST_VERSION
        old = [c[1] for c in rows(before_ratings, "PRAGMA table_xinfo(games)")][:width]
        # No loss: every old column of every game, the whole log and the players.
        assert rows(before_ratings, f"SELECT {', '.join(old)} FROM games ORDER BY id") == games
        # (later migrations may add columns to the log, and fill them: the chain's digest)
        after = rows(before_ratings, "SELECT * FROM actions ORDER BY game_id, seq")
        assert [entry[: len(log[0])] for entry in after] == log
        assert rows(before_ratings, "SELECT * FROM players ORDER BY id") == players
        # Old games were played unrated; finished ones are numbered in the order they
        # last changed, 1..n with no gap; the others have no number.
        assert rows(before_ratings, "SELECT DISTINCT rated FROM games") == [(0,)]
        finished = rows(
            before_ratings,
            "SELECT finish_order FROM games WHERE status = 'finished' ORDER BY updated_at, id",
        )
        assert [f for (f,) in finished] == list(range(1, len(finished) + 1))
        assert rows(
            before_ratings,
            "SELECT COUNT(*) FROM games WHERE status <> 'finished' AND finish_order IS NOT NULL",
        ) == [(0,)]
        assert rows(before_ratings, "SELECT COUNT(*) FROM ratings") == [(0,)]
        names = {r[0] for r in rows(before_ratings, "SELECT name FROM sqlite_master")}
        assert {
            "ratings",
            "rating_changes",
            "ratings_board",
            "ratings_by_player",
            "rating_changes_by_player",
            "games_finish_order",
        } <= names
        assert rows(before_ratings, "PRAGMA integrity_check") == [("ok",)]
        assert rows(before_ratings, "PRAGMA foreign_key_check") == []
    finally:
        await repo.close()
    # The migrated database plays on: a new rated game is rated after the old ones.
    service = await GameService.open(str(before_ratings), renderer=None)
    try:
        assert (await service.rebuild_ratings(check=True)).matched
        await service.challenge(
            location_id=1,
            challenger_id=901,
            opponent_id=902,
            variant="guardener",
            colour="white",
            guild_id=5,
            rated=True,
        )
        await service.accept(location_id=1, user_id=902, render=False)
        out = await service.resign(location_id=1, user_id=902)
        assert len(out.ratings) == 4
        order = rows(before_ratings, f"SELECT finish_order FROM games WHERE id = {out.game.id}")
        assert order == [(len(finished) + 1,)]
        assert (await service.rebuild_ratings(check=True)).matched
    finally:
        await service.close()


def test_the_ratings_migration_is_one_appended_migration() -> None:
    assert 1 < RATINGS <= LATEST_VERSION  # appended; the lead may renumber
    assert sum(any("CREATE TABLE ratings" in s for s in m) for m in MIGRATIONS) == 1
