"""Looking at games: view, board, legal moves, position, history, lists, verify, and the
board-message bookkeeping. Part of ``GameService`` (see ``bot.service``).

Anyone may look at a game they can see (``Viewer``, contract C3); with a viewer, a game
that is not visible is "not found", like one that does not exist.

Verification runs in a worker process (see ``bot.service.core``). The verification of
an ended game is computed once and kept, in memory, keyed by a digest
of exactly what it checked (the game row and every log entry). Not in the database:
a verdict stored beside the data could vouch for that data after it was changed;
with the digest as the key, any change to the stored game makes the next ``verify``
check again. An ended game's data never changes legitimately, so after the first call
``verify`` costs one read of the log and a hash. Concurrent calls for the same game
share one computation.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any

from bot.i18n import said
from bot.service.access import Viewer
from bot.service.chain_check import head_check
from bot.service.core import VERIFIED_KEPT, ServiceCore, check_id
from bot.service.errors import InvalidInput, InvalidState, NotFound, SeedNotRevealed
from bot.service.live import make_summary, make_view, taken_back
from bot.service.results import (
    GameSummary,
    GameView,
    History,
    HistoryEntry,
    LogTail,
    Outcome,
    TextBoard,
    VerifyReport,
)
from bot.service.verify import log_digest, verify_game, with_head
from bot.service.words import status_word
from bot.service.workers import text_and_status
from storage import STATUSES, ActionRow, GameQuery, GameRow, NotFoundError
from storage.chain import normalise_head


def moves_on_board(actions: Sequence[ActionRow]) -> int:
    """Moves made and not taken back."""
    try:
        undone = len(taken_back(actions))
    except ValueError:  # a broken log: count what is there; verify names the fault
        undone = sum(1 for a in actions if a.kind == "undo")
    return sum(1 for a in actions if a.kind == "move") - undone


def _entries(actions: Sequence[ActionRow]) -> tuple[HistoryEntry, ...]:
    return tuple(
        HistoryEntry(a.seq, a.kind, a.actor_id, a.text, a.rolls, a.created_at, a.digest)
        for a in actions
    )


class Looking(ServiceCore):
    """The read-only half of ``GameService``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._verified: OrderedDict[int, tuple[str, VerifyReport]] = OrderedDict()
        self._verifying: dict[int, asyncio.Future[VerifyReport]] = {}

    async def view(
        self,
        *,
        location_id: int | None = None,
        game_id: int | None = None,
        viewer: Viewer | None = None,
    ) -> GameView:
        row = await self._find(location_id, game_id, live_only=False, viewer=viewer)
        async with self._lock(self._game_locks, row.id):
            return make_view(row, await self._live_read(row))

    async def board(
        self,
        *,
        location_id: int | None = None,
        game_id: int | None = None,
        orientation: str | None = None,
        user_id: int | None = None,
        viewer: Viewer | None = None,
        theme: str | None = None,
        locale: str | None = None,
    ) -> Outcome:
        """The board image (``RenderUnavailable`` if it cannot be drawn), the dice image
        and the legal actions. A challenge has no board: no die exists before it starts.
        ``theme``: ``renderers.THEMES``' name (default: the game's, ``_present``);
        ``locale``: the language of the picture's words (default: ``_present``'s)."""
        self._check_orientation(orientation)
        row = await self._find(location_id, game_id, live_only=False, viewer=viewer)
        async with self._lock(self._game_locks, row.id):
            live = await self._live_read(row)
            if live is None:
                raise self._not_started(row)
            view = make_view(row, live)
            side = orientation
            if side is None and user_id is not None:
                side = view.colour_of(user_id)
            shown = await self._present(
                live, view, render=True, orientation=side, theme=theme, locale=locale
            )
        if shown.failure is not None:
            raise shown.failure
        return Outcome(
            view,
            tuple(self._status_lines(row, view)),
            shown.image,
            legal=shown.legal,
            dice_image=shown.dice_image,
            orientation=shown.side,
            status=shown.status,
        )

    async def text_board(
        self,
        *,
        location_id: int | None = None,
        game_id: int | None = None,
        orientation: str | None = None,
        viewer: Viewer | None = None,
    ) -> TextBoard:
        """The position as text for a terminal: the board (``variants.text_board``) from
        ``orientation``'s side (default: the side to act; White once the game is over)
        and the status in words (``variants.describe``), computed in a worker thread."""
        self._check_orientation(orientation)
        row = await self._find(location_id, game_id, live_only=False, viewer=viewer)
        async with self._lock(self._game_locks, row.id):
            live = await self._live_read(row)
            if live is None:
                raise self._not_started(row)
            view = make_view(row, live)
            side = orientation or (view.turn if view.status == "active" and view.turn else "white")
            board, status = await self._cpu(text_and_status, live.game, side)
        return TextBoard(view, status, board, side)  # type: ignore[arg-type]

    async def legal_moves(
        self,
        *,
        location_id: int | None = None,
        game_id: int | None = None,
        viewer: Viewer | None = None,
    ) -> tuple[str, ...]:
        row = await self._find(location_id, game_id, live_only=False, viewer=viewer)
        if row.status != "active":
            return ()
        async with self._lock(self._game_locks, row.id):
            live = await self._live_read(row)
            if live is None:
                return ()
            return await self._cpu(lambda: tuple(live.game.legal_moves()))

    async def position(
        self,
        *,
        location_id: int | None = None,
        game_id: int | None = None,
        viewer: Viewer | None = None,
    ) -> str:
        """The position as text (FEN-like; on 8x8 boards the first field is FEN placement)."""
        row = await self._find(location_id, game_id, live_only=False, viewer=viewer)
        async with self._lock(self._game_locks, row.id):
            live = await self._live_read(row)
            if live is None:
                raise self._not_started(row)
            try:
                return str(live.game.fen())
            except (NotImplementedError, AttributeError, ValueError):
                return f"(no position text for {row.variant})"

    async def history(
        self,
        *,
        location_id: int | None = None,
        game_id: int | None = None,
        viewer: Viewer | None = None,
    ) -> History:
        """Every log entry (aborts with who and why) and the engine record; a challenge
        shows no dice (it has none) and its record is ``''``."""
        row = await self._find(location_id, game_id, live_only=False, viewer=viewer)
        async with self._lock(self._game_locks, row.id):
            actions = await self.repo.actions(row.id)
            live = await self._live_read(row)
            entries = _entries(actions)
            if live is not None:  # restored from a snapshot: replay all
                live = await self._whole(self.repo, row, live, actions)
            record = "" if live is None else await self._cpu(live.game.record)
            return History(make_view(row, live), record, entries, row.start_rolls)

    async def log_tail(
        self,
        *,
        game_id: int,
        after: int = 0,
        viewer: Viewer | None = None,
    ) -> LogTail:
        """The game as it is now and only its log entries after entry ``after`` (each
        with its chain digest), read in one go: for a reader that follows a game entry
        by entry (the web pages) without decoding the whole log for every move. The log
        is append-only, so the entries before ``after`` are the ones it read before; a
        reader checks that by the digest of entry ``after`` (ask from ``after - 1``)."""
        after = max(0, int(after))
        row = await self._find(None, game_id, live_only=False, viewer=viewer)
        async with self._lock(self._game_locks, row.id):
            live = await self._live_read(row)
            actions = await self.repo.actions(row.id, after=after)
            return LogTail(
                make_view(row, live), after, _entries(actions), row.start_rolls, live is not None
            )

    async def list_games(
        self,
        *,
        location_id: int | None = None,
        guild_id: int | None = None,
        player_id: int | None = None,
        statuses: Iterable[str] | None = None,
        limit: int = 25,
        viewer: Viewer | None = None,
        count_moves: bool = False,
    ) -> tuple[GameSummary, ...]:
        """Newest first. With a ``viewer``: only games of the viewer's server, or in a DM
        only the viewer's own games, whatever the other filters say. ``count_moves``:
        fill ``GameSummary.moves`` from each game's log (one read per game, no replay)."""
        chosen: tuple[Any, ...] | None = None
        if statuses is not None:
            chosen = tuple(statuses)
            bad = [s for s in chosen if s not in STATUSES]
            if bad:
                raise InvalidInput(
                    said(
                        "unknown status {status}; use: {statuses}",
                        status=repr(bad[0]),
                        statuses=", ".join(STATUSES),
                    )
                )
        limit = check_id(limit, "the limit")
        query = GameQuery(
            location_id=None if location_id is None else check_id(location_id, "the location id"),
            guild_id=None if guild_id is None else check_id(guild_id, "the guild id"),
            player_id=None if player_id is None else check_id(player_id, "the player id"),
            statuses=chosen,
            limit=max(1, min(limit, 100)),
        )
        if viewer is not None:
            if not isinstance(viewer, Viewer):
                raise InvalidInput(said("viewer must be a bot.service.Viewer"))
            if viewer.guild_id is not None:
                if query.guild_id not in (None, viewer.guild_id):
                    return ()
                query = replace(query, guild_id=viewer.guild_id)
            else:
                if query.player_id not in (None, viewer.user_id):
                    return ()
                query = replace(query, player_id=viewer.user_id)
        rows = await self.repo.list_games(query)
        if not count_moves:
            return tuple(make_summary(r) for r in rows)
        counted = []
        for r in rows:
            counted.append(
                replace(make_summary(r), moves=moves_on_board(await self.repo.actions(r.id)))
            )
        return tuple(counted)

    async def verify(
        self,
        *,
        location_id: int | None = None,
        game_id: int | None = None,
        viewer: Viewer | None = None,
        expected_head: str | None = None,
    ) -> VerifyReport:
        """Check an ended game against its revealed seed (see ``bot.service.verify``).
        Computed in a worker process, once per stored state of the game.

        ``expected_head``: a chain head someone copied from a posted board (hex, at least
        ``storage.chain.MIN_HEAD`` characters); the report then also says whether the
        log, recomputed from the game's start, still reaches it (a history rewritten
        after that board was posted does not, even with its digests recomputed)."""
        head = None
        if expected_head is not None:
            try:
                head = normalise_head(expected_head)
            except ValueError as error:
                raise InvalidInput(str(error)) from error
        row = await self._find(location_id, game_id, live_only=False, viewer=viewer)
        if row.seed is None:
            if row.is_live:
                raise SeedNotRevealed(
                    said(
                        "game {game} has not started; its dice seed is drawn when the "
                        "challenge is accepted and revealed when the game ends",
                        game=row.id,
                    )
                )
            raise InvalidState(
                said(
                    "game {game} never started ({status}): no die was drawn, "
                    "so there is nothing to verify",
                    game=row.id,
                    status=status_word(row.status),
                )
            )
        if not row.is_ended:
            raise SeedNotRevealed(
                said(
                    "game {game} is still in play; its dice seed is revealed when it ends "
                    "(commitment {commitment})",
                    game=row.id,
                    commitment=row.commitment,
                )
            )
        # Calls at the same moment share one reading of the log and one check.
        running = self._verifying.get(row.id)
        if running is None:
            running = asyncio.ensure_future(self._verify_once(row))
            self._verifying[row.id] = running
            running.add_done_callback(lambda _: self._verifying.pop(row.id, None))
        report = await asyncio.shield(running)
        if head is None:
            return report
        line, problem = await self._cpu(head_check, row, await self.repo.actions(row.id), head)
        return with_head(report, line, problem)

    async def _verify_once(self, row: GameRow) -> VerifyReport:
        actions = await self.repo.actions(row.id)
        digest = await self._cpu(log_digest, row, actions)
        kept = self._verified.get(row.id)
        if kept is not None and kept[0] == digest:
            self._verified.move_to_end(row.id)
            return kept[1]
        report = await self._in_process(verify_game, row, actions)
        self._verified[row.id] = (digest, report)
        self._verified.move_to_end(row.id)
        while len(self._verified) > VERIFIED_KEPT:
            self._verified.popitem(last=False)
        return report

    # ----- board messages (contract C8) -------------------------------------------

    async def set_board_message(
        self, *, game_id: int, channel_id: int, message_id: int, owed: int | None = None
    ) -> tuple[int, int] | None:
        """Remember the game's latest board message (replacing the one before), so that
        its buttons can be taken off when a new board is posted or the game ends, even
        after a restart. Not a change of the game: ``updated_at`` stays. Returns the
        board message it replaces, ``(channel id, message id)`` or ``None``, read in the
        same transaction (one call per posted board, issue 12). ``owed``: the outbox row
        this message delivers (``Outcome.owed``), settled in the same step."""
        game_id = check_id(game_id, "the game id")
        channel_id = check_id(channel_id, "the channel id")
        message_id = check_id(message_id, "the message id")
        if self.gc_policy is not None:
            self.gc_policy.note_activity()
        settle = None if owed is None else (check_id(owed, "the outbox row"), self._now_ms())
        try:  # one atomic step (one round trip on PostgreSQL); buttons, not the game
            return await self.repo.replace_board_message(
                game_id, channel_id, message_id, durable=False, settle=settle
            )
        except NotFoundError as error:
            raise NotFound(said("there is no game {game}", game=game_id)) from error

    async def board_message(self, *, game_id: int) -> tuple[int, int] | None:
        """``(channel id, message id)`` of the game's latest board message, or ``None``."""
        game_id = check_id(game_id, "the game id")
        row = await self.repo.get_game(game_id)
        if row is None:
            raise NotFound(said("there is no game {game}", game=game_id))
        if row.board_channel_id is None or row.board_message_id is None:
            return None
        return row.board_channel_id, row.board_message_id
