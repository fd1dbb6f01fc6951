"""A throwaway PostgreSQL cluster for the tests (issue 16).

``Cluster.start()`` runs ``initdb`` and ``pg_ctl`` in a new temporary folder, listening on
127.0.0.1 at a free port and on a Unix socket in that folder; ``stop()`` stops the server
and removes the folder. PostgreSQL refuses to run as root, so as root both run as an
unprivileged user (``postgres`` if it exists, else ``nobody``) through ``runuser``.

For the tests, durability settings are off (``fsync``, ``synchronous_commit``, full-page
writes): the tests kill client processes, never the server, and a committed transaction is
visible to every later one whether or not it reached the disk. ``Cluster(durable=True)``
(the benchmarks) keeps PostgreSQL's own durable defaults instead, every commit flushed to
disk as in production; ``settings`` adds server settings (``-c name=value``) to either.

``database()`` makes a fresh, empty database and gives its URL; ``execute`` and ``query``
run SQL on it synchronously (for tests that read or tamper with the stored rows, as the
SQLite tests do with ``sqlite3``).
"""

from __future__ import annotations

import asyncio
import glob
import itertools
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import threading
from typing import Any

SKIP_REASON = (
    "PostgreSQL tests skipped: initdb/pg_ctl not found "
    "(apt-get install postgresql-15, as .ci/run does)"
)


def find_binary(name: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    candidates = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"), reverse=True)
    return candidates[0] if candidates else None


def available() -> bool:
    return find_binary("initdb") is not None and find_binary("pg_ctl") is not None


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _run_as() -> str | None:
    """The unprivileged user to run the server as when we are root (``None``: ourselves)."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        try:
            pwd.getpwnam(name)
            return name
        except KeyError:
            continue
    raise RuntimeError("running as root, and there is no postgres or nobody user to run as")


TEST_SETTINGS = {
    "fsync": "off",
    "synchronous_commit": "off",
    "full_page_writes": "off",
    "max_connections": "300",
    "shared_buffers": "32MB",
}


class Cluster:
    def __init__(self, *, durable: bool = False, settings: dict[str, str] | None = None) -> None:
        self.settings = {} if durable else dict(TEST_SETTINGS)
        self.settings.update(settings or {})
        self.folder = ""
        self.port = 0
        self.user = _run_as()
        self._names = itertools.count(1)
        self._lock = threading.Lock()

    def _command(self, *argv: str) -> list[str]:
        return ["runuser", "-u", self.user, "--", *argv] if self.user else list(argv)

    def start(self) -> None:
        initdb, pg_ctl = find_binary("initdb"), find_binary("pg_ctl")
        assert initdb and pg_ctl, SKIP_REASON
        self.folder = tempfile.mkdtemp(prefix="cg-pg-")
        os.chmod(self.folder, 0o755)
        if self.user:
            entry = pwd.getpwnam(self.user)
            os.chown(self.folder, entry.pw_uid, entry.pw_gid)
        data = os.path.join(self.folder, "data")
        subprocess.run(
            self._command(
                initdb, "-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8",
                "--no-locale", "--no-sync",
            ),
            check=True, capture_output=True, timeout=120,
        )  # fmt: skip
        self.port = _free_port()
        self.start_again()

    def start_again(self) -> None:
        """Start the server of this cluster (after ``crash``): the same data, port and
        settings; it replays its write-ahead log first, as after a power cut."""
        pg_ctl = find_binary("pg_ctl")
        assert pg_ctl and self.folder, SKIP_REASON
        options = f"-h 127.0.0.1 -p {self.port} -k {self.folder}"
        options += "".join(f" -c {name}={value}" for name, value in self.settings.items())
        subprocess.run(
            self._command(
                pg_ctl, "-D", os.path.join(self.folder, "data"), "-o", options,
                "-l", os.path.join(self.folder, "log"), "-w", "-t", "60", "start",
            ),
            check=True, capture_output=True, timeout=90,
        )  # fmt: skip

    def crash(self) -> None:
        """Stop the server at once, as a crash would (``pg_ctl stop -m immediate``: every
        server process quits without a checkpoint, connections drop mid-statement)."""
        pg_ctl = find_binary("pg_ctl")
        assert pg_ctl and self.folder, SKIP_REASON
        subprocess.run(
            self._command(pg_ctl, "-D", os.path.join(self.folder, "data"), "-m", "immediate", "-w", "stop"),
            check=True, capture_output=True, timeout=60,
        )  # fmt: skip

    def stop(self) -> None:
        if not self.folder:
            return
        pg_ctl = find_binary("pg_ctl")
        if pg_ctl:
            subprocess.run(
                self._command(pg_ctl, "-D", os.path.join(self.folder, "data"), "-m", "immediate", "-w", "stop"),
                capture_output=True, timeout=60,
            )  # fmt: skip
        shutil.rmtree(self.folder, ignore_errors=True)
        self.folder = ""

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def database(self) -> str:
        """A new empty store; its URL. Each is a schema of its own in one database, named
        in the URL (``?search_path=...``: asyncpg passes query options to the server), as
        ``CREATE DATABASE`` takes most of a second and a schema a few milliseconds."""
        with self._lock:
            name = f"cg_{os.getpid()}_{next(self._names)}"
        execute(self.url(), f"CREATE SCHEMA {name}")
        return f"{self.url()}?search_path={name}"

    def drop(self, url: str) -> None:
        name = url.rsplit("=", 1)[-1]
        execute(self.url(), f"DROP SCHEMA IF EXISTS {name} CASCADE")


def _in_thread(coroutine_function: Any, *args: Any) -> Any:
    """Run an async function to completion on a loop of its own (callers may be inside a
    running loop, where ``asyncio.run`` is not allowed)."""
    box: dict[str, Any] = {}

    def work() -> None:
        try:
            box["value"] = asyncio.run(coroutine_function(*args))
        except BaseException as error:  # re-raised in the caller
            box["error"] = error

    thread = threading.Thread(target=work)
    thread.start()
    thread.join()
    if "error" in box:
        raise box["error"]
    return box.get("value")


async def _query(url: str, sql: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
    import asyncpg

    conn = await asyncpg.connect(url)
    try:
        return [tuple(r) for r in await conn.fetch(sql, *params)]
    finally:
        await conn.close()


async def _execute(url: str, sql: str, params: tuple[Any, ...]) -> str:
    import asyncpg

    conn = await asyncpg.connect(url)
    try:
        return str(await conn.execute(sql, *params))
    finally:
        await conn.close()


def query(url: str, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    return list(_in_thread(_query, url, sql, params))


def execute(url: str, sql: str, params: tuple[Any, ...] = ()) -> str:
    return str(_in_thread(_execute, url, sql, params))
