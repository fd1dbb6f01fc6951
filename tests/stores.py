"""Reaching a test's store behind the service's back, on either backend (issue 16).

``target`` is what ``store_target`` gave the test: an SQLite path or a PostgreSQL URL.
SQL is written once, in SQLite's ``?`` style; for PostgreSQL each ``?`` becomes ``$n``.
"""

from __future__ import annotations

import os
import re
import sqlite3
from typing import Any

import pgcluster

# The table of each log-protecting trigger (``tamper`` turns them off).
TRIGGER_TABLES = {
    "actions_no_update": "actions",
    "actions_no_delete": "actions",
    "actions_in_order": "actions",
    "actions_counted": "actions",
    "games_start_rolls_once": "games",
    "games_seed_once": "games",
}


def is_pg(target: str | os.PathLike[str]) -> bool:
    return str(target).startswith(("postgresql://", "postgres://"))


def _dollars(sql: str) -> str:
    count = 0

    def number(_: re.Match[str]) -> str:
        nonlocal count
        count += 1
        return f"${count}"

    return re.sub(r"\?", number, sql)


def raw(
    target: str | os.PathLike[str], sql: str, params: tuple[Any, ...] = ()
) -> list[tuple[Any, ...]]:
    """Run one statement; its rows (none for a change)."""
    if is_pg(target):
        return pgcluster.query(str(target), _dollars(sql), params)
    with sqlite3.connect(target) as conn:
        return conn.execute(sql, params).fetchall()


def tamper(
    target: str | os.PathLike[str],
    sql: str,
    params: tuple[Any, ...] = (),
    *,
    triggers: tuple[str, ...] = (),
) -> None:
    """Run a change the store forbids, with the named triggers off (for good)."""
    if is_pg(target):
        for name in triggers:
            pgcluster.execute(
                str(target), f"ALTER TABLE {TRIGGER_TABLES[name]} DISABLE TRIGGER {name}"
            )
        pgcluster.execute(str(target), _dollars(sql), params)
        return
    with sqlite3.connect(target) as conn:
        for name in triggers:
            conn.execute(f"DROP TRIGGER {name}")
        conn.execute(sql, params)
