"""Board-rendering benchmark: Chess Garden against python-chess + cairosvg.

    python benchmarks/render.py [--runs N] [--size PX]

For every variant it renders the start position and a busy random midgame at
800 px (median of N runs after a warm-up render), and in the same run times
python-chess's ``chess.svg.board`` plus ``cairosvg.svg2png`` on the standard start
position, interleaving the runs so that load on the machine hits both alike.
It prints the medians, the ratio of each to the baseline, and the bytes.

Target (issue 4): at most 0.10x the baseline's time per board and at most a third
of its bytes. The baseline needs the test extra (``pip install -e '.[test]'``).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import variants  # noqa: E402
from renderers import render_png  # noqa: E402
from renderers.board import board_art  # noqa: E402

TIME_TARGET = 0.10
BYTES_TARGET = 1 / 3


def busy_midgame(key: str, seed: int = 7, plies: int = 40) -> variants.Game:
    """A random game ``plies`` actions in (past any setup), keeping most pieces on."""
    return variants.random_playout(key, plies + (20 if key == "jepps_random" else 0), seed)


def baseline(size: int) -> Callable[[], bytes]:
    import cairosvg  # type: ignore[import-untyped]
    import chess
    import chess.svg

    board = chess.Board()

    def run() -> bytes:
        svg = chess.svg.board(board, size=size)
        png: bytes = cairosvg.svg2png(bytestring=svg.encode())
        return png

    return run


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--size", type=int, default=800)
    args = ap.parse_args(argv)

    jobs: dict[str, Callable[[], bytes]] = {"python-chess start": baseline(args.size)}
    games: dict[str, variants.Game] = {}
    for key in variants.names():
        games[f"{key} start"] = variants.new_game(key, seed=7)
        games[f"{key} midgame"] = busy_midgame(key)
    for name, game in games.items():
        jobs[name] = lambda g=game: render_png(g, size=args.size)
    # Interleaved: every run times each job once, so a busy machine slows all alike.
    size_of = {name: len(fn()) for name, fn in jobs.items()}  # warm-up
    times: dict[str, list[float]] = {name: [] for name in jobs}
    for _ in range(args.runs):
        for name, fn in jobs.items():
            t = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - t)
    ms = {name: statistics.median(ts) * 1000 for name, ts in times.items()}
    base_ms, base_bytes = ms.pop("python-chess start"), size_of.pop("python-chess start")
    print(f"python-chess svg + cairosvg, start, {args.size}px: {base_ms:7.2f} ms {base_bytes:7d} B")
    print(f"{'board':26} {'ms':>7} {'x time':>7} {'bytes':>7} {'x bytes':>8} {'cold ms':>8}")
    worst_t = worst_b = 0.0
    for name, game in games.items():
        # cold: the board layers cached, but no square tile, strip or bar drawn yet
        art = board_art(game.rules, "classic", args.size, bool(game.pos.turn))
        art.tiles.clear()
        art.panels.clear()
        t = time.perf_counter()
        render_png(game, size=args.size)
        cold = (time.perf_counter() - t) * 1000
        rt, rb = ms[name] / base_ms, size_of[name] / base_bytes
        worst_t, worst_b = max(worst_t, rt), max(worst_b, rb)
        print(f"{name:26} {ms[name]:7.2f} {rt:7.3f} {size_of[name]:7d} {rb:8.3f} {cold:8.2f}")
    ok_t = "ok" if worst_t <= TIME_TARGET else "MISSED"
    ok_b = "ok" if worst_b <= BYTES_TARGET else "MISSED"
    print(
        f"worst time ratio {worst_t:.3f} (target {TIME_TARGET}: {ok_t}); "
        f"worst bytes ratio {worst_b:.3f} (target {BYTES_TARGET:.3f}: {ok_b})"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
