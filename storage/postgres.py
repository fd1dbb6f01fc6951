"""The PostgreSQL repository (asyncpg), chosen by a URL in ``CHESSGARDEN_DB``
(``postgresql://user:password@host:port/database``). Same interface and same rows as
``storage.sqlite``; the SQL differs only where the dialects do.

asyncpg is an optional extra (``pip install 'chess-garden[postgres]'``): this module
imports it only when a PostgreSQL store is opened, so the default install stays small.

Connections and transactions:
- a **pool** (``asyncpg.create_pool``) of ``pool_size`` connections, all opened with the
  store and kept for its life; a connection given back is not reset (no session state is
  ever made: see ``_pooled_connection``). Plain reads take any connection and see the
  last committed state (each statement is its own READ COMMITTED snapshot);
- ``write()`` takes one connection and opens one READ COMMITTED transaction. Several run at
  once, from this process and from others; what makes them safe is the database's locks,
  taken by the reads the service makes first in every read-then-write:
  - ``get_game`` inside a transaction is ``SELECT ... FOR NO KEY UPDATE``: the game row
    stays locked until commit, so two commands on one game (from any two processes) run
    one after the other, and the second sees the first's action (per-game serialisation;
    the computer's thinking claim is taken this way too). ``NO KEY``: rows that only
    refer to the game (a snapshot, a rating) may still be written meanwhile;
  - ``claim_due`` is the same ``WHERE`` as SQLite's with ``FOR NO KEY UPDATE SKIP LOCKED``: a
    second scheduler skips a game the first is handling and, once that one commits,
    finds it no longer due (exactly once across processes);
  - ``live_game_at``, ``game_by_request`` and ``list_games`` by challenger take a
    transaction-level advisory lock on the location, the request id or the challenger, so
    "one live game here" and "at most N open challenges" are decided one at a time, as
    SQLite's single writer decides them (the unique index is the last word either way).
  - ``mark_finished`` (the transaction that ends a game), the last pass of ``ratings
    rebuild`` and ``replace_all_ratings`` take one advisory lock ("ratings"): games finish
    one at a time across processes, ``finish_order`` is ``MAX + 1`` in commit order, and
    each game is rated on the ratings the previous one wrote.
- ``lock_timeout`` is the busy timeout: a lock held past it raises ``StoreBusyError``, as
  does a deadlock; a full disk raises ``StoreFullError``; a connection lost (or refused)
  before the COMMIT was sent raises ``StoreLostError``. In each case the transaction is
  rolled back and the same call may be retried.
- A connection lost while the COMMIT is in flight raises ``CommitUnknownError``: the server
  may have stored the transaction or not (issue 24). The caller asks again on a new
  connection (by request id) before it answers anyone. No asyncpg error, and no
  ``OSError`` of the connection, leaves this module (``_translate``).

Log integrity: the triggers of ``storage.pg_migrations`` keep the counts, number each
action's first roll, and refuse an entry out of order, an update or delete of the log,
and a second seed, with SQLite's words.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager, suppress
from dataclasses import replace
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from storage.analyses import AnalysisReads, AnalysisWrites
from storage.chain import (
    ENTRY_COLUMNS,
    FILL_GAMES,
    ORPHAN_ENTRIES,
    ROOT_COLUMNS,
    entry_digest,
    fill_digests,
    previous_digest,
)
from storage.codec import (
    ACTION_COLUMNS,
    GAME_COLUMNS,
    NEW_GAME_COLUMNS,
    action_from_values,
    action_values,
    game_from_values,
    new_game_values,
    rolls_json,
)
from storage.migrations import FILL_LOG_DIGESTS, LATEST_VERSION
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
    Roll,
    Shards,
    SnapshotRow,
)
from storage.outbox import OutboxReads, OutboxWrites
from storage.pg_migrations import PG_MIGRATIONS
from storage.repository import (
    CommitUnknownError,
    ConflictError,
    NotFoundError,
    SchemaError,
    StorageError,
    StoreBusyError,
    StoreDamagedError,
    StoreFullError,
    StoreLostError,
    StoreOpenError,
)
from storage.settings import SettingsReads, SettingsWrites
from storage.sqlite_faults import migration_failed
from storage.standings import RatingReads, RatingWrites
from storage.tournaments import TournamentReads, TournamentWrites
from storage.transfer import VerbatimRows

log = logging.getLogger(__name__)
Clock = Callable[[], str]
URL_SCHEMES = ("postgresql://", "postgres://")
POOL_SIZE = 10
CONNECT_TIMEOUT_S = 10.0

_GAME_COLUMNS = GAME_COLUMNS
_ACTION_COLUMNS = ACTION_COLUMNS
_ACTION_MARKS = "$1, $2, $3, $4, $5, $6, $7, $8, $9, $10"

# The deadline scheduler's reads (see storage.sqlite): the partial index ``games_due``.
NEXT_DUE_SQL = "SELECT MIN(due_ms) FROM games WHERE due_ms IS NOT NULL"
DUE_GAMES_SQL = (
    "SELECT id, due_ms FROM games WHERE due_ms IS NOT NULL AND due_ms <= $1 "
    "ORDER BY due_ms, id LIMIT $2"
)
CLAIM_DUE_SQL = (
    f"SELECT {_GAME_COLUMNS} FROM games "
    "WHERE id = $1 AND due_ms IS NOT NULL AND due_ms <= $2 FOR NO KEY UPDATE SKIP LOCKED"
)
# Games whose guild is on one of this process's Discord shards (a DM: shard 0).
_SHARD_WHERE = "(COALESCE(guild_id >> 22, 0) % {count}::bigint) = ANY({ids}::bigint[])"
# Advisory lock namespaces (the first key of pg_advisory_xact_lock(int, int) cannot
# hold a 64-bit id, so the pair is hashed into one bigint with the namespace).
_LOCK_SQL = "SELECT pg_advisory_xact_lock(hashtextextended($1, 0))"
# Finishing games (``finish_order``, the ratings they change) and ``ratings rebuild``
# happen one transaction at a time across processes: this lock is held until commit.
_RATINGS_LOCK = "ratings"
_SNAPSHOT_COLUMNS = "game_id, seq, ply, turns, roll_count, format, data"


def is_postgres_url(target: str | os.PathLike[str] | None) -> bool:
    """True for ``postgresql://...`` or ``postgres://...``; a path or nothing is SQLite."""
    return isinstance(target, str) and target.lower().startswith(URL_SCHEMES)


