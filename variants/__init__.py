"""Chess Garden's rules engine: five variants behind one small API.

    variants.names()
    variants.register(VariantClass) / variants.unregister(key): add a variant (tests)
    g = variants.new_game(key, *, rolls=None, seed=None, options=None, dice=None)
    g.legal_moves(); g.play(text); g.result; g.record(); variants.replay(record)
    variants.describe(g) -> Status: the position in words (who acts, what the dice allow)
    variants.explain(g, text) -> Refusal | None: why a text is refused, naming the rule
    variants.text_board(g, orientation='white') -> str: the board as ASCII text
    variants.rulebook(key) -> Rulebook; rulebook_text / _markdown / _fields / _pages / _docs
    variants.from_fen(key, fen, *, rolls=None, seed=None); variants.perft(g, depth)
    g.snapshot() -> bytes; variants.restore(snapshot, dice) -> Game (the same game from there on)

Pure rules: no I/O, no asyncio, stdlib only.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Any

from .base import Result, Variant
from .dice import DiceSource, ScriptedDice, SeededDice, VerifiableDice
from .errors import AmbiguousMove, BadNotation, GameOver, IllegalMove, NotLegalHere
from .explain import explain
from .facts import SearchHints, answers_can_still_win
from .game import Game, replay_record
from .game import perft as _perft
from .record import parse_record
from .refusal import Refusal
from .rulebook import Rulebook, as_markdown, as_text, discord_fields, discord_pages
from .rulebook import build as _build_rulebook
from .rulebook import docs_files as _docs_files
from .snapshot import restore
from .status import Status, TurnFacts, describe
from .textboard import text_board

_REGISTRY: dict[str, Variant] = {}
_BUILT_IN: set[str] = set()
_ADDED: dict[str, type[Variant]] = {}  # by ``register``, in order


def _load() -> dict[str, Variant]:
    if not _REGISTRY:
        from .guardener import Guardener
        from .jepps_random import JeppsRandom
        from .kings_guard import KingsGuard
        from .stone_garden import StoneGarden
        from .tquarchess import Tquarchess

        for cls in (Guardener, Tquarchess, KingsGuard, StoneGarden, JeppsRandom):
            _REGISTRY[cls.key] = cls()
            _BUILT_IN.add(cls.key)
    return _REGISTRY


def names() -> tuple[str, ...]:
    return tuple(_load())


def register(cls: type[Variant]) -> Variant:
    """Add a variant (a ``Variant`` subclass) to the registry and return its rules object.
    Everything else reads the variant's facts from it (``variants/facts.py``), so nothing
    outside its module needs to know it. Refused (ValueError) if the key is taken, or if
    the variant does not say whether a side can still win (RULES.md section 7)."""
    registry = _load()
    key = getattr(cls, "key", "")
    if not isinstance(key, str) or not key.isidentifier():
        raise ValueError(f"a variant's key must be an identifier, not {key!r}")
    if key in registry:
        raise ValueError(f"there is already a variant {key!r}")
    if not answers_can_still_win(cls):
        raise ValueError(
            f"variant {key!r} must say whether a side can still win (can_still_win, "
            "RULES.md section 7)"
        )
    rules = cls()
    registry[key] = rules
    _ADDED[key] = cls
    return rules


def unregister(key: str) -> None:
    """Remove a variant added by ``register`` (the five built in stay)."""
    if key in _BUILT_IN:
        raise ValueError(f"{key!r} is built in and cannot be removed")
    _load().pop(key, None)
    _ADDED.pop(key, None)


def added() -> tuple[type[Variant], ...]:
    """The variant classes added by ``register`` (for worker processes: ``adopt``)."""
    return tuple(_ADDED.values())


def adopt(classes: Iterable[type[Variant]]) -> None:
    """Register those of ``classes`` whose key is not known here yet (a worker process
    taking on the variants its parent registered)."""
    known = _load()
    for cls in classes:
        if cls.key not in known:
            register(cls)


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


def rulebook(key: str) -> Rulebook:
    """The complete rules of a variant, structured in sections (``variants/rulebook.py``)."""
    return _build_rulebook(rules(key))


def rulebook_text(key: str) -> str:
    """The rules as plain text within 80 columns (``chessgarden rules VARIANT``)."""
    return as_text(rulebook(key))


def rulebook_markdown(key: str) -> str:
    """The rules as markdown (``docs/rules/<key>.md``)."""
    return as_markdown(rulebook(key))


def rulebook_fields(key: str) -> tuple[tuple[str, str], ...]:
    """The rules as (name, value) pairs within Discord's embed field limits
    (name <= 256, value <= 1,024 characters), for ``/rules``."""
    return discord_fields(rulebook(key))


def rulebook_pages(key: str) -> tuple[tuple[tuple[str, str], ...], ...]:
    """``rulebook_fields`` grouped into Discord embeds, each under the 6,000-character
    embed total (with room for a title and footer) and at most 25 fields."""
    return discord_pages(rulebook(key))


def rulebook_docs() -> dict[str, str]:
    """Every ``docs/rules`` page (``<key>.md`` and ``README.md``) as it should read."""
    return _docs_files(rulebook(key) for key in names())


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
    "Refusal",
    "Result",
    "Rulebook",
    "ScriptedDice",
    "SearchHints",
    "added",
    "adopt",
    "Status",
    "TurnFacts",
    "SeededDice",
    "VerifiableDice",
    "Variant",
    "describe",
    "explain",
    "from_fen",
    "names",
    "new_game",
    "parse_record",
    "perft",
    "random_playout",
    "register",
    "replay",
    "restore",
    "rulebook",
    "rulebook_docs",
    "rulebook_fields",
    "rulebook_markdown",
    "rulebook_pages",
    "rulebook_text",
    "rules",
    "text_board",
    "unregister",
]
