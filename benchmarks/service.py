"""What a player waits for when they move on Discord, under load (issues 12 and 16).

    python benchmarks/service.py [--games 1000 | --games 10000 | --restart]
                                 [--seconds 60] [--reps 3] [--rate 50 | --rates 100,200,300]
                                 [--only improved|baseline] [--baseline-ref main]
                                 [--templates 200] [--keep DIR]
    python benchmarks/service.py --store postgres|postgresql://... [--processes 2]
                                 [--sqlite-processes N] [--only postgresql|sqlite] [--trace]
                                 [--games ...] [--restart] [--seconds ...] [--reps ...]

Methodology:

- **The real per-move sequence.** Each move is a ``/move`` slash command built as a raw
  ``INTERACTION_CREATE`` payload, parsed by discord.py's own state and run by the bot's
  command tree (``ChessGardenBot`` with its cogs): ``flows.act`` calls the service once
  (act, board PNG, dice PNG, legal list), answers with the board post, stores the board
  message and takes the buttons off the previous board. Only Discord's two HTTP edges
  are replaced (``tests/bot/discord_fake``: every request is answered in memory).
- **Timed from the arrival** (the scheduled instant of a Poisson stream at ``--rate``,
  default 50 actions/s) to the return of the command, i.e. after the last request the
  bot sends for that move. Arrivals are not delayed by slow answers (no coordinated
  omission): a late loop shows up in the figures.
- **The start as in production.** Each run opens the store, starts the warm-up as
  ``chessgarden run`` does, then logs the bot in (its ``setup_hook``: whatever the tree
  does before it accepts interactions). The load starts once the bot is logged in; the
  time from opening the store to then is printed (``ready``).
- **Aged games.** Every game is 40 to 100 plies old before timing (``--templates`` games
  are played out with the engine and stored; the rest of the ``--games`` are copies of
  their logs in other channels with other players). A move is chosen at random from the
  legal list the previous answer gave (what a player sees); a game that ends is left.
- **No pre-filled caches.** Nothing asks the engine for legal moves before the timer.
  ``--games N`` is the steady state: the games have been in use (the service's own
  warm-up, waited for), then 5 s of the same load untimed. With 10,000 games the cache
  (4,096 games) cannot hold them all: that is the cache pressure. ``--restart`` times the
  first ``--seconds`` after the bot is ready, the warm-up going on meanwhile: the clock
  starts when the load starts.
- **Windows.** Every figure is also given per 10-s window of the timed load (by the
  moves' arrivals, and the loop's blocks by when they began). ``--restart`` prints each
  window: the first ten seconds are not averaged away by the quiet minute after them.
- **Baseline interleaved.** ``baseline`` is the code of ``--baseline-ref`` (default
  ``main``; the whole tree written out of git, nothing in the work tree changes) run by
  this same harness, under the same settings. Runs alternate ABBA, each in a fresh
  process on a fresh copy of the same database.
- **The machine's speed.** Before and after each run, a fixed workload is timed
  (``benchmarks/timing.py``: python-chess lists and writes in SAN the legal moves of one
  position, 200 times) and printed with the run, beside the load average.
- **Reported** per run: p50/p99/max latency, the largest event-loop block (a task that
  sleeps 1 ms and records its overshoot), the collector's pauses by generation
  (``gc.callbacks``), full replays and snapshot restores; then the medians over the
  repetitions and the median of the per-repetition p99 ratios, against the goal p99 <= 50 ms
  (with ``--restart``: in every window, and the largest loop block too).
- **Live pages** (``--watchers N:G``, issue 28): the timed bot also serves the games'
  web pages (``bot.web``, as ``CHESSGARDEN_WEB`` starts it), and another process
  (``benchmarks/sse_watchers.py``, an epoll loop) keeps N server-sent event streams open
  over G of the games, which get 10 % of the moves (quiet ones, so that they go on all
  run); the same tree without pages runs interleaved (ABBA) as the baseline. Printed
  besides (``benchmarks/live_pages.py``): commit->every watcher (p50, p99, max over the
  timed load's events, and per watcher), the memory per watcher, and the CPU of each
  process over the timed load (the bot's per thread, the watchers' process).
  ``CHESSGARDEN_BENCH_PROFILE=DIR`` writes a cProfile of the bot's loop thread (CPU
  clock) over the timed load; ``benchmarks/profile_parts.py`` splits it by part.
- **Saturation** (``--rates``, issue 26): the steady state at each rate, this tree and the
  baseline interleaved as above, then per rate the median p99 and CPU per move of each,
  and the highest rate each sustains with a median p99 <= 200 ms.

Stores and processes (issue 16), with ``--store`` or ``--processes``:

- **Shards.** ``--processes N`` bot processes (each its own ``ChessGardenBot`` and
  ``GameService``, as one shard's process) each serve their share of the games (every
  N-th), at ``--rate / N`` each: ``--rate`` in all. They warm up, then start their load
  together.
- **PostgreSQL next to SQLite.** ``--store postgresql://...`` runs on that server (a
  scratch schema in its database for each run, dropped after); ``--store postgres``
  starts a throwaway server (``tests/pgcluster.py``) with production durability:
  PostgreSQL's defaults, ``fsync``, ``synchronous_commit`` and ``full_page_writes`` on,
  plus only settings docs/scaling.md recommends. The server's settings are printed.
  Each run gets a fresh copy of the same aged games, copied as ``migrate-store`` copies
  them (with their snapshots), then vacuumed, analysed and checkpointed, as a store in
  service would be. SQLite (WAL, ``synchronous=FULL``, one file on this host) runs the
  same games with ``--sqlite-processes`` processes (default: as many), on a fresh copy;
  the two stores alternate (ABBA) within the same invocation.
- **Reported** per store and repetition as above (latencies of all processes pooled
  before the quantiles), the server's CPU per move (throwaway server only), then the
  median of the per-repetition PostgreSQL/SQLite p99 ratios. ``--trace`` adds, per move,
  the round trips to PostgreSQL by statement and the time awaited on each, and the waits
  for a pooled connection.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import random
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "bot"))  # the payload-level Discord fake

from live_pages import (  # noqa: E402  (benchmarks/live_pages.py)
    PROFILE_VAR,
    WATCHERS_VAR,
    cpu_between,
    describe,
    medians,
    open_pages,
    relay_pid,
    stat_fields,
    thread_cpu,
)
from timing import calibrate, quantile, windows  # noqa: E402  (benchmarks/timing.py)

GOAL_P99_MS = 50.0
GOAL_BLOCK_MS = 50.0
SATURATED_P99_MS = 200.0  # --rates: a rate is sustained while its p99 stays under this  # after a restart: the largest loop block in every window
WINDOW_S = 10.0
GUILD = 1_200_000_000_000_000_000
CHANNEL0 = 1_200_000_000_000_100_000
PLAYER0 = 1_300_000_000_000_000_000
MIN_PLIES, MAX_PLIES = 40, 100


def players(index: int) -> tuple[int, int]:
    return PLAYER0 + 2 * index, PLAYER0 + 2 * index + 1


# ----- the aged database ---------------------------------------------------------------


async def build(path: Path, games: int, templates: int, seed: int) -> None:
    """``games`` live games aged 40-100 plies: ``templates`` played out with the engine,
    the rest copies of their logs; snapshots as the improved service leaves them; and
    ``path.json``: per game, what its players last saw (turn, legal list)."""
    import variants
    from bot.service import GameService
    from bot.service.live import rebuild
    from bot.service.snapshots import take
    from storage import NewAction, chain

    seeds = iter(range(10**9))
    service = await GameService.open(
        str(path),
        renderer=None,
        dice_renderer=None,
        rng=random.Random(seed),
        seed_factory=lambda: f"bench-{seed}-{next(seeds)}",
        max_open_challenges=10**6,
    )
    rng = random.Random(seed)
    known: dict[int, dict[str, Any]] = {}
    made: list[int] = []
    names = variants.names()
    index = 0
    while len(made) < min(templates, games):
        white, black = players(index)
        location = CHANNEL0 + index
        index += 1
        challenge = await service.challenge(
            location_id=location,
            challenger_id=white,
            opponent_id=black,
            variant=names[len(made) % len(names)],
            colour="white",
            guild_id=GUILD,
        )
        gid = (await service.accept(game_id=challenge.game.id, user_id=black, render=False)).game.id
        row = await service.repo.get_game(gid)
        assert row is not None
        live = rebuild(row, [])
        game = live.game
        target = rng.randint(MIN_PLIES, MAX_PLIES)
        entries = []
        while len(entries) < target and game.result is None:
            before = len(game.rolls)
            mover = white if game.turn == "white" else black
            text = game.play(rng.choice(game.legal_moves()))
            entries.append(
                NewAction(gid, len(entries) + 1, "move", mover, text, tuple(game.rolls[before:]))
            )
        async with service.repo.write() as tx:
            for entry in entries:
                await tx.append_action(entry)
        if game.result is not None:
            async with service.repo.write() as tx:  # ended while ageing: not a live game
                await tx.append_action(
                    NewAction(gid, len(entries) + 1, "resign", white, "white resigns")
                )
                from storage import GameChanges

                await tx.update_game(
                    gid, GameChanges(status="finished", result="0-1", result_reason="resignation")
                )
            continue
        row = await service.repo.get_game(gid)
        assert row is not None
        live = rebuild(row, await service.repo.actions(gid))
        async with service.repo.write() as tx:
            await tx.save_snapshot(take(row, live))
        made.append(gid)
        known[gid] = {
            "white": white,
            "black": black,
            "turn": game.turn,
            "legal": game.legal_moves(),
            "channel": location,
        }
        if len(made) % 50 == 0:
            print(f"  aged {len(made)} games", file=sys.stderr)
    await service.close()

    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA foreign_keys = ON")
    columns = [r[1] for r in conn.execute("PRAGMA table_info(games)")]
    fixed = {
        "id", "location_id", "challenger_id", "opponent_id", "white_id", "black_id",
        "request_id", "log_count", "roll_count",
    }  # fmt: skip
    copied = [c for c in columns if c not in fixed]
    conn.execute("BEGIN")
    for n in range(len(made), games):
        source = made[n % len(made)]
        white, black = players(index)
        location = CHANNEL0 + index
        index += 1
        now = "2026-01-01T00:00:00.000+00:00"
        for player in (white, black):
            conn.execute(
                "INSERT INTO players (id, name, created_at, updated_at) VALUES (?, NULL, ?, ?)",
                (player, now, now),
            )
        gid = conn.execute(
            f"INSERT INTO games ({', '.join(copied)}, location_id, challenger_id, opponent_id, "
            f"white_id, black_id, log_count, roll_count) SELECT {', '.join(copied)}, ?, ?, ?, ?, ?, "
            "0, json_array_length(start_rolls) FROM games WHERE id = ? RETURNING id",
            (location, white, black, white, black, source),
        ).fetchone()[0]
        src = known[source]
        # The copy's log, each entry's digest chained from the copy's own root.
        variant, options, days, commitment, start = conn.execute(
            "SELECT variant, options, time_days, commitment, start_rolls FROM games WHERE id = ?",
            (gid,),
        ).fetchone()
        digest = chain.root_digest(
            game_id=gid, variant=variant, options=json.loads(options), white_id=white,
            black_id=black, time_days=days, commitment=commitment,
            start_rolls=[tuple(r) for r in json.loads(start)],
        )  # fmt: skip
        entries = conn.execute(
            "SELECT seq, kind, actor_id, text, rolls, roll_index, created_at FROM actions "
            "WHERE game_id = ? ORDER BY seq",
            (source,),
        ).fetchall()
        for seq, kind, actor, text, rolls, roll_index, created in entries:
            actor = white if actor == src["white"] else black
            digest = chain.entry_digest(
                digest, game_id=gid, seq=seq, kind=kind, actor_id=actor, text=text,
                rolls=[tuple(r) for r in json.loads(rolls)], roll_index=roll_index,
                created_at=created,
            )  # fmt: skip
            conn.execute(
                "INSERT INTO actions (game_id, seq, kind, request_id, actor_id, text, rolls, "
                "roll_index, created_at, digest) VALUES (?, ?, ?, NULL, ?, ?, ?, ?, ?, ?)",
                (gid, seq, kind, actor, text, rolls, roll_index, created, digest),
            )
        conn.execute(
            "INSERT INTO snapshots SELECT ?, seq, ply, turns, roll_count, format, data, "
            "created_at FROM snapshots WHERE game_id = ?",
            (gid, source),
        )
        known[gid] = {**src, "white": white, "black": black, "channel": location}
    conn.execute("COMMIT")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    path.with_suffix(".json").write_text(json.dumps(known))


# ----- where PostgreSQL's time goes (--trace) ----------------------------------------------


class Trace:
    """Every round trip an asyncpg connection makes (by statement kind), and the waits for
    a pooled connection: counts and the time awaited (``--trace``, PostgreSQL runs)."""

    KINDS = (
        ("BEGIN", "begin"), ("COMMIT", "commit"), ("ROLLBACK", "rollback"),
        ("SELECT pg_advisory_unlock_all", "pool reset"), ("SELECT pg_advisory_xact_lock", "advisory"),
        ("INSERT INTO actions", "insert action"), ("UPDATE games", "update game"),
    )  # fmt: skip

    def __init__(self) -> None:
        self.count: dict[str, int] = {}
        self.total: dict[str, float] = {}
        self.largest: dict[str, float] = {}

    def kind(self, sql: str) -> str:
        text = " ".join(sql.split())
        for prefix, name in self.KINDS:
            if text.startswith(prefix):
                return name
        if text.startswith("SELECT") and "FROM games" in text:
            return "lock game" if "FOR NO KEY UPDATE" in text else "read game"
        return " ".join(text.split()[:4])[:40]

    def note(self, kind: str, seconds: float) -> None:
        self.count[kind] = self.count.get(kind, 0) + 1
        self.total[kind] = self.total.get(kind, 0.0) + seconds
        self.largest[kind] = max(self.largest.get(kind, 0.0), seconds)

    def install(self) -> Trace:
        from asyncpg import connection, pool

        def timed(method: Any, fixed: str | None = None) -> Any:
            async def wrapper(conn: Any, *args: Any, **kwargs: Any) -> Any:
                started = time.perf_counter()
                try:
                    return await method(conn, *args, **kwargs)
                finally:
                    kind = fixed or self.kind(str(args[0] if args else kwargs.get("query")))
                    self.note(kind, time.perf_counter() - started)

            return wrapper

        cls = connection.Connection
        for name in ("execute", "executemany", "fetch", "fetchrow", "fetchval"):
            setattr(cls, name, timed(getattr(cls, name)))
        pool.Pool._acquire = timed(pool.Pool._acquire, "pool acquire")  # type: ignore[method-assign]
        return self

    def reset(self) -> None:
        self.count.clear()
        self.total.clear()
        self.largest.clear()

    def summary(self) -> dict[str, list[float]]:
        return {
            k: [self.count[k], self.total[k] * 1000, self.largest[k] * 1000] for k in self.count
        }


# ----- one timed run (a fresh process) ----------------------------------------------------


async def one_run(
    db: str,
    mode: str,
    variant: str,
    seconds: float,
    rate: float,
    seed: int,
    *,
    known_file: Path | None = None,
    share: tuple[int, int] = (0, 1),
) -> dict[str, Any]:
    """One bot process on ``db`` (a file or a URL) serving its ``share`` (index, count) of
    the games at ``rate`` actions/s. With a share of several processes it says ``READY``
    on stdout when warm and waits for a line on stdin, so that the processes' loads start
    together; its answer then carries its latencies (``samples``: arrival, ms) and the
    loop's largest block per window (``blocks``) for the driver to merge. ``variant``
    only names the code (``improved``: this tree; ``baseline``: the tree on
    ``sys.path`` first): both run the same way."""
    import discord
    from discord.webhook.async_ import async_context
    from discord_fake import FakeDiscord
    from discord_payloads import channel_payload, snowflake
    from harness import Person, World

    import bot.service.core as core
    from bot.discord.app import ChessGardenBot, Settings, service_label
    from bot.service import GameService, ServiceError
    from bot.service.gcpolicy import GcWatch

    logging.basicConfig(level=logging.ERROR)
    known_file = known_file or Path(db).with_suffix(".json")
    known = {int(k): v for k, v in json.loads(known_file.read_text()).items()}
    index, count = share
    known = {gid: known[gid] for gid in sorted(known)[index::count]}  # as a shard's guilds
    counts = {"full": 0, "restored": 0}
    real_rebuild, real_restore = core.rebuild, core.restore

    def counting_rebuild(*args: Any) -> Any:
        counts["full"] += 1
        return real_rebuild(*args)

    def counting_restore(*args: Any) -> Any:
        counts["restored"] += 1
        return real_restore(*args)

    core.rebuild, core.restore = counting_rebuild, counting_restore  # type: ignore[assignment]
    trace = Trace().install() if os.environ.get("CHESSGARDEN_BENCH_TRACE") and "://" in db else None

    opened = time.perf_counter()
    service = await GameService.open(db, label=service_label)
    bot = ChessGardenBot(service, Settings())
    fake = FakeDiscord(
        bot_id=snowflake(), application_id=snowflake(), state_of=lambda: bot._connection
    )
    world = World(bot, fake, service)
    world.guild_id = world.everyone_role = GUILD
    bot.http.request = fake.bot_request  # type: ignore[method-assign]
    async_context.set(world.adapter)

    async def together() -> None:
        if count > 1:  # every process ready: the loads start at once
            print("READY", flush=True)
            await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)

    if mode == "restart":
        await together()
        opened = time.perf_counter()
    # As ``chessgarden run`` starts (bot/discord/run.py): the warm-up in the background,
    # then the bot logs in; its setup_hook does what the tree does before interactions.
    warming = service.start_warm_up(gc_policy=True)
    warmed_at: list[float] = []
    warming.add_done_callback(lambda _: warmed_at.append(time.perf_counter()))
    await bot.login("bench-token")
    world._create_guild()
    for gid, info in known.items():
        channel = info["channel"]
        fake.channels[channel] = channel_payload(channel, GUILD, f"game-{gid}", 0, position=10)
    world._guild_create(list(fake.channels.values()), [])
    command_id = snowflake()

    # What the players last saw of each game, kept up to date by the answers.
    real_act = service.act
    finished: set[int] = set()

    async def seen_act(**kwargs: Any) -> Any:
        try:
            outcome = await real_act(**kwargs)
        except ServiceError as error:  # the player gets a private refusal
            failures["refused"] += 1
            refusals[type(error).__name__] = refusals.get(type(error).__name__, 0) + 1
            raise
        view = outcome.game
        if view.status != "active":
            finished.add(view.id)
        else:
            known[view.id]["turn"] = view.turn
            known[view.id]["legal"] = outcome.legal  # read lazily: a player reads one
        return outcome

    service.act = seen_act  # type: ignore[method-assign]
    # The interactions whose answer carried a file (the board), noted as the fake serves
    # each request: looking for them among the fake's recent requests after every move
    # cost the bot's loop a fifth of its time (the harness's, not the bot's, work).
    boarded: set[int] = set()
    real_handle = fake.handle

    def noting_handle(*args: Any, **kwargs: Any) -> Any:
        first = len(fake.requests)
        try:
            return real_handle(*args, **kwargs)
        finally:
            for request in fake.requests[first:]:
                if request.files and request.interaction_id is not None:
                    boarded.add(request.interaction_id)

    fake.handle = noting_handle  # type: ignore[method-assign]
    busy: set[int] = set()
    ids = list(known)
    hot: list[int] = []  # --watchers: the watched games, which get HOT_SHARE of the moves
    watched: set[int] = set()
    latencies: list[tuple[float, float]] = []  # (arrival since the load started, seconds)
    load_start = 0.0
    failures = {"refused": 0, "dropped": 0, "errors": 0, "no_board": 0}
    refusals: dict[str, int] = {}

    async def move(gid: int, arrival: float, rng: random.Random) -> None:
        info = known[gid]
        person = Person(info["white"] if info["turn"] == "white" else info["black"], "p")
        payload = world._base(person, info["channel"], 2)
        legal = info["legal"]
        if gid in watched:  # quiet moves (no capture): the watched games go on all run long
            legal = [m for m in legal if "x" not in m and m != "resign"] or legal
        notation = rng.choice(legal)
        payload["data"] = {
            "id": str(command_id),
            "name": "move",
            "type": 1,
            "options": [{"name": "notation", "type": 3, "value": notation}],
        }
        state = world._register(payload, None)
        try:
            interaction = discord.Interaction(data=payload, state=bot._connection)  # type: ignore[arg-type]
            await bot.tree._call(interaction)
            latencies.append((arrival - load_start, time.perf_counter() - arrival))
            if state.id not in boarded:
                failures["no_board"] += 1  # answered without a board (a refusal, ...)
        except Exception:
            failures["errors"] += 1
        finally:
            busy.discard(gid)
            boarded.discard(state.id)
            if len(fake.requests) > 4000:
                del fake.requests[:2000]

    async def load(duration: float, rng: random.Random, timed: bool) -> None:
        nonlocal load_start
        tasks: set[asyncio.Task[None]] = set()
        start = load_start = time.perf_counter()
        due = start
        while True:
            due += rng.expovariate(rate)
            if due - start > duration:
                break
            await asyncio.sleep(max(0.0, due - time.perf_counter()))
            for _ in range(20):
                gid = rng.choice(hot if hot and rng.random() < HOT_SHARE else ids)
                if gid not in busy and gid not in finished:
                    break
            else:
                failures["dropped"] += timed
                continue
            busy.add(gid)
            task = asyncio.create_task(move(gid, due, random.Random(rng.random())))
            tasks.add(task)
            task.add_done_callback(tasks.discard)
        if tasks:
            await asyncio.gather(*tasks)

    rng = random.Random(seed)
    untimed = 0
    ready_s = time.perf_counter() - opened
    pages = await open_pages(service, ids) if os.environ.get(WATCHERS_VAR) else None
    if pages is not None:
        hot[:] = pages.games
        watched.update(hot)
    if mode == "steady":
        await warming
        await together()
        await load(5.0, rng, timed=False)
        untimed = len(latencies)
        latencies.clear()

    watch = GcWatch().install()
    watch.reset()
    counts.update(full=0, restored=0)
    if trace is not None:
        trace.reset()
    worst = 0.0
    blocks: list[float] = []  # the largest block (ms) that began in each window
    # The most CPU the loop's own thread spent in one block, per window (ms): the part
    # of a block that is work on the loop, not waiting for a core or the interpreter.
    work: list[float] = []
    stop = asyncio.Event()
    started = time.perf_counter()

    async def probe() -> None:
        nonlocal worst
        while not stop.is_set():
            t, own = time.perf_counter(), time.thread_time()
            await asyncio.sleep(0.001)
            block = time.perf_counter() - t - 0.001
            worst = max(worst, block)
            k = int((t - started) // WINDOW_S)
            for series in (blocks, work):
                series.extend([0.0] * (k + 1 - len(series)))
            blocks[k] = max(blocks[k], block * 1000)
            work[k] = max(work[k], (time.thread_time() - own) * 1000)

    prober = asyncio.create_task(probe())
    client_cpu = await pages.mark() if pages is not None else 0.0
    skip = pages.proc.pid if pages is not None else None
    relay = relay_pid(pages.site) if pages is not None else None
    # The painter process (issue 26) draws this process's boards: its CPU is the move's.
    painter_pid = getattr(getattr(service, "_painter", None), "pid", lambda: None)()
    others = {painter_pid: PAINTER} if painter_pid is not None else {}
    threads, timed_from = thread_cpu(skip, relay, others), time.monotonic()
    profile = None
    if os.environ.get(PROFILE_VAR):  # the loop's thread over the timed load
        import cProfile

        profile = cProfile.Profile(time.thread_time)  # CPU, not waits
        profile.enable()
    cpu = time.process_time()
    await load(seconds, rng, timed=True)
    traced = trace.summary() if trace is not None else {}
    elapsed = time.perf_counter() - started
    cpu = time.process_time() - cpu
    if profile is not None:
        profile.disable()
        folder = Path(os.environ[PROFILE_VAR])
        folder.mkdir(parents=True, exist_ok=True)
        profile.dump_stats(folder / f"{variant}-{seed}.prof")
    threads = cpu_between(threads, thread_cpu(skip, relay, others))
    timed = (timed_from, time.monotonic())
    cpu += threads.get(PAINTER, 0.0)
    client_cpu = (await pages.mark() - client_cpu) if pages is not None else 0.0
    stop.set()
    await prober
    watch.remove()
    cached = len(service._cache)
    pages_out = await pages.close(timed, client_cpu) if pages is not None else None
    await bot.close()
    await service.close()
    ms = sorted(x * 1000 for _, x in latencies)

    return {
        "code": str(Path(core.__file__).resolve().parents[2]),
        "ready_s": ready_s,
        # when the warm-up ended, in seconds since the load started (None: it had not)
        "warm_s": warmed_at[0] - started if warmed_at else None,
        "n": len(ms),
        "rate": len(ms) / elapsed,
        "p50": quantile(ms, 0.50),
        "p99": quantile(ms, 0.99),
        "max": ms[-1] if ms else float("nan"),
        "lag_ms": worst * 1000,
        "cpu_ms": cpu * 1000 / max(1, len(ms)),
        "load": os.getloadavg()[0],
        "gc": watch.summary(),
        "full_replays": counts["full"],
        "restores": counts["restored"],
        "cached": cached,
        "refusals": refusals,
        **failures,
        "samples": [(round(at, 4), round(x * 1000, 3)) for at, x in latencies],
        "blocks": blocks,
        "work": work,
        "untimed": untimed,
        "trace": traced,
        "threads": threads,
        "pages": pages_out,
    }


PAINTER = "painter process"  # its CPU, counted with the bot's (issue 26)
HOT_SHARE = 0.1  # of the moves, made in the watched games (5 a second at 50/s)


# ----- the driver ---------------------------------------------------------------------------


def child(
    args: argparse.Namespace,
    db: str,
    mode: str,
    variant: str,
    seed: int,
    processes: int = 1,
    code: Path = ROOT,
) -> list[str]:
    """The command line of one of ``processes`` timed processes, running ``code``'s tree."""
    return [sys.executable, __file__, "--rate", str(args.rate / processes), "--run", db,
            mode, variant, str(args.seconds), str(seed), "--code", str(code)]  # fmt: skip