def redact(url: str) -> str:
    """The URL without its password, for messages and logs."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "postgresql://..."
    if parts.password is None:
        return url
    host = parts.hostname or ""
    if parts.port is not None:
        host += f":{parts.port}"
    user = f"{parts.username}:***@" if parts.username else ""
    return urlunsplit((parts.scheme, user + host, parts.path, parts.query, parts.fragment))


def _asyncpg() -> Any:
    try:
        import asyncpg
    except ImportError as error:
        raise StoreOpenError(
            "cannot open a PostgreSQL store: the asyncpg package is missing; "
            "install it with pip install '.[postgres]'"
        ) from error
    return asyncpg


_connection_class: Any = None


def _pooled_connection() -> Any:
    """asyncpg's connection without the reset query the pool sends when a connection is
    given back (``pg_advisory_unlock_all(); CLOSE ALL; UNLISTEN *; RESET ALL``): one
    round trip per use of the pool, for session state this store never makes. Its
    advisory locks are transaction-level, it declares no cursor, listens to nothing and
    sets nothing after connecting; an open transaction is still rolled back (asyncpg
    does that before the reset query)."""
    global _connection_class
    if _connection_class is None:

        class PooledConnection(_asyncpg().Connection):  # type: ignore[misc]
            def get_reset_query(self) -> str:
                return ""

        _connection_class = PooledConnection
    return _connection_class


def _dollars(sql: str) -> str:
    """``storage.standings``'s shared SQL with ``?`` marks as ``$1, $2, ...`` (its texts
    have no ``?`` inside a literal)."""
    parts = sql.split("?")
    out = [parts[0]]
    for n, part in enumerate(parts[1:], start=1):
        out.append(f"${n}{part}")
    return "".join(out)


def _translate(error: BaseException) -> BaseException:
    """A database error as the storage error the service knows (or itself)."""
    asyncpg = _asyncpg()
    if isinstance(error, asyncpg.UniqueViolationError):
        name = getattr(error, "constraint_name", "") or ""
        if name == "games_one_live_per_location":
            return ConflictError("location", "there is already a live game in this location")
        if name == "actions_pkey":
            return ConflictError("seq", "another action took this place in the log first")
        if name == "actions_game_id_request_id_key":
            return ConflictError("request", "this request id was already used in this game")
        if name == "games_request_id_key":
            return ConflictError("game_request", "this request id already created a game")
        return StorageError(f"integrity error: {error}")
    if isinstance(error, asyncpg.RaiseError):  # our triggers
        if "action out of order" in str(error):
            return ConflictError("seq", "another action took this place in the log first")
        return StorageError(f"integrity error: {error}")
    if isinstance(error, asyncpg.IntegrityConstraintViolationError):
        return StorageError(f"integrity error: {error}")
    if isinstance(
        error,
        asyncpg.LockNotAvailableError
        | asyncpg.DeadlockDetectedError
        | asyncpg.SerializationError
        | asyncpg.TooManyConnectionsError
        | asyncpg.QueryCanceledError,
    ):
        return StoreBusyError(f"the database is busy ({type(error).__name__}: {error})")
    if isinstance(error, asyncpg.DiskFullError | asyncpg.OutOfMemoryError):
        return StoreFullError(f"the disk holding the database is full ({error})")
    if _is_lost(error):
        return StoreLostError(f"the connection to the database was lost ({_said(error)})")
    if isinstance(error, asyncpg.ReadOnlySQLTransactionError):
        return StoreLostError(f"the database accepts no writes now ({_said(error)})")
    if isinstance(error, asyncpg.DataCorruptedError | asyncpg.IndexCorruptedError):
        return StoreDamagedError(
            f"the PostgreSQL database is damaged ({_said(error)}): restore it from a backup"
        )
    if isinstance(error, asyncpg.UndefinedTableError | asyncpg.UndefinedColumnError):
        return SchemaError(
            f"the PostgreSQL tables are not those this Chess Garden expects ({_said(error)})"
        )
    if isinstance(error, asyncpg.PostgresError | asyncpg.InternalClientError):
        return StorageError(f"database error: {_said(error)}")
    return error


def _said(error: BaseException) -> str:
    return " ".join(str(error).split()) or type(error).__name__


def _is_lost(error: BaseException) -> bool:
    """The connection is gone (or could not be made): the server dropped it, shut down or
    is starting up, the network failed, or asyncpg found it closed."""
    asyncpg = _asyncpg()
    return isinstance(
        error,
        asyncpg.PostgresConnectionError
        | asyncpg.InterfaceError
        | asyncpg.OperatorInterventionError
        | ConnectionError
        | OSError,
    )


async def _commit(conn: Any, transaction: Any) -> None:
    """COMMIT, and what its failure means. A connection found closed before COMMIT is sent:
    the server rolled the transaction back (``StoreLostError``). Lost while COMMIT is in
    flight: the server may have applied it before the connection died
    (``CommitUnknownError``). An error the server answered with: not applied."""
    if conn.is_closed():
        raise StoreLostError("the connection to the database was lost before the commit")
    try:
        await transaction.commit()
    except Exception as error:
        if _is_lost(error):  # the pool drops the dead connection when it is given back
            raise CommitUnknownError(
                f"the connection to the database was lost during the commit ({_said(error)})"
            ) from error
        raise _translate(error) from error


async def _release(pool: Any, conn: Any) -> None:
    """Give ``conn`` back to the pool; never raises. A connection the pool cannot reset
    (the server went away) is terminated by the pool and replaced on a later acquire;
    what the caller's transaction did is already decided by then."""
    try:
        await pool.release(conn)
    except Exception as error:
        log.warning("a database connection was dropped: %s", _translate(error))


