"""Guardener Chess (RULES.md section 1): the seed's Diagram 2 game, every die
value and every special rule. Positions are diagrams (rank 9 at the top, files
w a b c d e f g h z, '*' a hole, '.' empty); expectations are sets of moves."""

from __future__ import annotations

import random

import pytest

import variants
from variants.game import Game
from variants.guardener import BOARD, START, TERRACES

START_FEN = f"{START} w KQkq - 0 1 - -"


def diagram(text: str, extras: str = "w - - 0 1") -> str:
    """A FEN from a ten-by-ten diagram plus the remaining FEN fields."""
    rows = [line.split() for line in text.strip().splitlines()]
    assert len(rows) == 10 and all(len(r) == 10 for r in rows), "ten ranks of ten squares"
    fen_rows = []
    for row in rows:
        out, empty = "", 0
        for cell in row:
            if cell == ".":
                empty += 1
                continue
            if empty:
                out, empty = out + str(empty), 0
            out += cell
        fen_rows.append(out + (str(empty) if empty else ""))
    return "/".join(fen_rows) + " " + extras


def game_at(fen: str, rolls: list[int] | None = None) -> Game:
    return variants.from_fen("guardener", fen, rolls=rolls or [])


def moves(fen: str) -> set[str]:
    return set(game_at(fen).legal_moves())


def destinations(game: Game, square: str) -> set[str]:
    """Where the piece on ``square`` may go by an ordinary move (no teleports)."""
    rules = game.rules
    return {
        rules.name(m.to)
        for m, _ in game.legal_actions()
        if m.frm >= 0 and rules.name(m.frm) == square and m.flag != "teleport"
    }


# ----- the board -------------------------------------------------------------


def test_board_has_eighty_squares_and_four_terraces() -> None:
    assert len(BOARD.squares) == 80 and len(BOARD.holes) == 20
    terrace_squares = {s for names in TERRACES.values() for s in names}
    assert all(BOARD.is_square_name(s) for s in terrace_squares)
    assert not any(BOARD.is_square_name(s) for s in ("w2", "w7", "b0", "g9", "z1", "z8"))
    assert TERRACES[2] == ("w3", "w4", "w5", "w6") and TERRACES[3] == ("z3", "z4", "z5", "z6")
    # a1 is dark; w=0, so w4 (0+4) is dark and z4 (9+4) light.
    assert BOARD.is_dark(BOARD.parse_square("a1")) and BOARD.is_dark(BOARD.parse_square("w4"))
    assert not BOARD.is_dark(BOARD.parse_square("z4"))
    zones = variants.rules("guardener").zones()
    assert {BOARD.square_name(s) for s in zones["T1"]} == {"c0", "d0", "e0", "f0"}


def test_start_fen_shows_the_double_start_guardener_on_both_squares() -> None:
    g = variants.new_game("guardener", rolls=[2, 3])
    assert g.fen() == START_FEN.replace(" - -", " 23 -")
    assert g.dice == (2, 3)
    assert g.rules.material(g.pos, 0).count("G") == 1


# ----- the seed's Diagram 2 game ------------------------------------------------

SEED_LINE = [
    ((1, 2), "d4"), ((2, 3), "Nf6"),
    ((3, 4), "c4"), ((3, 4), "g6"),
    ((2, 4), "Nc3"), ((3, 4), "d5"),
    ((2, 3), "Nf3"), ((3, 4), "Bg7"),
    ((3, 4), "Bg5"), ((4, 1), "O~O"),
    ((2, 2), "Qc2"), ((2, 3), "Nc6"),
    ((2, 3), "e4"), ((1, 3), "dxe4"),
    ((1, 3), "d5"), ((3, 4), "e5"),  # no [2] for White; Black waits for a [2] or [1]
    ((2, 3), "Gd2"), ((2, 4), "Ge7"),
]  # fmt: skip


def seed_game() -> Game:
    rolls = [v for dice, _ in SEED_LINE for v in dice] + [4, 4, 3, 3, 3, 4]
    g = variants.new_game("guardener", rolls=rolls)
    for dice, text in SEED_LINE:
        assert g.dice == dice
        g.play(text)
    return g


