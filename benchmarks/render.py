"""Board-image benchmark: Chess Garden's ``render_png`` against python-chess + cairosvg.

    python benchmarks/render.py [--positions N] [--step K] [--reps R] [--size PX] [--no-legend]
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
- **Ours.** ``render_png(game, size=PX)`` as the bot calls it (facing the side to move),
  with the legend strip of the pieces a newcomer will not know (issue 27) unless
  ``--no-legend``: a fixed band the baseline has no counterpart for.
  ``renderers.warm(variant)`` is called once before the first repetition (every tile,
  die and piece icon the variant can show, drawn ahead, as a bot that has run a while
  has them in its caches), and its cost is printed. Before each repetition every cache
  that depends on a position (drawn squares, strips, bars, encoded bands) is dropped, so
  each position is rendered for the first time in that repetition: nothing is reused
  from an earlier render of the same position. Within a repetition the sequence runs in
  game order, as the bot renders a game ply after ply. The render cache on disk
  (``renderers/prebuilt.py``) is a new, empty temporary directory unless
  ``CHESSGARDEN_RENDER_CACHE`` is set, so the "1st ms" and "warm ms" figures are those of
  a first start, whatever earlier runs left behind.
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
  order of the two alternating between repetitions. The "no reuse" pass (below) is
  interleaved with baseline renders of its own in the same way.
- **The garbage collector.** Once the positions are built and everything is warm, the
  benchmark does what the bot does after its warm-up (``bot/service/gcpolicy.py``): a
  full collection, ``gc.freeze()``, and automatic full collections off (young ones stay).
  Otherwise a full collection of the benchmark's own heap (every position of the run,
  python-chess, cairosvg) falls at the same point of the sequence run after run, inside
  whichever render is timed there, ours or the baseline's: 200-700 ms on a loaded
  machine, which made single positions the "worst" ratio (guardener #16 at 0.62) or
  flattered us when it hit the baseline. ``--gc default`` keeps Python's own schedule;
  either way the collections that fell inside timed renders are counted and printed.
- **Figures.** Per position: the median time of ours over the repetitions divided by the
  median time of the baseline; bytes divided by the baseline's bytes (both are the same
  every repetition). Per variant: the median times and bytes of each, and the median and
  worst per-position ratios. Overall: the median and worst of all per-position ratios.
  Also printed: the time of ours with every position cache dropped before every render
  ("no reuse": as if no earlier position of the game had been drawn), as a ratio to its
  own interleaved baseline renders; the ratios of CPU time (``time.process_time``, both
  sides in this process) beside the wall-clock ones; and, for information, the first
  render of each variant without ``warm``.
"""

from __future__ import annotations

import argparse
import functools
import gc
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import variants  # noqa: E402
from renderers import board as board_module  # noqa: E402
from renderers import (
    prebuilt,  # noqa: E402
)
from renderers import render_png as _render_png  # noqa: E402

DEFAULT_GC = gc.get_threshold()
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
    ours: list[float] = field(default_factory=list)  # wall clock, seconds
    base: list[float] = field(default_factory=list)
    ours_cpu: list[float] = field(default_factory=list)  # CPU time, seconds
    base_cpu: list[float] = field(default_factory=list)
    ours_no_reuse: list[float] = field(default_factory=list)
    base_no_reuse: list[float] = field(default_factory=list)  # its interleaved baseline
    ours_bytes: int = 0
    base_bytes: int = 0

    @property
    def time_ratio(self) -> float:
        return statistics.median(self.ours) / statistics.median(self.base)

    @property
    def cpu_ratio(self) -> float:
        return statistics.median(self.ours_cpu) / statistics.median(self.base_cpu)

    @property
    def no_reuse_ratio(self) -> float:
        return statistics.median(self.ours_no_reuse) / statistics.median(self.base_no_reuse)

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
            board.set_piece_at(
                core[s], chess.Piece.from_symbol(symbol.upper() if p.color == 0 else symbol)
            )
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


class GcCount:
    """Full (generation 2) collections that fell inside timed renders, per side."""

    def __init__(self) -> None:
        self.side = ""  # who is being timed now: "ours", "base" or ""
        self.count = {"ours": 0, "base": 0}
        self.pause = {"ours": 0.0, "base": 0.0}
        self._t = 0.0

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if not self.side or info.get("generation") != 2:
            return
        if phase == "start":
            self._t = time.perf_counter()
        else:
            self.count[self.side] += 1
            self.pause[self.side] += time.perf_counter() - self._t


