"""The service's sense of time (issue 13), shared by every command: the injected clock,
how long a challenge waits, the listeners told of new deadlines (the deadline scheduler,
so that it wakes up in time), the check that a deadline has not passed, and the clock
columns after an action. What the scheduler does when something falls due is in
``bot.service.deadlines``; the rules of time in ``bot.service.clock``.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from bot.i18n import said
from bot.service.clock import (
    Clock,
    SystemClock,
    check_challenge_hours,
    from_ms,
    iso,
    to_ms,
    turn_clock,
)
from bot.service.errors import TimeUp
from bot.service.words import colour_word
from storage import GameRow


class Timekeeping:
    """Mixed into ``ServiceCore``."""

    clock: Clock
    challenge_hours: float
    _deadline_listeners: list[Callable[[datetime], None]]

    def _init_time(self, clock: Clock | None, challenge_hours: float) -> None:
        self.clock = clock or SystemClock()
        self.challenge_hours = check_challenge_hours(challenge_hours)
        self._deadline_listeners = []

    def _now_ms(self) -> int:
        return to_ms(self.clock.now())

    def add_deadline_listener(self, listener: Callable[[datetime], None]) -> None:
        """Call ``listener(due)`` whenever a game gets something due at ``due`` (a new
        challenge, turn or extension), or a command finds a deadline passed (``due`` is
        then now). The deadline scheduler listens, to wake up in time."""
        self._deadline_listeners.append(listener)

    def remove_deadline_listener(self, listener: Callable[[datetime], None]) -> None:
        if listener in self._deadline_listeners:
            self._deadline_listeners.remove(listener)

    def _announce_due(self, due_ms: int | None) -> None:
        if due_ms is None:
            return
        due = from_ms(due_ms)
        for listener in list(self._deadline_listeners):
            listener(due)

    def _announce_row(self, row: GameRow) -> None:
        """After a commit: tell the listeners when this game is next due, if ever."""
        if row.is_live and row.deadline_ms is not None:
            reminder = row.reminder_ms if row.reminder_ms is not None else row.deadline_ms
            self._announce_due(min(reminder, row.deadline_ms))

    def _check_time(self, row: GameRow, now_ms: int) -> None:
        """``TimeUp`` once the deadline has passed, even before the scheduler has ended the
        game (or cancelled the challenge): the result is settled at the deadline."""
        if row.deadline_ms is None or now_ms < row.deadline_ms or not row.is_live:
            return
        self._announce_due(now_ms)  # the scheduler may be asleep: this is due now
        when = iso(from_ms(row.deadline_ms))
        if row.status == "challenge":
            raise TimeUp(
                said("game {game}: the challenge expired at {when}", game=row.id, when=when)
            )
        if row.clock_side is None:
            raise TimeUp(
                said(
                    "game {game}: the side to act's time ran out at {when}; the game ends on time",
                    game=row.id,
                    when=when,
                )
            )
        raise TimeUp(
            said(
                "game {game}: {colour}'s time ran out at {when}; the game ends on time",
                game=row.id,
                colour=colour_word(row.clock_side),
                when=when,
            )
        )

    @staticmethod
    def _clock_after(
        row: GameRow, before: str, game: Any, changes: dict[str, Any], now_ms: int
    ) -> bool:
        """Add the clock columns to ``changes`` after an action by ``before``: a new turn
        when the side to act changed, nothing when it did not (dice actions inside a
        turn), no clock once the game is over. True if a turn was completed."""
        turned = game.turn != before
        if game.result is not None:
            changes.update(deadline_ms=None, reminder_ms=None)
        elif turned:
            changes.update(turn_clock(row.time_days, game.turn, now_ms))
        return bool(turned)
