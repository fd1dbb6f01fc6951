"""The event loop's largest block while long games are verified (issue 9).

    python benchmarks/loop_lag.py [--baseline REV] [--reps 3] [--plies 600]

Two workloads, each right after a restart (a fresh process, nothing cached):

- ``same``: 20 concurrent ``verify`` calls of one finished ~600-ply Tquarchess game,
  while the board of another game is requested (the load test of issue 9);
- ``distinct``: 8 concurrent ``verify`` calls of 8 different finished ~600-ply games
  (nothing to share), while the board of another game is requested.

A lag probe (a task that sleeps 1 ms in a loop) records the largest overshoot: the
longest time the event loop could not run anything. Each run also reports how long the
whole burst took. The baseline is the code at ``--baseline`` (default: the commit this
branch started from, ``git merge-base HEAD main``), extracted with ``git archive``; the
runs of the two trees are interleaved (ABBA) so that a busy machine hurts both alike.
Prints every run, the medians and the median of the per-repetition ratios.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
from io import BytesIO
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# Runs inside each tree; uses only the service API both trees share.
WORKLOAD = r"""
import asyncio, json, random, sys, time
import variants
from variants.dice import VerifiableDice
from bot.service import GameService
from storage import GameChanges, NewAction

MODE, DB, PLIES, GAMES = sys.argv[1:5] if len(sys.argv) > 4 else ("", "", "0", "0")
PLIES, GAMES = int(PLIES), int(GAMES)
W, B = 101, 202

async def store_long_game(service, location, seed):
    made = await service.challenge(location_id=location, challenger_id=W, opponent_id=B,
                                   variant="tquarchess", colour="white")
    await service.accept(location_id=location, user_id=B, render=False)
    gid = made.game.id
    game = variants.new_game("tquarchess", dice=VerifiableDice(f"seed-{seed}", gid))
    rng = random.Random(seed)
    entries = []
    while len(entries) < PLIES and game.result is None:
        before = len(game.rolls)
        mover = W if game.turn == "white" else B
        text = game.play(rng.choice(game.legal_moves()))
        entries.append(NewAction(gid, len(entries) + 1, "move", mover, text,
                                 tuple(game.rolls[before:])))
    async with service.repo.write() as tx:
        for entry in entries:
            await tx.append_action(entry)
        if game.result is None:
            await tx.append_action(NewAction(gid, len(entries) + 1, "resign", W,
                                             "white resigns"))
            await tx.update_game(gid, GameChanges(status="finished", result="0-1",
                                                  result_reason="resignation"))
        else:
            score = {"white": "1-0", "black": "0-1", None: "1/2-1/2"}[game.result.winner]
            await tx.update_game(gid, GameChanges(status="finished", result=score,
                                                  result_reason=game.result.reason))
    return gid

async def build():
    seeds = iter(f"seed-{n}" for n in range(15, 15 + GAMES))
    extra = iter(f"other-{n}" for n in range(100))
    def seed_factory():
        return next(seeds, None) or next(extra)
    service = await GameService.open(DB, renderer=None, rng=random.Random(0),
                                     seed_factory=seed_factory)
    ids = [await store_long_game(service, 1000 + n, 15 + n) for n in range(GAMES)]
    await service.challenge(location_id=1, challenger_id=W, opponent_id=B, variant="guardener")
    other = (await service.accept(location_id=1, user_id=B, render=False)).game.id
    await service.close()
    print(json.dumps({"ids": ids, "other": other}))

