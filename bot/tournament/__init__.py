"""Tournaments' pure core: Swiss pairing, Berger tables and standings.

Imports only the standard library and networkx: no storage, no service, no discord,
and no variant (which variant the games are is the service's business).

    pair_swiss(players, history, round_no=None) -> Pairings   (swiss.py)
    berger_rounds(players, double=False) -> list[Pairings]    (roundrobin.py)
    standings(format, players, rounds) -> list[Standing]      (standings.py)
    simulate(format, players, rounds, seed) -> Simulation     (simulate.py)

``history``/``rounds`` are the played rounds (``RoundResult``: games with results,
the bye and its points); every function is deterministic in its inputs, so a stored
tournament can be re-paired round by round from its stored results and compared.
"""

from __future__ import annotations

from bot.tournament.model import (
    BLACK,
    RESULTS,
    WHITE,
    Board,
    Format,
    Game,
    Pairings,
    Player,
    RoundResult,
)
from bot.tournament.roundrobin import MAX_PLAYERS as MAX_ROUND_ROBIN_PLAYERS
from bot.tournament.roundrobin import berger_rounds, rounds_for
from bot.tournament.standings import TIEBREAK_TITLES, TIEBREAKS, Standing, standings
from bot.tournament.swiss import pair_swiss

__all__ = [
    "BLACK",
    "MAX_ROUND_ROBIN_PLAYERS",
    "RESULTS",
    "TIEBREAKS",
    "TIEBREAK_TITLES",
    "WHITE",
    "Board",
    "Format",
    "Game",
    "Pairings",
    "Player",
    "RoundResult",
    "Standing",
    "berger_rounds",
    "pair_swiss",
    "rounds_for",
    "standings",
]
