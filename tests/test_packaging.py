"""The package and the Docker image hold everything the bot runs (issue 24).

- The wheel and the sdist (built with ``python -m build``: the sdist, then the wheel from
  the sdist) contain every runtime package: the packages the ``chessgarden`` command
  imports, followed import by import from its entry point, with every module and data file
  in them.
- The Dockerfile's steps are repeated without a Docker engine: its ``COPY`` lines copy the
  build context as Docker would send it (``.dockerignore`` applied) into a directory that
  stands for the image, and its ``RUN pip install`` runs there, in a fresh virtual
  environment. Then, from a folder outside the repository and with the image's ``ENV``
  (absolute paths moved under the stand-in image), the installed ``chessgarden`` plays a
  computer move in every variant, renders a board, runs a sweep, starts its entry point and
  answers its ``HEALTHCHECK``. Every module is imported from the environment, never from
  this checkout.

A Dockerfile step the test cannot repeat (``ADD``, ``COPY --from``, an unknown pip option)
fails the test with a sentence, so that the two cannot drift apart unseen.
"""

from __future__ import annotations

import ast
import json
import os
import re
import shlex
import shutil
import sqlite3
import subprocess
import sys
import tarfile
import time
import tomllib
import urllib.request
import zipfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

import pytest

ROOT = Path(__file__).resolve().parent.parent
# pip options that change how pip works here, not what it installs.
HARMLESS_PIP_OPTIONS = {
    "--no-cache-dir",  # dropped: the test reuses pip's cache to stay quick
    "-q",
    "--quiet",
    "--no-compile",
    "--disable-pip-version-check",
    "--root-user-action=ignore",
    "--progress-bar=off",
}
IGNORED_INSTRUCTIONS = {"FROM", "USER", "EXPOSE", "LABEL", "STOPSIGNAL", "CMD", "SHELL"}
BUILD_JUNK = {".git", ".venv", ".ci-venv", "build", "dist", "out", "__pycache__"}


# ----- what the runtime imports ---------------------------------------------------------------


def local_packages(root: Path) -> set[str]:
    return {p.parent.name for p in root.glob("*/__init__.py")}


def runtime_packages(root: Path) -> set[str]:
    """The top-level packages of this repository that the console scripts need: their own
    packages, then every local package any module of those imports (at the top or inside a
    function, or by name in a string such as ``"renderers.cli"``), until nothing is new."""
    local = local_packages(root)
    scripts = tomllib.loads((root / "pyproject.toml").read_text())["project"]["scripts"]
    needed = {target.split(":")[0].split(".")[0] for target in scripts.values()}
    todo = list(needed)
    while todo:
        package = todo.pop()
        for source in (root / package).rglob("*.py"):
            for name in imported_names(source):
                top = name.split(".")[0]
                if top in local and top not in needed:
                    needed.add(top)
                    todo.append(top)
    return needed