GC = GcCount()


def timed(fn: Callable[[], bytes], side: str = "") -> tuple[float, float, bytes]:
    """(wall seconds, CPU seconds, result) of ``fn()``."""
    GC.side = side
    c, t = time.process_time(), time.perf_counter()
    out = fn()
    wall, cpu = time.perf_counter() - t, time.process_time() - c
    GC.side = ""
    return wall, cpu, out


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
    ap.add_argument(
        "--no-legend",
        dest="legend",
        action="store_false",
        help="our pictures without the legend strip under the board",
    )
    ap.add_argument("--startup", action="store_true", help="the first drawings after a restart")
    ap.add_argument("--runs", type=int, default=7, help="--startup: processes of each kind")
    ap.add_argument(
        "--gc",
        choices=("bot", "default"),
        default="bot",
        help="the collector's schedule while timing: the bot's (freeze, no automatic full "
        "collections) or Python's default",
    )
    args = ap.parse_args(argv)
    if args.startup:
        return startup(args.runs)
    if os.environ.get(prebuilt.ENV) is None:
        with tempfile.TemporaryDirectory(prefix="render-bench-") as tmp:
            os.environ[prebuilt.ENV] = tmp
            try:
                return run(args)
            finally:
                del os.environ[prebuilt.ENV]
    return run(args)


