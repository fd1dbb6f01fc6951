"""Board-image benchmark: Chess Garden's ``render_png`` against python-chess + cairosvg.

    python benchmarks/render.py [--positions N] [--step K] [--reps R] [--size PX]
    python benchmarks/render.py --startup [--runs N]

Not a test. The baseline needs the test extra (``pip install -e '.[test]'``).

``--startup`` measures instead the first drawings after a restart (issue 12): in fresh
processes, what the service's ``_warm_drawing`` draws (for each variant
``variants.new_game(key, seed=0)``, then ``render_board`` white and black and
``render_dice`` of its dice, through ``bot.service.live``), in CPU time; goal: the
drawing <= 100 ms in all. Printed apart: importing ``renderers`` (Pillow included) and
``new_game`` (the engine's start-up, not the renderer's). Three kinds of fresh process,
interleaved, ``N`` of each: **restart** (the render cache on disk, ``renderers/prebuilt.py``,
holds what an earlier process kept: the bot restarting), **first start** (an empty
render cache: the first start after a deployment, which draws and writes everything),
and **no cache** (``CHESSGARDEN_RENDER_CACHE=off``). Each child is a new interpreter with
compiled bytecode available (a priming run writes it under a temporary
``PYTHONPYCACHEPREFIX``), as an installed bot has; the render cache is a temporary
directory, never the user's.

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


# ----- --startup: the first drawings of a fresh process ---------------------------------

STARTUP_GOAL_MS = 100.0

# Run in each fresh process: what bot/service/core.py ``_warm_drawing`` draws, timed.
STARTUP_CHILD = r"""
import json, sys, time
sys.path.insert(0, sys.argv[1])
import variants                  # the service has loaded the engine
from bot.service import live     # and itself (it imports renderers only when drawing)
c0 = time.process_time()
import renderers
c1 = time.process_time()
new_game = wall = 0.0
draw = {}
for key in variants.names():
    a = time.process_time()
    game = variants.new_game(key, seed=0)
    b = time.process_time()
    w = time.perf_counter()
    live.render_board(game, "white")
    live.render_board(game, "black")
    if game.dice:
        live.render_dice(key, tuple(game.dice))
    wall += time.perf_counter() - w
    new_game += b - a
    draw[key] = time.process_time() - b
again = time.process_time()  # the same drawings once more: what is left once all is warm
for key in variants.names():
    game = variants.new_game(key, seed=0)
    live.render_board(game, "white")
    live.render_board(game, "black")
    if game.dice:
        live.render_dice(key, tuple(game.dice))
again = time.process_time() - again
print(json.dumps({"import": c1 - c0, "new_game": new_game, "draw": draw,
                  "wall": wall, "again": again}))
"""


@dataclass
class StartupRun:
    """One fresh process's figures, in seconds."""

    imports: float  # CPU: importing renderers (and Pillow)
    new_game: float  # CPU: variants.new_game, all variants
    draw: dict[str, float]  # CPU: per variant, both boards and the dice
    wall: float  # wall clock of all the drawing
    again: float  # CPU: the same drawings once more in the same process

    @property
    def drawing(self) -> float:
        return sum(self.draw.values())


def _startup_child(env: dict[str, str]) -> StartupRun:
    import json
    import subprocess

    root = str(Path(__file__).resolve().parent.parent)
    out = subprocess.run(
        [sys.executable, "-c", STARTUP_CHILD, root],
        env=env,
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )
    if out.returncode != 0:
        raise SystemExit(f"the startup child failed:\n{out.stderr}")
    got = json.loads(out.stdout.strip().splitlines()[-1])
    return StartupRun(got["import"], got["new_game"], got["draw"], got["wall"], got["again"])


def startup(runs: int) -> int:
    """``--startup``: the module docstring says what is measured."""
    import os
    import shutil
    import tempfile

    with tempfile.TemporaryDirectory(prefix="render-startup-") as tmp:
        base = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        base["PYTHONPYCACHEPREFIX"] = str(Path(tmp) / "pycache")
        cache = Path(tmp) / "cache"
        kinds = {
            "restart": dict(base, CHESSGARDEN_RENDER_CACHE=str(cache)),
            "first start": dict(base, CHESSGARDEN_RENDER_CACHE=str(cache)),
            "no cache": dict(base, CHESSGARDEN_RENDER_CACHE="off"),
        }
        _startup_child(kinds["restart"])  # priming: bytecode compiled, render cache filled
        got: dict[str, list[StartupRun]] = {k: [] for k in kinds}
        for _ in range(runs):
            for kind, env in kinds.items():
                if kind == "first start":
                    shutil.rmtree(cache, ignore_errors=True)
                got[kind].append(_startup_child(env))
                if kind == "first start":  # the cache as the next restart finds it
                    _startup_child(kinds["restart"])
    _startup_report(got, runs)
    return 0


def _startup_report(got: dict[str, list[StartupRun]], runs: int) -> None:
    ms = 1000.0
    keys = variants.names()
    print(
        f"the first drawings in a fresh process (bot/service/core.py _warm_drawing): "
        f"{runs} processes of each kind, interleaved; ms, medians unless said"
    )
    print(
        f"{'process':12} {'drawing CPU':>11} {'worst':>6} {'wall':>6} {'import':>6} "
        f"{'new_game':>8} {'again':>6}  " + " ".join(f"{k[:12]:>12}" for k in keys)
    )
    for kind, rs in got.items():
        per = [statistics.median(r.draw[k] for r in rs) * ms for k in keys]
        print(
            f"{kind:12} {statistics.median(r.drawing for r in rs) * ms:11.1f} "
            f"{max(r.drawing for r in rs) * ms:6.1f} "
            f"{statistics.median(r.wall for r in rs) * ms:6.1f} "
            f"{statistics.median(r.imports for r in rs) * ms:6.1f} "
            f"{statistics.median(r.new_game for r in rs) * ms:8.1f} "
            f"{statistics.median(r.again for r in rs) * ms:6.1f}  "
            + " ".join(f"{v:12.1f}" for v in per)
        )
    print(
        "drawing: render_board white + black and render_dice, all variants (CPU); wall: the "
        "same, wall clock; import: `import renderers`; new_game: the engine's, apart; again: "
        "the same drawings repeated in the same process"
    )
    restart = statistics.median(r.drawing for r in got["restart"]) * ms
    verdict = "met" if restart <= STARTUP_GOAL_MS else "MISSED"
    print(
        f"restart: drawing {restart:.1f} ms CPU (median of {runs}), "
        f"goal <= {STARTUP_GOAL_MS:.0f} ms: {verdict}"
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", type=int, default=200, help="positions per variant")
    ap.add_argument("--step", type=int, default=2, help="plies between positions")
    ap.add_argument("--reps", type=int, default=3, help="repetitions of the whole sequence")
    ap.add_argument("--size", type=int, default=800, help="image width in pixels")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--startup", action="store_true", help="the first drawings after a restart")
    ap.add_argument("--runs", type=int, default=7, help="--startup: processes of each kind")
    args = ap.parse_args(argv)
    if args.startup:
        return startup(args.runs)
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