async def timed(ids, other, calls):
    service = await GameService.open(DB)
    worst = 0.0
    stop = asyncio.Event()
    async def probe():
        nonlocal worst
        while not stop.is_set():
            t = time.perf_counter()
            await asyncio.sleep(0.001)
            worst = max(worst, time.perf_counter() - t - 0.001)
    task = asyncio.create_task(probe())
    await asyncio.sleep(0.01)
    started = time.perf_counter()
    results = await asyncio.gather(*(service.verify(game_id=g) for g in calls),
                                   service.board(game_id=other))
    elapsed = time.perf_counter() - started
    stop.set()
    await task
    bad = [r.messages for r in results[:-1] if not r.ok]
    ok = not bad and results[-1].image is not None
    if bad:
        print(bad[0], file=sys.stderr)
    await service.close()
    print(json.dumps({"largest_block_ms": worst * 1000, "elapsed_ms": elapsed * 1000, "ok": ok}))

if __name__ == "__main__":  # the service's worker processes import the main module
    if MODE == "build":
        asyncio.run(build())
    else:
        info = json.loads(sys.argv[5])
        calls = [info["ids"][0]] * 20 if MODE == "same" else info["ids"]
        asyncio.run(timed(info["ids"], info["other"], calls))
"""


def extract(rev: str, into: Path) -> Path:
    blob = subprocess.run(["git", "archive", rev], cwd=ROOT, capture_output=True, check=True).stdout
    with tarfile.open(fileobj=BytesIO(blob)) as archive:
        archive.extractall(into, filter="data")
    return into


def run(tree: Path, script: Path, *args: str) -> dict[str, object]:
    """The workload in a fresh process on ``tree``'s code; its JSON line."""
    done = subprocess.run(
        [sys.executable, str(script), *args],
        cwd=tree,
        env={**os.environ, "PYTHONPATH": str(tree)},
        capture_output=True,
        text=True,
        timeout=600,
    )
    if done.returncode != 0:
        raise SystemExit(f"workload failed in {tree}:\n{done.stderr}")
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", default=None, help="git revision (default: merge-base)")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--plies", type=int, default=600)
    args = parser.parse_args()
    baseline = (
        args.baseline
        or subprocess.run(
            ["git", "merge-base", "HEAD", "main"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )
    with tempfile.TemporaryDirectory() as tmp:
        trees = {"baseline": extract(baseline, Path(tmp) / "baseline"), "now": ROOT}
        script = Path(tmp) / "workload.py"
        script.write_text(WORKLOAD)
        info = {}
        for name, tree in trees.items():
            db = Path(tmp) / f"{name}.sqlite3"
            info[name] = (db, run(tree, script, "build", str(db), str(args.plies), "8"))
        print(f"baseline {baseline[:10]} vs this tree; {args.reps} repetitions, ABBA order")
        for mode in ("same", "distinct"):
            blocks: dict[str, list[float]] = {"baseline": [], "now": []}
            elapsed: dict[str, list[float]] = {"baseline": [], "now": []}
            for rep in range(args.reps):
                order = ("baseline", "now") if rep % 2 == 0 else ("now", "baseline")
                for name in order:
                    db, built = info[name]
                    out = run(
                        trees[name], script, mode, str(db), str(args.plies), "8", json.dumps(built)
                    )
                    assert out["ok"], (name, mode, out)
                    blocks[name].append(float(out["largest_block_ms"]))  # type: ignore[arg-type]
                    elapsed[name].append(float(out["elapsed_ms"]))  # type: ignore[arg-type]
            what = "20 x verify of one game" if mode == "same" else "8 x verify of 8 games"
            print(f"\n{what} + 1 board, right after a restart")
            for name in ("baseline", "now"):
                print(
                    f"  {name:8}  largest block ms {[round(b, 1) for b in blocks[name]]}"
                    f"  median {statistics.median(blocks[name]):7.1f}   burst ms "
                    f"{[round(e) for e in elapsed[name]]} median {statistics.median(elapsed[name]):6.0f}"
                )
            ratios = [n / b for n, b in zip(blocks["now"], blocks["baseline"], strict=True)]
            print(
                f"  largest block now/baseline: median of per-run ratios {statistics.median(ratios):.3f}"
            )


if __name__ == "__main__":
    main()
