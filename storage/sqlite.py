"""The SQLite repository (aiosqlite). All SQL of the project lives in this package.

Connections:
- one **writer** connection, used by one transaction at a time (an ``asyncio.Lock``);
  every read-then-write runs inside ``BEGIN IMMEDIATE`` so that another process
  sharing the file cannot slip a write in between the read and the write;
- one **reader** connection for plain reads. In WAL mode it sees the last committed
  state and never blocks the writer.

Durability: in WAL mode a commit with ``synchronous=NORMAL`` is already safe against a
process crash (SIGKILL), but a power cut could lose the last commits. A lost commit
would mean a roll that a player has already seen is rolled again after restart,
which RULES.md section 6 forbids ("each roll is stored with the game before anyone
sees it"). So the writer commits with ``NORMAL`` and a durable ``write()`` returns only
once the log is synced, by a sync that began after its commit: one sync covers all the
commits made while the previous one ran, and none is made while holding the write lock
(group commit, ``storage.wal_sync``). Reads, and ``write(durable=False)`` (remembered
board messages, snapshots, the outbox's bookkeeping: nothing a player was shown as
done), wait only for the syncs of durable commits made before them, so nothing is shown
before it is on the disk. A file that cannot use WAL commits with ``FULL`` instead, each
``COMMIT`` syncing on the writer's thread (see "Trips to the writer").

Trips to the writer: a trip is a call queued to the writer connection's thread and its
answer back on the event loop, and while a transaction makes its trips every other write
waits for it (one writer). Under load a trip waits for the loop's other work (0.9-1.5 ms
at 150-200 actions a second, where its statements take a tenth of that): when every
statement and the COMMIT's sync were trips, they, not SQLite, set how many actions a
second the store took. So (``_Begun``):

- A write transaction's statements run on the event loop's own thread, directly: once it
  holds the write lock (``BEGIN IMMEDIATE``), none of them waits for another connection
  (in WAL mode readers never block the writer), and each takes tens of microseconds.
- Its ``BEGIN IMMEDIATE`` is tried there too, with no busy wait (the writer's busy
  timeout is 0); if another process holds the lock, it is sent to the writer's thread,
  which waits for it up to the busy timeout while the loop goes on.
- ``COMMIT`` appends to the log without a sync (``NORMAL``) and runs on the loop; the
  sync a durable write waits for runs on a thread of its own, after the lock is
  released (see "Durability"). Only where WAL is unavailable does ``COMMIT`` sync, as a
  trip.
- A statement that may touch any number of rows (a ``DELETE``, ``executemany``) is a
  trip, with whatever statements wait before it.
- A transaction that sends no statement sends nothing at all; an action's log entry goes
  with the next statement (``append_action``), and its game is read once before it
  writes.

A move makes no trip inside the writer's lock, where it made about fifteen before issue
26 and five after its first changes: it holds the lock for its statements alone (0.6-0.9
ms at 150-250 actions a second, where it was 2-2.5 ms), and the sync it waits for after
is shared. The connection is shared by two threads, never at once: a trip is awaited
before the next statement, and a transaction left with a trip in flight (its task
cancelled) makes the next one wait for the writer's thread first
(``SqliteRepository.write``).

Faults: opening a file that cannot be opened raises ``StoreOpenError`` (one line: the
file and the cause; see ``storage.opening``). Later, a lock held past the busy timeout
raises ``StoreBusyError`` and a full disk ``StoreFullError`` (both ``StoreUnavailableError``):
the transaction is rolled back and the same call may be retried. Every other SQLite error
becomes the store's own as well (``storage.sqlite_faults``): a damaged file is
``StoreDamagedError``, a failed disk read or write ``StoreLostError``; no ``sqlite3``
error leaves this module.

Checkpoints: in WAL mode SQLite copies the log back into the database file (a
checkpoint) from inside a commit once the log passes 1,000 pages: with ``FULL`` that
commit then waits for the copy and two syncs, and every write queued behind it waits
too (hundreds of ms on a busy disk). So a third connection checkpoints (``PASSIVE``: it
never blocks a writer or a reader) every ``checkpoint_every`` seconds in the
background, and the writer's own automatic checkpoint is raised to a far limit
(``AUTOCHECKPOINT_PAGES``) that only a stalled background checkpointer reaches.

Log integrity: triggers keep each game's ``log_count`` and ``roll_count`` with every
append, number each action's first roll (``roll_index``), and refuse an entry out of
order, an update or a delete of the log, and a second seed.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sqlite3
import time
from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, TypeVar

import aiosqlite

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
from storage.migrations import FILL_LOG_DIGESTS, LATEST_VERSION, MIGRATIONS
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
    Roll,
    Shards,
    SnapshotRow,
)
from storage.opening import check_path, close_fully, open_cause
from storage.outbox import SENT_SQL, OutboxReads, OutboxWrites
from storage.repository import (
    ConflictError,
    NotFoundError,
    SchemaError,
    StorageError,
    StoreDamagedError,
    StoreOpenError,
    StoreUnavailableError,
)
from storage.settings import SettingsReads, SettingsWrites
from storage.sqlite_faults import (
    check_tables,
    latest_schema,
    migration_failed,
    name_connection,
    store_error,
)
from storage.standings import RatingReads, RatingWrites
from storage.tournaments import TournamentReads, TournamentWrites
from storage.transfer import VerbatimRows
from storage.wal_sync import WalSync

log = logging.getLogger(__name__)
T = TypeVar("T")
_SET_BOARD_SQL = "UPDATE games SET board_channel_id = ?, board_message_id = ? WHERE id = ?"

DEFAULT_DB_PATH = "chessgarden.sqlite3"
DB_ENV_VAR = "CHESSGARDEN_DB"
BUSY_TIMEOUT_MS = 10_000
CHECKPOINT_EVERY = 1.0  # seconds between background checkpoints
AUTOCHECKPOINT_PAGES = 20_000  # the writer checkpoints itself only past this (about 80 MB)

Clock = Callable[[], str]

_GAME_COLUMNS = GAME_COLUMNS
_ACTION_COLUMNS = ACTION_COLUMNS
_GAME_BY_ID_SQL = f"SELECT {_GAME_COLUMNS} FROM games WHERE id = ?"
_INSERT_ACTION_SQL = (
    f"INSERT INTO actions ({_ACTION_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
_ACTION_BY_REQUEST_SQL = (
    f"SELECT {_ACTION_COLUMNS} FROM actions WHERE game_id = ? AND request_id = ?"
)


def resolve_db_path(path: str | os.PathLike[str] | None = None) -> str:
    """``path`` if given, else ``$CHESSGARDEN_DB``, else ``./chessgarden.sqlite3``."""
    if path is not None and str(path) != "":
        return str(path)
    return os.environ.get(DB_ENV_VAR) or DEFAULT_DB_PATH


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


# The deadline scheduler's two reads (issue 13). Both walk the partial index ``games_due``
# on the derived column ``due_ms`` (NULL for a game that is over or has no clock), so they
# read only games that have something due, in order, and never a whole table; a test asks
# SQLite for their plans. Kept as constants so that the test explains these very texts.
NEXT_DUE_SQL = "SELECT MIN(due_ms) FROM games WHERE due_ms IS NOT NULL"
DUE_GAMES_SQL = (
    "SELECT id, due_ms FROM games WHERE due_ms IS NOT NULL AND due_ms <= ? "
    "ORDER BY due_ms, id LIMIT ?"
)
# Inside a write transaction: the game, if it is (still) due. SQLite: the transaction is
# ``BEGIN IMMEDIATE``, so no other connection writes between this read and our write.
# PostgreSQL: the same ``WHERE`` with ``FOR UPDATE SKIP LOCKED``, so that a second process
# skips a game the first is handling and finds it no longer due once that one commits.
CLAIM_DUE_WHERE = "id = ? AND due_ms IS NOT NULL AND due_ms <= ?"


def _shard_where(shards: Shards) -> tuple[str, tuple[int, ...]]:
    """Games whose guild is on one of ``shards.ids`` (Discord: ``(guild_id >> 22) %
    count``); a game without a guild counts as shard 0's."""
    marks = ", ".join("?" for _ in shards.ids)
    return (
        f"(COALESCE(guild_id >> 22, 0) % ?) IN ({marks})",
        (shards.count, *shards.ids),
    )


