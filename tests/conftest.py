"""Fixtures shared by every test folder: the stores (issue 16).

- ``pg_cluster`` (session): a throwaway PostgreSQL cluster (``tests/pgcluster.py``),
  started on first use and removed at the end. Without ``initdb``/``pg_ctl`` (or without
  asyncpg), every test that needs it is skipped with the same one-line reason.
- ``pg_url``: a fresh empty database on that cluster, dropped after the test.
- ``store_target``: parametrized over both backends: an SQLite file path, then a
  PostgreSQL URL. A suite that opens its store from it runs on both; ``store_kind``
  says which one a test got ('sqlite' or 'postgresql').
- ``switch_often``: CPython switches threads as often as it allows while the test runs,
  so that the interleavings a thread-safety test looks for happen.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
import pgcluster  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("variants", "engine", "renderers", "storage", "bot")


def _keep_bytecode() -> None:
    """Let the suite's processes keep their compiled modules (``__pycache__``).

    An environment that sets ``PYTHONDONTWRITEBYTECODE`` (this machine's image does) makes
    every process compile each module it imports from source, and pytest rewrite each test
    module's asserts again. The suite starts about 200 Python processes (its workers, bots,
    consoles and kill -9 children), so it is undone here for the suite and its children;
    the controller compiles the packages once before the workers start. Compiled files go
    where Python puts them (``__pycache__``, which git ignores and the image's build context
    leaves out); nothing else changes.
    """
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    sys.dont_write_bytecode = False
    if "PYTEST_XDIST_WORKER" in os.environ:
        return  # a worker: the controller compiled the packages before starting it
    import compileall

    for package in PACKAGES:
        compileall.compile_dir(ROOT / package, quiet=2, workers=1)


_keep_bytecode()

BACKENDS = ("sqlite", "postgresql")


@pytest.fixture
def switch_often() -> Iterator[None]:
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        yield
    finally:
        sys.setswitchinterval(before)


def _skip(reason: str) -> None:
    """Skip locally; in CI (``CHESSGARDEN_REQUIRE_PG=1``, set by .ci/run) fail instead."""
    if os.environ.get("CHESSGARDEN_REQUIRE_PG") == "1":
        pytest.fail(reason.replace("skipped", "cannot run"), pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[pgcluster.Cluster]:
    if not pgcluster.available():
        _skip(pgcluster.SKIP_REASON)
    if importlib.util.find_spec("asyncpg") is None:
        _skip("PostgreSQL tests skipped: asyncpg missing (pip install -e '.[test,postgres]')")
    cluster = pgcluster.Cluster()
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture
def pg_url(pg_cluster: pgcluster.Cluster) -> Iterator[str]:
    url = pg_cluster.database()
    try:
        yield url
    finally:
        pg_cluster.drop(url)


@pytest.fixture(params=BACKENDS)
def store_kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def store_target(store_kind: str, tmp_path: Path, request: pytest.FixtureRequest) -> str:
    """Where the test's store lives: a file path (SQLite) or a URL (PostgreSQL)."""
    if store_kind == "sqlite":
        return str(tmp_path / "db.sqlite3")
    return str(request.getfixturevalue("pg_url"))


@pytest.fixture(autouse=True, scope="session")
def _render_cache_in_a_temporary_directory(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Path]:
    """Every test keeps the renderer's drawings (``renderers.prebuilt``) in a directory of
    its own session, not the user's cache; child processes inherit the setting."""
    where = tmp_path_factory.mktemp("render-cache")

    def reset() -> None:
        prebuilt = sys.modules.get("renderers.prebuilt")
        if prebuilt is not None:
            prebuilt.reset()

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("CHESSGARDEN_RENDER_CACHE", str(where))
        reset()
        yield where
    reset()
