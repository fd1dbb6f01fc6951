"""Errors raised by the engine. Every one is a ``ValueError`` split by cause."""

from __future__ import annotations


class IllegalMove(ValueError):
    """An action that cannot be played now. Base of every notation error."""


class BadNotation(IllegalMove):
    """The text is not an action in this variant's notation at all."""


class NotLegalHere(IllegalMove):
    """The text reads as an action, but no legal action now matches it."""


class AmbiguousMove(IllegalMove):
    """The text matches more than one legal action."""


class GameOver(IllegalMove):
    """The game has ended; no action can be played."""
