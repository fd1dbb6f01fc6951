"""Perft speed: our engine against python-chess on the same FIDE positions.

Not a test. Run: ``.venv/bin/python benchmarks/perft.py [--quick]``.

Our side is Tquarchess with both Tquarcs' entry lapsed (``FIDE_EXTRAS``), which
plays exactly as FIDE chess. Both sides count legal move sequences the same
way: make/unmake (python-chess push/pop) down to depth 1, where the legal
moves are counted in bulk (``len(list(board.legal_moves))`` for python-chess).
python-chess is GPL and only ever imported by tests and this benchmark.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import chess

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import variants  # noqa: E402
from variants.tquarchess import FIDE_EXTRAS  # noqa: E402

POSITIONS = [
    ("start", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 4, 197281),
    ("kiwipete", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 3, 97862),
    ("position 3", "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 4, 43238),
    ("position 4", "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", 3, 9467),
]


def python_chess_perft(board: chess.Board, depth: int) -> int:
    if depth == 1:
        return len(list(board.legal_moves))
    nodes = 0
    for move in board.legal_moves:
        board.push(move)
        nodes += python_chess_perft(board, depth - 1)
        board.pop()
    return nodes


def timed(fn: object, *args: object) -> tuple[int, float]:
    start = time.perf_counter()
    nodes = fn(*args)  # type: ignore[operator]
    return nodes, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one depth less everywhere")
    args = parser.parse_args()
    print(
        f"{'position':<12} {'depth':>5} {'nodes':>8} {'ours n/s':>11} {'p-chess n/s':>12} {'ratio':>6}"
    )
    total_ours = total_theirs = 0.0
    total_nodes = 0
    for name, fen, depth, expected in POSITIONS:
        if args.quick:
            depth -= 1
        game = variants.from_fen("tquarchess", f"{fen} {FIDE_EXTRAS}", seed=0)
        ours, t_ours = timed(variants.perft, game, depth)
        theirs, t_theirs = timed(python_chess_perft, chess.Board(fen), depth)
        assert ours == theirs, (name, ours, theirs)
        assert args.quick or ours == expected, (name, ours, expected)
        total_ours += t_ours
        total_theirs += t_theirs
        total_nodes += ours
        print(
            f"{name:<12} {depth:>5} {ours:>8} {ours / t_ours:>11,.0f} {theirs / t_theirs:>12,.0f}"
            f" {t_theirs / t_ours:>6.2f}"
        )
    print(
        f"{'all':<12} {'':>5} {total_nodes:>8} {total_nodes / total_ours:>11,.0f}"
        f" {total_nodes / total_theirs:>12,.0f} {total_theirs / total_ours:>6.2f}"
    )
    print("ratio = our speed / python-chess speed (target >= 0.5)")


if __name__ == "__main__":
    main()