class _Query:
    """Runs statements on a pool or one connection, translating the database's errors;
    ``first`` (a transaction's) runs before each statement."""

    def __init__(self, runner: Any, first: Callable[[], Awaitable[None]] | None = None) -> None:
        self._runner = runner
        self._first = first

    async def fetch(self, sql: str, *params: Any) -> list[Any]:
        if self._first is not None:
            await self._first()
        try:
            return list(await self._runner.fetch(sql, *params))
        except Exception as error:
            raise _translate(error) from error

    async def fetchrow(self, sql: str, *params: Any) -> Any:
        if self._first is not None:
            await self._first()
        try:
            return await self._runner.fetchrow(sql, *params)
        except Exception as error:
            raise _translate(error) from error

    async def executemany(self, sql: str, rows: list[tuple[Any, ...]]) -> None:
        if not rows:
            return
        if self._first is not None:
            await self._first()
        try:
            await self._runner.executemany(sql, rows)
        except Exception as error:
            raise _translate(error) from error

    async def execute(self, sql: str, *params: Any) -> int:
        """The number of rows the statement changed."""
        if self._first is not None:
            await self._first()
        try:
            status = await self._runner.execute(sql, *params)
        except Exception as error:
            raise _translate(error) from error
        tail = str(status).rsplit(" ", 1)[-1]
        return int(tail) if tail.isdigit() else 0


