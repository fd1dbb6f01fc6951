"""``bot.tournament`` is pure: importing every module of it, and pairing a round (which
imports networkx, on first use), loads the standard library and networkx only (no storage, no service, no discord, no rules engine, no other part
of ``bot``), in a fresh interpreter so that other tests' imports cannot hide a
violation."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import importlib, pkgutil, sys
allowed = set(sys.argv[1].split(","))
before = set(sys.modules)
package = importlib.import_module("bot.tournament")
for info in pkgutil.walk_packages(package.__path__, "bot.tournament."):
    importlib.import_module(info.name)
from bot.tournament import Player, pair_swiss
pair_swiss([Player(i, 1500 + i) for i in range(1, 6)], [], 1)  # the matching's imports
new = set(sys.modules) - before
tops = {m.split(".")[0] for m in new}
foreign = sorted(t for t in tops - allowed - {"bot"} if t not in sys.stdlib_module_names
                 and not t.startswith("_"))
foreign += sorted(m for m in new if m.startswith("bot.") and not m.startswith("bot.tournament"))
print(sorted(m for m in new if m.startswith("bot.")))
if foreign:
    raise SystemExit("bot.tournament imported: " + ", ".join(foreign))
"""


def probe(allowed: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", PROBE, allowed],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_tournament_core_imports_only_the_standard_library_and_networkx() -> None:
    done = probe("networkx")
    assert done.returncode == 0, done.stderr or done.stdout
    assert "bot.tournament.swiss" in done.stdout and "bot.tournament.standings" in done.stdout


def test_the_probe_can_fail() -> None:
    done = probe("nothing")  # networkx not allowed: the probe must notice it
    assert done.returncode != 0 and "networkx" in done.stderr
