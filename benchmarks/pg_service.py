"""Benchmark the service on PostgreSQL next to SQLite (issue 16): several bot processes, 1,000
live games, players acting as a Poisson stream.

    python benchmarks/pg_service.py [--store postgresql://...] [--games 1000] [--rate 50]
                                    [--processes 2] [--seconds 20] [--repeats 3] [--no-render]

Both stores get the same 1,000 live games (all five variants). Then, for each repetition,
the two stores take turns (interleaved, the order alternating), and on each ``--processes``
OS processes open their own ``GameService`` on the store and receive actions as one Poisson
stream of ``--rate`` actions/s in all (each process ``rate / processes``; each acts on its own
share of the games, as each shard acts on its own servers' games). The latency of an action
is from its arrival to ``GameService.act`` returning (lock + transaction + engine + render):
waiting behind earlier actions counts. It prints p50/p99/max per store and repetition, and
the median over repetitions of the PostgreSQL/SQLite p99 ratio. Target: p99 <= 50 ms on
PostgreSQL.

Without ``--store`` it starts a throwaway PostgreSQL cluster (initdb/pg_ctl, as
tests/pgcluster.py does) and removes it afterwards. SQLite runs in a temporary file with the
production settings (WAL, synchronous=FULL). The figures are noisy on a shared machine.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import variants  # noqa: E402
from bot.service import GameService, ServiceError  # noqa: E402

TARGET_P99_MS = 50.0


async def setup(store: str, games: int) -> list[int]:
    """``games`` live games on ``store``; their ids."""
    service = await GameService.open(store, renderer=None, dice_renderer=None)
    names = variants.names()
    ids = []
    try:
        for n in range(games):
            made = await service.challenge(
                location_id=1 + n,
                challenger_id=100_000 + 2 * n,
                opponent_id=100_001 + 2 * n,
                colour="white",
                variant=names[n % len(names)],
            )
            await service.accept(game_id=made.game.id, user_id=100_001 + 2 * n, render=False)
            ids.append(made.game.id)
    finally:
        await service.close()
    return ids


async def worker(
    store: str, ids: list[int], rate: float, seconds: float, seed: int, render: bool
) -> None:
    """One bot process: Poisson arrivals at ``rate``/s on the games ``ids`` for ``seconds``;
    prints one JSON line with the latencies (ms) and the errors."""
    service = await GameService.open(store, **({} if render else {"renderer": None}))
    rng = random.Random(seed)
    busy: set[int] = set()
    latencies: list[float] = []
    errors = 0

    async def act(game_id: int, arrived: float) -> None:
        nonlocal errors
        busy.add(game_id)
        try:
            view = await service.view(game_id=game_id)
            if view.is_over or view.ply >= 200:
                return  # (a finished game takes no more actions; not timed)
            legal = await service.legal_moves(game_id=game_id)
            await service.act(
                game_id=game_id, user_id=view.to_move_id or 0, text=rng.choice(legal),
                render=render,
            )  # fmt: skip
            latencies.append((time.perf_counter() - arrived) * 1000)
        except ServiceError:
            errors += 1
        finally:
            busy.discard(game_id)

    # Warm up as a running bot is: every game's engine state cached, the pools and the
    # board art ready (not timed).
    for game_id in ids:
        await service.legal_moves(game_id=game_id)
    if render and ids:
        await service.board(game_id=ids[0])
    tasks = []
    start = time.perf_counter()
    next_at = start + rng.expovariate(rate)
    try:
        while next_at < start + seconds:
            await asyncio.sleep(max(0.0, next_at - time.perf_counter()))
            free = [g for g in ids if g not in busy]
            if free:
                tasks.append(asyncio.create_task(act(rng.choice(free), next_at)))
            next_at += rng.expovariate(rate)
        await asyncio.gather(*tasks)
    finally:
        await service.close()
    print(json.dumps({"latencies": latencies, "errors": errors}), flush=True)


def run_round(store: str, ids: list[int], args: argparse.Namespace, seed: int) -> dict[str, float]:
    """``args.processes`` worker processes on ``store`` at once; the round's figures."""
    share = [ids[i :: args.processes] for i in range(args.processes)]
    children = [
        subprocess.Popen(
            [
                sys.executable,
                __file__,
                "--worker",
                store,
                json.dumps(share[i]),
                str(args.rate / args.processes),
                str(args.seconds),
                str(seed * 100 + i),
                "0" if args.no_render else "1",
            ],
            stdout=subprocess.PIPE,
            text=True,
        )  # fmt: skip
        for i in range(args.processes)
    ]
    latencies: list[float] = []
    errors = 0
    for child in children:
        out, _ = child.communicate(timeout=args.seconds * 10 + 120)
        result = json.loads(out.strip().splitlines()[-1])
        latencies += result["latencies"]
        errors += result["errors"]
    latencies.sort()
    q = (
        statistics.quantiles(latencies, n=100, method="inclusive")
        if len(latencies) > 1
        else [0.0] * 99
    )
    return {"n": len(latencies), "p50": q[49], "p99": q[98], "max": latencies[-1] if latencies else 0.0,
            "errors": errors}  # fmt: skip


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        store, ids, rate, seconds, seed, render = sys.argv[2:8]
        asyncio.run(
            worker(store, json.loads(ids), float(rate), float(seconds), int(seed), render == "1")
        )
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", default=None, help="postgresql:// URL of an EMPTY database")
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--rate", type=float, default=50.0, help="actions per second, in all")
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--no-render", action="store_true")
    args = parser.parse_args()

    cluster = None
    if args.store is None:
        sys.path.insert(0, str(ROOT / "tests"))
        import pgcluster

        cluster = pgcluster.Cluster()
        cluster.start()
        args.store = cluster.database()
    folder = tempfile.mkdtemp(prefix="cg-bench-")
    stores = {"sqlite": os.path.join(folder, "bench.sqlite3"), "postgresql": args.store}
    try:
        ids = {name: asyncio.run(setup(store, args.games)) for name, store in stores.items()}
        print(f"{args.games} live games on each store; {args.processes} processes, "
              f"{args.rate:g} actions/s Poisson, {args.seconds:g} s per round, "
              f"render {'off' if args.no_render else 'on'}")  # fmt: skip
        ratios = []
        for rep in range(args.repeats):
            order = list(stores) if rep % 2 == 0 else list(reversed(stores))
            figures = {}
            for name in order:
                figures[name] = run_round(stores[name], ids[name], args, rep)
                f = figures[name]
                print(f"round {rep + 1} {name:10} n={f['n']:5} p50 {f['p50']:7.1f} ms  "
                      f"p99 {f['p99']:7.1f} ms  max {f['max']:7.1f} ms  errors {f['errors']}")  # fmt: skip
            ratios.append(figures["postgresql"]["p99"] / max(figures["sqlite"]["p99"], 1e-9))
        print(f"PostgreSQL/SQLite p99 ratio, median of {len(ratios)} rounds: "
              f"{statistics.median(ratios):.2f}; target p99 <= {TARGET_P99_MS:g} ms on PostgreSQL")  # fmt: skip
    finally:
        if cluster is not None:
            cluster.stop()
        import shutil

        shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
