"""Swiss pairing on examples: rating order, byes, score groups, colours, compromises."""

from __future__ import annotations

import random

import pytest

from bot.tournament import BLACK, WHITE, Game, Pairings, Player, RoundResult, pair_swiss
from bot.tournament import colours as col

W, B = WHITE, BLACK


def field(n: int) -> list[Player]:
    return [Player(i, 2000 - 10 * i) for i in range(1, n + 1)]  # id order is rating order


def pairs(p: Pairings) -> list[tuple[int, int]]:
    return [(b.white, b.black) for b in p.boards]


def test_first_round_folds_the_field_and_alternates_colours() -> None:
    p = pair_swiss(field(8), [])
    assert p.round_no == 1 and p.bye is None and p.compromises == ()
    # Top half against bottom half in order; the higher-ranked has White on odd boards.
    assert pairs(p) == [(1, 5), (6, 2), (3, 7), (8, 4)]


def test_the_bye_goes_to_the_lowest_ranked_without_one() -> None:
    players = field(9)
    first = pair_swiss(players, [])
    assert first.bye == 9
    # Player 9 had the bye; after a round of draws everyone is level: 8 is lowest now.
    played = RoundResult(
        1, tuple(Game(b.white, b.black, "1/2-1/2") for b in first.boards), bye=9, bye_points=0.5
    )
    assert pair_swiss(players, [played]).bye == 8


def test_winners_meet_winners() -> None:
    players = field(8)
    first = pair_swiss(players, [])
    # The higher-rated wins every game: 1-4 have 1 point, 5-8 none.
    games = tuple(
        Game(b.white, b.black, "1-0" if b.white < b.black else "0-1") for b in first.boards
    )
    second = pair_swiss(players, [RoundResult(1, games)])
    met = {frozenset(x) for x in pairs(second)}
    assert met == {frozenset((1, 3)), frozenset((2, 4)), frozenset((5, 7)), frozenset((6, 8))}


def test_leaders_who_met_float_to_the_next_group() -> None:
    players = field(6)
    rounds = [
        RoundResult(1, (Game(1, 4, "1-0"), Game(5, 2, "0-1"), Game(3, 6, "1/2-1/2"))),
        RoundResult(2, (Game(2, 1, "1/2-1/2"), Game(4, 3, "1/2-1/2"), Game(6, 5, "1/2-1/2"))),
    ]
    # 1 and 2 lead with 1.5 but have met, and so have 3 and 6, who have 1; 4 and 5 have
    # 0.5. The least the score differences can be: each leader meets one of 3 and 6.
    p = pair_swiss(players, rounds)
    assert p.compromises == ()
    met = [frozenset(x) for x in pairs(p)]
    assert frozenset((1, 2)) not in met
    partner = {a: b for x in pairs(p) for a, b in (x, x[::-1])}
    assert {partner[1], partner[2]} == {3, 6}  # both leaders float one group down


def test_three_in_a_row_and_colour_difference_are_never_broken() -> None:
    assert col.allowed_colours([W, W]) == (B,)
    assert col.allowed_colours([W, B, W, W]) == (B,)
    assert col.allowed_colours([B, W, B]) == (W, B)
    assert col.allowed_colours([W, B, W]) == (W, B)
    assert col.allowed_colours([B, B, W, B, W]) == (W, B)
    assert col.preference([W, B, W]) == (B, col.STRONG)
    assert col.preference([W, B]) == (W, col.MILD)
    assert col.preference([]) == (None, col.NONE)
    # Both want White; the stronger wish wins; equal wishes alternate from the last
    # round in which their colours differed.
    assert col.allocate([B, W, B], [W, B]) is True  # strong beats mild
    assert col.allocate([W, B], [B, W, B]) is False
    assert col.allocate([W, B], [B, B, W, B]) is False  # difference -2: must have White
    assert col.allocate([B, W], [W, W]) is True  # [W, W] must have Black, whatever else
    # Both wish mildly for White: the last round their colours differed, the higher had
    # White and the lower Black; now the other way round.
    assert col.allocate([B, W, W, B], [W, B, W, B]) is False


def test_forfeits_are_not_meetings() -> None:
    players = field(2)
    rounds = [RoundResult(1, (Game(1, 2, "1-0", forfeit=True),))]
    p = pair_swiss(players, rounds)
    assert sorted(pairs(p)[0]) == [1, 2] and p.compromises == ()


def test_when_no_pairing_keeps_the_rules_it_says_which_gave_way() -> None:
    players = field(4)
    history: list[RoundResult] = []
    for _ in range(3):
        p = pair_swiss(players, history)
        assert p.compromises == ()
        history.append(
            RoundResult(p.round_no, tuple(Game(b.white, b.black, "1/2-1/2") for b in p.boards))
        )
    fourth = pair_swiss(players, history)  # all have met: a repeat is unavoidable
    assert "repeat" in fourth.compromises
    assert sorted(fourth.player_ids()) == [1, 2, 3, 4]


def test_same_inputs_same_pairings_whatever_the_order_given() -> None:
    rng = random.Random(4)
    players = [Player(i, rng.randint(1000, 2000)) for i in range(1, 24)]
    history: list[RoundResult] = []
    for _ in range(5):
        p = pair_swiss(players, history)
        shuffled = players[:]
        rng.shuffle(shuffled)
        assert pair_swiss(shuffled, history) == p
        results = tuple(
            Game(b.white, b.black, rng.choice(["1-0", "0-1", "1/2-1/2"])) for b in p.boards
        )
        history.append(RoundResult(p.round_no, results, p.bye))


def test_a_large_field_keeps_the_rules() -> None:
    rng = random.Random(11)
    players = [Player(i, rng.randint(1000, 2600)) for i in range(1, 202)]
    history: list[RoundResult] = []
    colours: dict[int, list[str]] = {p.id: [] for p in players}
    met: set[frozenset[int]] = set()
    byes: set[int] = set()
    for _ in range(5):
        p = pair_swiss(players, history)
        assert p.compromises == ()
        assert sorted(p.player_ids()) == [x.id for x in players]
        assert p.bye not in byes
        byes.add(p.bye or 0)
        for b in p.boards:
            assert frozenset((b.white, b.black)) not in met
            met.add(frozenset((b.white, b.black)))
            colours[b.white].append(W)
            colours[b.black].append(B)
        for seq in colours.values():
            assert abs(seq.count(W) - seq.count(B)) <= 2
            assert all(len(set(seq[k : k + 3])) > 1 for k in range(len(seq) - 2))
        results = tuple(
            Game(b.white, b.black, rng.choice(["1-0", "0-1", "1/2-1/2"])) for b in p.boards
        )
        history.append(RoundResult(p.round_no, results, p.bye))


def test_bad_input() -> None:
    with pytest.raises(ValueError, match="twice"):
        pair_swiss([Player(1, 1500), Player(1, 1600)], [])
    assert pair_swiss([], []).boards == ()
    assert pair_swiss([Player(7, 1500)], []).bye == 7
