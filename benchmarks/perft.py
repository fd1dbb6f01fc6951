"""Perft speed: our engine against python-chess on the same FIDE positions.

    python benchmarks/perft.py [--reps 5] [--quick] [--baseline-ref GIT_REF]

Not a test (issue 12: median of the per-position ratios >= 1.0x). python-chess is GPL
and only ever imported by tests and benchmarks (the test extra).

- **Ours.** Tquarchess with both Tquarcs' entry lapsed (``FIDE_EXTRAS``), which plays
  exactly as FIDE chess, through ``variants.perft`` (the engine's own make and legal
  move list, as the AI search uses them: C10).
- **The baseline.** python-chess push/pop down to depth 1, where the legal moves are
  counted in bulk (``len(list(board.legal_moves))``): the same counting as ours.
  With ``--baseline-ref GIT_REF`` the baseline is our own ``variants`` package as that
  commit has it instead (``baseline.py``: taken out of git and imported beside the
  current one), counting the same way as ours: is the current code slower than it?
- **The positions.** Eight: the start, Kiwipete, chessprogramming.org positions 3, 4
  and 5, and three middlegames (CPW position 6 and two opening positions). Both sides'
  counts are checked equal (and against the published count where there is one).
- **Interleaving.** For each repetition and each position, ours and the baseline run
  one after the other (the order alternates between repetitions), so that load on the
  machine hits both alike. ``--reps`` repetitions (5 by default).
- **Figures.** Per position: the baseline's median wall time divided by ours (above 1:
  we are faster), with both medians in nodes per second, and the same ratio by CPU time
  (``process_time``), which load from other processes disturbs less. Overall: the
  median of the per-position ratios (not weighted by nodes), and the lowest.
"""

from __future__ import annotations

import argparse
import importlib
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import chess

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import variants  # noqa: E402
from variants.tquarchess import FIDE_EXTRAS  # noqa: E402

# (name, FEN, depth, published count or None)
POSITIONS = [
    ("start", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 4, 197281),
    ("kiwipete", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 3, 97862),
    ("position 3", "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 4, 43238),
    ("position 4", "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", 3, 9467),
    ("position 5", "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8", 3, 62379),
    (
        "middlegame 1",
        "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
        3,
        89890,
    ),
    (
        "middlegame 2",
        "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
        3,
        None,
    ),
    (
        "middlegame 3",
        "2r2rk1/pp1bqppp/2nppn2/8/3NP3/2N1BP2/PPPQ2PP/2KR1B1R w - - 0 12",
        3,
        None,
    ),
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


Run = Callable[[str, int], tuple[int, float, float]]


def runner(package: ModuleType, extras: str) -> Run:
    """Perft by one version of our ``variants`` package: (nodes, wall, CPU seconds)."""

    def run(fen: str, depth: int) -> tuple[int, float, float]:
        game = package.from_fen("tquarchess", f"{fen} {extras}", seed=0)
        start, cpu = time.perf_counter(), time.process_time()
        nodes = package.perft(game, depth)
        return nodes, time.perf_counter() - start, time.process_time() - cpu

    return run


ours = runner(variants, FIDE_EXTRAS)


def python_chess(fen: str, depth: int) -> tuple[int, float, float]:
    board = chess.Board(fen)
    start, cpu = time.perf_counter(), time.process_time()
    nodes = python_chess_perft(board, depth)
    return nodes, time.perf_counter() - start, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=5, help="repetitions (default 5)")
    parser.add_argument("--quick", action="store_true", help="one depth less everywhere")
    parser.add_argument(
        "--baseline-ref",
        metavar="GIT_REF",
        help="compare with our own variants package at this commit instead of python-chess",
    )
    args = parser.parse_args()
    theirs: Run = python_chess
    label = "python-chess"
    if args.baseline_ref:
        from baseline import NAME, load_variants

        package, commit = load_variants(args.baseline_ref)
        extras = importlib.import_module(f"{NAME}.tquarchess").FIDE_EXTRAS
        theirs = runner(package, extras)
        label = f"{args.baseline_ref} ({commit[:10]})"
    cases = [(n, f, d - 1 if args.quick else d, e) for n, f, d, e in POSITIONS]
    times: dict[str, tuple[list[float], list[float]]] = {n: ([], []) for n, *_ in cases}
    cpu: dict[str, tuple[list[float], list[float]]] = {n: ([], []) for n, *_ in cases}
    counts: dict[str, int] = {}
    # A first, untimed pass builds our tables (as a running bot has them) and checks counts.
    for name, fen, depth, expected in cases:
        a, *_ = ours(fen, depth)
        b, *_ = theirs(fen, depth)
        assert a == b, (name, a, b)
        assert args.quick or expected is None or a == expected, (name, a, expected)
        counts[name] = a
    for rep in range(args.reps):
        for name, fen, depth, _ in cases:
            runs = (ours, theirs) if rep % 2 == 0 else (theirs, ours)
            for run in runs:
                _, t, c = run(fen, depth)
                times[name][0 if run is ours else 1].append(t)
                cpu[name][0 if run is ours else 1].append(c)
    print(f"perft, {args.reps} repetitions, interleaved; ratio = {label} time / ours")
    print(
        f"{'position':<13} {'depth':>5} {'nodes':>7} {'ours n/s':>10} {'base n/s':>12}"
        f" {'ratio':>6} {'cpu ratio':>9}"
    )
    ratios = []
    cpu_ratios = []
    for name, _, depth, _ in cases:
        t_ours = statistics.median(times[name][0])
        t_theirs = statistics.median(times[name][1])
        ratio = t_theirs / t_ours
        ratios.append(ratio)
        cpu_ratio = statistics.median(cpu[name][1]) / statistics.median(cpu[name][0])
        cpu_ratios.append(cpu_ratio)
        n = counts[name]
        print(
            f"{name:<13} {depth:>5} {n:>7} {n / t_ours:>10,.0f} {n / t_theirs:>12,.0f}"
            f" {ratio:>6.2f} {cpu_ratio:>9.2f}"
        )
    print(
        f"median of per-position ratios: {statistics.median(ratios):.2f}x "
        f"(lowest {min(ratios):.2f}x); target >= 1.0x"
    )
    print(
        f"the same by CPU time (steadier on a loaded machine): "
        f"{statistics.median(cpu_ratios):.2f}x (lowest {min(cpu_ratios):.2f}x)"
    )


if __name__ == "__main__":
    main()