def test_seed_diagram_two_game_and_its_guardener_claims() -> None:
    g = seed_game()
    # "White's Gardener may Move/Capture to d0, d4, e3 & c1."
    assert destinations(g, "d2") == {"d0", "d4", "e3", "c1"}
    assert g.dice == (4, 4)
    assert g.play("reroll") == "reroll"
    assert g.dice == (3, 3)  # Double x2: teleport to T3
    legal = g.legal_moves()
    assert {"Nfz4 {T3}", "Ncz4 {T3}"} <= set(legal)  # disambiguated against the other knight
    for text in ("Nf3z4", "f3-z4", "Nfz4 { T3 }", "Nf3z4{T3}"):  # forgiving forms
        assert g.copy().play(text) == "Nfz4 {T3}"
    with pytest.raises(variants.AmbiguousMove):
        g.copy().play("Nz4")
    assert g.play("Nfz4 {T3}") == "Nfz4 {T3}"
    # "Black's Gardener may Move/Capture to e9 or d6."
    assert destinations(g, "e7") == {"e9", "d6"}
    record = g.record()
    assert (
        "1. [1 2] d4 [2 3] Nf6 2. [3 4] c4 [3 4] g6 3. [2 4] Nc3 [3 4] d5 4. [2 3] Nf3 [3 4] Bg7 "
        "5. [3 4] Bg5 [4 1] O-O 6. [2 2] Qc2 [2 3] Nc6 7. [2 3] e4 [1 3] dxe4 8. [1 3] d5 [3 4] e5 "
        "9. [2 3] Gd2 [2 4] Ge7 10. [4 4] reroll [3 3] Nfz4 {T3} [3 4]"
    ) in record
    again = variants.replay(record)
    assert again.record() == record and again.fen() == g.fen()
    assert again.legal_moves() == g.legal_moves()


def test_seed_line_moves_are_refused_without_their_dice() -> None:
    # 1...Nf6 needs a 2; 6. Qc2 needs a double; 8. d5 (past the centre) needs a 1.
    for index, dice in ((1, (1, 3)), (10, (1, 2)), (14, (2, 3))):
        rolls = [v for d, _ in SEED_LINE[:index] for v in d] + list(dice)
        g = variants.new_game("guardener", rolls=rolls)
        for _, text in SEED_LINE[:index]:
            g.play(text)
        with pytest.raises(variants.IllegalMove):
            g.play(SEED_LINE[index][1])


# ----- die values -----------------------------------------------------------------

DIE_ONE = """
* * * . . . . * * *
* k . . . . . . . *
* . . . . . . . . *
. . . . . . . . . .
. . p . p P . . . .
. . . P . . . . . .
. . . . . . . . . .
* . . . G . n . . *
* . . . . K . . . *
* * * . . . . * * *
"""


def test_die_one_lets_pawn_king_guardener_capture_and_pawns_pass_the_centre() -> None:
    added = moves(diagram(DIE_ONE, "w - - 0 1 12 -")) - moves(diagram(DIE_ONE, "w - - 0 1 23 -"))
    assert added == {"Kxf2", "Gxf2", "cxd5", "cxb5", "c5", "e6"}


DIE_TWO = """
* * * . . . . * * *
* . . . . k . . . *
* . . . . . . . . *
. . . . . . . . . .
. . . . . . . . . .
. . . . . . . . . .
. . . p . . . . . .
* . . . . . . . . *
* . N . . K . . . *
* * * . . . . * * *
"""


def test_die_two_moves_knights_and_they_land_on_terraces() -> None:
    added = moves(diagram(DIE_TWO, "w - - 0 1 23 -")) - moves(diagram(DIE_TWO, "w - - 0 1 13 -"))
    assert added == {"Na3", "Nxc3", "Nd2", "Nd0"}


