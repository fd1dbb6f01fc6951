"""More engine shortcuts held against the full path (issue 12).

- ``quick_has_move`` in check: a King step no enemy attacks proves a legal action;
- ``rolls_at_turn_start``: when it says no, ``start_turn`` rolls nothing;
- ``named_squares`` remembers texts: the same squares as reading them afresh;
- the lost-pieces bars (``Game.captured``) with the count test in front of them;
- ``lost_kinds`` (counted on the bitboards) against ``material`` lists compared;
- moves to one square (``ordinary_moves`` with a one-square scope) equal the whole
  list cut down, in positions with promotions, castling and en passant.
"""

from __future__ import annotations

import random

import pytest

import variants
from variants import Game
from variants.position import Position
from variants.tquarchess import FIDE_EXTRAS

KEYS = ("guardener", "tquarchess", "kings_guard", "stone_garden", "jepps_random")


def _games(key: str, games: int = 5, plies: int = 90) -> list[list[tuple[Game, Position]]]:
    out = []
    for n in range(games):
        rng = random.Random(f"short-{key}-{n}")
        game = variants.new_game(key, seed=f"short-{key}-{n}")
        seen = []
        for _ in range(plies):
            seen.append((game, game.pos))
            if game.result is not None:
                break
            game.play(rng.choice(game.legal_moves()))
        out.append(seen)
    return out


CHECKS = [
    "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3",  # mate
    "rnbqkbnr/ppppp2p/5p2/6pQ/4P3/8/PPPP1PPP/RNB1KBNR b KQkq - 1 3",  # mate
    "4k3/8/8/8/8/8/3q4/4K3 w - - 0 1",  # Kxd2
    "4k3/8/8/8/8/8/3qq3/4K3 w - - 0 1",  # mate
    "4k3/8/8/8/8/5n2/8/R3K2R w KQ - 0 1",  # Knight check: the King steps
    "6rk/8/8/8/8/8/6PP/4r1K1 w - - 0 1",  # back-rank mate
    "6rk/8/8/8/8/8/5BPP/4r1K1 w - - 0 1",  # Bf1 blocks: not shown by a King step
    "k7/8/8/8/8/8/1q6/K7 w - - 0 1",  # Kxb2
    "k7/8/8/8/8/2n5/1q6/K7 w - - 0 1",  # mate (the Queen is guarded)
]


@pytest.mark.parametrize("fen", CHECKS)
def test_the_quick_test_in_check_agrees_with_the_list(fen: str) -> None:
    rules = variants.rules("tquarchess")
    pos = rules.from_fen(f"{fen} {FIDE_EXTRAS}")
    assert rules.in_check(pos)
    rules._memo = None
    has = bool(rules.generate_legal(pos))
    quick = rules.quick_has_move(pos)
    assert not quick or has
    king = pos.kings[pos.turn]
    steps = [m for m in rules.generate_legal(pos) if m.frm == king]
    assert quick == bool(steps)  # shown exactly when the King can step out


@pytest.mark.parametrize("key", ["tquarchess", "stone_garden", "jepps_random"])
def test_the_quick_test_in_check_on_random_games(key: str) -> None:
    rules = variants.rules(key)
    checks = 0
    for seen in _games(key, games=8, plies=120):
        for _, pos in seen:
            if not rules.in_check(pos):
                continue
            checks += 1
            rules._memo = None
            has = bool(rules.generate_legal(pos))
            rules._memo = None
            if rules.free_moves and rules.quick_has_move(pos):
                assert has
            rules._memo = None
            assert rules.has_legal_move(pos) == has
    assert checks


@pytest.mark.parametrize("key", KEYS)
def test_no_roll_at_the_turn_start_when_the_variant_says_none(key: str) -> None:
    rules = variants.rules(key)
    said_no = said_yes = 0
    for seen in _games(key):
        for _, pos in seen:
            trial = pos.copy()
            trial.dice = None  # as the turn starts, before any roll
            for probe in (pos, trial):
                rolled: list[int] = []

                def roll(sides: int, rolled: list[int] = rolled) -> int:
                    rolled.append(sides)
                    return 1

                copy = probe.copy()
                if rules.rolls_at_turn_start(probe):
                    said_yes += 1
                    continue
                said_no += 1
                assert rules.start_turn(copy, roll) == ()
                assert rolled == []
                assert copy.dice == probe.dice
    assert said_no
    if key in ("guardener", "jepps_random"):
        assert said_yes


@pytest.mark.parametrize("key", KEYS)
def test_remembered_texts_name_the_same_squares(key: str) -> None:
    rules = variants.rules(key)
    for seen in _games(key, games=2):
        game = seen[-1][0]
        texts = game.history + [t + "+" for t in game.history] + ["", "x", "O-O", "e2-e4"]
        for text in texts * 2:  # the second time from memory
            assert rules.named_squares(text) == rules._named_squares(text)
    long_text = "e2e4" * 10
    assert rules.named_squares(long_text) == rules._named_squares(long_text)
    assert long_text not in rules._named


