"""Line editing, history and Tab completion of the console (``bot.console.terminal``): the
completer called directly, and the real console on a pseudo-terminal."""

from __future__ import annotations

import asyncio
import io
import os
import select
import shlex
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from bot.console import session as console
from bot.console.terminal import (
    Completer,
    LineReader,
    clean_line,
    completions,
    settle_interrupt,
    wrap_width,
    wrapped,
)
from bot.service import GameService


def test_clean_line_drops_escape_sequences_and_control_characters() -> None:
    assert clean_line("\x1b[Ae4\n") == "e4"  # Up arrow, then e4
    assert clean_line("Nf3\x1b[D\x1b[C") == "Nf3"  # Left, Right
    assert clean_line("\x1bOA\x1bOB") == ""  # arrows in application mode
    assert clean_line("\x1b[1;5C O-O \x1b") == "O-O"  # Ctrl-Right, a lone Escape
    assert clean_line("Bg5/T\t%3\x7f\x00") == "Bg5/T %3"
    assert clean_line("Rb1^E") == "Rb1^E"  # notation is left alone


def test_completions_keep_what_was_typed() -> None:
    words = ["Bc4", "bc3", "Bb5", "b3", "moves", "board", "Bc4"]
    assert completions("B", words) == ["Bc4", "Bb5"]  # a Bishop, each once
    assert completions("b", words) == ["bc3", "b3", "board"]  # the b-file (and a command)
    assert completions("BO", words) == []  # never lowered to "board"
    assert completions("Bc3", words) == []  # never "bc3": what was typed stays
    for text in ("B", "b", "Bc", "mo", ""):  # every completion extends the text as typed
        assert all(word.startswith(text) for word in completions(text, words))
    assert completions("", words) == ["Bc4", "bc3", "Bb5", "b3", "moves", "board"]
    assert completions("z", words) == []


def test_the_completer_follows_readlines_protocol() -> None:
    legal = ["Nc3", "Nf3"]
    completer = Completer(lambda: legal)
    assert [completer("N", state) for state in range(3)] == ["Nc3", "Nf3", None]
    legal[:] = ["Nf6"]  # the next Tab asks again
    assert completer("N", 0) == "Nf6" and completer("N", 1) is None


async def test_tab_offers_the_legal_actions_of_the_moment(tmp_path: Path) -> None:
    service = await GameService.open(str(tmp_path / "tab.sqlite3"), renderer=None)
    try:
        session = console.Session(service, io.StringIO(), io.StringIO(), show_board=False)
        await session.start("tquarchess", None, 1)
        completer = Completer(session.words)
        assert completer("e", 0) == "e3" and "e4" in completions("e", session.words())
        await session.handle("e4")
        assert completions("e", session.words()) == ["e6", "e5"]
        assert completions("u", session.words()) == ["undo"]
        assert completions("Nf", session.words()) == ["Nf6", "Nf6/T%"]
    finally:
        await service.close()


def test_no_readline_without_a_terminal() -> None:
    reader = LineReader(io.StringIO("e4\n\x1b[A\n"), io.StringIO())
    assert reader.readline is None and not reader.interactive
    assert reader.read() == "e4" and reader.read() == "" and reader.read() is None
    assert list(reader.history()) == []


async def test_a_ctrl_c_asyncio_took_before_the_prompt_interrupts_the_read() -> None:
    """asyncio's Ctrl-C handler cancels the task; when that happens after the last await
    before a prompt (the computer's move being shown), the read is interrupted at once,
    as a Ctrl-C at the prompt is, instead of waiting for a line; then the cancellation is
    taken back, and the task can still await its goodbye."""
    reader = LineReader(io.StringIO("e4\n"), io.StringIO())
    task = asyncio.current_task()
    assert task is not None
    task.cancel()  # what asyncio.run does on SIGINT
    with pytest.raises(KeyboardInterrupt):
        reader.read("> ")
    await settle_interrupt()
    assert task.cancelling() == 0
    await asyncio.sleep(0)  # no CancelledError left to come
    assert reader.read("> ") == "e4"  # the line is still there for a later read


# ----- the real console on a pseudo-terminal ------------------------------------------


