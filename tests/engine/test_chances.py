"""The chance hook, ``Variant.chances``: for every dice state of every variant the
outcomes sum to 1 and match what the rules really roll.

The oracle here knows nothing of the dice rules: it drives ``start_turn`` or
``make`` with a roller that plays a script and stops when the script runs out,
and explores every face of every die that is asked for, depth first. Each leaf
is a position with the exact probability of the rolls that led to it. Where the
rules roll again by themselves (Jepps Random's setup), the oracle stops after
``MAX_ROLLS`` dice; a re-roll starts afresh from the same state, so every
outcome then has exactly ``1 - lost`` times its conditioned probability, where
``lost`` is the mass the oracle did not follow. The test checks that identity.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import pytest

import variants
from variants.base import Chance, Variant
from variants.position import Move, Position
from variants.tquarchess import FIDE_EXTRAS

MAX_ROLLS = 4
ALL = ("guardener", "tquarchess", "kings_guard", "stone_garden", "jepps_random")
SIDES = {"guardener": 4, "tquarchess": 4, "jepps_random": 6}


class _NeedRoll(Exception):
    pass


def explore(
    call: Callable[[Callable[[int], int]], Position], sides: int
) -> tuple[dict[Any, Fraction], Fraction]:
    """Every position ``call`` can produce: {key: probability}, and the mass lost
    beyond MAX_ROLLS dice."""
    found: dict[Any, Fraction] = {}
    lost = Fraction(0)
    stack: list[tuple[int, ...]] = [()]
    while stack:
        script = stack.pop()
        used = [0]

        def roll(n: int, script: tuple[int, ...] = script, used: list[int] = used) -> int:
            assert n == sides, f"a d{n} where the variant rolls d{sides}"
            if used[0] == len(script):
                raise _NeedRoll
            used[0] += 1
            return script[used[0] - 1]

        try:
            pos = call(roll)
        except _NeedRoll:
            if len(script) >= MAX_ROLLS:
                lost += Fraction(1, sides ** len(script))
            else:
                stack.extend(script + (v,) for v in range(1, sides + 1))
            continue
        assert used[0] == len(script), "the call left rolls of its script unused"
        key = pos.key()
        found[key] = found.get(key, Fraction(0)) + Fraction(1, sides ** len(script))
    return found, lost


def scripted(rolls: tuple[int, ...]) -> Callable[[int], int]:
    it = iter(rolls)

    def roll(sides: int) -> int:
        value = next(it, None)
        assert value is not None, "the outcome's rolls ran out"
        assert 1 <= value <= sides
        return value

    return roll


def start_call(rules: Variant, pos: Position) -> Callable[[Callable[[int], int]], Position]:
    def call(roll: Callable[[int], int]) -> Position:
        new = pos.copy()
        rules.start_turn(new, roll)
        return new

    return call


def make_call(
    rules: Variant, pos: Position, move: Move
) -> Callable[[Callable[[int], int]], Position]:
    return lambda roll: rules.make(pos, move, roll)


def check(rules: Variant, pos: Position, move: Move | None) -> tuple[Chance, ...]:
    """The hook's outcomes agree with the oracle; returns them."""
    out = rules.chances(pos, move)
    call = start_call(rules, pos) if move is None else make_call(rules, pos, move)
    sides = SIDES.get(rules.key, 6)
    oracle, lost = explore(call, sides)
    if not out:
        assert oracle == {pos_key(call(scripted(()))): 1}, "the hook says no dice, but dice roll"
        return out
    assert sum(c.probability for c in out) == 1
    assert all(c.probability > 0 for c in out)
    claimed: dict[Any, Fraction] = {}
    for c in out:
        assert all(1 <= v <= sides for v in c.rolls)
        key = pos_key(call(scripted(c.rolls)))
        assert key not in claimed, f"two outcomes lead to one position: {c.rolls}"
        claimed[key] = c.probability
    assert set(claimed) == set(oracle)
    for key, p in claimed.items():
        assert oracle[key] == p * (1 - lost)
    return out


def pos_key(pos: Position) -> Any:
    return pos.key()


# ----- every dice state met in play ---------------------------------------------


def states(key: str, seed: int, plies: int) -> list[tuple[Variant, Position]]:
    """Positions of a seeded random game, each taken BEFORE its start-of-turn roll
    (the state ``start_turn`` sees) and after it (where the moves are chosen)."""
    rng = random.Random(seed)
    rules = variants.rules(key)
    game = variants.new_game(key, seed=seed)
    out: list[tuple[Variant, Position]] = []
    for _ in range(plies):
        if game.result is not None:
            break
        out.append((rules, game.pos.copy()))
        move, text = rng.choice(game.legal_actions())
        # The position just after this action, before any start-of-turn roll.
        after = rules.make(game.pos, move, lambda n: rng.randint(1, n))
        if rules.outcome(after, game.keys + [rules.repetition_key(after)]) is None:
            out.append((rules, after))
        game.play(text)
    return out


