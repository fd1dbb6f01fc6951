"""The engine's shortcuts agree with the whole legal list (issue 12).

``Game.play`` generates only the actions a text can name (``legal_moves_to``) and the
end-of-game test stops at the first legal move it can prove (``quick_has_move``). On
positions from seeded random games in every variant, both must give what the whole
legal list gives, and a game played through the shortcuts must record the same text
as the same game played through the front ends' full list.
"""

from __future__ import annotations

import random

import pytest

import variants
from variants.position import Position

KEYS = ("guardener", "tquarchess", "kings_guard", "stone_garden", "jepps_random")


def positions(key: str, games: int = 4, plies: int = 60) -> list[Position]:
    out = []
    for n in range(games):
        rng = random.Random(f"fast-{key}-{n}")
        game = variants.new_game(key, seed=f"fast-{key}-{n}")
        for _ in range(plies):
            if game.result is not None:
                break
            out.append(game.pos)
            game.play(rng.choice(game.legal_moves()))
    return out


@pytest.mark.parametrize("key", KEYS)
def test_moves_to_some_squares_are_the_whole_list_cut_down(key: str) -> None:
    rules = variants.rules(key)
    rng = random.Random(key)
    squares = rules.geometry.squares
    for pos in positions(key):
        rules._memo = None
        full = rules.generate_legal(pos)
        for _ in range(3):
            mask = 0
            for sq in rng.sample(squares, rng.choice((1, 1, 2, 5))):
                mask |= 1 << sq
            for castles in (True, False):
                rules._memo = None
                got = rules.legal_moves_to(pos, mask, castles)
                want = {
                    m
                    for m in full
                    if m.to >= 0 and (mask >> m.to & 1 or (castles and m.flag == "castle"))
                }
                assert set(got) == want
                assert len(got) == len(set(got))


@pytest.mark.parametrize("key", KEYS)
def test_the_quick_test_for_a_legal_move_never_says_yes_wrongly(key: str) -> None:
    rules = variants.rules(key)
    proved = 0
    for pos in positions(key):
        rules._memo = None
        has = bool(rules.generate_legal(pos))
        rules._memo = None
        if rules.free_moves and rules.quick_has_move(pos):
            assert has
            proved += 1
        rules._memo = None
        assert rules.has_legal_move(pos) == has
    if rules.free_moves:
        assert proved  # the shortcut is taken


@pytest.mark.parametrize("key", KEYS)
def test_games_played_through_the_shortcuts_record_the_same(key: str) -> None:
    for n in range(3):
        rng = random.Random(f"same-{key}-{n}")
        fast = variants.new_game(key, seed=n)
        full = variants.new_game(key, seed=n)
        for _ in range(80):
            if full.result is not None:
                break
            text = rng.choice(full.legal_moves())  # full formats the whole list
            assert fast.play(text) == full.play(text)
            assert fast.result == full.result
        assert fast.record() == full.record()


def test_a_pass_is_read_against_the_whole_list() -> None:
    # Guardener may pass only when every move is a King's move into attack: a text
    # naming no square must not find a pass that the shortened list would invent.
    game = variants.new_game("guardener", seed=3)
    assert "pass" not in game.legal_moves()
    game._legal = None
    with pytest.raises(variants.IllegalMove):
        game.play("pass")
    tq = variants.new_game("tquarchess", rolls=[3])
    assert tq.play("roll") == "roll%3"