def _conflict(error: sqlite3.IntegrityError) -> StorageError:
    text = str(error)
    if "games.location_id" in text:
        return ConflictError("location", "there is already a live game in this location")
    if "actions.game_id, actions.seq" in text or "action out of order" in text:
        return ConflictError("seq", "another action took this place in the log first")
    if "actions.game_id, actions.request_id" in text:
        return ConflictError("request", "this request id was already used in this game")
    if "games.request_id" in text:
        return ConflictError("game_request", "this request id already created a game")
    return StorageError(f"integrity error: {text}")


def _translated(error: Exception, conn: aiosqlite.Connection) -> BaseException:
    """Any error of a statement as the store's own (``storage.sqlite_faults``)."""
    if isinstance(error, sqlite3.IntegrityError):
        return _conflict(error)
    return store_error(error, conn)


async def _on_its_thread(conn: aiosqlite.Connection, call: Callable[[sqlite3.Connection], T]) -> T:
    """``call(the sqlite3 connection)`` on ``conn``'s own thread, as one trip. aiosqlite
    queues every statement of a connection to its thread this way, but has no public name
    for queueing several at once: ``tests/storage/test_sqlite_trips.py`` holds it to this."""
    return await conn._execute(lambda: call(conn._conn))  # type: ignore[no-untyped-call,no-any-return]


@dataclass(frozen=True)
class _Count:
    rowcount: int


def _busy(error: sqlite3.OperationalError) -> bool:
    """SQLite said another connection holds the lock (any ``SQLITE_BUSY`` variant)."""
    return (getattr(error, "sqlite_errorcode", 0) & 0xFF) == sqlite3.SQLITE_BUSY