DIE_THREE = """
* * * . . . . * * *
* . . . . k . . . *
* . . . . . . . . *
. . . . . . . . . .
. . . . . . . . . .
. . . . . . p . . .
. . . . . . . . . .
* . . . . . . . . *
* . . B . K . . . *
* * * . . . . * * *
"""


def test_die_three_moves_bishops_through_the_terraces() -> None:
    added = moves(diagram(DIE_THREE, "w - - 0 1 34 -")) - moves(
        diagram(DIE_THREE, "w - - 0 1 14 -")
    )
    assert added == {"Bb2", "Ba3", "Bw4", "Bd2", "Be3", "Bxf4", "Bd0"}


DIE_FOUR = """
* * * . . . . * * *
* r . . . k . . . *
* . . . . . . . . *
. . . . . . . . . .
. . . . . . . . . .
. . . . . . . . . .
. . . . . . . . . .
* . . . . . . . . *
* R . . . K . . R *
* * * . . . . * * *
"""


def test_die_four_moves_rooks_and_castles() -> None:
    fen = diagram(DIE_FOUR, "w KQ - 0 1 41 -")
    added = moves(fen) - moves(diagram(DIE_FOUR, "w KQ - 0 1 12 -"))
    rook = {f"Ra{r}" for r in range(2, 8)} | {"Rxa8", "Rb1", "Rc1", "Rd1"}
    rook |= {f"Rh{r}" for r in range(2, 9)} | {"Rg1", "Rf1"}
    assert added == rook | {"O-O", "O-O-O"}


def test_castling_on_a_four_moves_king_and_rook_as_in_fide() -> None:
    g = game_at(diagram(DIE_FOUR, "w KQ - 0 1 43 -"), rolls=[1, 2])
    assert g.play("O-O") == "O-O"
    assert g.fen().startswith("***4***/*r3k3*/") and "/*R4RK1*/" in g.fen()
    assert " kq " not in g.fen() and g.fen().split()[2] == "-"


def test_the_queen_moves_only_on_a_double_which_also_offers_a_reroll() -> None:
    fen = diagram(DIE_FOUR.replace("* R . . . K . . R *", "* . . . Q K . . . *"), "w - - 0 1 {} -")
    for a in range(1, 5):
        for b in range(1, 5):
            legal = moves(fen.format(f"{a}{b}"))
            has_queen = any(m.startswith("Q") for m in legal)
            assert has_queen == (a == b) and ("reroll" in legal) == (a == b)
            assert not any("{T" in m for m in legal)  # a first double never teleports


def test_free_moves_need_no_die() -> None:
    # [2 3]: knights may move; pawns up to the centre, King and Guardener need no die.
    white = moves(START_FEN.replace(" - -", " 23 -"))
    pawns = {f"{f}{r}" for f in "abcdefgh" for r in (3, 4)}
    assert white == pawns | {"Na3", "Nc3", "Nf3", "Nh3", "Gf0", "Gc0", "Kf0"}
    black = moves(START_FEN.replace(" w ", " b ").replace(" - -", " 14 -"))
    assert black == {f"{f}{r}" for f in "abcdefgh" for r in (6, 5)} | {"Gc9", "Gf9", "Kf9"}
    # A pawn on the centre line needs a 1 to go on: White d4-d5, Black e5-e4.
    assert "d5" not in moves(diagram(CENTRE, "w - - 0 1 23 -"))
    assert "d5" in moves(diagram(CENTRE, "w - - 0 1 13 -"))
    assert "e4" not in moves(diagram(CENTRE, "b - - 0 1 24 -"))
    assert "e4" in moves(diagram(CENTRE, "b - - 0 1 14 -"))


CENTRE = """
* * * . . . . * * *
* . . . . k . . . *
* . . . . . . . . *
. . . . . . . . . .
. . . . . p . . . .
. . . . P . . . . .
. . . . . . . . . .
* . . . . . . . . *
* . . . . K . . . *
* * * . . . . * * *
"""


# ----- re-roll, teleport, resurrection ----------------------------------------------


