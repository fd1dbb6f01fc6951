"""Tquarchess: RULES.md section 2 and the seed's worked examples.

FEN extras after the six standard fields: hand ("Tt" both waiting, "-" none),
entry squares still open per side as files ("abcdefgh/abcdefgh", "-" none),
two-square King used ("Kk"/"-"), whose Tquarc acted last ("w"/"b"/"-"), and a
pending entry-attempt roll ("0" none). A Tquarc on the board carries its value
as ``T(3)``.
"""

from __future__ import annotations

import pytest

import variants
from variants.tquarchess import FIDE_EXTRAS, QUADS, Tquarchess, quad_squares


def game(fen: str, rolls: list[int] | None = None) -> variants.Game:
    return variants.from_fen("tquarchess", fen, rolls=rolls or [])


def tquarc_actions(g: variants.Game) -> set[str]:
    return {m for m in g.legal_moves() if "T" in m or m.startswith("roll")}


def strip_checks(moves: set[str]) -> set[str]:
    return {m.rstrip("+#") for m in moves}


# ----- geometry and movement ---------------------------------------------------


def test_tquads_are_numbered_clockwise_from_whites_kingside() -> None:
    rules = variants.rules("tquarchess")
    names = {n: {rules.name(s) for s in quad_squares(n)} for n in QUADS}
    assert names[1] == {f"{f}{r}" for f in "efg" for r in (2, 3, 4)}
    assert names[2] == {f"{f}{r}" for f in "bcd" for r in (2, 3, 4)}
    assert names[3] == {f"{f}{r}" for f in "bcd" for r in (5, 6, 7)}
    assert names[4] == {f"{f}{r}" for f in "efg" for r in (5, 6, 7)}


def test_the_tquarc_leaps_fad_and_captures_as_it_moves() -> None:
    # White Tquarc on d4: F (c3 c5 e3 e5), A (b2 b6 f2 f6), D (d2 d6 b4 f4).
    # A black pawn on f6 can be taken; White's own pawn on b2 blocks that leap;
    # the pieces on c4/d5 are jumped over.
    g = game(f"4k3/8/5p2/3p4/2nT(2)4/8/1P6/4K3 w - - 0 1 {FIDE_EXTRAS}")
    tq = strip_checks({m for m in g.legal_moves() if m.startswith("T")})
    assert tq == {"Tc3", "Tc5", "Te3", "Te5", "Tb6", "Tf2", "Txf6", "Td2", "Td6", "Tb4", "Tf4"}


def test_the_tquarc_is_colour_bound() -> None:
    rules = variants.rules("tquarchess")
    g = game(f"4k3/8/8/8/3T(2)4/8/8/4K3 w - - 0 1 {FIDE_EXTRAS}")
    for move, _ in g.legal_actions():
        if move.frm == rules.geometry.parse_square("d4"):
            assert rules.geometry.dark[move.to] == rules.geometry.dark[move.frm]


# ----- entry (Seirawan gating) -------------------------------------------------


def test_entry_bg5_t_3() -> None:
    # The seed: the Tquarc enters on White's queen's bishop square as the Bishop
    # first moves to g5; the die shows 3.
    g = variants.new_game("tquarchess", rolls=[3])
    g.play("d4")
    g.play("d5")
    assert "Bg5/T%" in g.legal_moves() and "Bg5" in g.legal_moves()
    assert g.play("Bg5/T") == "Bg5/T%3"
    assert g.fen().split()[0] == "rnbqkbnr/ppp1pppp/8/3p2B1/3P4/8/PPP1PPPP/RNT(3)QKBNR"
    assert "1. d4 d5 2. Bg5/T%3" in g.record()


def test_every_first_move_of_a_back_rank_piece_may_gate() -> None:
    g = variants.new_game("tquarchess", rolls=[])
    assert tquarc_actions(g) == {"Nc3/T%", "Na3/T%", "Nf3/T%", "Nh3/T%", "roll%"}


def test_gating_on_castling_may_use_either_vacated_square() -> None:
    g = game("r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1", rolls=[2])
    castles = {m for m in g.legal_moves() if m.startswith("O-O")}
    assert castles == {
        "O-O",
        "O-O-O",
        "O-O/Te1%",
        "O-O/Th1%",
        "O-O-O/Te1%",
        "O-O-O/Ta1%",
    }
    assert g.play("O-O/Th1") == "O-O/Th1%2"
    assert g.fen().split()[0] == "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R4RKT(2)"