@pytest.mark.parametrize("key", ALL)
@pytest.mark.parametrize("seed", [1, 2])
def test_every_state_of_random_games(key: str, seed: int) -> None:
    """Start of turn and every legal action, along two random games per variant."""
    kinds: set[str] = set()
    for rules, pos in states(key, seed, 60):
        if check(rules, pos, None):
            kinds.add("start")
        if pos.dice is None and rules.chances(pos, None):
            continue  # moves are chosen after the roll
        for move in rules.legal_moves(pos):
            if check(rules, pos, move):
                kinds.add(move.flag or "move")
    if key in ("guardener", "jepps_random"):
        assert "start" in kinds  # the sweep met the dice it is about
    if key in ("stone_garden", "kings_guard"):
        assert not kinds


# ----- Guardener: 2d4 at the start of each turn -----------------------------------


def guardener(fen_tail: str) -> tuple[Variant, Position]:
    rules = variants.rules("guardener")
    start = variants.new_game("guardener", seed=1).fen().split()
    return rules, rules.from_fen(" ".join(start[:6]) + " " + fen_tail)


def test_guardener_start_of_turn_is_16_ordered_outcomes() -> None:
    rules, pos = guardener("- -")
    out = check(rules, pos, None)
    assert sorted(c.rolls for c in out) == [(a, b) for a in range(1, 5) for b in range(1, 5)]
    assert {c.probability for c in out} == {Fraction(1, 16)}


def test_guardener_dice_showing_roll_nothing_more() -> None:
    rules, pos = guardener("23 -")
    assert check(rules, pos, None) == ()
    for move in rules.legal_moves(pos):
        assert check(rules, pos, move) == ()


def test_guardener_reroll_rolls_at_the_next_start_and_may_make_a_double_x2() -> None:
    rules, pos = guardener("44 -")
    reroll = next(m for m in rules.legal_moves(pos) if m.flag == "reroll")
    assert check(rules, pos, reroll) == ()  # the move itself rolls nothing
    after = rules.make(pos, reroll, scripted(()))
    assert after.turn == pos.turn and after.dice is None
    out = check(rules, after, None)
    assert len(out) == 16
    doubled = rules.make(pos, reroll, scripted(()))
    rules.start_turn(doubled, scripted((3, 3)))
    assert any(m.flag == "teleport" for m in rules.legal_moves(doubled))  # Double x2
    again = next(m for m in rules.legal_moves(doubled) if m.flag == "reroll")
    assert len(check(rules, rules.make(doubled, again, scripted(())), None)) == 16


# ----- Tquarchess: the Tquarc's d4 inside moves -------------------------------------


def tquarchess(fen: str) -> tuple[Variant, Position]:
    rules = variants.rules("tquarchess")
    return rules, rules.from_fen(fen)


def four(rules: Variant, pos: Position, move: Move) -> None:
    out = check(rules, pos, move)
    assert sorted(c.rolls for c in out) == [(1,), (2,), (3,), (4,)]
    assert {c.probability for c in out} == {Fraction(1, 4)}


def test_tquarc_roll_entry_teleport_and_resurrections() -> None:
    rules = variants.rules("tquarchess")
    game = variants.new_game("tquarchess", seed=1)
    pos = game.pos
    legal = rules.legal_moves(pos)
    four(rules, pos, next(m for m in legal if m.flag == "roll"))
    four(rules, pos, next(m for m in legal if m.gate >= 0))  # an entry without a roll first
    plain = next(m for m in legal if m.gate < 0 and m.flag == "")
    assert check(rules, pos, plain) == ()
    assert check(rules, pos, None) == ()  # no die at the start of a turn
    # After `roll`, the entry carries the value already rolled: nothing more to roll.
    rolled = rules.make(pos, next(m for m in legal if m.flag == "roll"), scripted((3,)))
    entries = [m for m in rules.legal_moves(rolled) if m.gate >= 0]
    assert entries and all(check(rules, rolled, m) == () for m in entries)
    # Castling with entry.
    rules2, castle = tquarchess("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1 Tt abcdefgh/abcdefgh - - 0")
    gated = [m for m in rules2.legal_moves(castle) if m.flag == "castle" and m.gate >= 0]
    assert len(gated) == 4
    for m in gated:
        four(rules2, castle, m)
    # Teleport: the move after the enemy Tquarc acted.
    _, tele = tquarchess("4k3/8/8/3t(2)4/8/8/8/T(3)3K3 w - - 0 1 - -/- - b 0")
    teleports = [m for m in rules.legal_moves(tele) if m.flag == "teleport"]
    assert teleports
    for m in teleports:
        four(rules, tele, m)
    # Resurrections while the Tquarc is lost: a Knight on a8 and a pawn promotion.
    _, lost = tquarchess("4k3/1P6/1N6/8/8/8/8/4K3 w - - 0 1 t -/- - - 0")
    legal = rules.legal_moves(lost)
    kres = [m for m in legal if m.flag == "kres"]
    promo = [m for m in legal if m.promo == "T" and m.flag != "kres"]
    assert kres and promo
    for m in kres + promo:
        four(rules, lost, m)
    for m in legal:
        if m.promo in ("Q", "R", "B", "N"):
            assert check(rules, lost, m) == ()


