"""``chessgarden play VARIANT --vs ai:LEVEL [--colour white|black]``: the computer's
actions printed like a player's after a thinking line, resuming, refusals."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent


def chessgarden(*argv: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bot.cli", *argv],
        cwd=ROOT,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_computer_plays_white_and_answers(tmp_path: Path) -> None:
    db = str(tmp_path / "c.sqlite3")
    done = chessgarden(
        "play", "tquarchess", "--vs", "ai:1", "--colour", "black", "--db", db, "--no-board",
        "--seed", "4", stdin="moves\nundo\ndraw\nn\nquit\n",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "you play black against the computer (level 1)" in out
    lines = out.splitlines()
    thinking = lines.index("The computer (level 1) is thinking...")
    played = re.fullmatch(
        r"The computer \(level 1\) played (\S+)(, taking .*)?\.", lines[thinking + 1]
    )
    assert played, lines[thinking + 1]  # its action, said of it
    assert lines[thinking + 2].startswith("Black to move")
    assert "you" not in " ".join(lines[: thinking + 2]).lower().replace("you play black", "")
    assert "error: undo is for two players at one keyboard, not against the computer" in out
    assert "Offer the computer (level 1) a draw: sure? [y/N]\nNo draw offered; play on." in out
    record = chessgarden("record", "--db", db, "1")
    assert record.returncode == 0 and played.group(1) in record.stdout
    tags = record.stdout.splitlines()
    assert '[White "the computer (level 1)"]' in tags and '[Black "console player"]' in tags
    games = chessgarden("games", "--db", db)
    assert "you vs the computer (level 1, playing white)" in games.stdout
    # Resumed: it is the player's turn; a move, then the computer answers.
    resumed = chessgarden("play", "--game", "1", "--db", db, "--no-board", stdin="e5\nquit\n")
    assert resumed.returncode == 0, resumed.stderr
    assert "game 1 resumed: you play black against the computer" in resumed.stdout
    after = resumed.stdout.split("You played e5.", 1)[1]
    assert "The computer (level 1) is thinking..." in after


def test_resigning_while_the_game_is_against_the_computer(tmp_path: Path) -> None:
    db = str(tmp_path / "r.sqlite3")
    done = chessgarden(
        "play", "kings_guard", "--vs", "ai:2", "--db", db, "--no-board", stdin="resign\ny\n"
    )
    assert done.returncode == 0, done.stderr
    assert "is thinking" not in done.stdout  # White (the player) moves first
    assert "result 0-1 black wins (resignation): the computer (level 2) won" in done.stdout


def test_bad_computer_options(tmp_path: Path) -> None:
    db = str(tmp_path / "b.sqlite3")
    for argv, words in [
        (("--vs", "ai:5"), "--vs takes ai:1, ai:2 or ai:3, not 'ai:5'"),
        (("--vs", "human"), "--vs takes ai:1"),
        (("--colour", "black"), "--colour is your side against the computer"),
        (("--vs", "ai:1", "--days", "3"), "no time limit"),
    ]:
        done = chessgarden("play", "guardener", "--db", db, *argv)
        assert done.returncode == 2 and words in done.stderr, done.stderr
        assert done.stderr.count("\n") == 1
