"""King's Guard Chess: RULES.md section 3 and the seed's worked examples."""

from __future__ import annotations

import variants

# The seed's assisted-capture diagram, as its text describes it:
#
#   8 . . . . k . . .     Black: King e8, Pawn f7, Pawn b4, Rook d4, Knight b3
#   7 . . . P P p . .     White: King e1, Knight c2, Pawn c3, Bishop c6,
#   6 . . B . . . . .            Pawns d7 and e7 (next to the black King)
#   5 . . . . . . . .
#   4 . p . r . . . .     e1 is taken by White's own King, so the Knight on c2
#   3 . n P . . . . .     has only e3, a1 and a3 to go to.
#   2 . . N . . . . .
#   1 . . . . K . . .
#     a b c d e f g h
DIAGRAM = "4k3/3PPp2/2B5/8/1p1r4/1nP5/2N5/4K3"


def game(fen: str) -> variants.Game:
    return variants.from_fen("kings_guard", fen, seed=0)


def moves_from(g: variants.Game, prefix: str) -> set[str]:
    return {m for m in g.legal_moves() if m.startswith(prefix)}


def captures(g: variants.Game) -> set[str]:
    return {m for m in g.legal_moves() if "x" in m}


# ----- the seed's diagram ---------------------------------------------------


def test_knight_c2_may_only_move_to_e3_a1_a3() -> None:
    g = game(f"{DIAGRAM} w - - 0 1")
    assert moves_from(g, "N") == {"Ne3", "Na1", "Na3"}


def test_knight_c2_assists_pawn_c3_to_take_b4_or_d4_but_not_the_knight_b3() -> None:
    g = game(f"{DIAGRAM} w - - 0 1")
    # b4 and d4 are attacked by the Knight on c2; nothing White has attacks b3.
    # The King on e8 is safe: pawns never assist, and the Bishop c6 is blocked by d7.
    assert captures(g) == {"cxb4", "cxd4"}
    assert g.copy().play("cxd4") == "cxd4"
    after = game(f"{DIAGRAM} w - - 0 1")
    after.play("cxb4")
    assert after.fen().split()[0] == "4k3/3PPp2/2B5/8/1P1r4/1n6/2N5/4K3"


def test_pawn_f7_takes_pawn_e7_assisted_by_the_king() -> None:
    g = game(f"{DIAGRAM} b - - 0 1")
    assert captures(g) == {"fxe7"}


def test_without_the_assisting_knight_pawn_c3_cannot_capture() -> None:
    g = game("4k3/3PPp2/2B5/8/1p1r4/1nP5/8/4K3 w - - 0 1")
    assert not {m for m in captures(g) if m.startswith("c")}


def test_with_d7_gone_the_bishop_assists_a_capture_of_the_king() -> None:
    g = game("4k3/4Pp2/2B5/8/1p1r4/1nP5/2N5/4K3 w - - 0 1")
    assert {"exe8=Q", "exe8=R", "exe8=B", "exe8=N"} <= captures(g)
    assert g.play("exe8=Q") == "exe8=Q"
    assert g.result is not None
    assert (g.result.winner, g.result.reason) == ("white", "king captured")


def test_a_pawn_never_assists() -> None:
    # Both White pawns stand next to the black pawn d5, but no White piece
    # attacks d5, and a pawn never assists another pawn.
    g = game("4k3/8/8/3p4/2P1P3/8/8/4K3 w - - 0 1")
    assert not captures(g)


# ----- movement ----------------------------------------------------------------


def test_pawns_step_one_square_in_any_direction_without_double_step() -> None:
    g = game("4k3/p7/8/8/3P4/8/8/4K3 w - - 0 1")
    assert moves_from(g, "d") | moves_from(g, "c") | moves_from(g, "e") == set(
        "d5 dc5 de5 dc4 de4 d3 dc3 de3".split()
    )
    start = variants.new_game("kings_guard", seed=0)
    # From the start e3 can be reached from d2, e2 and f2; e4 from nowhere.
    # A step along the pawn's own file is written bare, a step off it names the file.
    assert {"de3", "e3", "fe3"} <= set(start.legal_moves())
    assert not [m for m in start.legal_moves() if m.endswith("4")]


