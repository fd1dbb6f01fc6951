"""``variants.describe``: every position in words (contract C1).

Every dice state of Guardener, Tquarchess and Jepps Random, and the basics of
the other two. Each test pins the words a player reads: the headline, what the
dice allow, what is pending and the short form for the image's status strip.
"""

from __future__ import annotations

import pytest

import variants
from variants import Status, describe
from variants.status import SHORT_LIMIT

# ----- Guardener (FEN placement runs rank 9 down to rank 0, files w..z) -------------

G_START = (
    "***1g(2)g(2)1***/*rnbqkbnr*/*pppppppp*/10/10/10/10/*PPPPPPPP*/*RNBQKBNR*/***1G(2)G(2)1***"
)
# Castling is open on both wings; nothing else stands on the back ranks.
G_CASTLE = "***1g(2)g(2)1***/*r3k2r*/*pppppppp*/10/10/10/10/*PPPPPPPP*/*R3K2R*/***1G(2)G(2)1***"
# White's Guardener is lost (none on the board); Black's stands on d9/e9.
G_NO_GUARDENER = "***1g(2)g(2)1***/*rnbqkbnr*/*pppppppp*/10/10/10/10/*PPPPPPPP*/*RNBQKBNR*/***4***"
# White's only piece is the King on a1; the Rooks on b8 and h2 attack every square it can reach.
G_PLANK = "***4***/*1r5k*/*8*/10/10/10/10/*7r*/*K7*/***4***"


def guardener(placement: str, fields: str) -> variants.Game:
    return variants.from_fen("guardener", f"{placement} {fields}", rolls=[])


def test_guardener_two_values_name_the_pieces() -> None:
    s = describe(guardener(G_START, "w KQkq - 0 1 24 -"))
    assert s == Status(
        actor="white",
        phase="play",
        dice=(2, 4),
        dice_sides=4,
        allows="Knight or Rook may move or capture",
        pending="",
        check=False,
        headline="White to move [2 4]: Knight or Rook may move or capture",
        short="Knight or Rook",
        lines=s.lines,
    )
    assert s.lines[0] == s.headline
    assert "2 = a Knight may move or capture" in s.lines[1]
    assert "4 = a Rook may move or capture, or the King may castle" in s.lines[1]
    assert any(line.startswith("Free moves") for line in s.lines)
    assert any("both d0 and e0" in line for line in s.lines)
    assert s.lines[-1] == "There is no check in Guardener Chess: capturing the King wins."


def test_guardener_a_one_lets_pawn_king_and_guardener_capture() -> None:
    s = describe(guardener(G_START, "b KQkq - 0 1 13 -"))
    assert s.actor == "black"
    assert s.allows == (
        "Bishop may move or capture; pawn, King or Guardener may capture, pawns may cross the centre"
    )
    # the strip's caption in words, not "Bishop · P/K/G capture" (issue 27)
    assert s.short == "Bishop, or a capture by a pawn, King or Guardener"


def test_guardener_a_four_with_castling_open_says_so() -> None:
    s = describe(guardener(G_CASTLE, "w KQkq - 0 1 14 -"))
    assert s.allows.endswith("; the King may castle")
    assert s.short == "Rook or castling, or a capture by a pawn, King or Guardener"
    # A 4 without a legal castling does not promise one.
    assert "castle" not in describe(guardener(G_START, "w KQkq - 0 1 14 -")).allows


def test_guardener_double_allows_any_piece_and_a_reroll() -> None:
    s = describe(guardener(G_START, "w KQkq - 0 1 33 -"))
    assert s.allows == "any piece may move or capture, the Queen too; re-roll available"
    assert s.short == "Double: any piece · re-roll"
    assert s.pending == ""
    assert any(line.startswith("Re-roll:") for line in s.lines)


def test_guardener_double_x2_offers_the_teleport() -> None:
    s = describe(guardener(G_START, "w KQkq - 0 1 33r -"))
    assert s.pending == "Double x2: teleport to T3"
    assert s.allows == (
        "any piece may move or capture, the Queen too; or teleport one piece to T3; "
        "re-roll available"
    )
    assert s.short == "Double x2 · teleport T3 · re-roll"
    assert any("(z3, z4, z5, z6)" in line for line in s.lines)
    assert s.lines[1] == "Double x2: teleport to T3."


