"""The live event's build per move (issue 28): the CPU a game page's event costs the bot's
process for one move, this tree against a baseline, in the same process, interleaved.

    python benchmarks/event_build.py [--games 12] [--moves 12] [--reps 3]
                                     [--baseline-ref main] [--seed 12]

Methodology:

- **Aged games.** ``--games`` live games aged 40 to 100 plies, played out with the engine
  and stored as ``benchmarks/service.py`` ages them (every variant in turn), on a fresh
  SQLite file, served by one ``GameService``.
- **What is timed.** ``Site._event(game)``: what the web hub awaits after a watched game's
  commit (read the game through the service, build its steps, encode the whole event and
  the delta), in process CPU time (``time.process_time``: the loop's thread, the store's
  thread and the worker threads together; nothing else runs in the process meanwhile).
- **Three readers of the same games**, each a ``Site`` that has followed the game since
  before the timed moves: ``improved`` (this tree: the new log entries only, steps and
  their JSON kept), ``baseline`` (``--baseline-ref``'s ``bot/web``, loaded beside this one
  as a package of its own on this tree's service: it reads the whole history for every
  move) and ``cold`` (this tree's full build: a reader that kept nothing, as after the LRU
  dropped the game). After each move every reader builds the event once, in an order
  that rotates per move.
- **Reported.** Per game, the median CPU per move of each; the ratio improved/baseline per
  game, and the median of those per-game ratios, per repetition and over all. Then the
  memory a kept game costs this tree's reader (``tracemalloc``: the kept steps, builder,
  state and event of every game, divided by the games), with the games' plies.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).parent))

BASELINE_PACKAGE = "baseline_web"


def load_baseline(ref: str, into: Path) -> Any:
    """``ref``'s ``bot/web`` (code, templates, static files) as the package
    ``baseline_web``, its own imports of ``bot.web`` renamed, importable beside this
    tree's."""
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", ref, "bot/web"], capture_output=True, check=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    package = into / BASELINE_PACKAGE
    (into / "bot" / "web").rename(package)
    for path in package.glob("*.py"):
        path.write_text(re.sub(r"\bbot\.web\b", BASELINE_PACKAGE, path.read_text()))
    sys.path.insert(0, str(into))
    return importlib.import_module(f"{BASELINE_PACKAGE}.app")


def q(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p * len(ordered)))]


async def one_rep(args: argparse.Namespace, rep: int, baseline_app: Any) -> dict[str, Any]:
    from service import build as age_games  # benchmarks/service.py's aged games

    from bot.links import Links
    from bot.service import GameService
    from bot.web.app import Site

    home = Path(tempfile.mkdtemp(prefix="event-build-"))
    db = home / "aged.sqlite3"
    await age_games(db, args.games, args.games, seed=args.seed + rep)
    service = await GameService.open(str(db), renderer=None, dice_renderer=None, cpu_workers=1)
    links = Links(b"benchmark-secret-not-a-real-one-0123", "")
    improved = Site(service, links)
    baseline = baseline_app.Site(service, links)
    sites = {"improved": improved, "baseline": baseline}
    ids = [g.id for g in await service.list_games(statuses=("active",), limit=100)]
    for site in sites.values():
        for gid in ids:
            site.hub.channels[gid] = object()  # watched: keep its event
            await site._event(gid)  # followed since before the timed moves
    rng = random.Random(args.seed + rep)
    cpu: dict[str, dict[int, list[float]]] = {k: {g: [] for g in ids} for k in (*sites, "cold")}
    plies: dict[int, int] = {}
    turn = 0
    for gid in ids:
        for _ in range(args.moves):
            view = await service.view(game_id=gid)
            if view.is_over:
                break
            legal = [m for m in await service.legal_moves(game_id=gid) if m != "resign"]
            await service.act(
                user_id=view.to_move_id, text=rng.choice(legal), game_id=gid, render=False
            )
            names = ["improved", "baseline", "cold"]
            turn += 1
            names = names[turn % 3 :] + names[: turn % 3]
            for name in names:
                site = sites.get(name) or Site(service, links)  # cold: a reader with nothing
                started = time.process_time()
                await site._event(gid)
                cpu[name][gid].append((time.process_time() - started) * 1000)
        plies[gid] = (await service.view(game_id=gid)).ply
    kept = Site(service, links)
    tracemalloc.start()
    before = tracemalloc.take_snapshot()
    for gid in ids:
        kept.hub.channels[gid] = object()
        await kept._event(gid)
    after = tracemalloc.take_snapshot()
    tracemalloc.stop()
    grown = sum(s.size_diff for s in after.compare_to(before, "filename"))
    await service.close()
    for path in home.iterdir():
        path.unlink()
    home.rmdir()
    return {"cpu": cpu, "plies": plies, "kept_bytes_per_game": grown / len(ids)}


def report(rep: int, out: dict[str, Any]) -> list[float]:
    cpu, plies = out["cpu"], out["plies"]
    ratios = []
    print(f"rep {rep}: game plies  improved ms  baseline ms  cold ms  ratio (improved/baseline)")
    for gid in cpu["improved"]:
        if not cpu["improved"][gid]:
            continue
        med = {k: statistics.median(cpu[k][gid]) for k in cpu}
        ratio = med["improved"] / med["baseline"]
        ratios.append(ratio)
        print(
            f"  {gid:4d} {plies[gid]:5d} {med['improved']:11.2f} {med['baseline']:12.2f} "
            f"{med['cold']:8.2f}  {ratio:.3f}"
        )
    every = {k: [v for vs in cpu[k].values() for v in vs] for k in cpu}
    print(
        "  all moves: median/p90 ms  "
        + "  ".join(f"{k} {statistics.median(v):.2f}/{q(v, 0.9):.2f}" for k, v in every.items())
    )
    print(
        f"  median per-game ratio {statistics.median(ratios):.3f}; "
        f"kept per game {out['kept_bytes_per_game'] / 1024:.0f} KiB "
        f"(plies median {statistics.median(plies.values()):.0f})"
    )
    return ratios


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=12)
    parser.add_argument("--moves", type=int, default=12, help="timed moves per game")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--baseline-ref", default="main")
    parser.add_argument("--seed", type=int, default=12)
    args = parser.parse_args()
    print(
        f"load average {os.getloadavg()[0]:.1f}; {args.games} aged games, {args.moves} moves "
        f"each, {args.reps} repetitions; baseline {args.baseline_ref}",
        flush=True,
    )
    with tempfile.TemporaryDirectory() as into:
        baseline_app = load_baseline(args.baseline_ref, Path(into))
        all_ratios: list[float] = []
        for rep in range(args.reps):
            out = asyncio.run(one_rep(args, rep, baseline_app))
            ratios = report(rep, out)
            all_ratios.extend(ratios)
    print(
        f"median of per-game ratios over all repetitions: {statistics.median(all_ratios):.3f} "
        f"(load average {os.getloadavg()[0]:.1f})"
    )


if __name__ == "__main__":
    main()
