"""The layering rule (ARCHITECTURE.md): importing ``variants``, ``renderers``,
``storage`` and ``bot.service``, with every module inside them, leaves
``discord`` out of ``sys.modules``. Runs in a fresh interpreter so that other
tests' imports cannot hide or fake a violation."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

PROBE = """
import importlib, pkgutil, sys
loaded = []
for name in ("variants", "renderers", "storage", "bot.service"):
    package = importlib.import_module(name)
    loaded.append(name)
    for info in pkgutil.walk_packages(package.__path__, name + "."):
        importlib.import_module(info.name)
        loaded.append(info.name)
bad = sorted(m for m in sys.modules if m == "discord" or m.startswith("discord."))
print(len(loaded))
if bad:
    raise SystemExit("discord imported: " + ", ".join(bad[:5]))
"""


def run_probe(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120
    )


def test_core_layers_do_not_import_discord() -> None:
    done = run_probe(PROBE)
    assert done.returncode == 0, done.stderr or done.stdout
    assert int(done.stdout.split()[-1]) >= 10  # the probe really walked the packages


def test_the_probe_can_fail() -> None:
    done = run_probe("import sys; sys.modules['discord'] = sys\n" + PROBE)
    assert done.returncode != 0 and "discord imported" in done.stderr


ENGINE_PROBE = """
import importlib, pkgutil, sys
before = set(sys.modules)
package = importlib.import_module("engine")
for info in pkgutil.walk_packages(package.__path__, "engine."):
    importlib.import_module(info.name)
tops = {m.split(".")[0] for m in set(sys.modules) - before}
foreign = sorted(t for t in tops - {"engine", "variants"} if t not in sys.stdlib_module_names
                 and not t.startswith("_"))
print(sorted(tops))
if foreign:
    raise SystemExit("engine imported: " + ", ".join(foreign))
"""


def test_the_search_imports_only_the_rules_and_the_standard_library() -> None:
    done = run_probe(ENGINE_PROBE)
    assert done.returncode == 0, done.stderr or done.stdout
    assert "variants" in done.stdout and "engine" in done.stdout
    bad = run_probe("import sys; sys.modules['aiosqlite'] = sys\n" + ENGINE_PROBE.replace(
        "before = set(sys.modules)", "before = set(sys.modules) - {'aiosqlite'}"))
    assert bad.returncode != 0 and "aiosqlite" in bad.stderr
