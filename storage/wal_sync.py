"""Group commit for SQLite (issue 26): one sync of the write-ahead log for every durable
commit made while the previous sync ran.

The writer commits with ``synchronous = NORMAL``: ``COMMIT`` appends the transaction to
the log (``<file>-wal``) without waiting for the disk, and releases the write lock at
once. A durable ``write()`` then waits, outside the lock, for a sync of the log that began
after its commit (``WalSync.durable``). While one sync runs, the commits made meanwhile
wait for the next, which covers them all: under load one sync covers several actions,
and no transaction waits for another's sync while holding the lock. With ``FULL``, each
commit synced the log itself while holding the lock, and that sync set the store's pace.

What is shown is durable: a durable ``write()`` returns only after its sync; a read of
the repository (the reader connection) and a non-durable ``write()`` return only after
every durable commit made before them is synced, so nobody is shown a roll that a power
cut could take back (RULES.md section 6). A process that is killed loses nothing: the
log is in the operating system's cache already.

Several processes on one file (docs/scaling.md has SQLite served by one process): each
waits for the syncs of its own commits only, so a read may see another process's commit
in the moment (about a millisecond) before that process has synced it.

A failed sync is final: the log's state on the disk is then unknown (after a failed
``fsync`` Linux may report the lost pages as clean on the next one). The transactions
waiting for it get ``CommitUnknownError`` (stored or not, nobody can tell), and every
later wait ``StoreLostError`` until the process restarts.
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from storage.repository import CommitUnknownError, StoreLostError

THREAD_NAME = "chessgarden-wal-sync"


def _sync_file(path: str) -> None:
    """``fsync`` the file at ``path`` (all its written pages, whoever wrote them). A log
    that is gone was copied into the database and removed by SQLite, which synced the
    database first: nothing is left to sync."""
    try:
        fd = os.open(path, os.O_RDWR | getattr(os, "O_BINARY", 0))
    except FileNotFoundError:
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class WalSync:
    """The durable commits of one writer connection, and the syncs of its log.

    ``committed()`` numbers a durable commit (call it right after the ``COMMIT``, before
    releasing the write lock); ``durable(number)`` waits until a sync that began after
    that commit has finished. ``path`` is the log's file, ``None`` for a database in
    memory (nothing to sync). ``sync`` is the call that syncs it (tests replace it)."""

    def __init__(self, path: str | None, sync: Callable[[str], None] = _sync_file) -> None:
        self.path = path
        self._sync = sync
        self.written = 0  # durable commits numbered so far
        self.synced = 0  # the last of them a finished sync covers
        self.syncs = 0  # syncs made
        self._running: asyncio.Future[None] | None = None
        self._failed: BaseException | None = None
        self._pool: ThreadPoolExecutor | None = None
        self._lock = threading.Lock()  # the pool, made and shut once

    def committed(self) -> int:
        """Number a durable commit just made; what to wait for with ``durable``."""
        self.written += 1
        return self.written

    def check(self) -> None:
        """Raise ``StoreLostError`` if a sync has failed (nothing is written after one)."""
        if self._failed is not None:
            raise StoreLostError(
                f"the disk failed to keep the database's log ({self._failed}); "
                "nothing can be saved until the bot restarts"
            ) from self._failed

    async def durable(self, number: int | None = None, *, mine: bool = False) -> None:
        """Return once the durable commit ``number`` (default: every one made so far) is
        synced to the disk; raise if a sync failed (see the module docstring):
        ``CommitUnknownError`` if the commit is the caller's own (``mine``), else
        ``StoreLostError``."""
        upto = self.written if number is None else number
        while self.synced < upto:
            self.check()
            if self._running is None:
                self._running = asyncio.get_running_loop().create_task(self._sync_now())
            running = self._running
            try:
                await asyncio.shield(running)
            except OSError as error:
                if not mine:
                    self.check()
                raise CommitUnknownError(
                    f"the disk failed to sync the database's log ({error}): "
                    "what was just written may be lost"
                ) from error

    async def _sync_now(self) -> None:
        """One sync, covering every commit numbered before it starts."""
        target = self.written
        try:
            if self.path is not None and self._failed is None:
                loop = asyncio.get_running_loop()
                await loop.run_in_executor(self._executor(), self._sync, self.path)
                self.syncs += 1
            self.synced = max(self.synced, target)
        except OSError as error:
            self._failed = error
            raise
        finally:
            self._running = None

    def _executor(self) -> ThreadPoolExecutor:
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(1, thread_name_prefix=THREAD_NAME)
            return self._pool

    async def close(self) -> None:
        """Wait for a sync in flight, then stop the sync thread."""
        running = self._running
        if running is not None:
            await asyncio.gather(running, return_exceptions=True)
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True)
