"""CPU per move for what a move draws and lists (issue 26: "pictures at half the cost").

    python benchmarks/move_cpu.py [--baseline REV] [--games 60] [--cases 30] [--moves 40]

What one move costs the service's worker thread after the engine has the move: the same
calls, in the same order, as ``bot/service/workers.py`` ``show`` with the Discord bot's
settings (``_present``):

- **play**: ``Game.play`` of the move's text (the engine's part, shown for completeness:
  it reads the text against the legal list when an earlier front end formatted it);
- **list**: ``show`` without images: the legal list and the position in words, and
  ``"reroll" in legal``, which is all the Discord board reads of the list (its buttons);
- **board**: ``render_board(game, side)``, facing the side to act, as live boards do;
- **dice**: ``render_dice(variant, dice)``, when dice show.

The baseline is the code at ``--baseline`` (default: the commit this branch started
from, ``git merge-base HEAD main``), extracted with ``git archive``; the candidate is this
working tree. Each runs in a worker process of its own (its own imports, caches and
render cache directory, both new and empty), and both play the same games: ``--games``
games of every variant in turn, seeded, each move chosen at random (seeded) from the
legal actions of a copy of the game, outside the timing, so that choosing it leaves
nothing cached in the game itself.

A case is ``--moves`` moves of games picked at random; every case is run by both
workers one after the other (ABBA order), so load on the machine hits both alike, and
each reports the CPU time (``time.process_time``) of each part. Both must produce the
same PNG bytes of every board and dice picture and the same legal list (compared after
the timing, by digest): the benchmark stops if they differ. Before the cases, two
untimed rounds of every game (the tiles, pieces and bands a running bot has drawn), then
what the bot does after its warm-up: a full collection and ``gc.freeze()``.

Printed: per part, the median CPU per move of each tree over the cases, and the median
(and range) of the per-case ratios candidate / baseline; the load average before and
after.
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
from typing import IO, Any

ROOT = Path(__file__).resolve().parents[1]
PARTS = ("play", "list", "board", "dice", "total")

# Runs inside each tree: commands on stdin, one JSON line per answer on stdout.
WORKER = r"""
import gc, hashlib, json, random, sys, time
import variants
from bot.service.live import render_board, render_dice
from bot.service.workers import show

GAMES, SEED = int(sys.argv[1]), int(sys.argv[2])
KEYS = variants.names()
games = [variants.new_game(KEYS[i % len(KEYS)], seed=SEED + i) for i in range(GAMES)]
rng = random.Random(SEED)


def choose(game):
    probe = game.copy()
    probe._legal = None  # what the probe formats stays in the probe
    return rng.choice(probe.legal_moves())


def move(i, spent, digest):
    game = games[i]
    if game.result is not None:
        games[i] = game = variants.new_game(game.variant, seed=rng.randrange(10**9))
    text = choose(game)
    t0 = time.process_time()
    game.play(text)
    t1 = time.process_time()
    active = game.result is None
    side = game.turn if active else "white"
    dice = tuple(game.dice) if active and game.dice else None
    shown = show(game, active, game.variant, dice, side, None, None, False)
    reroll = "reroll" in shown.legal
    t2 = time.process_time()
    image = render_board(game, side)
    t3 = time.process_time()
    dice_image = render_dice(game.variant, dice) if dice else b""
    t4 = time.process_time()
    spent["play"] += t1 - t0
    spent["list"] += t2 - t1
    spent["board"] += t3 - t2
    spent["dice"] += t4 - t3
    digest.update(repr((text, reroll, tuple(shown.legal), shown.status)).encode())
    digest.update(image)
    digest.update(dice_image)


for line in sys.stdin:
    command = json.loads(line)
    spent = dict.fromkeys(("play", "list", "board", "dice"), 0.0)
    digest = hashlib.sha256()
    if command["do"] == "warm":
        for _ in range(command["rounds"]):
            for i in range(GAMES):
                move(i, spent, digest)
        gc.collect()
        gc.freeze()
    else:
        for i in command["games"]:
            move(i, spent, digest)
    spent["total"] = sum(spent.values())
    print(json.dumps({"spent": spent, "digest": digest.hexdigest()}), flush=True)
