"""The computer opponent: a dice-aware search for every variant.

    engine.choose(record, level, *, budget_s=2.0, seed=None) -> Choice
        pure and picklable, for a process pool: replays ``record`` (the text of
        ``variants.Game.record()``) and chooses the action for the side to act.
    engine.choose_for_game(game, level, *, budget_s=2.0, seed=None, clock=None) -> Choice
        the same on a live ``variants.Game`` (in-process; the game is not changed).
    engine.LEVELS: {1, 2, 3} -> Level

``Choice.action`` is the canonical text of the action, one of
``game.legal_moves()``, to be played with ``game.play`` (or the service's act
call). No I/O, no discord: the package imports only ``variants``
(ARCHITECTURE.md, "The search").

Levels: 1 looks one action ahead and at the opponent's capture in reply, within
half a second, with noise of about a third of a pawn on its scores: it takes
what is left hanging and keeps its pieces covered, but misjudges exchanges and
plans nothing; 2 looks up to three actions ahead (captures three deep) within
1 s with a little noise; 3 searches as deep as ``budget_s`` allows (2 s by
default) with no noise.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, replace

import variants

from .domain import VariantDomain
from .search import Clock, Search, Settings

DEFAULT_BUDGET_S = 2.0
RESERVE = 0.04  # of the budget, kept for what follows the search (80 ms of 2 s)
MIN_SEARCH_S = 0.05  # the search's least time, when setting up took nearly all the budget
# The chance-node method, chosen by measurement (``benchmarks/ai.py --compare-chance``,
# depth 2, fixed positions, CPU time as a fraction of plain expectimax's, same values
# and choices): Guardener Star2 x0.05 (Star1 x0.57; expectimax hit the 60 s cap on 5
# of 8 positions, so these are upper bounds), Tquarchess Star2 x0.53 (Star1 x0.76).
# In the Jepps Random setup (21 outcomes, two or three placements to choose from) the
# probes rarely prove a cut and cost more than they save: Star2 x1.79, Star1 x0.97;
# there Star1 is used. A variant names its own method (``SearchHints.chance``); the
# methods agree on every value (a test holds it).
DEFAULT_CHANCE = "star2"


@dataclass(frozen=True)
class Level:
    number: int
    max_depth: int
    budget_cap_s: float | None  # None: the caller's budget
    noise: float
    qdepth: int


LEVELS: dict[int, Level] = {
    1: Level(1, max_depth=1, budget_cap_s=0.5, noise=0.05, qdepth=1),
    2: Level(2, max_depth=3, budget_cap_s=1.0, noise=0.02, qdepth=3),
    3: Level(3, max_depth=64, budget_cap_s=None, noise=0.0, qdepth=4),
}


@dataclass(frozen=True)
class Choice:
    """The action chosen, in canonical notation, and how it was found."""

    action: str
    level: int
    depth: int  # plies of the last completed iteration (0: only one action)
    nodes: int
    time_s: float  # spent choosing, replaying the record included
    score: float  # expected result for the side to act, -1 (loss) .. 1 (win)


_DOMAINS: dict[str, VariantDomain] = {}


def domain(key: str) -> VariantDomain:
    d = _DOMAINS.get(key)
    if d is None:
        d = VariantDomain(key)
        _DOMAINS[key] = d
    return d


def level(number: int) -> Level:
    if number not in LEVELS:
        raise ValueError(f"there is no level {number!r}; choose 1, 2 or 3")
    return LEVELS[number]


def chance_method(key: str) -> str:
    """The chance-node method the search uses for a variant ("" key: the default)."""
    return (variants.rules(key).search.chance if key else "") or DEFAULT_CHANCE


def settings_for(
    number: int, budget_s: float, chance: str | None = None, key: str = ""
) -> Settings:
    lv = level(number)
    if not budget_s > 0:
        raise ValueError("the time budget must be a positive number of seconds")
    budget = budget_s if lv.budget_cap_s is None else min(budget_s, lv.budget_cap_s)
    # The variant's own hints (``variants.SearchHints``): its chance-node method, and a
    # quiescence cap where every capture is followed by a roll that multiplies the
    # replies (Guardener's 2d4: a capture and the reply).
    hints = variants.rules(key).search if key else variants.SearchHints()
    return Settings(
        max_depth=lv.max_depth,
        budget_s=budget,
        chance=chance or chance_method(key),
        qdepth=min(lv.qdepth, hints.quiescence_cap or lv.qdepth),
        noise=lv.noise,
        exact_root=lv.noise > 0,
    )


def choose_for_game(
    game: variants.Game,
    level: int = 3,
    *,
    budget_s: float = DEFAULT_BUDGET_S,
    seed: int | None = None,
    clock: Clock | None = None,
    chance: str | None = None,
) -> Choice:
    """Choose the action for the side to act in ``game`` (which is not changed).
    ``clock`` (seconds, monotonic) defaults to ``time.perf_counter``. The search gets
    what the setting up (a variant's tables, on its first search here) left of the
    budget, less ``RESERVE`` of it, so that the whole call (writing the action out, a
    busy machine's delays included) stays within ``budget_s``."""
    clock = clock or time.perf_counter
    start = clock()
    settings = settings_for(level, budget_s, chance, game.variant)
    # A variant's first search in this process builds its tables (0.1-0.4 s): that, like
    # the rest of the setting up, is paid out of the budget (the search's own clock only
    # starts with it).
    dom = domain(game.variant)
    root = dom.root(game)
    left = settings.budget_s * (1.0 - RESERVE) - (clock() - start)
    settings = replace(settings, budget_s=max(MIN_SEARCH_S, left))
    search = Search(dom, settings, clock=clock, rng=random.Random(seed))
    report = search.run(root)
    # Only the chosen action is written out (the canonical text of the legal list).
    action = dom.rules.format_move(game.pos, report.move, dom.rules.legal_moves(game.pos))
    return Choice(
        action=action,
        level=level,
        depth=report.depth,
        nodes=report.nodes,
        time_s=clock() - start,
        score=report.value,
    )


def choose(
    record: str, level: int = 3, budget_s: float = DEFAULT_BUDGET_S, seed: int | None = None
) -> Choice:
    """The entry point for a process pool: replay ``record`` and choose the next
    action within ``budget_s`` seconds, replaying included. Picklable in and out."""
    start = time.perf_counter()
    game = variants.replay(record)
    spent = time.perf_counter() - start
    choice = choose_for_game(game, level, budget_s=max(0.05, budget_s - spent), seed=seed)
    return Choice(
        choice.action,
        choice.level,
        choice.depth,
        choice.nodes,
        time.perf_counter() - start,
        choice.score,
    )


__all__ = ["Choice", "LEVELS", "Level", "choose", "choose_for_game", "level"]
