"""The search's shortcuts agree with the rules they stand for:

- Guardener's per-board candidates filtered by the dice (``engine.moves``) equal
  ``rules.legal_moves`` for every roll, re-rolled or not, pass spent or not;
- the noisy actions (captures and promotions) of every variant equal the legal
  actions that capture or promote;
- the evaluator's material state kept move by move (``Evaluator.step``) equals
  the one counted from the whole board, after every kind of action of every
  variant (teleports, entries, turns in place, placements, the mirror...).
"""

from __future__ import annotations

import random

import pytest

import engine
import variants
from engine.domain import dice_only, scripted
from engine.moves import FilteredMoves

ALL = ("guardener", "tquarchess", "kings_guard", "stone_garden", "jepps_random")


def positions(key: str, games: int, plies: int) -> list[variants.Game]:
    out = []
    for seed in range(games):
        game = variants.new_game(key, seed=seed)
        rng = random.Random(seed)
        for _ in range(plies):
            if game.result is not None:
                break
            out.append(game.copy())
            game.play(rng.choice(game.legal_moves()))
    return out


def test_guardener_lists_equal_the_rules_for_every_roll() -> None:
    dom = engine.domain("guardener")
    source = dom.source
    assert isinstance(source, FilteredMoves)
    rules = dom.rules
    checked = 0
    for game in positions("guardener", 6, 70)[::3]:
        for a in range(1, 5):
            for b in range(1, 5):
                for rerolled in (False, True):
                    for passed in (False, True):
                        pos = game.pos.copy()
                        pos.dice = (a, b)
                        pos.extra["rerolled"] = rerolled
                        spent = list(pos.extra["passed"])
                        spent[pos.turn] = passed
                        pos.extra["passed"] = (spent[0], spent[1])
                        legal = rules.legal_moves(pos)
                        assert sorted(source.legal(pos)) == sorted(legal), (game.fen(), a, b)
                        noisy = [m for m in legal if source.is_noisy(pos, m)]
                        assert sorted(source.noisy(pos, None)) == sorted(noisy)
                        checked += 1
    assert checked > 1000


def test_guardener_pass_comes_from_the_rules() -> None:
    """Only a King that must walk onto an attacked square: the pass is legal."""
    # The White King on c2 may step only onto squares the Rooks on a2, h3, h1 attack.
    fen = "***4***/*k7*/*8*/10/10/10/8r1/*r1K5*/*7r*/***4*** w - - 0 1 23 -"
    game = variants.from_fen("guardener", fen)
    dom = engine.domain("guardener")
    legal = dom.rules.legal_moves(game.pos)
    assert any(m.flag == "pass" for m in legal)
    assert sorted(dom.source.legal(game.pos)) == sorted(legal)


@pytest.mark.parametrize("key", ALL)
def test_noisy_actions_are_the_legal_captures_and_promotions(key: str) -> None:
    dom = engine.domain(key)
    checked = 0
    for game in positions(key, 4, 120)[::2]:
        pos = game.pos
        legal = dom.rules.legal_moves(pos)
        expected = sorted(m for m in legal if dom.source.is_noisy(pos, m))
        assert sorted(dom.source.noisy(pos, None)) == expected, game.fen()
        assert sorted(dom.source.noisy(pos, legal)) == expected
        checked += bool(expected)
    assert checked >= 5


@pytest.mark.parametrize("key", ALL)
def test_material_state_kept_move_by_move_equals_a_full_count(key: str) -> None:
    dom = engine.domain(key)
    ev = dom.evaluator
    rules = dom.rules
    flags: set[str] = set()
    for game in positions(key, 3, 140)[::2]:
        pos = game.pos
        before = ev.state(pos)
        for move in rules.legal_moves(pos):
            inner = dom.table(pos, move, rules.repetition_key(pos)) or [(1.0, ())]
            for _, rolls in inner:
                new = rules.make(pos, move, scripted(rolls))
                stepped = ev.step(before, pos, new, move)
                assert stepped == pytest.approx(ev.state(new), abs=1e-9), (game.fen(), move)
                flags.add(move.flag)
    assert len(flags) >= (1 if key == "kings_guard" else 2), flags  # King's Guard: plain moves


def test_a_guardener_on_its_double_start_counts_once() -> None:
    ev = engine.domain("guardener").evaluator
    game = variants.new_game("guardener", seed=0)
    state = ev.state(game.pos)
    # 2 x (Q + 2R + 2B + 2N + G), each Guardener counted once over its two squares.
    v = ev.values
    one_side = v["Q"] + 2 * v["R"] + 2 * v["B"] + 2 * v["N"] + v["G"]
    assert state[1] == pytest.approx(one_side) and state[2] == pytest.approx(one_side)
    assert state[5] == state[6] == 1.0


@pytest.mark.parametrize("key", ["guardener", "jepps_random"])
def test_two_dice_at_the_start_of_a_turn_only_set_the_dice(key: str) -> None:
    """What ``dice_only`` assumes of ``start_turn`` when a roll is two dice: the
    position it makes equals the old one with those dice showing, every field."""
    from variants.position import Position

    dom = engine.domain(key)
    rules = dom.rules
    seen = 0
    for game in positions(key, 4, 40):
        for move in rules.legal_moves(game.pos):
            new = rules.make(game.pos, move, scripted([1, 2, 3, 4] * 4))
            start = dom.table(new, None, rules.repetition_key(new)) if new.dice is None else []
            if not start or not dom.same_board(start):
                continue
            for _, rolls in start:
                rolled = new.copy()
                rules.start_turn(rolled, scripted(rolls))
                cheap = dice_only(new, rolls)
                for slot in Position.__slots__:
                    assert getattr(cheap, slot) == getattr(rolled, slot), (slot, rolls)
                seen += 1
            break
    assert seen > 50
