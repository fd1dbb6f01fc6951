"""The operator's look at a store, without changing it: an online backup of an SQLite
file (``chessgarden backup``), and what ``chessgarden doctor`` needs to know (does the
store open, at which schema version, is the file sound, which channels hold live games).

Nothing here migrates a store or creates one. ``SqliteRepository.open`` would do both, so
these functions use their own plain connections: a doctor run by a newer Chess Garden must
not migrate the store under a running older bot.

The backup uses SQLite's online backup API in steps, inside one read transaction on the
source: in WAL mode that transaction sees one committed state from the first page to the
last while the bot goes on writing (its writes neither block the copy nor restart it). The
copy is written next to the target as ``OUT.partial`` and renamed into place only once it
is complete and checked, so a failed backup never leaves a half file under the target's
name. The copy is switched to the plain rollback journal: a single self-contained file.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import AsyncIterator, Callable
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiosqlite

from storage.migrations import LATEST_VERSION
from storage.models import LIVE_STATUSES, ActionRow, GameQuery, GameRow
from storage.opening import open_cause
from storage.postgres import _asyncpg, redact
from storage.repository import StorageError, StoreOpenError

STEP_PAGES = 1024  # pages per backup step (4 MiB with 4 KiB pages): progress between steps
ALL = 2**62


class BackupError(StorageError):
    """The backup could not be made or does not check; one line, nothing left at the target."""


class TargetExists(BackupError):
    """The target file exists and ``force`` was not given; nothing was copied."""


@dataclass(frozen=True)
class BackupFacts:
    pages: int
    page_size: int
    version: int  # the schema version (PRAGMA user_version) of the copy

    @property
    def size_bytes(self) -> int:
        return self.pages * self.page_size


@dataclass(frozen=True)
class StoreFacts:
    """What ``doctor`` learned about a store. ``version`` None: no schema yet (an empty
    database the bot will set up). ``integrity``: "ok", or SQLite's first complaint, or
    None when not checked. ``channels``: (guild id, channel or thread id) of each live
    game (a challenge or a game in play) in a server."""

    shown: str
    version: int | None
    latest: int
    integrity: str | None = None
    size_bytes: int | None = None
    channels: tuple[tuple[int, int], ...] = ()


def _ro_uri(path: str) -> str:
    return Path(path).resolve().as_uri() + "?mode=ro"


def _cannot(path: str, error: BaseException) -> StoreOpenError:
    return StoreOpenError(f"cannot open the database {path}: {open_cause(path, error)}")


# ----- backup -------------------------------------------------------------------------------


def backup_sqlite(
    source: str,
    target: str,
    *,
    step_pages: int = STEP_PAGES,
    progress: Callable[[int, int], None] | None = None,
    force: bool = False,
) -> BackupFacts:
    """Copy the SQLite database ``source`` to the new file ``target`` while others may
    write to it, and check the copy (``PRAGMA integrity_check``, its schema version).
    ``progress(done_pages, total_pages)`` after each step. Raises ``StoreOpenError`` when
    the source cannot be read and ``BackupError`` for the rest; the target is then left as
    it was."""
    src_path, out = Path(source), Path(target)
    if not src_path.is_file():
        raise StoreOpenError(f"cannot open the database {source}: there is no such file")
    if out.is_dir():
        raise BackupError(f"{target} is a folder; name a new file")
    if out.exists() and not force:
        raise TargetExists(f"{target} already exists; choose a new name, or add --force")
    if out.exists() and out.resolve() == src_path.resolve():
        raise BackupError(f"{target} is the database itself; choose another name")
    if not out.parent.is_dir():
        raise BackupError(f"cannot write {target}: the folder {out.parent} does not exist")
    partial = out.with_name(out.name + ".partial")
    try:
        facts = _copy(source, partial, step_pages, progress)
        try:
            os.replace(partial, out)
        except OSError as error:
            raise BackupError(f"cannot write {target}: {error.strerror}") from error
    except BaseException:
        for leftover in (partial, Path(f"{partial}-journal")):
            leftover.unlink(missing_ok=True)
        raise
    return facts


def _copy(
    source: str,
    partial: Path,
    step_pages: int,
    progress: Callable[[int, int], None] | None,
) -> BackupFacts:
    partial.unlink(missing_ok=True)
    try:
        src = sqlite3.connect(_ro_uri(source), uri=True, isolation_level=None)
    except sqlite3.Error as error:
        raise _cannot(source, error) from error
    with closing(src):
        try:
            src.execute("PRAGMA busy_timeout = 10000")
            # One read transaction for the whole copy: every step sees the same state.
            src.execute("BEGIN")
            version = int(src.execute("PRAGMA user_version").fetchone()[0])
            src.execute("SELECT count(*) FROM sqlite_master").fetchone()
        except sqlite3.Error as error:
            raise _cannot(source, error) from error
        try:
            dst = sqlite3.connect(partial, isolation_level=None)
        except sqlite3.Error as error:
            raise BackupError(
                f"cannot write {partial}: {open_cause(str(partial), error)}"
            ) from error
        with closing(dst):
            try:
                src.backup(
                    dst,
                    pages=max(1, step_pages),
                    progress=(lambda _s, left, total: progress(total - left, total))
                    if progress
                    else None,
                )
            except sqlite3.Error as error:
                raise BackupError(f"the copy failed: {open_cause(str(partial), error)}") from error
            finally:
                src.execute("COMMIT")
            try:
                dst.execute("PRAGMA journal_mode = DELETE")
                facts = check_copy(dst)
            except sqlite3.Error as error:
                raise BackupError(f"the copy cannot be read back: {error}") from error
    if facts.version != version:
        raise BackupError(
            f"the copy has schema version {facts.version}, the database {version}; try again"
        )
    return facts


def check_copy(conn: sqlite3.Connection) -> BackupFacts:
    """The copy's size and schema version, after SQLite's full integrity check."""
    problems = [row[0] for row in conn.execute("PRAGMA integrity_check(5)").fetchall()]
    if problems != ["ok"]:
        raise BackupError(f"the copy is damaged: {'; '.join(problems)}")
    pages = int(conn.execute("PRAGMA page_count").fetchone()[0])
    size = int(conn.execute("PRAGMA page_size").fetchone()[0])
    return BackupFacts(pages, size, int(conn.execute("PRAGMA user_version").fetchone()[0]))


async def stored_games(path: str) -> AsyncIterator[tuple[GameRow, list[ActionRow]]]:
    """Every game in the SQLite file ``path`` (oldest first) with its log, read-only.
    The file must be at this code's schema version (``LATEST_VERSION``)."""
    from storage.sqlite import _Reads

    conn = aiosqlite.connect(_ro_uri(path), uri=True, isolation_level=None)
    try:
        await conn
        reads = _Reads(conn)
        games = await reads.list_games(GameQuery(limit=ALL))
        for game in sorted(games, key=lambda g: g.id):
            yield game, await reads.actions(game.id)
    finally:
        await conn.close()


