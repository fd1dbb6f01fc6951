"""What a player waits for the computer (``benchmarks/ai.py --wait``; issue 26, item 3).

One run (``run_one``, in a process of its own) opens a live ``GameService`` on a
temporary SQLite database, with the real board and dice renderers, and a
``ComputerRunner`` that draws the computer's board (``render=True``) and tells a
notifier of each move. A human player, the engine's level 1 with a short budget (so
that the games look like games), plays level 3 through ``act`` with its board drawn,
as on Discord. Each wait is timed on the wall clock from the moment the human's
``act`` returns to the moment the notifier hears of the computer's move: its claim,
the worker process's round trip (the replay and the search included), its ``act``
(the commit) and its board drawn. When the computer acts twice running (a re-roll,
the Tquarc's roll), the second wait starts when the first board was told.

The worker processes are started, and the engine imported in each, before the first
timed move; the first move of a run (whatever the pool) is timed like any other.

``compare`` runs ``run_one`` for ours (this tree) and for the baseline (a commit,
exported with ``git archive``: today's budget handling, ``--baseline``), interleaved
(the arm that goes first turns with each repetition and variant), each in a fresh
process with that tree first on ``sys.path``; per variant it prints p50, p95 and max
of both, and the median over repetitions of the per-repetition ratio of the p95s.

``overrun`` (``benchmarks/ai.py --overrun``): ``engine.choose`` given a budget, on fixed
positions, each variant in a fresh process, ours against the baseline: wall time over
the budget (p50, p95, max, and how many went over).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

HUMAN_ID = 101
HUMAN_BUDGET_S = 0.1  # the human (level 1) thinks this long: not timed
GAME_PLY_CAP = 160  # a longer game is left, and a new one started


def percentile(values: list[float], q: float) -> float:
    """The ``q`` quantile (0..1) by the nearest rank; 0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * q // 1))
    return ordered[int(rank) - 1]


async def _waits(variant: str, moves: int, seed: int) -> dict[str, Any]:
    """Play until ``moves`` computer moves have been timed: their waits in ms."""
    import engine
    import variants
    from bot.service import ComputerRunner, GameService
    from bot.service.computer import think
    from bot.service.results import Outcome

    told: asyncio.Queue[tuple[float, float, Outcome]] = asyncio.Queue()

    class Notifier:
        async def computer_moved(self, outcome: Outcome) -> None:
            told.put_nowait((time.perf_counter(), time.monotonic(), outcome))

    rng = random.Random(seed)
    waits: list[float] = []
    plies: list[int] = []
    searches: list[float] = []  # the search's own time (engine.Choice.time_s), ms
    depths: list[int] = []
    after: list[float] = []  # from the worker's end to the board told, ms (ours only)
    thoughts: list[Any] = []
    with tempfile.TemporaryDirectory() as tmp:
        service = await GameService.open(f"{tmp}/wait.sqlite3")
        runner = ComputerRunner(service, Notifier(), render=True)
        original = service._in_process

        async def spy(function: Any, *args: Any) -> Any:
            """Keeps each search's result (timing only; the service gets it unchanged)."""
            result = await original(function, *args)
            if function is think:
                thoughts.append(result)
            return result

        service._in_process = spy  # type: ignore[method-assign]
        try:
            # As ``chessgarden run`` starts: the warm-up's drawings (the painter process,
            # issue 26, where the tree has one) done before the first move.
            if hasattr(service, "start_warm_up"):
                service.start_warm_up(gc_policy=False)
                await service.drawings_ready()
            # Both worker processes started, engine imported and the variant's tables
            # built in each, before anything is timed (two searches at once).
            record = variants.new_game(variant, seed=seed).record()
            await asyncio.gather(
                *(service._workers.process(think, record, 1, 0.05, n) for n in range(2))
            )
            await runner.start()
            game_no = 0
            while len(waits) < moves:
                game_no += 1
                colour = "white" if game_no % 2 else "black"
                out = await service.play_computer(
                    user_id=HUMAN_ID, location_id=game_no, variant=variant, level=3,
                    colour=colour, seed=f"{seed}:{game_no}", render=True,
                )  # fmt: skip
                game_id = out.game.id
                since = time.perf_counter()
                view = out.game
                while len(waits) < moves and not view.is_over and view.ply < GAME_PLY_CAP:
                    if view.turn != colour:  # the computer's: wait for its board
                        at, at_mono, moved = await asyncio.wait_for(told.get(), timeout=60)
                        waits.append((at - since) * 1000)
                        plies.append(moved.game.ply)
                        thought = thoughts.pop(0)
                        searches.append(thought.time_s * 1000)
                        depths.append(thought.depth)
                        ended = getattr(thought, "ended", None)  # the baseline has none
                        if ended is not None:  # the worker's clock is the same monotonic
                            after.append((at_mono - ended) * 1000)
                        since, view = at, moved.game
                        continue
                    history = await service.history(game_id=game_id)
                    choice = engine.choose(history.record, 1, HUMAN_BUDGET_S, rng.randrange(2**32))
                    done = await service.act(
                        user_id=HUMAN_ID, text=choice.action, game_id=game_id, render=True
                    )
                    since, view = time.perf_counter(), done.game
                await runner.idle()
                while not told.empty():  # a move after the cap or the count: not timed
                    told.get_nowait()
                thoughts.clear()
        finally:
            restarts = service._workers.restarts
            processes = len(service._workers.process_ids())
            await runner.stop()
            await service.close()
    return {
        "variant": variant,
        "waits": waits,
        "plies": plies,
        "searches": searches,
        "depths": depths,
        "after": after,
        "load": os.getloadavg()[0],
        # worker pools that failed and were started again: such a run's moves ran partly
        # in threads of the service's process (reported, not hidden)
        "restarts": restarts,
        "processes": processes,
    }


