"""The leaderboard and profile queries read index ranges, never a whole table (issue 15:
fast at 100,000 games; ``benchmarks/ratings.py`` prints their times)."""

from __future__ import annotations

import sqlite3

import pytest

from storage.migrations import MIGRATIONS
from storage.standings import LEADERBOARD_SQL, PLAYER_RATINGS_SQL, RANK_SQL, RECENT_CHANGES_SQL


@pytest.fixture
def conn() -> sqlite3.Connection:
    c = sqlite3.connect(":memory:")
    for migration in MIGRATIONS:
        for statement in migration:
            c.execute(statement)
    return c


@pytest.mark.parametrize(
    ("sql", "params", "index"),
    [
        (LEADERBOARD_SQL, (5, "guardener", 10, 0), "ratings_board (scope=? AND variant=?)"),
        (
            RANK_SQL,
            (5, "guardener", 1500.0, 5, "guardener", 1500.0, 3),
            "ratings_board (scope=? AND variant=? AND rating>?)",
        ),
        (PLAYER_RATINGS_SQL, (3, 5), "ratings_by_player (player_id=? AND scope=?)"),
        (
            RECENT_CHANGES_SQL,
            (5, 3, "guardener", 5),
            "rating_changes_by_player (scope=? AND player_id=? AND variant=?)",
        ),
    ],
)
def test_rating_queries_search_an_index(
    conn: sqlite3.Connection, sql: str, params: tuple[object, ...], index: str
) -> None:
    plan = [row[3] for row in conn.execute("EXPLAIN QUERY PLAN " + sql, params)]
    assert any(index in step for step in plan), plan
    assert not any(step.startswith("SCAN") and "CONSTANT" not in step for step in plan), plan
    assert not any("TEMP B-TREE" in step for step in plan), plan  # no sort of a whole set
