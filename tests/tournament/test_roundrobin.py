"""Round robin by Berger tables: every pair meets once (twice in a double), every
player plays or sits out once per round, and colours are balanced to within one."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

import pytest

from bot.tournament import Player
from bot.tournament.roundrobin import berger_rounds, berger_table, rounds_for


@pytest.mark.parametrize("double", [False, True])
@pytest.mark.parametrize("n", range(2, 17))
def test_every_pair_meets_once_or_twice_and_colours_balance(n: int, double: bool) -> None:
    players = [Player(100 + i, 1500 - i) for i in range(n)]
    ids = [p.id for p in players]
    rounds = berger_rounds(players, double)
    assert len(rounds) == rounds_for(n, double)
    assert [r.round_no for r in rounds] == list(range(1, len(rounds) + 1))
    meetings: Counter[frozenset[int]] = Counter()
    whites: Counter[int] = Counter()
    blacks: Counter[int] = Counter()
    byes: Counter[int] = Counter()
    for r in rounds:
        assert sorted(r.player_ids()) == sorted(ids), "everyone plays or sits out, once"
        assert (r.bye is not None) == (n % 2 == 1)
        if r.bye is not None:
            byes[r.bye] += 1
        assert [b.number for b in r.boards] == list(range(1, len(r.boards) + 1))
        for b in r.boards:
            meetings[frozenset((b.white, b.black))] += 1
            whites[b.white] += 1
            blacks[b.black] += 1
    times = 2 if double else 1
    assert meetings == Counter({frozenset(pair): times for pair in combinations(ids, 2)})
    for pid in ids:
        assert abs(whites[pid] - blacks[pid]) <= 1, (pid, whites[pid], blacks[pid])
    if n % 2:
        assert byes == Counter(dict.fromkeys(ids, times))
    if double:  # the second cycle is the first with colours swapped
        half = len(rounds) // 2
        for first, second in zip(rounds[:half], rounds[half:], strict=True):
            assert [(b.black, b.white) for b in first.boards] == [
                (b.white, b.black) for b in second.boards
            ]
            assert first.bye == second.bye


def test_six_players_follow_fides_berger_table() -> None:
    assert berger_table(6) == [
        [(1, 6), (2, 5), (3, 4)],
        [(6, 4), (5, 3), (1, 2)],
        [(2, 6), (3, 1), (4, 5)],
        [(6, 5), (1, 4), (2, 3)],
        [(3, 6), (4, 2), (5, 1)],
    ]


def test_odd_fields_sit_out_whoever_meets_the_dummy() -> None:
    players = [Player(i, 1500) for i in (1, 2, 3)]
    rounds = berger_rounds(players)
    # The table of 4: 1-4, 2-3 / 4-3, 1-2 / 2-4, 3-1; number 4 is the dummy.
    assert [(r.bye, [(b.white, b.black) for b in r.boards]) for r in rounds] == [
        (1, [(2, 3)]),
        (3, [(1, 2)]),
        (2, [(3, 1)]),
    ]


def test_limits() -> None:
    with pytest.raises(ValueError, match="at most 16"):
        berger_rounds([Player(i, 1500) for i in range(17)])
    with pytest.raises(ValueError, match="at least two"):
        berger_rounds([Player(1, 1500)])
    with pytest.raises(ValueError, match="twice"):
        berger_rounds([Player(1, 1500), Player(1, 1400)])
