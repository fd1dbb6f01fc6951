"""Perft tables for the standard FIDE test positions.

They run through Tquarchess with both Tquarcs' entry lapsed (``FIDE_EXTRAS``):
no Tquarc can enter, be resurrected or lend the King its two-square step, so
the game is FIDE chess exactly. Published counts: chessprogramming.org/Perft_Results.
"""

from __future__ import annotations

import pytest

import variants
from variants.tquarchess import FIDE_EXTRAS

START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
POSITION_3 = "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1"
POSITION_4 = "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1"
POSITION_4_MIRRORED = "r2q1rk1/pP1p2pp/Q4n2/bbp1p3/Np6/1B3NBn/pPPP1PPP/R3K2R b KQ - 0 1"
POSITION_5 = "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8"

TABLE = [
    (START, (20, 400, 8902, 197281)),
    (KIWIPETE, (48, 2039, 97862)),
    (POSITION_3, (14, 191, 2812, 43238)),
    (POSITION_4, (6, 264, 9467)),
    (POSITION_4_MIRRORED, (6, 264, 9467)),
    (POSITION_5, (44, 1486, 62379)),
]


def fide_game(fen: str) -> variants.Game:
    return variants.from_fen("tquarchess", f"{fen} {FIDE_EXTRAS}", seed=0)


@pytest.mark.parametrize(
    ("fen", "depth", "nodes"),
    [(fen, d, n) for fen, counts in TABLE for d, n in enumerate(counts, start=1)],
)
def test_fide_perft(fen: str, depth: int, nodes: int) -> None:
    assert variants.perft(fide_game(fen), depth) == nodes


def test_fide_extras_leave_no_tquarc_action() -> None:
    game = fide_game(START)
    assert not [m for m in game.legal_moves() if "T" in m or m.startswith("roll")]
    assert game.fen() == f"{START} {FIDE_EXTRAS}"


def test_perft_counts_gating_and_the_roll() -> None:
    # From the real Tquarchess start the four knight moves can also gate, and the
    # entry-attempt roll is an action of its own: 20 + 4 + 1.
    game = variants.from_fen("tquarchess", START, seed=0)
    assert variants.perft(game, 1) == 25
    assert variants.perft(game, 0) == 1


def test_perft_of_a_finished_game_is_zero() -> None:
    mated = fide_game("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3")
    assert mated.result is not None and mated.result.reason == "checkmate"
    assert variants.perft(mated, 1) == 0
    assert variants.perft(mated, 0) == 1
