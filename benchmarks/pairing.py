"""Swiss pairing time: what a tournament waits for between two rounds.

    python benchmarks/pairing.py [--players 500] [--rounds 9] [--reps 5] [--seed 1]
                                 [--baseline-players 100] [--baseline-reps 3]

Not a test (issue 30: a round of 500 players paired in at most 1 s).

- **The field.** ``bot.tournament.simulate``: a seeded Swiss of ``--players`` players and
  ``--rounds`` rounds (Elo-like results, a quarter drawn, a few withdrawals). Each
  round's case is the field still in and the results before it.
- **Ours.** ``pair_swiss(players, history)``: the whole call, from the results to the
  boards, ``--reps`` times per round. Per round the median wall time and CPU time
  (``process_time``, less disturbed by other processes); overall the median and the
  worst of the per-round medians, against the 1 s target.
- **The baseline.** The same rules as one plain matching: every allowed pair an edge,
  the same tiered weights, no candidate windows and no head start
  (``swiss._solve(..., window=None, head_start=False)`` on the complete graph). It takes
  minutes at 500 players, so it runs on its own smaller field (``--baseline-players``),
  interleaved with ours on the very same cases (alternating which goes first), and
  prints both medians and the ratio ours / baseline (lower is better) per round, then
  the median of the per-round ratios. It also says whether the two pairings agree:
  the bye and the score differences must (both are exact there); the rating order
  may differ only where the windows cut a candidate out.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.tournament import (  # noqa: E402
    Pairings,
    Player,
    RoundResult,
    pair_swiss,
    swiss,  # noqa: E402
)
from bot.tournament.model import records  # noqa: E402
from bot.tournament.simulate import simulate  # noqa: E402

Case = tuple[int, list[Player], list[RoundResult]]


def cases(players: int, rounds: int, seed: int) -> list[Case]:
    """(round number, players still in, results before it) for every round."""
    sim = simulate("swiss", players, rounds, seed)
    active = list(sim.players)
    out = []
    history: list[RoundResult] = []
    for rnd in sim.rounds:
        active = [p for p in active if p.id not in rnd.withdrawn]
        out.append((rnd.pairings.round_no, list(active), list(history)))
        history.append(rnd.result)
    return out


def timed(run: Callable[[], object]) -> tuple[float, float, object]:
    wall, cpu = time.perf_counter(), time.process_time()
    value = run()
    return time.perf_counter() - wall, time.process_time() - cpu, value


def plain(
    active: list[Player], history: list[RoundResult]
) -> tuple[list[tuple[int, int]], int | None]:
    """The baseline: one matching over the complete graph of allowed pairs."""
    recs = records([p.id for p in active], history)
    entrants = swiss._entrants(swiss.rank_order(active, recs), recs)
    found = swiss._solve(entrants, None, relaxed=False, window=None, head_start=False)
    if found is None:
        raise SystemExit("the baseline found no complete pairing; choose other sizes")
    pairs, bye = found
    ids = [(entrants[i].id, entrants[j].id) for i, j in pairs]
    return ids, entrants[bye].id if bye is not None else None


def score_tier(
    active: list[Player], history: list[RoundResult], pairs: list[tuple[int, int]]
) -> list[int]:
    recs = records([p.id for p in active], history)
    return sorted(
        (abs(round(2 * (recs[a].points - recs[b].points))) for a, b in pairs), reverse=True
    )


def ours_pairs(p: Pairings) -> list[tuple[int, int]]:
    return sorted((min(b.white, b.black), max(b.white, b.black)) for b in p.boards)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--players", type=int, default=500)
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--baseline-players", type=int, default=100)
    ap.add_argument("--baseline-reps", type=int, default=3)
    args = ap.parse_args()
    print(
        f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}, cpus: {os.cpu_count()}"
    )

    print(
        f"\nOurs: {args.players} players, {args.rounds} rounds, {args.reps} repetitions per round"
    )
    medians = []
    for number, active, history in cases(args.players, args.rounds, args.seed):
        walls, cpus = [], []
        for _ in range(args.reps):
            wall, cpu, _ = timed(lambda a=active, h=history: pair_swiss(a, h))
            walls.append(wall)
            cpus.append(cpu)
        medians.append(statistics.median(walls))
        print(
            f"  round {number}: {len(active)} players  median {statistics.median(walls):.3f} s wall,"
            f" {statistics.median(cpus):.3f} s cpu  (min {min(walls):.3f}, max {max(walls):.3f})"
        )
    worst = max(medians)
    print(
        f"  per round: median {statistics.median(medians):.3f} s, worst {worst:.3f} s"
        f" -> target <= 1 s {'met' if worst <= 1.0 else 'NOT met'} on this machine now"
    )

    n = args.baseline_players
    print(
        f"\nBaseline (complete graph, no windows, no head start) vs ours: {n} players, {args.baseline_reps} reps"
    )
    ratios, cpu_ratios = [], []
    for number, active, history in cases(n, args.rounds, args.seed):
        ours_w, ours_c, base_w, base_c = [], [], [], []
        agree = same = True
        for rep in range(args.baseline_reps):
            order = [0, 1] if rep % 2 == 0 else [1, 0]
            for which in order:
                if which == 0:
                    w, c, got = timed(lambda a=active, h=history: pair_swiss(a, h))
                    ours_w.append(w)
                    ours_c.append(c)
                    mine = got
                else:
                    w, c, base = timed(lambda a=active, h=history: plain(a, h))
                    base_w.append(w)
                    base_c.append(c)
                    theirs = base
        assert isinstance(mine, Pairings) and isinstance(theirs, tuple)
        agree = mine.bye == theirs[1] and score_tier(
            active, history, ours_pairs(mine)
        ) == score_tier(active, history, theirs[0])
        same = ours_pairs(mine) == sorted((min(a, b), max(a, b)) for a, b in theirs[0])
        ratio = statistics.median(ours_w) / statistics.median(base_w)
        cpu_ratio = statistics.median(ours_c) / max(statistics.median(base_c), 1e-9)
        ratios.append(ratio)
        cpu_ratios.append(cpu_ratio)
        print(
            f"  round {number}: ours {statistics.median(ours_w):.3f} s, baseline {statistics.median(base_w):.3f} s,"
            f" ratio {ratio:.3f} (cpu {cpu_ratio:.3f}); bye and score differences"
            f" {'agree' if agree else 'DIFFER'}; pairings {'identical' if same else 'differ in rating order'}"
        )
    print(
        f"  median ratio ours/baseline: {statistics.median(ratios):.3f} wall,"
        f" {statistics.median(cpu_ratios):.3f} cpu (worst {max(ratios):.3f})"
    )
    print(f"load average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
