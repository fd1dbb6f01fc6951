"""Live game pages under load (issue 28): how long a committed move takes to reach every
open page, and what an open page costs the server.

    python benchmarks/web_sse.py [--watchers 1000] [--games 200] [--per-game 5]
                                 [--moves 30] [--reps 3] [--gap 0.25]

Methodology:

- **Two processes**, as in production the browsers are not in the bot's process: the
  server (a ``GameService`` on a fresh SQLite file, with ``bot.web`` on 127.0.0.1) and
  the watchers (aiohttp clients, one SSE connection each, in this process).
- **Timed from the commit**: the server records ``time.monotonic()`` in a row listener
  added before the web server's (it runs right after the commit, inside ``act``); each
  watcher records when its event for that ply arrives (the same clock: Linux's
  CLOCK_MONOTONIC is system-wide). "Every watcher" is the latest of the watchers' arrivals
  for that move; its p99 over the moves is the figure the issue asks for (<= 200 ms).
- **One live game**: ``--watchers`` pages of one game aged 40 plies, then ``--moves``
  moves ``--gap`` s apart. **Many games**: ``--games`` games with ``--per-game`` pages
  each; each round moves every game once, in a random order, ``--gap`` s apart per round.
- **The move path, baseline in the same run**: ``act``'s own duration in the server with
  the watchers connected, against as many moves of the same games with no page open, made
  just before the watchers connect (each repetition; the scenarios alternate ABBA). The
  issue's goal: p99 <= 50 ms, unchanged. (``benchmarks/service.py``, the whole Discord
  move path, is not run here.)
- **Memory per watcher**: the server's RSS with the watchers connected (and one event
  sent to all) minus before, divided by the watchers.
- **Server CPU per move**: the server process's CPU time over the watched moves (the
  fan-out included) divided by the moves, beside the same over the moves with no page
  open: the cost of the pages that the machine's load does not blur as much as latency.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

LAST = re.compile(rb'"last":(\d+)')


def _nofile() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def rss_kb() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * (os.sysconf("SC_PAGE_SIZE") // 1024)


def q(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p * len(ordered)))] if ordered else float("nan")


# ----- the server process ----------------------------------------------------------------


async def serve(db: str, games: int) -> None:
    import variants
    from bot.links import Links
    from bot.service import GameService
    from bot.web.app import RateLimit, Site, WebServer
    from bot.web.live import Limits

    _nofile()
    service = await GameService.open(db, cpu_workers=2)
    committed: dict[tuple[int, int], float] = {}
    service.add_row_listener(
        lambda row: committed.__setitem__((row.id, row.log_count), time.monotonic())
    )
    site = Site(
        service,
        Links(b"benchmark-secret-0123456789abcdef"),
        limits=Limits(per_game=20_000, per_address=50_000, total=50_000),
        rate=RateLimit(rate=1e9, burst=1e9),
    )
    server = WebServer(site, "127.0.0.1", 0)
    await server.start()
    ids = []
    for n in range(games):
        c = await service.challenge(
            location_id=1000 + n,
            challenger_id=11,
            opponent_id=12,
            variant="tquarchess",
            colour="white",
            guild_id=5,
        )
        await service.accept(user_id=12, game_id=c.game.id, seed=f"bench-{n}")
        ids.append(c.game.id)
    rng = random.Random(7)

    async def move(game_id: int) -> dict[str, Any]:
        view = await service.view(game_id=game_id)
        legal = [m for m in await service.legal_moves(game_id=game_id) if m not in ("resign",)]
        start = time.monotonic()
        outcome = await service.act(
            user_id=view.to_move_id, text=rng.choice(legal), game_id=game_id, render=False
        )
        took = time.monotonic() - start
        record = (await service.history(game_id=game_id)).record
        ply = len(variants.parse_record(record)[1])  # the page's step count
        key = max(k for k in committed if k[0] == game_id)
        return {
            "game": game_id,
            "ply": ply,
            "commit": committed[key],
            "act_ms": took * 1000,
            "over": outcome.game_over,
        }

    for game_id in ids:  # aged games: 40 plies each (the first game's page lists them all)
        for _ in range(40 if game_id == ids[0] else 10):
            if (await move(game_id))["over"]:
                break
    print(
        json.dumps(
            {"port": server.port, "ids": ids, "paths": [site.links.game_path(g) for g in ids]}
        ),
        flush=True,
    )
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    while line := await reader.readline():
        command = json.loads(line)
        if command["do"] == "move":
            answer = await move(command["game"])
        elif command["do"] == "rss":
            answer = {"rss_kb": rss_kb(), "watchers": site.hub.total, "cpu_s": time.process_time()}
        else:
            break
        print(json.dumps(answer), flush=True)
    await server.stop()
    await service.close()


# ----- the watchers (this process) ----------------------------------------------------------


class Server:
    def __init__(self, games: int) -> None:
        self.dir = tempfile.TemporaryDirectory()
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        self.proc = subprocess.Popen(
            [
                sys.executable,
                __file__,
                "--serve",
                str(Path(self.dir.name) / "b.sqlite3"),
                "--games",
                str(games),
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )
        self.hello = self._read()
        self.base = f"http://127.0.0.1:{self.hello['port']}"

    def _read(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            raise SystemExit("the server process ended")
        return json.loads(line)  # type: ignore[no-any-return]

    async def ask(self, **command: Any) -> dict[str, Any]:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(command) + "\n")
        self.proc.stdin.flush()
        return await asyncio.to_thread(self._read)

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps({"do": "quit"}) + "\n")
        self.proc.stdin.flush()
        self.proc.wait(30)
        self.dir.cleanup()


class Watchers:
    """SSE connections; ``arrivals[(path, ply)]`` lists each watcher's arrival time."""

    def __init__(self) -> None:
        self.arrivals: dict[tuple[str, int], list[float]] = {}
        self.tasks: list[asyncio.Task[None]] = []
        self.ready = 0

    async def watch(self, session: Any, url: str, path: str) -> None:
        async with session.get(url + path + "/events") as response:
            assert response.status == 200, response.status
            self.ready += 1
            async for line in response.content:
                if line.startswith(b"data: "):
                    now = time.monotonic()
                    found = LAST.search(line, 0, 200)
                    if found:
                        self.arrivals.setdefault((path, int(found.group(1))), []).append(now)

    async def wait_ready(self, count: int) -> None:
        while self.ready < count:
            await asyncio.sleep(0.05)