def run(args: argparse.Namespace) -> int:
    size = args.size
    legend = getattr(args, "legend", True)
    render_png = functools.partial(_render_png, legend=legend)
    keys = variants.names()
    # The first render of each variant with nothing cached, before warm().
    first: dict[str, float] = {}
    for key in keys:
        game = variants.new_game(key, seed=args.seed)
        first[key], _, _ = timed(functools.partial(render_png, game, size=size))
    board_module.clear_caches()
    warm_ms: dict[str, float] = {}
    for key in keys:
        t = time.perf_counter()
        board_module.warm(key, size=size, legend=legend)
        warm_ms[key] = (time.perf_counter() - t) * 1000

    cases: list[Case] = []
    for key in keys:
        for i, game in enumerate(positions(key, args.positions, args.step, args.seed)):
            cases.append(Case(key, i, game, svg_args(game, size)))
    baseline(cases[0].svg_args)  # imports and first-call costs out of the timings

    # Positions of all variants interleaved, in game order within each variant, as a
    # bot serving games of every variant would render them.
    order = sorted(cases, key=lambda c: (c.index, keys.index(c.variant)))
    gc.collect()
    if args.gc == "bot":  # as bot/service/gcpolicy.py after the warm-up
        gc.freeze()
        young, middle, _ = gc.get_threshold()
        gc.set_threshold(young, middle, 1_000_000_000)
    gc.callbacks.append(GC)
    try:
        for rep in range(args.reps):
            board_module.drop_position_caches()
            for case in order:

                def ours(c: Case = case) -> bytes:
                    return render_png(c.game, size=size)

                def base(c: Case = case) -> bytes:
                    return baseline(c.svg_args)

                if rep % 2 == 0:
                    t_ours, c_ours, png = timed(ours, "ours")
                    t_base, c_base, ref = timed(base, "base")
                else:
                    t_base, c_base, ref = timed(base, "base")
                    t_ours, c_ours, png = timed(ours, "ours")
                case.ours.append(t_ours)
                case.base.append(t_base)
                case.ours_cpu.append(c_ours)
                case.base_cpu.append(c_base)
                case.ours_bytes, case.base_bytes = len(png), len(ref)
            # no reuse: every position cache dropped before each render (warm tiles stay),
            # each beside a baseline render of the same position
            for case in order:
                board_module.drop_position_caches()
                first_ours = rep % 2 == 1
                if first_ours:
                    case.ours_no_reuse.append(
                        timed(functools.partial(render_png, case.game, size=size), "ours")[0]
                    )
                case.base_no_reuse.append(
                    timed(functools.partial(baseline, case.svg_args), "base")[0]
                )
                if not first_ours:
                    case.ours_no_reuse.append(
                        timed(functools.partial(render_png, case.game, size=size), "ours")[0]
                    )
    finally:
        gc.callbacks.remove(GC)
        gc.unfreeze()
        gc.set_threshold(*DEFAULT_GC)

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
        f"{args.reps} repetitions, {args.size} px wide, collector: {args.gc}"
    )
    print(
        "baseline: python-chess chess.svg.board + cairosvg.svg2png of the same placement "
        "(see the module docstring)"
    )
    head = (
        f"{'variant':13} {'ours ms':>8} {'base ms':>8} {'t med':>6} {'t worst':>7} "
        f"{'cpu med':>7} {'ours B':>7} {'base B':>7} {'B med':>6} {'B worst':>7} "
        f"{'no-reuse':>8} {'warm ms':>8} {'1st ms':>7}"
    )
    print(head)
    for key in keys:
        cs = [c for c in cases if c.variant == key]
        tr = [c.time_ratio for c in cs]
        br = [c.bytes_ratio for c in cs]
        print(
            f"{key:13} {statistics.median(t for c in cs for t in c.ours) * ms:8.2f} "
            f"{statistics.median(t for c in cs for t in c.base) * ms:8.2f} "
            f"{statistics.median(tr):6.3f} {max(tr):7.3f} "
            f"{statistics.median(c.cpu_ratio for c in cs):7.3f} "
            f"{statistics.median(c.ours_bytes for c in cs):7.0f} "
            f"{statistics.median(c.base_bytes for c in cs):7.0f} "
            f"{statistics.median(br):6.3f} {max(br):7.3f} "
            f"{statistics.median(c.no_reuse_ratio for c in cs):8.3f} "
            f"{warm_ms[key]:8.1f} {first[key] * ms:7.1f}"
        )
    print(
        "t: wall-clock time ratio, cpu: CPU time ratio, B: bytes ratio (per position, "
        "ours / baseline); no-reuse: the time ratio with every position cache dropped"
    )
    tr = [c.time_ratio for c in cases]
    cr = [c.cpu_ratio for c in cases]
    br = [c.bytes_ratio for c in cases]
    nrs = [c.no_reuse_ratio for c in cases]
    worst_t = max(cases, key=lambda c: c.time_ratio)
    worst_c = max(cases, key=lambda c: c.cpu_ratio)
    worst_b = max(cases, key=lambda c: c.bytes_ratio)
    worst_n = max(cases, key=lambda c: c.no_reuse_ratio)
    over_t = sum(1 for r in tr if r > TIME_TARGET)
    over_c = sum(1 for r in cr if r > TIME_TARGET)
    over_b = sum(1 for r in br if r > BYTES_TARGET)
    over_n = sum(1 for r in nrs if r > TIME_TARGET)
    print(
        f"time ratio: median {statistics.median(tr):.3f}, worst {max(tr):.3f} "
        f"({worst_t.variant} #{worst_t.index}), {over_t} of {len(tr)} over {TIME_TARGET}: "
        f"median {'ok' if statistics.median(tr) <= TIME_TARGET else 'MISSED'}, "
        f"every position {'ok' if over_t == 0 else 'MISSED'}"
    )
    print(
        f"CPU time ratio: median {statistics.median(cr):.3f}, worst {max(cr):.3f} "
        f"({worst_c.variant} #{worst_c.index}), {over_c} of {len(cr)} over {TIME_TARGET}"
    )
    print(
        f"bytes ratio: median {statistics.median(br):.3f}, worst {max(br):.3f} "
        f"({worst_b.variant} #{worst_b.index}), {over_b} of {len(br)} over {BYTES_TARGET}: "
        f"every position {'ok' if over_b == 0 else 'MISSED'}"
    )
    print(
        f"no-reuse time ratio: median {statistics.median(nrs):.3f} "
        f"({'ok' if statistics.median(nrs) <= TIME_TARGET else 'MISSED'}), worst "
        f"{max(nrs):.3f} ({worst_n.variant} #{worst_n.index}), {over_n} of {len(nrs)} "
        f"over {TIME_TARGET}"
    )
    print(
        f"full collections inside timed renders: ours {GC.count['ours']} "
        f"({GC.pause['ours'] * ms:.0f} ms), baseline {GC.count['base']} "
        f"({GC.pause['base'] * ms:.0f} ms)"
    )
    print(f"warm() total {sum(warm_ms.values()):.0f} ms for {len(keys)} variants at {args.size} px")


if __name__ == "__main__":
    raise SystemExit(main())
