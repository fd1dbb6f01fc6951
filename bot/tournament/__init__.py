"""Tournaments' pure core: Swiss pairing, Berger tables and standings.

Imports only the standard library and networkx: no storage, no service, no discord.
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
from bot.tournament.swiss import pair_swiss

__all__ = [
    "BLACK",
    "RESULTS",
    "WHITE",
    "Board",
    "Format",
    "Game",
    "Pairings",
    "Player",
    "RoundResult",
    "pair_swiss",
]