class _Reads(RatingReads, OutboxReads, SettingsReads, AnalysisReads, TournamentReads, VerbatimRows):
    """Reads shared by the repository (the pool) and a transaction (its connection).
    The rating reads are ``storage.standings``'s SQL, the same on both stores."""

    COLUMNS_SQL = (
        "SELECT column_name FROM information_schema.columns "
        "WHERE table_schema = current_schema() AND table_name = ? ORDER BY ordinal_position"
    )

    _lock_game = ""  # '' outside a transaction; ' FOR NO KEY UPDATE' inside one

    def __init__(self, query: _Query) -> None:
        self._q = query

    async def _rows(self, sql: str, params: tuple[Any, ...] = ()) -> list[Any]:
        return await self._q.fetch(_dollars(sql), *params)

    async def active_games_of(
        self, player_id: int, guild_id: int | None = None, limit: int = 10
    ) -> list[GameRow]:
        """A player's active games (in one server, if ``guild_id``), newest first, through
        the partial indexes ``games_active_by_white``/``_black``."""
        guild = "" if guild_id is None else " AND guild_id = $2"
        extra: tuple[Any, ...] = () if guild_id is None else (guild_id,)
        n = len(extra) + 2
        records = await self._q.fetch(
            f"SELECT {_GAME_COLUMNS} FROM games WHERE status = 'active' AND white_id = $1{guild} "
            "UNION "
            f"SELECT {_GAME_COLUMNS} FROM games WHERE status = 'active' AND black_id = $1{guild} "
            f"ORDER BY id DESC LIMIT ${n}",
            player_id,
            *extra,
            max(0, int(limit)),
        )
        return [game_from_values(r) for r in records]

    async def finished_games(self, after_order: int = 0, limit: int = 1000) -> list[FinishedGame]:
        """Finished games in the order they finished, each with the ``created_at`` of the
        entry that ended it (``ratings rebuild``)."""
        columns = ", ".join(f"g.{c.strip()}" for c in _GAME_COLUMNS.split(","))
        records = await self._q.fetch(
            f"SELECT {columns}, a.created_at AS finished_at FROM games g "
            "JOIN actions a ON a.game_id = g.id AND a.seq = g.log_count "
            "WHERE g.finish_order > $1 AND g.status = 'finished' "
            "ORDER BY g.finish_order LIMIT $2",
            after_order,
            max(1, int(limit)),
        )
        return [FinishedGame(game_from_values(tuple(r)[:-1]), str(r[-1])) for r in records]

    async def snapshot(self, game_id: int) -> SnapshotRow | None:
        """The game's latest snapshot (a cache of its engine state), if any."""
        record = await self._q.fetchrow(
            f"SELECT {_SNAPSHOT_COLUMNS} FROM snapshots WHERE game_id = $1", game_id
        )
        if record is None:
            return None
        game, seq, ply, turns, roll_count, form, data = tuple(record)
        return SnapshotRow(
            int(game), int(seq), int(ply), int(turns), int(roll_count), str(form), bytes(data)
        )

    async def snapshot_and_actions(
        self, game_id: int
    ) -> tuple[SnapshotRow | None, list[ActionRow]]:
        """The latest snapshot and the log entries after it (all of them without one)."""
        found = await self.snapshot(game_id)
        return found, await self.actions(game_id, after=found.seq if found else 0)

    async def recent_live_game_ids(self, limit: int) -> list[int]:
        """Active games' ids, the most recently changed first (``games_active_recent``)."""
        records = await self._q.fetch(
            "SELECT id FROM games WHERE status = 'active' "
            "ORDER BY updated_at DESC, id DESC LIMIT $1",
            max(0, int(limit)),
        )
        return [int(r[0]) for r in records]

    async def _game_where(self, where: str, *params: Any, lock: str = "") -> GameRow | None:
        record = await self._q.fetchrow(
            f"SELECT {_GAME_COLUMNS} FROM games WHERE {where}{lock}", *params
        )
        return game_from_values(tuple(record)) if record is not None else None

    async def get_game(self, game_id: int) -> GameRow | None:
        return await self._game_where("id = $1", game_id, lock=self._lock_game)

    async def live_game_at(self, location_id: int) -> GameRow | None:
        return await self._game_where(
            "location_id = $1 AND status IN ('challenge', 'active')", location_id
        )

    async def actions(self, game_id: int, after: int = 0) -> list[ActionRow]:
        records = await self._q.fetch(
            f"SELECT {_ACTION_COLUMNS} FROM actions WHERE game_id = $1 AND seq > $2 ORDER BY seq",
            game_id,
            after,
        )
        return [action_from_values(r) for r in records]

    async def last_seq(self, game_id: int) -> int:
        record = await self._q.fetchrow(
            "SELECT COALESCE(MAX(seq), 0) AS n FROM actions WHERE game_id = $1", game_id
        )
        return int(record["n"])

    async def list_games(self, query: GameQuery) -> list[GameRow]:
        where: list[str] = []
        params: list[Any] = []

        def param(value: Any) -> str:
            params.append(value)
            return f"${len(params)}"

        if query.location_id is not None:
            where.append(f"location_id = {param(query.location_id)}")
        if query.guild_id is not None:
            where.append(f"guild_id = {param(query.guild_id)}")
        if query.challenger_id is not None:
            where.append(f"challenger_id = {param(query.challenger_id)}")
        if query.player_id is not None:
            p = param(query.player_id)
            where.append(
                f"(white_id = {p} OR black_id = {p} OR challenger_id = {p} OR opponent_id = {p})"
            )
        if query.computer_only:
            where.append("computer IS NOT NULL")
        if query.statuses is not None:
            if not query.statuses:
                return []
            where.append(f"status = ANY({param(list(query.statuses))}::text[])")
        sql = f"SELECT {_GAME_COLUMNS} FROM games"
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += f" ORDER BY id DESC LIMIT {param(max(0, int(query.limit)))}"
        return [game_from_values(r) for r in await self._q.fetch(sql, *params)]

    async def next_due(self, shards: Shards | None = None) -> int | None:
        if shards is None:
            record = await self._q.fetchrow(NEXT_DUE_SQL)
        else:
            record = await self._q.fetchrow(
                f"{NEXT_DUE_SQL} AND {_SHARD_WHERE.format(count='$1', ids='$2')}",
                shards.count,
                list(shards.ids),
            )
        return None if record is None or record[0] is None else int(record[0])

    async def due_games(
        self, now_ms: int, limit: int = 100, shards: Shards | None = None
    ) -> list[DueGame]:
        if shards is None:
            records = await self._q.fetch(DUE_GAMES_SQL, now_ms, max(1, int(limit)))
        else:
            where = _SHARD_WHERE.format(count="$3", ids="$4")
            records = await self._q.fetch(
                DUE_GAMES_SQL.replace("ORDER BY", f"AND {where} ORDER BY"),
                now_ms,
                max(1, int(limit)),
                shards.count,
                list(shards.ids),
            )
        return [DueGame(int(r["id"]), int(r["due_ms"])) for r in records]


