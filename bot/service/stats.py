"""Plain counters the service keeps about itself, for whoever watches (``bot.discord.metrics``
turns them into Prometheus metrics; the service imports nothing of it)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from contextlib import suppress

log = logging.getLogger(__name__)


class ActionStats:
    """Moves stored by ``act`` (a player's or the computer's) and how long each call took:
    from the call to its answer, so the checks, the transaction with its commit and the
    drawing of the board, but not a retry answered from the log (``request_id``), nor a
    refused move. ``add_observer(fn)``: ``fn(seconds)`` after each."""

    def __init__(self) -> None:
        self.moves = 0
        self.seconds = 0.0
        self._observers: list[Callable[[float], None]] = []

    def add_observer(self, observer: Callable[[float], None]) -> None:
        self._observers.append(observer)

    def remove_observer(self, observer: Callable[[float], None]) -> None:
        with suppress(ValueError):
            self._observers.remove(observer)

    def moved(self, seconds: float) -> None:
        self.moves += 1
        self.seconds += seconds
        for observer in list(self._observers):
            try:
                observer(seconds)
            except Exception:  # watching must never fail a move
                log.exception("an action observer failed")
