"""Split a cProfile of the timed bot's loop thread (``CHESSGARDEN_BENCH_PROFILE=DIR`` with
``benchmarks/service.py --watchers``) into parts: what each top-level callback of the
event loop cost, grouped.

    python benchmarks/profile_parts.py DIR/watched-100.prof [--top 25]

Every callback the loop runs is called from ``Context.run``, so its callees are the loop's
top-level work: a task's step (the coroutine's own function), a socket's read, a timer.
Their CPU (the profile's timer is the thread's CPU clock) is grouped by the part it
belongs to; the parts' sum is the loop thread's CPU under the profiler (which slows
Python calls, so compare shares, not seconds with an unprofiled run).
"""

from __future__ import annotations

import argparse
import pstats
from typing import Any

# (part, test on "file:function") in order: the first that matches names the callback
PARTS: list[tuple[str, tuple[str, ...]]] = [
    ("fan-out writes (Waves)", ("live.py:_run",)),
    ("event build (hub, states)", ("live.py:_refresh", "state.py:_read", "app.py:_event")),
    ("live pages' HTTP (aiohttp, events handler)", ("web_protocol", "app.py:events", "web_")),
    ("move path + load generator (the /move commands)", ("service.py:move", "flows.py:work")),
    ("load generator (arrivals)", ("service.py:load",)),
    ("measurement (loop probe)", ("service.py:probe",)),
]


def part_of(name: str) -> str:
    for part, tests in PARTS:
        if any(test in name for test in tests):
            return part
    return "other"


def label(func: tuple[str, int, str]) -> str:
    file, line, name = func
    return f"{file.rsplit('/', 1)[-1]}:{name}" if file != "~" else name


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("profile")
    parser.add_argument("--top", type=int, default=25)
    args = parser.parse_args()
    stats: Any = pstats.Stats(args.profile)
    raw = stats.stats  # func -> (cc, nc, tt, ct, callers)
    total = sum(tt for _, (_, _, tt, _, _) in raw.items())
    roots: dict[str, float] = {}
    parts: dict[str, float] = {}
    for func, (_, _, _, _, callers) in raw.items():
        for caller, (_, _, _, ct) in callers.items():
            if caller[2] == "<method 'run' of '_contextvars.Context' objects>":
                roots[label(func)] = roots.get(label(func), 0.0) + ct
    for name, ct in roots.items():
        parts[part_of(name)] = parts.get(part_of(name), 0.0) + ct
    outside = total - sum(parts.values())
    print(f"loop thread CPU under the profiler: {total:.2f} s")
    for part, ct in sorted(parts.items(), key=lambda kv: -kv[1]):
        print(f"  {part:50s} {ct:6.2f} s  {ct / total:5.1%}")
    print(
        f"  {'the loop itself (select, scheduling)':50s} {outside:6.2f} s  {outside / total:5.1%}"
    )
    print("top-level callbacks:")
    for name, ct in sorted(roots.items(), key=lambda kv: -kv[1])[: args.top]:
        print(f"  {ct:6.2f} s  {name}  [{part_of(name)}]")
    inner = [
        ("the move command (CommandTree._call)", "_call", "app_commands/tree.py"),
        ("fake Discord HTTP (load generator)", "bot_request", "discord_fake.py"),
        ("Interaction() from the payload (load generator)", "__init__", "discord/interactions.py"),
        ("GameService.act", "act", "bot/service/core.py"),
        ("transport.write (fan-out)", "write", "selector_events.py"),
    ]
    print("inside:")
    for title, name, file in inner:
        ct = sum(v[3] for f, v in raw.items() if f[2] == name and f[0].endswith(file))
        print(f"  {title:50s} {ct:6.2f} s")


if __name__ == "__main__":
    main()