class PgWriteTx(
    RatingWrites, OutboxWrites, SettingsWrites, AnalysisWrites, TournamentWrites, _Reads
):
    """One transaction on one pooled connection (see the module docstring for its locks).

    A log entry for a game this transaction holds (its row locked by ``get_game``,
    ``claim_due``, ``insert_game`` or ``update_game``, and the entry the next one) is
    sent with the transaction's next statement: with ``update_game`` of that game as one
    statement (one round trip for the pair every command makes), otherwise just before
    it, or before the commit. Its row is returned at once: the store would number its
    first roll with the held row's ``roll_count``, and the triggers check that number,
    the order and the counts when it arrives; a refusal (``ConflictError``) then comes
    from that statement or the commit, inside the same ``write()``."""

    _lock_game = " FOR NO KEY UPDATE"
    _claim_lock = " FOR UPDATE SKIP LOCKED"  # storage.outbox: a row one process delivers
    _tournament_lock = " FOR UPDATE"  # storage.tournaments: a command's tournament
    _tournament_claim_lock = " FOR UPDATE SKIP LOCKED"  # ... and one process's claim

    def __init__(self, conn: Any, clock: Clock) -> None:
        super().__init__(_Query(conn, first=self.flush))
        self._direct = _Query(conn)
        self._now = clock
        self._held: dict[int, GameRow] = {}  # rows locked here, as this transaction left them
        # The entry waiting to be sent: entry, roll_index, created_at, digest.
        self._pending: tuple[NewAction, int, str, str] | None = None

    def _hold(self, row: GameRow | None) -> GameRow | None:
        if row is not None:
            self._held[row.id] = row
        return row

    async def flush(self) -> None:
        """Send the log entry waiting for the next statement, if any."""
        if self._pending is None:
            return
        pending = self._pending
        self._pending = None
        await self._direct.execute(
            f"INSERT INTO actions ({_ACTION_COLUMNS}) VALUES ({_ACTION_MARKS})",
            *action_values(*pending),
        )

    async def get_game(self, game_id: int) -> GameRow | None:
        return self._hold(await super().get_game(game_id))

    async def _advisory(self, key: str) -> None:
        """Held until this transaction ends, by any process sharing the database."""
        await self._q.execute(_LOCK_SQL, key)

    async def _tournament_advisory(self, key: str) -> None:
        await self._advisory(key)

    async def live_game_at(self, location_id: int) -> GameRow | None:
        await self._advisory(f"location:{location_id}")
        return await super().live_game_at(location_id)

    async def _run_many(self, sql: str, params: list[tuple[Any, ...]]) -> None:
        await self._q.executemany(_dollars(sql), params)

    async def mark_finished(self, game_id: int) -> tuple[int, str]:
        """As SQLite's (``MAX + 1``), under the ratings lock: games finish one at a time
        across processes, numbered in commit order, each rated on the ratings the one
        before wrote (READ COMMITTED reads them after the lock)."""
        await self._advisory(_RATINGS_LOCK)
        return await super().mark_finished(game_id)

    async def finished_games(self, after_order: int = 0, limit: int = 1000) -> list[FinishedGame]:
        # A rebuild's last pass inside its transaction: no game finishes meanwhile.
        await self._advisory(_RATINGS_LOCK)
        return await super().finished_games(after_order, limit)

    async def replace_all_ratings(
        self, ratings: list[RatingRow], changes: list[RatingChangeRow]
    ) -> None:
        await self._advisory(_RATINGS_LOCK)
        await super().replace_all_ratings(ratings, changes)

    async def save_snapshot(self, snapshot: SnapshotRow) -> bool:
        """Keep ``snapshot`` as the game's latest unless a later one is stored already;
        whether it was kept."""
        changed = await self._q.execute(
            "INSERT INTO snapshots (game_id, seq, ply, turns, roll_count, format, data, "
            "created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) "
            "ON CONFLICT (game_id) DO UPDATE SET seq = excluded.seq, ply = excluded.ply, "
            "turns = excluded.turns, roll_count = excluded.roll_count, "
            "format = excluded.format, data = excluded.data, created_at = excluded.created_at "
            "WHERE excluded.seq > snapshots.seq",
            snapshot.game_id,
            snapshot.seq,
            snapshot.ply,
            snapshot.turns,
            snapshot.roll_count,
            snapshot.format,
            snapshot.data,
            self._now(),
        )
        return changed == 1

    async def list_games(self, query: GameQuery) -> list[GameRow]:
        if query.challenger_id is not None:  # counting open challenges (the limit)
            await self._advisory(f"challenger:{query.challenger_id}")
        return await super().list_games(query)

    async def game_by_request(self, request_id: str) -> GameRow | None:
        await self._advisory(f"request:{request_id}")
        return await self._game_where("request_id = $1", request_id)

    async def action_by_request(self, game_id: int, request_id: str) -> ActionRow | None:
        record = await self._q.fetchrow(
            f"SELECT {_ACTION_COLUMNS} FROM actions WHERE game_id = $1 AND request_id = $2",
            game_id,
            request_id,
        )
        return action_from_values(record) if record is not None else None

    async def game_and_request(
        self, game_id: int, request_id: str | None
    ) -> tuple[GameRow | None, ActionRow | None]:
        row = await self.get_game(game_id)  # locked first, as every action's transaction
        if row is None or request_id is None:
            return row, None
        return row, await self.action_by_request(game_id, request_id)

    async def claim_due(self, game_id: int, now_ms: int) -> GameRow | None:
        record = await self._q.fetchrow(CLAIM_DUE_SQL, game_id, now_ms)
        return self._hold(game_from_values(tuple(record)) if record is not None else None)

    async def insert_game(self, game: NewGame) -> GameRow:
        now = self._now()
        record = await self._q.fetchrow(
            f"INSERT INTO games ({NEW_GAME_COLUMNS}) "
            "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, "
            f"$17, $18, $19, $20, $21) RETURNING {_GAME_COLUMNS}",
            *new_game_values(game, now),
        )
        row = game_from_values(tuple(record))
        self._hold(row)
        return row

    async def set_start_rolls(self, game_id: int, rolls: tuple[Roll, ...]) -> None:
        self._held.pop(game_id, None)
        changed = await self._q.execute(
            "UPDATE games SET start_rolls = $1, roll_count = roll_count + $2 WHERE id = $3",
            rolls_json(rolls),
            len(rolls),
            game_id,
        )
        if changed != 1:
            raise NotFoundError(f"no game {game_id}")

    async def update_game(self, game_id: int, changes: GameChanges) -> GameRow:
        items = changes.items()
        pending = self._pending if self._pending and self._pending[0].game_id == game_id else None
        first: list[Any] = []
        logged = ""
        if pending is not None:  # the entry and the change in one statement
            self._pending = None
            first = action_values(*pending)
            logged = (
                f"WITH logged AS (INSERT INTO actions ({_ACTION_COLUMNS}) "
                f"VALUES ({_ACTION_MARKS})) "
            )
        k = len(first)
        sets = [f"{name} = ${k + i}" for i, (name, _) in enumerate(items, start=1)]
        n = k + len(items)
        sets.append(f"updated_at = ${n + 1}")
        sql = (
            f"{logged}UPDATE games SET {', '.join(sets)} WHERE id = ${n + 2} "
            f"RETURNING {_GAME_COLUMNS}"
        )
        query = self._direct if pending is not None else self._q
        record = await query.fetchrow(sql, *first, *(v for _, v in items), self._now(), game_id)
        if record is None:
            raise NotFoundError(f"no game {game_id}")
        row = game_from_values(tuple(record))
        if pending is not None:
            # The entry's trigger counts it after this statement's own change, so the
            # returned row does not show it yet: add it as the trigger does.
            action, digest = pending[0], pending[3]
            row = replace(
                row,
                log_count=action.seq,
                roll_count=row.roll_count + len(action.rolls),
                log_head=digest,
            )
        self._hold(row)
        return row

    async def append_action(self, action: NewAction) -> ActionRow:
        """Hold the entry, with its chained digest (``storage.chain``) computed from the
        game's row as this transaction locked it, for the next statement (see above)."""
        await self.flush()
        held = self._held.get(action.game_id)
        if held is None or action.seq != held.log_count + 1:
            held = await self.get_game(action.game_id)  # locked and held from here
        created = self._now()
        roll_index = held.roll_count if held is not None else 0
        digest = entry_digest(
            previous_digest(held, action.seq),
            game_id=action.game_id,
            seq=action.seq,
            kind=action.kind,
            actor_id=action.actor_id,
            text=action.text,
            rolls=action.rolls,
            roll_index=roll_index,
            created_at=created,
        )
        if held is not None and action.seq == held.log_count + 1:
            self._pending = (action, roll_index, created, digest)
            self._held[held.id] = replace(
                held,
                log_count=action.seq,
                roll_count=held.roll_count + len(action.rolls),
                log_head=digest,
            )
            return ActionRow(
                action.game_id,
                action.seq,
                action.kind,
                action.request_id,
                action.actor_id,
                action.text,
                tuple((int(a), int(b)) for a, b in action.rolls),
                roll_index,
                created,
                digest,
            )
        # Out of order, or no such game: sent now, so that the refusal comes from here.
        self._held.pop(action.game_id, None)
        record = await self._q.fetchrow(
            f"INSERT INTO actions ({_ACTION_COLUMNS}) VALUES ({_ACTION_MARKS}) "
            f"RETURNING {_ACTION_COLUMNS}",
            *action_values(action, roll_index, created, digest),
        )
        return action_from_values(record)

    async def set_board_message(self, game_id: int, channel_id: int, message_id: int) -> None:
        changed = await self._q.execute(
            "UPDATE games SET board_channel_id = $1, board_message_id = $2 WHERE id = $3",
            channel_id,
            message_id,
            game_id,
        )
        if changed != 1:
            raise NotFoundError(f"no game {game_id}")

    async def upsert_player(self, player_id: int, name: str | None = None) -> None:
        now = self._now()
        if name is None:  # nothing to change on a known player: no row lock taken
            await self._q.execute(
                "INSERT INTO players (id, name, created_at, updated_at) "
                "VALUES ($1, NULL, $2, $2) ON CONFLICT (id) DO NOTHING",
                player_id,
                now,
            )
            return
        await self._q.execute(
            "INSERT INTO players (id, name, created_at, updated_at) VALUES ($1, $2, $3, $3) "
            "ON CONFLICT (id) DO UPDATE SET name = excluded.name, updated_at = excluded.updated_at",
            player_id,
            name,
            now,
        )

    # ----- copying a whole store (``storage.transfer``; chessgarden migrate-store) ---------

    async def import_player(self, player: PlayerRow) -> None:
        await self._q.execute(
            "INSERT INTO players (id, name, created_at, updated_at) VALUES ($1, $2, $3, $4)",
            player.id,
            player.name,
            player.created_at,
            player.updated_at,
        )

    async def import_game(self, game: GameRow, actions: list[ActionRow]) -> None:
        """The game with its id and every stored value, then its log in order (the
        triggers count the entries and rolls again, and check their order)."""
        from storage.sqlite import _import_values

        values = _import_values(game)
        marks = ", ".join(f"${i}" for i in range(1, len(values) + 1))
        try:
            await self._q.execute(f"INSERT INTO games ({_GAME_COLUMNS}) VALUES ({marks})", *values)
            await self._q.executemany(
                f"INSERT INTO actions ({_ACTION_COLUMNS}) VALUES ({_ACTION_MARKS})",
                [
                    (
                        a.game_id,
                        a.seq,
                        a.kind,
                        a.request_id,
                        a.actor_id,
                        a.text,
                        rolls_json(a.rolls),
                        a.roll_index,
                        a.created_at,
                        a.digest,  # as stored: a copy never vouches for a changed log
                    )
                    for a in actions
                ],
            )
        except StorageError as error:
            raise StorageError(f"game {game.id} cannot be copied: {error}") from error