class _Begun:
    """The writer connection inside one write transaction. Its ``BEGIN IMMEDIATE`` goes
    with its first statement, and a statement sent ``later`` (a log entry) with the next
    one, or with the ``COMMIT``. Statements run on the loop's thread; the ``BEGIN`` when
    the file is locked, a ``COMMIT`` that syncs (no WAL), and a ``DELETE`` or
    ``executemany`` are trips to the writer's thread (see "Trips to the writer" above).
    It has the calls a transaction makes (``execute_fetchall``, ``execute`` for its row
    count, ``executemany``), ``read`` and ``run`` for several statements at once, and
    ``commit``."""

    def __init__(
        self,
        conn: aiosqlite.Connection,
        *,
        commit_syncs: bool = False,
        busy_timeout_ms: int = BUSY_TIMEOUT_MS,
    ) -> None:
        self.connection = conn
        self._begin = True  # the BEGIN is still to be sent
        self._commit_syncs = commit_syncs  # its COMMIT waits for the disk (no WAL): a trip
        self._busy_timeout_ms = int(busy_timeout_ms)
        self._later: list[tuple[str, tuple[Any, ...]]] = []
        self.sent = False  # the BEGIN went out: it may have begun, whatever came back
        self.opened = False  # the BEGIN ran: the transaction is open
        self.writes = 0  # statements sent that may have changed something (not a SELECT)
        self.committed = False

    def _count(self, sql: str) -> None:
        if _verb(sql) != "SELECT":
            self.writes += 1

    @property
    def pending(self) -> bool:
        """Something was sent, or waits to be: the transaction has to end."""
        return self.sent or bool(self._later)

    def later(self, sql: str, params: tuple[Any, ...]) -> None:
        """Send ``sql`` just before the next statement, or the ``COMMIT``; an error of it
        comes from that call."""
        self.writes += 1
        self._later.append((sql, params))

    def _begin_here(self) -> bool:
        """``BEGIN IMMEDIATE`` on the loop's thread, where the writer never waits for a
        lock (its busy timeout is 0); ``False`` if another connection holds the file."""
        try:
            self.connection._conn.execute("BEGIN IMMEDIATE")  # noqa: SLF001 - see _on_its_thread
        except sqlite3.OperationalError as error:
            if not _busy(error):
                raise
            return False
        self.opened = True
        return True

    def _begin_waiting(self, raw: sqlite3.Connection) -> None:
        """``BEGIN IMMEDIATE`` on the writer's thread, waiting up to the busy timeout."""
        raw.execute(f"PRAGMA busy_timeout = {self._busy_timeout_ms}")
        try:
            raw.execute("BEGIN IMMEDIATE")
        finally:
            raw.execute("PRAGMA busy_timeout = 0")

    async def _send(self, call: Callable[[sqlite3.Connection], T], *, trip: bool = False) -> T:
        """The ``BEGIN`` if not sent yet, the statements waiting, then ``call``: on the
        loop's thread, or as one trip to the writer's if ``trip`` or the file is locked."""
        begin, self._begin = self._begin, False
        waiting, self._later = self._later, []
        if begin:
            self.sent = True
            begin = not self._begin_here()
        if not begin and not trip:
            raw = self.connection._conn  # noqa: SLF001 - see _on_its_thread
            for sql, params in waiting:
                raw.execute(sql, params)
            return call(raw)
        return await self._trip(begin, waiting, call)

    async def _trip(
        self,
        begin: bool,
        waiting: list[tuple[str, tuple[Any, ...]]],
        call: Callable[[sqlite3.Connection], T],
    ) -> T:
        def trip(raw: sqlite3.Connection) -> tuple[bool, T | BaseException]:
            if begin:
                self._begin_waiting(raw)
            try:  # the transaction is open: say so even when a statement fails
                for sql, params in waiting:
                    raw.execute(sql, params)
                return True, call(raw)
            except BaseException as error:
                return True, error

        done, result = await _on_its_thread(self.connection, trip)
        self.opened = self.opened or done
        if isinstance(result, BaseException):
            raise result
        return result

    async def read(self, call: Callable[[sqlite3.Connection], T]) -> T:
        """Several reads at once (``call`` changes nothing: no write is counted)."""
        return await self._send(call)

    async def run(self, call: Callable[[sqlite3.Connection], T], *, commit: bool = False) -> T:
        """Several statements at once: ``call`` runs them (and may change anything); with
        ``commit``, the transaction's ``COMMIT`` follows, and it must be the transaction's
        last statement (a durable one makes this a trip). Its ``sqlite3`` errors come
        back as they are (a failed ``call`` commits nothing)."""
        self.writes += 1
        work = call
        if commit:

            def work(raw: sqlite3.Connection) -> T:
                result = call(raw)
                raw.execute("COMMIT")
                self.committed = True
                return result

        return await self._send(work, trip=commit and self._commit_syncs)

    async def commit(self) -> None:
        """The ``COMMIT``, with whatever still waits to be sent."""
        if self.pending and not self.committed:
            await self.run(lambda raw: None, commit=True)

    async def execute_fetchall(self, sql: str, params: tuple[Any, ...] = ()) -> Iterable[Any]:
        self._count(sql)
        return await self._send(
            lambda raw: raw.execute(sql, params).fetchall(), trip=_unbounded(sql)
        )

    async def execute(self, sql: str, params: tuple[Any, ...] = ()) -> Any:
        """Something with the statement's ``rowcount`` (all a transaction reads of it)."""
        self._count(sql)
        return await self._send(
            lambda raw: _Count(raw.execute(sql, params).rowcount), trip=_unbounded(sql)
        )

    async def executemany(self, sql: str, params: list[tuple[Any, ...]]) -> None:
        self._count(sql)
        await self._send(lambda raw: raw.executemany(sql, params), trip=True)


def _verb(sql: str) -> str:
    """The statement's first word, in capitals (for the six-letter ones that matter)."""
    return sql.lstrip()[:6].upper()


def _unbounded(sql: str) -> bool:
    """A statement that may touch any number of rows: a trip, off the loop."""
    return _verb(sql) == "DELETE"


class _Synced:
    """The reader connection: each read first waits for the syncs of the durable commits
    made before it (``storage.wal_sync``), so that it shows nothing a power cut could
    take back."""

    def __init__(self, conn: aiosqlite.Connection, syncs: WalSync) -> None:
        self.connection = conn
        self._syncs = syncs

    async def execute_fetchall(self, sql: str, params: tuple[Any, ...] = ()) -> Iterable[Any]:
        await self._syncs.durable()
        return await self.connection.execute_fetchall(sql, params)

    async def execute(self, sql: str, params: tuple[Any, ...] = ()) -> Any:
        await self._syncs.durable()
        return await self.connection.execute(sql, params)


_Conn = aiosqlite.Connection | _Begun | _Synced


def _named(conn: _Conn) -> aiosqlite.Connection:
    """The connection that names the file in an error's words."""
    return conn if isinstance(conn, aiosqlite.Connection) else conn.connection


async def _fetchall(conn: _Conn, sql: str, params: tuple[Any, ...] = ()) -> list[Any]:
    try:
        return list(await conn.execute_fetchall(sql, params))
    except (sqlite3.Error, ValueError) as error:
        raise _translated(error, _named(conn)) from error


async def _run(conn: _Conn, sql: str, params: tuple[Any, ...] = ()) -> int:
    """Execute one statement; the number of rows it changed."""
    try:
        cursor = await conn.execute(sql, params)
    except (sqlite3.Error, ValueError) as error:
        raise _translated(error, _named(conn)) from error
    return int(cursor.rowcount)


async def _fetchone(conn: _Conn, sql: str, params: tuple[Any, ...] = ()) -> Any:
    rows = await _fetchall(conn, sql, params)
    return rows[0] if rows else None


