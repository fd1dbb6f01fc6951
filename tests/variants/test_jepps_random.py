"""Jepps Random Chess: RULES.md section 5 and the seed's worked examples.

Setup dice are scripted: each pair of values is one roll of the two d6
(1 K, 2 N, 3 B, 4 R, 5 Q, 6 free choice).
"""

from __future__ import annotations

import re

import pytest

import variants
from variants.geometry import BLACK, WHITE
from variants.jepps_random import JeppsRandom

# White: a1 (2,4) N or R; b1 (3,5) B or Q; c1 (1,2) K or N; d1 (3,5) B or Q,
# but a light Bishop already stands on b1; e1 (4,6) R or anything; then the
# second Bishop is forced onto g1, f1 (2,4) N or R, and the Rook on h1 is forced.
WHITE_ROLLS = [2, 4, 3, 5, 1, 2, 3, 5, 4, 6, 2, 4]
WHITE_CHOICES = ["Na1", "Bb1", "Kc1", "Qd1", "Re1", "Nf1"]
WHITE_RANK = "NBKQRNBR"


def white_set_up(mediator: list[int], more: list[int] | None = None) -> variants.Game:
    g = variants.new_game("jepps_random", rolls=WHITE_ROLLS + mediator + (more or []))
    for choice in WHITE_CHOICES:
        g.play(choice)
    return g


def placement(g: variants.Game) -> str:
    return g.fen().split()[0]


# ----- White's setup ----------------------------------------------------------------


def test_the_setup_string() -> None:
    g = white_set_up([2, 4])
    assert JeppsRandom().setup_string(g.history, WHITE) == (
        "Na1, Bb1, Kc1, Qd1, Re1, Nf1, Bg1, Rh1"
    )
    assert g.play("Mirror") == "Mirror"
    assert JeppsRandom().setup_string(g.history, BLACK) == "Mirror"


def test_each_roll_offers_the_two_pieces_shown() -> None:
    g = variants.new_game("jepps_random", rolls=WHITE_ROLLS)
    assert g.turn == "white" and g.dice == (2, 4)
    assert set(g.legal_moves()) == {"Na1", "Ra1"}
    g.play("Na1")
    assert set(g.legal_moves()) == {"Bb1", "Qb1"}


def test_a_six_is_a_free_choice_of_anything_in_stock() -> None:
    g = variants.new_game("jepps_random", rolls=[6, 1])
    assert set(g.legal_moves()) == {"Ka1", "Qa1", "Ra1", "Ba1", "Na1"}


def test_bishops_on_the_same_colour_are_refused() -> None:
    g = variants.new_game("jepps_random", rolls=WHITE_ROLLS)
    for choice in WHITE_CHOICES[:3]:
        g.play(choice)
    # The dice offer a Bishop or the Queen for d1, but d1 is light like b1.
    assert g.dice == (3, 5)
    assert g.legal_moves() == ["Qd1"]
    with pytest.raises(variants.NotLegalHere, match="Qd1"):
        g.play("Bd1")


def test_forced_placements_are_made_by_themselves_and_recorded() -> None:
    g = white_set_up([2, 4])
    # After Re1 the last Bishop had one dark square left (g1); after Nf1 only the
    # Rook was left for h1.
    assert placement(g).split("/")[-1] == WHITE_RANK
    # The record writes the whole rank in file order; forced pieces carry no roll.
    assert "[4 6] Re1, [2 4] Nf1, Bg1, Rh1" in g.record()
    assert g.history[4:6] == ["Re1 (Bg1)", "Nf1 (Rh1)"]
    # Six rolls for White's eight squares.
    assert g.dice == (2, 4)


def test_a_double_may_be_taken_or_rerolled() -> None:
    g = variants.new_game("jepps_random", rolls=[4, 4, 5, 1])
    assert set(g.legal_moves()) == {"Ra1", "reroll"}
    assert g.play("reroll") == "reroll [5 1]"
    assert set(g.legal_moves()) == {"Qa1", "Ka1"}


def test_when_nothing_offered_is_in_stock_the_bot_rerolls() -> None:
    g = variants.new_game("jepps_random", rolls=[1, 2, 1, 1, 5, 3])
    g.play("Ka1")
    # b1: (1, 1) offers only the King, already placed: rolled again at once.
    assert g.dice == (5, 3)
    assert set(g.legal_moves()) == {"Qb1", "Bb1"}
    assert "[1 2] Ka1, [1 1] [5 3]" in g.record()