def test_entry_attempt_roll_then_enter_or_not() -> None:
    g = variants.new_game("tquarchess", rolls=[2, 4])
    assert g.play("roll") == "roll%2"
    assert g.turn == "white" and g.dice == (2,)
    # Having seen the 2: entries carry it (no second roll), and there is no second roll.
    assert tquarc_actions(g) == {"Nc3/T%", "Na3/T%", "Nf3/T%", "Nh3/T%"}
    assert g.play("Nf3/T") == "Nf3/T%2"
    assert g.fen().split()[0] == "rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKBT(2)R"
    # The value stands on the entry, as the rule page writes it (issue 11, defect 3).
    assert "1. roll Nf3/T%2" in g.record()
    # Black rolls a 4 and decides to move without entering.
    assert g.play("roll") == "roll%4"
    assert g.play("e5") == "e5"
    assert g.dice is None
    g.play("a3")
    assert "roll%" in g.legal_moves()  # a new turn, a new attempt
    assert variants.replay(g.record()).fen() == g.fen()


def test_the_roll_is_offered_only_while_an_entry_is_possible() -> None:
    g = game(f"4k3/8/8/8/8/8/8/4K3 w - - 0 1 {FIDE_EXTRAS}")
    assert not tquarc_actions(g)


def test_entry_lapses_when_all_eight_back_rank_squares_were_vacated() -> None:
    # Only b1 still holds its original piece.
    g = game("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 Tt b/abcdefgh - - 0")
    assert tquarc_actions(g) == {"Nc3/T%", "Na3/T%", "roll%"}
    g.play("Nc3")
    assert g.fen().split()[6:8] == ["Tt", "-/abcdefgh"]
    g.play("e5")
    assert not tquarc_actions(g)
    g.play("Nb1")  # back on its square, but it has left once: no entry
    g.play("Nc6")
    assert not tquarc_actions(g)


def test_a_piece_taken_on_its_square_closes_that_entry() -> None:
    g = game("rnbqkbnr/pppppp1p/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1 Tt abcdefgh/abcdefgh - - 0")
    g2 = game("rnbqkbnr/pppppp1p/8/8/8/8/PPPPPPBP/RNBQK1NR w KQkq - 0 1 Tt abcdeg/abcdefgh - - 0")
    assert g.fen().split()[7] == "abcdefgh/abcdefgh"
    g2.play("Bxb7")
    g2.play("a6")
    g2.play("Bxa8")
    assert g2.fen().split()[7] == "abcdeg/bcdefgh"


# ----- teleport and the response rule --------------------------------------------

# White's Tquarc on f3 (Tquad 1) shows 3; Black's Tquarc has just moved to d6.
TELEPORT = "rnbqkbnr/p1pppppp/3t(1)4/8/8/5T(3)2/PPPPPPPP/RNBQKBNR w KQkq - 0 1 - -/- - b 0"


def test_teleport_tb7_4() -> None:
    # The seed: White's Tquarc teleports from f3 to b7 in Tquad 3, re-rolling a 4.
    g = game(TELEPORT, rolls=[4])
    teleports = strip_checks({m for m in g.legal_moves() if m.endswith(("%", "%+"))})
    # Every empty square of the Tquarc's colour (light) in Tquad 3.
    assert teleports == {"Tb5%", "Td5%", "Tc6%", "Tb7%"}
    assert g.play("Tb7") == "Tb7%4"
    assert g.fen().split()[0] == "rnbqkbnr/pT(4)pppppp/3t(1)4/8/8/8/PPPPPPPP/RNBQKBNR"
    assert variants.replay(g.record()).fen() == g.fen()


def test_teleport_and_ordinary_move_to_the_same_square_stay_apart() -> None:
    g = game(TELEPORT, rolls=[2])
    assert {"Td5", "Td5%"} <= set(g.legal_moves())
    assert g.copy().play("Td5") == "Td5"
    assert g.play("Td5%") == "Td5%2"


def test_teleport_never_captures() -> None:
    # Black pawns on b5 and d5 stand on two of the light squares of Tquad 3.
    blocked = game(
        "rnbqkbnr/p1pppppp/3t(1)4/1p1p4/8/5T(3)2/PPPPPPPP/RNBQKBNR w KQkq - 0 1 - -/- - b 0"
    )
    teleports = strip_checks({m for m in blocked.legal_moves() if "%" in m})
    assert teleports == {"Tc6%", "Tb7%"}


