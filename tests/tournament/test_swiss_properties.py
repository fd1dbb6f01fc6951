"""Swiss pairing properties over 1,000 random tournaments (8 to 64 players, 5 to 9
rounds, random results with draws, byes from odd fields, forfeits and withdrawals),
each round checked against the rules as ``swiss_oracle`` states them:

- every player still in is paired or given the bye, exactly once, and nobody else;
- whenever some pairing keeps the rules (no repeat, the colour rules, the bye only to
  a player with the fewest byes), the round keeps them and names no compromise;
  when none does, it says which rules gave way;
- the bye goes to the lowest-ranked player it may go to such that the others can all
  be paired;
- score groups are respected: the pairs' score differences, compared largest first,
  are the least any rule-keeping pairing has. Up to 14 players that least is found by
  brute force (dynamic programming over subsets); above, a round whose differences
  reach the parity floor (one pair across each boundary with an odd number of players
  above it) is optimal by that bound, and any other round is compared with a plain
  maximum-weight matching over every allowed pair, weighted by score differences only.

The 1,000 tournaments are cut into 20 chunks of 50 so that pytest-xdist spreads them;
the odd chunks pair every field the way large fields are paired (candidate windows
proved optimal by the score floor), so that path is checked against brute force too.
Sizes are drawn log-uniformly, so small fields (where the rules bind hardest and the
brute force reaches) are as common as large ones.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

import networkx as nx
import pytest

from bot.tournament import Game, Pairings, Player, RoundResult, pair_swiss, swiss

sys.path.insert(0, str(Path(__file__).parent))
import swiss_oracle as oracle  # noqa: E402

TOURNAMENTS = 1000
CHUNKS = 20


def field(rng: random.Random) -> list[Player]:
    n = round(8 * 8 ** rng.random())  # 8 to 64, log-uniform
    ratings = [
        rng.choice((1500, 1600)) if rng.random() < 0.2 else rng.randint(1000, 2400)
        for _ in range(n)
    ]
    return [Player(i + 1, r) for i, r in enumerate(ratings)]


def play(pairings: Pairings, rng: random.Random, bye_points: float) -> RoundResult:
    games = []
    for b in pairings.boards:
        result = rng.choices(("1-0", "0-1", "1/2-1/2"), (0.4, 0.35, 0.25))[0]
        forfeit = result != "1/2-1/2" and rng.random() < 0.02
        games.append(Game(b.white, b.black, result, forfeit))
    return RoundResult(pairings.round_no, tuple(games), pairings.bye, bye_points)


def optimum_large(
    active: list[Player], past: dict[int, oracle.Past], bye: int | None
) -> tuple[int, ...]:
    """The least score differences over every rule-keeping pairing with ``bye`` out,
    by a plain matching on the whole graph: a pair at a larger difference outweighs
    every pair at smaller ones together."""
    rest = [p.id for p in active if p.id != bye]
    half = {pid: round(2 * past[pid].points) for pid in rest}
    edges = [
        (a, b, abs(half[a] - half[b]))
        for k, a in enumerate(rest)
        for b in rest[k + 1 :]
        if oracle.may_meet(past[a], past[b], a, b)
    ]
    levels = sorted({d for _, _, d in edges if d})
    base = len(rest) // 2 + 1
    cost = {d: base ** (t + 1) for t, d in enumerate(levels)} | {0: 0}
    top = max(cost.values()) + 1
    graph: nx.Graph[int] = nx.Graph()
    graph.add_weighted_edges_from((a, b, top - cost[d]) for a, b, d in edges)
    matching = nx.max_weight_matching(graph, maxcardinality=True)
    assert 2 * len(matching) == len(rest)
    return oracle.d_vector([(past[a].points, past[b].points) for a, b in matching])


def check_round(
    active: list[Player], history: list[RoundResult], pairings: Pairings, counts: dict[str, int]
) -> None:
    ids = sorted(p.id for p in active)
    assert sorted(pairings.player_ids()) == ids, "everyone paired or given the bye, once"
    past = oracle.pasts(active, history)
    order = oracle.ranked(active, past)
    colours_kept = all(
        oracle.colours_fine([*past[b.white].colours, "W"])
        and oracle.colours_fine([*past[b.black].colours, "B"])
        for b in pairings.boards
    )
    no_repeat = all(b.black not in past[b.white].met for b in pairings.boards)
    candidates = oracle.bye_candidates(order, past) if len(active) % 2 else []
    bye_kept = pairings.bye is None or pairings.bye in candidates
    kept = colours_kept and no_repeat and bye_kept
    vector = oracle.pairing_vector(pairings, past)
    if len(active) <= 14:
        best = oracle.best_small(active, history)
        counts["brute force"] += 1
        if best is None:
            assert not kept  # nothing keeps the rules: say what gave way
            assert pairings.compromises, "a compromise must be named"
            counts["no legal pairing"] += 1
            return
        assert kept and not pairings.compromises, (best, pairings)
        assert (pairings.bye, vector) == best
        return
    if not kept:
        counts["no legal pairing"] += 1
        assert pairings.compromises
        options: list[int | None] = [*candidates] or [None]
        for bye in options:
            assert not oracle.has_perfect(active, past, bye), "a legal pairing existed"
        return
    assert not pairings.compromises
    for lower in candidates[: candidates.index(pairings.bye)] if pairings.bye is not None else []:
        assert not oracle.has_perfect(active, past, lower), "the bye could have gone lower"
    if vector == oracle.parity_floor(active, past, pairings.bye):
        counts["parity floor"] += 1
    else:
        counts["full matching"] += 1
        assert vector == optimum_large(active, past, pairings.bye)


def run_tournament(seed: int, counts: dict[str, int]) -> None:
    rng = random.Random(seed)
    players = field(rng)
    rounds = rng.randint(5, 9)
    bye_points = rng.choice((1.0, 0.5))
    active = list(players)
    history: list[RoundResult] = []
    for number in range(1, rounds + 1):
        if number > 1 and len(active) > 6 and rng.random() < 0.15:
            active.remove(rng.choice(active))  # a withdrawal
        pairings = pair_swiss(active, history, number)
        check_round(active, history, pairings, counts)
        counts["rounds"] += 1
        history.append(play(pairings, rng, bye_points))


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_random_swiss_tournaments_keep_the_rules(
    chunk: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    if chunk % 2:
        # Half the chunks pair every field as large fields are paired: candidate windows,
        # accepted when the score floor proves them optimal, with the floor counted
        # exactly only in end parts of 12 players and by parity in between.
        monkeypatch.setattr(swiss, "SMALL_FIELD", 0)
        monkeypatch.setattr(swiss, "END_PART", 12)
    counts = dict.fromkeys(
        ("rounds", "brute force", "parity floor", "full matching", "no legal pairing"), 0
    )
    per_chunk = TOURNAMENTS // CHUNKS
    for seed in range(chunk * per_chunk, (chunk + 1) * per_chunk):
        run_tournament(seed, counts)
    # Each kind of check really ran in this chunk.
    assert counts["rounds"] >= per_chunk * 5
    assert counts["brute force"] > 0 and counts["parity floor"] > 0, counts
