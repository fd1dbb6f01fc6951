"""Correspondence time (issue 13): the injected clock, days per move, deadlines and
reminders, and what running out of time means in each variant.

The rules, in the players' words:

- A game has a time control chosen with the challenge: ``N`` days per move (1 to 14), or
  none. The side to act must act before its deadline: the moment its turn began plus
  ``N`` days (plus any days a moderator added with ``/extend``).
- The clock belongs to the side to act. It restarts only when the side to act changes, so
  dice actions inside one turn (a Guardener re-roll, a Tquarc entry-attempt ``roll``) and
  a Jepps player's run of placements do not restart it; a draw offer by the other side
  does not either.
- With 24 hours left, or a quarter of the turn's time if that is less, the side to act is
  reminded, once per turn.
- A side that misses its deadline loses on time. If no turn has been completed yet (the
  first side to act never finished its first turn: nobody has made a move), the game is
  aborted instead, with no result. If the winner could not possibly win by the rules
  (``Variant.can_still_win``), the game is drawn.
- A challenge nobody accepts expires after ``CHESSGARDEN_CHALLENGE_HOURS`` (24) hours.

Instants cross the store as whole milliseconds since the Unix epoch (UTC); the service
and its callers see aware ``datetime`` values in UTC.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Protocol

import variants
from bot.i18n import said
from bot.service.errors import InvalidInput
from bot.service.words import colour_word, reason_word
from storage import ResultText

SECOND_MS = 1000
MINUTE_MS = 60 * SECOND_MS
HOUR_MS = 60 * MINUTE_MS
DAY_MS = 24 * HOUR_MS
MIN_DAYS = 1
MAX_DAYS = 14
DEFAULT_CHALLENGE_HOURS = 24.0
REMIND_AT_MOST_MS = 24 * HOUR_MS  # remind with 24 hours left ...
REMIND_FRACTION = 4  # ... or a quarter of the turn's time, whichever is less


# ----- the clock ----------------------------------------------------------------------


class Clock(Protocol):
    """Where the service and the deadline scheduler get the time: injected, so that tests
    run days in milliseconds (``ManualClock``)."""

    def now(self) -> datetime:
        """The current time, aware, in UTC."""
        ...

    async def sleep_until(self, when: datetime) -> None:
        """Return at ``when`` or later (at once if it has passed)."""
        ...


class SystemClock:
    """The real time."""

    def now(self) -> datetime:
        return datetime.now(UTC)

    async def sleep_until(self, when: datetime) -> None:
        delay = (when - self.now()).total_seconds()
        if delay > 0:
            await asyncio.sleep(delay)


class ManualClock:
    """A clock that moves only when told (``advance``, ``set``): for tests and for
    ``chessgarden sweep --now``. Sleepers wake as soon as the time they wait for is reached."""

    def __init__(self, start: datetime | None = None) -> None:
        self._now = aware(start or datetime(2030, 1, 1, tzinfo=UTC))
        self._moved: asyncio.Condition | None = None

    def now(self) -> datetime:
        return self._now

    def set(self, when: datetime) -> None:
        self._now = aware(when)
        self._notify()

    def advance(self, delta: timedelta | None = None, **kwargs: float) -> datetime:
        """Move on by ``delta`` (or ``timedelta(**kwargs)``, e.g. ``days=2``)."""
        self._now += delta if delta is not None else timedelta(**kwargs)
        self._notify()
        return self._now

    def _notify(self) -> None:
        moved = self._moved
        if moved is None:
            return

        async def wake() -> None:
            async with moved:
                moved.notify_all()

        try:
            asyncio.get_running_loop().create_task(wake())
        except RuntimeError:  # no loop running: nobody can be asleep
            pass

    async def sleep_until(self, when: datetime) -> None:
        if self._moved is None:
            self._moved = asyncio.Condition()
        async with self._moved:
            await self._moved.wait_for(lambda: self._now >= when)


def aware(when: datetime) -> datetime:
    """``when`` in UTC; a naive time is taken to be UTC already."""
    return when.replace(tzinfo=UTC) if when.tzinfo is None else when.astimezone(UTC)


def to_ms(when: datetime) -> int:
    return int(aware(when).timestamp() * 1000)


def from_ms(ms: int) -> datetime:
    return datetime.fromtimestamp(ms / 1000, UTC)


def iso(when: datetime) -> str:
    """``2030-01-03T12:00:00Z``: the time in words for logs, the console and sweep."""
    return aware(when).strftime("%Y-%m-%dT%H:%M:%SZ")


def store_clock(clock: Clock) -> Callable[[], str]:
    """The store's timestamp source on the same clock (``created_at`` of log entries)."""
    return lambda: clock.now().isoformat(timespec="milliseconds")


# ----- days per move ------------------------------------------------------------------


def check_days(days: Any, *, what: str = said("the time control")) -> int:
    """Days per move (or days to add) as a whole number from 1 to 14; else InvalidInput."""
    if isinstance(days, bool) or not isinstance(days, int) or not MIN_DAYS <= days <= MAX_DAYS:
        raise InvalidInput(
            said(
                "{what} must be a whole number of days from {low} to {high}, not {value}",
                what=what,
                low=MIN_DAYS,
                high=MAX_DAYS,
                value=repr(days),
            )
        )
    return days