def test_teleport_only_in_response_to_the_enemy_tquarc() -> None:
    quiet = game(TELEPORT.replace(" b 0", " - 0"))
    assert not {m for m in quiet.legal_moves() if "%" in m}
    # Black's Tquarc acts; White may answer with a teleport on this move only.
    g = game(TELEPORT.replace(" b 0", " - 0").replace(" w KQkq", " b KQkq"), rolls=[3, 1])
    g.play("Tf4")
    assert {m for m in g.legal_moves() if "%" in m}
    g.play("e3")
    g.play("a6")
    assert not {m for m in g.legal_moves() if "%" in m}


def test_an_entry_counts_as_a_tquarc_action_for_the_response_rule() -> None:
    g = variants.new_game("tquarchess", rolls=[3, 2, 4])
    g.play("d4")
    g.play("d5")
    g.play("Bg5/T")  # White's Tquarc on c1 shows 3
    g.play("Nf6/T")  # Black enters: White may teleport in answer
    teleports = strip_checks({m for m in g.legal_moves() if m.endswith(("%", "%+"))})
    assert teleports == {"Tc5%", "Tb6%", "Td6%"}
    assert g.play("Tc5") == "Tc5%4"


# ----- resurrection and the two-square King -----------------------------------------

# White's Tquarc was captured (not in hand, not on the board).
LOST = "t -/- - - 0"


def test_knight_resurrection_na8_t_2() -> None:
    g = game(f"r3k3/8/1N6/8/8/8/8/4K3 w - - 0 1 {LOST}", rolls=[2])
    # Onto a light square of Black's back rank (a8, c8): d7 is not on it, and the
    # plain Knight moves stay available.
    assert strip_checks({m for m in g.legal_moves() if m.startswith("N")}) == {
        "Nc8",
        "Nd7",
        "Nc4",
        "Nd5",
        "Nxa8",
        "Na4",
        "Nc8/T%",
        "Nxa8/T%",
    }
    assert g.play("Nxa8/T") == "Nxa8/T%2"
    assert g.fen().split()[0] == "T(2)3k3/8/8/8/8/8/8/4K3"
    assert g.fen().split()[6:9] == ["t", "-/-", "-"]


def test_knight_resurrection_na8_t_without_capture() -> None:
    g = game(f"4k3/8/1N6/8/8/8/8/4K3 w - - 0 1 {LOST}", rolls=[2])
    assert g.play("Na8/T") == "Na8/T%2"


def test_black_knight_resurrects_on_dark_squares_of_the_first_rank() -> None:
    # The Knight on d3 reaches c1 and e1 (dark); the one on c3 reaches b1 and
    # d1, which are light: no resurrection there.
    g = game("4k3/8/8/8/8/2nn4/8/7K b - - 0 1 T -/- - - 0")
    res = strip_checks({m for m in g.legal_moves() if "/T" in m})
    assert res == {"Nc1/T%", "Ne1/T%"}
    assert {"Nb1", "Nd1"} <= strip_checks(set(g.legal_moves()))


def test_pawn_resurrection_b8_t_1() -> None:
    g = game(f"4k3/1P6/8/8/8/8/8/4K3 w - - 0 1 {LOST}", rolls=[1])
    assert {m.rstrip("+") for m in g.legal_moves() if "=" in m} == {
        "b8=Q",
        "b8=R",
        "b8=B",
        "b8=N",
        "b8=T%",
    }
    assert g.play("b8=T") == "b8=T%1"
    assert g.fen().split()[0] == "1T(1)2k3/8/8/8/8/8/8/4K3"


def test_no_resurrection_while_the_tquarc_is_on_the_board_or_in_hand() -> None:
    on_board = game(f"4k3/1P6/1N6/8/8/8/8/T(1)3K3 w - - 0 1 {LOST}")
    in_hand = game("4k3/1P6/1N6/8/8/8/8/4K3 w - - 0 1 Tt -/- - - 0")
    for g in (on_board, in_hand):
        assert not [m for m in g.legal_moves() if "=T" in m or "/T" in m]


def test_two_square_king_once_while_the_tquarc_is_lost() -> None:
    # Check rules apply: the Bishop on b2 guards c1 and c3, the Knight on e3
    # guards d1 and f1 (passing over an attacked middle square is allowed).
    # It may capture on the second square.
    g = game(f"4k3/p7/8/8/8/4n3/1b6/4K3 w - - 0 1 {LOST}")
    assert {m for m in g.legal_moves() if m.startswith("K")} == {
        "Kd2",
        "Ke2",
        "Kf2",
        "Kxe3",
        "Kg3",
        "Kg1",
    }
    assert g.play("Kg3") == "Kg3"
    assert g.fen().split()[8] == "K"
    g.play("a6")
    # Once per game: from g3 only single steps remain.
    assert {m.rstrip("+") for m in g.legal_moves() if m.startswith("K")} <= {
        f"K{x}" for x in ("f2", "f3", "f4", "g2", "g4", "h2", "h3", "h4")
    }


