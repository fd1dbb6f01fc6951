"""Real console games on a pseudo-terminal (pexpect), as a person at the keyboard plays
them: against the computer the board stays on the player's side and the computer is
named, never "you"; the legend is printed once; ``again`` starts a game with the colours
swapped; Ctrl-D prints the command that resumes the game, and that command runs as shown;
``--images`` PNGs stay on the player's side at ``--size``; and a reader that goes away
(``chessgarden variants | head -3``) ends the output without a traceback.

The computer plays at level 1, which answers within a fraction of a second."""

from __future__ import annotations

import os
import re
import shlex
import signal
import struct
import subprocess
import sys
from pathlib import Path

import pytest
from listed import listed_actions
from worker_probe import deaf_to_sigint

import variants

pexpect = pytest.importorskip("pexpect")

ROOT = Path(__file__).resolve().parent.parent.parent
WHITE_FILES = "  a  b  c  d  e  f  g  h"  # the file letters on top: White at the bottom
BLACK_FILES = "  h  g  f  e  d  c  b  a"
PROMPT = "\r\n> "
THINKING = "The computer (level 1) is thinking..."


def as_a_shell_starts_it() -> None:
    """In the child before it runs the console: Ctrl-C at its default and unblocked, as
    an interactive shell starts a foreground job. A signal ignored or blocked by the
    process that starts it is inherited across fork and exec (the test's worker may
    have been left that way by other code): the console would then never see Ctrl-C."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def spawn(*args: str) -> pexpect.spawn:
    env = {**os.environ, "TERM": "dumb", "COLUMNS": "200", "LINES": "50"}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    child = pexpect.spawn(
        sys.executable,
        ["-m", "bot.cli", *args],
        cwd=str(ROOT),
        env=env,
        encoding="utf-8",
        timeout=60,
        dimensions=(50, 200),
        preexec_fn=as_a_shell_starts_it,
    )
    return child


def answer(child: pexpect.spawn, line: str) -> str:
    """Type ``line``; everything printed after it up to the next prompt (CR LF as LF;
    the terminal's echo of the line left out)."""
    child.sendline(line)
    child.expect_exact(PROMPT)
    echoed, _, printed = str(child.before).replace("\r\n", "\n").partition("\n")
    assert echoed.endswith(line), echoed
    return printed


def opening(child: pexpect.spawn) -> str:
    child.expect_exact(PROMPT)
    return str(child.before).replace("\r\n", "\n")


def finish(child: pexpect.spawn) -> None:
    if child.isalive():
        child.terminate(force=True)


def boards(text: str) -> list[str]:
    """The file-letter line on top of each board printed (two per board: top and
    bottom, so every other one)."""
    found = [line for line in text.split("\n") if line in (WHITE_FILES, BLACK_FILES)]
    return found[::2]


def test_a_computer_game_stays_on_the_players_side(tmp_path: Path) -> None:
    db = str(tmp_path / "c.sqlite3")
    child = spawn("play", "tquarchess", "--vs", "ai:1", "--colour", "black", "--db", db)
    try:
        shown = opening(child)
        # The computer (White) moved first; one board, from Black's side, after its move.
        assert "you play black against the computer (level 1)" in shown
        assert THINKING in shown and boards(shown) == [BLACK_FILES]
        assert shown.count("Pieces: ") == 1  # the legend, once, under the first board
        for _ in range(3):
            legal = listed_actions(answer(child, "moves"))
            plain = [m for m in legal if m != "roll" and "/T" not in m]
            turn = answer(child, plain[0])
            # The player's move, the computer's answer, then one board: the player's side.
            assert re.search(r"^You played \S+", turn, re.M), turn
            assert THINKING in turn
            assert re.search(r"^The computer \(level 1\) played \S+", turn, re.M), turn
            assert boards(turn) == [BLACK_FILES], turn
            said = turn.split(THINKING)[0] + turn.split(THINKING)[-1]
            # The computer is never "you": no "Your ..." line while it is to act, and
            # its pieces are "the computer's".
            before = turn.split(THINKING)[0]
            assert "Your " not in before and "White's" not in said, turn
            assert "Pieces: " not in turn  # the legend is not printed again
        again = answer(child, "legend")
        assert again.startswith("Pieces: ")
        assert "  a  b" not in again and "  h  g" not in again  # the legend alone
        child.sendline("resign")
        child.expect_exact("You resign the game: sure? [y/N] ")
        answer(child, "y")
        assert boards(answer(child, "board")) == [BLACK_FILES]  # over: still the player's side
    finally:
        finish(child)


def test_again_swaps_the_colours_and_ctrl_d_prints_the_resume_line(tmp_path: Path) -> None:
    db = str(tmp_path / "a.sqlite3")
    child = spawn("play", "kings_guard", "--vs", "ai:1", "--db", db)
    try:
        first = opening(child)
        assert "game 1" in first and "you play white" in first
        assert THINKING not in first and boards(first) == [WHITE_FILES]
        child.sendline("resign")
        child.expect_exact("You resign the game: sure? [y/N] ")
        ended = answer(child, "y")
        assert "result 0-1 black wins (resignation): the computer (level 1) won" in ended
        assert (
            "Type again for a new game against the computer (level 1) (you play black this "
            "time), or quit." in ended
        )
        second = answer(child, "again")
        assert "game 2" in second and "you play black against the computer (level 1)" in second
        assert THINKING in second  # the computer has White now, and moved first
        assert boards(second) == [BLACK_FILES]
        assert second.count("Pieces: ") == 1  # each game's legend once
        child.sendeof()  # Ctrl-D at the prompt
        child.expect(pexpect.EOF)
        tail = str(child.before).replace("\r\n", "\n")
        hint = re.search(r"Game 2 is stored\. Resume it with: (.+)", tail)
        assert hint, tail
        child.wait()
        assert child.exitstatus == 0
    finally:
        finish(child)
    # The hint runs exactly as printed, from anywhere.
    resumed = subprocess.run(
        shlex.split(hint.group(1).strip()),
        cwd=tmp_path,
        input="quit\n",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert resumed.returncode == 0, resumed.stderr
    assert "game 2 resumed: you play black against the computer (level 1)" in resumed.stdout


def test_images_stay_on_the_players_side_at_the_size_asked(tmp_path: Path) -> None:
    from renderers import render_png

    db, out = str(tmp_path / "i.sqlite3"), tmp_path / "png"
    child = spawn(
        "play", "tquarchess", "--vs", "ai:1", "--colour", "black", "--db", db,
        "--images", str(out), "--size", "240", "--no-board",
    )  # fmt: skip
    try:
        opening(child)
        answer(child, "roll")  # the player's own roll: still the player's turn
        answer(child, "e5")
        child.sendline("quit")
        child.expect(pexpect.EOF)
    finally:
        finish(child)
    record = subprocess.run(
        [sys.executable, "-m", "bot.cli", "record", "--db", db, "1"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout
    headers, actions, rolls = variants.parse_record(record)
    game = variants.new_game(headers["Variant"], rolls=rolls)
    files = sorted(out.iterdir())
    assert len(files) == len(actions) + 1  # the start, then one per action
    for ply, path in enumerate(files):
        if ply:
            game.play(actions[ply - 1])
        png = path.read_bytes()
        assert struct.unpack(">I", png[16:20])[0] == 240  # the IHDR width
        assert png == render_png(game, size=240, orientation="black"), path.name


def test_a_closed_pipe_ends_the_output_quietly() -> None:
    """The reader has gone before the first line (``| head -0``, or ``head`` done): no
    traceback, nothing on standard error."""
    for argv in (["variants"], ["rules", "guardener"]):
        read, write = os.pipe()
        os.close(read)  # nobody will read: the first write fails with EPIPE
        try:
            done = subprocess.run(
                [sys.executable, "-m", "bot.cli", *argv],
                cwd=ROOT,
                stdout=write,
                stderr=subprocess.PIPE,
                text=True,
                timeout=60,
            )
        finally:
            os.close(write)
        assert done.stderr == "", done.stderr
        assert done.returncode == 141


def test_a_reader_that_stops_early_in_a_shell_pipeline() -> None:
    """``chessgarden rules guardener | head -3``, and a reader that reads nothing at all
    (``| true``, which has gone before the first line is written): no traceback."""
    python = shlex.quote(sys.executable)
    for reader, lines in (("head -3", 3), ("true", 0)):
        done = subprocess.run(
            ["sh", "-c", f"{python} -m bot.cli rules guardener | {reader}"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert len(done.stdout.splitlines()) == lines
        assert done.stderr == "", done.stderr


def test_ctrl_c_while_the_computer_thinks_prints_the_resume_line(tmp_path: Path) -> None:
    db = str(tmp_path / "i.sqlite3")
    child = spawn("play", "kings_guard", "--vs", "ai:3", "--db", db)
    try:
        opening(child)
        first = listed_actions(answer(child, "moves"))[0]
        child.sendline(first)
        child.expect_exact("The computer (level 3) is thinking...")  # a 2 s search
        listening = deaf_to_sigint(child.pid) is False  # (read before the Ctrl-C)
        child.sendintr()  # Ctrl-C while it thinks
        found = child.expect([pexpect.EOF, PROMPT])
        assert found == 0, f"no goodbye: the computer moved (console listening: {listening})"
        tail = str(child.before).replace("\r\n", "\n")
        assert re.search(r"Game 1 is stored\. Resume it with: .+ play --game 1", tail), tail
        assert "Traceback" not in tail
        child.wait()
        assert child.exitstatus == 130
    finally:
        finish(child)
