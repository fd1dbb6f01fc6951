"""The layering rule (ARCHITECTURE.md): importing ``variants``, ``renderers``,
``storage`` and ``bot.service``, with every module inside them, leaves
``discord`` out of ``sys.modules``. Runs in a fresh interpreter so that other
tests' imports cannot hide or fake a violation. And no package outside
``variants/`` names a variant's key: a variant owns its facts."""

from __future__ import annotations

import ast
import re
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
    bad = run_probe(
        "import sys; sys.modules['aiosqlite'] = sys\n"
        + ENGINE_PROBE.replace(
            "before = set(sys.modules)", "before = set(sys.modules) - {'aiosqlite'}"
        )
    )
    assert bad.returncode != 0 and "aiosqlite" in bad.stderr


# ----- no variant key outside variants/ ---------------------------------------------------

# Where a variant's key may be written: its own package, the tests, and the benchmarks
# (which measure particular variants on purpose). Everything else asks the variant
# (``variants/facts.py``) or ``variants.names()``.
KEY_ALLOWED = ("variants", "tests", "benchmarks")


def key_mentions(root: Path, keys: tuple[str, ...]) -> list[str]:
    """``path:line: key`` for every variant key written in a .py file under ``root``
    outside ``KEY_ALLOWED`` (a key as a whole word: ``_guardener`` is not one)."""
    pattern = re.compile(
        r"(?<![A-Za-z0-9_])(" + "|".join(map(re.escape, keys)) + r")(?![A-Za-z0-9_])"
    )
    found = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root)
        if rel.parts[0] in KEY_ALLOWED or rel.parts[0].startswith("."):
            continue
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for match in pattern.finditer(line):
                found.append(f"{rel}:{n}: {match.group(1)}")
    return found


def test_no_package_outside_variants_names_a_variant() -> None:
    import variants

    keys = variants.names()
    assert len(keys) >= 5
    assert key_mentions(ROOT, keys) == []


def test_the_key_check_can_fail(tmp_path: Path) -> None:
    (tmp_path / "engine").mkdir()
    (tmp_path / "variants").mkdir()
    (tmp_path / "engine" / "x.py").write_text('TABLE = {"kings_guard": 1}\nname = "_kings_guard"\n')
    (tmp_path / "variants" / "y.py").write_text('KEY = "kings_guard"\n')
    assert key_mentions(tmp_path, ("kings_guard",)) == ["engine/x.py:1: kings_guard"]


# ----- the front ends' floors (issue 25) ---------------------------------------------------

FLOORS = ("bot.discord", "bot.console", "bot.web")  # front ends: never import each other
# The one module that assembles the bot's process: it starts the web pages beside the bot.
ASSEMBLERS = {"bot/discord/run.py": ("bot.web.cli",)}
KNOT = ("views", "flows", "challenges")  # bot/discord: one way, no import inside a function


def imports_of(path: Path) -> list[tuple[str, bool]]:
    """Every module ``path`` imports, and whether the import sits inside a function."""
    tree = ast.parse(path.read_text(), str(path))
    found: list[tuple[str, bool]] = []

    def visit(node: ast.AST, inside: bool) -> None:
        for child in ast.iter_child_nodes(node):
            local = inside or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef)
            if isinstance(child, ast.Import):
                found.extend((alias.name, inside) for alias in child.names)
            elif isinstance(child, ast.ImportFrom) and child.module and child.level == 0:
                found.append((child.module, inside))
                found.extend((f"{child.module}.{alias.name}", inside) for alias in child.names)
            visit(child, local)

    visit(tree, False)
    return found


def floor_problems(root: Path) -> list[str]:
    problems = []
    for floor in FLOORS:
        others = [f for f in FLOORS if f != floor]
        for path in sorted((root / floor.replace(".", "/")).rglob("*.py")):
            where = path.relative_to(root)
            for module, inside in imports_of(path):
                allowed = ASSEMBLERS.get(str(where), ())
                if module in allowed or any(module.startswith(a + ".") for a in allowed):
                    continue
                if any(module == o or module.startswith(o + ".") for o in others):
                    problems.append(f"{where}: imports {module} (another front end)")
                knot = {f"bot.discord.{name}" for name in KNOT}
                if inside and path.stem in KNOT and module in knot:
                    problems.append(f"{where}: imports {module} inside a function")
    return problems


def test_front_ends_do_not_import_each_other_and_the_knot_is_untied() -> None:
    assert (ROOT / "bot/discord/views.py").exists() and (ROOT / "bot/console").is_dir()
    assert floor_problems(ROOT) == []


def test_the_floor_check_can_fail(tmp_path: Path) -> None:
    (tmp_path / "bot/console").mkdir(parents=True)
    (tmp_path / "bot/discord").mkdir(parents=True)
    (tmp_path / "bot/console/x.py").write_text("from bot.discord import adapter\n")
    (tmp_path / "bot/discord/views.py").write_text("def f():\n    from bot.discord import flows\n")
    assert sorted(floor_problems(tmp_path)) == [
        "bot/console/x.py: imports bot.discord (another front end)",
        "bot/console/x.py: imports bot.discord.adapter (another front end)",
        "bot/discord/views.py: imports bot.discord.flows inside a function",
    ]
