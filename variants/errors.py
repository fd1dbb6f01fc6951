"""Errors raised by the engine. Every one is a ``ValueError`` split by cause.

An error raised by ``Game.play`` carries the explanation as ``.refusal``
(``variants.Refusal``: cause code, message naming the rule, closest actions).
"""

from __future__ import annotations

from collections.abc import Sequence

from .refusal import Refusal
from .sentence import said


class IllegalMove(ValueError):
    """An action that cannot be played now. Base of every notation error."""

    refusal: Refusal | None = None


class BadNotation(IllegalMove):
    """The text is not an action in this variant's notation at all."""


class NotLegalHere(IllegalMove):
    """The text reads as an action, but no legal action now matches it."""


class AmbiguousMove(IllegalMove):
    """The text matches more than one legal action."""

    choices: tuple[str, ...] = ()


class GameOver(IllegalMove):
    """The game has ended; no action can be played."""


_BY_CAUSE: dict[str, type[IllegalMove]] = {
    "notation": BadNotation,
    "ambiguous": AmbiguousMove,
    "game-over": GameOver,
}


def refusal_error(refusal: Refusal, legal: Sequence[str] = ()) -> IllegalMove:
    """The error ``Game.play`` raises for ``refusal``: its message, the closest legal
    actions, then (as every error always has) what is legal now."""
    text = str(refusal)
    if refusal.cause != "game-over":
        text += "; " + legal_hint(legal)
    err = _BY_CAUSE.get(refusal.cause, NotLegalHere)(text)
    err.refusal = refusal
    if isinstance(err, AmbiguousMove):
        err.choices = refusal.closest
    return err


def legal_hint(texts: Sequence[str]) -> str:
    """'legal now: e4, d4, ...' (``Said``): what is legal, the first 40 at most."""
    if not texts:
        return said("there is no legal action now")
    shown = list(texts[:40])
    if len(texts) > len(shown):
        return said(
            "legal now: {actions} (and {n} more)",
            actions=", ".join(shown),
            n=len(texts) - len(shown),
        )
    return said("legal now: {actions}", actions=", ".join(shown))