class PgRepository(_Reads):
    """The PostgreSQL repository. Open it with ``await PgRepository.open(url)``."""

    def __init__(self, pool: Any, url: str, clock: Clock) -> None:
        super().__init__(_Query(pool))
        self._pool = pool
        self.url = url
        self.path = redact(url)  # what messages name, as SqliteRepository.path
        self._now = clock
        self._closed = False

    @classmethod
    async def open(
        cls,
        url: str,
        *,
        clock: Clock | None = None,
        busy_timeout_ms: int = 10_000,
        pool_size: int = POOL_SIZE,
    ) -> PgRepository:
        """Connect, and migrate the database to ``LATEST_VERSION``.

        Raises ``StoreOpenError`` (one line: the URL without its password, and the cause)
        when it cannot, after closing what it opened."""
        from storage.sqlite import utc_now

        asyncpg = _asyncpg()
        shown = redact(url)
        settings = {
            "lock_timeout": f"{int(busy_timeout_ms)}ms",
            "timezone": "UTC",
            # Every statement here is a short indexed one: compiling it (JIT) would only
            # add milliseconds to a few of them, chosen by cost estimates.
            "jit": "off",
        }
        try:
            size = max(1, int(pool_size))
            pool = await asyncpg.create_pool(
                url,
                # Every connection opened now and kept: none is made (a server process
                # forked, authenticated, its statements prepared again) while a player
                # waits, neither at the first busy moment nor after a quiet spell.
                min_size=size,
                max_size=size,
                max_inactive_connection_lifetime=0,
                timeout=CONNECT_TIMEOUT_S,
                server_settings=settings,
                connection_class=_pooled_connection(),
            )
        except Exception as error:
            said = " ".join(str(error).split()) or type(error).__name__
            raise StoreOpenError(f"cannot open the database {shown}: {said}") from error
        try:
            await _migrate(pool, shown)
        except BaseException as error:
            await _close_pool(pool)
            if isinstance(error, StoreOpenError):
                raise
            if isinstance(
                error, StorageError | asyncpg.PostgresError | asyncpg.InterfaceError | OSError
            ):
                said = " ".join(str(error).split())
                raise StoreOpenError(f"cannot open the database {shown}: {said}") from error
            raise
        return cls(pool, url, clock or utc_now)

    @asynccontextmanager
    async def write(self, *, durable: bool = True) -> AsyncIterator[PgWriteTx]:
        if self._closed:
            raise StorageError("the repository is closed")
        try:
            conn = await self._pool.acquire()
        except Exception as error:
            raise _translate(error) from error
        try:
            transaction = conn.transaction()
            try:
                await transaction.start()
                if not durable:  # see Repository.write: the commit does not wait for the disk
                    await conn.execute("SET LOCAL synchronous_commit = off")
            except Exception as error:
                raise _translate(error) from error
            try:
                tx = PgWriteTx(conn, self._now)
                yield tx
                await tx.flush()
            except BaseException:
                try:
                    await transaction.rollback()
                except Exception:  # the connection is gone: the server rolled it back
                    with suppress(Exception):  # asyncpg may have given it back already
                        conn.terminate()
                raise
            await _commit(conn, transaction)
        finally:
            await _release(self._pool, conn)

    async def get_player(self, player_id: int) -> PlayerRow | None:
        record = await self._q.fetchrow(
            "SELECT id, name, created_at, updated_at FROM players WHERE id = $1", player_id
        )
        return PlayerRow(**dict(record.items())) if record is not None else None

    async def list_players(self) -> list[PlayerRow]:
        records = await self._q.fetch(
            "SELECT id, name, created_at, updated_at FROM players ORDER BY id"
        )
        return [PlayerRow(**dict(r.items())) for r in records]

    async def is_empty(self) -> bool:
        """No player, game or action stored (a target ``migrate-store`` may fill)."""
        record = await self._q.fetchrow(
            "SELECT (SELECT count(*) FROM players) + (SELECT count(*) FROM games) "
            "+ (SELECT count(*) FROM actions) AS n"
        )
        return int(record["n"]) == 0

    async def after_import(self) -> None:
        """New games, posts owed, settings log entries, tournaments and tournament log entries
        get ids after the copied ones."""
        for table in ("games", "outbox", "settings_log", "tournaments", "tournament_log"):
            await self._q.execute(
                f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
                f"GREATEST((SELECT MAX(id) FROM {table}), 1), "
                f"(SELECT MAX(id) FROM {table}) IS NOT NULL)"
            )

    async def replace_board_message(
        self,
        game_id: int,
        channel_id: int,
        message_id: int,
        *,
        durable: bool = True,
        settle: tuple[int, int] | None = None,
    ) -> tuple[int, int] | None:
        """One statement (autocommit): the row locked, its board message read (the latest
        committed, as a locking read sees it) and replaced; with ``settle`` (outbox id,
        now ms), that outbox row is settled as this message in the same statement. Not
        ``durable``: that commit does not wait for the disk (``synchronous_commit`` off for
        its transaction only, set inside the statement, so still one round trip)."""
        relaxed = "" if durable else " AND set_config('synchronous_commit', 'off', true) = 'off'"
        outbox_id, now_ms = settle if settle is not None else (None, None)
        try:
            conn = await self._pool.acquire()
        except Exception as error:
            raise _translate(error) from error
        try:
            if conn.is_closed():
                raise StoreLostError("the connection to the database was lost")
            # Its own commit: a connection lost once the statement is sent leaves the
            # outcome unknown, as for a COMMIT.
            record = await conn.fetchrow(
                "WITH settled AS (UPDATE outbox SET state = 'sent', due_ms = NULL, "
                "settled_ms = $5, message_id = $2, channel_id = $1, error = NULL "
                "WHERE id = $4 AND state = 'pending' RETURNING id) "
                "UPDATE games SET board_channel_id = $1, board_message_id = $2 "
                "FROM (SELECT id, board_channel_id, board_message_id FROM games "
                f"WHERE id = $3 FOR NO KEY UPDATE) AS old WHERE games.id = old.id{relaxed} "
                "RETURNING old.board_channel_id, old.board_message_id",
                channel_id,
                message_id,
                game_id,
                outbox_id,
                now_ms,
            )
        except StorageError:
            raise
        except Exception as error:
            if _is_lost(error):
                raise CommitUnknownError(
                    f"the connection to the database was lost during a change ({_said(error)})"
                ) from error
            raise _translate(error) from error
        finally:
            await _release(self._pool, conn)
        if record is None:
            raise NotFoundError(f"no game {game_id}")
        if record[0] is None or record[1] is None:
            return None
        return int(record[0]), int(record[1])

    async def schema_version(self) -> int:
        record = await self._q.fetchrow("SELECT version FROM chessgarden_schema")
        return int(record["version"])

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        await _close_pool(self._pool)


