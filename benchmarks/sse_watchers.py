"""Open live game pages for ``benchmarks/service.py --watchers``: ``N`` server-sent event
streams spread over the game paths given, each read to its end, in this process (as in
production the browsers are not in the bot's process). Prints ``READY n`` once every
stream is open, then ``EVENTS n`` (the events read in all) when its stdin closes.

    python benchmarks/sse_watchers.py BASE_URL N PATH...
"""

from __future__ import annotations

import asyncio
import resource
import sys

import aiohttp


async def main(base: str, total: int, paths: list[str]) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    events = 0
    ready = 0

    async def watch(session: aiohttp.ClientSession, path: str) -> None:
        nonlocal events, ready
        async with session.get(base + path + "/events") as response:
            if response.status != 200:
                raise SystemExit(f"{path}: {response.status}")
            ready += 1
            async for line in response.content:
                events += line.startswith(b"data: ")

    connector = aiohttp.TCPConnector(limit=0)
    timeout = aiohttp.ClientTimeout(total=None, sock_read=None)
    async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:
        tasks = [asyncio.create_task(watch(session, paths[k % len(paths)])) for k in range(total)]
        while ready < total:
            done = [t for t in tasks if t.done() and t.exception() is not None]
            if done:
                raise SystemExit(f"a page could not be opened: {done[0].exception()}")
            await asyncio.sleep(0.05)
        print(f"READY {ready}", flush=True)
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    print(f"EVENTS {events}", flush=True)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], int(sys.argv[2]), sys.argv[3:]))
