"""Chess Garden's rules engine: five variants behind one small API.

    variants.names()
    g = variants.new_game(key, *, rolls=None, seed=None, options=None, dice=None)
    g.legal_moves(); g.play(text); g.result; g.record(); variants.replay(record)
    variants.describe(g) -> Status: the position in words (who acts, what the dice allow)
    variants.from_fen(key, fen, *, rolls=None, seed=None); variants.perft(g, depth)

Pure rules: no I/O, no asyncio, stdlib only.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Any

from .base import Result, Variant
from .dice import DiceSource, ScriptedDice, SeededDice, VerifiableDice
from .errors import AmbiguousMove, BadNotation, GameOver, IllegalMove, NotLegalHere
from .game import Game, parse_record, replay_record
from .game import perft as _perft
from .status import Status, TurnFacts, describe

_REGISTRY: dict[str, Variant] = {}


def _load() -> dict[str, Variant]:
    if not _REGISTRY:
        from .guardener import Guardener
        from .jepps_random import JeppsRandom
        from .kings_guard import KingsGuard
        from .stone_garden import StoneGarden
        from .tquarchess import Tquarchess

        for cls in (Guardener, Tquarchess, KingsGuard, StoneGarden, JeppsRandom):
            _REGISTRY[cls.key] = cls()
    return _REGISTRY


def names() -> tuple[str, ...]:
    return tuple(_load())


def rules(key: str) -> Variant:
    """The rules object of a variant; ValueError naming the variants if unknown."""
    registry = _load()
    try:
        return registry[key]
    except KeyError:
        raise ValueError(f"unknown variant {key!r}; choose one of: {', '.join(registry)}") from None


def _source(
    rolls: Iterable[int] | None, seed: int | str | None, dice: DiceSource | None
) -> DiceSource:
    if dice is not None:
        return dice
    if rolls is not None:
        return ScriptedDice(rolls)
    if seed is not None:
        return SeededDice(seed)
    return VerifiableDice()


def new_game(
    key: str,
    *,
    rolls: Iterable[int] | None = None,
    seed: int | str | None = None,
    options: dict[str, Any] | None = None,
    dice: DiceSource | None = None,
) -> Game:
    """A new game. ``rolls``: die values consumed in order; ``seed``: a
    deterministic RNG; ``dice``: any source; none of them: verifiable dice."""
    return Game(rules(key), options=options, dice=_source(rolls, seed, dice))


def from_fen(
    key: str,
    fen: str,
    *,
    rolls: Iterable[int] | None = None,
    seed: int | str | None = None,
    options: dict[str, Any] | None = None,
    dice: DiceSource | None = None,
) -> Game:
    return Game(rules(key), options=options, dice=_source(rolls, seed, dice), fen=fen)


def replay(record: str, *, dice: DiceSource | None = None) -> Game:
    """The game a record describes, identical to the one that wrote it.
    ``dice`` continues rolling after the recorded rolls run out."""
    return replay_record(rules, record, dice)


def random_playout(
    key: str, plies: int, seed: int | str, *, options: dict[str, Any] | None = None
) -> Game:
    """A game ``plies`` seeded random legal actions in (fewer if it ends first).
    The same seed drives the dice and the choices, so the game is reproducible."""
    rng = random.Random(seed)
    game = new_game(key, seed=seed, options=options)
    for _ in range(plies):
        if game.result is not None:
            break
        game.play(rng.choice(game.legal_moves()))
    return game


def perft(game: Game, depth: int) -> int:
    """Number of legal action sequences of ``depth`` actions from ``game``."""
    if game.result is not None:
        return 0 if depth > 0 else 1
    return _perft(game.rules, game.pos.copy(), depth)


__all__ = [
    "AmbiguousMove",
    "BadNotation",
    "DiceSource",
    "Game",
    "GameOver",
    "IllegalMove",
    "NotLegalHere",
    "Result",
    "ScriptedDice",
    "Status",
    "TurnFacts",
    "SeededDice",
    "VerifiableDice",
    "Variant",
    "describe",
    "from_fen",
    "names",
    "new_game",
    "parse_record",
    "perft",
    "random_playout",
    "replay",
    "rules",
]
