"""Replay speed: rebuilding a stored game, per ply, against python-chess ``push_san``.

    python benchmarks/replay.py [--plies 80] [--games 4] [--reps 5] [--baseline-ref GIT_REF]

Not a test (issue 12: per ply <= 3x python-chess). python-chess is a bench-only oracle.

- **Ours.** ``variants.replay(record)``: the record read, every action parsed from its
  text and played with its rolls, as the service rebuilds a game from its log. Cases:
  every variant (seeded random games of up to ``--plies`` actions, the record as the
  game wrote it), and ``fide`` (Tquarchess with the Tquarcs' entry lapsed, which is FIDE
  chess) replaying exactly the baseline's games.
- **The baseline.** ``chess.Board()`` then ``push_san`` of each move of seeded random
  FIDE games of the same length (the same games as ``fide``). With ``--baseline-ref
  GIT_REF`` the baseline is our own ``variants`` package as that commit has it instead
  (``baseline.py``: taken out of git and imported beside the current one), replaying
  the very records of each case: is the current code slower than it?
- **Interleaving.** For each repetition and each case, ours and the baseline run one
  after the other (alternating order between repetitions); ``--reps`` repetitions.
- **Figures.** Per case: our median wall time per ply, the baseline's median wall time
  per ply (measured in the same repetitions) and the ratio (ours / baseline: lower is
  better), and the same ratio by CPU time (``process_time``), which load from other
  processes disturbs less. Overall: the median and the worst of the per-case ratios.
"""

from __future__ import annotations

import argparse
import random
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

START = chess.STARTING_FEN


def fide_games(count: int, plies: int) -> list[list[str]]:
    """Seeded random FIDE games of up to ``plies`` moves, as SAN lists."""
    out = []
    for n in range(count):
        rng = random.Random(f"fide-{n}")
        board = chess.Board()
        sans = []
        while len(sans) < plies and not board.is_game_over():
            move = rng.choice(list(board.legal_moves))
            sans.append(board.san(move))
            board.push(move)
        out.append(sans)
    return out


def fide_record(sans: list[str]) -> str:
    game = variants.from_fen("tquarchess", f"{START} {FIDE_EXTRAS}", seed=0)
    for san in sans:
        game.play(san)
    return game.record()


def variant_records(key: str, count: int, plies: int) -> list[str]:
    return [variants.random_playout(key, plies, f"replay-{key}-{n}").record() for n in range(count)]


def plies_of(record: str) -> int:
    return len(variants.replay(record).history)


def time_replays(package: ModuleType, records: list[str]) -> tuple[float, float]:
    """(wall, CPU) seconds to replay every record with one version of ``variants``."""
    start, cpu = time.perf_counter(), time.process_time()
    for record in records:
        package.replay(record)
    return time.perf_counter() - start, time.process_time() - cpu


def replayer(package: ModuleType, records: list[str]) -> Callable[[], tuple[float, float]]:
    return lambda: time_replays(package, records)


def time_ours(records: list[str]) -> tuple[float, float]:
    return time_replays(variants, records)


def time_theirs(games: list[list[str]]) -> tuple[float, float]:
    start, cpu = time.perf_counter(), time.process_time()
    for sans in games:
        board = chess.Board()
        for san in sans:
            board.push_san(san)
    return time.perf_counter() - start, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plies", type=int, default=80, help="actions per game (at most)")
    parser.add_argument("--games", type=int, default=4, help="games per case")
    parser.add_argument("--reps", type=int, default=5, help="repetitions (default 5)")
    parser.add_argument(
        "--baseline-ref",
        metavar="GIT_REF",
        help="compare with our own variants package at this commit instead of python-chess",
    )
    args = parser.parse_args()
    baseline = fide_games(args.games, args.plies)
    cases: dict[str, list[str]] = {"fide": [fide_record(g) for g in baseline]}
    for key in variants.names():
        cases[key] = variant_records(key, args.games, args.plies)
    plies = {name: sum(plies_of(r) for r in records) for name, records in cases.items()}
    # The baseline's run of each case and its plies: python-chess's games, or the same
    # records replayed by the older package.
    label = "python-chess push_san"
    theirs_of: dict[str, Callable[[], tuple[float, float]]] = {
        name: lambda: time_theirs(baseline) for name in cases
    }
    theirs_plies = {name: sum(len(g) for g in baseline) for name in cases}
    if args.baseline_ref:
        from baseline import load_variants

        package, commit = load_variants(args.baseline_ref)
        label = f"{args.baseline_ref} ({commit[:10]})"
        theirs_of = {name: replayer(package, records) for name, records in cases.items()}
        theirs_plies = plies
        for name, records in cases.items():  # both versions rebuild the same games
            for record in records:
                assert package.replay(record).fen() == variants.replay(record).fen(), name
    for name, records in cases.items():  # untimed: tables built, as in a running bot
        time_ours(records)
        theirs_of[name]()
    ours: dict[str, list[tuple[float, float]]] = {name: [] for name in cases}
    theirs: dict[str, list[tuple[float, float]]] = {name: [] for name in cases}
    for rep in range(args.reps):
        for name, records in cases.items():
            runs: list[Callable[[], None]] = [
                lambda: ours[name].append(time_ours(records)),  # noqa: B023
                lambda: theirs[name].append(theirs_of[name]()),  # noqa: B023
            ]
            if rep % 2:
                runs.reverse()
            for run in runs:  # called at once, inside this iteration
                run()
    print(f"replay per ply, {args.reps} repetitions, interleaved; ratio = ours / {label}")
    print(
        f"{'case':<13} {'plies':>6} {'ours us/ply':>12} {'base us/ply':>15} {'ratio':>6}"
        f" {'cpu ratio':>9}"
    )
    ratios = []
    cpu_ratios = []
    for name in cases:
        a = statistics.median(t for t, _ in ours[name]) / plies[name]
        b = statistics.median(t for t, _ in theirs[name]) / theirs_plies[name]
        ca = statistics.median(c for _, c in ours[name]) / plies[name]
        cb = statistics.median(c for _, c in theirs[name]) / theirs_plies[name]
        ratios.append(a / b)
        cpu_ratios.append(ca / cb)
        print(
            f"{name:<13} {plies[name]:>6} {a * 1e6:>12.1f} {b * 1e6:>15.1f} {a / b:>6.2f}"
            f" {ca / cb:>9.2f}"
        )
    print(
        f"median of per-case ratios: {statistics.median(ratios):.2f}x "
        f"(worst {max(ratios):.2f}x); target {'<= 1.0x' if args.baseline_ref else '<= 3x'}"
    )
    print(
        f"the same by CPU time (steadier on a loaded machine): "
        f"{statistics.median(cpu_ratios):.2f}x (worst {max(cpu_ratios):.2f}x)"
    )


if __name__ == "__main__":
    main()