async def _close_pool(pool: Any, timeout: float = 5.0) -> None:
    try:
        await asyncio.wait_for(pool.close(), timeout)
    except Exception:
        pool.terminate()


async def _migrate(pool: Any, shown: str) -> None:
    """Bring the database to ``LATEST_VERSION``, once even with several processes."""
    if len(PG_MIGRATIONS) != LATEST_VERSION:  # a migration without its counterpart
        raise SchemaError(
            f"cannot open the database {shown}: this Chess Garden has {LATEST_VERSION} SQLite "
            f"migrations but {len(PG_MIGRATIONS)} PostgreSQL ones"
        )
    async with pool.acquire() as conn, conn.transaction():
        await conn.execute("SELECT pg_advisory_xact_lock(hashtextextended('cg:migrate', 0))")
        await conn.execute(
            "CREATE TABLE IF NOT EXISTS chessgarden_schema (version INTEGER NOT NULL)"
        )
        version = await conn.fetchval("SELECT version FROM chessgarden_schema")
        if version is None:
            await conn.execute("INSERT INTO chessgarden_schema (version) VALUES (0)")
            version = 0
        if version > LATEST_VERSION:
            raise SchemaError(
                f"cannot open the database {shown}: it was written by a newer "
                f"Chess Garden (schema version {version}; this code knows up to "
                f"{LATEST_VERSION}); upgrade Chess Garden"
            )
        asyncpg = _asyncpg()
        for number in range(version + 1, LATEST_VERSION + 1):
            for statement in PG_MIGRATIONS[number - 1]:
                try:
                    if statement == FILL_LOG_DIGESTS:
                        await _fill_log_digests(conn)
                    else:
                        await conn.execute(statement)
                except (
                    asyncpg.DuplicateColumnError,
                    asyncpg.DuplicateTableError,
                    asyncpg.DuplicateObjectError,
                    asyncpg.DuplicateFunctionError,
                    asyncpg.UndefinedColumnError,
                    asyncpg.UndefinedTableError,
                ) as error:  # the tables are not those of the version recorded
                    raise migration_failed(shown, version, error) from error
            await conn.execute("UPDATE chessgarden_schema SET version = $1", number)


