"""A fork server ("zygote") for the kill -9 tests: appended to a child script that
defines ``say(**fields)`` and ``async def main(db, number)``. The modules are imported
once, and each variant's move tables built once (pure functions of the rules, which every
process builds at its first move in a variant); each run is a fresh process forked from
it that opens the store itself and is killed with SIGKILL. Only the imports and those
tables are shared: no store, game, thread or loop exists before the fork. The zygote reads ``<db> <number>`` lines; a run's first line is its pid, and
after it dies the zygote says how (``{"dead": pid, "signal": n or null}``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

ZYGOTE = r"""
import os, traceback
import variants as _variants
for _name in _variants.names():  # each variant's tables, built at its first legal list
    _variants.new_game(_name, seed=0).legal_moves()
say(zygote=True)
for order in sys.stdin:
    db, number = order.split()
    pid = os.fork()
    if pid == 0:
        sys.stdin.close()
        say(pid=os.getpid())
        code = 0
        try:
            asyncio.run(main(db, int(number)))
        except BaseException:
            traceback.print_exc()
            code = 1
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    say(dead=pid, signal=os.WTERMSIG(status) if os.WIFSIGNALED(status) else None)
"""


class Zygote:
    """The fork server's driver: ``script`` is a child script ending in ``ZYGOTE``. Used
    as a context manager (the zygote is killed at the end). Any line not seen within
    ``timeout_s`` (a run that hung) fails the test, as does the zygote's death."""

    def __init__(self, script: Path, timeout_s: float) -> None:
        self.timeout_s = timeout_s
        self.process = subprocess.Popen(
            [sys.executable, str(script)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONHASHSEED": "0"},
        )
        assert self.process.stdin is not None and self.process.stdout is not None
        self.stdin, self.stdout = self.process.stdin, self.process.stdout

    def __enter__(self) -> Zygote:
        assert self.said() == {"zygote": True}
        return self

    def __exit__(self, *_: object) -> None:
        self.process.kill()
        self.process.communicate()

    def line(self) -> str:
        """The next line from the zygote or its run."""
        timer = threading.Timer(self.timeout_s, self.process.kill)
        timer.start()
        try:
            line = self.stdout.readline()
        finally:
            timer.cancel()
        if not line:
            err = self.process.stderr.read() if self.process.stderr else ""
            raise AssertionError(f"the zygote died or a run hung: {err}")
        return line

    def said(self) -> dict[str, Any]:
        """The next line, read as JSON."""
        found: dict[str, Any] = json.loads(self.line())
        return found

    def run(self, db: str, number: int) -> int:
        """Fork a run of ``main(db, number)``; its pid."""
        self.stdin.write(f"{db} {number}\n")
        self.stdin.flush()
        return int(self.said()["pid"])
