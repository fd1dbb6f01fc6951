"""Live game pages beside the timed bot of ``benchmarks/service.py --watchers N:G`` (issue 28).

The timed bot's process serves the games' pages (``bot.web``, as ``CHESSGARDEN_WEB``
starts it); another process (``benchmarks/sse_watchers.py``) keeps N server-sent event
streams open over G of the games. What is measured here, beside the move path's own
latency that ``service.py`` measures:

- **Commit to every watcher.** A row listener added before the web server's records when
  each move of a watched game is committed (``time.monotonic()``, right after the commit,
  inside ``act``). The hub's event build is wrapped to note which commits each event
  carries (those before the build began; the earliest one is its commit time, so a
  coalesced event is timed from its oldest move). The watchers' process stamps each
  event when its last byte is read (the same clock: Linux's CLOCK_MONOTONIC is
  system-wide). For each event of the timed load, a watcher's arrival is the first event
  it read that carries that step (an event it skipped is carried by the next one);
  "every watcher" is the latest of the game's watchers. Its quantiles over the events are
  the issue's figure (p99 <= 200 ms); an event that some watcher never received is
  counted as missed.
- **Memory per watcher**: the bot's RSS once every page is open and has its first event,
  minus before the web server started, plus the live pages' relay process's RSS (it
  holds the pages' connections), over the pages.
- **CPU of each process** over the timed load: the bot's (and per thread), the watchers'
  process (``mark`` before and after), and the relay's (``relay``: the process that
  writes the pages, ``bot.web.relay``). The load generator (the Discord payloads, the fake
  Discord) runs in the bot's process; ``CHESSGARDEN_BENCH_PROFILE=DIR`` writes a cProfile
  of the loop's thread over the timed load there, to split the bot's CPU by part.
"""

from __future__ import annotations

import asyncio
import bisect
import json
import os
import re
import statistics
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from timing import quantile

WATCHERS_VAR = "CHESSGARDEN_BENCH_WATCHERS"  # "N:G": N live pages over G games
CLIENT_VAR = "CHESSGARDEN_BENCH_CLIENT"  # the watchers' client: epoll (default), protocol, aiohttp
PROFILE_VAR = "CHESSGARDEN_BENCH_PROFILE"  # a directory for the timed load's cProfile
LAST = re.compile(rb'"last":(-?\d+)')
SETTLE_S = 1.0  # after the load: the events in flight reach their pages