async def scenario(
    server: Server, paths: list[str], per: int, moves: int, gap: float, rng: random.Random
) -> dict[str, Any]:
    import aiohttp

    ids = dict(zip(server.hello["paths"], server.hello["ids"], strict=True))
    start = await server.ask(do="rss")
    before = start["rss_kb"]
    # the move path with no page open: the baseline, interleaved with the watched runs
    base_ms = [
        (await server.ask(do="move", game=ids[p]))["act_ms"]
        for p in rng.sample(paths, min(len(paths), moves))
    ]
    base_cpu_ms = ((await server.ask(do="rss"))["cpu_s"] - start["cpu_s"]) * 1000 / len(base_ms)
    watchers = Watchers()
    connector = aiohttp.TCPConnector(limit=0)
    timeout = aiohttp.ClientTimeout(total=None, sock_read=None)
    async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:
        for path in paths:
            for _ in range(per):
                watchers.tasks.append(
                    asyncio.create_task(watchers.watch(session, server.base, path))
                )
        await watchers.wait_ready(len(watchers.tasks))
        await asyncio.sleep(1.0)
        during = await server.ask(do="rss")
        every: list[float] = []
        each: list[float] = []
        act_ms: list[float] = []
        rounds = moves if len(paths) == 1 else max(1, moves // len(paths) + 1)
        done = 0
        for _ in range(rounds):
            for path in rng.sample(paths, len(paths)):
                if done >= moves and len(paths) == 1:
                    break
                answer = await server.ask(do="move", game=ids[path])
                act_ms.append(answer["act_ms"])
                key = (path, answer["ply"])
                deadline = time.monotonic() + 10
                while len(watchers.arrivals.get(key, ())) < per and time.monotonic() < deadline:
                    await asyncio.sleep(0.002)
                got = watchers.arrivals.get(key, [])
                if len(got) < per:
                    raise SystemExit(f"only {len(got)} of {per} watchers saw ply {key[1]}")
                every.append((max(got) - answer["commit"]) * 1000)
                each.extend((t - answer["commit"]) * 1000 for t in got)
                done += 1
                if answer["over"]:
                    break
            await asyncio.sleep(gap)
        cpu_ms = ((await server.ask(do="rss"))["cpu_s"] - during["cpu_s"]) * 1000 / max(1, done)
        for task in watchers.tasks:
            task.cancel()
        await asyncio.gather(*watchers.tasks, return_exceptions=True)
    return {
        "watchers": during["watchers"],
        "kb_per_watcher": (during["rss_kb"] - before) / max(1, during["watchers"]),
        "every_p50": q(every, 0.5),
        "every_p99": q(every, 0.99),
        "every_max": max(every),
        "each_p50": q(each, 0.5),
        "each_p99": q(each, 0.99),
        "act_p99": q(act_ms, 0.99),
        "base_act_p99": q(base_ms, 0.99),
        "moves": len(every),
        "cpu_ms": cpu_ms,
        "base_cpu_ms": base_cpu_ms,
    }


def line(name: str, r: dict[str, Any]) -> str:
    return (
        f"{name:10} watchers {r['watchers']:5}  commit->every watcher p50 {r['every_p50']:6.1f} "
        f"p99 {r['every_p99']:6.1f} max {r['every_max']:6.1f} ms | per watcher p50 "
        f"{r['each_p50']:6.1f} p99 {r['each_p99']:6.1f} ms | act p99 {r['act_p99']:5.1f} ms "
        f"(no pages {r['base_act_p99']:5.1f} ms, ratio {r['act_p99'] / r['base_act_p99']:.2f}) | "
        f"{r['kb_per_watcher']:5.1f} KB/watcher | {r['moves']} moves | server CPU "
        f"{r['cpu_ms']:5.1f} ms/move (no pages {r['base_cpu_ms']:5.1f})"
    )


async def main(args: argparse.Namespace) -> None:
    _nofile()
    print(f"load average before: {os.getloadavg()}")
    rng = random.Random(3)
    results: dict[str, list[dict[str, Any]]] = {"one game": [], "many games": []}
    for rep in range(args.reps):
        for name in ("one game", "many games") if rep % 2 == 0 else ("many games", "one game"):
            server = Server(args.games)
            try:
                paths = server.hello["paths"]
                if name == "one game":
                    r = await scenario(server, paths[:1], args.watchers, args.moves, args.gap, rng)
                else:
                    r = await scenario(
                        server, paths[: args.games], args.per_game, args.moves * 4, args.gap, rng
                    )
            finally:
                server.close()
            results[name].append(r)
            print(f"rep {rep + 1} " + line(name, r), flush=True)
    print("medians over the repetitions:")
    for name, runs in results.items():
        med = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
        print("        " + line(name, med))
        ratios = [r["act_p99"] / r["base_act_p99"] for r in runs]
        print(
            f"        {name}: median of the per-repetition act p99 ratios (pages/no pages) "
            f"{statistics.median(ratios):.2f}; goal: commit->every watcher p99 <= 200 ms"
        )
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--serve", metavar="DB", help=argparse.SUPPRESS)
    parser.add_argument("--watchers", type=int, default=1000)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--per-game", type=int, default=5)
    parser.add_argument("--moves", type=int, default=30)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--gap", type=float, default=0.25)
    parsed = parser.parse_args()
    if parsed.serve:
        asyncio.run(serve(parsed.serve, parsed.games))
    else:
        asyncio.run(main(parsed))
