"""Board-image benchmark: Chess Garden's ``render_png`` against python-chess + cairosvg.

    python benchmarks/render.py [--positions N] [--step K] [--reps R] [--size PX]

Not a test. The baseline needs the test extra (``pip install -e '.[test]'``).

What it measures (issue 12: board PNG bytes <= 0.3x and time <= 0.10x of the baseline,
for every variant and every position):

- **The positions.** For each variant, a sequence of ``N`` positions from seeded random
  games (``variants.random_playout``'s method: the same seed drives the dice and the
  choices), every ``K``-th ply, in game order. When a game ends its final position is
  included and the next seed's game follows, so the sequence holds openings,
  middlegames, finished games and, for Jepps Random, setup steps.
- **Ours.** ``render_png(game, size=PX)`` as the bot calls it (facing the side to move).
  ``renderers.warm(variant)`` is called once before the first repetition, as the bot
  does at start-up, and its cost is printed. Before each repetition every cache that
  depends on a position (drawn squares, strips, bars, encoded bands) is dropped, so each
  position is rendered for the first time in that repetition: nothing is reused from an
  earlier render of the same position. Within a repetition the sequence runs in game
  order, as the bot renders a game ply after ply.
- **The baseline.** For each position, ``chess.svg.board`` + ``cairosvg.svg2png`` at the
  same pixel width, of the FIDE board with the same placement: the pieces on files a-h,
  ranks 1-8 (Guardener pieces on the terraces, files w/z and ranks 0/9, are left out,
  which only makes the baseline cheaper), the same orientation, the last move (when both
  its squares are on that board) and the King in check. python-chess draws only FIDE
  pieces, so every other kind is drawn as the FIDE piece it moves most like:
  ``BASELINE_KIND`` below. (The previous benchmark compared every board against the
  FIDE start position, whose 32 pieces made the baseline larger than most real
  positions: that flattered us on bytes.)
- **Interleaving.** Each position is rendered by ours and then by the baseline, one
  after the other, so load on the machine hits both alike; ``R`` repetitions, with the
  order of the two alternating between repetitions.
- **Figures.** Per position: the median time of ours over the repetitions divided by the
  median time of the baseline; bytes divided by the baseline's bytes (both are the same
  every repetition). Per variant: the median times and bytes of each, and the median and
  worst per-position ratios. Overall: the median and worst of all per-position ratios.
  Also printed, for information: the time of ours with the encoded-band cache dropped
  before every render ("no reuse": as if no position of the game had been drawn before),
  and the first render of each variant without ``warm``.
"""

from __future__ import annotations

import argparse
import functools
import gc
import random
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import variants  # noqa: E402
from renderers import board as board_module  # noqa: E402
from renderers import render_png  # noqa: E402

TIME_TARGET = 0.10
BYTES_TARGET = 0.30

# The FIDE piece each of our kinds is drawn as in the baseline (the one it moves most like).
BASELINE_KIND = {
    "K": "k",
    "Q": "q",
    "R": "r",
    "B": "b",
    "N": "n",
    "P": "p",
    "G": "b",  # Guardener: diagonal steps and orthogonal two-leaps, colour-bound
    "T": "b",  # Tquarc: a colour-bound leaper
    "H": "n",  # Horse: a forward knight
    "O": "r",  # Ox: orthogonal
    "I": "b",  # Index: the Ox turned 45 degrees
    "PO": "q",  # Policeman: long paths in every direction
    "RA": "n",  # Raven: short leaps
}


@dataclass
class Case:
    variant: str
    index: int
    game: variants.Game
    svg_args: dict[str, object]  # the baseline's chess.svg.board arguments
    ours: list[float]
    ours_no_reuse: list[float]
    base: list[float]
    ours_bytes: int = 0
    base_bytes: int = 0

    @property
    def time_ratio(self) -> float:
        return statistics.median(self.ours) / statistics.median(self.base)

    @property
    def bytes_ratio(self) -> float:
        return self.ours_bytes / self.base_bytes


def positions(key: str, count: int, step: int, seed: int) -> list[variants.Game]:
    """``count`` positions of seeded random games, every ``step``-th ply, in game order."""
    out: list[variants.Game] = []
    while len(out) < count:
        rng = random.Random(seed)
        game = variants.new_game(key, seed=seed)
        out.append(game.copy())
        ply = 0
        while game.result is None and len(out) < count:
            game.play(rng.choice(game.legal_moves()))
            ply += 1
            if ply % step == 0 or game.result is not None:
                out.append(game.copy())
        seed += 1
    return out


def svg_args(game: variants.Game, size: int) -> dict[str, object]:
    import chess

    g = game.rules.geometry
    board = chess.Board(None)
    core: dict[int, int] = {}  # our square -> python-chess square
    for s in g.squares:
        f, r = g.files[g.file_of(s)], g.rank_label(s)
        if f in "abcdefgh" and 1 <= int(r) <= 8:
            core[s] = chess.square("abcdefgh".index(f), int(r) - 1)
    for s, p in enumerate(game.pos.board):
        if p is not None and s in core:
            symbol = BASELINE_KIND.get(p.kind, "q")
            board.set_piece_at(core[s], chess.Piece.from_symbol(symbol.upper() if p.color == 0 else symbol))
    args: dict[str, object] = {
        "size": size,
        "orientation": chess.WHITE if game.pos.turn == 0 else chess.BLACK,
    }
    last = board_module.last_board_move(game)
    if last is not None and last.frm in core and last.to in core:
        args["lastmove"] = chess.Move(core[last.frm], core[last.to])
    king = game.checked_king()
    if king in core:
        args["check"] = core[king]
    args["board"] = board
    return args