def test_guardener_double_x2_with_the_guardener_lost_offers_resurrection() -> None:
    s = describe(guardener(G_NO_GUARDENER, "w KQkq - 0 1 11r -"))
    assert s.pending == "Double x2: teleport to T1 or resurrect the Guardener"
    assert "or resurrect the Guardener there" in s.allows
    assert any("G@c0 {T1}" in line for line in s.lines)


def test_guardener_a_rerolled_non_double_applies_its_two_values_only() -> None:
    s = describe(guardener(G_START, "w KQkq - 0 1 23r -"))
    assert s.allows == "Knight or Bishop may move or capture"
    assert "This roll came from a re-roll: only its two values apply." in s.lines


def test_guardener_pass_and_walking_the_plank() -> None:
    s = describe(guardener(G_PLANK, "w - - 0 1 23 -"))
    assert s.allows.endswith("; you may pass") and s.short.endswith("· pass")
    spent = describe(guardener(G_PLANK, "w - - 0 1 23 wb"))
    assert spent.allows.endswith("; walk the plank")
    assert any(line.startswith("Walk the plank") for line in spent.lines)


def test_guardener_game_over() -> None:
    g = guardener("***4***/*k7*/*8*/10/10/10/10/*8*/*R3K3*/***4***", "w - - 0 1 14 -")
    g.play("Rxa8")
    s = describe(g)
    assert s.actor is None and s.phase == "over" and s.check is False
    assert s.headline == "Game over: White wins (king captured)"
    assert s.short == "White wins · king captured"
    assert s.dice == g.dice


# ----- Tquarchess ------------------------------------------------------------------------

TQ_START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
TELEPORT = "rnbqkbnr/p1pppppp/3t(1)4/8/8/5T(3)2/PPPPPPPP/RNBQKBNR w KQkq - 0 1 - -/- - b 0"


def tquarchess(fen: str, rolls: list[int] | None = None) -> variants.Game:
    return variants.from_fen("tquarchess", fen, rolls=rolls or [])


def test_tquarchess_before_entry_no_die_shows() -> None:
    s = describe(tquarchess(TQ_START))
    assert (s.dice, s.dice_sides, s.phase) == (None, 0, "play")
    assert s.allows == "the Tquarc may enter (or roll first)"
    assert s.headline == "White to move: the Tquarc may enter (or roll first)"
    assert s.short == "entry · roll"
    assert any("e.g. Nc3/T" in line or "e.g. Na3/T" in line for line in s.lines)
    assert "White's Tquarc waits to enter." in s.lines


def test_tquarchess_after_the_entry_roll_the_value_is_pending() -> None:
    g = tquarchess(TQ_START, rolls=[3])
    g.play("roll")
    s = describe(g)
    assert (s.dice, s.dice_sides) == ((3,), 4)
    assert s.headline == "White to move [3]: enter the Tquarc with value 3, or make any other move"
    assert s.pending == "Tquarc entry with value 3: it would teleport to Tquad 3 (b5-d7)"
    assert s.short == "enter with it, or move"


def test_tquarchess_teleport_right_after_the_enemy_tquarc_moved() -> None:
    s = describe(tquarchess(TELEPORT))
    assert s.pending == (
        "Teleport: the enemy Tquarc just moved, so yours may leap to Tquad 3 (b5-d7)"
    )
    assert "the Tquarc may teleport to Tquad 3" in s.allows
    assert "teleport to Tquad 3" in s.short
    assert "White's Tquarc stands on f3 showing 3 (it would teleport to Tquad 3)." in s.lines
    assert "Black's Tquarc stands on d6 showing 1 (it would teleport to Tquad 1)." in s.lines


def test_tquarchess_lost_tquarc_two_square_king_and_resurrection() -> None:
    s = describe(tquarchess("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1 t -/- - - 0"))
    assert "the King may slide two squares (once)" in s.allows
    assert "the Tquarc may be resurrected" in s.allows
    assert any(line.startswith("Two-square King") for line in s.lines)
    assert any("possible now on b8" in line for line in s.lines)
    assert "White's Tquarc is captured." in s.lines


def test_tquarchess_lapsed_entry_and_check() -> None:
    s = describe(tquarchess("4k3/8/8/8/8/8/8/r3K3 w - - 0 1 Tt -/- - - 0"))
    assert s.check is True
    assert s.headline == "White to move, in check"
    assert s.short == "White to move · check"
    assert "White's King is in check: the move must end the check." in s.lines
    assert "White's Tquarc can no longer enter." in s.lines


