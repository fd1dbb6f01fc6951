"""``chessgarden tournament simulate``: a whole tournament through the real pairing
code, printed as text or JSON; the JSON is checked by re-pairing every round from the
results before it and recomputing the standings."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest

from bot import cli
from bot.tournament import Format, Game, Player, RoundResult, pair_swiss
from bot.tournament.roundrobin import berger_rounds
from bot.tournament.standings import TIEBREAKS, standings


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(["tournament", "simulate", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def simulate_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    code, out, err = run(capsys, *argv, "--json")
    assert code == 0, err
    data: dict[str, Any] = json.loads(out)
    return data


def history_of(data: dict[str, Any]) -> tuple[list[Player], list[RoundResult]]:
    players = [Player(p["id"], p["rating"], p["name"]) for p in data["players"]]
    rounds = []
    for r in data["rounds"]:
        games = tuple(
            Game(b["white"], b["black"], b["result"], b["forfeit"])
            for b in r["boards"]
            if b["result"]
        )
        rounds.append(RoundResult(r["round"], games, r["bye"], r["bye_points"]))
    return players, rounds


def test_swiss_json_is_the_real_pairing_round_after_round(
    capsys: pytest.CaptureFixture[str],
) -> None:
    data = simulate_json(
        capsys, "--format", "swiss", "--players", "31", "--rounds", "7", "--seed", "5"
    )
    players, rounds = history_of(data)
    assert len(rounds) == 7
    active = list(players)
    results: Counter[str] = Counter()
    for k, r in enumerate(data["rounds"]):
        active = [p for p in active if p.id not in r["withdrawn"]]
        again = pair_swiss(active, rounds[:k], k + 1)
        assert [(b.white, b.black) for b in again.boards] == [
            (b["white"], b["black"]) for b in r["boards"]
        ]
        assert again.bye == r["bye"]
        results.update(b["result"] for b in r["boards"])
    assert results["1/2-1/2"] and results["1-0"] and results["0-1"]
    assert any(r["withdrawn"] for r in data["rounds"]), "some withdrawals"
    assert any(r["bye"] for r in data["rounds"]), "some byes"
    table = standings(Format.SWISS, players, rounds)
    names = TIEBREAKS[Format.SWISS]
    assert [(s["id"], s["points"], tuple(s[n] for n in names)) for s in data["standings"]] == [
        (row.player.id, row.points, row.tiebreaks) for row in table
    ]


def test_same_seed_same_tournament(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ("--format", "swiss", "--players", "12", "--rounds", "5")
    first = run(capsys, *argv, "--seed", "3")
    assert first == run(capsys, *argv, "--seed", "3")
    assert first != run(capsys, *argv, "--seed", "4")


def test_swiss_text_shows_rounds_colours_byes_and_standings(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run(
        capsys,
        "--format",
        "swiss",
        "--players",
        "9",
        "--rounds",
        "4",
        "--seed",
        "3",
        "--bye-points",
        "0.5",
    )
    assert code == 0 and err == ""
    for n in range(1, 5):
        assert f"\nRound {n}\n" in out
    assert "bye: " in out and "+½" in out
    assert "Buchholz  Buchholz Cut 1  Direct encounter" in out
    assert out.rstrip().splitlines()[-1].startswith("Winner: Player ")
    board = next(line for line in out.splitlines() if line.strip().startswith("1. "))
    assert " - " in board  # White - Black


@pytest.mark.parametrize(("players", "rounds"), [(2, 1), (8, 3), (9, 4), (31, 5), (64, 6)])
def test_a_swiss_without_rounds_plays_log2_of_the_field(
    capsys: pytest.CaptureFixture[str], players: int, rounds: int
) -> None:
    data = simulate_json(capsys, "--format", "swiss", "--players", str(players))
    assert len(data["rounds"]) == rounds


def test_round_robin_single_and_double(capsys: pytest.CaptureFixture[str]) -> None:
    data = simulate_json(capsys, "--format", "round-robin", "--players", "5", "--seed", "2")
    assert len(data["rounds"]) == 5 and data["double"] is False
    met = Counter(frozenset((b["white"], b["black"])) for r in data["rounds"] for b in r["boards"])
    assert len(met) == 10 and set(met.values()) == {1}
    double = simulate_json(
        capsys, "--format", "round-robin", "--players", "6", "--rounds", "10", "--seed", "2"
    )
    assert double["double"] is True and len(double["rounds"]) == 10
    met = Counter(
        frozenset((b["white"], b["black"])) for r in double["rounds"] for b in r["boards"]
    )
    assert len(met) == 15 and set(met.values()) == {2}
    code, out, err = run(
        capsys, "--format", "round-robin", "--players", "6", "--rounds", "10", "--seed", "2"
    )
    assert code == 0 and "Double round robin" in out and "Sonneborn-Berger" in out


def test_round_robin_withdrawals_become_forfeits(capsys: pytest.CaptureFixture[str]) -> None:
    for seed in range(40):
        data = simulate_json(
            capsys, "--format", "round-robin", "--players", "12", "--seed", str(seed)
        )
        gone = [pid for r in data["rounds"] for pid in r["withdrawn"]]
        if gone:
            break
    else:
        pytest.fail("no withdrawal in 40 seeds")
    out: set[int] = set()
    forfeits = 0
    for r in data["rounds"]:
        out.update(r["withdrawn"])
        for b in r["boards"]:
            if (b["white"] in out) != (b["black"] in out):
                assert b["forfeit"] and b["result"] == ("0-1" if b["white"] in out else "1-0")
                forfeits += 1
            else:
                assert not b["forfeit"]
    assert forfeits
    players, rounds = history_of(data)
    assert [s["points"] for s in data["standings"]] == [
        row.points for row in standings("round-robin", players, rounds)
    ]
    berger = berger_rounds(_drawn(data))
    assert [[(b.white, b.black) for b in r.boards] for r in berger] == [
        [(b["white"], b["black"]) for b in r["boards"]] for r in data["rounds"]
    ]


def _drawn(data: dict[str, Any]) -> list[Player]:
    """The drawn Berger order of an even field, read back from round 1, which in a
    Berger table of n is 1-n, then (1 + j)-(n - j), White first."""
    by_id = {p["id"]: Player(p["id"], p["rating"], p["name"]) for p in data["players"]}
    n = len(by_id)
    assert n % 2 == 0
    order = [0] * n
    for j, b in enumerate(data["rounds"][0]["boards"]):
        order[j], order[n - 1 - j] = b["white"], b["black"]
    return [by_id[pid] for pid in order]


@pytest.mark.parametrize(
    "argv, words",
    [
        (["--format", "swiss", "--players", "8", "--rounds", "0"], "a Swiss needs between 1 and"),
        (["--format", "swiss", "--players", "1", "--rounds", "3"], "at least two players"),
        (
            ["--format", "round-robin", "--players", "6", "--rounds", "7"],
            "6 players has 5 rounds, or 10 double",
        ),
        (["--format", "round-robin", "--players", "17"], "at most 16 players"),
    ],
)
def test_bad_arguments_get_one_plain_sentence(
    capsys: pytest.CaptureFixture[str], argv: list[str], words: str
) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert err.startswith("error: ") and words in err and err.count("\n") == 1