class _Reads(RatingReads, OutboxReads, SettingsReads, AnalysisReads, TournamentReads, VerbatimRows):
    """Reads shared by the repository (reader connection) and a transaction (writer)."""

    COLUMNS_SQL = "SELECT name FROM pragma_table_info(?) ORDER BY cid"

    def __init__(self, conn: _Conn) -> None:
        self._conn = conn

    async def _rows(self, sql: str, params: tuple[Any, ...] = ()) -> list[Any]:
        return await _fetchall(self._conn, sql, params)

    async def active_games_of(
        self, player_id: int, guild_id: int | None = None, limit: int = 10
    ) -> list[GameRow]:
        """A player's active games (in one server, if ``guild_id``), newest first: two
        partial-index reads (``games_active_by_white``/``_black``), never their old games."""
        guild = "" if guild_id is None else " AND guild_id = ?"
        extra: tuple[Any, ...] = () if guild_id is None else (guild_id,)
        rows = await _fetchall(
            self._conn,
            f"SELECT {_GAME_COLUMNS} FROM games WHERE status = 'active' AND white_id = ?{guild} "
            "UNION "
            f"SELECT {_GAME_COLUMNS} FROM games WHERE status = 'active' AND black_id = ?{guild} "
            "ORDER BY id DESC LIMIT ?",
            (player_id, *extra, player_id, *extra, max(0, int(limit))),
        )
        return [game_from_values(r) for r in rows]

    async def finished_games(self, after_order: int = 0, limit: int = 1000) -> list[FinishedGame]:
        """Finished games in the order they finished (``finish_order`` above
        ``after_order``), each with the ``created_at`` of the log entry that ended it:
        what ``ratings rebuild`` replays."""
        columns = ", ".join(f"g.{c.strip()}" for c in _GAME_COLUMNS.split(","))
        rows = await _fetchall(
            self._conn,
            f"SELECT {columns}, a.created_at FROM games g "
            "JOIN actions a ON a.game_id = g.id AND a.seq = g.log_count "
            "WHERE g.finish_order > ? AND g.status = 'finished' "
            "ORDER BY g.finish_order LIMIT ?",
            (after_order, max(1, int(limit))),
        )
        return [FinishedGame(game_from_values(r[:-1]), str(r[-1])) for r in rows]

    async def _game_where(self, where: str, params: tuple[Any, ...]) -> GameRow | None:
        """The one game matching the ``WHERE`` clause ``where``, or ``None``."""
        row = await _fetchone(
            self._conn, f"SELECT {_GAME_COLUMNS} FROM games WHERE {where}", params
        )
        return game_from_values(row) if row else None

    async def get_game(self, game_id: int) -> GameRow | None:
        return await self._game_where("id = ?", (game_id,))

    async def live_game_at(self, location_id: int) -> GameRow | None:
        return await self._game_where(
            "location_id = ? AND status IN ('challenge', 'active')", (location_id,)
        )

    async def actions(self, game_id: int, after: int = 0) -> list[ActionRow]:
        """The game's log in order; only entries with ``seq > after`` if given."""
        rows = await _fetchall(
            self._conn,
            f"SELECT {_ACTION_COLUMNS} FROM actions WHERE game_id = ? AND seq > ? ORDER BY seq",
            (game_id, after),
        )
        return [action_from_values(r) for r in rows]

    async def snapshot(self, game_id: int) -> SnapshotRow | None:
        """The game's latest snapshot (a cache of its engine state), if any."""
        row = await _fetchone(
            self._conn,
            "SELECT game_id, seq, ply, turns, roll_count, format, data FROM snapshots "
            "WHERE game_id = ?",
            (game_id,),
        )
        if row is None:
            return None
        game, seq, ply, turns, roll_count, form, data = tuple(row)
        return SnapshotRow(
            int(game), int(seq), int(ply), int(turns), int(roll_count), str(form), bytes(data)
        )

    async def snapshot_and_actions(
        self, game_id: int
    ) -> tuple[SnapshotRow | None, list[ActionRow]]:
        """The latest snapshot and the log entries after it (all of them without one):
        what a rebuild needs."""
        found = await self.snapshot(game_id)
        return found, await self.actions(game_id, after=found.seq if found else 0)

    async def recent_live_game_ids(self, limit: int) -> list[int]:
        """Active games' ids, the most recently changed first (the warm-up after a restart)."""
        rows = await _fetchall(
            self._conn,
            "SELECT id FROM games WHERE status = 'active' "
            "ORDER BY updated_at DESC, id DESC LIMIT ?",
            (max(0, int(limit)),),
        )
        return [int(r[0]) for r in rows]

    async def last_seq(self, game_id: int) -> int:
        """The number of entries in the game's log (0 for none)."""
        row = await _fetchone(
            self._conn, "SELECT COALESCE(MAX(seq), 0) FROM actions WHERE game_id = ?", (game_id,)
        )
        return int(row[0])

    async def list_games(self, query: GameQuery) -> list[GameRow]:
        where: list[str] = []
        params: list[Any] = []
        if query.location_id is not None:
            where.append("location_id = ?")
            params.append(query.location_id)
        if query.guild_id is not None:
            where.append("guild_id = ?")
            params.append(query.guild_id)
        if query.challenger_id is not None:
            where.append("challenger_id = ?")
            params.append(query.challenger_id)
        if query.player_id is not None:
            where.append("(white_id = ? OR black_id = ? OR challenger_id = ? OR opponent_id = ?)")
            params.extend([query.player_id] * 4)
        if query.computer_only:
            where.append("computer IS NOT NULL")
        if query.statuses is not None:
            if not query.statuses:
                return []
            where.append(f"status IN ({', '.join('?' for _ in query.statuses)})")
            params.extend(query.statuses)
        sql = f"SELECT {_GAME_COLUMNS} FROM games"
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += " ORDER BY id DESC LIMIT ?"
        params.append(max(0, int(query.limit)))
        rows = await _fetchall(self._conn, sql, tuple(params))
        return [game_from_values(r) for r in rows]

    async def next_due(self, shards: Shards | None = None) -> int | None:
        """The earliest instant (ms) at which some game has something due, or ``None``."""
        if shards is None:
            row = await _fetchone(self._conn, NEXT_DUE_SQL)
        else:
            where, params = _shard_where(shards)
            row = await _fetchone(self._conn, f"{NEXT_DUE_SQL} AND {where}", params)
        return None if row is None or row[0] is None else int(row[0])

    async def due_games(
        self, now_ms: int, limit: int = 100, shards: Shards | None = None
    ) -> list[DueGame]:
        """Games with something due at ``now_ms`` or before, the earliest first."""
        if shards is None:
            rows = await _fetchall(self._conn, DUE_GAMES_SQL, (now_ms, max(1, int(limit))))
        else:
            where, params = _shard_where(shards)
            sql = DUE_GAMES_SQL.replace("ORDER BY", f"AND {where} ORDER BY")
            rows = await _fetchall(self._conn, sql, (now_ms, *params, max(1, int(limit))))
        return [DueGame(int(r[0]), int(r[1])) for r in rows]


