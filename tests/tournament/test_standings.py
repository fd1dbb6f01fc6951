"""Tiebreaks against examples worked by hand (bot/tournament/standings.py defines them).

Reminder of the definitions used below:
- tiebreak score (TS) of a player = points from played games + 1/2 per unplayed round
  (bye, forfeit, round missed after withdrawing);
- Buchholz = sum over rounds of the opponent's TS (played) or one's own points (unplayed);
- Cut 1 = Buchholz minus its smallest part;
- Sonneborn-Berger = sum of beaten opponents' TS + half the TS of those drawn;
- direct encounter = points against the others level on everything before it, if all met.
"""

from __future__ import annotations

import pytest

from bot.tournament import Format, Game, Player, RoundResult
from bot.tournament.standings import TIEBREAKS, standings


def test_swiss_example_with_a_bye_a_withdrawal_and_a_direct_encounter() -> None:
    a, b, c, d, e = (
        Player(1, 1800, "A"),
        Player(2, 1500, "B"),
        Player(3, 1700, "C"),
        Player(4, 1600, "D"),
        Player(5, 1400, "E"),
    )
    rounds = [
        # Round 1: A-B 1-0, C-D draw, E has the bye (1 point).
        RoundResult(1, (Game(1, 2, "1-0"), Game(3, 4, "1/2-1/2")), bye=5),
        # Round 2: E-A 0-1, B-C 1-0, D has the bye.
        RoundResult(2, (Game(5, 1, "0-1"), Game(2, 3, "1-0")), bye=4),
        # Round 3: D has withdrawn. A-C draw, B-E 0-1.
        RoundResult(3, (Game(1, 3, "1/2-1/2"), Game(2, 5, "0-1"))),
    ]
    # Points: A 1+1+1/2 = 2.5; B 0+1+0 = 1; C 1/2+0+1/2 = 1; D 1/2+1+0 = 1.5; E 1+0+1 = 2.
    # Tiebreak scores: A 2.5; B 1; C 1; D 1/2 played + 1/2 + 1/2 unplayed = 1.5;
    #                  E 1 played + 1/2 unplayed = 1.5.
    # Buchholz:  A: B 1 + E 1.5 + C 1            = 3.5   cut 1: 3.5 - 1 = 2.5
    #            B: A 2.5 + C 1 + E 1.5          = 5     cut 1: 5 - 1   = 4
    #            C: D 1.5 + B 1 + A 2.5          = 5     cut 1: 5 - 1   = 4
    #            D: C 1 + own 1.5 + own 1.5      = 4     cut 1: 4 - 1   = 3
    #            E: own 2 + A 2.5 + B 1          = 5.5   cut 1: 5.5 - 1 = 4.5
    # B and C are level on points, Buchholz and Cut 1; B beat C: direct encounter 1 and 0,
    # so B is 4th although C is rated higher.
    rows = standings(Format.SWISS, [a, b, c, d, e], rounds)
    assert TIEBREAKS[Format.SWISS] == ("buchholz", "buchholz_cut1", "direct_encounter")
    assert [(r.rank, r.player.name, r.points, r.tiebreaks) for r in rows] == [
        (1, "A", 2.5, (3.5, 2.5, 0.0)),
        (2, "E", 2.0, (5.5, 4.5, 0.0)),
        (3, "D", 1.5, (4.0, 3.0, 0.0)),
        (4, "B", 1.0, (5.0, 4.0, 1.0)),
        (5, "C", 1.0, (5.0, 4.0, 0.0)),
    ]
    by_name = {r.player.name: r for r in rows}
    assert (by_name["D"].wins, by_name["D"].draws, by_name["D"].losses, by_name["D"].unplayed) == (
        0,
        1,
        0,
        2,
    )
    assert (by_name["E"].wins, by_name["E"].losses, by_name["E"].unplayed) == (1, 1, 1)