def imported_names(source: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            if re.fullmatch(r"[a-z_]+(\.[a-z_]+)+", node.value):
                names.add(node.value)
    return names


def package_files(root: Path, packages: set[str]) -> set[str]:
    """Every module and data file of the packages, as paths relative to ``root``."""
    files: set[str] = set()
    for package in packages:
        for path in (root / package).rglob("*"):
            if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc":
                files.add(path.relative_to(root).as_posix())
    return files


# ----- the Dockerfile -------------------------------------------------------------------------


@dataclass
class Dockerfile:
    env: dict[str, str] = field(default_factory=dict)
    workdir: str = "/"
    copies: list[tuple[list[str], str, str]] = field(default_factory=list)  # sources, dest, wd
    pip_installs: list[tuple[list[str], str]] = field(default_factory=list)  # args, workdir
    volumes: list[str] = field(default_factory=list)
    healthcheck: list[str] | None = None
    entrypoint: list[str] = field(default_factory=list)


def instructions(text: str) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) with continuation lines joined and comments dropped."""
    found: list[tuple[str, str]] = []
    pending = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not pending and (not line or line.startswith("#")):
            continue
        if pending and line.startswith("#"):
            continue  # a comment line inside a continued instruction
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        whole = (pending + line).strip()
        pending = ""
        word, _, rest = whole.partition(" ")
        found.append((word.upper(), rest.strip()))
    return found


def exec_form(text: str) -> list[str]:
    if text.startswith("["):
        return [str(word) for word in json.loads(text)]
    return ["/bin/sh", "-c", text]


def parse_dockerfile(text: str) -> Dockerfile:
    image = Dockerfile()
    stages = 0
    for word, rest in instructions(text):
        if word == "FROM":
            stages += 1
            if stages > 1:
                pytest.fail("the test repeats one-stage Dockerfiles only; teach it the stages")
        elif word == "ENV":
            for item in shlex.split(rest):
                key, eq, value = item.partition("=")
                if not eq:
                    pytest.fail(f"ENV {rest!r}: write ENV KEY=VALUE")
                image.env[key] = value
        elif word == "WORKDIR":
            image.workdir = str(PurePosixPath(image.workdir) / rest)
        elif word == "COPY":
            words = exec_form(rest) if rest.startswith("[") else shlex.split(rest)
            flags = [w for w in words if w.startswith("--")]
            for flag in flags:
                if not flag.startswith(("--chown", "--chmod", "--link")):
                    pytest.fail(f"COPY {flag}: the test cannot repeat that step")
            paths = [w for w in words if not w.startswith("--")]
            image.copies.append((paths[:-1], paths[-1], image.workdir))
        elif word == "RUN":
            for part in re.split(r"&&|;|\|\|", rest):
                args = shlex.split(part)
                if args[:2] == ["pip", "install"]:
                    image.pip_installs.append((args[2:], image.workdir))
                elif args[1:4] == ["-m", "pip", "install"]:
                    image.pip_installs.append((args[4:], image.workdir))
        elif word == "VOLUME":
            image.volumes.extend(exec_form(rest) if rest.startswith("[") else rest.split())
        elif word == "HEALTHCHECK":
            command = rest.partition("CMD")[2].strip()
            image.healthcheck = exec_form(command) if command else None
        elif word == "ENTRYPOINT":
            image.entrypoint = exec_form(rest)
        elif word not in IGNORED_INSTRUCTIONS:
            pytest.fail(f"{word}: the test cannot repeat that step; teach it")
    return image


# ----- .dockerignore --------------------------------------------------------------------------


def ignore_rules(text: str) -> list[tuple[bool, re.Pattern[str]]]:
    """(is an exception ``!``, pattern) per line, as Docker reads them: ``*`` and ``?`` stay
    within a path segment, ``**`` spans any number of them, a leading ``/`` means the root."""
    rules: list[tuple[bool, re.Pattern[str]]] = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        negated = line.startswith("!")
        pattern = PurePosixPath(line.lstrip("!").strip().lstrip("/")).as_posix()
        regex, i = "", 0
        while i < len(pattern):
            if pattern.startswith("**/", i):
                regex, i = regex + "(?:.*/)?", i + 3
            elif pattern.startswith("**", i):
                regex, i = regex + ".*", i + 2
            elif pattern[i] == "*":
                regex, i = regex + "[^/]*", i + 1
            elif pattern[i] == "?":
                regex, i = regex + "[^/]", i + 1
            elif pattern[i] == "[":
                end = pattern.index("]", i)
                regex, i = regex + pattern[i : end + 1], end + 1
            else:
                regex, i = regex + re.escape(pattern[i]), i + 1
        rules.append((negated, re.compile(regex)))
    return rules


def is_ignored(path: str, rules: list[tuple[bool, re.Pattern[str]]]) -> bool:
    """Whether Docker leaves ``path`` (relative, with ``/``) out of the build context: the
    last rule that matches it or one of its folders decides."""
    parts = path.split("/")
    candidates = ["/".join(parts[: n + 1]) for n in range(len(parts))]
    ignored = False
    for negated, regex in rules:
        if any(regex.fullmatch(c) for c in candidates):
            ignored = not negated
    return ignored


def build_context(root: Path, dest: Path) -> None:
    """Copy what ``docker build`` would send from ``root`` into ``dest``."""
    path = root / ".dockerignore"
    rules = ignore_rules(path.read_text(encoding="utf-8")) if path.exists() else []
    prune = not any(negated for negated, _ in rules)
    for folder, dirs, files in os.walk(root):
        here = Path(folder)
        rel = here.relative_to(root)
        if prune:
            dirs[:] = [d for d in dirs if not is_ignored((rel / d).as_posix(), rules)]
        for name in files:
            relative = (rel / name).as_posix()
            if not is_ignored(relative, rules):
                (dest / relative).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(here / name, dest / relative)


def lay_out(image: Dockerfile, context: Path, fs: Path) -> None:
    """Repeat the ``COPY`` steps: from ``context`` into the stand-in image root ``fs``."""
    for sources, dest, workdir in image.copies:
        target = fs / str(PurePosixPath(workdir) / dest).lstrip("/")
        into_folder = dest.endswith("/") or dest in (".", "./") or len(sources) > 1
        for source in sources:
            matches = sorted(context.glob(source)) if any(c in source for c in "*?[") else []
            for item in matches or [context / source]:
                if not item.exists():
                    pytest.fail(f"COPY {source}: not in the build context (see .dockerignore)")
                if item.is_dir():
                    shutil.copytree(item, target, dirs_exist_ok=True)
                else:
                    where = target / item.name if into_folder or target.is_dir() else target
                    where.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(item, where)


def image_env(image: Dockerfile, fs: Path, venv: Path) -> dict[str, str]:
    """The environment inside the stand-in image: this machine's, without any Python
    setting that could reach this checkout, plus the Dockerfile's ``ENV`` with absolute
    paths moved under ``fs``, and the virtual environment first on ``PATH``."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("PYTHON", "CHESSGARDEN_", "DISCORD_")) and k != "VIRTUAL_ENV"
    }
    for key, value in image.env.items():
        env[key] = str(fs / value.lstrip("/")) if value.startswith("/") else value
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    return env