class SqliteWriteTx(
    RatingWrites, OutboxWrites, SettingsWrites, AnalysisWrites, TournamentWrites, _Reads
):
    """One ``BEGIN IMMEDIATE`` transaction on the writer connection (``_Begun``)."""

    def __init__(self, begun: _Begun, clock: Clock) -> None:
        super().__init__(begun)
        self._begun = begun
        self._now = clock
        # The game this transaction read last, and how many writes it had sent then: read
        # again before any write, it is the same row (no other connection writes inside
        # BEGIN IMMEDIATE), so an action's append does not read its game a second time.
        self._seen: tuple[GameRow, int] | None = None

    def _saw(self, row: GameRow | None) -> GameRow | None:
        self._seen = None if row is None else (row, self._begun.writes)
        return row

    async def _at_once(
        self, call: Callable[[sqlite3.Connection], T], *, writes: bool, commit: bool = False
    ) -> T:
        """``call``'s statements in one call (``_Begun.run``, or ``read`` if it ``writes``
        nothing: on the loop's thread, or as one trip), their errors as the store's own."""
        begun = self._begun
        try:
            return await (begun.run(call, commit=commit) if writes else begun.read(call))
        except (sqlite3.Error, ValueError) as error:
            raise _translated(error, begun.connection) from error

    async def get_game(self, game_id: int) -> GameRow | None:
        seen = self._seen
        if seen is not None and seen[0].id == game_id and seen[1] == self._begun.writes:
            return seen[0]
        return self._saw(await super().get_game(game_id))

    async def game_by_request(self, request_id: str) -> GameRow | None:
        return await self._game_where("request_id = ?", (request_id,))

    async def _run_many(self, sql: str, params: list[tuple[Any, ...]]) -> None:
        if not params:
            return
        try:
            await self._begun.executemany(sql, params)
        except (sqlite3.Error, ValueError) as error:
            raise _translated(error, self._begun.connection) from error

    async def action_by_request(self, game_id: int, request_id: str) -> ActionRow | None:
        row = await _fetchone(self._conn, _ACTION_BY_REQUEST_SQL, (game_id, request_id))
        return action_from_values(row) if row else None

    async def game_and_request(
        self, game_id: int, request_id: str | None
    ) -> tuple[GameRow | None, ActionRow | None]:
        if request_id is None:
            return await self.get_game(game_id), None

        def both(raw: sqlite3.Connection) -> tuple[list[Any], list[Any]]:
            games = raw.execute(_GAME_BY_ID_SQL, (game_id,)).fetchall()
            actions = raw.execute(_ACTION_BY_REQUEST_SQL, (game_id, request_id)).fetchall()
            return games, actions

        games, actions = await self._at_once(both, writes=False)
        row = self._saw(game_from_values(games[0]) if games else None)
        return row, action_from_values(actions[0]) if actions else None

    async def claim_due(self, game_id: int, now_ms: int) -> GameRow | None:
        """The game, if something of it is due at ``now_ms`` (see ``CLAIM_DUE_WHERE``);
        ``None`` if not, for example because another process has just handled it. What
        the caller then writes in this transaction settles the claim."""
        return await self._game_where(CLAIM_DUE_WHERE, (game_id, now_ms))

    async def insert_game(self, game: NewGame) -> GameRow:
        now = self._now()
        row = await _fetchone(
            self._conn,
            f"INSERT INTO games ({NEW_GAME_COLUMNS}) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
            f"RETURNING {_GAME_COLUMNS}",
            new_game_values(game, now),
        )
        return game_from_values(row)

    async def set_start_rolls(self, game_id: int, rolls: tuple[Roll, ...]) -> None:
        changed = await _run(
            self._conn,
            "UPDATE games SET start_rolls = ?, roll_count = roll_count + ? WHERE id = ?",
            (rolls_json(rolls), len(rolls), game_id),
        )
        if changed != 1:
            raise NotFoundError(f"no game {game_id}")

    async def update_game(self, game_id: int, changes: GameChanges) -> GameRow:
        items = changes.items()
        sets = ", ".join(f"{name} = ?" for name, _ in items)
        params = [value for _, value in items]
        sql = f"UPDATE games SET {sets + ', ' if sets else ''}updated_at = ? WHERE id = ? RETURNING {_GAME_COLUMNS}"
        row = await _fetchone(self._conn, sql, (*params, self._now(), game_id))
        if row is None:
            raise NotFoundError(f"no game {game_id}")
        return game_from_values(row)

    async def append_action(self, action: NewAction) -> ActionRow:
        """Append the entry with its chained digest (``storage.chain``), computed from the
        game as this transaction sees it (``BEGIN IMMEDIATE``: nobody appends meanwhile).
        In a write transaction the entry goes with the next statement, or the ``COMMIT``
        (as on PostgreSQL): its row is returned at once, as the store will hold it (the
        triggers check its roll number, order and counts when it arrives), and a refusal
        (``ConflictError``) comes from that statement, inside the same ``write()``."""
        game = await self.get_game(action.game_id)
        roll_index = game.roll_count if game is not None else 0
        created = self._now()
        digest = entry_digest(
            previous_digest(game, action.seq),
            game_id=action.game_id,
            seq=action.seq,
            kind=action.kind,
            actor_id=action.actor_id,
            text=action.text,
            rolls=action.rolls,
            roll_index=roll_index,
            created_at=created,
        )
        values = tuple(action_values(action, roll_index, created, digest))
        self._begun.later(_INSERT_ACTION_SQL, values)  # a broken rule: ConflictError, later
        return action_from_values(values)

    async def set_board_message(self, game_id: int, channel_id: int, message_id: int) -> None:
        """Remember the game's latest board message (not a change of the game: the
        game's ``updated_at`` stays)."""
        changed = await _run(self._conn, _SET_BOARD_SQL, (channel_id, message_id, game_id))
        if changed != 1:
            raise NotFoundError(f"no game {game_id}")

    async def save_snapshot(self, snapshot: SnapshotRow) -> bool:
        """Keep ``snapshot`` as the game's latest unless a later one is stored already;
        whether it was kept."""
        changed = await _run(
            self._conn,
            "INSERT INTO snapshots (game_id, seq, ply, turns, roll_count, format, data, "
            "created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT (game_id) DO UPDATE SET seq = excluded.seq, ply = excluded.ply, "
            "turns = excluded.turns, roll_count = excluded.roll_count, "
            "format = excluded.format, data = excluded.data, created_at = excluded.created_at "
            "WHERE excluded.seq > snapshots.seq",
            (
                snapshot.game_id,
                snapshot.seq,
                snapshot.ply,
                snapshot.turns,
                snapshot.roll_count,
                snapshot.format,
                snapshot.data,
                self._now(),
            ),
        )
        return changed == 1

    async def upsert_player(self, player_id: int, name: str | None = None) -> None:
        now = self._now()
        await _run(
            self._conn,
            "INSERT INTO players (id, name, created_at, updated_at) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (id) DO UPDATE SET name = COALESCE(excluded.name, players.name), "
            "updated_at = CASE WHEN excluded.name IS NULL THEN players.updated_at "
            "ELSE excluded.updated_at END",
            (player_id, name, now, now),
        )

    # ----- copying a whole store (``storage.transfer``; chessgarden migrate-store) ---------

    async def import_player(self, player: PlayerRow) -> None:
        await _run(
            self._conn,
            "INSERT INTO players (id, name, created_at, updated_at) VALUES (?, ?, ?, ?)",
            (player.id, player.name, player.created_at, player.updated_at),
        )

    async def import_game(self, game: GameRow, actions: list[ActionRow]) -> None:
        """The game with its id and every stored value, then its log in order (the
        triggers count the entries and rolls again, and check their order)."""
        values = _import_values(game)
        try:
            await _run(
                self._conn,
                f"INSERT INTO games ({_GAME_COLUMNS}) VALUES ({', '.join('?' for _ in values)})",
                values,
            )
            for action in actions:
                await _run(
                    self._conn,
                    f"INSERT INTO actions ({_ACTION_COLUMNS}) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        action.game_id,
                        action.seq,
                        action.kind,
                        action.request_id,
                        action.actor_id,
                        action.text,
                        rolls_json(action.rolls),
                        action.roll_index,
                        action.created_at,
                        action.digest,  # as stored: a copy never vouches for a changed log
                    ),
                )
        except StorageError as error:
            if not isinstance(error, StoreUnavailableError | StoreOpenError):
                raise StorageError(f"game {game.id} cannot be copied: {error}") from error
            raise


