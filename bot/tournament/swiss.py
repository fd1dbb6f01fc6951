"""Swiss pairing: each round is one maximum-weight matching (networkx's
``max_weight_matching`` with ``maxcardinality``) on a graph of the players, plus a bye
node when their number is odd.

The rules, in the order they win over each other:

1. **Hard rules** (an edge that breaks one is left out of the graph): two players meet
   at most once (a forfeited game does not count as meeting); some allocation of
   colours keeps both within the colour rules (``colours.py``: never the same colour
   three times in a row, never a colour difference above 2); the bye goes only to a
   player with the fewest byes so far (normally none; a forfeit win counts as a bye).
2. **The bye** goes to the lowest-ranked player allowed one.
3. **Score groups**: players meet players of their own score. Where someone must
   meet a different score, the largest score difference is as small as possible;
   then as few pairs as possible have that difference; then the same for the next
   smaller difference, and so on ("score groups respected").
4. **Rating order** within a score group of ``g`` players ranked ``0 .. g-1``: the top
   half meets the bottom half in order (0 with g//2, 1 with g//2 + 1, ...), and a pair
   costs the square of how far it is from that; a pair across score groups costs the
   square of how far the higher player is from the bottom of their group plus how
   far the lower player is from the top of theirs (the lowest of a group floats down
   to the highest of the next).
5. **Colour preferences**: a pair costs the strength of the preference it leaves
   unmet (``colours.py``).

Ranking: by points, then rating, then id (the lower first). Each tier is a digit of
one integer weight, in a base larger than the most the tiers below can add up to
over a whole round, so the matching optimises them strictly in order.

When no pairing keeps the hard rules (a small field late in a long event), the round
is paired on the complete graph with the breaches counted in a tier above everything
else (repeats first, then second byes, then colours): as few breaches as possible,
named in ``Pairings.compromises``.

**Speed.** networkx's matching is pure Python: on the complete graph of 500 players
(125,000 edges) it takes minutes. So a round is first paired on a graph of candidates:
the pairs whose rating cost (tier 4) is at most ``FIRST_WINDOW`` squared, that is the
partners within that many places of the ideal one in a score group, and across
groups the bottom of one group with the top of each group below. That pairing is
kept when the bye is on the lowest-ranked player allowed one and the score
differences reach ``score_floor``, which no pairing of the complete graph can beat:
it is then the complete graph's best in tiers 1 to 3, and its rating order is the
best among the candidates. Otherwise the window doubles. Fields of at most
``SMALL_FIELD`` players (the complete graph is cheap there), and windows that reach
the whole field, are paired on the complete graph of allowed pairs (``_exact``), the
best in every tier. Each player's
best weight is also taken off their edges before matching (``_weights``): it changes
no complete pairing's rank but lets most pairs be found without search.

The pairings are a function of the players and the results, given this module's
constants and networkx's algorithm; ``tournament check`` re-pairs with the same.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import networkx as nx

from bot.tournament import colours as col
from bot.tournament.model import (
    BLACK,
    WHITE,
    Board,
    Pairings,
    Player,
    Record,
    RoundResult,
    check_round,
    records,
)

BYE = -1  # the bye node
SMALL_FIELD = 64  # fields this small are paired on the complete graph, best in every tier
END_PART = 40  # the floor counts crossings exactly among the top and bottom players this many
FIRST_WINDOW = 4  # candidates: places either side of the ideal partner, to begin with


@dataclass(frozen=True)
class _Entrant:
    """A player to pair, as the pairing sees them."""

    index: int  # rank: 0 is the highest
    id: int
    half_points: int
    colours: tuple[str, ...]
    want: str | None
    strength: int
    may_white: bool
    may_black: bool
    group_pos: int  # rank within the score group
    group_size: int
    met: dict[int, int]
    byes: int


# An edge's costs, highest tier first: (breaches, bye, score difference, rating, colour).
# ``breaches`` is (repeats, second bye, colour) and is non-zero only in the relaxed graph.
Cost = tuple[tuple[int, int, int], int, int, int, int]


def rank_order(players: Sequence[Player], recs: dict[int, Record]) -> list[Player]:
    """Players from the highest-ranked: points, then rating, then the lower id."""
    return sorted(players, key=lambda p: (-recs[p.id].points, -p.rating, p.id))


def pair_swiss(
    players: Sequence[Player], history: Sequence[RoundResult], round_no: int | None = None
) -> Pairings:
    """Pair the next round of a Swiss among ``players`` (those still in; withdrawn
    players are left out by the caller), after the played rounds ``history``.
    Deterministic: the same inputs give the same pairings."""
    ids = [p.id for p in players]
    if len(ids) != len(set(ids)):
        raise ValueError("a player is listed twice.")
    for rnd in history:
        check_round(rnd)
    number = len(history) + 1 if round_no is None else round_no
    recs = records(ids, history)
    entrants = _entrants(rank_order(players, recs), recs)
    if len(entrants) < 2:
        bye = entrants[0].id if entrants else None
        return Pairings(number, (), bye)
    pairs, bye, compromises = _match(entrants)
    return _boards(number, entrants, pairs, bye, compromises)


def _entrants(ordered: list[Player], recs: dict[int, Record]) -> list[_Entrant]:
    groups: dict[int, int] = {}
    half = [round(recs[p.id].points * 2) for p in ordered]
    for hp in half:
        groups[hp] = groups.get(hp, 0) + 1
    seen: dict[int, int] = {}
    out = []
    for index, p in enumerate(ordered):
        rec = recs[p.id]
        colours = tuple(rec.colours)
        allowed = col.allowed_colours(colours)
        want, strength = col.preference(colours)
        pos = seen.get(half[index], 0)
        seen[half[index]] = pos + 1
        out.append(
            _Entrant(
                index=index,
                id=p.id,
                half_points=half[index],
                colours=colours,
                want=want,
                strength=strength,
                may_white=WHITE in allowed,
                may_black=BLACK in allowed,
                group_pos=pos,
                group_size=groups[half[index]],
                met=rec.met,
                byes=rec.byes,
            )
        )
    return out


def _rating_cost(a: _Entrant, b: _Entrant) -> int:
    """Tier 4 for ``a`` ranked above ``b``."""
    if a.half_points == b.half_points:
        return (b.group_pos - a.group_pos - a.group_size // 2) ** 2
    return ((a.group_size - 1 - a.group_pos) + b.group_pos) ** 2


def _colour_cost(a: _Entrant, b: _Entrant) -> int:
    """Tier 5: the weaker of two equal wishes goes unmet (colours.allocate)."""
    if a.want is None or a.want != b.want:
        return 0
    return col.UNMET_COST[min(a.strength, b.strength)]


def _colour_legal(a: _Entrant, b: _Entrant) -> bool:
    return (a.may_white and b.may_black) or (a.may_black and b.may_white)


def _edges(
    entrants: list[_Entrant], max_diff: int | None, relaxed: bool, window: int | None = None
) -> list[tuple[int, int, Cost]]:
    """The graph's edges up to score difference ``max_diff`` (all when None) and, with
    a ``window``, only the pairs whose rating cost is at most ``window`` squared. In the
    relaxed graph every pair is an edge and breaches are costs."""
    n = len(entrants)
    edges: list[tuple[int, int, Cost]] = []
    for i, j in _candidates(entrants, max_diff, window):
        a, b = entrants[i], entrants[j]
        repeats = a.met.get(b.id, 0)
        legal = _colour_legal(a, b)
        if not relaxed and (repeats or not legal):
            continue
        breaches = (repeats, 0, 0 if legal else 1)
        diff = a.half_points - b.half_points
        edges.append((i, j, (breaches, 0, diff, _rating_cost(a, b), _colour_cost(a, b))))
    if n % 2:
        fewest = min(e.byes for e in entrants)
        for e in entrants:
            second = int(e.byes > fewest)
            if second and not relaxed:
                continue
            below = n - 1 - e.index
            edges.append((e.index, BYE, ((0, second, 0), below, 0, 0, 0)))
    return edges


def _candidates(
    entrants: list[_Entrant], max_diff: int | None, window: int | None
) -> list[tuple[int, int]]:
    """Pairs ``(i, j)``, ``i`` ranked above ``j``, as ``_edges`` describes."""
    n = len(entrants)
    found: list[tuple[int, int]] = []
    if window is None:
        for i in range(n):
            for j in range(i + 1, n):
                diff = entrants[i].half_points - entrants[j].half_points
                if max_diff is not None and diff > max_diff:
                    break  # ranked by points: the rest are further still
                found.append((i, j))
        return found
    # Score groups as runs of indices (entrants are in rank order).
    starts = [
        i for i in range(n) if i == 0 or entrants[i].half_points != entrants[i - 1].half_points
    ]
    runs = [(s, e) for s, e in zip(starts, starts[1:] + [n], strict=True)]
    for g, (start, end) in enumerate(runs):
        size = end - start
        half = size // 2
        for pos in range(size):
            lo = max(pos + 1, pos + half - window)
            hi = min(size - 1, pos + half + window)
            found.extend((start + pos, start + q) for q in range(lo, hi + 1))
        # Floats: the bottom of this group with the top of each lower group.
        for lower_start, lower_end in runs[g + 1 :]:
            diff = entrants[start].half_points - entrants[lower_start].half_points
            if max_diff is not None and diff > max_diff:
                break
            for up in range(min(size, window + 1)):
                for down in range(min(lower_end - lower_start, window + 1 - up)):
                    found.append((end - 1 - up, lower_start + down))
    return found


def _weights(
    edges: list[tuple[int, int, Cost]], pairs: int, head_start: bool = True
) -> list[tuple[int, int, int]]:
    """One integer weight per edge: the tiers as digits, each in a base above the most
    the tiers below it can add up to over ``pairs`` pairs (so they count in order)."""
    if not edges:
        return []
    # Score differences count by level: one pair at a level outweighs every pair below.
    levels = sorted({c[2] for _, _, c in edges if c[2] > 0})
    level_cost = {d: (pairs + 1) ** t for t, d in enumerate(levels)}
    level_cost[0] = 0
    scalars = []
    for _, _, (breach, bye, diff, rating, colour) in edges:
        repeats, second, colour_breach = breach
        breaches = (repeats * 2 + second) * (pairs + 1) + colour_breach
        scalars.append((breaches, bye, level_cost[diff], rating, colour))
    value = [0] * len(edges)
    for tier in range(5):
        top = max(s[tier] for s in scalars)
        base = top * pairs + 1 if tier != 0 else 1
        value = [v * base + s[tier] for v, s in zip(value, scalars, strict=True)]
    ceiling = max(value) + 1
    weighted = [(u, v, ceiling - x) for (u, v, _), x in zip(edges, value, strict=True)]
    if not head_start:
        return weighted
    # A head start for the matching: every complete pairing holds each player once, so
    # taking a share of each player's best weight off their edges changes every
    # complete pairing's total alike, and leaves the best one best. Edges that are
    # both players' best then start tight, and most pairs are found at once.
    best: dict[int, int] = {}
    for u, v, w in weighted:
        if w > best.get(u, 0):
            best[u] = w
        if w > best.get(v, 0):
            best[v] = w
    lift = 2 * ceiling
    return [(u, v, 2 * w - best[u] - best[v] + lift) for u, v, w in weighted]


def _networkx() -> ModuleType:
    """networkx, imported when a round is first paired: it takes a tenth of a second to
    import, and every process that imports the service (each console command) would
    pay for it otherwise."""
    return importlib.import_module("networkx")


def _solve(
    entrants: list[_Entrant],
    max_diff: int | None,
    relaxed: bool,
    window: int | None = None,
    head_start: bool = True,
) -> tuple[list[tuple[int, int]], int | None] | None:
    """The best complete pairing on the graph, as (pairs, bye index), or None."""
    n = len(entrants)
    pairs = (n + 1) // 2
    graph: nx.Graph[int] = _networkx().Graph()
    edges = _edges(entrants, max_diff, relaxed, window)
    graph.add_weighted_edges_from(_weights(edges, pairs, head_start))
    matching = _networkx().max_weight_matching(graph, maxcardinality=True)
    if len(matching) != pairs:
        return None
    bye = None
    found = []
    for u, v in matching:
        if BYE in (u, v):
            bye = u if v == BYE else v
        else:
            found.append((min(u, v), max(u, v)))
    return sorted(found), bye


def _match(entrants: list[_Entrant]) -> tuple[list[tuple[int, int]], int | None, tuple[str, ...]]:
    n = len(entrants)
    fewest = min(e.byes for e in entrants)
    lowest_allowed = max(e.index for e in entrants if e.byes == fewest)
    bye_floor = lowest_allowed if n % 2 else None
    floor: list[int] | None = None  # the sharper floor, computed once if needed
    window = FIRST_WINDOW if n > SMALL_FIELD else n  # small: the complete graph at once
    while window < n:
        found = _solve(entrants, None, relaxed=False, window=window)
        if found is not None and found[1] == bye_floor:
            pairs, bye = found
            differences = _differences(entrants, pairs)
            if differences == score_floor(entrants, bye, end_part=0):
                return pairs, bye, ()
            if floor is None:
                floor = score_floor(entrants, bye, end_part=END_PART)
            if differences == floor:
                return pairs, bye, ()
        window *= 2
    found = _exact(entrants, lowest_allowed)
    if found is not None:
        return found[0], found[1], ()
    found = _solve(entrants, None, relaxed=True)
    assert found is not None  # the complete graph always pairs everyone
    pairs, bye = found
    return pairs, bye, _compromises(entrants, pairs, bye)


def _differences(entrants: list[_Entrant], pairs: list[tuple[int, int]]) -> list[int]:
    """The pairs' score differences (half points), largest first, zeros left out."""
    found = (entrants[i].half_points - entrants[j].half_points for i, j in pairs)
    return sorted((d for d in found if d), reverse=True)