def with_windows(out: dict[str, Any], seconds: float) -> dict[str, Any]:
    """``out`` with its figures per window (``windows``) from its samples and blocks."""
    samples = [(float(at), float(ms)) for at, ms in out["samples"]]
    found = windows(samples, out["blocks"], out["work"], seconds, WINDOW_S)
    out["windows"] = [w.__dict__ for w in found]
    return out


def timed_run(command: list[str], code: Path, env: dict[str, str] | None = None) -> dict[str, Any]:
    """One timed process, the calibration workload timed before and after it."""
    before = calibrate()
    done = subprocess.run(
        command, capture_output=True, text=True, cwd=code, env={**os.environ, **(env or {})}
    )
    after = calibrate()
    if done.returncode != 0:
        raise SystemExit(f"run failed:\n{done.stderr[-3000:]}")
    out: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    if Path(out["code"]) != code.resolve():
        raise SystemExit(f"the run imported {out['code']}, not {code}: check sys.path")
    out["calibration"] = [before, after]
    return out


def run_processes(
    args: argparse.Namespace,
    db: str,
    known: Path,
    mode: str,
    seed: int,
    server: PgServer | None = None,
    processes: int = 1,
) -> dict[str, Any]:
    """``processes`` bot processes on ``db`` at once, each on its share of the games
    (as shards on their guilds'), together offering ``args.rate`` actions/s; started
    together once all are warm. Their figures merged: latencies pooled before the
    quantiles, the largest loop block and pauses, counts summed."""
    n = processes
    logs = [tempfile.TemporaryFile(mode="w+") for _ in range(n)]
    procs = [
        subprocess.Popen(
            [
                *child(args, db, mode, "improved", seed, n),
                "--known",
                str(known),
                "--share",
                str(i),
                str(n),
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=logs[i],
            text=True,
            cwd=ROOT,
        )  # fmt: skip
        for i in range(n)
    ]

    def failed(i: int) -> SystemExit:
        for proc in procs:
            proc.kill()
        logs[i].seek(0)
        return SystemExit(f"process {i} failed:\n{logs[i].read()[-3000:]}")

    calibrated = calibrate()
    if n > 1:
        for i, proc in enumerate(procs):
            assert proc.stdout is not None
            if proc.stdout.readline().strip() != "READY":
                raise failed(i)
    server_cpu = server.cpu_seconds() if server is not None else None
    if n > 1:
        for proc in procs:
            assert proc.stdin is not None
            proc.stdin.write("go\n")
            proc.stdin.flush()
    outs = []
    for i, proc in enumerate(procs):
        stdout, _ = proc.communicate()
        if proc.returncode != 0:
            raise failed(i)
        outs.append(json.loads(stdout.strip().splitlines()[-1]))
    calibration = [calibrated, calibrate()]
    samples = [sample for out in outs for sample in out["samples"]]
    ms = sorted(x for _, x in samples)

    def most(key: str) -> list[float]:  # per window, the largest of any process
        width = max(len(out[key]) for out in outs)
        return [max(out[key][k] for out in outs if k < len(out[key])) for k in range(width)]

    extra: dict[str, Any] = {}
    if server is not None and server_cpu is not None:  # per move served since the start
        moves = len(ms) + sum(out["untimed"] for out in outs)
        extra["server_cpu_ms"] = (server.cpu_seconds() or 0.0) - server_cpu
        extra["server_cpu_ms"] *= 1000 / max(1, moves)
    gcs = [out["gc"] for out in outs]
    refusals: dict[str, int] = {}
    for out in outs:
        for name, k in out["refusals"].items():
            refusals[name] = refusals.get(name, 0) + k
    trace: dict[str, list[float]] = {}
    for out in outs:
        for kind, (k, total, largest) in out["trace"].items():
            was = trace.get(kind, [0, 0.0, 0.0])
            trace[kind] = [was[0] + k, was[1] + total, max(was[2], largest)]
    summed = ("full_replays", "restores", "cached", "refused", "dropped", "errors", "no_board")
    return {
        "n": len(ms),
        "samples": samples,
        "blocks": most("blocks"),
        "work": most("work"),
        "calibration": calibration,
        "ready_s": max(out["ready_s"] for out in outs),
        "warm_s": None
        if any(out["warm_s"] is None for out in outs)
        else max(out["warm_s"] for out in outs),
        "rate": sum(out["rate"] for out in outs),
        "p50": quantile(ms, 0.50),
        "p99": quantile(ms, 0.99),
        "max": ms[-1] if ms else float("nan"),
        "lag_ms": max(out["lag_ms"] for out in outs),
        "cpu_ms": sum(out["cpu_ms"] * out["n"] for out in outs) / max(1, len(ms)),
        "load": os.getloadavg()[0],
        "gc": {
            "counts": [sum(g["counts"][k] for g in gcs) for k in range(3)],
            "largest_ms": [max(g["largest_ms"][k] for g in gcs) for k in range(3)],
        },
        "refusals": refusals,
        "trace": trace,
        **extra,
        **{key: sum(out[key] for out in outs) for key in summed},
    }


def report(rep: int, name: str, out: dict[str, Any], mode: str) -> None:
    gc_ = out["gc"]
    before, after = out["calibration"]
    print(
        f"rep {rep + 1} {name:10s}: {out['n']} moves ({out['rate']:.1f}/s) "
        f"p50 {out['p50']:.1f} ms, p99 {out['p99']:.1f} ms, max {out['max']:.1f} ms; "
        f"largest loop block {out['lag_ms']:.1f} ms; CPU {out['cpu_ms']:.1f} ms/move"
        + (f" + server {out['server_cpu_ms']:.1f}" if "server_cpu_ms" in out else "")
        + "; "
        f"ready {out['ready_s']:.2f} s after the store opened; warm-up done "
        + (f"at {out['warm_s']:.1f} s" if out.get("warm_s") is not None else "later")
        + f"; load {out['load']:.1f}; "
        f"calibration {before:.0f} ms before, {after:.0f} ms after; GC pauses by generation "
        f"{gc_['counts']} (largest {gc_['largest_ms']} ms); full replays "
        f"{out['full_replays']}, snapshot restores {out['restores']}; refused "
        f"{out['refused']} {out['refusals'] or ''}, answered without a board "
        f"{out['no_board']}, errors {out['errors']}, dropped {out['dropped']}",
        flush=True,
    )
    if mode == "restart":
        for w in out["windows"]:
            print(
                f"    {w['start']:3.0f}-{w['end']:3.0f} s: {w['n']:4d} moves, p50 {w['p50']:6.1f} ms, "
                f"p99 {w['p99']:6.1f} ms, max {w['max']:6.1f} ms, "
                f"largest loop block {w['block_ms']:6.1f} ms (its own CPU at most "
                f"{w['work_ms']:.1f} ms)",
                flush=True,
            )
    if out.get("trace"):
        n = max(1, out["n"])
        rows = sorted(out["trace"].items(), key=lambda item: -item[1][1])
        print(
            f"    database round trips per move {sum(v[0] for _, v in rows) / n:.1f}, "
            f"{sum(v[1] for _, v in rows) / n:.1f} ms awaited: "
            + "; ".join(
                f"{kind} {k / n:.2f} x {total / max(1, k):.2f} ms (largest {largest:.1f})"
                for kind, (k, total, largest) in rows
            ),
            flush=True,
        )


def meets(run: dict[str, Any], mode: str) -> bool:
    """The goal: p99 <= 50 ms; after a restart, in every window, with every loop block
    <= 50 ms too."""
    if mode != "restart":
        return bool(run["p99"] <= GOAL_P99_MS)
    return all(
        w["p99"] <= GOAL_P99_MS and w["block_ms"] <= GOAL_BLOCK_MS for w in run["windows"] if w["n"]
    )


def summary(results: dict[str, list[dict[str, Any]]], ratio: tuple[str, str], mode: str) -> None:
    print("medians over the repetitions:")
    for name, runs in results.items():
        if not runs:
            continue

        def med(key: str, runs: list[dict[str, Any]] = runs) -> float:
            return statistics.median(r[key] for r in runs)

        full2 = max(r["gc"]["largest_ms"][2] for r in runs)
        met = sum(meets(r, mode) for r in runs)
        goal = (
            f"p99 and largest loop block <= {GOAL_P99_MS:g} ms in every window"
            if mode == "restart"
            else f"p99 <= {GOAL_P99_MS:g} ms"
        )
        print(
            f"  {name:10s}: p50 {med('p50'):.1f} ms, p99 {med('p99'):.1f} ms, "
            f"max {med('max'):.1f} ms, largest loop block {med('lag_ms'):.1f} ms, "
            f"CPU {med('cpu_ms'):.1f} ms/move, ready {med('ready_s'):.2f} s, "
            f"largest gen-2 pause {full2:.1f} ms; {goal} in {met} of {len(runs)} repetitions"
        )
        calibration = [c for r in runs for c in r["calibration"]]
        print(
            f"  {'':10s}  calibration {statistics.median(calibration):.0f} ms "
            f"(from {min(calibration):.0f} to {max(calibration):.0f})"
        )
        if mode == "restart":
            for k, w in enumerate(runs[0]["windows"]):
                p99s = [r["windows"][k]["p99"] for r in runs]
                blocks = [r["windows"][k]["block_ms"] for r in runs]
                work = max(r["windows"][k]["work_ms"] for r in runs)
                print(
                    f"    {w['start']:3.0f}-{w['end']:3.0f} s: p99 {statistics.median(p99s):6.1f} ms "
                    f"(worst {max(p99s):6.1f}), largest loop block "
                    f"{statistics.median(blocks):6.1f} ms (worst {max(blocks):6.1f}; "
                    f"the loop's own CPU at most {work:.1f} ms)"
                )
    print_ratio(results, *ratio, mode)


def print_ratio(results: dict[str, list[dict[str, Any]]], a: str, b: str, mode: str) -> None:
    """The median of the per-repetition p99 ratios of ``a`` to ``b`` (and per window)."""
    if results.get(a) and results.get(b):
        pairs = list(zip(results[a], results[b], strict=True))
        ratios = [x["p99"] / y["p99"] for x, y in pairs]
        print(
            f"p99 {a} / {b}, median of per-repetition ratios: "
            f"{statistics.median(ratios):.2f} ({', '.join(f'{r:.2f}' for r in ratios)})"
        )
        if mode == "restart":
            for k, w in enumerate(results[a][0]["windows"]):
                by_rep = [x["windows"][k]["p99"] / y["windows"][k]["p99"] for x, y in pairs]
                print(
                    f"    {w['start']:3.0f}-{w['end']:3.0f} s: p99 ratio "
                    f"{statistics.median(by_rep):.2f} ({', '.join(f'{r:.2f}' for r in by_rep)})"
                )


def compare_variants(
    args: argparse.Namespace, home: Path, template: Path, mode: str
) -> dict[str, list[dict[str, Any]]]:
    """One process on SQLite: this tree against the code of ``--baseline-ref``, ABBA."""
    variants_run = [args.only] if args.only else ["improved", "baseline"]
    code = {"improved": ROOT}
    if args.watchers:  # this tree with live pages open, against itself without
        variants_run, code = ["watched", "improved"], {"watched": ROOT, "improved": ROOT}
        print(f"watched: {args.watchers} (live pages : games), {HOT_SHARE:.0%} of the moves there")
        if args.watchers_baseline:  # and the pages of --baseline-ref's code, between them
            variants_run = ["watched", "watched-old", "improved"]
    for name in ("baseline", "watched-old"):
        if name not in variants_run:
            continue
        from baseline import export_tree, resolve

        tree, commit = export_tree(args.baseline_ref, home)
        code[name] = tree
        accept_newer_schema(tree)
        same = resolve("HEAD") == commit
        print(
            f"{name}: {args.baseline_ref} ({commit[:10]})"
            + (" -- the commit this tree is at: name an earlier one" if same else "")
        )
    results: dict[str, list[dict[str, Any]]] = {v: [] for v in variants_run}
    for rep in range(args.reps):
        order = variants_run if rep % 2 == 0 else list(reversed(variants_run))
        for variant in order:
            db = fresh_sqlite(home, template, f"run-{variant}")
            command = child(args, str(db), mode, variant, 100 + rep, code=code[variant])
            env = {WATCHERS_VAR: args.watchers} if variant.startswith("watched") else {}
            out = with_windows(timed_run(command, code[variant], env), args.seconds)
            results[variant].append(out)
            report(rep, variant, out, mode)
            if out.get("pages"):
                print(describe(out["pages"], out["threads"], args.seconds), flush=True)
            elif out.get("threads"):
                cpu = sorted(out["threads"].items(), key=lambda kv: -kv[1])
                print(
                    f"    CPU over the {args.seconds:g} s timed load: bot "
                    f"{sum(out['threads'].values()):.1f} s ({', '.join(f'{k} {v:.1f}' for k, v in cpu)})",
                    flush=True,
                )
    if args.results:  # every run's figures, its latencies (arrival s, ms) included
        Path(args.results).write_text(json.dumps(results))
    summary(results, ("watched", "improved") if args.watchers else ("improved", "baseline"), mode)
    if results.get("watched-old"):
        print_ratio(results, "watched-old", "improved", mode)
        print_ratio(results, "watched", "watched-old", mode)
    for name in ("watched", "watched-old"):
        if results.get(name):
            print(f"  {name:10s}: {medians(results[name])}")
    return results


def accept_newer_schema(tree: Path) -> None:
    """Let an older baseline open the aged store, which this tree built at its own schema
    version: the baseline's ``LATEST_VERSION`` is set to ours, so it neither migrates nor
    refuses the store. Safe for these runs: a newer version only adds tables and nullable
    columns, and every store reads and writes its games by named columns
    (``storage/codec.py``), so the baseline never sees what it does not know."""
    sys.path.insert(0, str(ROOT))
    from storage.migrations import LATEST_VERSION

    path = tree / "storage" / "migrations.py"
    text = path.read_text()
    if "LATEST_VERSION = len(MIGRATIONS)" in text:
        path.write_text(
            text.replace(
                "LATEST_VERSION = len(MIGRATIONS)",
                f"LATEST_VERSION = {LATEST_VERSION}  # benchmarks/service.py: the aged store's",
            )
        )
        print(f"baseline: told that schema version {LATEST_VERSION} is its own (its store is ours)")


def sweep(args: argparse.Namespace, home: Path, template: Path, mode: str) -> None:
    """``--rates``: the steady state at each rate (this tree and the baseline, ABBA, as
    above), then the saturation of each: the highest rate whose median p99 over the
    repetitions is at most ``SATURATED_P99_MS``."""
    table: dict[float, dict[str, list[dict[str, Any]]]] = {}
    for rate in args.rates:
        args.rate = rate
        print(f"--- Poisson {rate:g}/s", flush=True)
        table[rate] = compare_variants(args, home, template, mode)
    print(f"saturation sweep (p99 <= {SATURATED_P99_MS:g} ms; medians over the repetitions):")
    best: dict[str, float | None] = {}
    for rate, results in table.items():
        cells = []
        for name, runs in results.items():
            p99 = statistics.median(r["p99"] for r in runs)
            cpu = statistics.median(r["cpu_ms"] for r in runs)
            cal = statistics.median(c for r in runs for c in r["calibration"])
            if p99 <= SATURATED_P99_MS:
                best[name] = max(best.get(name) or 0.0, rate)
            else:
                best.setdefault(name, None)
            cells.append(
                f"{name} p99 {p99:7.1f} ms, CPU {cpu:5.1f} ms/move (calibration {cal:.0f} ms)"
            )
        if len(results) == 2:
            ratios = [
                a["p99"] / b["p99"]
                for a, b in zip(results["improved"], results["baseline"], strict=False)
            ]
            cells.append(f"p99 ratio {statistics.median(ratios):.2f}")
        print(f"  {rate:6g}/s: " + "; ".join(cells))
    for name, rate in best.items():
        print(
            f"  {name}: saturates above {rate:g}/s"
            if rate
            else f"  {name}: saturated at every rate"
        )


def fresh_sqlite(home: Path, template: Path, name: str) -> Path:
    db = home / f"{name}.sqlite3"
    for suffix in ("", "-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    shutil.copy(template, db)
    shutil.copy(template.with_suffix(".json"), db.with_suffix(".json"))
    # On the disk before the bot starts, as a restarted bot's store is: else the bot's
    # first syncs (a restart's first second) would also write out the copy just made.
    with open(db, "rb+") as copy:
        os.fsync(copy.fileno())
    return db


# The throwaway server's settings besides PostgreSQL's durable defaults (fsync,
# synchronous_commit and full_page_writes on): those docs/scaling.md recommends.
SERVER_SETTINGS: dict[str, str] = {}
SHOWN_SETTINGS = (
    "fsync", "synchronous_commit", "full_page_writes", "wal_sync_method", "jit",
    "shared_buffers", "max_connections", "checkpoint_timeout", "max_wal_size",
)  # fmt: skip


class PgServer:
    """The PostgreSQL side: the server ``--store`` names, or ('postgres') a throwaway
    durable one; for each run a fresh schema holding the aged games."""

    def __init__(self, store: str) -> None:
        sys.path.insert(0, str(ROOT / "tests"))
        import pgcluster

        from storage import is_postgres_url

        self.pg = pgcluster
        self.cluster: Any = None
        if store.lower() in ("postgres", "postgresql", "pg"):
            self.cluster = pgcluster.Cluster(durable=True, settings=SERVER_SETTINGS)
            self.cluster.start()
            self.url = self.cluster.url()
        elif is_postgres_url(store):
            self.url = store
        else:
            raise SystemExit(
                "--store takes a postgresql:// URL, or 'postgres' for a throwaway server"
            )
        self.warned = False

    def describe(self) -> str:
        version = self.pg.query(self.url, "SHOW server_version")[0][0]
        rows = self.pg.query(
            self.url,
            "SELECT name, setting, COALESCE(unit, '') FROM pg_settings WHERE name = ANY($1) "
            "ORDER BY name",
            (list(SHOWN_SETTINGS),),
        )
        where = "a throwaway server" if self.cluster is not None else "the server of --store"
        shown = ", ".join(f"{n}={v}{u}" for n, v, u in rows)
        return f"{where}, version {version}; {shown} (the bot's own sessions: jit=off)"

    def fresh(self, template: Path, rep: int) -> str:
        from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

        name = f"cg_bench_{os.getpid()}_{rep}"
        self.pg.execute(self.url, f"DROP SCHEMA IF EXISTS {name} CASCADE")
        self.pg.execute(self.url, f"CREATE SCHEMA {name}")
        parts = urlsplit(self.url)
        query = [(k, v) for k, v in parse_qsl(parts.query) if k != "search_path"]
        url = urlunsplit(parts._replace(query=urlencode([*query, ("search_path", name)])))
        asyncio.run(self._fill(url, template))
        # As a store in service: statistics gathered, the copy's insert backlog vacuumed
        # (not autovacuum's work during the timed run), its pages written out.
        self.pg.execute(url, "VACUUM (ANALYZE) players, games, actions, snapshots")
        try:
            self.pg.execute(url, "CHECKPOINT")
        except Exception as error:  # not a superuser (nor pg_checkpoint) on this server
            if not self.warned:
                print(f"  (no CHECKPOINT before the runs: {error})", file=sys.stderr)
                self.warned = True
        return url

    @staticmethod
    async def _fill(url: str, template: Path) -> None:
        """The aged games as ``migrate-store`` copies them, and their snapshots (a cache
        it does not copy; the SQLite runs have them)."""
        from storage import SnapshotRow, open_repository
        from storage.transfer import copy_store

        source = await open_repository(str(template))
        target = await open_repository(url)
        try:
            await copy_store(source, target)
            with sqlite3.connect(template) as conn:
                rows = conn.execute(
                    "SELECT game_id, seq, ply, turns, roll_count, format, data FROM snapshots"
                ).fetchall()
            async with target.write() as tx:
                for row in rows:
                    await tx.save_snapshot(SnapshotRow(*row))
        finally:
            await source.close()
            await target.close()

    def cpu_seconds(self) -> float | None:
        """CPU time of the throwaway server's processes so far (``None``: not ours)."""
        if self.cluster is None:
            return None
        data = Path(self.cluster.folder) / "data" / "postmaster.pid"
        postmaster = int(data.read_text().split()[0])
        total = 0.0
        for pid, fields in stat_fields(Path("/proc")):
            ticks = 0
            if pid == postmaster:  # with its ended children's
                ticks = sum(int(f) for f in fields[11:15])
            elif int(fields[1]) == postmaster:
                ticks = int(fields[11]) + int(fields[12])
            total += ticks / os.sysconf("SC_CLK_TCK")
        return total

    def drop(self, url: str) -> None:
        name = url.rsplit("search_path=", 1)[-1].split("&")[0]
        self.pg.execute(self.url, f"DROP SCHEMA IF EXISTS {name} CASCADE")

    def close(self) -> None:
        if self.cluster is not None:
            self.cluster.stop()


def compare_stores(args: argparse.Namespace, home: Path, template: Path, mode: str) -> None:
    """``--processes`` bot processes on PostgreSQL (``--store``) and on SQLite, the same
    aged games on each, a fresh copy for every run, the stores alternating."""
    stores = ["postgresql", "sqlite"] if args.store else ["sqlite"]
    if args.only:
        stores = [args.only]
    server = PgServer(args.store) if "postgresql" in stores else None
    processes = {"postgresql": args.processes, "sqlite": args.sqlite_processes or args.processes}
    print(f"processes: {', '.join(f'{name} {processes[name]}' for name in stores)}")
    try:
        if server is not None:
            print(f"PostgreSQL: {server.describe()}")
        results: dict[str, list[dict[str, Any]]] = {name: [] for name in stores}
        for rep in range(args.reps):
            for name in stores if rep % 2 == 0 else list(reversed(stores)):
                if name == "sqlite":
                    db = str(fresh_sqlite(home, template, "run-sqlite"))
                else:
                    assert server is not None
                    db = server.fresh(template, rep)
                try:
                    out = run_processes(
                        args, db, template.with_suffix(".json"), mode, 100 + rep,
                        server if name == "postgresql" else None, processes[name],
                    )  # fmt: skip
                finally:
                    if server is not None and name == "postgresql":
                        server.drop(db)
                out = with_windows(out, args.seconds)
                results[name].append(out)
                report(rep, name, out, mode)
        summary(results, ("postgresql", "sqlite"), mode)
    finally:
        if server is not None:
            server.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument(
        "--restart", action="store_true", help="the first --seconds after a restart"
    )
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--rate", type=float, default=50.0, help="Poisson arrivals per second")
    parser.add_argument(
        "--watchers",
        default=None,
        metavar="N:G",
        help="live game pages (issue 28): N server-sent event streams over G games, served "
        "by the timed bot's process, against the same tree without pages",
    )
    parser.add_argument(
        "--results",
        default=None,
        metavar="FILE",
        help="write every run's figures, its per-move latencies included, to FILE (JSON)",
    )
    parser.add_argument(
        "--watchers-baseline",
        action="store_true",
        help="with --watchers: also the pages of --baseline-ref's code (watched-old), "
        "interleaved with this tree's and with no pages",
    )
    parser.add_argument(
        "--rates",
        type=lambda text: [float(r) for r in text.split(",")],
        default=None,
        help="a saturation sweep: the steady state at each of these rates (e.g. 100,150,200,250,300)",
    )
    parser.add_argument(
        "--only",
        choices=("improved", "baseline", "postgresql", "sqlite"),
        default=None,
        help="one side only: a variant (one process on SQLite) or, with --store, a store",
    )
    parser.add_argument(
        "--baseline-ref",
        default="main",
        help="the git commit (or branch) whose code is the baseline (default: main)",
    )
    parser.add_argument("--templates", type=int, default=200, help="games aged with the engine")
    parser.add_argument(
        "--keep", default=None, help="directory to keep (and reuse) the aged database"
    )
    parser.add_argument(
        "--store",
        default=None,
        help="compare with PostgreSQL: a postgresql:// URL (a scratch schema is made in its "
        "database for each run), or 'postgres' for a throwaway durable server",
    )
    parser.add_argument(
        "--processes", type=int, default=1, help="bot processes, each on its share of the games"
    )
    parser.add_argument(
        "--sqlite-processes",
        type=int,
        default=None,
        help="bot processes on SQLite beside --store (default: --processes)",
    )
    parser.add_argument(
        "--trace", action="store_true", help="count PostgreSQL round trips and waits per move"
    )
    parser.add_argument("--run", nargs=5, help=argparse.SUPPRESS)  # db mode variant seconds seed
    parser.add_argument("--share", nargs=2, type=int, default=(0, 1), help=argparse.SUPPRESS)
    parser.add_argument("--known", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--code", default=None, help=argparse.SUPPRESS)  # the tree to import
    args = parser.parse_args()
    if args.run:
        if args.code:  # that tree's packages (and its Discord fake) before this one's
            sys.path[:0] = [args.code, str(Path(args.code) / "tests" / "bot")]
        db, mode, variant, seconds, seed = args.run
        known = Path(args.known) if args.known else None
        result = asyncio.run(
            one_run(db, mode, variant, float(seconds), args.rate, int(seed),
                    known_file=known, share=tuple(args.share))
        )  # fmt: skip
        print(json.dumps(result))
        return
    if args.processes < 1:
        parser.error("--processes must be at least 1")
    if args.sqlite_processes is not None and args.sqlite_processes < 1:
        parser.error("--sqlite-processes must be at least 1")
    stores_mode = args.store is not None or args.processes > 1 or bool(args.sqlite_processes)
    if args.only is not None and stores_mode != (args.only in ("postgresql", "sqlite")):
        parser.error("--only: improved or baseline alone; postgresql or sqlite with --store")
    if args.only == "postgresql" and args.store is None:
        parser.error("--only postgresql needs --store")

    if args.rates and (stores_mode or args.restart):
        parser.error("--rates sweeps the steady state of one process")
    if args.trace:  # read by the timed processes
        os.environ["CHESSGARDEN_BENCH_TRACE"] = "1"
    mode = "restart" if args.restart else "steady"
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(args.keep) if args.keep else Path(tmp)
        home.mkdir(parents=True, exist_ok=True)
        template = home / f"aged-{args.games}-{args.templates}.sqlite3"
        if not template.exists() or not template.with_suffix(".json").exists():
            started = time.perf_counter()
            print(f"ageing {args.games} games ({args.templates} played out) ...", file=sys.stderr)
            for suffix in ("", "-wal", "-shm"):  # what an interrupted build left
                Path(f"{template}{suffix}").unlink(missing_ok=True)
            asyncio.run(build(template, args.games, args.templates, seed=12))
            print(f"  built in {time.perf_counter() - started:.0f} s", file=sys.stderr)
        print(
            f"python {sys.version.split()[0]}, sqlite {sqlite3.sqlite_version}, {os.cpu_count()} CPUs, "
            f"load average {os.getloadavg()[0]:.1f}; {args.games} live games aged "
            f"{MIN_PLIES}-{MAX_PLIES} plies, mode {mode}, Poisson {args.rate:g}/s, "
            f"{args.processes} process(es), {args.seconds:g} s x {args.reps}; "
            f"goal p99 <= {GOAL_P99_MS:g} ms"
        )
        if args.rates:
            sweep(args, home, template, mode)
        elif not stores_mode:
            compare_variants(args, home, template, mode)
        else:
            compare_stores(args, home, template, mode)


if __name__ == "__main__":
    main()