def test_two_square_king_path_must_be_clear() -> None:
    g = game(f"4k3/p7/8/8/8/8/4P3/3PK3 w - - 0 1 {LOST}")
    kings = {m for m in g.legal_moves() if m.startswith("K")}
    assert "Ke3" not in kings and "Kc1" not in kings
    assert {"Kg1", "Kg3", "Kc3"} <= kings


KING2 = {"Kc3", "Ke3", "Kg3", "Kc1", "Kg1"}


def test_a_resurrected_tquarc_suspends_the_two_square_king_until_taken_again() -> None:
    g = game(f"4k3/pP1n4/8/8/8/8/8/4K3 w - - 0 1 {LOST}", rolls=[1])
    assert KING2 <= set(g.legal_moves())
    g.play("b8=T")
    waiting = g.copy()
    waiting.play("a6")
    assert not KING2 & set(waiting.legal_moves())
    g.play("Nxb8")
    assert KING2 <= set(g.legal_moves())


def test_two_square_king_is_gone_after_use_even_if_the_tquarc_is_lost_again() -> None:
    g = game("4k3/p7/8/8/8/8/8/4K3 w - - 0 1 t -/- K - 0")
    assert not [m for m in g.legal_moves() if m in ("Ke3", "Kg3", "Kc3", "Kg1", "Kc1")]


# The two-square King attacks (variants/tquarchess.py KING2_ATTACKS, a reading): the
# square two away in a straight line, across an empty square, while the power is live.


def test_a_king_that_may_slide_two_squares_gives_check_across_the_square_passed() -> None:
    # Found by a random game: Black played Rf7 here and White took the King with Kxe5.
    g = game("N7/2p1p2r/8/p2pkpPP/P5r1/2KPP3/5Pt(2)1/2B1R3 b - - 2 45 - -/- - - 0")
    assert g.rules.in_check(g.pos)
    # Step away, or stand on d4, the square the white King would pass.
    assert set(g.legal_moves()) == {"Kd6", "Ke6", "Rd4", "d4+"}


def test_the_check_and_its_mark_follow_the_power() -> None:
    # Kc1 puts the white King two squares from e3 on the diagonal across d2.
    live = game(f"7p/8/8/8/8/4k3/P7/1K6 w - - 0 1 {LOST}")
    assert "Kc1+" in live.legal_moves()
    used = game("7p/8/8/8/8/4k3/P7/1K6 w - - 0 1 t -/- K - 0")
    on_board = game("7T(1)/7p/8/8/8/4k3/P7/1K6 w - - 0 1 t -/- - - 0")
    waiting = game("7p/8/8/8/8/4k3/P7/1K6 w - - 0 1 Tt -/- - - 0")
    for g in (used, on_board, waiting):
        assert "Kc1" in g.legal_moves()


def test_a_king_may_not_step_where_the_enemy_king_could_slide_onto_it() -> None:
    live = game(f"7p/8/8/8/4k3/8/P7/2K5 b - - 0 1 {LOST}")
    assert "Ke3" not in live.legal_moves()  # c1-d2-e3
    assert "Kd3" in live.legal_moves()  # not in a line with c1
    used = game("7p/8/8/8/4k3/8/P7/2K5 b - - 0 1 t -/- K - 0")
    assert "Ke3" in used.legal_moves()


def test_a_piece_alone_on_the_square_passed_is_pinned() -> None:
    pinned = game(f"7p/8/8/4k3/3n4/2K5/P7/8 b - - 0 1 {LOST}")  # c3-d4-e5
    assert not [m for m in pinned.legal_moves() if m.startswith("N")]
    free = game("7p/8/8/4k3/3n4/2K5/P7/8 b - - 0 1 t -/- K - 0")
    assert [m for m in free.legal_moves() if m.startswith("N")]


# Taking the Tquarc wakes its King's two-square move at once: check is judged after the
# move ("Check rules apply"), so a capture that lets the enemy King slide onto ours is
# not legal. Found by the analysis of a self-play game: Kxf4 was played in search, and
# White's King then "took" the Black King with its two-square move.


