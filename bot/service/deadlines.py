"""Deadlines: what happens when something falls due, and moderators' extensions. A
component of ``GameService`` (see ``bot.service``); the background task that calls ``run_due`` at the
right moments is ``bot.service.scheduler``; the rules of time are in ``bot.service.clock``.

Due items come from the store's indexed query (``Repository.due_games``): a challenge
that expires, a side to act to be reminded, a side to act that ran out of time. Each is
handled in its own write transaction that first *claims* it (``WriteTx.claim_due``: the
game again, only if it is still due) and then changes the game so that it is no longer
due: the challenge is cancelled, the reminder cleared, or the game ended. Two processes
(or two schedulers) that see the same item due therefore handle it once: the second
transaction finds it no longer due. A reminder is marked as sent in the store before it
is delivered, so a restart never repeats it (at most one per turn).

A timeout is a log entry like any other ending (kind ``timeout``, no actor): the record
replays it, ``verify`` checks that the stored result follows from it, and the seed is
revealed. The engine state (``Live.turns``, the position) decides between a loss on
time, a draw (the winner cannot win: ``Variant.can_still_win``) and an abort (nobody
had completed a turn).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime

from bot.i18n import said
from bot.service.access import Viewer
from bot.service.clock import (
    DAY_MS,
    check_days,
    extend_text,
    from_ms,
    iso,
    reminder_at,
    time_left_text,
    timeout_end,
    timeout_text,
    to_ms,
)
from bot.service.core import ServiceCore, check_id, clean_text
from bot.service.errors import InvalidState, NotAllowed, ServiceError
from bot.service.live import Live, make_view
from bot.service.rating_log import rate_finished, rating_lines
from bot.service.results import DeadlineEvent, Outcome, RatingChange
from bot.service.words import colour_word, reason_word, status_word
from storage import GameChanges, GameRow, NewAction

log = logging.getLogger(__name__)

DUE_BATCH = 100  # due games read per query; a catch-up reads again until none is left


@dataclass
class _Handled:
    kind: str
    row: GameRow
    live: Live | None = None
    colour: str | None = None
    ratings: tuple[RatingChange, ...] = ()


class Deadlines:
    """The deadlines of ``GameService`` (``next_due``, ``run_due``, ``extend``) as a
    component: it is given the service's core (its store, locks, engine-state cache and
    sentences) and keeps no state of its own; ``GameService`` hands the calls on to it,
    and the outbox builds a deadline's post with its ``event``."""

    def __init__(self, core: ServiceCore) -> None:
        self.core = core

    async def next_due(self) -> datetime | None:
        """When something is next due (indexed), or ``None`` if nothing ever is."""
        due = await self.core.repo.next_due(self.core.shards)
        return None if due is None else from_ms(due)

    async def run_due(
        self, *, now: datetime | None = None, render: bool = False, limit: int = DUE_BATCH
    ) -> tuple[DeadlineEvent, ...]:
        """Handle everything due at ``now`` (default: the clock's now), each item exactly
        once even with other processes doing the same: expire challenges, remind, end
        games on time. Returns what was done, earliest first. ``render``: draw the final
        board of a game that ended on time (``DeadlineEvent.image``).

        A game that cannot be handled (its log does not replay) is logged and skipped;
        it stays due."""
        now_ms = to_ms(now or self.core.clock.now())
        limit = max(1, min(int(limit), 1000))
        events: list[DeadlineEvent] = []
        tried: set[int] = set()
        while True:
            due = await self.core.repo.due_games(now_ms, limit, self.core.shards)
            fresh = [d for d in due if d.game_id not in tried]
            for item in fresh:
                tried.add(item.game_id)
                try:
                    event = await self._handle_due(item.game_id, now_ms, render)
                except ServiceError as error:
                    log.error("game %s: could not handle its deadline: %s", item.game_id, error)
                    continue
                if event is not None:
                    events.append(event)
            if not fresh or len(due) < limit:
                return tuple(events)

    async def _handle_due(self, game_id: int, now_ms: int, render: bool) -> DeadlineEvent | None:
        async with self.core._lock(self.core._game_locks, game_id):
            handled = await self._claim_and_apply(game_id, now_ms)
            if handled is None:
                return None
            return await self.event(handled, now_ms, render)

    async def _claim_and_apply(self, game_id: int, now_ms: int) -> _Handled | None:
        """One transaction: claim the due game, then expire, end or mark it reminded."""
        dirty = False
        try:
            async with self.core._write() as tx:
                row = await tx.claim_due(game_id, now_ms)
                if row is None:
                    return None  # no longer due: handled elsewhere, or changed meanwhile
                if row.status == "challenge":
                    row = await tx.update_game(
                        row.id,
                        GameChanges(
                            status="cancelled",
                            result_reason=f"expired: not accepted within {self._hours()}",
                            deadline_ms=None,
                        ),
                    )
                    self.core._cache.pop(row.id, None)
                    await self.core._owe(tx, row, "expired")
                    return _Handled("expired", row)
                live = await self.core._live_in(tx, row)
                colour = str(live.game.turn)
                if row.deadline_ms is None or now_ms < row.deadline_ms:
                    row = await tx.update_game(row.id, GameChanges(reminder_ms=None))
                    await self.core._owe(tx, row, "reminder", payload={"colour": colour})
                    return _Handled("reminder", row, live, colour)
                end = timeout_end(live.game, live.turns)
                await tx.append_action(
                    NewAction(row.id, live.seq + 1, "timeout", None, timeout_text(colour))
                )
                row = await tx.update_game(
                    row.id,
                    GameChanges(
                        status=end.status,  # type: ignore[arg-type]
                        result=end.result,
                        result_reason=end.reason,
                        draw_offer=None,
                        deadline_ms=None,
                        reminder_ms=None,
                    ),
                )
                dirty = True
                rated: tuple[RatingChange, ...] = ()
                if end.status == "finished":
                    live.game.end(end.winner, end.reason)
                    rated = await rate_finished(tx, row)
                await self.core._owe(tx, row, "timeout", payload={"colour": colour})
            live.seq += 1
        except BaseException:
            if dirty:
                self.core._cache.pop(game_id, None)
            raise
        if row.status == "aborted":
            self.core._cache.pop(row.id, None)  # as for any abort: no engine result to keep
        return _Handled("timeout", row, live, colour, rated)

    def _hours(self) -> str:
        hours = self.core.challenge_hours
        if hours == 1:
            return said("1 hour")
        count = format(hours, "g")
        return said("{n} hours", n=count)

    async def event(self, handled: _Handled, now_ms: int, render: bool) -> DeadlineEvent:
        row, live, colour = handled.row, handled.live, handled.colour
        board = (
            (row.board_channel_id, row.board_message_id)
            if row.board_channel_id is not None and row.board_message_id is not None
            else None
        )
        at = from_ms(now_ms)
        view = make_view(row, live)
        if handled.kind == "expired":
            return DeadlineEvent(
                "expired",
                view,
                (
                    said(
                        "the challenge expired: {why}",
                        why=said("nobody accepted it within {hours}.", hours=self._hours()),
                    ),
                ),
                (),
                at,
                board,
            )
        assert live is not None and colour is not None
        if handled.kind == "reminder":
            to_act = row.white_id if colour == "white" else row.black_id
            deadline = from_ms(row.deadline_ms or now_ms)
            line = said(
                "reminded {colour} ({player}): {left} left, until {deadline}.",
                colour=colour_word(colour),
                player=self.core._label(to_act) if to_act else colour_word(colour),
                left=time_left_text(deadline, at),
                deadline=iso(deadline),
            )
            return DeadlineEvent("reminder", view, (line,), (to_act,) if to_act else (), at, board)
        players = tuple(sorted({p for p in (row.white_id, row.black_id) if p is not None}))
        if row.status == "aborted":
            lines = [
                said(
                    "{colour} ran out of time before anyone made a move: the game is aborted, "
                    "with no result.",
                    colour=colour_word(colour),
                ),
                *self.core._reveal_lines(row),
            ]
            return DeadlineEvent("timeout", view, tuple(lines), players, at, board)
        shown = await self.core._present(live, view, render=render, orientation="white")
        outcome = (
            said("a draw")
            if view.winner is None
            else said("{colour} wins", colour=colour_word(view.winner))
        )
        lines = [
            said(
                "{colour} ran out of time: {outcome} ({reason}), {result}.",
                colour=colour_word(colour),
                outcome=outcome,
                reason=reason_word(view.result_reason),
                result=view.result,
            ),
            *self.core._reveal_lines(row),
            *rating_lines(handled.ratings, self.core._label),
        ]
        return DeadlineEvent(
            "timeout", view, tuple(lines), players, at, board, shown.image, handled.ratings
        )

    # ----- moderators ---------------------------------------------------------------

    async def extend(
        self,
        *,
        user_id: int,
        moderator: bool,
        days: int,
        location_id: int | None = None,
        game_id: int | None = None,
        reason: str | None = None,
        viewer: Viewer | None = None,
    ) -> Outcome:
        """A moderator adds ``days`` (1 to 14) to the clock of the side to act, logged as
        an ``extend`` entry (who, how many days, for whom, why). Only for an active game
        with a time limit whose time has not run out; a moderator who plays in the game
        may not extend it (as for ``abort``, C5). A reminder not yet sent this turn moves
        with the deadline; one already sent is not sent again."""
        user_id = check_id(user_id, "the user id")
        if moderator is not True:
            raise NotAllowed(said("only a moderator can extend a game's clock"))
        days = check_days(days, what=said("the days to add"))
        why = clean_text(reason) if reason else None
        row = await self.core._find(location_id, game_id, live_only=True, viewer=viewer)
        async with self.core._lock(self.core._game_locks, row.id):
            async with self.core._write() as tx:
                row = await self.core._reload(tx, row.id)
                if row.status == "challenge":
                    raise self.core._not_started(row)
                if row.status != "active":
                    raise InvalidState(
                        said(
                            "game {game} is over ({status})",
                            game=row.id,
                            status=status_word(row.status),
                        )
                    )
                if row.time_days is None or row.deadline_ms is None:
                    raise InvalidState(
                        said(
                            "game {game} has no time limit: there is no clock to extend",
                            game=row.id,
                        )
                    )
                if user_id in (row.white_id, row.black_id):
                    raise NotAllowed(
                        said("you play in this game; another moderator must extend it")
                    )
                now_ms = self.core._now_ms()
                self.core._check_time(row, now_ms)
                live = await self.core._live_in(tx, row)
                colour = str(live.game.turn)
                deadline = row.deadline_ms + days * DAY_MS
                reminder = (
                    reminder_at(row.turn_started_ms or now_ms, deadline)
                    if row.reminder_ms is not None
                    else None
                )
                await tx.append_action(
                    NewAction(
                        row.id, live.seq + 1, "extend", user_id, extend_text(days, colour, why)
                    )
                )
                row = await tx.update_game(
                    row.id, GameChanges(deadline_ms=deadline, reminder_ms=reminder)
                )
            live.seq += 1
            view = make_view(row, live)
        self.core._announce_row(row)
        values = {
            "game": row.id,
            "player": self.core._label(user_id),
            "days": said("1 day") if days == 1 else said("{n} days", n=days),
            "colour": colour_word(colour),
            "deadline": iso(from_ms(deadline)),
        }
        if why:
            added = said(
                "Game {game}: {player} added {days} to {colour}'s clock ({reason}); "
                "it now runs out at {deadline}.",
                reason=why,
                **values,
            )
        else:
            added = said(
                "Game {game}: {player} added {days} to {colour}'s clock; "
                "it now runs out at {deadline}.",
                **values,
            )
        messages = (
            added,
            self.core._to_move_line(view),
        )
        return Outcome(view, messages)