def check_challenge_hours(hours: Any) -> float:
    if isinstance(hours, bool) or not isinstance(hours, int | float) or not 0 < hours <= 24 * 365:
        raise ValueError(f"challenge_hours must be a number of hours above 0, not {hours!r}")
    return float(hours)


def reminder_at(turn_started_ms: int, deadline_ms: int) -> int:
    """When to remind the side to act: 24 hours before its deadline, or a quarter of the
    turn's time before it if that is less."""
    before = min(REMIND_AT_MOST_MS, max(0, deadline_ms - turn_started_ms) // REMIND_FRACTION)
    return deadline_ms - before


def turn_clock(time_days: int | None, side: str, now_ms: int) -> dict[str, Any]:
    """The game row's clock columns for a turn of ``side`` beginning at ``now_ms``."""
    deadline = now_ms + time_days * DAY_MS if time_days else None
    return {
        "clock_side": side,
        "turn_started_ms": now_ms,
        "deadline_ms": deadline,
        "reminder_ms": reminder_at(now_ms, deadline) if deadline is not None else None,
    }


def days_text(days: int | None) -> str:
    if not days:
        return said("no time limit")
    if days == 1:
        return said("1 day per move")
    return said("{days} days per move", days=days)


def time_left_text(deadline: datetime, now: datetime) -> str:
    """``2 days 3 hours``, ``5 hours 10 minutes``, ``40 minutes``, ``under a minute``,
    or ``no time left``."""
    seconds = (aware(deadline) - aware(now)).total_seconds()
    if seconds <= 0:
        return said("no time left")
    left = -(-int(seconds) // 60) * 60 if seconds >= 60 else int(seconds)  # up to a minute
    days, rest = divmod(left, 86400)
    hours, rest = divmod(rest, 3600)
    minutes = rest // 60

    if days:
        if hours:
            return said("{days} {hours}", days=_days(days), hours=_hours(hours))
        return _days(days)
    if hours:
        if minutes:
            return said("{hours} {minutes}", hours=_hours(hours), minutes=_minutes(minutes))
        return _hours(hours)
    if minutes:
        return _minutes(minutes)
    return said("under a minute")


def _days(n: int) -> str:
    return said("1 day") if n == 1 else said("{n} days", n=n)


def _hours(n: int) -> str:
    return said("1 hour") if n == 1 else said("{n} hours", n=n)


def _minutes(n: int) -> str:
    return said("1 minute") if n == 1 else said("{n} minutes", n=n)


# ----- log entries ----------------------------------------------------------------------


def timeout_text(colour: str) -> str:
    """The text of a ``timeout`` log entry."""
    return f"{colour} ran out of time"


TIMEOUT_PATTERN = re.compile(r"^(white|black) ran out of time$")
EXTEND_PATTERN = re.compile(r"^([0-9]{1,3}) days? added to (white|black)'s clock(?:: (.+))?$")


def extend_text(days: int, colour: str, reason: str | None) -> str:
    """The text of an ``extend`` log entry: ``2 days added to white's clock: travelling``."""
    text = f"{days} day{'s' if days != 1 else ''} added to {colour}'s clock"
    return f"{text}: {reason}" if reason else text


# ----- what a timeout means ---------------------------------------------------------------

# Whether the side that did not run out can still win is a fact of its variant, asked of
# the variant (``Variant.can_still_win``, RULES.md section 7; FIDE 6.9: the game is drawn
# when the opponent of the side that ran out cannot win by any series of legal moves).
# A variant must answer it: ``variants.register`` refuses one that does not, so no
# variant gets a rule by default.

TIMEOUT_REASON = "timeout"
TIMEOUT_DRAW_REASON = "timeout vs insufficient material"
TIMEOUT_REASONS = (TIMEOUT_REASON, TIMEOUT_DRAW_REASON)


@dataclass(frozen=True)
class TimeoutEnd:
    """How a game ends when ``loser`` runs out of time."""

    loser: str
    status: str  # 'finished' | 'aborted'
    winner: str | None  # None: a draw, or no result (aborted)
    result: ResultText | None
    reason: str

    @property
    def words(self) -> str:
        if self.status == "aborted":
            return said("aborted with no result")
        reason = reason_word(self.reason)
        if self.winner is None:
            return said("drawn ({reason}), {result}", reason=reason, result=self.result)
        return said(
            "won by {colour} ({reason}), {result}",
            colour=colour_word(self.winner),
            reason=reason,
            result=self.result,
        )


def aborted_reason(colour: str) -> str:
    return f"{colour} ran out of time before anyone made a move"


def timeout_end(game: Any, turns: int) -> TimeoutEnd:
    """The end of ``game`` (an engine game, not over) when its side to act runs out of
    time, after ``turns`` completed turns (changes of the side to act)."""
    loser = str(game.turn)
    winner = "black" if loser == "white" else "white"
    if turns == 0:
        return TimeoutEnd(loser, "aborted", None, None, aborted_reason(loser))
    if cannot_win(game, winner):
        return TimeoutEnd(loser, "finished", None, "1/2-1/2", TIMEOUT_DRAW_REASON)
    score: ResultText = "1-0" if winner == "white" else "0-1"
    return TimeoutEnd(loser, "finished", winner, score, TIMEOUT_REASON)


def cannot_win(game: variants.Game, winner: str) -> bool:
    """Whether ``winner`` could not possibly win by the rules (its variant says)."""
    side = 0 if winner == "white" else 1
    return not game.rules.can_still_win(game.pos, side)
