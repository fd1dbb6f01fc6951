"""``chessgarden selfplay``: one line per game, the JSON summary, the ply cap scored a
draw and printed, seeded reproducibility, bad input, and the players themselves."""

from __future__ import annotations

import json
import random

import pytest

import variants
from bot import cli
from engine import players

from .test_cli import probe


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[str], str]:
    code = cli.main(["selfplay", *argv])
    out = capsys.readouterr()
    return code, out.out.splitlines(), out.err


def test_one_line_per_game_and_a_json_summary(capsys: pytest.CaptureFixture[str]) -> None:
    code, lines, _ = run(
        capsys, "kings_guard", "--white", "greedy", "--black", "random", "--games", "3",
        "--seed", "5", "--json",
    )  # fmt: skip
    assert code == 0 and len(lines) == 4
    for i, line in enumerate(lines[:3]):
        assert line.startswith(f"game {i + 1} seed {5 + i}: greedy (white) vs random (black): ")
    summary = json.loads(lines[-1])
    assert set(summary) >= {"variant", "games", "white_wins", "black_wins", "draws", "move_ms"}
    assert summary["variant"] == "kings_guard" and summary["games"] == 3
    assert summary["white_wins"] + summary["black_wins"] + summary["draws"] == 3
    scores = [line.split(": ")[2].split()[0] for line in lines[:3]]
    assert summary["white_wins"] == scores.count("1-0")
    assert summary["black_wins"] == scores.count("0-1")
    assert summary["move_ms"] == {"p50": 0.0, "p95": 0.0, "max": 0.0}  # no AI played


def test_the_same_seed_plays_the_same_games(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ("stone_garden", "--white", "random", "--black", "greedy", "--games", "2", "--seed", "9")
    first = run(capsys, *argv)
    second = run(capsys, *argv)
    assert first == second
    third = run(capsys, *argv[:-1], "10")
    assert third[1][0] == first[1][1].replace("game 2", "game 1")  # game i uses seed S + i


def test_the_ply_cap_is_a_draw_and_is_printed(capsys: pytest.CaptureFixture[str]) -> None:
    code, lines, _ = run(
        capsys, "guardener", "--white", "random", "--black", "random", "--max-plies", "6",
        "--games", "2", "--json",
    )  # fmt: skip
    assert code == 0
    for line in lines[:2]:
        assert "1/2-1/2 (draw: ply cap 6 reached) in 6 plies" in line
    summary = json.loads(lines[-1])
    assert summary["draws"] == 2 and summary["capped"] == 2 and summary["max_plies"] == 6


def test_ai_moves_are_timed(capsys: pytest.CaptureFixture[str]) -> None:
    code, lines, _ = run(
        capsys, "tquarchess", "--white", "ai:1", "--black", "random", "--max-plies", "8",
        "--budget", "0.2", "--json",
    )  # fmt: skip
    assert code == 0
    ms = json.loads(lines[-1])["move_ms"]
    assert 0 < ms["p50"] <= ms["p95"] <= ms["max"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (("chess", "--white", "random", "--black", "random"), "unknown variant"),
        (("guardener", "--white", "ai:4", "--black", "random"), "no AI level '4'"),
        (("guardener", "--white", "smart", "--black", "random"), "unknown player 'smart'"),
        (("guardener", "--white", "random", "--black", "random", "--games", "0"), "--games"),
        (("guardener", "--white", "random", "--black", "random", "--max-plies", "0"), "plies"),
    ],
)
def test_bad_input_is_one_line(
    capsys: pytest.CaptureFixture[str], argv: tuple[str, ...], message: str
) -> None:
    code, lines, err = run(capsys, *argv)
    assert code == 2 and lines == []
    assert err.startswith("error: ") and message in err and err.count("\n") == 1


def test_selfplay_loads_neither_discord_nor_the_database() -> None:
    result = probe("selfplay", "kings_guard", "--white", "random", "--black", "greedy")
    assert result["code"] == 0 and result["loaded"] == []


def test_greedy_takes_the_most_valuable_capture() -> None:
    # The Rook on d1 may take the Queen on d5 or the pawn on a1... only the Queen is worth it.
    game = variants.from_fen("jepps_random", "4k3/8/8/3q4/8/8/p7/R2RK3 w - - 0 1 -", seed=0)
    assert {"Rxa2", "Rxd5"} <= set(game.legal_moves())
    for seed in range(5):
        assert players.greedy_action(game, random.Random(seed)) == "Rxd5"


def test_greedy_without_a_capture_is_random() -> None:
    game = variants.new_game("tquarchess", seed=1)
    chosen = {players.greedy_action(game, random.Random(s)) for s in range(12)}
    assert len(chosen) > 3 and chosen <= set(game.legal_moves())


def test_player_names() -> None:
    assert players.parse("AI:3") == players.Player("ai:3", 3)
    assert players.parse("greedy").level is None
    assert players.percentile([5.0, 1.0, 3.0, 2.0], 0.5) == 2.0
    assert players.percentile([float(i) for i in range(1, 101)], 0.95) == 95.0
    assert players.percentile([], 0.95) == 0.0