# ----- doctor -------------------------------------------------------------------------------

_LIVE_CHANNELS = (
    "SELECT DISTINCT guild_id, location_id FROM games WHERE guild_id IS NOT NULL "
    f"AND status IN ({', '.join(repr(s) for s in LIVE_STATUSES)}) ORDER BY guild_id, location_id"
)


def probe_sqlite(path: str, *, thorough: bool = True) -> StoreFacts:
    """Open the SQLite file read-only and read its schema version, and with ``thorough``
    SQLite's quick check and the live games' channels. A missing file: ``version`` None.
    Raises ``StoreOpenError`` (one line) when the file cannot be read."""
    target = Path(path)
    if not target.exists():
        return StoreFacts(path, None, LATEST_VERSION)
    if target.is_dir():
        raise StoreOpenError(f"cannot open the database {path}: it is a folder, not a file")
    try:
        conn = sqlite3.connect(_ro_uri(path), uri=True, isolation_level=None)
    except sqlite3.Error as error:
        raise _cannot(path, error) from error
    with closing(conn):
        try:
            conn.execute("PRAGMA busy_timeout = 5000")
            version = int(conn.execute("PRAGMA user_version").fetchone()[0])
            tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
            integrity = channels = None
            if thorough:
                found = [r[0] for r in conn.execute("PRAGMA quick_check(5)").fetchall()]
                integrity = "; ".join(found)
                if integrity == "ok" and "games" in tables:
                    channels = tuple(
                        (int(g), int(c)) for g, c in conn.execute(_LIVE_CHANNELS).fetchall()
                    )
        except sqlite3.Error as error:
            raise _cannot(path, error) from error
    return StoreFacts(
        path,
        version if version or tables else None,
        LATEST_VERSION,
        integrity,
        target.stat().st_size,
        channels or (),
    )


async def probe_postgres(url: str, *, timeout: float = 10.0, thorough: bool = True) -> StoreFacts:
    """Connect once (no pool, no migration) and read the schema version and, with
    ``thorough``, the live games' channels. Raises ``StoreOpenError`` (one line, no
    password) when it cannot."""
    from storage.pg_migrations import PG_LATEST_VERSION

    asyncpg = _asyncpg()
    shown = redact(url)
    try:
        conn = await asyncpg.connect(url, timeout=timeout)
    except Exception as error:
        said = " ".join(str(error).split()) or type(error).__name__
        raise StoreOpenError(f"cannot open the database {shown}: {said}") from error
    try:
        if await conn.fetchval("SELECT to_regclass('chessgarden_schema')") is None:
            return StoreFacts(shown, None, PG_LATEST_VERSION)
        version = await conn.fetchval("SELECT version FROM chessgarden_schema")
        rows: list[Any] = []
        if thorough and version is not None:
            rows = await conn.fetch(_LIVE_CHANNELS)
    except Exception as error:
        said = " ".join(str(error).split()) or type(error).__name__
        raise StoreOpenError(f"cannot read the database {shown}: {said}") from error
    finally:
        await conn.close()
    return StoreFacts(
        shown,
        None if version is None else int(version),
        PG_LATEST_VERSION,
        channels=tuple((int(r[0]), int(r[1])) for r in rows),
    )
