"""The narrow repository interface. Callers depend on these Protocols only.

A PostgreSQL implementation needs the same two shapes:

- ``Repository``: plain reads (a committed snapshot) and ``write()``, a context
  manager that opens one read-then-write transaction (SQLite: ``BEGIN IMMEDIATE``;
  PostgreSQL: ``BEGIN`` plus ``SELECT ... FOR UPDATE`` on the game row).
- ``WriteTx``: the reads and writes allowed inside that transaction. Leaving the
  ``async with`` block normally commits; an exception rolls everything back.

Uniqueness the store must enforce (and report as ``ConflictError``):
- at most one live game (challenge or active) per location;
- ``(game_id, seq)`` for actions, so two actions can never take the same slot, and
  entries in order: entry ``n + 1`` after ``n``, none skipped;
- ``(game_id, request_id)`` for actions and ``request_id`` for games, so a retried
  request applies once.

The action log is append-only: there is no update or delete of actions.

Deadlines (issue 13): ``Repository.next_due`` and ``due_games`` read the games that have
something due (a challenge expiring, a reminder, a timeout) through an index on the
derived ``due_ms``; ``WriteTx.claim_due`` re-reads one of them inside the write
transaction, and only if it is still due. Whatever the caller writes in that transaction
(ending the game, clearing the reminder) makes it no longer due, so two processes that
both saw it due handle it once: SQLite serialises the two transactions (``BEGIN
IMMEDIATE``) and the second finds nothing due; PostgreSQL does the same with ``SELECT ...
FOR UPDATE SKIP LOCKED`` in ``claim_due``.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from typing import Any, Protocol

from storage.models import (
    ActionRow,
    DueGame,
    FinishedGame,
    GameChanges,
    GameQuery,
    GameRow,
    NewAction,
    NewGame,
    PlayerRow,
    RatingChangeRow,
    RatingRow,
    Shards,
    SnapshotRow,
)
from storage.outbox import NewPost, OutboxRow
from storage.settings import SettingChange
from storage.tournaments import (
    BoardRow,
    NewTournament,
    RoundRow,
    TournamentLogRow,
    TournamentPlayerRow,
    TournamentRow,
)


class StorageError(Exception):
    """Base of every error the storage layer raises."""


class ConflictError(StorageError):
    """A uniqueness rule was hit: ``what`` is 'location', 'seq', 'request' or 'game_request'."""

    def __init__(self, what: str, message: str) -> None:
        super().__init__(message)
        self.what = what


class StoreOpenError(StorageError):
    """The store cannot be opened. ``str()`` is one line naming the file and the cause."""


class SchemaError(StoreOpenError):
    """The database has a schema this code does not know: a newer version, or tables that
    do not match the version it records (a version set back by hand). Raised on opening,
    or on use when a table or column is missing."""


class StoreDamagedError(StoreOpenError):
    """The database file is damaged (SQLite: "database disk image is malformed"; PostgreSQL:
    a corrupted page or index). Raised on opening or on use; ``str()`` is one line naming
    the file and saying to restore it from a backup. A retry does not help."""


class StoreUnavailableError(StorageError):
    """The database cannot do it now; the transaction was rolled back, and a retry may work."""


class StoreBusyError(StoreUnavailableError):
    """Another connection held the database past the busy timeout."""


class StoreFullError(StoreUnavailableError):
    """The disk holding the database is full."""


class StoreLostError(StoreUnavailableError):
    """The connection to the database was lost, or could not be made, before any COMMIT was
    sent: the server rolls back a transaction whose connection dies, so nothing of it was
    stored. A disk that fails a read or a write is reported the same way."""


class CommitUnknownError(StorageError):
    """The connection was lost while the COMMIT was in flight (PostgreSQL): the server may
    have stored the transaction or not, and no one can say until it is asked again. Not a
    ``StoreUnavailableError``: a blind retry could apply the change twice. A caller that
    wrote under a request id reconnects and looks it up (``action_by_request``,
    ``game_by_request``). SQLite raises it only when the sync of its log after a COMMIT
    fails (``storage.wal_sync``): the transaction is in the log, but may not be on the
    disk."""


class NotFoundError(StorageError):
    """The row to change does not exist."""


class RatingReadsProtocol(Protocol):
    """Rating reads (issue 15), on the repository and inside a transaction alike."""

    async def leaderboard(
        self, scope: int, variant: str, limit: int = 10, offset: int = 0
    ) -> list[RatingRow]: ...

    async def rating_of(self, scope: int, variant: str, player_id: int) -> RatingRow | None: ...

    async def rating_rank(self, row: RatingRow) -> int: ...

    async def player_ratings(self, player_id: int, scope: int) -> list[RatingRow]: ...

    async def recent_rating_changes(
        self, scope: int, player_id: int, variant: str, limit: int = 5
    ) -> list[RatingChangeRow]: ...

    async def game_rating_changes(self, game_id: int) -> list[RatingChangeRow]: ...

    async def all_ratings(self) -> list[RatingRow]: ...

    async def all_rating_changes(self) -> list[RatingChangeRow]: ...

    async def finished_games(
        self, after_order: int = 0, limit: int = 1000
    ) -> list[FinishedGame]: ...

    async def active_games_of(
        self, player_id: int, guild_id: int | None = None, limit: int = 10
    ) -> list[GameRow]: ...


class OutboxReadsProtocol(Protocol):
    """Outbox reads (issue 24, ``storage.outbox``), on the repository and in a transaction."""

    async def outbox_next_due(self) -> int | None: ...

    async def outbox_depth(self) -> tuple[int, int]: ...

    async def outbox_of_game(self, game_id: int) -> list[OutboxRow]: ...

    async def outbox_failures(self, game_ids: list[int]) -> list[OutboxRow]: ...


class SettingsReadsProtocol(Protocol):
    """Per-server settings and per-user preferences (issue 27, ``storage.settings``), on
    the repository and inside a transaction."""

    async def guild_settings(self, guild_id: int) -> dict[str, Any] | None: ...

    async def settings_log(self, guild_id: int, limit: int = 20) -> list[SettingChange]: ...

    async def user_prefs(self, user_id: int) -> dict[str, Any] | None: ...


class AnalysisReadsProtocol(Protocol):
    """Kept analyses of finished games (issue 29, ``storage.analyses``)."""

    async def stored_analysis(self, digest: str, depth: int) -> str | None: ...

    async def analyses_of_game(self, game_id: int) -> int: ...


class TournamentReadsProtocol(Protocol):
    """Tournament reads (issue 30, ``storage.tournaments``), on the repository and inside a
    transaction."""

    async def tournament(self, tournament_id: int) -> TournamentRow | None: ...

    async def tournaments_of_guild(
        self, guild_id: int, statuses: Sequence[str], limit: int = 25
    ) -> list[TournamentRow]: ...

    async def tournament_players(self, tournament_id: int) -> list[TournamentPlayerRow]: ...

    async def tournament_player(
        self, tournament_id: int, player_id: int
    ) -> TournamentPlayerRow | None: ...

    async def tournament_rounds(self, tournament_id: int) -> list[RoundRow]: ...

    async def tournament_boards(self, tournament_id: int) -> list[BoardRow]: ...

    async def board_of_game(self, game_id: int) -> BoardRow | None: ...

    async def tournament_log(
        self, tournament_id: int, limit: int = 1000
    ) -> list[TournamentLogRow]: ...

    async def due_tournaments(
        self, now_ms: int, limit: int = 100, shards: Shards | None = None
    ) -> list[int]: ...

    async def next_tournament_time(self, shards: Shards | None = None) -> int | None: ...


class TournamentWritesProtocol(TournamentReadsProtocol, Protocol):
    """Tournament writes inside one write transaction (``storage.tournaments``)."""

    async def insert_tournament(self, new: NewTournament) -> TournamentRow: ...

    async def lock_guild_tournaments(self, guild_id: int) -> None: ...

    async def tournament_for_update(self, tournament_id: int) -> TournamentRow | None: ...

    async def claim_tournament(self, tournament_id: int, now_ms: int) -> TournamentRow | None:
        """The tournament if something of it is due at ``now_ms``, locked for this
        transaction (PostgreSQL: ``FOR UPDATE SKIP LOCKED``); ``None`` if not."""
        ...

    async def update_tournament(self, tournament_id: int, **changes: Any) -> TournamentRow: ...

    async def join_tournament(
        self, tournament_id: int, player_id: int, name: str | None
    ) -> None: ...

    async def update_tournament_player(
        self, tournament_id: int, player_id: int, **changes: Any
    ) -> None: ...

    async def count_joined(self, tournament_id: int) -> int: ...

    async def insert_round(
        self,
        tournament_id: int,
        number: int,
        *,
        bye_id: int | None,
        bye_points: float,
        compromises: Sequence[str],
        started_ms: int,
        deadline_ms: int,
    ) -> None: ...

    async def close_round(self, tournament_id: int, number: int, now_ms: int) -> None: ...

    async def insert_board(self, board: BoardRow) -> None: ...

    async def set_board_result(
        self,
        tournament_id: int,
        round_no: int,
        board: int,
        result: str | None,
        forfeit: bool,
        ending: str,
    ) -> None: ...

    async def log_tournament(
        self,
        tournament_id: int,
        action: str,
        *,
        actor_id: int | None = None,
        player_id: int | None = None,
        detail: str = "",
    ) -> None: ...

    async def move_game_posts(self, game_id: int, from_channel: int, to_channel: int) -> int: ...


class WriteTx(
    RatingReadsProtocol,
    OutboxReadsProtocol,
    SettingsReadsProtocol,
    AnalysisReadsProtocol,
    TournamentWritesProtocol,
    Protocol,
):
    async def save_analysis(
        self, game_id: int, digest: str, depth: int, result: str, cpu_ms: int
    ) -> None:
        """Keep an analysis (JSON) of the log whose head is ``digest`` (once per head and
        depth: a second one for the same is ignored)."""
        ...

    async def save_guild_settings(
        self,
        guild_id: int,
        settings: dict[str, Any],
        actor_id: int,
        changes: Sequence[tuple[str, Any, Any]],
    ) -> None:
        """Store a server's settings and log each ``(name, old, new)`` change."""
        ...

    async def save_user_prefs(self, user_id: int, prefs: dict[str, Any]) -> None: ...

    async def owe(self, post: NewPost, now_ms: int) -> int:
        """Owe a message (``storage.outbox``) in this transaction; the row's id."""
        ...

    async def claim_outbox(
        self, now_ms: int, lease_ms: int, limit: int, shards: Shards | None = None
    ) -> list[OutboxRow]: ...

    async def outbox_sent(
        self, outbox_id: int, channel_id: int, message_id: int | None, now_ms: int
    ) -> None: ...

    async def outbox_failed(self, outbox_id: int, reason: str, now_ms: int) -> None: ...

    async def outbox_retry(self, outbox_id: int, at_ms: int, reason: str) -> None: ...

    async def outbox_reowe(self, game_id: int, channel_id: int, now_ms: int) -> int: ...

    async def outbox_prune(self, before_ms: int) -> int: ...

    async def get_game(self, game_id: int) -> GameRow | None: ...

    async def live_game_at(self, location_id: int) -> GameRow | None: ...

    async def game_by_request(self, request_id: str) -> GameRow | None: ...

    async def actions(self, game_id: int, after: int = 0) -> list[ActionRow]: ...

    async def last_seq(self, game_id: int) -> int: ...

    async def action_by_request(self, game_id: int, request_id: str) -> ActionRow | None: ...

    async def game_and_request(
        self, game_id: int, request_id: str | None
    ) -> tuple[GameRow | None, ActionRow | None]:
        """``get_game`` and, for a ``request_id``, ``action_by_request``, read together:
        how every action's transaction starts (SQLite: in one call)."""
        ...

    async def claim_due(self, game_id: int, now_ms: int) -> GameRow | None:
        """The game if something of it is due at ``now_ms``, locked for this transaction
        (PostgreSQL: ``FOR UPDATE SKIP LOCKED``); ``None`` if not, or if another
        transaction holds it."""
        ...

    async def insert_game(self, game: NewGame) -> GameRow: ...

    async def set_start_rolls(self, game_id: int, rolls: tuple[tuple[int, int], ...]) -> None:
        """Only for a game whose engine state was just created inside this transaction."""
        ...

    async def update_game(self, game_id: int, changes: GameChanges) -> GameRow: ...

    async def append_action(self, action: NewAction) -> ActionRow:
        """Append entry ``action.seq``, which must be the game's ``log_count + 1``
        (``ConflictError('seq')`` otherwise); the store numbers its first roll,
        computes its chained digest (``storage.chain``), and adds to the game's
        ``log_count`` and ``roll_count`` and moves its ``log_head`` on, all in this
        transaction."""
        ...

    async def set_board_message(self, game_id: int, channel_id: int, message_id: int) -> None: ...

    async def snapshot_and_actions(
        self, game_id: int
    ) -> tuple[SnapshotRow | None, list[ActionRow]]: ...

    async def save_snapshot(self, snapshot: SnapshotRow) -> bool:
        """Keep it unless the game has a later snapshot already; whether it was kept."""
        ...

    async def list_games(self, query: GameQuery) -> list[GameRow]: ...

    async def upsert_player(self, player_id: int, name: str | None = None) -> None: ...

    async def mark_finished(self, game_id: int) -> tuple[int, str]:
        """Number a game that this transaction finished in the order games finish (once);
        that number and the ``created_at`` of its last log entry."""
        ...

    async def save_ratings(
        self, ratings: list[RatingRow], changes: list[RatingChangeRow]
    ) -> None: ...

    async def replace_all_ratings(
        self, ratings: list[RatingRow], changes: list[RatingChangeRow]
    ) -> None: ...


