"""A draw offered to the computer, answered at once: ``GameService.offer_draw_to_computer``.
A component of ``GameService`` (see ``bot.service``).

A person's offer to another person stands until they answer it. The computer answers
on the spot, so its offer never stands: the position is judged first (one search in a
worker process, as ``computer_move`` judges an offer off its turn: the computer's
expected score, accepted at or below ``DRAW_ACCEPT_AT``), then ONE transaction logs the
player's offer and the computer's answer (``draw_offer`` by the player, then
``draw_accept`` or ``draw_decline`` by ``COMPUTER_ID``), so the log reads as it would
for two people, and ``/verify`` checks it the same way. No listener sees an offer
standing, so the ``ComputerRunner`` has nothing to answer or post.

Offers are taken on the player's turn only: on the computer's turn the position is about
to change under the search. If the game moved on while the computer thought
(``StaleAction``), nothing is logged.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

from bot.i18n import said
from bot.service.access import Viewer
from bot.service.computer import DRAW_ACCEPT_AT, Computer, think
from bot.service.core import (
    COMPUTER_ID,
    Step,
    check_id,
    clean_request,
    other_colour,
)
from bot.service.errors import InvalidState, NotAllowed, StaleAction
from bot.service.live import Live, make_view
from bot.service.rating_log import rate_finished, rating_lines
from bot.service.results import Outcome, RatingChange
from bot.service.words import colour_name, status_word
from storage import ActionRow, GameChanges, GameRow, NewAction, WriteTx


def decline_step(colour: str) -> Step:
    """``colour`` declines the standing offer (logged as ``decline_draw`` logs it)."""
    return Step(
        "draw_decline",
        f"{colour} declines the draw",
        GameChanges(draw_offer=None),
        [said("{colour} declines the draw.", colour=colour_name(colour))],
    )


@dataclass(frozen=True)
class DrawAnswer:
    """The computer's answer to a draw offer: ``accepted`` (the game is drawn) or not,
    and the game after it."""

    outcome: Outcome
    accepted: bool


class ComputerDraw:
    """``GameService.offer_draw_to_computer`` as a component: given the computer (its
    search budget, and the service's core through it); see the module."""

    def __init__(self, computer: Computer) -> None:
        self.computer = computer
        self.core = computer.core

    async def offer(
        self,
        *,
        user_id: int,
        location_id: int | None = None,
        game_id: int | None = None,
        request_id: str | None = None,
        render: bool = False,
        viewer: Viewer | None = None,
    ) -> DrawAnswer:
        """The player offers the computer a draw; the computer answers at once."""
        began = time.monotonic()  # the answer comes within the computer's promise too
        user_id = check_id(user_id, "the user id")
        request_id = clean_request(request_id)
        row = await self.core._find(location_id, game_id, live_only=True, viewer=viewer)
        if request_id is not None and any(  # a retry: the answer it had, even after the end
            a.request_id == request_id for a in await self.core.repo.actions(row.id)
        ):
            return await self._log_answer(row.id, user_id, "", -1, False, request_id, render)
        async with self.core._lock(self.core._game_locks, row.id):
            row = await self._reload_read(row.id)
            mine = self._human_colour(row, user_id)
            live = await self.core._live_read(row)
            if live is None:
                raise self.core._not_started(row)
            record = await self.core._whole_record(self.core.repo, row, live)
            turn, seen = str(live.game.turn), row.log_count
        assert row.computer is not None and row.computer_level is not None
        choice = await self.core._in_process(
            think,
            record,
            row.computer_level,
            self.computer.budget_s,
            row.id * 1_000_003 + seen,
            began,
        )
        # the search scores the position for the side to move; the computer's is the same
        # on its turn, minus that on the player's
        score = choice.score if turn == row.computer else -choice.score
        accept = score <= DRAW_ACCEPT_AT
        return await self._log_answer(row.id, user_id, mine, seen, accept, request_id, render)

    async def _reload_read(self, game_id: int) -> GameRow:
        row = await self.core.repo.get_game(game_id)
        if row is None:
            raise InvalidState(said("there is no game {game}", game=game_id))
        return row

    def _human_colour(self, row: GameRow, user_id: int) -> str:
        """The player's side, if the game is one they may offer the computer a draw in."""
        if row.status == "challenge":
            raise self.core._not_started(row)
        if row.status != "active":
            raise InvalidState(
                said("game {game} is over ({status})", game=row.id, status=status_word(row.status))
            )
        if row.computer is None or row.computer_level is None:
            raise InvalidState(said("game {game} is not played against the computer", game=row.id))
        mine = other_colour(row.computer)
        if user_id != (row.white_id if mine == "white" else row.black_id):
            raise NotAllowed(said("only the players of this game can do that"))
        if row.clock_side == row.computer:
            raise InvalidState(
                said("the computer is thinking about its move; offer the draw on your turn")
            )
        return mine

    async def _log_answer(
        self,
        game_id: int,
        user_id: int,
        mine: str,
        seen: int,
        accept: bool,
        request_id: str | None,
        render: bool,
    ) -> DrawAnswer:
        """One transaction: the offer (unless it already stands) and the computer's answer.
        A request already answered gets that answer again (nothing else is used then)."""
        rated: tuple[RatingChange, ...] = ()
        async with self.core._lock(self.core._game_locks, game_id):
            dirty = False
            try:
                async with self.core._write() as tx:
                    row = await self.core._reload(tx, game_id)
                    kind = await self._answered(tx, row, request_id)
                    repeated = kind is not None
                    if kind is not None:
                        live = await self.core._live_in(tx, row)
                    else:
                        if row.log_count != seen:
                            raise StaleAction(
                                said(
                                    "game {game} moved on while the computer considered your "
                                    "offer; offer again if you still want a draw",
                                    game=row.id,
                                )
                            )
                        self._human_colour(row, user_id)
                        self.core._check_time(row, self.core._now_ms())
                        live = await self.core._active_live(tx, row)
                        seq = live.seq
                        if row.draw_offer != mine:
                            seq += 1
                            await tx.append_action(
                                NewAction(
                                    row.id, seq, "draw_offer", user_id, f"{mine} offers a draw",
                                    (), request_id,
                                )
                            )  # fmt: skip
                            request_id = None  # the offer carries it
                        computer = other_colour(mine)
                        answer = self.core._agree(computer) if accept else decline_step(computer)
                        kind = answer.kind
                        seq += 1
                        await tx.append_action(
                            NewAction(row.id, seq, kind, COMPUTER_ID, answer.text, (), request_id)
                        )
                        changes = answer.changes
                        if answer.end is not None:
                            changes = replace(changes, deadline_ms=None, reminder_ms=None)
                        row = await tx.update_game(row.id, changes)
                        if answer.end is not None:
                            dirty = True
                            live.game.end(*answer.end)
                            rated = await rate_finished(tx, row)
                if not repeated:
                    live.seq = seq
            except BaseException:
                if dirty:
                    self.core._cache.pop(game_id, None)
                raise
            if not repeated:
                self.core._announce_row(row)  # no offer stands: the computer is not woken by it
            return await self._answer(row, live, kind, rated, render, repeated=repeated)

    async def _answered(self, tx: WriteTx, row: GameRow, request_id: str | None) -> str | None:
        """A retried request: the kind of the computer's answer it got (``draw_accept`` or
        ``draw_decline``); ``None`` for a new request."""
        if request_id is None:
            return None
        action = await tx.action_by_request(row.id, request_id)
        if action is None:
            return None
        if action.kind == "draw_offer":  # the answer is the entry after it
            after: list[ActionRow] = await tx.actions(row.id, after=action.seq)
            action = after[0] if after else action
        if action.kind not in ("draw_accept", "draw_decline"):
            raise InvalidState(said("this request was used for another command"))
        return action.kind

    async def _answer(
        self,
        row: GameRow,
        live: Live,
        kind: str,
        rated: tuple[RatingChange, ...],
        render: bool,
        *,
        repeated: bool,
    ) -> DrawAnswer:
        view = make_view(row, live)
        shown = await self.core._present(live, view, render=render)
        accepted = kind == "draw_accept"
        offerer = colour_name(other_colour(str(view.computer)))
        if accepted:
            answered = said("{colour} offers a draw; the computer accepts.", colour=offerer)
        else:
            answered = said("{colour} offers a draw; the computer declines.", colour=offerer)
        messages = [
            *([said("(already done)")] if repeated else []),
            answered,
            *self.core._status_lines(row, view),
            *rating_lines(rated, self.core._label),
        ]
        outcome = Outcome(
            view,
            tuple(messages),
            shown.image,
            repeated=repeated,
            legal=shown.legal,
            dice_image=shown.dice_image,
            orientation=shown.side,
            status=shown.status,
            ratings=rated,
        )
        return DrawAnswer(outcome, accepted)
