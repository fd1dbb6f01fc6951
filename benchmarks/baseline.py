"""An older version of our own ``variants`` package, importable beside the current one.

    baseline = load_variants("main")   # the package as the commit ``main`` names has it

Used by ``perft.py`` and ``replay.py`` with ``--baseline-ref``: the package is written
out of git (``git archive``, nothing in the work tree changes) into a temporary
directory and imported under another name (``baseline_variants``), so both versions run
in one process and their repetitions can be interleaved. The package imports its own
modules relatively, so the copy reads only its own code.

    tree, commit = export_tree("main", directory)   # the whole tree of that commit

Used by ``service.py``: its baseline runs in processes of their own, with that tree
first on ``sys.path`` (the bot, the service, the store and the rules as they were).
"""

from __future__ import annotations

import atexit
import importlib.util
import io
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
NAME = "baseline_variants"


def resolve(ref: str) -> str:
    """The commit ``ref`` names, in this repository."""
    out = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--verify", f"{ref}^{{commit}}"],
        check=True,
        capture_output=True,
        text=True,
    )
    return out.stdout.strip()


def load_variants(ref: str) -> tuple[ModuleType, str]:
    """The ``variants`` package of commit ``ref``, imported as ``baseline_variants``,
    and the commit's id."""
    commit = resolve(ref)
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", "--format=tar", commit, "variants"],
        check=True,
        capture_output=True,
    ).stdout
    where = Path(tempfile.mkdtemp(prefix="chessgarden-baseline-"))
    atexit.register(shutil.rmtree, where, ignore_errors=True)
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(where, filter="data")
    package = where / "variants"
    spec = importlib.util.spec_from_file_location(
        NAME, package / "__init__.py", submodule_search_locations=[str(package)]
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[NAME] = module
    spec.loader.exec_module(module)
    return module, commit


def export_tree(ref: str, where: Path) -> tuple[Path, str]:
    """The whole tree of commit ``ref``, written out of git under ``where`` (reused if
    already there), and the commit's id: a program run with it first on ``sys.path``
    imports that commit's packages (``service.py --baseline-ref``)."""
    commit = resolve(ref)
    tree = where / f"tree-{commit[:12]}"
    if not (tree / "pyproject.toml").exists():
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", "--format=tar", commit],
            check=True,
            capture_output=True,
        ).stdout
        tree.mkdir(parents=True, exist_ok=True)
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(tree, filter="data")
    return tree, commit