OVERRUN_CASES = [(p, s) for p in (0, 6, 14, 24, 36, 50, 70, 90) for s in (11, 12)]


def overrun_one(variant: str, budget_s: float) -> None:
    """A child's work for ``--overrun``: ``engine.choose`` (replay included) on fixed
    positions of one variant in a fresh process (so the first builds the variant's
    tables, as a worker's first move does); prints each call's wall time over its budget."""
    import engine
    import variants

    ratios = []
    for plies, seed in OVERRUN_CASES:
        game = variants.random_playout(variant, plies, seed)
        if game.result is not None:
            continue
        record = game.record()
        began = time.perf_counter()
        engine.choose(record, 3, budget_s, 1)
        ratios.append((time.perf_counter() - began) / budget_s)
    print(json.dumps({"variant": variant, "ratios": ratios, "load": os.getloadavg()[0]}))


def overrun(repo: Path, baseline: str | None, keys: list[str], budget_s: float, reps: int) -> None:
    """``benchmarks/ai.py --overrun``: does a search given ``budget_s`` end within it?
    Ours against the baseline, interleaved, each variant in fresh processes."""
    baseline = baseline or _merge_base(repo)
    got: dict[str, dict[str, list[float]]] = {k: {"ours": [], "base": []} for k in keys}
    print(
        f"engine.choose (level 3, replay included) given {budget_s} s on "
        f"{len(OVERRUN_CASES)} fixed positions per variant, a fresh process per variant and "
        f"run: wall time / budget; ours against {baseline}, {reps} repetition(s)",
        flush=True,
    )
    with _trees(repo, baseline) as roots:
        for rep in range(reps):
            for n, key in enumerate(keys):
                order = ("ours", "base") if (rep + n) % 2 == 0 else ("base", "ours")
                for arm in order:
                    result = _run_child(roots[arm], "--overrun", key, str(budget_s))
                    got[key][arm] += result["ratios"]
    for key, arms in got.items():
        cells = []
        for arm in ("ours", "base"):
            r = arms[arm]
            over = sum(1 for x in r if x > 1.0)
            cells.append(
                f"{arm} p50 {percentile(r, 0.5):.3f}, p95 {percentile(r, 0.95):.3f}, max "
                f"{max(r, default=0):.3f} ({over} of {len(r)} over)"
            )
        print(f"  {key:13}: " + "; ".join(cells), flush=True)
    print(f"load average after: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")


AGREEMENT_CASES = [(p, s) for p in (4, 12, 24, 40) for s in (21, 22)]