def test_a_king_may_not_take_the_tquarc_where_the_woken_king_could_slide_onto_it() -> None:
    g = game("6t(2)N/2p2p2/2P2p2/R4k1p/3P1T(3)1P/8/4QKPR/B4B2 b - - 0 40 - f/- - - 0")
    assert g.rules.in_check(g.pos)  # the Tquarc on f4 checks; Kxf4 was the only answer
    assert g.legal_moves() == []
    rules = g.rules
    outcome = rules.outcome(g.pos, (rules.repetition_key(g.pos),))
    assert outcome is not None and outcome.winner == "white" and outcome.reason == "checkmate"


def test_a_piece_may_not_take_the_tquarc_when_that_wakes_the_king_onto_its_own() -> None:
    # c3-d4-e5: the White King would slide onto the Black King once its Tquarc is gone.
    g = game("7T(1)/8/8/4k3/8/2K5/8/7r b - - 0 1 t -/- - - 0")
    assert "Rxh8" not in g.legal_moves() and "Rh7" in g.legal_moves()
    used = game("7T(1)/8/8/4k3/8/2K5/8/7r b - - 0 1 t -/- K - 0")  # the power is spent
    assert "Rxh8" in used.legal_moves()
    # The piece on the square passed (d4) may not take it either: it would open the way.
    across = game("8/8/8/4k3/3n4/2K2T(1)2/8/8 b - - 0 1 t -/- - - 0")
    assert "Nxf3" not in across.legal_moves() and "Nb5+" in across.legal_moves()


def test_a_capture_of_the_tquarc_that_wakes_the_king_is_no_way_out_of_stalemate() -> None:
    # The Black King on h8 has no square; the pawn's only move takes the Tquarc on a2,
    # and then the White King on f6 slides across g7 onto h8.
    g = game("7k/4N3/5K2/8/8/1p1B4/T(1)P6/8 b - - 0 1 t -/- - - 0")
    rules = g.rules
    assert not rules.in_check(g.pos) and not rules.has_legal_move(g.pos)
    outcome = rules.outcome(g.pos, (rules.repetition_key(g.pos),))
    assert outcome is not None and outcome.winner is None and outcome.reason == "stalemate"


# ----- notation and the end ---------------------------------------------------------


def test_the_notation_table() -> None:
    """RULES.md section 2: what is typed and what is recorded."""
    teleport = game(TELEPORT, rolls=[4])
    assert teleport.play("Tb7%") == "Tb7%4"
    entry = variants.new_game("tquarchess", rolls=[3])
    entry.play("d4")
    entry.play("d5")
    assert entry.play("Bg5/T") == "Bg5/T%3"
    knight = game(f"4k3/8/1N6/8/8/8/8/4K3 w - - 0 1 {LOST}", rolls=[2])
    assert knight.play("Na8/T") == "Na8/T%2"
    pawn = game(f"4k3/1P6/8/8/8/8/8/4K3 w - - 0 1 {LOST}", rolls=[1])
    assert pawn.play("b8=T") == "b8=T%1"
    roll = variants.new_game("tquarchess", rolls=[2])
    assert roll.play("roll") == "roll%2"
    move = game(f"4k3/8/8/8/4T(1)3/8/8/4K3 w - - 0 1 {FIDE_EXTRAS}")
    assert move.play("Tc2") == "Tc2"


def test_insufficient_material_ignores_a_lapsed_tquarc_but_not_one_that_can_enter() -> None:
    lapsed = game(f"4k3/8/8/8/8/8/8/4K3 w - - 0 1 {FIDE_EXTRAS}")
    assert lapsed.result is not None and lapsed.result.reason == "insufficient material"
    waiting = game("4k3/8/8/8/8/8/8/4K3 w - - 0 1 Tt e/e - - 0")
    assert waiting.result is None
    resurrectable = game(f"4k3/8/8/8/8/8/8/3NK3 w - - 0 1 {LOST}")
    assert resurrectable.result is None


def test_fen_round_trip() -> None:
    rules = Tquarchess()
    for fen in (
        TELEPORT,
        f"4k3/8/1N6/8/8/8/8/4K3 w - - 0 1 {LOST}",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 Tt abcdefgh/abcdefgh - - 0",
        "4k3/8/8/8/8/8/8/4K3 b - - 3 9 - -/- Kk w 0",
    ):
        assert rules.fen(rules.from_fen(fen)) == fen


@pytest.mark.parametrize("bad", ["Tt abc", "Tt a/b/c - - 0", "Tt -/- - - 7"])
def test_bad_fen_extras_are_refused(bad: str) -> None:
    with pytest.raises(ValueError):
        variants.from_fen("tquarchess", f"4k3/8/8/8/8/8/8/4K3 w - - 0 1 {bad}")
