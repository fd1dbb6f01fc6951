"""A whole tournament with seeded random results, through the real pairing code (what
``chessgarden tournament simulate`` prints).

Players 1..N get ratings from the seed. Each game's result follows the Elo
expectation of the two ratings, with a quarter of the games drawn. From the second
round on, a player may withdraw before a round (one chance in 25 each, at most a
quarter of the field): a Swiss stops pairing them; in a round robin their games still
to come are forfeits won by the opponent. Odd fields give byes (worth
``bye_points`` in a Swiss, nothing in a round robin, where everyone sits out alike).
Round-robin players take their Berger numbers by a seeded draw.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from bot.tournament.model import Format, Game, Pairings, Player, RoundResult
from bot.tournament.roundrobin import MAX_PLAYERS, berger_rounds, rounds_for
from bot.tournament.standings import Standing, standings
from bot.tournament.swiss import pair_swiss

DRAW_SHARE = 0.25
WITHDRAW_CHANCE = 1 / 25
MAX_SIMULATED_PLAYERS = 2000
MAX_SIMULATED_ROUNDS = 60


@dataclass(frozen=True)
class SimulatedRound:
    pairings: Pairings
    result: RoundResult
    withdrawn: tuple[int, ...]  # who withdrew before this round


@dataclass(frozen=True)
class Simulation:
    format: Format
    seed: int
    players: tuple[Player, ...]
    rounds: tuple[SimulatedRound, ...]
    standings: tuple[Standing, ...]
    bye_points: float
    double: bool


def simulate(
    format: Format | str,
    players: int,
    rounds: int | None,
    seed: int,
    *,
    bye_points: float = 1.0,
    withdrawals: bool = True,
) -> Simulation:
    """Run a tournament of ``players`` players. A Swiss plays ``rounds`` rounds (None:
    the base-2 logarithm of the field, rounded up); a round robin takes ``rounds`` as its
    single or double cycle's length (None: single)."""
    fmt = Format(format)
    if players < 2:
        raise ValueError("a tournament needs at least two players.")
    if players > MAX_SIMULATED_PLAYERS:
        raise ValueError(f"a simulation takes at most {MAX_SIMULATED_PLAYERS} players.")
    if bye_points not in (0.0, 0.5, 1.0):
        raise ValueError("a bye is worth 1, 1/2 or 0 points.")
    rng = random.Random(seed)
    field = tuple(
        Player(i, round(min(2700, max(600, rng.gauss(1500, 300)))), f"Player {i}")
        for i in range(1, players + 1)
    )
    if fmt is Format.SWISS:
        if rounds is None:  # enough for one player to win every game and stand alone
            rounds = max(1, (players - 1).bit_length())
        if not 1 <= rounds <= MAX_SIMULATED_ROUNDS:
            raise ValueError(f"a Swiss needs between 1 and {MAX_SIMULATED_ROUNDS} rounds.")
        played, double = _swiss(field, rounds, rng, bye_points, withdrawals), False
    else:
        if players > MAX_PLAYERS:
            raise ValueError(f"a round robin takes at most {MAX_PLAYERS} players.")
        single, twice = rounds_for(players), rounds_for(players, double=True)
        if rounds not in (None, single, twice):
            raise ValueError(
                f"a round robin of {players} players has {single} rounds, or {twice} double."
            )
        double = rounds == twice
        played = _round_robin(field, double, rng, withdrawals)
    table = standings(fmt, field, [r.result for r in played])
    return Simulation(fmt, seed, field, tuple(played), tuple(table), bye_points, double)


def _result(white: Player, black: Player, rng: random.Random) -> str:
    expected = 1 / (1 + 10 ** ((black.rating - white.rating) / 400))
    roll = rng.random()
    if roll < DRAW_SHARE:
        return "1/2-1/2"
    return "1-0" if rng.random() < expected else "0-1"


def _withdraw(
    active: list[Player], left: int, rng: random.Random, number: int, on: bool
) -> tuple[list[Player], tuple[int, ...]]:
    """Who withdraws before round ``number`` (none before the first)."""
    if not on or number == 1:
        return active, ()
    gone: list[int] = []
    for p in active:
        if len(gone) < left and len(active) - len(gone) > 2 and rng.random() < WITHDRAW_CHANCE:
            gone.append(p.id)
    return [p for p in active if p.id not in gone], tuple(gone)


def _swiss(
    field: tuple[Player, ...], rounds: int, rng: random.Random, bye_points: float, on: bool
) -> list[SimulatedRound]:
    by_id = {p.id: p for p in field}
    active = list(field)
    budget = len(field) // 4
    history: list[RoundResult] = []
    out = []
    for number in range(1, rounds + 1):
        active, gone = _withdraw(active, budget, rng, number, on)
        budget -= len(gone)
        pairings = pair_swiss(active, history, number)
        results = {b.number: _result(by_id[b.white], by_id[b.black], rng) for b in pairings.boards}
        played = RoundResult.from_pairings(pairings, results, bye_points=bye_points)
        history.append(played)
        out.append(SimulatedRound(pairings, played, gone))
    return out


def _round_robin(
    field: tuple[Player, ...], double: bool, rng: random.Random, on: bool
) -> list[SimulatedRound]:
    by_id = {p.id: p for p in field}
    order = list(field)
    rng.shuffle(order)  # the drawing of lots for Berger numbers
    active = list(order)
    budget = len(field) // 4
    withdrawn: set[int] = set()
    out = []
    for pairings in berger_rounds(order, double):
        active, gone = _withdraw(active, budget, rng, pairings.round_no, on)
        budget -= len(gone)
        withdrawn.update(gone)
        games = []
        for b in pairings.boards:
            white_out, black_out = b.white in withdrawn, b.black in withdrawn
            if white_out and black_out:
                continue  # neither plays: both miss the round
            if white_out or black_out:
                games.append(Game(b.white, b.black, "0-1" if white_out else "1-0", forfeit=True))
            else:
                games.append(Game(b.white, b.black, _result(by_id[b.white], by_id[b.black], rng)))
        bye = pairings.bye if pairings.bye not in withdrawn else None
        played = RoundResult(pairings.round_no, tuple(games), bye, 0.0)
        out.append(SimulatedRound(pairings, played, gone))
    return out