def _import_values(game: GameRow) -> tuple[Any, ...]:
    """The game's columns in ``_GAME_COLUMNS`` order, its counts at zero entries (the
    log's triggers count them again as the entries are copied)."""
    return (
        game.id,
        game.variant,
        json.dumps(game.options, sort_keys=True),
        game.status,
        game.location_id,
        game.guild_id,
        game.challenger_id,
        game.opponent_id,
        game.challenger_colour,
        game.white_id,
        game.black_id,
        game.result,
        game.result_reason,
        game.draw_offer,
        game.seed,
        game.commitment,
        rolls_json(game.start_rolls),
        0,
        len(game.start_rolls),
        game.board_channel_id,
        game.board_message_id,
        game.request_id,
        game.created_at,
        game.updated_at,
        game.time_days,
        game.clock_side,
        game.turn_started_ms,
        game.deadline_ms,
        game.reminder_ms,
        game.computer,
        game.computer_level,
        game.thinking_seq,
        game.thinking_until_ms,
        1 if game.rated else 0,
        game.finish_order,
        None,  # log_head: the log's trigger keeps it as the entries are copied
        game.takeback_offer,
        game.takeback_seq,
    )


class SqliteRepository(_Reads):
    """The production repository. Open it with ``await SqliteRepository.open(path)``."""

    def __init__(
        self,
        writer: aiosqlite.Connection,
        reader: aiosqlite.Connection,
        path: str,
        clock: Clock,
        checkpointer: aiosqlite.Connection | None = None,
        checkpoint_every: float = CHECKPOINT_EVERY,
        *,
        busy_timeout_ms: int = BUSY_TIMEOUT_MS,
        syncs: WalSync | None = None,
    ) -> None:
        # Without ``syncs`` (a file that cannot use WAL, or memory), the writer's COMMIT
        # syncs by itself (``synchronous = FULL``).
        self._syncs = syncs if syncs is not None else WalSync(None)
        self._commit_syncs = syncs is None
        super().__init__(_Synced(reader, self._syncs))
        self._writer = writer
        self._busy_timeout_ms = busy_timeout_ms
        # A transaction ended (its task cancelled) while a trip of it may still run on
        # the writer's thread: the next one waits for that thread before its statements.
        self._unsettled = False
        self._reader = reader
        self.path = path
        self._now = clock
        self._write_lock = asyncio.Lock()
        self._closed = False
        self._checkpointer = checkpointer
        self._checkpoint_every = checkpoint_every
        self._checkpointing: asyncio.Task[None] | None = None
        if checkpointer is not None:
            self._checkpointing = asyncio.get_running_loop().create_task(self._checkpoints())

    async def _checkpoints(self) -> None:
        """Copy the write-ahead log into the database now and then, off the writer."""
        assert self._checkpointer is not None
        while True:
            await asyncio.sleep(self._checkpoint_every)
            try:
                await self._checkpointer.execute("PRAGMA wal_checkpoint(PASSIVE)")
            except sqlite3.Error as error:  # the writer's own checkpoint is the fallback
                log.warning("background checkpoint failed: %s", error)

    @classmethod
    async def open(
        cls,
        path: str | os.PathLike[str] | None = None,
        *,
        clock: Clock = utc_now,
        busy_timeout_ms: int = BUSY_TIMEOUT_MS,
        checkpoint_every: float | None = CHECKPOINT_EVERY,
    ) -> SqliteRepository:
        """Open (creating if needed) and migrate the database file.

        Raises ``StoreOpenError`` (one line: the file and the cause) when it cannot,
        after closing every connection it made, so that no worker thread is left
        running to keep the process alive. ``checkpoint_every``: seconds between
        background checkpoints (``None``: SQLite's own, inside commits).
        """
        resolved = resolve_db_path(path)
        memory = resolved == ":memory:"
        if not memory:
            check_path(resolved)
        opened: list[aiosqlite.Connection] = []
        try:
            writer = await _connect(resolved, busy_timeout_ms, opened, writer=True)
            if not memory:
                await _enable_wal(writer, busy_timeout_ms)
            await _migrate(writer, resolved)
            reader = writer if memory else await _connect(resolved, busy_timeout_ms, opened)
            if not memory:
                await _fetchone(reader, "SELECT count(*) FROM games")  # readable as well
            # The writer's statements on the loop never wait for a lock: only its BEGIN
            # can meet one, and then it waits on the writer's thread (_Begun).
            await writer.execute("PRAGMA busy_timeout = 0")
            syncs = None
            if not memory and await _in_wal(writer):
                await writer.execute("PRAGMA synchronous = NORMAL")  # see "Durability"
                syncs = WalSync(f"{resolved}-wal")
            checkpointer = None
            if not memory and checkpoint_every is not None:
                await writer.execute(f"PRAGMA wal_autocheckpoint = {AUTOCHECKPOINT_PAGES}")
                checkpointer = await _connect(resolved, busy_timeout_ms, opened)
        except BaseException as error:
            for conn in reversed(opened):
                await close_fully(conn)
            if isinstance(error, StoreOpenError) and "cannot open" in str(error):
                raise
            if isinstance(error, sqlite3.Error | OSError | StorageError):
                cause = error.__cause__ if isinstance(error, StorageError) else error
                words = open_cause(resolved, cause or error)
                is_damaged = isinstance(store_error(cause or error), StoreDamagedError)
                kind = StoreDamagedError if is_damaged else StoreOpenError
                raise kind(f"cannot open the database {resolved}: {words}") from error
            raise
        if checkpointer is None:
            return cls(
                writer, reader, resolved, clock, busy_timeout_ms=busy_timeout_ms, syncs=syncs
            )
        every = float(checkpoint_every or 0)
        return cls(
            writer,
            reader,
            resolved,
            clock,
            checkpointer,
            every,
            busy_timeout_ms=busy_timeout_ms,
            syncs=syncs,
        )

    @asynccontextmanager
    async def write(self, *, durable: bool = True) -> AsyncIterator[SqliteWriteTx]:
        """One write transaction. It returns once what it committed, if ``durable``, and
        every durable commit before it, is synced to the disk (see "Durability")."""
        if self._closed:
            raise StorageError("the repository is closed")
        self._syncs.check()
        async with self._write_lock:
            if self._unsettled:  # queued behind whatever still runs there
                await self._writer.execute("SELECT 1")
                self._unsettled = False
            synced = self._syncs.written  # what this transaction may read: shown after it
            mine = False
            begun = _Begun(
                self._writer,
                commit_syncs=self._commit_syncs,
                busy_timeout_ms=self._busy_timeout_ms,
            )
            try:
                yield SqliteWriteTx(begun, self._now)
                try:
                    await begun.commit()
                except (sqlite3.Error, ValueError) as error:
                    raise _translated(error, self._writer) from error
                if durable and begun.committed:
                    synced, mine = self._syncs.committed(), True
            except BaseException:
                if begun.sent:
                    self._unsettled = True  # until the ROLLBACK, queued behind it, is back
                    with suppress(sqlite3.Error, ValueError):
                        await self._writer.execute("ROLLBACK")
                    self._unsettled = False
                raise
        await self._syncs.durable(synced, mine=mine)  # outside the lock: shared with the others

    async def replace_board_message(
        self,
        game_id: int,
        channel_id: int,
        message_id: int,
        *,
        durable: bool = True,
        settle: tuple[int, int] | None = None,
    ) -> tuple[int, int] | None:

        def replace(raw: sqlite3.Connection) -> list[Any]:
            found = raw.execute(
                "SELECT board_channel_id, board_message_id FROM games WHERE id = ?", (game_id,)
            ).fetchall()
            if found:
                raw.execute(_SET_BOARD_SQL, (channel_id, message_id, game_id))
                if settle is not None:  # the outbox row this message delivers
                    raw.execute(SENT_SQL, (settle[1], message_id, channel_id, settle[0]))
            return found

        # One call with its BEGIN and COMMIT, on the loop's thread: the buttons'
        # bookkeeping of every board posted, under load (module docstring).
        async with self.write(durable=durable) as tx:
            found = await tx._at_once(replace, writes=True, commit=True)
            if not found:
                raise NotFoundError(f"no game {game_id}")
        old_channel, old_message = found[0]
        if old_channel is None or old_message is None:
            return None
        return int(old_channel), int(old_message)

    async def get_player(self, player_id: int) -> PlayerRow | None:
        row = await _fetchone(
            self._conn,
            "SELECT id, name, created_at, updated_at FROM players WHERE id = ?",
            (player_id,),
        )
        return PlayerRow(*tuple(row)) if row else None

    async def list_players(self) -> list[PlayerRow]:
        rows = await _fetchall(
            self._conn, "SELECT id, name, created_at, updated_at FROM players ORDER BY id"
        )
        return [PlayerRow(*tuple(r)) for r in rows]

    async def is_empty(self) -> bool:
        """No player, game or action stored (a target ``migrate-store`` may fill)."""
        row = await _fetchone(
            self._conn,
            "SELECT (SELECT count(*) FROM players) + (SELECT count(*) FROM games) "
            "+ (SELECT count(*) FROM actions)",
        )
        return int(row[0]) == 0

    async def after_import(self) -> None:
        """Nothing to do: AUTOINCREMENT already counts past the copied ids."""

    async def schema_version(self) -> int:
        row = await _fetchone(self._conn, "PRAGMA user_version")
        return int(row[0])

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self._checkpointing is not None:
            self._checkpointing.cancel()
            with suppress(asyncio.CancelledError):
                await self._checkpointing
        if self._checkpointer is not None:
            await _close_quietly(self._checkpointer)
        async with self._write_lock:
            await self._syncs.close()
            if self._reader is not self._writer:
                await _close_quietly(self._reader)
            await _close_quietly(self._writer)