def test_reroll_chain_replaces_the_roll_each_time() -> None:
    g = variants.new_game("guardener", rolls=[2, 2, 4, 4, 1, 3, 2, 3])
    assert g.play("reroll") == "reroll" and g.turn == "white" and g.dice == (4, 4)
    # Double x2 of 4: teleport to T4 (c9, f9 are vacant; White pawns may not go there).
    teleports = {m for m in g.legal_moves() if "{T4}" in m}
    assert teleports and {m.split()[0][-2:] for m in teleports} == {"c9", "f9"}
    assert not any(m[0].islower() for m in teleports)
    g.play("reroll")
    assert g.dice == (1, 3)
    assert "reroll" not in g.legal_moves() and not any("{T" in m for m in g.legal_moves())
    assert set(g.legal_moves()) == moves(START_FEN.replace(" - -", " 13 -"))
    g.play("e4")
    assert "1. [2 2] reroll [4 4] reroll [1 3] e4 [2 3]" in g.record()
    assert variants.replay(g.record()).fen() == g.fen()


def test_teleport_goes_only_to_vacant_squares_of_the_terrace_and_never_captures() -> None:
    fen = diagram(
        """
        * * * . . . . * * *
        * . . . . k . . . *
        * . . . . . . . . *
        . . . . . . . . . .
        n . . . . . . . . .
        . . . . . . . . . .
        . . . . . . . . . .
        * . . . . . . . . *
        * . . . . K . . R *
        * * * . . . . * * *
        """,
        "w K - 0 1 22r -",
    )
    g = game_at(fen, rolls=[1, 2])
    teleports = {m for m in g.legal_moves() if "{T2}" in m and "@" not in m}
    rooks_and_king = {f"{p}{s} {{T2}}" for p in ("R", "K") for s in ("w3", "w4", "w6")}
    assert teleports == rooks_and_king  # w5 holds a black knight: no capture
    g.play("Kw3 {T2}")
    assert g.fen().split()[2] == "-"  # a teleported King has moved: no castling
    assert "/K9/" in g.fen()


def test_double_start_guardener_teleports_once_and_leaves_both_squares() -> None:
    g = variants.new_game("guardener", rolls=[1, 1, 3, 3, 2, 3])
    g.play("reroll")
    guardener = [m for m in g.legal_moves() if m.startswith("G") and "{T3}" in m]
    assert guardener == ["Gz3 {T3}", "Gz4 {T3}", "Gz5 {T3}", "Gz6 {T3}"]
    g.play("Gez4")  # forgiving: from either start square, {T3} left out
    assert g.fen().split()[0].endswith("/***4***") and "/9G/" in g.fen()


def test_resurrection_places_a_lost_guardener_on_a_vacant_terrace_square() -> None:
    position = """
        * * * . . . . * * *
        * . . . . k . . . *
        * . . . . . . . . *
        . . . . . . . . . .
        n . . . . . . . . .
        . . . . . . . . . .
        . . . . . . . . . .
        * . . . . . . . . *
        * . . . . K . . . *
        * * * . . . . * * *
        """
    g = game_at(diagram(position, "w - - 0 1 22r -"), rolls=[1, 2])
    assert {m for m in g.legal_moves() if "@" in m} == {"G@w3 {T2}", "G@w4 {T2}", "G@w6 {T2}"}
    assert g.play("G@w6") == "G@w6 {T2}"
    assert g.fen().split()[0].startswith("***4***/*4k3*/*8*/G9/n9/")
    # Only one Guardener on the board: no resurrection while one stands anywhere.
    with_g = diagram(position.replace("* . . . . K", "* . . . G K"), "w - - 0 1 22r -")
    assert not any("@" in m for m in moves(with_g))
    # And no resurrection without a Double x2.
    assert not any("@" in m for m in moves(diagram(position, "w - - 0 1 22 -")))


