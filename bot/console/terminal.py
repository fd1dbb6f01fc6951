"""Reading the console's input: line editing, history and Tab completion on a terminal.

On a terminal (standard input is one), lines are read with
``readline`` when Python has it: the arrow keys move in the line and through the
history, and Tab completes the legal actions and the console's commands. Anywhere
else (a pipe, a file, a test), lines are read plainly, without a prompt. Either
way an escape sequence that a terminal without ``readline`` would pass on (an arrow
key's ``ESC [ A``) is removed from the line rather than refused as a control character.

Ctrl-C interrupts the wait at once (``KeyboardInterrupt``); asyncio's own handler
would only cancel the task once the blocking read returned. A Ctrl-C that asyncio's
handler took just before the prompt (the computer's move was being shown: it cancelled
the task, which had no ``await`` left before the read) interrupts the read the same way,
and ``settle_interrupt`` takes that cancellation back so that the console can still say
how to resume.
"""

from __future__ import annotations

import asyncio
import re
import shutil
import signal
import sys
import textwrap
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TextIO

# CSI sequences (ESC [ ... final byte), SS3 sequences (ESC O x), any other ESC x, and
# the C0 control characters except tab.
_ESCAPES = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1bO.|\x1b.?|[\x00-\x08\x0a-\x1f\x7f]")


def clean_line(line: str) -> str:
    """``line`` without terminal escape sequences and control characters; tabs become
    spaces. What is left is what the player typed."""
    return _ESCAPES.sub("", line).replace("\t", " ").strip()


def wrap_width(stdout: TextIO) -> int:
    """The width to wrap prose at on a terminal (its columns, less one); 0 elsewhere, where
    lines go out whole (a pipe, a file: scripts read them)."""
    if not _is_terminal(stdout):
        return 0
    return max(40, shutil.get_terminal_size().columns - 1)


def wrapped(line: str, width: int) -> list[str]:
    """``line`` wrapped between words at ``width`` (continuations indented); whole when
    ``width`` is 0."""
    if not width or len(line) <= width:
        return [line]
    return textwrap.wrap(line, width, subsequent_indent="  ", break_on_hyphens=False) or [line]


def completions(text: str, words: Sequence[str]) -> list[str]:
    """The words that complete ``text``: those starting with it exactly as typed. Case
    matters (``B`` is a Bishop, ``b`` a file), and a completion never changes what was
    typed, only adds to it. Each word once, in the given order."""
    return list(dict.fromkeys(w for w in words if w.startswith(text)))


class Completer:
    """A ``readline`` completer over the words ``source()`` gives at the time of Tab."""

    def __init__(self, source: Callable[[], Sequence[str]]) -> None:
        self.source = source
        self._matches: list[str] = []

    def __call__(self, text: str, state: int) -> str | None:
        if state == 0:
            self._matches = completions(text, self.source())
        return self._matches[state] if state < len(self._matches) else None


def _readline_module() -> Any:
    try:
        import readline
    except ImportError:  # not every Python has it (e.g. Windows)
        return None
    return readline


class LineReader:
    """One line at a time from ``stdin``; with ``readline`` on a terminal."""

    def __init__(
        self,
        stdin: TextIO,
        stdout: TextIO,
        words: Callable[[], Sequence[str]] = tuple,
    ) -> None:
        self.stdin = stdin
        self.stdout = stdout
        self.interactive = _is_terminal(stdin)
        self.readline: Any = None
        if self.interactive and stdin is sys.stdin and stdout is sys.stdout:
            self.readline = _readline_module()
        if self.readline is not None:
            self.completer = Completer(words)
            self.readline.set_completer(self.completer)
            # The whole line is one word: an action may hold a space (Nfz4 {T3}), and its
            # notation holds '-', '=', '/', '%', '^', '+', '#'.
            self.readline.set_completer_delims("")
            if "libedit" in (self.readline.__doc__ or ""):  # macOS
                self.readline.parse_and_bind("bind ^I rl_complete")
            else:
                self.readline.parse_and_bind("tab: complete")

    def read(self, prompt: str = "> ", *, remember: bool = True) -> str | None:
        """The next line, cleaned (``None`` at the end of input). ``prompt`` is shown
        only on a terminal. ``remember``: keep the line in the history (a y/N answer
        is not worth recalling)."""
        with _interruptible():
            if self.readline is not None:
                try:
                    line = input(prompt)
                except EOFError:
                    self.stdout.write("\n")
                    return None
                if not remember and line:
                    length = self.readline.get_current_history_length()
                    if length:
                        self.readline.remove_history_item(length - 1)
                return clean_line(line)
            if self.interactive:
                self.stdout.write(prompt)
                self.stdout.flush()
            raw = self.stdin.readline()
        return None if not raw else clean_line(raw)

    def history(self) -> Iterator[str]:
        """The lines in the history, oldest first (empty without ``readline``)."""
        if self.readline is None:
            return iter(())
        length = self.readline.get_current_history_length()
        return (self.readline.get_history_item(i) for i in range(1, length + 1))


def _is_terminal(stream: TextIO) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


@contextmanager
def _interruptible() -> Iterator[None]:
    try:
        previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    except ValueError:  # not the main thread (no Ctrl-C here)
        yield
        return
    try:
        if _cancel_requested():  # a Ctrl-C asyncio took before the handler changed
            raise KeyboardInterrupt
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _cancel_requested() -> bool:
    try:
        task = asyncio.current_task()
    except RuntimeError:  # no event loop: a plain read
        return False
    return task is not None and task.cancelling() > 0


async def settle_interrupt() -> None:
    """After a ``KeyboardInterrupt`` from ``LineReader.read``: if asyncio's Ctrl-C handler
    had cancelled this task (see the module), take the cancellation now, so that the
    task can still await its goodbye (the line that resumes the game)."""
    task = asyncio.current_task()
    if task is None or not task.cancelling():
        return
    try:
        await asyncio.sleep(0)
    except asyncio.CancelledError:
        task.uncancel()