async def _close_quietly(conn: aiosqlite.Connection) -> None:
    """Close one connection; a failure is logged, not raised: what was committed is in
    the file, and closing is the last thing the store does."""
    try:
        await conn.close()
    except (sqlite3.Error, ValueError) as error:
        log.warning("closing the database: %s", store_error(error, conn))


async def _connect(
    path: str, busy_timeout_ms: int, opened: list[aiosqlite.Connection], *, writer: bool = False
) -> aiosqlite.Connection:
    """A connection with our settings, appended to ``opened`` as soon as it exists so
    that the caller can close it whatever fails next. The ``writer``'s statements run on
    the loop's thread as well as on its own (never at once: see "Trips to the writer")."""
    conn = aiosqlite.connect(path, isolation_level=None, check_same_thread=not writer)
    opened.append(conn)  # before awaiting: a failed connect still has a thread to stop
    name_connection(conn, path)
    await conn
    await conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
    await conn.execute("PRAGMA synchronous = FULL")  # see the module docstring
    await conn.execute("PRAGMA foreign_keys = ON")
    return conn


async def _in_wal(conn: aiosqlite.Connection) -> bool:
    """The file is in WAL mode (a file system without shared memory may refuse it)."""
    row = await _fetchone(conn, "PRAGMA journal_mode")
    return row is not None and str(row[0]).lower() == "wal"