def _captured_by_material(game: Game) -> list[tuple[int, str]]:
    """The lost pieces counted afresh: the start's material less the board's, for a game
    without resurrections or promotions."""
    start = variants.new_game(game.variant, seed=0).pos
    rules = game.rules
    out = []
    for color in (0, 1):
        now = rules.material(game.pos, color)
        for kind in rules.material(start, color):
            if kind in now:
                now.remove(kind)
            else:
                out.append((color, kind))
    return sorted(out)


@pytest.mark.parametrize("key", ["kings_guard"])
def test_the_lost_pieces_bars_count_what_left_the_board(key: str) -> None:
    for seen in _games(key, games=4, plies=120):
        game = seen[-1][0]
        assert sorted(game.captured) == _captured_by_material(game)


@pytest.mark.parametrize("key", ["tquarchess", "guardener"])
def test_the_bars_agree_with_the_full_count_every_ply(key: str) -> None:
    # The count test in front of the resurrection check never hides a return: the bars
    # of a game match those of one that always runs the full check.
    from variants.base import Variant

    for n in range(6):
        rng = random.Random(f"bars-{key}-{n}")
        fast = variants.new_game(key, seed=n)
        full = variants.new_game(key, seed=n)
        for _ in range(150):
            if fast.result is not None:
                break
            text = rng.choice(fast.legal_moves())
            fast.play(text)
            original = Variant.gains_kind
            Variant.gains_kind = lambda *a: True  # type: ignore[method-assign]
            try:
                full.play(text)
            finally:
                Variant.gains_kind = original  # type: ignore[method-assign]
            assert fast.captured == full.captured


@pytest.mark.parametrize("key", KEYS)
def test_lost_kinds_agrees_with_the_material_lists(key: str) -> None:
    # Every ply of seeded games, both colours, both ways round (a loss, and a gain read
    # as the loss from the later position), and across several plies at once.
    rules = variants.rules(key)
    compared = 0
    for seen in _games(key):
        positions = [pos for _, pos in seen]
        for i in range(1, len(positions)):
            for old, new in (
                (positions[i - 1], positions[i]),
                (positions[max(0, i - 9)], positions[i]),
            ):
                for color in (0, 1):
                    for a, b in ((old, new), (new, old)):
                        assert rules.lost_kinds(a, b, color) == rules.lost_by_material(a, b, color)
                        compared += 1
    assert compared > 1000


PROMOTIONS = [
    "4k3/1P6/8/8/8/8/6p1/4K3 w - - 0 1",
    "r3k2r/1P6/8/3pP3/8/8/6p1/R3K2R w KQkq d6 0 1",
    "1r2k2r/P7/8/8/8/8/8/R3K2R w KQk - 0 1",
]


@pytest.mark.parametrize("fen", PROMOTIONS)
def test_moves_to_each_square_are_the_whole_list_cut_down(fen: str) -> None:
    rules = variants.rules("tquarchess")
    pos = rules.from_fen(f"{fen} {FIDE_EXTRAS}")
    rules._memo = None
    full = rules.generate_legal(pos)
    for sq in rules.geometry.squares:
        for castles in (True, False):
            rules._memo = None
            got = rules.legal_moves_to(pos, 1 << sq, castles)
            want = [m for m in full if m.to == sq or (castles and m.flag == "castle")]
            assert sorted(got) == sorted(want)


@pytest.mark.parametrize("key", KEYS)
def test_the_likeliest_text_first_finds_the_one_the_whole_list_finds(key: str) -> None:
    # ``Game.play`` stops at the first candidate whose text matches: that is right only
    # because a position's legal texts all differ; both are checked here.
    from variants.game import _canonical

    rules = variants.rules(key)
    for seen in _games(key, games=3, plies=60):
        for _, pos in seen:
            rules._memo = None
            legal = rules.generate_legal(pos)
            texts = rules.format_moves(pos, legal)
            plain = [t.rstrip("+#") for t in texts]
            assert len(set(plain)) == len(plain)
            for text in plain:
                named = rules.named_squares(text)
                rules._memo = None
                moves = rules.legal_moves_to(pos, named, "O" in text or "0" in text)
                if not moves:
                    continue  # an action without a square (roll, pass): the whole list
                formatted: list[str | None] = [None] * len(moves)
                found = _canonical(rules, pos, text, moves, formatted)
                assert found >= 0 and moves[found] == legal[plain.index(text)]


@pytest.mark.parametrize("key", KEYS)
def test_attacks_read_from_the_target_are_those_read_from_each_piece(key: str) -> None:
    # ``attackers`` against each piece's own reach. Stone Garden's Policeman reaches some
    # squares by two paths from one square: it must be found either way.
    rules = variants.rules(key)
    for seen in _games(key, games=2, plies=70):
        for _, pos in seen[::3]:
            occ = pos.occ[0] | pos.occ[1]
            for by in (0, 1):
                reach = {}
                own = pos.occ[by]
                while own:
                    b = own & -own
                    own ^= b
                    frm = b.bit_length() - 1
                    reach[frm] = rules.capture_reach(pos, frm)
                for sq in rules.geometry.squares:
                    want = sum(1 << f for f, cap in reach.items() if cap >> sq & 1)
                    assert rules.attackers(pos, sq, by, occ) == want
                    assert rules.is_attacked(pos, sq, by) == bool(want)
