"""Benchmark ratings at scale: /leaderboard and /profile at 100,000 rated games.

    python benchmarks/ratings.py [--games 100000] [--players 2000] [--reps 30] [--db PATH]

What a user waits for is timed: ``GameService.leaderboard`` (the top 10, and the top 10
plus the caller's own rank far below) and ``GameService.profile`` (every variant's rating,
rank, last 5 results and current games), on a SQLite file holding ``--games`` finished
rated games between ``--players`` players in 4 servers and 5 variants.

Setting up (not timed against anything): the games and their log are written straight
into a fresh database (one finishing entry each; the fastest way to 100,000 games), then
``GameService.rebuild_ratings`` rates them all in order, as ``chessgarden ratings
rebuild`` would; its time is printed too.

Baseline: the same queries on a copy of the same database without the rating indexes
(``ratings_board``, ``ratings_by_player``, ``rating_changes_by_player``), i.e. what the
indexes buy. The two run interleaved (ours, baseline, ours, ...) ``--reps`` times per
case; it prints the median of each and the median of the per-case ratios. On a loaded
machine the absolute times are noisy; the ratios less so.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.service import GameService  # noqa: E402
from storage import SqliteRepository  # noqa: E402

VARIANTS = ("guardener", "tquarchess", "kings_guard", "stone_garden", "jepps_random")
GUILDS = (1001, 1002, 1003, 1004)
RATING_INDEXES = ("ratings_board", "ratings_by_player", "rating_changes_by_player")


def populate(path: Path, games: int, players: int, seed: int = 15) -> None:
    """``games`` finished rated games (and a few live ones) written straight in."""
    rng = random.Random(seed)
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("BEGIN")
    start = datetime(2030, 1, 1, tzinfo=UTC)
    for pid in range(1, players + 1):
        conn.execute(
            "INSERT INTO players (id, name, created_at, updated_at) VALUES (?, ?, ?, ?)",
            (pid, f"player{pid}", start.isoformat(), start.isoformat()),
        )
    # Some players play far more than others (as on any server).
    weights = [1.0 / (1 + n) ** 0.6 for n in range(players)]
    for n in range(games):
        white, black = rng.choices(range(1, players + 1), weights, k=2)
        if white == black:
            black = white % players + 1
        at = (start + timedelta(minutes=7 * n)).isoformat(timespec="milliseconds")
        cur = conn.execute(
            "INSERT INTO games (variant, options, status, location_id, guild_id, challenger_id, "
            "opponent_id, challenger_colour, white_id, black_id, result, result_reason, seed, "
            "commitment, start_rolls, created_at, updated_at, rated, finish_order) "
            "VALUES (?, '{}', 'finished', ?, ?, ?, ?, 'white', ?, ?, ?, 'resignation', ?, ?, "
            "'[]', ?, ?, 1, ?)",
            (
                rng.choice(VARIANTS),
                10_000_000 + n,
                rng.choice(GUILDS),
                white,
                black,
                white,
                black,
                rng.choice(["1-0", "0-1", "1/2-1/2", "1-0", "0-1"]),
                f"seed{n}",
                f"commitment{n}",
                at,
                at,
                n + 1,
            ),
        )
        conn.execute(
            "INSERT INTO actions (game_id, seq, kind, actor_id, text, rolls, roll_index, "
            "created_at) VALUES (?, 1, 'resign', ?, 'resigns', '[]', 0, ?)",
            (cur.lastrowid, black, at),
        )
    conn.execute("COMMIT")
    conn.close()


async def prepare(path: Path, games: int, players: int) -> float:
    repo = await SqliteRepository.open(path)  # the schema, migrated to the latest
    await repo.close()
    populate(path, games, players)
    service = await GameService.open(str(path), renderer=None, dice_renderer=None)
    try:
        began = time.perf_counter()
        report = await service.rebuild_ratings()
        took = time.perf_counter() - began
        print(f"rebuild: {report.line.rstrip('.')}, in {took:.1f} s", flush=True)
    finally:
        await service.close()
    return took


def without_indexes(path: Path, copy: Path) -> None:
    shutil.copyfile(path, copy)
    conn = sqlite3.connect(copy)
    for name in RATING_INDEXES:
        conn.execute(f"DROP INDEX {name}")
    conn.commit()
    conn.close()


async def timed(case: Callable[[GameService], Awaitable[object]], service: GameService) -> float:
    began = time.perf_counter()
    await case(service)
    return (time.perf_counter() - began) * 1000


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--players", type=int, default=2000)
    parser.add_argument("--reps", type=int, default=30)
    parser.add_argument("--db", default=None, help="keep the database here (default: a temp dir)")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="cg-ratings-"))
    path = Path(args.db) if args.db else folder / "ratings.sqlite3"
    if path.exists():
        path.unlink()
    print(f"{args.games} rated games, {args.players} players, {len(GUILDS)} servers", flush=True)
    await prepare(path, args.games, args.players)
    base_path = folder / "no-indexes.sqlite3"
    without_indexes(path, base_path)
    ours = await GameService.open(str(path), renderer=None, dice_renderer=None)
    base = await GameService.open(str(base_path), renderer=None, dice_renderer=None)
    try:
        board = await ours.leaderboard(variant="guardener", guild_id=GUILDS[0], limit=100)
        low = board.top[-1].player_id  # far down the board: the own-rank case
        busiest = 1  # the heaviest player (weights favour low ids)
        cases: dict[str, Callable[[GameService], Awaitable[object]]] = {
            "leaderboard top 10 (server)": lambda s: s.leaderboard(
                variant="guardener", guild_id=GUILDS[0]
            ),
            "leaderboard top 10 (global)": lambda s: s.leaderboard(variant="stone_garden"),
            "leaderboard + own rank": lambda s: s.leaderboard(
                variant="guardener", guild_id=GUILDS[0], user_id=low
            ),
            "profile (server)": lambda s: s.profile(user_id=busiest, guild_id=GUILDS[1]),
            "profile (global)": lambda s: s.profile(user_id=busiest, viewer_id=busiest),
        }
        ratios = []
        print(f"{'case':<30} {'ours ms':>9} {'no-index ms':>12} {'ratio':>7}")
        for name, case in cases.items():
            mine: list[float] = []
            theirs: list[float] = []
            await case(ours)  # warm both caches once
            await case(base)
            for _ in range(args.reps):
                mine.append(await timed(case, ours))
                theirs.append(await timed(case, base))
            m, t = statistics.median(mine), statistics.median(theirs)
            ratio = statistics.median(a / b for a, b in zip(mine, theirs, strict=True))
            ratios.append(ratio)
            print(f"{name:<30} {m:>9.2f} {t:>12.2f} {ratio:>7.3f}", flush=True)
        print(f"median of per-case ratios (ours / no-index): {statistics.median(ratios):.3f}")
    finally:
        await ours.close()
        await base.close()
        if not args.db:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    asyncio.run(main())