def test_round_robin_example_sonneborn_berger_decides() -> None:
    p, q, r, s = (
        Player(1, 1500, "P"),
        Player(2, 1500, "Q"),
        Player(3, 1500, "R"),
        Player(4, 1500, "S"),
    )
    rounds = [
        RoundResult(1, (Game(1, 4, "1-0"), Game(2, 3, "1-0"))),  # P-S 1-0, Q-R 1-0
        RoundResult(2, (Game(4, 3, "1/2-1/2"), Game(1, 2, "0-1"))),  # S-R draw, P-Q 0-1
        RoundResult(3, (Game(2, 4, "0-1"), Game(3, 1, "0-1"))),  # Q-S 0-1, R-P 0-1
    ]
    # Points: P 1+0+1 = 2; Q 1+1+0 = 2; R 0+1/2+0 = 1/2; S 0+1/2+1 = 1.5.
    # Sonneborn-Berger: P beat S (1.5) and R (0.5) = 2; Q beat R (0.5) and P (2) = 2.5;
    #                   S beat Q (2), drew R (0.5 / 2) = 2.25; R drew S (1.5 / 2) = 0.75.
    rows = standings(Format.ROUND_ROBIN, [p, q, r, s], rounds)
    assert [(x.rank, x.player.name, x.points, x.tiebreaks) for x in rows] == [
        (1, "Q", 2.0, (2.5, 0.0)),
        (2, "P", 2.0, (2.0, 0.0)),
        (3, "S", 1.5, (2.25, 0.0)),
        (4, "R", 0.5, (0.75, 0.0)),
    ]


def test_round_robin_byes_count_a_half_in_opponents_scores_and_nothing_themselves() -> None:
    x, y, z = Player(1, 1500, "X"), Player(2, 1500, "Y"), Player(3, 1500, "Z")
    rounds = [  # three players: each sits out once, the bye worth nothing
        RoundResult(1, (Game(2, 3, "1-0"),), bye=1, bye_points=0.0),
        RoundResult(2, (Game(1, 2, "1/2-1/2"),), bye=3, bye_points=0.0),
        RoundResult(3, (Game(3, 1, "1-0"),), bye=2, bye_points=0.0),
    ]
    # Points: X 0 + 1/2 + 0 = 1/2; Y 1 + 1/2 + 0 = 1.5; Z 0 + 0 + 1 = 1.
    # Tiebreak scores add 1/2 for the bye: X 1, Y 2, Z 1.5.
    # Sonneborn-Berger: Y beat Z (1.5) + drew X (1/2) = 2; Z beat X = 1; X drew Y = 1.
    rows = standings("round-robin", [x, y, z], rounds)
    assert [(r.rank, r.player.name, r.points, r.tiebreaks) for r in rows] == [
        (1, "Y", 1.5, (2.0, 0.0)),
        (2, "Z", 1.0, (1.0, 0.0)),
        (3, "X", 0.5, (1.0, 0.0)),
    ]


def test_level_on_everything_shares_the_rank() -> None:
    a, b = Player(1, 1400, "A"), Player(2, 1600, "B")
    rounds = [RoundResult(1, (Game(1, 2, "1-0"),)), RoundResult(2, (Game(2, 1, "1-0"),))]
    # One win each: points 1, Sonneborn-Berger 1, direct encounter 1: both first,
    # listed by rating.
    rows = standings(Format.ROUND_ROBIN, [a, b], rounds)
    assert [(r.rank, r.player.name, r.points, r.tiebreaks) for r in rows] == [
        (1, "B", 1.0, (1.0, 1.0)),
        (1, "A", 1.0, (1.0, 1.0)),
    ]


def test_direct_encounter_needs_every_pair_to_have_met() -> None:
    # Three level players, only two of whom met: direct encounter does not apply.
    players = [Player(i, 1500) for i in range(1, 5)]
    rounds = [
        RoundResult(1, (Game(1, 2, "1-0"), Game(3, 4, "1-0"))),
        RoundResult(2, (Game(2, 3, "1-0"), Game(4, 1, "1-0"))),
    ]
    rows = standings(Format.SWISS, players, rounds)
    assert all(r.points == 1.0 for r in rows)
    assert all(r.tiebreaks[-1] == 0.0 for r in rows)


def test_forfeits_count_points_but_not_as_games() -> None:
    a, b = Player(1, 1500, "A"), Player(2, 1500, "B")
    rounds = [RoundResult(1, (Game(1, 2, "1-0", forfeit=True),))]
    rows = standings(Format.SWISS, [a, b], rounds)
    # A: 1 point, unplayed round; Buchholz = own points 1. B: own points 0.
    assert [(r.player.name, r.points, r.tiebreaks[:2], r.unplayed, r.wins) for r in rows] == [
        ("A", 1.0, (1.0, 0.0), 1, 0),
        ("B", 0.0, (0.0, 0.0), 1, 0),
    ]


def test_bad_rounds_are_refused() -> None:
    a = Player(1, 1500)
    with pytest.raises(ValueError, match="unknown player"):
        standings(Format.SWISS, [a], [RoundResult(1, (Game(1, 9, "1-0"),))])
    with pytest.raises(ValueError, match="twice"):
        standings(Format.SWISS, [a, Player(2, 1)], [RoundResult(1, (Game(1, 2, "1-0"),), bye=1)])
    with pytest.raises(ValueError):
        Game(1, 2, "2-0")
