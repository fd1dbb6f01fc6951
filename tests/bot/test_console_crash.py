"""SIGKILL the console in the middle of hot-seat play, then resume with ``--game``.

Every action the console printed is in the record, and the resumed game shows the
dice that were showing after the last printed action (unless the killed command had
already committed, in which case the record holds exactly one more action).
"""

from __future__ import annotations

import asyncio
import random
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from listed import listed_actions

import variants
from bot.service import GameService

KILLS = 15  # per variant


def start(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "bot.console.session", *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def block(proc: subprocess.Popen[str]) -> list[str]:
    """One answer of the console: its lines up to the empty line that ends it."""
    assert proc.stdout is not None
    lines: list[str] = []
    while True:
        line = proc.stdout.readline()
        assert line, "the console ended"
        if line == "\n":
            return lines
        lines.append(line.rstrip("\n"))


def ask(proc: subprocess.Popen[str], command: str) -> list[str]:
    assert proc.stdin is not None
    proc.stdin.write(command + "\n")
    proc.stdin.flush()
    return block(proc)


def played(line: str) -> str:
    """The action in ``White played Nxe4, taking Black's Pawn.``"""
    match = re.fullmatch(r"(?:White|Black) played (.+?)(?:, taking .*)?\.", line)
    assert match, line
    return match.group(1)


def headline(answer: list[str]) -> str:
    """The status headline (``White to move [2 4]: ...``), or the result line."""
    return next(line for line in answer if line.startswith(("White to ", "Black to ", "result ")))


async def stored_record(db: str) -> str:
    """Game 1's record as stored, read by the service the console uses (in this process:
    ``chessgarden record`` prints the same, and is tested in ``test_console.py``)."""
    service = await GameService.open(db, renderer=None)
    try:
        return (await service.history(game_id=1)).record
    finally:
        await service.close()


def shown_dice(line: str) -> str:
    match = re.search(r"(\[[\d ]+\])", line)
    return match.group(1) if match else ""


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
@pytest.mark.parametrize("variant", ["guardener", "tquarchess"])
def test_killed_console_resumes_exactly(tmp_path: Path, variant: str) -> None:
    db = str(tmp_path / "console.sqlite3")
    rng = random.Random(variant)
    printed: list[tuple[str, str]] = []  # every action printed, with the dice then showing
    for run in range(KILLS):
        args = ["play", variant, "--db", db] if run == 0 else ["play", "--db", db, "--game", "1"]
        proc = start(*args, "--no-board")
        assert proc.stdout is not None and proc.stdin is not None
        opening = block(proc)
        assert opening[0] == "game 1"
        status = headline(opening)
        if printed:
            record = asyncio.run(stored_record(db))
            stored = variants.replay(record).history
            texts = [text for text, _ in printed]
            assert stored[: len(texts)] == texts, "a printed action is missing"
            assert len(stored) in (len(texts), len(texts) + 1)
            if status.startswith("result"):  # the killed command committed and ended the game
                assert len(stored) == len(texts) + 1
                proc.kill()
                proc.communicate()
                break
            assert status.startswith(("White to move", "Black to move")), status
            if len(stored) == len(texts):
                assert shown_dice(status) == printed[-1][1]
            else:  # the killed command had committed: take its action from the record
                printed.append((stored[-1], shown_dice(status)))
        over = False
        legal = listed_actions(ask(proc, "moves")[0])
        for _ in range(rng.randint(0, 6)):
            answer = ask(proc, rng.choice(legal))
            assert not answer[0].startswith("error"), answer
            printed.append((played(answer[0]), shown_dice(headline(answer))))
            if headline(answer).startswith("result"):  # the action ended the game
                over = True
                break
            legal = listed_actions(ask(proc, "moves")[0])
        # Kill while the next command is in flight, or between commands.
        if not over and rng.random() < 0.6:
            proc.stdin.write(rng.choice(legal) + "\n")
            proc.stdin.flush()
        proc.send_signal(signal.SIGKILL)
        proc.communicate()
        assert proc.returncode == -signal.SIGKILL
        if over:
            break