# ----- fixtures -------------------------------------------------------------------------------


def run(
    args: list[str | Path], *, cwd: Path, env: dict[str, str] | None = None, stdin: str = ""
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(a) for a in args],
        cwd=cwd,
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=600,
    )


def clean_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}


@pytest.fixture(scope="module")
def dists(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The sdist, and the wheel built from it, from a clean copy of this checkout."""
    base = tmp_path_factory.mktemp("dist")
    source = base / "src"

    def junk(folder: str, names: list[str]) -> set[str]:
        return {n for n in names if n in BUILD_JUNK or n.endswith((".egg-info", ".sqlite3"))}

    shutil.copytree(ROOT, source, ignore=junk)
    done = run([sys.executable, "-m", "build", "--outdir", base / "out", source], cwd=base)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    (sdist,) = (base / "out").glob("*.tar.gz")
    (wheel,) = (base / "out").glob("*.whl")
    return sdist, wheel


@pytest.fixture(scope="module")
def image(tmp_path_factory: pytest.TempPathFactory) -> tuple[Dockerfile, Path]:
    """The Dockerfile's ``COPY`` steps repeated: (the Dockerfile, the stand-in root)."""
    base = tmp_path_factory.mktemp("image")
    dockerfile = parse_dockerfile((ROOT / "Dockerfile").read_text(encoding="utf-8"))
    build_context(ROOT, base / "context")
    lay_out(dockerfile, base / "context", base / "fs")
    for volume in [*dockerfile.volumes, "/tmp"]:
        (base / "fs" / volume.lstrip("/")).mkdir(parents=True, exist_ok=True)
    return dockerfile, base / "fs"


# ----- tests ----------------------------------------------------------------------------------


PAINT = """\
import asyncio

import variants
from bot.service.live import board_picture, render_board
from bot.service.painter import Painter


async def main():
    painter = Painter(warm=False)
    painter.start()
    assert await painter.wait_ready(), "the painter did not start"
    game = variants.new_game("guardener", seed=1)
    ticket = painter.send_board(board_picture(game, "black"))
    png = await painter.receive(ticket)
    print(painter.pid() is not None and png == render_board(game, "black"), painter.boards)
    await painter.close()


if __name__ == "__main__":
    asyncio.run(main())
"""


def test_the_runtime_needs_the_five_packages() -> None:
    # The scan above is what the other tests trust: it finds the engine through the
    # computer opponent's lazy imports, not from a list.
    assert runtime_packages(ROOT) >= {"bot", "variants", "engine", "renderers", "storage"}


def test_the_wheel_and_the_sdist_hold_every_runtime_module(dists: tuple[Path, Path]) -> None:
    sdist, wheel = dists
    expected = package_files(ROOT, runtime_packages(ROOT))
    with zipfile.ZipFile(wheel) as archive:
        in_wheel = set(archive.namelist())
    with tarfile.open(sdist) as archive:
        in_sdist = {name.partition("/")[2] for name in archive.getnames()}
    assert not expected - in_wheel, f"missing from the wheel: {sorted(expected - in_wheel)}"
    assert not expected - in_sdist, f"missing from the sdist: {sorted(expected - in_sdist)}"
    entry_points = zipfile.ZipFile(wheel).read(
        next(n for n in in_wheel if n.endswith("entry_points.txt"))
    )
    assert b"chessgarden = bot.cli:main" in entry_points


def test_the_build_context_keeps_out_secrets_stores_and_caches() -> None:
    rules = ignore_rules((ROOT / ".dockerignore").read_text(encoding="utf-8"))
    for path in [
        ".env",
        "chessgarden.env",
        ".env.local",
        "chessgarden.sqlite3",
        "data/chessgarden.sqlite3-wal",
        ".git/HEAD",
        ".ci-venv/bin/python",
        "bot/__pycache__/cli.cpython-311.pyc",
        "chess_garden.egg-info/PKG-INFO",
        "tests/test_packaging.py",
    ]:
        assert is_ignored(path, rules), path
    for path in ["pyproject.toml", "README.md", "bot/cli.py", "engine/__init__.py"]:
        assert not is_ignored(path, rules), path


def test_the_image_holds_every_runtime_package(image: tuple[Dockerfile, Path]) -> None:
    dockerfile, fs = image
    app = fs / dockerfile.workdir.lstrip("/")
    assert dockerfile.pip_installs, "the Dockerfile installs nothing with pip"
    missing = [p for p in sorted(runtime_packages(ROOT)) if not (app / p / "__init__.py").is_file()]
    assert not missing, f"the image's {dockerfile.workdir} lacks {missing}: pip would skip them"


def test_the_image_built_as_the_dockerfile_says_plays_the_computer(
    image: tuple[Dockerfile, Path], tmp_path: Path
) -> None:
    dockerfile, fs = image
    venv = tmp_path / "venv"
    done = run([sys.executable, "-m", "venv", venv], cwd=tmp_path, env=clean_env())
    assert done.returncode == 0, done.stderr
    env = image_env(dockerfile, fs, venv)
    for args, workdir in dockerfile.pip_installs:
        unknown = [a for a in args if a.startswith("-") and a not in HARMLESS_PIP_OPTIONS]
        assert not unknown, f"pip options the test does not know: {unknown}; teach it"
        wanted = [a for a in args if a != "--no-cache-dir"]
        done = run(
            [venv / "bin" / "python", "-m", "pip", "install", "-q", *wanted],
            cwd=fs / workdir.lstrip("/"),
            env=env,
        )
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    shutil.rmtree(fs / dockerfile.workdir.lstrip("/"))  # only the installed copy remains
    outside = tmp_path / "elsewhere"
    outside.mkdir()

    # Every module of every runtime package imports, from the environment only.
    packages = sorted(runtime_packages(ROOT))
    done = run([venv / "bin" / "python", "-c", IMPORT_ALL, *packages], cwd=outside, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    names = json.loads(done.stdout)["variants"]

    # The message catalogues ship as .po and compile from the installed copy (issue 27).
    speak = (
        "from bot import i18n; print(i18n.available(), i18n.gettext('de', 'Resign'), "
        "i18n.pgettext('de', 'command name', 'play'))"
    )
    done = run([venv / "bin" / "python", "-c", speak], cwd=outside, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.split() == ["('de',", "'en')", "Aufgeben", "spielen"], done.stdout

    # A computer move in every variant (the computer plays White, so it moves first).
    chessgarden = venv / "bin" / "chessgarden"
    for variant in names:
        done = run(
            [chessgarden, "play", variant, "--vs", "ai:1", "--colour", "black", "--no-board"],
            cwd=outside,
            env=env,
            stdin="quit\n",
        )
        assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr[-3000:]
        assert "The computer (level 1) is thinking" in done.stdout, done.stdout[-2000:]
    db = Path(env["CHESSGARDEN_DB"])
    with sqlite3.connect(db) as conn:
        played = dict(conn.execute("SELECT variant, log_count FROM games").fetchall())
    assert set(played) == set(names)
    assert all(count >= 1 for count in played.values()), f"the computer did not move: {played}"

    # A board image.
    done = run([chessgarden, "render", names[0], "-o", outside / "board.png"], cwd=outside, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    assert (outside / "board.png").read_bytes().startswith(b"\x89PNG\r\n\x1a\n")

    # The painter process (issue 26), started from the installed copy, draws a board as
    # this process would.
    painting = outside / "paint.py"
    painting.write_text(PAINT)
    done = run([venv / "bin" / "python", painting], cwd=outside, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.split() == ["True", "1"], done.stdout + done.stderr[-3000:]

    # The game's web page (issue 28): served by the image's own `chessgarden web`, at the
    # address `chessgarden link` prints, with its board image.
    server = subprocess.Popen(
        [chessgarden, "web", "--host", "127.0.0.1", "--port", "0"],
        cwd=outside,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        said = server.stdout.readline()
        assert said.startswith("serving game pages on http://"), said + server.stderr.read()
        base = said.split()[4]
        link_env = {**env, "CHESSGARDEN_PUBLIC_URL": base}
        done = run([chessgarden, "link", "1"], cwd=outside, env=link_env)
        assert done.returncode == 0 and done.stdout.startswith(base + "/g/1-"), done.stderr
        with urllib.request.urlopen(done.stdout.strip(), timeout=30) as page:
            html = page.read().decode()
        image = re.search(r'<img[^>]+src="([^"]+)"', html)
        assert image, html[:2000]
        with urllib.request.urlopen(base + image.group(1), timeout=30) as picture:
            assert picture.read().startswith(b"\x89PNG\r\n\x1a\n")
        # Its live updates: the first event, written by the image's relay process.
        with urllib.request.urlopen(done.stdout.strip() + "/events", timeout=30) as events:
            assert events.headers["Content-Type"] == "text/event-stream"
            line = b""
            while not line.startswith(b"data: "):
                line = events.readline()
                assert line, "the live stream ended before its first event"
            assert json.loads(line[6:])["last"] >= 0
            relays = children_running(server.pid, b"bot.web.relay")
            assert len(relays) == 1, "the live page was not handed to the relay"
    finally:
        server.terminate()
        server.communicate(timeout=30)

    # A sweep of the deadlines on the image's store.
    done = run([chessgarden, "sweep"], cwd=outside, env=env)
    assert done.returncode == 0, done.stderr[-3000:]

    # The entry point starts the bot's code (and stops, for want of a token).
    done = run(dockerfile.entrypoint, cwd=outside, env=env)
    assert done.returncode == 2 and "DISCORD_TOKEN is not set" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr

    # The HEALTHCHECK: unhealthy without a heartbeat, healthy with a fresh one, not with
    # a stale one.
    assert dockerfile.healthcheck, "the Dockerfile has no HEALTHCHECK"
    done = run(dockerfile.healthcheck, cwd=outside, env=env)
    assert done.returncode == 1 and "FAIL  heartbeat" in done.stdout, done.stdout + done.stderr
    beat = "from bot.service.health import beat, heartbeat_path; beat(heartbeat_path())"
    assert run([venv / "bin" / "python", "-c", beat], cwd=outside, env=env).returncode == 0
    done = run(dockerfile.healthcheck, cwd=outside, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "ok    store" in done.stdout and "ok    heartbeat" in done.stdout, done.stdout
    heartbeat = Path(env["CHESSGARDEN_HEARTBEAT"])
    os.utime(heartbeat, (time.time() - 3600, time.time() - 3600))
    assert run(dockerfile.healthcheck, cwd=outside, env=env).returncode == 1


def children_running(parent: int, needle: bytes) -> list[int]:
    """The processes whose parent is ``parent`` and whose command line holds ``needle``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            ppid = (entry / "stat").read_text().rsplit(")", 1)[-1].split()[1]
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:  # it ended meanwhile
            continue
        if ppid == str(parent) and needle in cmdline:
            found.append(int(entry.name))
    return found


IMPORT_ALL = """
import importlib, json, pkgutil, sys
for top in sys.argv[1:]:
    package = importlib.import_module(top)
    assert package.__file__.startswith(sys.prefix), (top, package.__file__)
    for info in pkgutil.walk_packages(package.__path__, top + "."):
        if not info.name.endswith("__main__"):
            module = importlib.import_module(info.name)
            assert module.__file__.startswith(sys.prefix), (info.name, module.__file__)
import variants
print(json.dumps({"variants": list(variants.names())}))
"""
