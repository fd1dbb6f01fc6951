"""SQLite's faults in the store's own words (issue 24).

- ``store_error``: every ``sqlite3`` error (and aiosqlite's "connection closed") as a
  ``StorageError``: a lock held too long is ``StoreBusyError``, a full disk
  ``StoreFullError``, a failed disk read or write or a read-only file
  ``StoreLostError``, a damaged file ``StoreDamagedError`` ("chessgarden.sqlite3 is
  damaged (database disk image is malformed): restore it from a backup"), a missing
  table or column ``SchemaError``. Each is one line. The connection a statement ran on
  names the file (``name_connection``).
- ``check_tables``: before migrating a file from the version it records, its tables must
  be those of that version. A version set back by hand (``PRAGMA user_version`` lowered)
  would otherwise re-run migrations on tables that already have their columns
  ("duplicate column name"); this says so in one line instead, and names the version the
  tables are really at.

SQLite has no "unknown commit outcome" in this process: ``COMMIT`` is a library call
that returns only once the transaction is either in the log or not, and after an error
the transaction is rolled back (by SQLite, or by the ``ROLLBACK`` that follows). So every
error here means "nothing of this transaction was stored".
"""

from __future__ import annotations

import functools
import sqlite3
import weakref
from pathlib import Path
from typing import Any

from storage.migrations import MIGRATIONS
from storage.repository import (
    SchemaError,
    StorageError,
    StoreBusyError,
    StoreDamagedError,
    StoreFullError,
    StoreLostError,
)

_paths: weakref.WeakKeyDictionary[Any, str] = weakref.WeakKeyDictionary()


def name_connection(conn: Any, path: str) -> None:
    """Remember which file ``conn`` is open on, for the messages."""
    _paths[conn] = path


def file_name(conn: Any) -> str:
    path = _paths.get(conn, "") if conn is not None else ""
    return Path(path).name if path and path != ":memory:" else "the database"


def _primary(error: BaseException) -> int | None:
    code = getattr(error, "sqlite_errorcode", None)
    return code & 0xFF if isinstance(code, int) else None


def said(error: BaseException) -> str:
    return " ".join(str(error).split()) or type(error).__name__


def damaged(name: str, error: BaseException) -> StoreDamagedError:
    return StoreDamagedError(f"{name} is damaged ({said(error)}): restore it from a backup")


def store_error(error: BaseException, conn: Any = None) -> BaseException:
    """``error`` (raised by a statement on ``conn``) as the store's own error; anything
    that is not SQLite's is returned as it is. Integrity errors are left to the caller
    (``storage.sqlite._conflict`` names the rule)."""
    name = file_name(conn)
    if isinstance(error, ValueError) and "connection" in str(error).lower():
        return StorageError("the store is closed")  # aiosqlite after close()
    if not isinstance(error, sqlite3.Error):
        return error
    code = _primary(error)
    text = said(error)
    if code in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED):
        return StoreBusyError(f"the database is locked by another connection ({text})")
    if code == sqlite3.SQLITE_FULL:
        return StoreFullError(f"the disk holding the database is full ({text})")
    if code in (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB):
        return damaged(name, error)
    if code in (sqlite3.SQLITE_IOERR, sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_NOMEM):
        return StoreLostError(f"a disk read or write of {name} failed ({text})")
    if code in (sqlite3.SQLITE_READONLY, sqlite3.SQLITE_PERM, sqlite3.SQLITE_AUTH):
        return StoreLostError(f"{name} cannot be written now ({text})")
    if "no such table" in text or "no such column" in text:
        return SchemaError(
            f"the tables of {name} are not those this Chess Garden expects ({text}): "
            "restore it from a backup"
        )
    if isinstance(error, sqlite3.ProgrammingError) and "closed" in text:
        return StorageError("the store is closed")
    return StorageError(f"database error in {name}: {text}")


# ----- is the schema the one its version number says? --------------------------------------

Fingerprint = frozenset[tuple[str, ...]]


def _fingerprint_of(conn: sqlite3.Connection) -> Fingerprint:
    items: set[tuple[str, ...]] = set()
    objects = conn.execute(
        "SELECT type, name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'"
    ).fetchall()
    for kind, name in objects:
        items.add((str(kind), str(name)))
        if kind == "table":
            for column in conn.execute(f"PRAGMA table_info({name!r})").fetchall():
                items.add(("column", str(name), str(column[1])))
    return frozenset(items)


def version_fingerprints() -> tuple[Fingerprint, ...]:
    """The tables, columns, indexes and triggers of each schema version, 0 to the latest,
    made by running the migrations on an empty database in memory (a few milliseconds)."""
    return _versions()[0]


def latest_schema() -> tuple[str, ...]:
    """The statements that make an empty file's schema the latest version's at once: each
    table's, then each index's and trigger's, as SQLite recorded them after running every
    migration on an empty database (``_versions``). On an empty file the migrations' data
    steps copy nothing, so these statements make exactly what the migrations would, in
    about a third of the time (a test compares the two schemas)."""
    return _versions()[1]


@functools.lru_cache(maxsize=1)
def _versions() -> tuple[tuple[Fingerprint, ...], tuple[str, ...]]:
    conn = sqlite3.connect(":memory:", isolation_level=None)
    try:
        prints = [_fingerprint_of(conn)]
        for statements in MIGRATIONS:
            for statement in statements:
                conn.execute(statement)
            prints.append(_fingerprint_of(conn))
        made = conn.execute(
            "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' "
            "ORDER BY type != 'table', rowid"
        ).fetchall()
        return tuple(prints), tuple(str(row[0]) for row in made)
    finally:
        conn.close()


async def _fingerprint(conn: Any) -> Fingerprint:
    """The schema of the file ``conn`` is open on (an aiosqlite connection)."""
    items: set[tuple[str, ...]] = set()
    objects = await conn.execute_fetchall(
        "SELECT type, name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'"
    )
    for kind, name in objects:
        items.add((str(kind), str(name)))
        if kind == "table":
            for column in await conn.execute_fetchall(f"PRAGMA table_info({name!r})"):
                items.add(("column", str(name), str(column[1])))
    return frozenset(items)


async def check_tables(conn: Any, version: int, path: str) -> None:
    """Refuse to migrate a file whose tables are those of another version than the one
    it records (``SchemaError``, one line). Objects no version has (a user's own table,
    ``sqlite_stat1``) are ignored; tables that match no version exactly are left to the
    migration, which then fails with its own words (``migration_failed``)."""
    prints = version_fingerprints()
    known: set[tuple[str, ...]] = set().union(*prints)
    found = frozenset(item for item in await _fingerprint(conn) if item in known)
    if found == prints[version]:
        return
    for really, expected in enumerate(prints):
        if found == expected and really != version:
            way = "set back" if really > version else "set forward"
            raise SchemaError(
                f"cannot open the database {path}: its schema version says {version} but "
                f"the tables are those of version {really}: the version was {way}; set it "
                f"to {really} (sqlite3 {path} 'PRAGMA user_version = {really}') or restore "
                "a backup"
            )


def migration_failed(path: str, version: int, error: BaseException) -> SchemaError:
    """A migration from ``version`` refused by the file's tables: they are not those of
    the version the file records."""
    return SchemaError(
        f"cannot open the database {path}: its schema version says {version} but its "
        f"tables do not match that version ({said(error)}); restore it from a backup"
    )