def test_pieces_never_capture() -> None:
    # The Rook sees the black Knight on a8 and the Queen sees the Rook on h8;
    # neither may take. Only pawns capture.
    g = game("n3k2r/8/8/8/8/8/P7/R3K2Q w - - 0 1")
    assert not captures(g)
    assert "Ra8" not in g.legal_moves() and "Qh8" not in g.legal_moves()


def test_no_castling_and_no_en_passant() -> None:
    g = game("r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1")
    assert not [m for m in g.legal_moves() if m.startswith("O-O")]
    assert g.fen().split()[2] == "-"
    g = game("4k3/8/8/2pP4/8/8/8/4K3 w - c6 0 1")
    assert "dxc6" not in g.legal_moves()


def test_promotion_offers_the_fide_choices_in_any_direction_onto_the_last_rank() -> None:
    g = game("k7/3P4/8/8/8/8/p7/4K3 w - - 0 1")
    assert {m for m in g.legal_moves() if "=" in m} == {
        f"{sq}={k}" for sq in ("dc8", "d8", "de8") for k in "QRBN"
    }
    assert g.play("c8=N") == "dc8=N"


def test_kings_may_stand_on_attacked_squares_and_there_is_no_check() -> None:
    # The black Rook attacks the whole d-file; the White King may step onto it.
    g = game("3rk3/p7/8/8/8/8/P7/4K3 w - - 0 1")
    assert {"Kd1", "Kd2"} <= set(g.legal_moves())
    assert not [m for m in g.legal_moves() if m.endswith(("+", "#"))]


# ----- the end: tested at the start of the turn ------------------------------------


def test_both_sides_pawnless_the_side_to_move_loses() -> None:
    # The seed: Black takes White's last pawn on the first rank with Black's last
    # pawn, which promotes. Both sides are pawn-less; it is White's turn, so White loses.
    g = game("4r2k/8/8/8/8/8/3p4/K3P3 b - - 0 1")
    assert g.play("dxe1=Q") == "dxe1=Q"
    assert g.result is not None
    assert (g.result.winner, g.result.reason) == ("black", "no pawns left")


def test_a_promotion_that_captures_the_king_wins() -> None:
    g = game("4r2k/8/8/8/8/8/3p4/P3K3 b - - 0 1")
    g.play("dxe1=Q")
    assert g.result is not None
    assert (g.result.winner, g.result.reason) == ("black", "king captured")


def test_a_side_with_no_legal_move_loses() -> None:
    # White's King a1 and pawns a2, b2, b1 are walled in by black pieces that
    # no White piece attacks, so no pawn may take them.
    g = game("7k/7p/8/8/8/nbn5/PPr5/KPq5 w - - 0 1")
    assert g.result is not None
    assert (g.result.winner, g.result.reason) == ("black", "no legal move")
    assert g.legal_moves() == []


def test_the_loss_test_waits_for_the_losers_turn() -> None:
    # White promotes its last pawn. Black still has a pawn, so Black plays on;
    # White, pawn-less, loses only when its own turn comes.
    g = game("7k/p2P4/8/8/8/8/8/4K3 w - - 0 1")
    assert g.play("d8=Q") == "d8=Q"
    assert g.result is None
    g.play("a6")
    assert g.result is not None
    assert (g.result.winner, g.result.reason) == ("black", "no pawns left")


def test_fifty_moves_without_capture_or_pawn_move_draw() -> None:
    g = game("4k3/p7/8/8/8/8/P7/4K2N w - - 99 80")
    assert g.result is None
    g.play("Ng3")
    assert g.result is not None
    assert (g.result.winner, g.result.reason) == (None, "fifty-move rule")


def test_threefold_repetition_draws() -> None:
    g = game("4k1n1/p7/8/8/8/8/P7/4K1N1 w - - 0 1")
    for _ in range(2):
        for m in ("Nf3", "Nf6", "Ng1", "Ng8"):
            assert g.result is None
            g.play(m)
    assert g.result is not None and g.result.reason == "threefold repetition"
