"""Benchmark the game service: 1,000 live games, many simulated players, rendering included.

    python benchmarks/service.py [--games 1000] [--clients 64] [--seconds 15]
                                 [--rate 40] [--db PATH] [--no-render]

Two phases over the same 1,000 live games (all five variants, SQLite file with
synchronous=FULL, every action in its own transaction, a PNG rendered per action):

1. throughput: ``--clients`` players act back to back (no thinking time), each on a
   random game nobody else is acting on; prints actions/s.
2. latency: players arrive as a Poisson stream at ``--rate`` actions/s (people think
   between moves), each playing one random legal action; prints p50/p90/p99/max of
   ``GameService.act`` (lock + transaction + engine + render) against the target
   p99 <= 50 ms.

A game that ends is replaced by a new one in the same channel (not timed).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import variants  # noqa: E402
from bot.service import GameService, ServiceError  # noqa: E402

TARGET_P99_MS = 50.0


@dataclass
class Table:
    location: int
    game_id: int = 0
    busy: bool = False


@dataclass
class Stats:
    latencies: list[float] = field(default_factory=list)
    errors: int = 0
    finished: int = 0
    images: int = 0


async def new_game(service: GameService, table: Table, rng: random.Random) -> None:
    white, black = 10_000 + table.location * 2, 10_001 + table.location * 2
    made = await service.challenge(
        location_id=table.location,
        challenger_id=white,
        opponent_id=black,
        colour="white",
        variant=rng.choice(variants.names()),
    )
    await service.accept(game_id=made.game.id, user_id=black, render=False)
    table.game_id = made.game.id


async def one_action(
    service: GameService, table: Table, rng: random.Random, stats: Stats, render: bool
) -> None:
    table.busy = True
    try:
        view = await service.view(game_id=table.game_id)
        if view.is_over or view.ply >= 200:
            if not view.is_over:
                await service.resign(game_id=table.game_id, user_id=view.white_id or 0)
            stats.finished += 1
            await new_game(service, table, rng)
            view = await service.view(game_id=table.game_id)
        legal = await service.legal_moves(game_id=table.game_id)
        text = rng.choice(legal)
        started = time.perf_counter()
        try:
            outcome = await service.act(
                game_id=table.game_id,
                user_id=view.to_move_id or 0,
                text=text,
                expected_ply=view.ply,
                render=render,
            )
        except ServiceError:
            stats.errors += 1
            return
        stats.latencies.append(time.perf_counter() - started)
        stats.images += outcome.image is not None
    finally:
        table.busy = False


def pick(tables: list[Table], rng: random.Random) -> Table | None:
    for _ in range(20):
        table = rng.choice(tables)
        if not table.busy:
            return table
    return None


async def throughput(
    service: GameService, tables: list[Table], clients: int, seconds: float, render: bool
) -> Stats:
    stats = Stats()
    deadline = time.perf_counter() + seconds

    async def client(seed: int) -> None:
        rng = random.Random(seed)
        while time.perf_counter() < deadline:
            table = pick(tables, rng)
            if table is None:
                await asyncio.sleep(0)
                continue
            await one_action(service, table, rng, stats, render)

    await asyncio.gather(*(client(i) for i in range(clients)))
    return stats


async def latency(
    service: GameService, tables: list[Table], rate: float, seconds: float, render: bool
) -> Stats:
    stats = Stats()
    rng = random.Random(7)
    tasks: set[asyncio.Task[None]] = set()
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        await asyncio.sleep(rng.expovariate(rate))
        table = pick(tables, rng)
        if table is None:
            continue
        table.busy = True
        task = asyncio.create_task(
            one_action(service, table, random.Random(rng.random()), stats, render)
        )
        tasks.add(task)
        task.add_done_callback(tasks.discard)
    await asyncio.gather(*tasks)
    return stats


def report(name: str, stats: Stats, seconds: float) -> float:
    ms = sorted(x * 1000 for x in stats.latencies)
    if not ms:
        print(f"{name}: no actions completed")
        return float("inf")

    def q(p: float) -> float:
        return ms[min(len(ms) - 1, int(p * len(ms)))]

    print(
        f"{name}: {len(ms)} actions in {seconds:.1f} s = {len(ms) / seconds:.1f} actions/s; "
        f"latency p50 {q(0.50):.1f} ms, p90 {q(0.90):.1f} ms, p99 {q(0.99):.1f} ms, "
        f"max {ms[-1]:.1f} ms, mean {statistics.fmean(ms):.1f} ms; "
        f"images {stats.images}, refused {stats.errors}, games finished {stats.finished}"
    )
    return q(0.99)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--clients", type=int, default=64)
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--rate", type=float, default=40.0, help="offered actions/s, phase 2")
    parser.add_argument("--db", default=None)
    parser.add_argument("--no-render", action="store_true")
    args = parser.parse_args()
    render = not args.no_render
    with tempfile.TemporaryDirectory() as tmp:
        db = args.db or os.path.join(tmp, "bench.sqlite3")
        service = await GameService.open(db)
        rng = random.Random(1)
        print(
            f"python {sys.version.split()[0]}, sqlite {sqlite3.sqlite_version}, "
            f"{os.cpu_count()} CPUs, render={'on' if render else 'off'}, db={db}"
        )
        started = time.perf_counter()
        tables = [Table(location) for location in range(1, args.games + 1)]
        for table in tables:
            await new_game(service, table, rng)
        print(f"set up {len(tables)} live games in {time.perf_counter() - started:.1f} s")
        # Warm the renderer's caches (sprites, boards) once per variant, untimed.
        for table in tables[:20]:
            await one_action(service, table, rng, Stats(), render)

        t0 = time.perf_counter()
        stats = await throughput(service, tables, args.clients, args.seconds, render)
        report(f"throughput ({args.clients} players back to back)", stats, time.perf_counter() - t0)

        t0 = time.perf_counter()
        stats = await latency(service, tables, args.rate, args.seconds, render)
        p99 = report(f"latency (Poisson {args.rate:g} actions/s)", stats, time.perf_counter() - t0)
        verdict = "meets" if p99 <= TARGET_P99_MS else "MISSES"
        print(f"p99 {p99:.1f} ms {verdict} the target p99 <= {TARGET_P99_MS:g} ms")
        await service.close()


if __name__ == "__main__":
    asyncio.run(main())