def agreement(keys: list[str], new_s: float, old_s: float) -> None:
    """``benchmarks/ai.py --agreement``: level 3 with the search budget the service now
    gives (``new_s``) against the old whole budget (``old_s``), on fixed positions, on the
    search thread's CPU clock (the load does not change the choice): how often they choose
    the same action, and their completed depths. The old budget is run twice, so that the
    search's own variation (an iteration cut at a slightly different node) is known."""
    import engine
    import variants

    print(
        f"Level 3 at {new_s} s (the search's share now) against {old_s} s (before), CPU "
        f"clock, {len(AGREEMENT_CASES)} fixed positions per variant; load "
        f"{os.getloadavg()[0]:.2f}",
        flush=True,
    )
    totals = [0, 0, 0]
    for key in keys:
        same_new = same_old = n = 0
        depths: dict[str, list[int]] = {"new": [], "old": []}
        for plies, seed in AGREEMENT_CASES:
            game = variants.random_playout(key, plies, seed)
            if game.result is not None:
                continue
            picks = {}
            for name, budget in (("old", old_s), ("new", new_s), ("old2", old_s)):
                choice = engine.choose_for_game(
                    game, 3, budget_s=budget, seed=1, clock=time.thread_time
                )
                picks[name] = choice.action
                if name in depths:
                    depths[name].append(choice.depth)
            n += 1
            same_new += picks["new"] == picks["old"]
            same_old += picks["old2"] == picks["old"]
        totals[0] += n
        totals[1] += same_new
        totals[2] += same_old
        print(
            f"  {key:13}: {n} positions; new = old in {same_new}, old = old again in "
            f"{same_old}; completed depth mean new {statistics.fmean(depths['new']):.2f}, old "
            f"{statistics.fmean(depths['old']):.2f}",
            flush=True,
        )
    print(
        f"All: {totals[0]} positions; the new budget chose the old budget's action in "
        f"{totals[1]}, the old budget its own again in {totals[2]}"
    )


def run_one(variant: str, moves: int, seed: int) -> None:
    """The child process's work: print one JSON line."""
    result = asyncio.run(_waits(variant, moves, seed))
    print(json.dumps(result))


Runs = dict[str, dict[str, list[dict[str, Any]]]]  # variant -> arm -> one result per run