async def _fill_log_digests(conn: Any) -> None:
    """Migration 9's step that SQL cannot do here either: every stored entry's chained
    digest (``storage.chain.fill_digests``, the same definition as SQLite's)."""
    after = 0
    while True:
        games = await conn.fetch(
            f"SELECT {ROOT_COLUMNS} FROM games WHERE id > $1 ORDER BY id LIMIT $2",
            after,
            FILL_GAMES,
        )
        if not games:
            break
        first, after = int(games[0]["id"]), int(games[-1]["id"])
        entries = await conn.fetch(
            f"SELECT {ENTRY_COLUMNS} FROM actions WHERE game_id BETWEEN $1 AND $2 "
            "ORDER BY game_id, seq",
            first,
            after,
        )
        filled = fill_digests([tuple(g) for g in games], [tuple(e) for e in entries])
        if filled:
            await conn.executemany(
                "UPDATE actions SET digest = $1 WHERE game_id = $2 AND seq = $3", filled
            )
    orphans = await conn.fetch(ORPHAN_ENTRIES)
    filled = fill_digests([], [tuple(e) for e in orphans])
    if filled:
        await conn.executemany(
            "UPDATE actions SET digest = $1 WHERE game_id = $2 AND seq = $3", filled
        )


def as_store_error(error: BaseException) -> BaseException:
    """For callers outside this module (migrate-store): a database error in our terms."""
    translated = _translate(error)
    return translated if isinstance(translated, StorageError) else error