class Pty:
    """``chessgarden play`` with its standard streams on a pseudo-terminal."""

    def __init__(self, *args: str) -> None:
        master, slave = os.openpty()
        env = {**os.environ, "TERM": "xterm", "COLUMNS": "200", "LINES": "50"}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "bot.console.session", "play", *args],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env=env,
            close_fds=True,
        )
        os.close(slave)
        self.master = master
        self.seen = b""

    def type(self, keys: str) -> None:
        os.write(self.master, keys.encode())

    def expect(self, text: str, timeout: float = 60.0) -> str:
        """Everything up to and including ``text``, once the console has printed it."""
        wanted = text.encode()
        deadline = time.monotonic() + timeout
        while wanted not in self.seen:
            left = deadline - time.monotonic()
            assert left > 0, f"{text!r} never came; the console printed: {self.seen[-800:]!r}"
            ready, _, _ = select.select([self.master], [], [], left)
            if ready:
                try:
                    chunk = os.read(self.master, 4096)
                except OSError:
                    chunk = b""
                assert chunk, f"the console ended; it printed: {self.seen[-800:]!r}"
                self.seen += chunk
        upto = self.seen.index(wanted) + len(wanted)
        shown, self.seen = self.seen[:upto], self.seen[upto:]
        return shown.decode(errors="replace")

    def close(self) -> Any:
        self.proc.kill()
        self.proc.wait(timeout=30)
        os.close(self.master)


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="needs a pseudo-terminal")
def test_tab_completion_and_history_on_a_terminal(tmp_path: Path) -> None:
    pytest.importorskip("readline")
    term = Pty("kings_guard", "--db", str(tmp_path / "pty.sqlite3"), "--no-board")
    try:
        term.expect("> ")
        term.type("Nf\t\r")  # one legal action starts with Nf: Tab completes it
        term.expect("White played Nf3.\r\nBlack to move")
        term.expect("> ")
        term.type("Nf\t\r")  # for Black now: Nf6
        term.expect("Black played Nf6.\r\nWhite to move")
        term.expect("> ")
        term.type("\x1b[A\r")  # Up: the last line again (Nf6, not White's move)
        shown = term.expect("> ")
        assert shown.startswith("Nf6\r\nerror: no Knight of yours can reach f6"), shown
        assert "control characters" not in shown
        term.type("N\t\t")  # two Tabs list what N may start
        listed = term.expect("\r\n> N")  # the list, then the line again as typed
        assert "Na3" in listed and "Nc3" in listed and "Ng1" in listed
        term.type("\x15resign\r")  # Ctrl-U clears the line
        term.expect("sure? [y/N] ")
        term.type("n\r")
        term.expect("White plays on.")
        term.type("quit\r")
        term.expect(f"Resume it with: {shlex.quote(sys.executable)} -m bot.cli play --game 1")
        assert term.proc.wait(timeout=30) == 0
    finally:
        term.close()


def test_prose_wraps_at_the_terminal_width_and_not_in_a_pipe(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    line = "Re-roll: instead of moving you may roll again (reroll); a double rolled that way"
    assert wrapped(line, 0) == [line]
    assert wrapped(line, 40) == [
        "Re-roll: instead of moving you may roll",
        "  again (reroll); a double rolled that",
        "  way",
    ]
    assert wrap_width(io.StringIO()) == 0

    class Screen(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.setenv("COLUMNS", "61")
    assert wrap_width(Screen()) == 60


async def test_the_status_wraps_on_a_narrow_terminal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    class Screen(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.setenv("COLUMNS", "61")
    service = await GameService.open(str(tmp_path / "wrap.sqlite3"), renderer=None)
    try:
        out = Screen()
        session = console.Session(service, io.StringIO(), out, show_board=False)
        await session.start("guardener", None, 3)
        lines = out.getvalue().splitlines()
        assert max(len(line) for line in lines) <= 60
        assert any(line.startswith("  ") for line in lines)  # a continuation
        joined = " ".join(line.strip() for line in lines)
        status = (await service.text_board(game_id=session.game_id)).status
        assert all(" ".join(fact.split()) in joined for fact in status.lines)
    finally:
        await service.close()
