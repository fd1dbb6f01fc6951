"""Players for self-play and measurement: ``random``, ``greedy`` and ``ai:LEVEL``.

    player = engine.players.parse("ai:3")      # ValueError, in words, for a bad name
    played = engine.players.play_game(key, white, black, seed=7, max_plies=400)

- ``random`` picks a legal action uniformly.
- ``greedy`` takes the most valuable capture (a King counts most; the values are
  the search's derived ones, ``engine.values``), otherwise a random action.
- ``ai:LEVEL`` is ``engine.choose_for_game`` at that level; ``ai:LEVEL@SECONDS`` the
  same with a budget of its own (to set two budgets against each other).

A game that reaches ``max_plies`` actions without a result is scored a draw, and
``Played.capped`` says so. The dice and every player's choices are seeded, so a
game is reproducible (the AI's only with a frozen clock: its depth depends on
the time it gets). No I/O: the command line is ``bot/console/selfplay.py``.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass

import variants

DEFAULT_MAX_PLIES = 400


@dataclass(frozen=True)
class Player:
    name: str  # 'random' | 'greedy' | 'ai:N' | 'ai:N@SECONDS'
    level: int | None = None  # the AI's level
    budget_s: float | None = None  # the AI's own budget (None: the game's)

    @property
    def is_ai(self) -> bool:
        return self.level is not None


@dataclass(frozen=True)
class Played:
    """One finished (or capped) game."""

    variant: str
    seed: int
    white: str
    black: str
    winner: str | None  # 'white' | 'black' | None (a draw, or capped)
    reason: str
    plies: int
    capped: bool
    ai_move_ms: tuple[float, ...]  # time of each AI choice, in milliseconds
    record: str
    ai_move_cpu_ms: tuple[float, ...] = ()  # the same in CPU time of this thread

    @property
    def score(self) -> str:
        return {"white": "1-0", "black": "0-1", None: "1/2-1/2"}[self.winner]


def parse(text: str) -> Player:
    """``random``, ``greedy`` or ``ai:LEVEL`` (LEVEL 1, 2 or 3), optionally with a budget
    of its own in seconds: ``ai:3@2.0``."""
    word = text.strip().lower()
    if word in ("random", "greedy"):
        return Player(word)
    if word.startswith("ai:"):
        from . import LEVELS

        level_text, at, budget_text = word[3:].partition("@")
        budget: float | None = None
        if at:
            try:
                budget = float(budget_text)
            except ValueError:
                budget = -1.0
            if not budget > 0:
                raise ValueError(f"the budget in {text!r} must be a positive number of seconds")
        try:
            number = int(level_text)
        except ValueError:
            number = -1
        if number in LEVELS:
            name = f"ai:{number}" + (f"@{budget:g}" if budget is not None else "")
            return Player(name, number, budget)
        raise ValueError(f"there is no AI level {level_text!r}; choose ai:1, ai:2 or ai:3")
    raise ValueError(
        f"unknown player {text!r}; choose random, greedy or ai:LEVEL (1-3), or ai:LEVEL@SECONDS"
    )


def greedy_action(game: variants.Game, rng: random.Random) -> str:
    """The most valuable capture (ties at random), otherwise a random action."""
    from . import domain

    dom = domain(game.variant)
    node = dom.root(game)
    best: list[str] = []
    best_worth = 0.0
    for move, text in game.legal_actions():
        worth = dom.worth(dom.victim(node, move))
        if worth > best_worth:
            best, best_worth = [text], worth
        elif worth == best_worth and worth > 0:
            best.append(text)
    if best:
        return rng.choice(best)
    return rng.choice(game.legal_moves())


def play_game(
    key: str,
    white: Player,
    black: Player,
    *,
    seed: int,
    max_plies: int = DEFAULT_MAX_PLIES,
    budget_s: float = 2.0,
    clock: Callable[[], float] | None = None,
    on_action: Callable[[variants.Game, int, str, float | None], None] | None = None,
    search_clock: Callable[[], float] | None = None,
) -> Played:
    """Play one game; ``on_action(game, side, text, ai_ms)`` is called after each action
    (``side`` 0 White, 1 Black: who acted; ``ai_ms`` None for a non-AI player).
    ``clock`` measures the AI's move times; ``search_clock`` is the clock its budget
    runs on (default wall time; ``time.thread_time`` gives it the budget in CPU time,
    the same strength whatever else the machine is doing)."""
    from . import choose_for_game

    clock = clock or time.perf_counter
    game = variants.new_game(key, seed=seed)
    rngs = (random.Random(f"{seed}:white"), random.Random(f"{seed}:black"))
    times: list[float] = []
    cpu_times: list[float] = []
    plies = 0
    while game.result is None and plies < max_plies:
        side = game.pos.turn
        player = white if side == 0 else black
        ms: float | None = None
        if player.level is not None:
            start, cpu = clock(), time.thread_time()
            choice = choose_for_game(
                game,
                player.level,
                budget_s=player.budget_s or budget_s,
                seed=rngs[side].randrange(2**32),
                clock=search_clock,
            )
            ms = (clock() - start) * 1000.0
            times.append(ms)
            cpu_times.append((time.thread_time() - cpu) * 1000.0)
            text = choice.action
        elif player.name == "greedy":
            text = greedy_action(game, rngs[side])
        else:
            text = rngs[side].choice(game.legal_moves())
        game.play(text)
        plies += 1
        if on_action is not None:
            on_action(game, side, text, ms)
    result = game.result
    return Played(
        variant=key,
        seed=seed,
        white=white.name,
        black=black.name,
        winner=result.winner if result is not None else None,
        reason=result.reason if result is not None else f"ply cap {max_plies}",
        plies=plies,
        capped=result is None,
        ai_move_ms=tuple(times),
        ai_move_cpu_ms=tuple(cpu_times),
        record=game.record(),
    )


def percentile(values: list[float], q: float) -> float:
    """The ``q`` quantile (0..1) by the nearest rank; 0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * q // 1))  # ceil(n * q), at least 1
    return ordered[int(rank) - 1]


__all__ = [
    "DEFAULT_MAX_PLIES",
    "Played",
    "Player",
    "greedy_action",
    "parse",
    "percentile",
    "play_game",
]
