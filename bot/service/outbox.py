"""Messages the bot owes, in the service (issue 24): which actions owe a post, and what
each owed post says when it is delivered. The rows live in the store (``storage.outbox``);
delivering them is the front end's (the Discord layer's ``bot.discord.delivery``).

Who owes what (each written in the transaction of the action that owes it, and only for a
game in a server: a console game has no channel to post in):

- ``board``: the computer moved, or accepted a draw: the board after it, pinging the player
  to act (the ``Computer`` component; the human's own moves are answered through their interaction);
- ``reminder``, ``timeout``, ``expired``: the deadline scheduler's three events
  (``Deadlines``);
- ``board`` for a person's move, accept, resignation or draw, held while their
  interaction's answer carries it (``Outcome.owed``; the Discord bot sets
  ``hold_boards_ms``);
- ``retire``: an old board's buttons to take off, after the edit failed for now;
- ``analysis``: a finished game's errors and luck, the summary ``/analyse`` owes its asker
  in their channel, written with the stored analysis (``bot.service.analysis``; held
  while the asker's interaction posts it with the row's nonce, ``owed_posted``);
- ``takeback``: a takeback request for the opponent to answer (``bot.service.takeback``;
  held while the asker's interaction posts it, as a person's board is), and
  ``takeback_answer``: its message turned into the decline's (or withdrawal's) notice, its
  buttons off (held while the presser's interaction edits it);
- ``tournament_round``, ``tournament_game`` (a round's game: its thread and first board),
  ``tournament_end``, ``tournament_cancelled``: a tournament's (``bot.service.tournament_life``).

A post is built when it is delivered, from the store: the log entry it announces (``seq``)
and the game as it is then. A ``board`` whose game has moved on since is delivered without
its picture and buttons (they would show an old position), a ``reminder`` whose turn has
passed is settled unsent (``Owed.superseded``): the player acted, there is nothing to
remind them of.

Permanent failures (the bot may not post in the channel, or it is gone) are kept with
their reason, as a code and its values (``bot.service.failure_words``): ``post_failures`` names them for ``/games`` and ``/board``, and a moderator's
``relocate`` moves the game, and what it still owes, to another channel.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from datetime import datetime

from bot.i18n import said
from bot.service.analysis import Analyses, AnalysisReport
from bot.service.clock import from_ms
from bot.service.core import ServiceCore, check_id
from bot.service.deadlines import Deadlines, _Handled
from bot.service.errors import NotFound
from bot.service.failure_words import failure_words
from bot.service.live import make_view
from bot.service.rating_log import rating_changes_of, rating_lines
from bot.service.relocate import RELOCATE_PATTERN
from bot.service.results import DeadlineEvent, Outcome
from bot.service.takeback import answer_line, pending_takeback, request_lines, takeback_moves
from bot.service.words import colour_name, played_line
from storage import ActionRow, GameRow, OutboxRow

log = logging.getLogger(__name__)

LEASE_MS = 60_000  # a claimed row is someone's for this long (a dead process's runs out)
KEEP_SENT_MS = 7 * 24 * 3600 * 1000  # delivered rows are kept a week (their message ids)


@dataclass(frozen=True)
class PostFailure:
    """Why the bot cannot post a game's messages: ``channel_id`` and the refusal as the
    delivery worker stored it (``bot.service.failure_words``: a code and its values, or
    the English text of an older row)."""

    game_id: int
    channel_id: int
    stored: str

    @property
    def reason(self) -> str:
        """The refusal in words (``Said``: said in the reader's language by a front end)."""
        return failure_words(self.stored)

    @property
    def line(self) -> str:
        channel = f"<#{self.channel_id}>"
        return said("cannot post in {channel}: {reason}", channel=channel, reason=self.reason)


@dataclass(frozen=True)
class Owed:
    """An outbox row made ready to deliver. ``outcome`` for a ``board``, ``event`` for the
    deadline kinds; ``superseded``: nothing to post any more (see the module)."""

    row: OutboxRow
    outcome: Outcome | None = None
    event: DeadlineEvent | None = None
    current: bool = True  # the game has not moved on since it was owed
    superseded: str | None = None
    analysis: AnalysisReport | None = None  # an ``analysis`` row's report
    target: tuple[int, int] | None = None  # the message an edit is owed to (channel, id)


class Owing(ServiceCore):
    """The outbox half of ``GameService``; see the module."""

    deadlines: Deadlines  # the deadline component (GameService sets it): a post's event
    analyses: Analyses  # the analyses (GameService sets it): an ``analysis`` row's report

    # ----- delivering (for the front end's worker) ---------------------------------

    async def claim_owed(self, *, limit: int = 20, lease_ms: int = LEASE_MS) -> list[OutboxRow]:
        """Rows due now, each leased to the caller (see ``storage.outbox``)."""
        async with self.repo.write() as tx:
            return await tx.claim_outbox(self._now_ms(), lease_ms, limit, self.shards)

    async def next_owed(self) -> datetime | None:
        due = await self.repo.outbox_next_due()
        return None if due is None else from_ms(due)

    async def owed_sent(self, row: OutboxRow, *, channel_id: int, message_id: int | None) -> None:
        async with self.repo.write() as tx:
            await tx.outbox_sent(row.id, channel_id, message_id, self._now_ms())

    async def owed_failed(self, row: OutboxRow, reason: str) -> None:
        """A permanent refusal: kept with its reason (``post_failures``), a record of
        ``failure_words.failure_record``."""
        log.warning(
            "game %s: cannot post %s (outbox %s) in channel %s: %s",
            row.game_id, row.kind, row.id, row.channel_id, failure_words(reason),
        )  # fmt: skip
        async with self.repo.write() as tx:
            await tx.outbox_failed(row.id, reason, self._now_ms())

    async def owed_refused(self, owed: int, reason: str) -> None:
        """A held row its front end's post was refused for good: kept with the reason."""
        log.warning("cannot post outbox row %s: %s", owed, reason)
        async with self.repo.write() as tx:
            await tx.outbox_failed(check_id(owed, "the outbox row"), reason, self._now_ms())

    async def owed_retry(self, row: OutboxRow, *, after_ms: int, reason: str) -> None:
        async with self.repo.write() as tx:
            await tx.outbox_retry(row.id, self._now_ms() + max(0, after_ms), reason)

    async def owed_posted(self, owed: int, *, channel_id: int, message_id: int) -> None:
        """A held row (``AnalysisReport.owed``, a takeback request's ``Outcome.owed``) that
        its front end posted itself, with the row's nonce: settled as sent."""
        async with self.repo.write(durable=False) as tx:
            await tx.outbox_sent(
                check_id(owed, "the outbox row"),
                check_id(channel_id, "the channel id"),
                check_id(message_id, "the message id"),
                self._now_ms(),
            )

    async def owe_now(self, owed: int, reason: str) -> None:
        """A held row (``Outcome.owed``) its front end could not deliver: the worker's now."""
        async with self.repo.write() as tx:
            await tx.outbox_retry(check_id(owed, "the outbox row"), self._now_ms(), reason)
        self._owed_committed()

    async def owe_retire(self, *, game_id: int, channel_id: int, message_id: int) -> None:
        """A game's old board kept its buttons (the edit failed for now): owe the edit,
        so that no stale board offers buttons for long (``retire`` rows)."""
        game_id = check_id(game_id, "the game id")
        async with self._write(durable=False) as tx:
            row = await tx.get_game(game_id)
            if row is None:
                raise NotFound(said("there is no game {game}", game=game_id))
            await self._owe(
                tx,
                replace(row, location_id=check_id(channel_id, "the channel id")),
                "retire",
                payload={"message_id": check_id(message_id, "the message id")},
            )

    async def prune_owed(self) -> int:
        async with self.repo.write(durable=False) as tx:
            return await tx.outbox_prune(self._now_ms() - KEEP_SENT_MS)

    async def outbox_depth(self) -> tuple[int, int]:
        """``(pending, failed)``: rows still to deliver, and rows that cannot be."""
        return await self.repo.outbox_depth()

    async def outbox_of_game(self, *, game_id: int) -> list[OutboxRow]:
        return await self.repo.outbox_of_game(check_id(game_id, "the game id"))

    async def post_failures(self, game_ids: list[int]) -> dict[int, PostFailure]:
        """Each of these games the bot cannot post for: the latest failure."""
        out: dict[int, PostFailure] = {}
        for row in await self.repo.outbox_failures([check_id(g, "a game id") for g in game_ids]):
            if row.game_id is not None:
                out[row.game_id] = PostFailure(row.game_id, row.channel_id, row.error or "?")
        return out

    async def owed(self, row: OutboxRow, *, render: bool = True) -> Owed:
        """What ``row`` says now, built from the store (see the module)."""
        if row.game_id is None:
            return Owed(row)
        game = await self.repo.get_game(row.game_id)
        if game is None:
            return Owed(row, superseded=f"game {row.game_id} no longer exists")
        current = row.seq is None or game.log_count == row.seq
        if row.kind in ("board", "tournament_game"):  # a round's game: its first board
            return await self._owed_board(row, game, current, render)
        if row.kind in ("reminder", "timeout", "expired"):
            return await self._owed_deadline(row, game, current, render)
        if row.kind == "takeback":
            return await self._owed_takeback(row, game)
        if row.kind == "takeback_answer":
            return await self._owed_takeback_answer(row, game)
        if row.kind == "analysis":
            report = await self.analyses.report_of(game.id, row.payload, render=render)
            if report is None:
                return Owed(row, superseded="the analysis is no longer kept")
            return Owed(row, analysis=report)
        return Owed(row, current=current)

    async def _owed_board(self, row: OutboxRow, game: GameRow, current: bool, render: bool) -> Owed:
        seq = row.seq or 0
        async with self._lock(self._game_locks, game.id):
            entries = await self.repo.actions(game.id, after=max(0, seq - 1))
            live = await self._live_read(game)
            if live is None:
                raise NotFound(said("game {game} never started", game=game.id))
            view = make_view(game, live)
            entry = entries[0] if entries and entries[0].seq == seq else None
            news = [] if entry is None else _entry_words(game, entry)
            rated = rating_changes_of(game, await self.repo.game_rating_changes(game.id))
            messages = news + self._status_lines(game, view) + rating_lines(rated, self._label)
            if not current:  # the game moved on: the news, without an old picture or buttons
                return Owed(row, Outcome(view, tuple(news)), current=False)
            # a live game's board: its challenger's /prefs orientation, else the side to act
            side = None if view.status == "active" and view.turn else "white"
            shown = await self._present(live, view, render=render, orientation=side)
        outcome = Outcome(
            view,
            tuple(messages),
            shown.image,
            legal=shown.legal,
            dice_image=shown.dice_image,
            orientation=shown.side,
            status=shown.status,
            ratings=rated,
        )
        return Owed(row, outcome)

    async def _owed_takeback(self, row: OutboxRow, game: GameRow) -> Owed:
        """A takeback request: superseded once it was answered or went stale."""
        asker = int(row.payload.get("asker", 0))
        colour = pending_takeback(game)
        if colour is None or game.takeback_seq != row.seq:
            return Owed(row, current=False, superseded="the takeback request was answered")
        async with self._lock(self._game_locks, game.id):
            live = await self._live_read(game)
            moves = takeback_moves(await self.repo.actions(game.id), asker)
        lines = request_lines(game, colour, moves, self._label)
        return Owed(row, Outcome(make_view(game, live), lines))

    async def _owed_takeback_answer(self, row: OutboxRow, game: GameRow) -> Owed:
        """The request's message turned into the notice (the request it answers: the one
        made at the same log length, if it was posted)."""
        posted = [
            r
            for r in await self.repo.outbox_of_game(game.id)
            if r.kind == "takeback" and r.seq == row.seq and r.message_id is not None
        ]
        if not posted:
            return Owed(row, superseded="the takeback request was never posted")
        request = posted[-1]
        assert request.message_id is not None
        line = answer_line(
            str(row.payload.get("colour")), withdrawn=bool(row.payload.get("withdrawn"))
        )
        async with self._lock(self._game_locks, game.id):
            live = await self._live_read(game)
        outcome = Outcome(make_view(game, live), (line,))
        return Owed(row, outcome, target=(request.channel_id, request.message_id))

    async def _moved_since(self, game: GameRow, row: OutboxRow) -> bool:
        return any(e.kind == "move" for e in await self.repo.actions(game.id, after=row.seq or 0))

    async def _owed_deadline(
        self, row: OutboxRow, game: GameRow, current: bool, render: bool
    ) -> Owed:
        if row.kind == "reminder" and (
            game.status != "active" or not current and await self._moved_since(game, row)
        ):  # (an entry that is no move, an extension or a relocation, changes nothing)
            return Owed(row, current=False, superseded="the player acted after the reminder")
        async with self._lock(self._game_locks, game.id):
            live = await self._live_read(game) if game.seed is not None else None
            colour = row.payload.get("colour")
            ratings = rating_changes_of(game, await self.repo.game_rating_changes(game.id))
            handled = _Handled(row.kind, game, live, colour, ratings)
            event = await self.deadlines.event(handled, row.created_ms, render)
        return Owed(row, event=event, current=current)


def _entry_words(game: GameRow, entry: ActionRow) -> list[str]:
    """The log entry a board announces, in words ("Black played Nf3.")."""
    colour = (
        "white"
        if entry.actor_id == game.white_id
        else "black"
        if entry.actor_id == game.black_id
        else game.computer
    )
    who = colour_name(colour) if colour else said("Someone")
    if entry.kind == "move":
        return [played_line(who, game.variant, entry.text)]
    if entry.kind == "draw_accept":
        return [said("{colour} accepts the draw.", colour=who)]
    if entry.kind == "resign":
        return [said("{colour} resigns.", colour=who)]
    if entry.kind == "relocate":
        moved = RELOCATE_PATTERN.match(entry.text)
        if moved:
            return [
                said(
                    "A moderator moved game {game} here from {channel}: it goes on in this "
                    "channel.",
                    game=game.id,
                    channel="<#" + moved[1] + ">",
                )
            ]
        return [
            said("A moderator moved game {game} here: it goes on in this channel.", game=game.id)
        ]
    return []