def test_tquarchess_checkmate_is_over() -> None:
    g = tquarchess(TQ_START + " Tt -/- - - 0")
    for m in ("f3", "e5", "g4", "Qh4#"):
        g.play(m)
    s = describe(g)
    assert (s.actor, s.phase, s.headline) == (None, "over", "Game over: Black wins (checkmate)")
    assert s.short == "Black wins · checkmate"


# ----- Jepps Random ----------------------------------------------------------------------

# White: a1 (2,4) N or R; b1 (3,5) B or Q; c1 (1,2) K or N; d1 (3,5) B or Q, but d1
# is light like b1; e1 (4,6); then g1 is forced for the Bishop, f1 (2,4), h1 forced.
WHITE_ROLLS = [2, 4, 3, 5, 1, 2, 3, 5, 4, 6, 2, 4]
WHITE_CHOICES = ["Na1", "Bb1", "Kc1", "Qd1", "Re1", "Nf1"]


def jepps(rolls: list[int], choices: list[str] | None = None, **options: bool) -> variants.Game:
    g = variants.new_game("jepps_random", rolls=rolls, options=dict(options))
    for c in choices or []:
        g.play(c)
    return g


def test_jepps_placement_offers_the_two_pieces_shown() -> None:
    s = describe(jepps([2, 4]))
    assert (s.actor, s.phase, s.dice, s.dice_sides) == ("white", "setup", (2, 4), 6)
    assert s.headline == "White to place a piece on a1 [2 4]: Knight or Rook on a1"
    assert s.short == "Knight or Rook on a1"
    assert "Setup dice [2 4]: 2 = Knight; 4 = Rook." in s.lines
    assert "Still to place: K, Q, R, R, B, B, N, N." in s.lines


def test_jepps_a_double_may_be_rerolled() -> None:
    s = describe(jepps([4, 4]))
    assert s.allows == "Rook on a1; re-roll available"
    assert s.short == "Rook on a1 · re-roll"


def test_jepps_a_six_is_a_free_choice() -> None:
    s = describe(jepps([6, 1]))
    assert s.allows == "King, Queen, Rook, Bishop or Knight on a1"
    assert "A 6 is a free choice of any piece still to place." in s.lines


def test_jepps_bishop_colour_and_stock_are_explained() -> None:
    s = describe(jepps(WHITE_ROLLS, WHITE_CHOICES[:3]))
    assert s.allows == "Queen on d1"
    assert (
        "A Bishop may not go on d1: the Bishops must stand on opposite colours, and d1 is "
        "light like the Bishop on b1."
    ) in s.lines
    after_king = describe(jepps([1, 2, 1, 2], ["Ka1"]))
    assert "The dice also offer a King, but none is left to place." in after_king.lines


def test_jepps_forced_placements_are_reported() -> None:
    s = describe(jepps(WHITE_ROLLS, WHITE_CHOICES[:5]))
    assert s.headline.startswith("White to place a piece on f1 [2 4]")
    assert "Placed by itself (forced): Bg1." in s.lines


def test_jepps_mediator_both_even_mirror() -> None:
    s = describe(jepps(WHITE_ROLLS + [2, 4], WHITE_CHOICES))
    assert (s.actor, s.phase, s.dice) == ("black", "setup", (2, 4))
    assert s.headline == (
        "Black to answer the mediator roll [2 4]: both even: Black mirrors White file by file"
    )
    assert s.short == "Mirror"


def test_jepps_mediator_both_odd_reverse() -> None:
    s = describe(jepps(WHITE_ROLLS + [1, 3], WHITE_CHOICES))
    assert s.allows == "both odd: Black reverses White's order (a<->h)"
    assert s.short == "Reverse"


def test_jepps_mediator_double_may_be_rerolled() -> None:
    s = describe(jepps(WHITE_ROLLS + [2, 2], WHITE_CHOICES))
    assert s.allows.endswith("; a double: Black may re-roll")
    assert s.short == "Mirror · re-roll"
    assert "A double: Black may accept it (Mirror) or roll again (reroll)." in s.lines


