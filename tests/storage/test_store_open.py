"""Opening a store that cannot be opened fails loudly: one line, every thread closed.

Each bad store is tried three ways:
- in this process: ``storage.StoreOpenError`` naming the file and the cause, and no
  aiosqlite worker thread left running (a leaked one keeps the process alive);
- ``chessgarden run`` in a subprocess, with a dummy ``DISCORD_TOKEN`` and
  ``CHESSGARDEN_DB`` pointing at the bad store: the store is opened before Discord
  is contacted, so it ends with one ``error:`` line and a non-zero exit;
- ``chessgarden play`` (the console) the same way.

The read-only folder and the full disk are tiny tmpfs mounts when the tests run as
root (root ignores permission bits, so a read-only mount is the honest test); without
root the read-only folder is a ``chmod 555`` folder and the full disk is skipped.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import pytest

from storage import LATEST_VERSION, SqliteRepository, StoreOpenError

ROOT = Path(__file__).resolve().parents[2]
IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
CAN_MOUNT = IS_ROOT and sys.platform.startswith("linux") and shutil.which("mount") is not None


@contextmanager
def tmpfs(where: Path, *options: str) -> Iterator[Path]:
    """A small tmpfs mounted at ``where`` for the duration (root only)."""
    where.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        ["mount", "-t", "tmpfs", "-o", ",".join(("size=64k", *options)), "tmpfs", str(where)],
        check=True,
    )
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def fill(folder: Path) -> None:
    """Write into ``folder`` until the disk is full."""
    with open(folder / "filler", "wb", buffering=0) as out, suppress(OSError):
        while True:
            out.write(b"\0" * 4096)


@contextmanager
def not_a_database(tmp: Path) -> Iterator[Path]:
    path = tmp / "notes.sqlite3"
    path.write_text("These are my notes, not a database.\n" * 200)
    yield path


@contextmanager
def a_folder(tmp: Path) -> Iterator[Path]:
    path = tmp / "games.sqlite3"
    path.mkdir()
    yield path


@contextmanager
def read_only_folder(tmp: Path) -> Iterator[Path]:
    folder = tmp / "ro"
    if CAN_MOUNT:
        with tmpfs(folder, "ro"):
            yield folder / "games.sqlite3"
        return
    folder.mkdir()
    folder.chmod(0o555)
    try:
        yield folder / "games.sqlite3"
    finally:
        folder.chmod(0o755)


@contextmanager
def existing_database_in_read_only_folder(tmp: Path) -> Iterator[Path]:
    if not CAN_MOUNT:
        pytest.skip("needs root to remount a folder read-only (root ignores chmod)")
    folder = tmp / "ro2"
    with tmpfs(folder):
        path = folder / "games.sqlite3"
        with sqlite3.connect(path) as conn:
            conn.execute("CREATE TABLE t (x)")
        conn.close()
        subprocess.run(["mount", "-o", "remount,ro", str(folder)], check=True)
        yield path


@contextmanager
def full_disk(tmp: Path) -> Iterator[Path]:
    if not CAN_MOUNT:
        pytest.skip("the full-disk test mounts a tiny tmpfs, which needs root on Linux")
    with tmpfs(tmp / "full") as folder:
        fill(folder)
        yield folder / "games.sqlite3"


@contextmanager
def newer_schema(tmp: Path) -> Iterator[Path]:
    path = tmp / "future.sqlite3"
    with sqlite3.connect(path) as conn:
        conn.execute(f"PRAGMA user_version = {LATEST_VERSION + 1}")
    conn.close()
    yield path


BAD_STORES: dict[str, tuple[Callable[[Path], Any], str]] = {
    "not-a-database": (not_a_database, "not an SQLite database"),
    "a-folder": (a_folder, "is a folder"),
    "read-only-folder": (read_only_folder, "read-only"),
    "existing-in-read-only-folder": (existing_database_in_read_only_folder, "read-only"),
    "full-disk": (full_disk, "disk is full"),
    "newer-schema": (newer_schema, "newer"),
}


@pytest.mark.parametrize("case", list(BAD_STORES))
async def test_open_raises_one_line_and_leaves_no_thread(tmp_path: Path, case: str) -> None:
    make, cause = BAD_STORES[case]
    before = set(threading.enumerate())
    with make(tmp_path) as path:
        with pytest.raises(StoreOpenError) as info:
            await SqliteRepository.open(path)
    message = str(info.value)
    assert "\n" not in message
    assert str(path) in message and cause in message, message
    deadline = time.monotonic() + 5
    while set(threading.enumerate()) - before and time.monotonic() < deadline:
        time.sleep(0.01)
    left = set(threading.enumerate()) - before
    assert not left, f"threads left running: {left}"


def run_cli(args: list[str], db: Path) -> tuple[subprocess.CompletedProcess[str], float]:
    env = {
        **os.environ,
        "DISCORD_TOKEN": "not-a-real-token.for-this-test",
        "CHESSGARDEN_DB": str(db),
        "PYTHONPATH": str(ROOT),
    }
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "bot.cli", *args],
        env=env,
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,  # generous: a hang fails here instead of blocking the suite
    )
    return done, time.monotonic() - started


@pytest.mark.parametrize("command", [["run"], ["play", "guardener"]])
@pytest.mark.parametrize("case", list(BAD_STORES))
def test_cli_exits_with_one_line(tmp_path: Path, case: str, command: list[str]) -> None:
    make, cause = BAD_STORES[case]
    with make(tmp_path) as path:
        done, elapsed = run_cli(command, path)
    print(f"chessgarden {command[0]} on {case}: exit {done.returncode} after {elapsed:.2f} s")
    lines = done.stderr.strip().splitlines()
    assert done.returncode != 0
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("error: ") and str(path) in lines[0] and cause in lines[0]
    assert "Traceback" not in done.stderr
