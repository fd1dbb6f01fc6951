"""Opening the SQLite store: the causes of a failure in words, and closing what was
opened so that nothing keeps the process alive (issue 9: the bot hung for ever when a
setup PRAGMA failed, because aiosqlite's worker thread was never stopped)."""

from __future__ import annotations

import asyncio
import os
import sqlite3
import threading
import time
from contextlib import suppress
from pathlib import Path

import aiosqlite

from storage.repository import StoreOpenError


def check_path(path: str) -> None:
    """The causes SQLite would only call "unable to open database file"."""
    target = Path(path)
    if not target.parent.exists():
        raise StoreOpenError(
            f"cannot open the database {path}: the folder {target.parent} does not exist"
        )
    if target.is_dir():
        raise StoreOpenError(f"cannot open the database {path}: it is a folder, not a file")


def is_read_only(folder: Path) -> bool:
    try:
        if os.statvfs(folder).f_flag & os.ST_RDONLY:
            return True
    except (OSError, AttributeError):
        pass
    return not os.access(folder, os.W_OK)


def open_cause(path: str, error: BaseException) -> str:
    """Why ``path`` could not be opened, in words, with SQLite's own words after them."""
    code = getattr(error, "sqlite_errorcode", None)
    said = " ".join(str(error).split()) or type(error).__name__
    folder = Path(path).parent
    if code == sqlite3.SQLITE_NOTADB:
        return f"it is not an SQLite database, or it is damaged ({said})"
    if isinstance(code, int) and code & 0xFF == sqlite3.SQLITE_CORRUPT:
        return f"it is damaged ({said}); restore it from a backup"
    if code == sqlite3.SQLITE_FULL:
        return f"the disk is full ({said})"
    if code in (sqlite3.SQLITE_READONLY, sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_PERM) or (
        isinstance(error, PermissionError)
    ):
        if is_read_only(folder):
            return f"the folder {folder} is read-only ({said})"
        if Path(path).exists() and not os.access(path, os.W_OK):
            return f"the file is read-only ({said})"
        return f"it cannot be created or written ({said})"
    if code in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED):
        return f"another process holds it locked ({said})"
    if code == sqlite3.SQLITE_IOERR or (code is not None and code & 0xFF == sqlite3.SQLITE_IOERR):
        return f"a disk read or write failed ({said})"
    return said


async def close_fully(conn: aiosqlite.Connection, timeout: float = 5.0) -> None:
    """Close ``conn`` and wait until its worker thread has ended.

    When connecting fails, aiosqlite queues the thread's stop without waiting for it;
    the thread then reports to an event loop that ``asyncio.run`` may already have
    closed (a traceback on stderr). Waiting here keeps the loop alive until it is done.
    """
    with suppress(Exception):
        await conn.close()
    thread = getattr(conn, "_thread", None)
    if not isinstance(thread, threading.Thread) or thread.ident is None:
        return
    deadline = time.monotonic() + timeout
    while thread.is_alive() and time.monotonic() < deadline:
        await asyncio.sleep(0.001)