def baseline(args: dict[str, object]) -> bytes:
    import cairosvg  # type: ignore[import-untyped]
    import chess.svg

    kwargs = dict(args)
    board = kwargs.pop("board")
    svg = chess.svg.board(board, **kwargs)  # type: ignore[arg-type]
    png: bytes = cairosvg.svg2png(bytestring=svg.encode())
    return png


def timed(fn: Callable[[], bytes]) -> tuple[float, bytes]:
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", type=int, default=200, help="positions per variant")
    ap.add_argument("--step", type=int, default=2, help="plies between positions")
    ap.add_argument("--reps", type=int, default=3, help="repetitions of the whole sequence")
    ap.add_argument("--size", type=int, default=800, help="image width in pixels")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    size = args.size

    keys = variants.names()
    # The first render of each variant with nothing cached, before warm().
    first: dict[str, float] = {}
    for key in keys:
        game = variants.new_game(key, seed=args.seed)
        first[key], _ = timed(functools.partial(render_png, game, size=size))
    board_module.clear_caches()
    warm_ms: dict[str, float] = {}
    for key in keys:
        t = time.perf_counter()
        board_module.warm(key, size=size)
        warm_ms[key] = (time.perf_counter() - t) * 1000

    cases: list[Case] = []
    for key in keys:
        for i, game in enumerate(positions(key, args.positions, args.step, args.seed)):
            cases.append(Case(key, i, game, svg_args(game, size), [], [], []))
    baseline(cases[0].svg_args)  # imports and first-call costs out of the timings

    # Positions of all variants interleaved, in game order within each variant, as a
    # bot serving games of every variant would render them.
    order = sorted(cases, key=lambda c: (c.index, keys.index(c.variant)))
    gc.collect()
    for rep in range(args.reps):
        board_module.drop_position_caches()
        for case in order:

            def ours(c: Case = case) -> bytes:
                return render_png(c.game, size=size)

            def base(c: Case = case) -> bytes:
                return baseline(c.svg_args)

            if rep % 2 == 0:
                t_ours, png = timed(ours)
                t_base, ref = timed(base)
            else:
                t_base, ref = timed(base)
                t_ours, png = timed(ours)
            case.ours.append(t_ours)
            case.base.append(t_base)
            case.ours_bytes, case.base_bytes = len(png), len(ref)
        # no reuse: the band cache dropped before each render (tiles stay warm)
        for case in order:
            board_module.drop_position_caches()
            case.ours_no_reuse.append(timed(functools.partial(render_png, case.game, size=size))[0])

    _report(cases, keys, warm_ms, first, args)
    return 0


def _report(
    cases: list[Case],
    keys: tuple[str, ...],
    warm_ms: dict[str, float],
    first: dict[str, float],
    args: argparse.Namespace,
) -> None:
    ms = 1000.0
    print(
        f"{len(cases)} positions ({args.positions} per variant, every {args.step} plies), "
        f"{args.reps} repetitions, {args.size} px wide"
    )
    print(
        "baseline: python-chess chess.svg.board + cairosvg.svg2png of the same placement "
        "(see the module docstring)"
    )
    head = (
        f"{'variant':13} {'ours ms':>8} {'base ms':>8} {'t med':>6} {'t worst':>7} "
        f"{'ours B':>7} {'base B':>7} {'B med':>6} {'B worst':>7} {'no-reuse':>8} "
        f"{'warm ms':>8} {'1st ms':>7}"
    )
    print(head)
    for key in keys:
        cs = [c for c in cases if c.variant == key]
        tr = [c.time_ratio for c in cs]
        br = [c.bytes_ratio for c in cs]
        nr = statistics.median(
            statistics.median(c.ours_no_reuse) / statistics.median(c.base) for c in cs
        )
        print(
            f"{key:13} {statistics.median(t for c in cs for t in c.ours) * ms:8.2f} "
            f"{statistics.median(t for c in cs for t in c.base) * ms:8.2f} "
            f"{statistics.median(tr):6.3f} {max(tr):7.3f} "
            f"{statistics.median(c.ours_bytes for c in cs):7.0f} "
            f"{statistics.median(c.base_bytes for c in cs):7.0f} "
            f"{statistics.median(br):6.3f} {max(br):7.3f} {nr:8.3f} "
            f"{warm_ms[key]:8.1f} {first[key] * ms:7.1f}"
        )
    tr = [c.time_ratio for c in cases]
    br = [c.bytes_ratio for c in cases]
    nrs = [statistics.median(c.ours_no_reuse) / statistics.median(c.base) for c in cases]
    worst_t = max(cases, key=lambda c: c.time_ratio)
    worst_b = max(cases, key=lambda c: c.bytes_ratio)
    over_t = sum(1 for r in tr if r > TIME_TARGET)
    over_b = sum(1 for r in br if r > BYTES_TARGET)
    print(
        f"time ratio: median {statistics.median(tr):.3f}, worst {max(tr):.3f} "
        f"({worst_t.variant} #{worst_t.index}), {over_t} of {len(tr)} over {TIME_TARGET}: "
        f"median {'ok' if statistics.median(tr) <= TIME_TARGET else 'MISSED'}, "
        f"every position {'ok' if over_t == 0 else 'MISSED'}"
    )
    print(
        f"bytes ratio: median {statistics.median(br):.3f}, worst {max(br):.3f} "
        f"({worst_b.variant} #{worst_b.index}), {over_b} of {len(br)} over {BYTES_TARGET}: "
        f"every position {'ok' if over_b == 0 else 'MISSED'}"
    )
    print(
        f"no-reuse time ratio (information): median {statistics.median(nrs):.3f}, "
        f"worst {max(nrs):.3f}"
    )
    print(f"warm() total {sum(warm_ms.values()):.0f} ms for {len(keys)} variants at {args.size} px")


if __name__ == "__main__":
    raise SystemExit(main())
