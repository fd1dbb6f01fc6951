"""``chessgarden analyse ID [--db PATH] [--depth N] [--json]`` on a stored game."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest


def run(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bot.cli", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = str(tmp_path_factory.mktemp("analyse") / "a.sqlite3")
    played = run("play", "tquarchess", "--db", path, "--no-board", stdin="e4\nd6\nQg4\nBxg4\n")
    assert played.returncode == 0, played.stderr
    return path


def test_analyse_prints_the_annotated_record_and_a_summary(db: str) -> None:
    result = run("analyse", "1", "--db", db, "--depth", "2")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert any(" Qg4?? " in line for line in lines)
    assert any(line.startswith("White: error rate") for line in lines)
    assert any(line.startswith("Black: error rate") for line in lines)
    assert "analysing [" in result.stderr and "5/5" in result.stderr


def test_analyse_json_has_each_decision_and_the_totals(db: str) -> None:
    result = run("analyse", "1", "--db", db, "--depth", "2", "--json")
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert [d["action"] for d in out["decisions"]] == ["e4", "d6", "Qg4", "Bxg4", None]
    for d in out["decisions"]:
        assert set(d) >= {"ply", "side", "before", "after", "luck", "error", "label"}
    assert out["decisions"][2]["label"] == "??"
    white = out["players"]["white"]
    black = out["players"]["black"]
    change = white["net_skill"] + white["net_luck"]
    assert change == pytest.approx(white["final"] - white["initial"], abs=1e-9)
    assert black["error"] < white["error"]
    assert out["initial"] == pytest.approx(white["initial"]) and out["final"] < out["initial"]


def test_analyse_refuses_a_missing_game_and_a_bad_depth(db: str, tmp_path: Path) -> None:
    missing = run("analyse", "9", "--db", db)
    assert missing.returncode == 1 and missing.stderr.strip() == "error: there is no game 9"
    assert run("analyse", "1", "--db", db, "--depth", "0").returncode == 2