def test_pawns_may_not_teleport_behind_their_own_promotion_rank() -> None:
    position = """
        * * * . . . . * * *
        * . . . . k . . . *
        * . . . p . . . . *
        . . . . . . . . . .
        . . . . . . . . . .
        . . . . . . . . . .
        . . . . . . . . . .
        * . . . P . . . . *
        * . . . . K . . . *
        * * * . . . . * * *
        """
    white_t4 = moves(diagram(position, "w - - 0 1 44r -"))
    assert "Kc9 {T4}" in white_t4 and not any(m.startswith("d") and "{T4}" in m for m in white_t4)
    white_t1 = moves(diagram(position, "w - - 0 1 11r -"))
    assert {"dc0 {T1}", "d0 {T1}", "de0 {T1}", "df0 {T1}"} <= white_t1
    black_t1 = moves(diagram(position, "b - - 0 1 11r -"))
    assert "Kc0 {T1}" in black_t1 and not any(m.startswith("d") and "{T1}" in m for m in black_t1)
    assert "dc9 {T4}" in moves(diagram(position, "b - - 0 1 44r -"))


# ----- pass, the plank, stalemate, the end -------------------------------------------

PLANK = """
* * * . . . . * * *
* . r . . . . . k *
* . . . . . . . . *
. . . . . . . . . .
. . . . . . . . . .
. . . . . . . . . .
. . . . . . . . . .
* . . . . . . . r *
* K . . . . . . . *
* * * . . . . * * *
"""


def test_pass_only_when_every_move_is_a_king_move_onto_an_attacked_square() -> None:
    g = game_at(diagram(PLANK, "w - - 0 1 23 -"), rolls=[1, 2])
    assert set(g.legal_moves()) == {"Ka2", "Kb1", "Kb2", "pass"}
    assert g.play("pass") == "pass" and g.turn == "black"
    assert g.fen().split()[-1] == "w"
    # A King move onto a safe square is not the plank: no pass.
    safe = PLANK.replace("* . . . . . . . r *", "* . . . . . . . . *")
    assert "pass" not in moves(diagram(safe, "w - - 0 1 23 -"))
    # Nor with a free pawn move.
    pawn = PLANK.replace("* K . . . . . . . *", "* K . . . P . . . *")
    assert "pass" not in moves(diagram(pawn, "w - - 0 1 23 -"))


def test_with_the_pass_spent_the_player_walks_the_plank() -> None:
    g = game_at(diagram(PLANK, "w - - 0 1 23 wb"), rolls=[1, 2])
    assert set(g.legal_moves()) == {"Ka2", "Kb1", "Kb2"}
    g.play("Kb1")
    assert g.result is None and g.turn == "black"


BOXED = """
* * * . . . . * * *
* . . . . . . . k *
* . . . . . . . . *
. . . . . . . . . .
. . . . . . . . . .
. . . . . . . . . .
. p p p . . . . . .
* P P P . . . . . *
* K B . . . . . . *
* * * . . . . * * *
"""


def test_no_legal_move_offers_the_pass_and_without_it_is_a_drawn_stalemate() -> None:
    assert moves(diagram(BOXED, "w - - 0 1 24 -")) == {"pass"}
    g = game_at(diagram(BOXED, "w - - 0 1 24 w"))
    assert g.result is not None and g.result.winner is None and g.result.reason == "stalemate"
    # The dice decide: a 1 lets the pawns capture, so the same board is no stalemate.
    assert game_at(diagram(BOXED, "w - - 0 1 14 w")).result is None


def test_capturing_the_king_wins() -> None:
    g = game_at(diagram(DIE_FOUR, "w - - 0 1 42 -"), rolls=[2, 3])
    g.play("Rxa8")
    g2 = game_at(diagram(DIE_FOUR.replace("* r . . . k", "* k . . . ."), "w - - 0 1 42 -"))
    g2.play("Rxa8")
    assert g.result is None
    assert g2.result is not None and g2.result.winner == "white"
    assert g2.result.reason == "king captured"


# ----- promotion, en passant, the double start ------------------------------------------

PROMOTION = """
* * * . . . . * * *
* k . . r . . . . *
* . . . . P . . . *
. . . . . . . . . .
. . . . . . . . . .
. . . . . . . . . .
. . . . . . . . . .
* . . . . . . . . *
* R N B Q K B N R *
* * * . . . . * * *
"""