async def _enable_wal(conn: aiosqlite.Connection, busy_timeout_ms: int) -> None:
    """Switch the file to WAL. The switch needs the file to itself for a moment, and
    SQLite may answer "database is locked" at once instead of waiting on the busy
    timeout while another process opens the same file, so retry within that timeout."""
    deadline = time.monotonic() + busy_timeout_ms / 1000
    delay = 0.005
    while True:
        try:
            await conn.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or time.monotonic() + delay > deadline:
                raise
        await asyncio.sleep(delay)
        delay = min(delay * 2, 0.2)


async def _migrate(conn: aiosqlite.Connection, path: str) -> None:
    row = await _fetchone(conn, "PRAGMA user_version")
    if int(row[0]) == LATEST_VERSION:
        return
    _check_version(int(row[0]), path)
    # Foreign keys off while tables are rebuilt (the pragma is a no-op inside a
    # transaction); every reference is checked before the migration commits.
    await conn.execute("PRAGMA foreign_keys = OFF")
    try:
        async with _immediate(conn):
            # Read again inside the lock: another process may have migrated meanwhile.
            row = await _fetchone(conn, "PRAGMA user_version")
            version = int(row[0])
            _check_version(version, path)
            await check_tables(conn, version, path)  # not a version set back by hand
            if version == 0:
                # A new file (no table of any version: ``check_tables``): the latest schema
                # at once, as the migrations would leave it with nothing to copy.
                await _apply(conn, path, version, latest_schema())
                await conn.execute(f"PRAGMA user_version = {LATEST_VERSION}")
            else:
                await _run_migrations(conn, path, version)
            broken = await _fetchall(conn, "PRAGMA foreign_key_check")
            if broken:
                raise StoreOpenError(
                    f"cannot open the database {path}: migrating it would break "
                    f"{len(broken)} references (first: {tuple(broken[0])}); nothing was changed"
                )
    finally:
        await conn.execute("PRAGMA foreign_keys = ON")


async def _run_migrations(conn: aiosqlite.Connection, path: str, version: int) -> None:
    """Each migration after ``version`` in turn, in the caller's transaction."""
    for number in range(version + 1, LATEST_VERSION + 1):
        await _apply(conn, path, version, MIGRATIONS[number - 1])
        await conn.execute(f"PRAGMA user_version = {number}")


async def _apply(
    conn: aiosqlite.Connection, path: str, version: int, statements: Iterable[str]
) -> None:
    """Run schema ``statements`` on a file at ``version``; a statement the file's own
    tables refuse is the store's one-line ``migration_failed``."""
    for statement in statements:
        try:
            if statement == FILL_LOG_DIGESTS:
                await _fill_log_digests(conn)
            else:
                await conn.execute(statement)
        except sqlite3.Error as error:
            if _refused_by_tables(error):
                raise migration_failed(path, version, error) from error
            raise


async def _fill_log_digests(conn: aiosqlite.Connection) -> None:
    """Migration 9's step that SQL cannot do: every stored entry's chained digest
    (``storage.chain.fill_digests``), a few hundred games at a time."""
    after = 0
    while True:
        games = await _fetchall(
            conn,
            f"SELECT {ROOT_COLUMNS} FROM games WHERE id > ? ORDER BY id LIMIT ?",
            (after, FILL_GAMES),
        )
        if not games:
            break
        first, after = int(games[0][0]), int(games[-1][0])
        entries = await _fetchall(
            conn,
            f"SELECT {ENTRY_COLUMNS} FROM actions WHERE game_id BETWEEN ? AND ? "
            "ORDER BY game_id, seq",
            (first, after),
        )
        await conn.executemany(
            "UPDATE actions SET digest = ? WHERE game_id = ? AND seq = ?",
            fill_digests(games, entries),
        )
    orphans = await _fetchall(conn, ORPHAN_ENTRIES)
    await conn.executemany(
        "UPDATE actions SET digest = ? WHERE game_id = ? AND seq = ?", fill_digests([], orphans)
    )


def _refused_by_tables(error: sqlite3.Error) -> bool:
    """A migration statement refused because the tables are not what it expects (a
    column or table already there, or missing), rather than a disk or a lock."""
    return type(store_error(error)) in (StorageError, SchemaError)


def _check_version(version: int, path: str) -> None:
    if version > LATEST_VERSION:
        raise SchemaError(
            f"cannot open the database {path}: it was written by a newer "
            f"Chess Garden (schema version {version}; this code knows up to "
            f"{LATEST_VERSION}); upgrade Chess Garden"
        )


@asynccontextmanager
async def _immediate(conn: aiosqlite.Connection) -> AsyncIterator[None]:
    """One ``BEGIN IMMEDIATE`` transaction: committed when the block ends normally; rolled
    back when the block or the ``COMMIT`` raises (the error then goes on)."""
    await _run(conn, "BEGIN IMMEDIATE")
    try:
        yield
        await _run(conn, "COMMIT")
    except BaseException:
        with suppress(sqlite3.Error, ValueError):
            await conn.execute("ROLLBACK")
        raise