def test_jepps_mediator_mixed_black_randomizes() -> None:
    s = describe(jepps(WHITE_ROLLS + [1, 2, 5, 3], WHITE_CHOICES))
    assert s.headline == "Black to place a piece on a8 [5 3]: Queen or Bishop on a8"
    # the dice it showed and what they decided, not "the mediator dice were mixed" (issue 27)
    assert (
        "Mediator roll [1 2]: one odd and one even, so Black sets up with the dice, from a8 "
        "to h8, instead of copying White's rank."
    ) in s.lines
    assert not any("were mixed" in line for line in s.lines)


def test_jepps_free_play_alternates() -> None:
    s = describe(jepps([2, 4, 1, 4], ["Na1"], free_play=True))
    assert s.headline == "Black to place a piece on h8 [1 4]: King or Rook on h8"
    assert any(line.startswith("Free Play:") for line in s.lines)


def test_jepps_play_phase_relocation() -> None:
    g = variants.from_fen("jepps_random", "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w - - 0 1 Kk")
    s = describe(g)
    assert (s.phase, s.dice, s.dice_sides) == ("play", None, 0)
    assert s.allows == "the King may relocate (Kc1, Kg1)"
    assert "There is no castling in Jepps Random Chess." in s.lines
    # Why not, when it cannot: the rank full, in check, or the squares attacked.
    full = describe(variants.from_fen("jepps_random", "rnbqkbnr/8/8/8/8/8/8/RNBQKBNR w - - 0 1 Kk"))
    assert (
        "Your King may still relocate once, but no home-rank square of its colour is vacant now."
        in full.lines
    )
    check = describe(variants.from_fen("jepps_random", "4k3/8/8/8/8/8/8/R3K2r w - - 0 1 Kk"))
    assert "Your King may still relocate once, but not out of check." in check.lines
    watched = describe(variants.from_fen("jepps_random", "2r1kr2/8/8/8/8/8/8/R3K2R w - - 0 1 Kk"))
    assert (
        "Your King may still relocate once, but not now: each vacant home-rank square of its "
        "colour is attacked, or an empty square on the way is."
    ) in watched.lines


# ----- King's Guard and Stone Garden --------------------------------------------------------


def test_kings_guard_names_the_assisted_captures() -> None:
    start = describe(variants.new_game("kings_guard", seed=1))
    assert start.headline == "White to move" and start.short == "White to move"
    assert "No capture is possible now." in start.lines
    g = variants.from_fen("kings_guard", "4k3/8/8/3p4/4P3/8/8/3QK3 w - - 0 1")
    s = describe(g)
    assert s.allows == "a pawn may capture"
    assert "Captures possible now: exd5." in s.lines


def test_stone_garden_raven_turning_and_check() -> None:
    start = describe(variants.new_game("stone_garden", seed=1))
    assert start.headline == "White to move"
    assert (
        "Your Raven on b1 faces N; she may turn in 5 more moves (no Raven may turn during her "
        "side's first 5 moves)."
    ) in start.lines
    ready = describe(
        variants.from_fen("stone_garden", "4k3/8/8/8/3R(N)4/8/8/4K3 w - - 0 10 5/5 2/2 0/0")
    )
    assert ready.allows == "a Raven may turn" and ready.short == "Raven may turn"
    check = describe(variants.from_fen("stone_garden", "4k3/8/8/8/8/3h4/8/4K3 w - - 0 10"))
    assert check.check is True and check.headline == "White to move, in check"
    # Her time has come, but in check no turn of hers is legal: the words do not offer one.
    game = variants.from_fen("stone_garden", "4k3/8/8/8/3R(N)4/3h4/8/4K3 w - - 0 10 5/5 2/2 0/0")
    assert not any("^" in text for text in game.legal_moves())
    checked = describe(game)
    assert checked.check and checked.allows == "" and "Raven" not in checked.headline
    assert (
        "Your Raven on d4 faces N; she could turn, but no turn of hers leaves your King safe now."
    ) in checked.lines


@pytest.mark.parametrize("key", variants.names())
def test_every_short_form_fits_the_strip(key: str) -> None:
    for seed in range(6):
        g = variants.new_game(key, seed=seed)
        for _ in range(40):
            s = describe(g)
            assert len(s.short) <= SHORT_LIMIT, s.short
            assert s.lines[0] == s.headline
            assert s.dice == g.dice
            if g.is_over:
                assert s.actor is None and s.phase == "over"
                break
            assert s.actor == g.turn
            g.play(g.legal_moves()[seed % len(g.legal_moves())])