# ----- the mediator roll -----------------------------------------------------------


def test_both_even_black_mirrors() -> None:
    g = white_set_up([2, 4])
    assert g.turn == "black" and g.legal_moves() == ["Mirror"]
    g.play("mirror")
    assert placement(g).split("/")[0] == WHITE_RANK.lower()
    assert g.turn == "white"
    assert g.fen().split()[1:] == ["w", "-", "-", "0", "1", "Kk"]


def test_both_odd_black_reverses() -> None:
    g = white_set_up([1, 3])
    assert g.legal_moves() == ["Reverse"]
    g.play("Reverse")
    assert placement(g).split("/")[0] == WHITE_RANK[::-1].lower()


def test_odd_and_even_black_randomizes_from_a8() -> None:
    g = white_set_up([1, 2], [5, 3, 2, 4])
    assert g.turn == "black" and g.dice == (5, 3)
    assert set(g.legal_moves()) == {"Qa8", "Ba8"}
    g.play("Qa8")
    assert placement(g).startswith("q7/")


def test_a_double_mediator_may_be_rerolled_or_accepted() -> None:
    g = white_set_up([2, 2], [3, 5])
    assert set(g.legal_moves()) == {"Mirror", "reroll"}
    accepted = g.copy()
    accepted.play("Mirror")
    assert placement(accepted).split("/")[0] == WHITE_RANK.lower()
    assert g.play("reroll") == "reroll [3 5]"
    assert g.legal_moves() == ["Reverse"]
    g.play("Reverse")
    assert JeppsRandom().setup_string(g.history, BLACK) == "Reverse"
    assert variants.replay(g.record()).fen() == g.fen()


# ----- Free Play ---------------------------------------------------------------------


def test_free_play_entry_order() -> None:
    # The seed: 1. Na1 Kh8 2. Bb1 Rg8 3. Qc1 Nf8 (White from a1, Black from h8).
    rolls = [2, 4, 1, 4, 3, 5, 4, 2, 5, 1, 2, 3, 1, 1]
    g = variants.new_game("jepps_random", rolls=rolls, options={"free_play": True})
    for move in ("Na1", "Kh8", "Bb1", "Rg8", "Qc1", "Nf8"):
        assert g.play(move) == move
    body = re.sub(r"\s*\[[\d ]+\]", "", g.record().split("\n\n", 1)[1])
    # Labelled i, ii, iii ... (FREE_PLAY_NUMBERING): the game proper starts at move 1.
    assert "i. Na1 Kh8 ii. Bb1 Rg8 iii. Qc1 Nf8" in body
    assert g.turn == "white" and "Kd1" in g.legal_moves()


def test_free_play_has_no_mediator_and_ends_in_play() -> None:
    g = variants.new_game("jepps_random", seed=3, options={"free_play": True})
    turns = []
    while g.pos.extra["phase"] == "setup":
        turns.append(g.turn)
        moves = [m for m in g.legal_moves() if m != "reroll"] or g.legal_moves()
        g.play(moves[0])
    assert not any(m in ("Mirror", "Reverse") for m in g.history)
    assert turns[:2] == ["white", "black"]
    assert g.turn == "white" and len(g.legal_moves()) > 0
    ranks = placement(g).split("/")
    assert sorted(ranks[0]) == sorted("kqrrbbnn") and sorted(ranks[-1]) == sorted("KQRRBBNN")


def test_free_play_option_must_be_a_boolean() -> None:
    with pytest.raises(ValueError):
        variants.new_game("jepps_random", seed=1, options={"free_play": "yes"})
    with pytest.raises(ValueError):
        variants.new_game("jepps_random", seed=1, options={"mediator": True})


# ----- play: no castling; King relocation ------------------------------------------


def play_game(fen: str) -> variants.Game:
    return variants.from_fen("jepps_random", fen, seed=0)


def relocations(g: variants.Game) -> set[str]:
    """Relocations: King moves that are not single steps."""
    rules = g.rules
    return {
        text
        for move, text in g.legal_actions()
        if move.flag == "relocate"
        and abs(rules.geometry.file_of(move.frm) - rules.geometry.file_of(move.to)) >= 2
    }