def rss_kb(pid: int | str = "self") -> int:
    with open(f"/proc/{pid}/statm") as f:
        return int(f.read().split()[1]) * (os.sysconf("SC_PAGE_SIZE") // 1024)


def relay_pid(site: Any) -> int | None:
    """The live pages' relay process (``bot.web.relay``), if this tree has one running."""
    relay = getattr(site.hub, "relay", None)
    process = getattr(relay, "process", None)
    return None if process is None else int(process.pid)


def stat_fields(folder: Path) -> Iterator[tuple[int, list[str]]]:
    """(id, the fields after the name in its ``stat``) of every process (``/proc``) or
    thread (``/proc/self/task``) in ``folder``; one that ended meanwhile is left out."""
    for entry in folder.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            yield int(entry.name), (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue


def thread_cpu(
    skip: int | None = None, relay: int | None = None, others: dict[int, str] | None = None
) -> dict[str, float]:
    """CPU seconds of this process's threads so far, by name (numbers dropped, so that a
    pool's threads add up), and of its children (``children``) but ``skip``; the live
    pages' relay process (``relay``) apart, as ``relay``; and of the processes ``others``
    names (pid: name; the painter, which the fork server started, not this process)."""
    tick = os.sysconf("SC_CLK_TCK")
    found: dict[str, float] = {}
    names = {t.native_id: t.name for t in threading.enumerate()}
    for tid, fields in stat_fields(Path("/proc/self/task")):
        name = names.get(tid, "other")
        name = "loop" if tid == os.getpid() else name.rstrip("0123456789_-")
        found[name] = found.get(name, 0.0) + (int(fields[11]) + int(fields[12])) / tick
    me = str(os.getpid())
    for pid, fields in stat_fields(Path("/proc")):
        named = (others or {}).get(pid)
        if named is not None or (fields[1] == me and pid != skip):
            name = named or ("relay" if pid == relay else "children")
            found[name] = found.get(name, 0.0) + (int(fields[11]) + int(fields[12])) / tick
    return found


def cpu_between(before: dict[str, float], after: dict[str, float]) -> dict[str, float]:
    return {k: round(v - before.get(k, 0.0), 2) for k, v in after.items() if v > before.get(k, 0)}


class Pages:
    """The web server in the timed bot's process, its watchers' process, and what the
    two say about the events of the watched games."""

    def __init__(self, site: Any, server: Any, games: list[int]) -> None:
        self.site, self.server, self.games = site, server, games
        self.proc: Any = None
        self.open = 0
        self.kb_per_watcher = float("nan")
        self._pending: dict[int, list[float]] = {}  # commits no event carries yet
        self.commits: dict[tuple[int, int], float] = {}  # (game, last step) -> commit time
        watched = set(games)

        def committed(row: Any) -> None:
            if row.id in watched:
                self._pending.setdefault(row.id, []).append(time.monotonic())

        self.listener = committed
        hub = site.hub
        real_build = hub._build

        async def build(game_id: int) -> Any:
            carried = self._pending.pop(game_id, [])
            out = await real_build(game_id)
            found = LAST.search(out[0], 0, 400)
            if carried and found:
                self.commits.setdefault((game_id, int(found.group(1))), min(carried))
            return out

        hub._build = build

    async def start(self, total: int, client: str) -> None:
        before = rss_kb()
        await self.server.start()
        links = self.site.links
        self.proc = await asyncio.create_subprocess_exec(
            sys.executable, str(Path(__file__).with_name("sse_watchers.py")), "--client", client,
            f"http://127.0.0.1:{self.server.port}", str(total),
            *(links.game_path(g) for g in self.games),
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            limit=1 << 30,
        )  # fmt: skip
        assert self.proc.stdout is not None
        said = (await self.proc.stdout.readline()).decode().split()
        if said[:1] != ["READY"]:
            raise SystemExit(f"the watchers did not start: {said}")
        self.open = int(said[1])
        await asyncio.sleep(SETTLE_S)  # every page has its first event
        relay = relay_pid(self.site)  # started with the first page: all of it counts
        grown = rss_kb() - before + (rss_kb(relay) if relay is not None else 0)
        self.kb_per_watcher = grown / max(1, self.open)

    async def mark(self) -> float:
        """The watchers' process's CPU seconds so far."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(b"mark\n")
        await self.proc.stdin.drain()
        said = (await self.proc.stdout.readline()).decode().split()
        return float(said[1])

    async def close(self, timed: tuple[float, float], client_cpu_s: float) -> dict[str, Any]:
        """The figures of the events committed in ``timed`` (monotonic start, end), after
        the events in flight have arrived; the pages closed."""
        await asyncio.sleep(SETTLE_S)
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.close()
        told = json.loads(await self.proc.stdout.readline())
        await self.proc.wait()
        await self.server.stop()
        game_of = {self.site.links.game_path(g): g for g in self.games}
        streams: dict[int, list[tuple[list[int], list[float]]]] = {}
        for path, arrivals in told["arrivals"]:
            lasts, times = [], []
            for last, at in arrivals:  # a step number that falls (a take-back) is skipped
                if not lasts or last >= lasts[-1]:
                    lasts.append(last)
                    times.append(at)
            streams.setdefault(game_of[path], []).append((lasts, times))
        every: list[float] = []
        each: list[float] = []
        missed = 0
        for (game, last), commit in self.commits.items():
            if not timed[0] <= commit <= timed[1]:
                continue
            got = []
            for lasts, times in streams.get(game, []):
                k = bisect.bisect_left(lasts, last)
                if k == len(lasts):
                    break
                got.append((times[k] - commit) * 1000)
            if len(got) < len(streams.get(game, [])) or not got:
                missed += 1
                continue
            every.append(max(got))
            each.extend(got)
        every.sort()
        each.sort()
        return {
            "client": told["client"],
            "open": told["open"],
            "events": told["events"],
            "bytes": told["bytes"],
            "cpu_s": told["cpu_s"],
            "sys_s": told.get("sys_s", float("nan")),
            "timed_cpu_s": client_cpu_s,
            "moves": len(every),
            "missed": missed,
            "every_p50": quantile(every, 0.5),
            "every_p99": quantile(every, 0.99),
            "every_max": every[-1] if every else float("nan"),
            "each_p50": quantile(each, 0.5),
            "each_p99": quantile(each, 0.99),
            "kb_per_watcher": self.kb_per_watcher,
            # the waves' waits for commands (an older tree's waves never wait)
            "yielded_s": getattr(self.site.hub.waves, "yielded_s", 0.0),
        }


async def open_pages(service: Any, ids: list[int]) -> Pages:
    from bot.links import Links
    from bot.web.app import RateLimit, Site, WebServer
    from bot.web.live import Limits

    total, count = (int(x) for x in os.environ[WATCHERS_VAR].split(":"))
    links = Links(b"benchmark-secret-not-a-real-one-0123", "")
    site = Site(
        service,
        links,
        rate=RateLimit(rate=1e6, burst=1e6),
        limits=Limits(per_game=total, per_address=total, total=total),
    )
    pages = Pages(site, WebServer(site, "127.0.0.1", 0), ids[:count])
    service.add_row_listener(pages.listener)  # before the web server's own
    await pages.start(total, os.environ.get(CLIENT_VAR, "epoll"))
    return pages


def describe(pages: dict[str, Any], bot_cpu: dict[str, float], seconds: float) -> str:
    """The lines ``service.py`` prints for a watched run."""
    threads = ", ".join(f"{k} {v:.1f}" for k, v in sorted(bot_cpu.items(), key=lambda kv: -kv[1]))
    return (
        f"    live pages open {pages['open']} ({pages['client']} client), commit->every "
        f"watcher p50 {pages['every_p50']:.1f} ms, p99 {pages['every_p99']:.1f} ms, max "
        f"{pages['every_max']:.1f} ms over {pages['moves']} events (missed {pages['missed']}); "
        f"per watcher p50 {pages['each_p50']:.1f}, p99 {pages['each_p99']:.1f} ms; "
        f"{pages['kb_per_watcher']:.1f} KB per watcher; the waves waited "
        f"{pages['yielded_s']:.2f} s for commands\n"
        f"    CPU over the {seconds:g} s timed load: bot {sum(bot_cpu.values()):.1f} s "
        f"({threads}), watchers' process {pages['timed_cpu_s']:.1f} s "
        f"({pages['cpu_s']:.1f} s in all; {pages['events']} events, "
        f"{pages['bytes'] / 1e6:.1f} MB read)"
    )


def medians(runs: list[dict[str, Any]]) -> str:
    def med(key: str) -> float:
        return statistics.median(r["pages"][key] for r in runs)

    return (
        f"commit->every watcher p99 {med('every_p99'):.1f} ms (goal <= 200), "
        f"{med('kb_per_watcher'):.1f} KB per watcher, watchers' process "
        f"{med('timed_cpu_s'):.1f} s CPU per run"
    )