def score_floor(entrants: list[_Entrant], bye: int | None, end_part: int) -> list[int]:
    """Score differences that every complete pairing with ``bye`` sitting out reaches
    at least (largest first): a pairing that reaches them is optimal in the score tier.

    A pair's difference is the sum of the gaps between neighbouring score groups that
    it crosses, and a difference cut into smaller pieces only counts for less. So cut
    the boundaries into three regions: the top, where the groups above a boundary hold
    at most ``end_part`` players; the bottom, likewise from below; and the middle.
    Each pair's difference is cut into its piece in each region, and each region's
    pieces are bounded apart:

    - the middle, boundary by boundary: one with an odd number of players above it is
      crossed at least once, at its gap;
    - each end exactly, by a matching over its players, given who may meet whom: a
      pair inside the end counts its whole difference, and a player paired out of
      the end counts the way out to the first group beyond it."""
    players = [e for e in entrants if e.index != bye]
    n = len(players)
    cuts = [k for k in range(n - 1) if players[k].half_points != players[k + 1].half_points]
    gaps = {k: players[k].half_points - players[k + 1].half_points for k in cuts}
    top = [k for k in cuts if k + 1 <= end_part]
    bottom = [k for k in cuts if n - 1 - k <= end_part and k not in top]
    found = [gaps[k] for k in cuts if k not in top and k not in bottom and (k + 1) % 2]
    hp = [e.half_points for e in players]
    for region, start, stop in (
        (top, 0, top[-1] + 1 if top else 0),
        (bottom, bottom[0] + 1 if bottom else n, n),
    ):
        if not region:
            continue
        # The way out of the end: to the first group below the top, or above the bottom.
        beyond = hp[stop] if region is top else hp[start - 1]
        out = {i: abs(hp[i] - beyond) for i in range(start, stop)}
        pairs = {
            (i, j): hp[i] - hp[j]
            for i in range(start, stop)
            for j in range(i + 1, stop)
            if not players[i].met.get(players[j].id) and _colour_legal(players[i], players[j])
        }
        values = sorted({*out.values(), *pairs.values()} - {0})
        base = n + 1  # more than any count of pieces
        weight = {d: base**t for t, d in enumerate(values, start=1)} | {0: 0}
        graph: nx.Graph[int] = _networkx().Graph()
        for (i, j), d in pairs.items():
            saving = weight[out[i]] + weight[out[j]] - weight[d]
            if saving > 0:
                graph.add_edge(i, j, weight=saving)
        matched = _networkx().max_weight_matching(graph)
        paired = {v for edge in matched for v in edge}
        found.extend(pairs[min(i, j), max(i, j)] for i, j in matched)
        found.extend(out[i] for i in range(start, stop) if i not in paired)
    return sorted((d for d in found if d), reverse=True)