def test_relocation_to_vacant_home_squares_of_the_kings_colour() -> None:
    # e1 is dark: c1 and g1 are the dark vacant squares; b1, d1 and f1 are light.
    g = play_game("r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w - - 0 1 Kk")
    assert relocations(g) == {"Kc1", "Kg1"}
    assert not [m for m in g.legal_moves() if m.startswith("O-O")]


def test_the_path_need_not_be_clear() -> None:
    g = play_game("4k3/pppppppp/8/8/8/8/PPPPPPPP/R2QK1NR w - - 0 1 Kk")
    assert relocations(g) == {"Kc1"}
    g.play("Kc1")
    assert placement(g).endswith("R1KQ2NR")


def test_no_relocation_out_of_check() -> None:
    g = play_game("4r2k/8/8/8/8/8/PPPP1PPP/R3K2R w - - 0 1 Kk")
    assert relocations(g) == set()


def test_no_relocation_onto_an_attacked_square() -> None:
    # The Bishop on c5 attacks g1.
    g = play_game("7k/8/8/2b5/8/8/PPPPP1PP/R3K2R w - - 0 1 Kk")
    assert relocations(g) == {"Kc1"}


def test_no_relocation_across_an_attacked_vacant_home_square() -> None:
    # The Bishop on h3 attacks f1, which the King would cross on its way to g1;
    # g1 itself is not attacked.
    g = play_game("4k3/8/8/8/8/7b/PPPPPP1P/R3K2R w - - 0 1 Kk")
    assert relocations(g) == {"Kc1"}


def test_an_attacked_occupied_square_on_the_way_does_not_matter() -> None:
    g = play_game("4k3/8/8/8/8/7b/PPPPPP1P/R3KB1R w - - 0 1 Kk")
    assert relocations(g) == {"Kc1", "Kg1"}


def test_relocation_only_once_and_only_for_a_king_that_never_moved() -> None:
    g = play_game("r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w - - 0 1 Kk")
    g.play("Kg1")
    assert g.fen().split()[6] == "k"
    assert relocations(g) == {"Kc8", "Kg8"}  # e8 is light, like c8 and g8
    g.play("Kg8")
    assert g.fen().split()[6] == "-"
    g.play("Kf1")
    g.play("Kf8")
    g.play("Ke1")
    assert relocations(g) == set()

    stepped = play_game("r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w - - 0 1 Kk")
    stepped.play("Kf1")
    stepped.play("a6")
    stepped.play("Ke1")
    stepped.play("a5")
    assert relocations(stepped) == set()


def test_black_relocates_along_rank_8() -> None:
    g = play_game("r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R b - - 0 1 Kk")
    assert relocations(g) == {"Kc8", "Kg8"}
    g = play_game("r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R b - - 0 1 K")
    assert relocations(g) == set()


def test_a_mid_setup_game_replays_and_its_fen_says_setup() -> None:
    g = white_set_up([1, 2], [5, 3])
    assert g.fen().endswith(" setup")
    again = variants.replay(g.record())
    assert again.fen() == g.fen() and again.legal_moves() == g.legal_moves()


def test_no_roll_is_asked_for_when_one_kind_is_left() -> None:
    """Reading ONE_KIND_LEFT_IS_FORCED: with only Knights (or only the last piece)
    left, the bot places them itself; a player is only ever asked to choose
    between at least two kinds still in stock."""
    import random

    asked = 0
    for seed in range(30):
        g = variants.new_game("jepps_random", seed=seed, options={"free_play": seed % 2 == 1})
        rng = random.Random(seed)
        while g.pos.extra["phase"] == "setup":
            if g.pos.extra["mediator"] != "pending":
                stock = g.pos.extra["stock"][g.pos.turn]
                assert len(set(stock)) >= 2, (seed, stock, g.history)
                asked += 1
            g.play(rng.choice(g.legal_moves()))
        assert all(sq is not None for sq in g.pos.board[:8] + g.pos.board[56:])
    assert asked > 100


def test_a_recorded_placement_splits_into_the_choice_and_the_forced_ones() -> None:
    rules = variants.rules("jepps_random")
    assert rules.split_recorded("Kc8 (Rg1) (Rb8) (Rh1)") == ("Kc8", ("Rg1", "Rb8", "Rh1"))
    assert rules.split_recorded("Nf3") == ("Nf3", ())
    assert variants.rules("guardener").split_recorded("reroll [3 3]") == ("reroll [3 3]", ())
