"""The Swiss rules stated again, independently of ``bot.tournament.swiss``, for tests.

- A player's past: points, colours of played games, opponents met in played games,
  and byes (byes given plus forfeits won). Forfeits are not meetings and have no
  colour.
- A sequence of colours is fine when no colour comes three times in a row and the
  difference between Whites and Blacks never goes above 2.
- Two players may meet when they have not met and some allocation of colours keeps
  both sequences fine. The bye may go to a player with the fewest byes.
- Rank: points, then rating, then the lower id.
- The best pairing: the bye on the lowest-ranked player it may go to such that the
  others can all be paired; then the smallest score differences, compared largest
  first (``d_vector``: the pairs' non-zero differences in half points, largest first).

``best_small`` finds the best by dynamic programming over subsets (up to 14 players).
``parity_floor`` is a lower bound for any field, and ``has_perfect`` asks networkx
for a maximum matching (a plain one, with no weights) on the allowed pairs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache

import networkx as nx

from bot.tournament import Pairings, Player, RoundResult


@dataclass
class Past:
    points: float = 0.0
    colours: list[str] = field(default_factory=list)
    met: set[int] = field(default_factory=set)
    byes: int = 0


def pasts(players: Sequence[Player], history: Sequence[RoundResult]) -> dict[int, Past]:
    out = {p.id: Past() for p in players}
    for rnd in history:
        if rnd.bye is not None and rnd.bye in out:
            out[rnd.bye].points += rnd.bye_points
            out[rnd.bye].byes += 1
        for g in rnd.games:
            w, b = {"1-0": (1.0, 0.0), "0-1": (0.0, 1.0), "1/2-1/2": (0.5, 0.5)}[g.result]
            for pid, pts, colour, opp in ((g.white, w, "W", g.black), (g.black, b, "B", g.white)):
                if pid not in out:
                    continue
                out[pid].points += pts
                if g.forfeit:
                    out[pid].byes += pts == 1.0
                else:
                    out[pid].colours.append(colour)
                    out[pid].met.add(opp)
    return out


def colours_fine(colours: Sequence[str]) -> bool:
    diff = 0
    for k, c in enumerate(colours):
        diff += 1 if c == "W" else -1
        if abs(diff) > 2:
            return False
        if k >= 2 and colours[k - 2] == colours[k - 1] == c:
            return False
    return True


def may_meet(a: Past, b: Past, a_id: int, b_id: int) -> bool:
    if b_id in a.met:
        return False
    return any(
        colours_fine([*a.colours, x]) and colours_fine([*b.colours, y])
        for x, y in (("W", "B"), ("B", "W"))
    )


def ranked(players: Sequence[Player], past: dict[int, Past]) -> list[Player]:
    return sorted(players, key=lambda p: (-past[p.id].points, -p.rating, p.id))


def d_vector(pairs: Sequence[tuple[float, float]]) -> tuple[int, ...]:
    """Non-zero score differences in half points, largest first."""
    return tuple(sorted((abs(round(2 * (a - b))) for a, b in pairs if a != b), reverse=True))


def pairing_vector(pairings: Pairings, past: dict[int, Past]) -> tuple[int, ...]:
    return d_vector([(past[b.white].points, past[b.black].points) for b in pairings.boards])


def bye_candidates(order: list[Player], past: dict[int, Past]) -> list[int]:
    """Who may have the bye, lowest-ranked first."""
    fewest = min(past[p.id].byes for p in order)
    return [p.id for p in reversed(order) if past[p.id].byes == fewest]


def best_small(
    players: Sequence[Player], history: Sequence[RoundResult]
) -> tuple[int | None, tuple[int, ...]] | None:
    """(bye, d_vector) of the best pairing that keeps the rules, or None if none does."""
    past = pasts(players, history)
    order = ranked(players, past)
    if len(order) > 14:
        raise ValueError("too many players for the brute force")
    byes: list[int | None] = [*bye_candidates(order, past)] if len(order) % 2 else [None]
    for bye in byes:
        rest = [p for p in order if p.id != bye]
        best = _best_rest(rest, past)
        if best is not None:
            return bye, best
    return None


def _best_rest(rest: list[Player], past: dict[int, Past]) -> tuple[int, ...] | None:
    n = len(rest)
    ok = [
        [
            i != j and may_meet(past[rest[i].id], past[rest[j].id], rest[i].id, rest[j].id)
            for j in range(n)
        ]
        for i in range(n)
    ]
    diff = [
        [abs(round(2 * (past[rest[i].id].points - past[rest[j].id].points))) for j in range(n)]
        for i in range(n)
    ]

    @cache
    def solve(mask: int) -> tuple[int, ...] | None:
        if mask == 0:
            return ()
        i = (mask & -mask).bit_length() - 1
        best: tuple[int, ...] | None = None
        for j in range(i + 1, n):
            if mask >> j & 1 and ok[i][j]:
                sub = solve(mask & ~(1 << i) & ~(1 << j))
                if sub is None:
                    continue
                vec = tuple(sorted([*sub, diff[i][j]] if diff[i][j] else sub, reverse=True))
                if best is None or vec < best:
                    best = vec
        return best

    return solve((1 << n) - 1)


def parity_floor(
    players: Sequence[Player], past: dict[int, Past], bye: int | None
) -> tuple[int, ...]:
    """One pair across each boundary between score groups with an odd number of
    players above it, of that boundary's gap: no pairing has smaller differences."""
    scores = [round(2 * past[p.id].points) for p in ranked(players, past) if p.id != bye]
    gaps = [
        scores[k] - scores[k + 1]
        for k in range(len(scores) - 1)
        if scores[k] != scores[k + 1] and (k + 1) % 2
    ]
    return tuple(sorted(gaps, reverse=True))


def has_perfect(players: Sequence[Player], past: dict[int, Past], without: int | None) -> bool:
    """Whether the players other than ``without`` can all be paired by the rules."""
    rest = [p.id for p in players if p.id != without]
    graph: nx.Graph[int] = nx.Graph()
    graph.add_nodes_from(rest)
    for k, a in enumerate(rest):
        for b in rest[k + 1 :]:
            if may_meet(past[a], past[b], a, b):
                graph.add_edge(a, b)
    return 2 * len(nx.max_weight_matching(graph, maxcardinality=True)) == len(rest)