def _exact(
    entrants: list[_Entrant], lowest_allowed: int
) -> tuple[list[tuple[int, int]], int | None] | None:
    """The best pairing on the complete graph of allowed pairs, or None if there is no
    complete pairing. Score differences above the widest gap between neighbouring
    groups are left out until needed (doubling), which cannot change the answer."""
    scores = sorted({e.half_points for e in entrants})
    widest = max((b - a for a, b in zip(scores, scores[1:], strict=False)), default=0)
    spread = scores[-1] - scores[0]
    limit: int | None = widest
    while True:
        if limit is not None and limit >= spread:
            limit = None
        found = _solve(entrants, limit, relaxed=False)
        if found is not None:
            pairs, bye = found
            if limit is None or bye is None or bye == lowest_allowed:
                return pairs, bye
            limit = None  # the bye went higher: settle it on the full graph
            continue
        if limit is None:
            return None
        limit = max(limit * 2, 1)


def _compromises(
    entrants: list[_Entrant], pairs: list[tuple[int, int]], bye: int | None
) -> tuple[str, ...]:
    found = []
    if any(entrants[i].met.get(entrants[j].id) for i, j in pairs):
        found.append("repeat")
    if bye is not None and entrants[bye].byes > min(e.byes for e in entrants):
        found.append("second bye")
    if any(not _colour_legal(entrants[i], entrants[j]) for i, j in pairs):
        found.append("colour")
    return tuple(found)


def _boards(
    number: int,
    entrants: list[_Entrant],
    pairs: list[tuple[int, int]],
    bye: int | None,
    compromises: tuple[str, ...],
) -> Pairings:
    """Boards in order: the higher score first, then the higher sum, then the higher
    rank; White by ``colours.allocate``."""

    def order(pair: tuple[int, int]) -> tuple[int, int, int]:
        a, b = entrants[pair[0]], entrants[pair[1]]
        return (-a.half_points, -(a.half_points + b.half_points), a.index)

    boards = []
    for number_on, (i, j) in enumerate(sorted(pairs, key=order), start=1):
        a, b = entrants[i], entrants[j]
        higher_white = col.allocate(a.colours, b.colours, number_on)
        white, black = (a, b) if higher_white else (b, a)
        boards.append(Board(number_on, white.id, black.id))
    bye_id = entrants[bye].id if bye is not None else None
    return Pairings(number, tuple(boards), bye_id, compromises)