def _merge_base(repo: Path) -> str:
    """Where this branch left main: today's budget handling."""
    out = subprocess.run(
        ["git", "-C", str(repo), "merge-base", "HEAD", "main"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    return out.stdout.strip()[:12]


@contextlib.contextmanager
def _trees(repo: Path, baseline: str) -> Iterator[dict[str, str]]:
    """This tree and the baseline's (exported with git archive) for the two arms."""
    with tempfile.TemporaryDirectory() as tmp:
        archive = subprocess.run(
            ["git", "-C", str(repo), "archive", baseline], capture_output=True, check=True
        )
        subprocess.run(["tar", "-x", "-C", tmp], input=archive.stdout, check=True)
        # The children run this file from inside the tree they measure, from its root:
        # nothing of the other tree on the path (a worker process imports by name).
        shutil.copy(Path(__file__).resolve(), Path(tmp) / "benchmarks" / "ai_wait.py")
        yield {"ours": str(repo), "base": tmp}


def _run_child(root: str, *args: str) -> dict[str, Any]:
    """``python ROOT/benchmarks/ai_wait.py ROOT ARGS...`` from ROOT: its JSON line."""
    env = {**os.environ, "PYTHONPATH": root}
    out = subprocess.run(
        [sys.executable, str(Path(root) / "benchmarks" / "ai_wait.py"), root, *args],
        capture_output=True, text=True, env=env, cwd=root, check=False, timeout=3600,
    )  # fmt: skip
    if out.returncode != 0:
        raise RuntimeError(f"the run {args} in {root} failed:\n{out.stderr[-3000:]}")
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def compare(repo: Path, baseline: str, keys: list[str], moves: int, reps: int, seed: int) -> Runs:
    """Ours against ``baseline``, interleaved; prints as it goes, returns every run."""
    got: Runs = {k: {"ours": [], "base": []} for k in keys}
    with _trees(repo, baseline) as roots:
        print(
            f"What the player waits for a level-3 move (wall clock, from the human's act "
            f"returning to the computer's board drawn and told), through a live GameService "
            f"and ComputerRunner: ours against {baseline} (today's budget handling), "
            f"{moves} computer moves per run, {reps} repetition(s), interleaved; load "
            f"average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores",
            flush=True,
        )
        for rep in range(reps):
            for n, key in enumerate(keys):
                order = ("ours", "base") if (rep + n) % 2 == 0 else ("base", "ours")
                for arm in order:
                    result = _run_child(roots[arm], key, str(moves), str(seed + 1000 * rep))
                    got[key][arm].append(result)
                    w = result["waits"]
                    print(
                        f"  rep {rep + 1} {key:13} {arm}: p50 {percentile(w, 0.5):5.0f} ms, "
                        f"p95 {percentile(w, 0.95):5.0f}, max {max(w, default=0):5.0f} over "
                        f"{len(w)} moves (load {result['load']:.2f})"
                        + (
                            f"; WORKER POOL RESTARTED {result['restarts']} times, "
                            f"{result['processes']} worker processes at the end"
                            if result["restarts"] or not result["processes"]
                            else ""
                        ),
                        flush=True,
                    )
    return got


def _three(values: list[float]) -> str:
    return (
        f"p50 {percentile(values, 0.5):5.0f} ms, p95 {percentile(values, 0.95):5.0f}, max "
        f"{max(values, default=0):5.0f}"
    )


def report(got: Runs, promise_ms: float = 2000.0) -> None:
    """Per variant: both arms' waits, the median per-repetition p95 ratio, the search's
    own time and completed depth, and (ours) the time from the search's end to the board."""
    print(f"Per variant over all repetitions (target: p95 <= {promise_ms:.0f} ms):")
    every: dict[str, list[float]] = {"ours": [], "base": [], "after": []}
    for key, arms in got.items():
        ours = [w for run in arms["ours"] for w in run["waits"]]
        base = [w for run in arms["base"] for w in run["waits"]]
        after = [w for run in arms["ours"] for w in run["after"]]
        every["ours"] += ours
        every["base"] += base
        every["after"] += after
        ratios = [
            percentile(o["waits"], 0.95) / percentile(b["waits"], 0.95)
            for o, b in zip(arms["ours"], arms["base"], strict=True)
            if b["waits"] and o["waits"]
        ]
        verdict = "met" if percentile(ours, 0.95) <= promise_ms else "MISSED"
        print(
            f"  {key:13}: ours {_three(ours)} ({len(ours)} moves; {verdict}); baseline "
            f"{_three(base)} ({len(base)}); p95 ratio ours/baseline, median over "
            f"repetitions {statistics.median(ratios) if ratios else float('nan'):.3f}",
            flush=True,
        )
        for arm in ("ours", "base"):
            searches = [t for run in arms[arm] for t in run["searches"]]
            depths = [d for run in arms[arm] for d in run["depths"]]
            print(
                f"  {'':13}  {arm}: the search's own time {_three(searches)}; completed depth "
                f"mean {statistics.fmean(depths) if depths else 0:.2f}"
            )
        print(f"  {'':13}  ours, from the search's end to the board told: {_three(after)}")
    print(
        f"All variants: ours {_three(every['ours'])} ({len(every['ours'])} moves); baseline "
        f"{_three(every['base'])} ({len(every['base'])}); ours from the search's end to the "
        f"board told {_three(every['after'])}"
    )


def run(
    repo: Path, baseline: str | None, keys: list[str], moves: int, reps: int, seed: int
) -> None:
    """``benchmarks/ai.py --wait``: the comparison and its report, with the machine's load
    before and after (the baseline by default is where this branch left main)."""
    baseline = baseline or _merge_base(repo)
    uptime = subprocess.run(["uptime"], capture_output=True, text=True, check=False).stdout
    print(f"uptime before: {uptime.strip()}", flush=True)
    report(compare(repo, baseline, keys, moves, reps, seed))
    uptime = subprocess.run(["uptime"], capture_output=True, text=True, check=False).stdout
    print(f"uptime after: {uptime.strip()}", flush=True)


if __name__ == "__main__":
    # A child run: argv is root, then variant, moves, seed (or --overrun, variant,
    # budget); the tree under test comes first on the path.
    sys.path.insert(0, sys.argv[1])
    if sys.argv[2] == "--overrun":
        overrun_one(sys.argv[3], float(sys.argv[4]))
    else:
        run_one(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
