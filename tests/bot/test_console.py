"""The console: ``play``, ``record`` and ``roll``, run as the user runs them."""

from __future__ import annotations

import argparse
import io
import re
import subprocess
import sys
from pathlib import Path

import pytest

import variants
from bot import console
from variants.dice import VerifiableDice

DICE = re.compile(r"^\[(\d+(?: \d+)*)\]$")


class Console:
    """``python -m bot.console play ...`` driven one line at a time through pipes."""

    def __init__(self, *args: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "bot.console", "play", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    def line(self) -> str:
        assert self.proc.stdout is not None
        text = self.proc.stdout.readline()
        assert text, f"console ended: {self.proc.stderr.read() if self.proc.stderr else ''}"
        return text.rstrip("\n")

    def send(self, command: str) -> str:
        assert self.proc.stdin is not None
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()
        return self.line()

    def close(self) -> int:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        return self.proc.wait(timeout=30)


def dice_of(line: str) -> str:
    match = re.search(r"(\[[\d ]+\])$", line)
    return match.group(1) if match else ""


def run(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bot.console", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_hot_seat_game_matches_the_engine(tmp_path: Path) -> None:
    db = tmp_path / "console.sqlite3"
    con = Console("guardener", "--db", str(db), "--seed", "7")
    assert con.line() == "game 1"
    # An independent engine game on the same dice: the console must agree with it.
    engine = variants.new_game("guardener", dice=VerifiableDice("7", 1))
    status = con.line()
    assert status == f"white to move [{' '.join(map(str, engine.dice or ()))}]"
    assert con.send("moves").split() == engine.legal_moves()
    for step in range(12):
        move = engine.legal_moves()[(step * 7) % len(engine.legal_moves())]
        recorded = engine.play(move)
        line = con.send(move)
        dice = f" [{' '.join(map(str, engine.dice))}]" if engine.dice else ""
        assert line == recorded + dice
        if engine.result is not None:
            assert con.line().startswith("result ")
            break
    assert con.send("bogus!").startswith("error: ")
    assert con.send("moves").split() == engine.legal_moves()  # still going after bad input
    history = [con.send("history")]
    while not history[-1].startswith("1."):
        history.append(con.line())
    assert variants.replay("\n".join(history)).history == engine.history
    assert con.send("resign").endswith("resigns")
    assert con.line().startswith("result ")
    assert con.send("e4").startswith("error: the game is over")
    assert con.close() == 0


def test_resume_shows_the_same_dice(tmp_path: Path) -> None:
    db = str(tmp_path / "resume.sqlite3")
    con = Console("guardener", "--db", db)
    assert con.line() == "game 1"
    con.line()
    last = ""
    for _ in range(5):
        moves = con.send("moves").split()
        last = con.send(moves[-1])
    assert con.close() == 0
    again = Console("--db", db, "--game", "1")
    assert again.line() == "game 1"
    status = again.line()
    assert status.endswith(dice_of(last)) and dice_of(last)
    moves = again.send("moves").split()
    assert not again.send(moves[0]).startswith("error")
    assert again.close() == 0


def test_draw_by_agreement_and_quit(tmp_path: Path) -> None:
    result = run(
        "play", "tquarchess", "--db", str(tmp_path / "d.sqlite3"), stdin="e4\ndraw\nquit\ne5\n"
    )
    lines = result.stdout.splitlines()
    assert result.returncode == 0, result.stderr
    assert lines[:3] == ["game 1", "white to move", "e4"]
    assert lines[3] == "draw agreed"
    assert lines[4] == "result 1/2-1/2 draw (agreement)"
    assert len(lines) == 5  # nothing after quit
    assert "> " not in result.stdout  # no prompt when stdin is not a terminal


def test_record_prints_a_replayable_record(tmp_path: Path) -> None:
    db = str(tmp_path / "r.sqlite3")
    played = run("play", "jepps_random", "--db", db, stdin="moves\n")
    first_moves = played.stdout.splitlines()[2].split()
    run("play", "--db", db, "--game", "1", stdin=f"{first_moves[0]}\n")
    result = run("record", "--db", db, "1")
    assert result.returncode == 0, result.stderr
    game = variants.replay(result.stdout)
    assert len(game.history) == 1
    assert run("record", "--db", db, "99").returncode == 1


def test_bad_arguments(tmp_path: Path) -> None:
    db = str(tmp_path / "b.sqlite3")
    unknown = run("play", "checkers", "--db", db)
    assert unknown.returncode == 2 and "unknown variant" in unknown.stderr
    missing = run("play", "--db", db, "--game", "5")
    assert missing.returncode == 2 and "no game 5" in missing.stderr
    nothing = run("play", "--db", db)
    assert nothing.returncode == 2


def test_roll() -> None:
    result = run("roll", "4d6kh3+2")
    assert result.returncode == 0
    assert re.fullmatch(r"4d6kh3 \[.*\] \+ 2 = \d+\n", result.stdout)
    spaced = run("roll", "2d6", "+", "1")
    assert spaced.returncode == 0 and spaced.stdout.startswith("2d6 [")
    bad = run("roll", "4d6kh9")
    assert (
        bad.returncode == 2 and bad.stderr.strip() == "error: kh9 keeps more dice than the 4 rolled"
    )


def test_images_are_written_after_each_action(tmp_path: Path) -> None:
    pytest.importorskip("renderers")
    from renderers import render_png  # noqa: F401 - the images need the real renderer

    out = tmp_path / "png"
    result = run(
        "play",
        "tquarchess",
        "--db",
        str(tmp_path / "i.sqlite3"),
        "--images",
        str(out),
        stdin="e4\nzz\ne5\nboard\n",
    )
    assert result.returncode == 0, result.stderr
    files = sorted(p.name for p in out.iterdir())
    assert files == ["game1-0000.png", "game1-0001.png", "game1-0002.png"]
    for path in out.iterdir():
        assert path.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")


def test_add_subcommands_registers_play_record_roll() -> None:
    parser = argparse.ArgumentParser(prog="chessgarden")
    subparsers = parser.add_subparsers(dest="command")
    console.add_subcommands(subparsers)
    play = parser.parse_args(["play", "guardener", "--db", "x", "--game", "3", "--seed", "4"])
    assert play.func is console.main_play
    assert (play.variant, play.db, play.game, play.seed, play.images) == (
        "guardener",
        "x",
        3,
        4,
        None,
    )
    record = parser.parse_args(["record", "--db", "y", "12"])
    assert record.func is console.main_record and (record.db, record.id) == ("y", 12)
    roll = parser.parse_args(["roll", "d20+3"])
    assert roll.func is console.main_roll
    assert console.main_roll(argparse.Namespace(expression="d1+1")) == 0
    assert console.main_roll(argparse.Namespace(expression="d0")) == 2


async def test_in_process_session_with_a_prompt(tmp_path: Path) -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    args = argparse.Namespace(
        variant="kings_guard", db=str(tmp_path / "p.sqlite3"), game=None, seed=1, images=None
    )
    out = io.StringIO()
    code = await console._play(args, Terminal("help\ne3\n"), out)  # noqa: SLF001
    assert code == 0
    text = out.getvalue()
    assert text.startswith("game 1\nwhite to move\n> commands: ")
    assert "> e3\n" in text
