"""``chessgarden play --days`` and ``chessgarden sweep``, run the way an operator runs them
(issue 13): a timed console game made with piped input, then swept two days later."""

from __future__ import annotations

import asyncio
import re
import sqlite3
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import variants
from bot.service import GameService


def cli(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bot.cli", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )


def iso(when: datetime) -> str:
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


def test_sweep_ends_a_console_game_two_days_later(tmp_path: Path) -> None:
    db = str(tmp_path / "console.sqlite3")
    started = datetime.now(UTC)
    played = cli(
        "play", "kings_guard", "--days", "1", "--db", db, "--no-board", stdin="e3\ne6\nboard\n"
    )
    assert played.returncode == 0, played.stderr
    answers = played.stdout.split("\n\n")
    assert answers[0].splitlines()[0] == "game 1"
    # the status says the time left, after every action and on 'board'
    assert answers[0].splitlines()[-1] == "Clock: White has 1 day left (1 day per move)."
    assert answers[1].splitlines()[0] == "White played e3."
    assert answers[1].splitlines()[-1] == "Clock: Black has 1 day left (1 day per move)."
    assert answers[2].splitlines()[0] == "Black played e6."
    assert re.fullmatch(
        r"Clock: White has (23 hours \d+ minutes|1 day) left \(1 day per move\)\.",
        answers[3].splitlines()[-1],
    )

    early = cli("sweep", "--db", db, "--now", iso(started + timedelta(hours=12)))
    assert (early.returncode, early.stdout) == (0, "")  # nothing due yet (reminder at 18 h)

    swept = cli("sweep", "--db", db, "--now", iso(started + timedelta(days=2)))
    assert swept.returncode == 0, swept.stderr
    assert swept.stdout.splitlines() == [
        "game 1: white ran out of time: black wins (timeout), 0-1."
    ]
    again = cli("sweep", "--db", db, "--now", iso(started + timedelta(days=3)))
    assert (again.returncode, again.stdout) == (0, "")  # handled once

    record = cli("record", "--db", db, "1")
    assert record.returncode == 0 and '[Termination "timeout"]' in record.stdout
    game = variants.replay(record.stdout)
    assert game.result is not None and (game.result.winner, game.result.reason) == (
        "black",
        "timeout",
    )

    async def check() -> None:
        service = await GameService.open(db, renderer=None)
        try:
            view = await service.view(game_id=1)
            assert view.status == "finished" and view.seed is not None
            history = await service.history(game_id=1)
            assert [e.kind for e in history.entries] == ["move", "move", "timeout"]
            assert history.entries[-1].created_at.startswith(iso(started + timedelta(days=2))[:16])
            assert (await service.verify(game_id=1)).ok
        finally:
            await service.close()

    asyncio.run(check())

    resumed = cli("play", "--game", "1", "--db", db, stdin="e4\n")
    assert "result 0-1 black wins (timeout)" in resumed.stdout.splitlines()


def test_a_console_game_is_untimed_unless_days_are_given(tmp_path: Path) -> None:
    db = str(tmp_path / "untimed.sqlite3")
    played = cli("play", "tquarchess", "--db", db, "--no-board", stdin="e4\n")
    assert played.returncode == 0, played.stderr
    assert "Clock:" not in played.stdout and "White to move" in played.stdout
    swept = cli("sweep", "--db", db, "--now", "2999-01-01T00:00:00")
    assert (swept.returncode, swept.stdout) == (0, "")
    bad = cli("play", "tquarchess", "--days", "15", "--db", db)
    assert bad.returncode == 2 and "from 1 to 14" in bad.stderr


def test_sweep_refuses_a_bad_time_and_a_bad_store(tmp_path: Path) -> None:
    bad = cli("sweep", "--db", str(tmp_path / "x.sqlite3"), "--now", "tomorrow")
    assert bad.returncode == 2 and bad.stderr.startswith("error: --now must be an ISO-8601 time")
    missing = cli("sweep", "--db", str(tmp_path / "no" / "such" / "dir" / "x.sqlite3"))
    assert missing.returncode == 1 and missing.stderr.startswith("error: cannot open the database")
    assert len(missing.stderr.strip().splitlines()) == 1


def test_a_late_console_move_ends_the_game_on_time(tmp_path: Path) -> None:
    """Resuming a game whose side to act has run out of time ends it at once."""
    db = str(tmp_path / "late.sqlite3")
    cli("play", "guardener", "--days", "1", "--db", db, stdin="")

    with sqlite3.connect(db) as conn:  # as if it was made two days ago: move its clock back
        conn.execute("UPDATE games SET deadline_ms = deadline_ms - 2 * 86400000")
    resumed = cli("play", "--game", "1", "--db", db, stdin="pass\n")
    lines = resumed.stdout.splitlines()
    assert lines[0] == "game 1"
    assert (
        lines[2]
        == "white ran out of time before anyone made a move: the game is aborted, with no result."
    )
    assert any(
        line.startswith("result * game aborted (white ran out of time before anyone")
        for line in lines[3:]
    )
