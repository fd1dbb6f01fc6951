"""Cold start of the command line: ``chessgarden variants`` against ``python -c pass``.

    python benchmarks/cli_start.py [--runs N] [--command WORDS]

Each run starts a fresh interpreter, as a user does: the installed ``chessgarden``
script (the one beside this interpreter; ``python -m bot.cli`` if there is none)
with ``variants``, and the same interpreter with ``-c pass``. The two are
interleaved, one pair per repetition, so that load on the machine hits both alike;
a warm-up pair runs first (the file cache). It prints the medians, the median of
the per-pair ratios, and the target.

Both run without ``PYTHONDONTWRITEBYTECODE`` (this machine's environment sets it), as on a
user's machine, where Python keeps the compiled modules (pip compiles them on install, an
editable install on first import, here the warm-up pair): with it set, every run would
compile each imported module of ours from source while ``-c pass`` imports almost nothing.

Target (issue 12): at most 5x ``python -c pass``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET = 5.0


def ours(words: list[str]) -> list[str]:
    script = Path(sys.executable).with_name("chessgarden")
    if script.exists():
        return [str(script), *words]
    return [sys.executable, "-m", "bot.cli", *words]


def timed(argv: list[str]) -> float:
    started = time.perf_counter()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    done = subprocess.run(
        argv, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env
    )
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed: {done.stderr.decode().strip()}")
    return elapsed


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=30, help="interleaved pairs (default 30)")
    ap.add_argument(
        "--command", default="variants", help="the subcommand and its words (default: variants)"
    )
    args = ap.parse_args(argv)
    command = ours(args.command.split())
    baseline = [sys.executable, "-c", "pass"]
    timed(command)
    timed(baseline)
    mine: list[float] = []
    base: list[float] = []
    for _ in range(max(1, args.runs)):
        mine.append(timed(command))
        base.append(timed(baseline))
    ratios = [m / b for m, b in zip(mine, base, strict=True)]
    label = f"chessgarden {args.command}"
    width = max(len(label), len("python -c pass"))
    print(f"{args.runs} interleaved runs each; median (min-max) wall time of a fresh process")
    print(
        f"  {label:<{width}}  {statistics.median(mine) * 1000:7.1f} ms"
        f"  ({min(mine) * 1000:.1f}-{max(mine) * 1000:.1f})"
    )
    print(
        f"  {'python -c pass':<{width}}  {statistics.median(base) * 1000:7.1f} ms"
        f"  ({min(base) * 1000:.1f}-{max(base) * 1000:.1f})"
    )
    ratio = statistics.median(ratios)
    verdict = "met" if ratio <= TARGET else "NOT met"
    print(f"  ratio (median of per-pair ratios): {ratio:.2f}x  (target <= {TARGET:g}x: {verdict})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
