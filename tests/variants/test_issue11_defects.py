"""Issue 11's record and notation defects, each on the exact position or sequence
the issue gives (numbered as in the issue)."""

from __future__ import annotations

import variants

# ----- 4. Tquarchess: an entering Tquarc can block a check or a pin ------------------


def test_4_an_entry_may_block_a_pin() -> None:
    # The Knight on b1 shields the King from the Rook on a1; the Tquarc entering on
    # b1 takes over the shield, so the Knight may leave.
    g = variants.from_fen("tquarchess", "4k3/8/8/8/8/8/8/rN2K3 w - - 0 1 Tt b/- - - 0", rolls=[2])
    legal = g.legal_moves()
    assert "Nc3/T%" in legal and "Nd2/T%" in legal and "Na3/T%" in legal
    assert "Nc3" not in legal  # without the entry the Knight stays pinned
    assert "roll%" in legal
    assert g.play("Nc3/T") == "Nc3/T%2"
    assert g.fen().split()[0] == "4k3/8/8/8/8/2N5/8/rT(2)2K3"


def test_4_an_entry_may_block_a_check() -> None:
    # The Rook on h1 checks along the first rank: Kd1 alone stays in check, but the
    # Tquarc entering on e1 as the King leaves blocks it.
    g = variants.from_fen("tquarchess", "4k3/8/8/8/8/8/8/4K2r w - - 0 1 Tt e/- - - 0", rolls=[3])
    legal = g.legal_moves()
    assert "Kd1/T%" in legal and "Kd1" not in legal
    assert g.play("Kd1/T") == "Kd1/T%3"
    assert not g.rules.in_check(g.pos, 0)


# ----- 5. Guardener: the double step belongs to a pawn that has not yet moved ------------

LONE_PAWN = "***4***/*4k3*/*8*/10/10/10/10/*2P5*/*4K3*/***4***"


def test_5_a_pawn_back_on_its_start_square_has_no_double_step() -> None:
    # Double x2 of 1s: the c-pawn teleports to c0 (T1), then walks back c1, c2.
    rolls = [1, 2] * 6
    g = variants.from_fen("guardener", f"{LONE_PAWN} w - - 0 1 11r -", rolls=rolls)
    assert {"c3", "c4"} <= set(g.legal_moves())
    assert g.play("c0 {T1}") == "c0 {T1}"
    for black, white in (("Kd8", "c1"), ("Ke8", "c2")):
        g.play(black)
        assert g.play(white) == white
    g.play("Kd8")
    pawn_moves = {m for m in g.legal_moves() if m.startswith("c")}
    assert pawn_moves == {"c3"}  # no c4: this pawn has moved
    # The position state says so, and the FEN keeps it (documented in guardener.py).
    assert g.fen().split()[-1] == "c2"
    again = variants.from_fen("guardener", g.fen(), rolls=[])
    assert again.fen() == g.fen()
    assert {m for m in again.legal_moves() if m.startswith("c")} == {"c3"}
    assert variants.replay(g.record()).fen() == g.fen()


def test_5_an_unmoved_pawn_keeps_its_double_step() -> None:
    g = variants.from_fen("guardener", f"{LONE_PAWN} w - - 0 1 23 -", rolls=[])
    assert {"c3", "c4"} <= set(g.legal_moves())
    assert len(g.fen().split()) == 8  # no moved pawns: the field is left out


# ----- 6. Stone Garden: the Raven turning limit counts per Raven ---------------------------


def test_6_two_ravens_of_one_side_may_turn_on_consecutive_moves() -> None:
    g = variants.from_fen("stone_garden", "4k3/8/8/8/3R(N)4/8/R(N)7/4K3 w - - 0 10 5/5 - 0/0")
    g.play("Rd4^E")
    g.play("Kf8")
    assert "Ra2^E" in g.legal_moves()  # a different Raven: free to turn
    assert not [m for m in g.legal_moves() if m.startswith("Rd4^")]  # this one turned
    g.play("Ra2^E")
    g.play("Ke8")
    assert not [m for m in g.legal_moves() if "^" in m]
    g.play("Kf1")
    g.play("Kf8")
    # Three moves after her turn the first Raven may turn again; the second not yet.
    turns = {m for m in g.legal_moves() if "^" in m}
    assert turns and all(m.startswith(("Rd4^", "Rc4^", "Re4^", "Rd5^", "Rd3^")) for m in turns)
    assert g.fen().split()[7] == "a2:1"
