"""Memory per live game: our ``Game`` against a python-chess ``Board`` with the same moves.

    python benchmarks/memory.py [--plies 40] [--games 200] [--reps 5]

Not a test (issue 12: a live game of 40 plies <= 2x a python-chess Board). python-chess
is a bench-only oracle.

- **Ours.** ``variants.replay(record)`` of seeded random games of ``--plies`` actions,
  kept alive, as the service keeps a live game: every variant, and ``fide`` (Tquarchess
  with the Tquarcs' entry lapsed, which is FIDE chess) playing the baseline's games.
- **The baseline.** ``chess.Board()`` with the same FIDE games pushed (its move stack and
  the states ``pop`` needs), kept alive.
- **How.** ``tracemalloc`` counts the bytes still allocated after building ``--games``
  games and holding them, divided by the number of games. One game of each case is built
  first and kept, so that what every game shares (our compiled tables, interned pieces and
  moves; python-chess's own caches) is not counted per game. Ours and the baseline are
  measured one after the other in each repetition (alternating order); the figure is the
  median over ``--reps`` repetitions. Also printed: the same at ply 0 (a new game).
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import sys
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import chess

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import variants  # noqa: E402
from variants.tquarchess import FIDE_EXTRAS  # noqa: E402


def fide_games(count: int, plies: int) -> list[list[str]]:
    out = []
    for n in range(count):
        rng = random.Random(f"memory-{n}")
        board = chess.Board()
        sans: list[str] = []
        while len(sans) < plies and not board.is_game_over():
            move = rng.choice(list(board.legal_moves))
            sans.append(board.san(move))
            board.push(move)
        out.append(sans)
    return out


def per_game(build: Callable[[int], Any], count: int) -> float:
    """Bytes held per game by ``count`` games built by ``build(i)``."""
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    held = [build(i) for i in range(count)]
    gc.collect()
    after = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    del held
    return (after - before) / count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plies", type=int, default=40)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--reps", type=int, default=5)
    args = parser.parse_args()
    games = fide_games(args.games, args.plies)
    start = f"{chess.STARTING_FEN} {FIDE_EXTRAS}"

    def fide_record(sans: list[str]) -> str:
        game = variants.from_fen("tquarchess", start, seed=0)
        for san in sans:
            game.play(san)
        return game.record()

    def board(i: int, plies: int | None = None) -> chess.Board:
        b = chess.Board()
        for san in games[i][:plies]:
            b.push_san(san)
        return b

    cases: dict[str, list[str]] = {"fide": [fide_record(g) for g in games]}
    for key in variants.names():
        cases[key] = [
            variants.random_playout(key, args.plies, f"memory-{key}-{n}").record()
            for n in range(args.games)
        ]
    keep = [variants.replay(records[0]) for records in cases.values()]  # shared tables built
    keep.append(board(0))
    ours: dict[str, list[float]] = {name: [] for name in cases}
    theirs: list[float] = []
    zero_ours: list[float] = []
    zero_theirs: list[float] = []
    for rep in range(args.reps):
        steps: list[Callable[[], None]] = [
            lambda: theirs.append(per_game(board, args.games)),
            lambda: zero_theirs.append(per_game(lambda i: chess.Board(), args.games)),
            lambda: zero_ours.append(
                per_game(lambda i: variants.from_fen("tquarchess", start, seed=0), args.games)
            ),
        ]
        for name, records in cases.items():
            steps.append(
                lambda records=records, name=name: ours[name].append(  # type: ignore[misc]
                    per_game(lambda i: variants.replay(records[i]), args.games)
                )
            )
        if rep % 2:
            steps.reverse()
        for step in steps:
            step()
    base = statistics.median(theirs)
    plies = sum(len(g) for g in games) / len(games)
    print(f"memory per live game, {args.games} games, {args.reps} repetitions (median)")
    print(f"python-chess Board with {plies:.0f} plies: {base / 1024:.1f} KiB")
    print(f"{'case':<13} {'KiB/game':>9} {'ratio':>6}")
    ratios = []
    for name in cases:
        b = statistics.median(ours[name])
        ratios.append(b / base)
        print(f"{name:<13} {b / 1024:>9.1f} {b / base:>6.2f}")
    z_ours, z_theirs = statistics.median(zero_ours), statistics.median(zero_theirs)
    print(
        f"ply 0 (fide): ours {z_ours / 1024:.1f} KiB, python-chess {z_theirs / 1024:.1f} KiB, "
        f"ratio {z_ours / z_theirs:.2f}"
    )
    print(
        f"median of per-case ratios at {args.plies} plies: {statistics.median(ratios):.2f}x "
        f"(worst {max(ratios):.2f}x); target <= 2x"
    )
    del keep


if __name__ == "__main__":
    main()