def test_promotion_only_to_a_lost_type_and_never_without_one() -> None:
    legal = moves(diagram(PROMOTION, "w - - 0 1 12 -"))
    assert not any(m.startswith(("e8", "exd8")) for m in legal)
    one_knight = moves(diagram(PROMOTION.replace("B N R *", "B . R *"), "w - - 0 1 12 -"))
    assert {m for m in one_knight if m.startswith("e")} == {"e8=N", "exd8=N"}
    no_queen = PROMOTION.replace("B N R *", "B . R *").replace("B Q K", "B . K")
    assert {m for m in moves(diagram(no_queen, "w - - 0 1 12 -")) if m.startswith("e")} == {
        "e8=Q",
        "e8=N",
        "exd8=Q",
        "exd8=N",
    }
    # Promotion is a move past the centre: it needs a 1 (or a double).
    assert not any(m.startswith("e") for m in moves(diagram(no_queen, "w - - 0 1 23 -")))


EN_PASSANT = """
* * * . . . . * * *
* . . . . k . . . *
* . . . . . . . . *
. . . . . . . . . .
. . . . p P . . . .
. . . . . . . . . .
. . . . . . . . . .
* . . . . . . . . *
* . . . . K . . . *
* * * . . . . * * *
"""


def test_en_passant_needs_a_one() -> None:
    assert "exd6" not in moves(diagram(EN_PASSANT, "w - d6 0 1 23 -"))
    g = game_at(diagram(EN_PASSANT, "w - d6 0 1 13 -"), rolls=[2, 3])
    assert g.play("exd6") == "exd6"
    assert "/*8*/4P5/10/10/" in g.fen()


def test_guardener_leaves_from_either_start_square() -> None:
    g = variants.new_game("guardener", rolls=[2, 3, 2, 3])
    assert destinations(g, "d0") == {"f0"} and destinations(g, "e0") == {"c0"}
    g.play("Gc0")
    assert g.fen().split()[0].endswith("/***G3***")


DOUBLE_START = """
* * * . . . . * * *
* . . . . k . . . *
* . . . . . . . . *
. . . . . . . . . .
K . . . . . . . . .
. . . . . . . . . .
. . . . . . . . . .
* . . n . . n . . *
* . . . . . . . . *
* * * . X X . * * *
"""


@pytest.mark.parametrize("capture", ["Nxe0", "Nxd0"])
def test_capturing_either_start_square_takes_the_double_start_guardener(capture: str) -> None:
    fen = diagram(DOUBLE_START, "b - - 0 1 23 -").replace("XX", "G(2)G(2)")
    g = game_at(fen, rolls=[2, 3])
    assert {"Nxe0", "Nxd0"} <= set(g.legal_moves())
    g.play(capture)
    assert g.fen().split()[0].endswith("/***" + ("1n2" if capture == "Nxd0" else "2n1") + "***")
    assert g.captured == [(0, "G")]


def test_fen_round_trips_and_rejects_a_half_double_start() -> None:
    for fen in (
        START_FEN.replace(" - -", " 23 -"),
        START_FEN.replace(" - -", " 33r b"),
        diagram(PLANK, "w - - 7 31 23 wb"),
        diagram(EN_PASSANT, "w - d6 0 1 13 -"),
    ):
        assert game_at(fen).fen() == fen
    with pytest.raises(ValueError):
        variants.from_fen("guardener", START_FEN.replace("G(2)G(2)1***", "G(2)2***"))


@pytest.mark.parametrize("seed", range(12))
def test_random_games_replay_and_round_trip(seed: int) -> None:
    rng = random.Random(seed)
    g = variants.new_game("guardener", seed=seed)
    for _ in range(120):
        if g.result is not None:
            break
        legal = g.legal_moves()
        text = rng.choice(legal)
        recorded = g.play(text)
        assert recorded.split(" [")[0] == text
        assert variants.from_fen("guardener", g.fen()).fen() == g.fen()
    again = variants.replay(g.record())
    assert again.record() == g.record() and again.fen() == g.fen()