"""


def extract(rev: str, into: Path) -> Path:
    blob = subprocess.run(["git", "archive", rev], cwd=ROOT, capture_output=True, check=True).stdout
    with tarfile.open(fileobj=BytesIO(blob)) as archive:
        archive.extractall(into, filter="data")
    return into


class Worker:
    """One tree's worker process."""

    def __init__(self, name: str, tree: Path, script: Path, cache: Path, games: int) -> None:
        self.name = name
        env = {**os.environ, "PYTHONPATH": str(tree), "CHESSGARDEN_RENDER_CACHE": str(cache)}
        self.proc = subprocess.Popen(
            [sys.executable, str(script), str(games), "26"],
            cwd=tree,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )

    def ask(self, command: dict[str, Any]) -> dict[str, Any]:
        stdin: IO[str] | None = self.proc.stdin
        stdout: IO[str] | None = self.proc.stdout
        assert stdin is not None and stdout is not None
        stdin.write(json.dumps(command) + "\n")
        stdin.flush()
        line = stdout.readline()
        if not line:
            raise SystemExit(f"the {self.name} worker stopped (exit {self.proc.wait()})")
        return dict(json.loads(line))

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        self.proc.wait(timeout=60)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--baseline", default=None, help="git revision (default: merge-base)")
    parser.add_argument("--games", type=int, default=60)
    parser.add_argument("--cases", type=int, default=30)
    parser.add_argument("--moves", type=int, default=40, help="moves per case")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rev = (
        args.baseline
        or subprocess.run(
            ["git", "merge-base", "HEAD", "main"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )
    import random

    picker = random.Random(args.seed)
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="move-cpu-") as tmp:
        where = Path(tmp)
        base_tree = extract(rev, where / "baseline")
        script = where / "worker.py"
        script.write_text(WORKER)
        workers = {
            "baseline": Worker("baseline", base_tree, script, where / "cache-base", args.games),
            "candidate": Worker("candidate", ROOT, script, where / "cache-cand", args.games),
        }
        try:
            warm = {name: w.ask({"do": "warm", "rounds": 2}) for name, w in workers.items()}
            if warm["baseline"]["digest"] != warm["candidate"]["digest"]:
                raise SystemExit("the trees drew or listed differently during the warm-up")
            per_move: dict[str, dict[str, list[float]]] = {
                name: {part: [] for part in PARTS} for name in workers
            }
            ratios: dict[str, list[float]] = {part: [] for part in PARTS}
            for case in range(args.cases):
                chosen = [picker.randrange(args.games) for _ in range(args.moves)]
                order = ["baseline", "candidate"]
                if case % 4 in (1, 2):  # ABBA
                    order.reverse()
                answers = {
                    name: workers[name].ask({"do": "case", "games": chosen}) for name in order
                }
                if answers["baseline"]["digest"] != answers["candidate"]["digest"]:
                    raise SystemExit(f"case {case}: the trees drew or listed differently")
                for part in PARTS:
                    spent = {name: answers[name]["spent"][part] for name in workers}
                    for name in workers:
                        per_move[name][part].append(spent[name] / args.moves)
                    if spent["baseline"] > 0:
                        ratios[part].append(spent["candidate"] / spent["baseline"])
        finally:
            for w in workers.values():
                w.close()
    load_after = os.getloadavg()
    print(
        f"baseline {rev[:12]} vs this tree: {args.cases} cases x {args.moves} moves over "
        f"{args.games} games ({', '.join(sorted(set(_variant_names())))}); CPU per move"
    )
    print(f"{'part':<6} {'baseline ms':>12} {'candidate ms':>13} {'ratio':>7}  per-case range")
    for part in PARTS:
        b = statistics.median(per_move["baseline"][part]) * 1e3
        c = statistics.median(per_move["candidate"][part]) * 1e3
        r = ratios[part]
        span = f"{min(r):.2f}-{max(r):.2f}" if r else "-"
        ratio = f"{statistics.median(r):.2f}" if r else "-"
        print(f"{part:<6} {b:12.3f} {c:13.3f} {ratio:>7}  {span}")
    print(
        "load average (1, 5, 15 min) before "
        + " ".join(f"{v:.2f}" for v in load_before)
        + ", after "
        + " ".join(f"{v:.2f}" for v in load_after)
    )


def _variant_names() -> list[str]:
    sys.path.insert(0, str(ROOT))
    import variants

    return list(variants.names())


if __name__ == "__main__":
    main()
