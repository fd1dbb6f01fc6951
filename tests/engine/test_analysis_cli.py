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


def test_a_finished_games_analysis_is_kept_for_the_next_run_and_its_page(
    tmp_path: Path,
) -> None:
    import asyncio

    from bot.service import GameService

    path = str(tmp_path / "over.sqlite3")
    played = run(
        "play", "tquarchess", "--db", path, "--no-board", stdin="e4\nd6\nQg4\nBxg4\nresign\ny\n"
    )
    assert played.returncode == 0, played.stderr

    async def kept() -> object:
        service = await GameService.open(path, renderer=None)
        try:
            return await service.analyses.kept(1, render=False)
        finally:
            await service.close()

    assert asyncio.run(kept()) is None
    first = run("analyse", "1", "--db", path, "--json")
    assert first.returncode == 0, first.stderr
    assert "5/5" in first.stderr and "read back" not in first.stderr
    report = asyncio.run(kept())  # what the game's web page shows
    assert report is not None
    again = run("analyse", "1", "--db", path, "--json")
    assert again.returncode == 0 and "read back: this game was analysed before" in again.stderr
    assert json.loads(again.stdout) == json.loads(first.stdout)
    assert json.loads(first.stdout)["decisions"][2]["label"] == "??"
    too_deep = run("analyse", "1", "--db", path, "--depth", "7")
    assert too_deep.returncode == 2
    assert too_deep.stderr.strip() == "error: --depth must be a whole number from 1 to 6"
