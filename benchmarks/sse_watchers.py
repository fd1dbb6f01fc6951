"""Open live game pages for ``benchmarks/service.py --watchers``: ``N`` server-sent event
streams spread over the game paths given, each read to its end, in this process (as in
production the browsers are not in the bot's process). Prints ``READY n`` once every
stream is open, then ``CPU s`` (its CPU seconds) and ``EVENTS n`` (the events read in
all) when its stdin closes.

    python benchmarks/sse_watchers.py BASE_URL N PATH...
"""

from __future__ import annotations

import asyncio
import resource
import sys

import aiohttp
from web_sse import Watchers, _nofile


async def main(base: str, total: int, paths: list[str]) -> None:
    _nofile()
    watchers = Watchers()  # benchmarks/web_sse.py's streams, as its pages read them
    connector = aiohttp.TCPConnector(limit=0)
    timeout = aiohttp.ClientTimeout(total=None, sock_read=None)
    async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:
        for k in range(total):
            path = paths[k % len(paths)]
            watchers.tasks.append(asyncio.create_task(watchers.watch(session, base, path)))
        while watchers.ready < total:
            failed = [t for t in watchers.tasks if t.done() and t.exception() is not None]
            if failed:
                raise SystemExit(f"a page could not be opened: {failed[0].exception()!r}")
            await asyncio.sleep(0.05)
        print(f"READY {watchers.ready}", flush=True)
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
        for task in watchers.tasks:
            task.cancel()
        await asyncio.gather(*watchers.tasks, return_exceptions=True)
    events = sum(len(arrived) for arrived in watchers.arrivals.values())
    used = resource.getrusage(resource.RUSAGE_SELF)
    print(f"CPU {used.ru_utime + used.ru_stime:.2f}", flush=True)
    print(f"EVENTS {events}", flush=True)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], int(sys.argv[2]), sys.argv[3:]))