class Repository(
    RatingReadsProtocol,
    OutboxReadsProtocol,
    SettingsReadsProtocol,
    AnalysisReadsProtocol,
    TournamentReadsProtocol,
    Protocol,
):
    def write(self, *, durable: bool = True) -> AbstractAsyncContextManager[WriteTx]:
        """One write transaction. ``durable=False`` is for writes whose loss in a power
        cut (not a process crash) harms nothing: remembered board messages, snapshots. Their
        commit does not wait for the disk; a later durable commit makes them durable too.
        Every game action is written durably."""
        ...

    async def get_game(self, game_id: int) -> GameRow | None: ...

    async def live_game_at(self, location_id: int) -> GameRow | None: ...

    async def list_games(self, query: GameQuery) -> list[GameRow]: ...

    async def actions(self, game_id: int, after: int = 0) -> list[ActionRow]: ...

    async def last_seq(self, game_id: int) -> int: ...

    async def snapshot_and_actions(
        self, game_id: int
    ) -> tuple[SnapshotRow | None, list[ActionRow]]:
        """The game's latest snapshot (a cache of its engine state, issue 12) and the log
        entries after it; without a snapshot, the whole log."""
        ...

    async def recent_live_game_ids(self, limit: int) -> list[int]:
        """The ids of active games, the most recently changed first (indexed): only the
        ids, so that the warm-up after a restart reads each row as it comes to it and
        never builds thousands of rows at once on the event loop."""
        ...

    async def get_player(self, player_id: int) -> PlayerRow | None: ...

    async def next_due(self, shards: Shards | None = None) -> int | None:
        """The earliest ``due_ms`` of any game (indexed), or ``None`` when nothing is due.
        ``shards``: only games whose guild is on one of these Discord shards."""
        ...

    async def due_games(
        self, now_ms: int, limit: int = 100, shards: Shards | None = None
    ) -> list[DueGame]:
        """Games with ``due_ms <= now_ms``, the earliest first (indexed); ``shards`` as in
        ``next_due``."""
        ...

    async def replace_board_message(
        self,
        game_id: int,
        channel_id: int,
        message_id: int,
        *,
        durable: bool = True,
        settle: tuple[int, int] | None = None,
    ) -> tuple[int, int] | None:
        """Remember the game's latest board message, in one atomic step; the one it
        replaces, ``(channel id, message id)``, or ``None`` (``NotFoundError``: no game).
        ``settle``: ``(outbox id, now ms)``, an outbox row this message delivers, settled
        as sent in the same step (a board an interaction carried, ``storage.outbox``).
        A step of its own, not inside ``write()``: one round trip on PostgreSQL.
        ``durable=False``: its commit need not wait for the disk (see ``write``)."""
        ...

    async def schema_version(self) -> int: ...

    async def close(self) -> None: ...