def test_fide_extras_roll_nothing() -> None:
    rules, pos = tquarchess(
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 " + FIDE_EXTRAS
    )
    assert all(check(rules, pos, m) == () for m in rules.legal_moves(pos))


# ----- Jepps Random: setup dice (conditioned) and the mediator ----------------------


def jepps(rolls: list[int], actions: list[str], options: dict[str, Any] | None = None) -> Any:
    game = variants.new_game("jepps_random", rolls=rolls, options=options)
    for text in actions:
        game.play(text)
    return game


def test_jepps_first_placement_accepts_every_roll() -> None:
    rules = variants.rules("jepps_random")
    pos = rules.initial_position({}, scripted(()))  # no roll made yet
    out = check(rules, pos, None)
    assert len(out) == 36 and {c.probability for c in out} == {Fraction(1, 36)}


def test_jepps_placement_probabilities_are_conditioned_on_something_placeable() -> None:
    rules = variants.rules("jepps_random")
    # K Q R R placed; left B B N N: a roll of only 1s, 4s and 5s offers nothing.
    game = jepps([1, 2, 5, 5, 4, 4, 4, 4, 2, 3], ["Ka1", "Qb1", "Rc1", "Rd1"])
    pos = game.pos.copy()
    pos.dice = None
    out = check(rules, pos, None)
    assert len(out) == 27  # 36 rolls less the 9 that offer nothing placeable
    assert {c.probability for c in out} == {Fraction(1, 27)}
    assert all(not {1, 4, 5} >= set(c.rolls) for c in out)


def test_jepps_reroll_on_a_double() -> None:
    rules = variants.rules("jepps_random")
    game = jepps([1, 2, 5, 5], ["Ka1"])
    assert game.dice == (5, 5)
    reroll = next(m for m in rules.legal_moves(game.pos) if m.flag == "reroll")
    out = check(rules, game.pos, reroll)
    # K placed, Q R B N left: every roll but [1 1] offers something.
    assert len(out) == 35 and (1, 1) not in {c.rolls for c in out}
    assert {c.probability for c in out} == {Fraction(1, 35)}
    assert check(rules, game.pos, None) == ()  # the dice are already showing


def white_done() -> Any:
    """White's rank filled (a1 K, b1 Q, c1 R, d1 R, e1 B, f1 B, N N forced); mediator [2 2]."""
    return jepps(
        [1, 2, 5, 5, 4, 4, 4, 4, 3, 3, 3, 3, 2, 2], ["Ka1", "Qb1", "Rc1", "Rd1", "Be1", "Bf1"]
    )


def test_jepps_mediator_roll() -> None:
    rules = variants.rules("jepps_random")
    game = white_done()
    pos = game.pos.copy()
    assert pos.extra["mediator"] == "pending"
    pos.dice = None
    out = check(rules, pos, None)
    parity = [c for c in out if len(c.rolls) == 2]
    own = [c for c in out if len(c.rolls) == 4]
    assert len(parity) == 18 and {c.probability for c in parity} == {Fraction(1, 36)}
    assert all(a % 2 == b % 2 for a, b in (c.rolls for c in parity))
    # Any odd-even roll: Black rolls for a8 at once, every roll accepted.
    assert len(own) == 36 and {c.probability for c in own} == {Fraction(1, 72)}


def test_jepps_mediator_reroll_on_a_double() -> None:
    rules = variants.rules("jepps_random")
    game = white_done()
    pos = game.pos.copy()
    pos.dice = (2, 2)
    legal = rules.legal_moves(pos)
    assert {m.flag for m in legal} == {"mirror", "reroll"}
    out = check(rules, pos, next(m for m in legal if m.flag == "reroll"))
    assert len(out) == 18 + 36


def test_jepps_free_play_and_play_phase() -> None:
    rules = variants.rules("jepps_random")
    free = rules.initial_position({"free_play": True}, scripted(()))
    assert len(check(rules, free, None)) == 36
    game = variants.random_playout("jepps_random", 40, 3)
    assert game.pos.extra["phase"] == "play"
    assert check(rules, game.pos, None) == ()
    assert all(check(rules, game.pos, m) == () for m in rules.legal_moves(game.pos))


@pytest.mark.parametrize("key", ["stone_garden", "kings_guard"])
def test_variants_without_dice(key: str) -> None:
    rules = variants.rules(key)
    game = variants.random_playout(key, 6, 1)
    assert rules.chances(game.pos) == ()
    assert all(rules.chances(game.pos, m) == () for m in rules.legal_moves(game.pos))
