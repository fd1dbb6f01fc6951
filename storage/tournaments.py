"""Tournaments in the store (issue 30): the tournament, its players, its rounds, its
boards (each a game of the ``games`` table, or a forfeit without one) and its log.

- ``tournaments``: one row per tournament: where (guild, channel), what (variant, format,
  rounds, days per move, rated), when it starts (``starts_ms``), its ``status``
  (``registration``, ``running``, ``finished``, ``cancelled``), who made it, and its
  ``settings`` (a JSON object fixed at creation: the bye's worth, a round's length, ...);
- ``tournament_players``: who joined, and what became of them (``left`` before the start,
  ``withdrawn``, ``removed`` by a moderator; ``out_from``: the first round they are not
  paired in), their rating and seed number fixed at the start, and their timeouts;
- ``tournament_rounds``: one row per paired round (the key ``(tournament_id, number)``
  makes a second pairing of the same round impossible), its bye, its deadline, and
  ``status`` (``playing`` until its results are recorded, then ``done``);
- ``tournament_games``: the boards of each round: White, Black, the game that plays it
  (``game_id``; none for a forfeit decided without playing), and its ``result`` once the
  round is over (``ending`` says how it was decided);
- ``tournament_log``: who did what, append-only (triggers refuse an update or a delete).

**Claiming.** Something of a tournament is *due* when its registration has closed (a
``registration`` row whose ``starts_ms`` has passed), or when its round in play is over
(every game of the round has ended, or the round's ``deadline_ms`` has passed).
``WriteTx.claim_tournament`` re-reads one tournament inside the write transaction and
returns it only if it is still due, as ``claim_due`` does for games: whatever the caller
then writes (the round closed and the next one paired, the tournament started or
finished) makes it no longer due, so two processes that both saw it due handle it once.
SQLite serialises the two transactions (``BEGIN IMMEDIATE``); PostgreSQL locks the
tournament row (``FOR UPDATE SKIP LOCKED``: the second process skips it).

The SQL is shared by both stores (``?`` marks; PostgreSQL's store numbers them), as
``storage.outbox`` and ``storage.settings`` are.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from storage.models import Shards

TournamentStatus = Literal["registration", "running", "finished", "cancelled"]
LIVE_TOURNAMENT: tuple[TournamentStatus, ...] = ("registration", "running")
PlayerStatus = Literal["joined", "left", "withdrawn", "removed"]


@dataclass(frozen=True)
class TournamentRow:
    id: int
    guild_id: int
    channel_id: int
    name: str
    variant: str
    format: str
    rounds: int
    days: int
    rated: bool
    starts_ms: int
    status: TournamentStatus
    created_by: int
    settings: dict[str, Any]
    current_round: int
    winner_id: int | None
    created_at: str
    updated_at: str

    @property
    def is_live(self) -> bool:
        return self.status in LIVE_TOURNAMENT


@dataclass(frozen=True)
class NewTournament:
    guild_id: int
    channel_id: int
    name: str
    variant: str
    format: str
    rounds: int
    days: int
    rated: bool
    starts_ms: int
    created_by: int
    settings: dict[str, Any]


@dataclass(frozen=True)
class TournamentPlayerRow:
    tournament_id: int
    player_id: int
    name: str | None
    status: PlayerStatus
    rating: float | None
    seed_no: int | None
    out_from: int | None
    timeouts: int
    joined_at: str

    def plays_in(self, round_no: int) -> bool:
        """Whether the player is paired in round ``round_no`` (once the tournament runs)."""
        if self.status == "left":
            return False
        return self.out_from is None or round_no < self.out_from


@dataclass(frozen=True)
class RoundRow:
    tournament_id: int
    number: int
    status: Literal["playing", "done"]
    bye_id: int | None
    bye_points: float
    compromises: tuple[str, ...]
    started_ms: int
    deadline_ms: int
    ended_ms: int | None


@dataclass(frozen=True)
class BoardRow:
    """One board of a round. ``result`` is ``None`` while it is played, and stays ``None``
    for a game that ended with no result (aborted by a moderator): both players then
    miss the round. ``forfeit``: decided without being played over the board."""

    tournament_id: int
    round: int
    board: int
    white_id: int
    black_id: int
    game_id: int | None
    result: str | None
    forfeit: bool
    ending: str | None


@dataclass(frozen=True)
class TournamentLogRow:
    id: int
    tournament_id: int
    actor_id: int | None  # None: the bot itself (the scheduler)
    action: str
    player_id: int | None
    detail: str
    created_at: str


_T_COLUMNS = (
    "id, guild_id, channel_id, name, variant, format, rounds, days, rated, starts_ms, status, "
    "created_by, settings, current_round, winner_id, created_at, updated_at"
)
_P_COLUMNS = (
    "tournament_id, player_id, name, status, rating, seed_no, out_from, timeouts, joined_at"
)
_R_COLUMNS = (
    "tournament_id, number, status, bye_id, bye_points, compromises, started_ms, deadline_ms, "
    "ended_ms"
)
_B_COLUMNS = "tournament_id, round, board, white_id, black_id, game_id, result, forfeit, ending"
_L_COLUMNS = "id, tournament_id, actor_id, action, player_id, detail, created_at"

INSERT_TOURNAMENT_SQL = (
    "INSERT INTO tournaments (guild_id, channel_id, name, variant, format, rounds, days, rated, "
    "starts_ms, status, created_by, settings, current_round, created_at, updated_at) "
    f"VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'registration', ?, ?, 0, ?, ?) RETURNING {_T_COLUMNS}"
)
TOURNAMENT_SQL = f"SELECT {_T_COLUMNS} FROM tournaments WHERE id = ?"
OF_GUILD_SQL = (
    f"SELECT {_T_COLUMNS} FROM tournaments WHERE guild_id = ? AND status IN ({{marks}}) "
    "ORDER BY id DESC LIMIT ?"
)
UPDATE_TOURNAMENT_SQL = "UPDATE tournaments SET {sets}, updated_at = ? WHERE id = ?"
PLAYERS_SQL = (
    f"SELECT {_P_COLUMNS} FROM tournament_players WHERE tournament_id = ? "
    "ORDER BY joined_at, player_id"
)
PLAYER_SQL = (
    f"SELECT {_P_COLUMNS} FROM tournament_players WHERE tournament_id = ? AND player_id = ?"
)
JOIN_SQL = (
    "INSERT INTO tournament_players (tournament_id, player_id, name, status, timeouts, "
    "joined_at, updated_at) VALUES (?, ?, ?, 'joined', 0, ?, ?) "
    "ON CONFLICT (tournament_id, player_id) DO UPDATE SET status = 'joined', "
    "name = excluded.name, joined_at = excluded.joined_at, updated_at = excluded.updated_at"
)
UPDATE_PLAYER_SQL = (
    "UPDATE tournament_players SET {sets}, updated_at = ? WHERE tournament_id = ? AND player_id = ?"
)
COUNT_JOINED_SQL = (
    "SELECT COUNT(*) FROM tournament_players WHERE tournament_id = ? AND status = 'joined'"
)
ROUNDS_SQL = f"SELECT {_R_COLUMNS} FROM tournament_rounds WHERE tournament_id = ? ORDER BY number"
INSERT_ROUND_SQL = (
    f"INSERT INTO tournament_rounds ({_R_COLUMNS}) VALUES (?, ?, 'playing', ?, ?, ?, ?, ?, NULL)"
)
CLOSE_ROUND_SQL = (
    "UPDATE tournament_rounds SET status = 'done', ended_ms = ? "
    "WHERE tournament_id = ? AND number = ? AND status = 'playing'"
)
BOARDS_SQL = (
    f"SELECT {_B_COLUMNS} FROM tournament_games WHERE tournament_id = ? ORDER BY round, board"
)
BOARD_OF_GAME_SQL = f"SELECT {_B_COLUMNS} FROM tournament_games WHERE game_id = ?"
INSERT_BOARD_SQL = f"INSERT INTO tournament_games ({_B_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
RESULT_SQL = (
    "UPDATE tournament_games SET result = ?, forfeit = ?, ending = ? "
    "WHERE tournament_id = ? AND round = ? AND board = ?"
)
LOG_SQL = (
    "INSERT INTO tournament_log (tournament_id, actor_id, action, player_id, detail, created_at) "
    "VALUES (?, ?, ?, ?, ?, ?)"
)
READ_LOG_SQL = (
    f"SELECT {_L_COLUMNS} FROM tournament_log WHERE tournament_id = ? ORDER BY id LIMIT ?"
)
# A tournament game still at its placeholder moves to its thread, with the posts it owes.
MOVE_POSTS_SQL = (
    "UPDATE outbox SET channel_id = ?, state = 'pending', settled_ms = NULL, error = NULL "
    "WHERE game_id = ? AND channel_id = ? AND state IN ('pending', 'failed')"
)

# What is due (see the module): registration closed, or the round in play over.
_ROUND_OVER = (
    "r.status = 'playing' AND (r.deadline_ms <= ? OR NOT EXISTS ("
    "SELECT 1 FROM tournament_games b JOIN games g ON g.id = b.game_id "
    "WHERE b.tournament_id = r.tournament_id AND b.round = r.number "
    "AND g.status IN ('challenge', 'active')))"
)
DUE_SQL = (
    "SELECT t.id FROM tournaments t WHERE t.status = 'registration' AND t.starts_ms <= ?{shards} "
    "UNION SELECT t.id FROM tournaments t JOIN tournament_rounds r "
    "ON r.tournament_id = t.id AND r.number = t.current_round "
    f"WHERE t.status = 'running' AND {_ROUND_OVER}{{shards}} ORDER BY 1 LIMIT ?"
)
CLAIM_SQL = f"SELECT {_T_COLUMNS} FROM tournaments WHERE id = ?{{lock}}"
STILL_DUE_SQL = (
    "SELECT 1 FROM tournaments t WHERE t.id = ? AND ((t.status = 'registration' "
    "AND t.starts_ms <= ?) OR (t.status = 'running' AND EXISTS (SELECT 1 FROM "
    f"tournament_rounds r WHERE r.tournament_id = t.id AND r.number = t.current_round AND "
    f"{_ROUND_OVER})))"
)
NEXT_TIMES_SQL = (
    "SELECT (SELECT MIN(starts_ms) FROM tournaments t WHERE status = 'registration'{shards}), "
    "(SELECT MIN(r.deadline_ms) FROM tournament_rounds r JOIN tournaments t "
    "ON t.id = r.tournament_id WHERE r.status = 'playing'{shards})"
)


def shard_clause(shards: Shards | None) -> tuple[str, tuple[int, ...]]:
    """Tournaments whose guild is on ``shards`` (Discord's rule, as for deadlines)."""
    if shards is None:
        return "", ()
    marks = ", ".join("?" for _ in shards.ids)
    return f" AND (t.guild_id / 4194304) % ? IN ({marks})", (shards.count, *shards.ids)


def _dump(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def tournament_from_row(row: Any) -> TournamentRow:
    v = tuple(row)
    return TournamentRow(
        id=int(v[0]),
        guild_id=int(v[1]),
        channel_id=int(v[2]),
        name=str(v[3]),
        variant=str(v[4]),
        format=str(v[5]),
        rounds=int(v[6]),
        days=int(v[7]),
        rated=bool(v[8]),
        starts_ms=int(v[9]),
        status=v[10],
        created_by=int(v[11]),
        settings=dict(json.loads(v[12] or "{}")),
        current_round=int(v[13]),
        winner_id=None if v[14] is None else int(v[14]),
        created_at=str(v[15]),
        updated_at=str(v[16]),
    )


def player_from_row(row: Any) -> TournamentPlayerRow:
    v = tuple(row)
    return TournamentPlayerRow(
        tournament_id=int(v[0]),
        player_id=int(v[1]),
        name=v[2],
        status=v[3],
        rating=None if v[4] is None else float(v[4]),
        seed_no=None if v[5] is None else int(v[5]),
        out_from=None if v[6] is None else int(v[6]),
        timeouts=int(v[7]),
        joined_at=str(v[8]),
    )


def round_from_row(row: Any) -> RoundRow:
    v = tuple(row)
    return RoundRow(
        tournament_id=int(v[0]),
        number=int(v[1]),
        status=v[2],
        bye_id=None if v[3] is None else int(v[3]),
        bye_points=float(v[4]),
        compromises=tuple(c for c in str(v[5] or "").split(",") if c),
        started_ms=int(v[6]),
        deadline_ms=int(v[7]),
        ended_ms=None if v[8] is None else int(v[8]),
    )


def board_from_row(row: Any) -> BoardRow:
    v = tuple(row)
    return BoardRow(
        tournament_id=int(v[0]),
        round=int(v[1]),
        board=int(v[2]),
        white_id=int(v[3]),
        black_id=int(v[4]),
        game_id=None if v[5] is None else int(v[5]),
        result=v[6],
        forfeit=bool(v[7]),
        ending=v[8],
    )


def log_from_row(row: Any) -> TournamentLogRow:
    v = tuple(row)
    return TournamentLogRow(
        id=int(v[0]),
        tournament_id=int(v[1]),
        actor_id=None if v[2] is None else int(v[2]),
        action=str(v[3]),
        player_id=None if v[4] is None else int(v[4]),
        detail=str(v[5]),
        created_at=str(v[6]),
    )


# Columns a caller may change with ``update_tournament`` / ``update_player``.
TOURNAMENT_CHANGES = (
    "status",
    "rounds",
    "current_round",
    "winner_id",
    "settings",
    "starts_ms",
)
PLAYER_CHANGES = ("status", "rating", "seed_no", "out_from", "timeouts", "name")


class TournamentReads:
    """Tournament reads, on the repository (a committed snapshot) and in a transaction."""

    async def _rows(self, sql: str, params: tuple[Any, ...] = ()) -> list[Any]:
        raise NotImplementedError

    async def tournament(self, tournament_id: int) -> TournamentRow | None:
        rows = await self._rows(TOURNAMENT_SQL, (tournament_id,))
        return tournament_from_row(rows[0]) if rows else None

    async def tournaments_of_guild(
        self, guild_id: int, statuses: Sequence[str], limit: int = 25
    ) -> list[TournamentRow]:
        """A server's tournaments in these states, the newest first."""
        if not statuses:
            return []
        sql = OF_GUILD_SQL.replace("{marks}", ", ".join("?" for _ in statuses))
        rows = await self._rows(sql, (guild_id, *statuses, max(1, limit)))
        return [tournament_from_row(r) for r in rows]

    async def tournament_players(self, tournament_id: int) -> list[TournamentPlayerRow]:
        return [player_from_row(r) for r in await self._rows(PLAYERS_SQL, (tournament_id,))]

    async def tournament_player(
        self, tournament_id: int, player_id: int
    ) -> TournamentPlayerRow | None:
        rows = await self._rows(PLAYER_SQL, (tournament_id, player_id))
        return player_from_row(rows[0]) if rows else None

    async def tournament_rounds(self, tournament_id: int) -> list[RoundRow]:
        return [round_from_row(r) for r in await self._rows(ROUNDS_SQL, (tournament_id,))]

    async def tournament_boards(self, tournament_id: int) -> list[BoardRow]:
        return [board_from_row(r) for r in await self._rows(BOARDS_SQL, (tournament_id,))]

    async def board_of_game(self, game_id: int) -> BoardRow | None:
        """The tournament board a game plays, if it plays one."""
        rows = await self._rows(BOARD_OF_GAME_SQL, (game_id,))
        return board_from_row(rows[0]) if rows else None

    async def tournament_log(self, tournament_id: int, limit: int = 1000) -> list[TournamentLogRow]:
        """A tournament's log, the oldest first."""
        rows = await self._rows(READ_LOG_SQL, (tournament_id, max(1, limit)))
        return [log_from_row(r) for r in rows]

    async def due_tournaments(
        self, now_ms: int, limit: int = 100, shards: Shards | None = None
    ) -> list[int]:
        """Tournaments with something due at ``now_ms`` (see the module)."""
        where, params = shard_clause(shards)
        sql = DUE_SQL.replace("{shards}", where)
        rows = await self._rows(sql, (now_ms, *params, now_ms, *params, max(1, limit)))
        return [int(r[0]) for r in rows]

    async def next_tournament_time(self, shards: Shards | None = None) -> int | None:
        """The earliest start or round deadline of any tournament (``None``: none)."""
        where, params = shard_clause(shards)
        sql = NEXT_TIMES_SQL.replace("{shards}", where)
        rows = await self._rows(sql, (*params, *params))
        times = [int(t) for t in rows[0] if t is not None] if rows else []
        return min(times) if times else None


class TournamentWrites(TournamentReads):
    """Tournament writes inside one write transaction. ``_tournament_lock`` and
    ``_tournament_claim_lock``: PostgreSQL's row locks (SQLite's single writer needs none)."""

    _now: Callable[[], str]
    _tournament_lock = ""
    _tournament_claim_lock = ""

    async def _tournament_advisory(self, key: str) -> None:
        """PostgreSQL: a lock held to the end of the transaction (SQLite: nothing)."""

    async def insert_tournament(self, new: NewTournament) -> TournamentRow:
        now = self._now()
        rows = await self._rows(
            INSERT_TOURNAMENT_SQL,
            (
                new.guild_id,
                new.channel_id,
                new.name,
                new.variant,
                new.format,
                new.rounds,
                new.days,
                1 if new.rated else 0,
                new.starts_ms,
                new.created_by,
                _dump(new.settings),
                now,
                now,
            ),
        )
        return tournament_from_row(rows[0])

    async def lock_guild_tournaments(self, guild_id: int) -> None:
        """Serialise the creations in one server (the limit of live tournaments counts)."""
        await self._tournament_advisory(f"tournaments:{guild_id}")

    async def tournament_for_update(self, tournament_id: int) -> TournamentRow | None:
        """The tournament, locked for this transaction (PostgreSQL: ``FOR UPDATE``)."""
        rows = await self._rows(
            CLAIM_SQL.replace("{lock}", self._tournament_lock), (tournament_id,)
        )
        return tournament_from_row(rows[0]) if rows else None

    async def claim_tournament(self, tournament_id: int, now_ms: int) -> TournamentRow | None:
        """The tournament if something of it is due at ``now_ms``, locked for this
        transaction; ``None`` if not, or if another transaction holds it (see the module)."""
        rows = await self._rows(
            CLAIM_SQL.replace("{lock}", self._tournament_claim_lock), (tournament_id,)
        )
        if not rows:
            return None
        if not await self._rows(STILL_DUE_SQL, (tournament_id, now_ms, now_ms)):
            return None
        return tournament_from_row(rows[0])

    async def update_tournament(self, tournament_id: int, **changes: Any) -> TournamentRow:
        bad = [name for name in changes if name not in TOURNAMENT_CHANGES]
        if bad:
            raise ValueError(f"cannot change a tournament's {bad[0]}")
        values = [_dump(v) if k == "settings" else v for k, v in changes.items()]
        sets = ", ".join(f"{name} = ?" for name in changes)
        await self._rows(
            UPDATE_TOURNAMENT_SQL.replace("{sets}", sets),
            (*values, self._now(), tournament_id),
        )
        row = await self.tournament(tournament_id)
        assert row is not None
        return row

    async def join_tournament(self, tournament_id: int, player_id: int, name: str | None) -> None:
        now = self._now()
        await self._rows(JOIN_SQL, (tournament_id, player_id, name, now, now))

    async def update_tournament_player(
        self, tournament_id: int, player_id: int, **changes: Any
    ) -> None:
        bad = [name for name in changes if name not in PLAYER_CHANGES]
        if bad:
            raise ValueError(f"cannot change a tournament player's {bad[0]}")
        sets = ", ".join(f"{name} = ?" for name in changes)
        await self._rows(
            UPDATE_PLAYER_SQL.replace("{sets}", sets),
            (*changes.values(), self._now(), tournament_id, player_id),
        )

    async def count_joined(self, tournament_id: int) -> int:
        rows = await self._rows(COUNT_JOINED_SQL, (tournament_id,))
        return int(rows[0][0])

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
    ) -> None:
        """A new round in play. The key refuses a second row for the same round."""
        await self._rows(
            INSERT_ROUND_SQL,
            (
                tournament_id,
                number,
                bye_id,
                bye_points,
                ",".join(compromises),
                started_ms,
                deadline_ms,
            ),
        )

    async def close_round(self, tournament_id: int, number: int, now_ms: int) -> None:
        await self._rows(CLOSE_ROUND_SQL, (now_ms, tournament_id, number))

    async def insert_board(self, board: BoardRow) -> None:
        await self._rows(
            INSERT_BOARD_SQL,
            (
                board.tournament_id,
                board.round,
                board.board,
                board.white_id,
                board.black_id,
                board.game_id,
                board.result,
                1 if board.forfeit else 0,
                board.ending,
            ),
        )

    async def set_board_result(
        self,
        tournament_id: int,
        round_no: int,
        board: int,
        result: str | None,
        forfeit: bool,
        ending: str,
    ) -> None:
        await self._rows(
            RESULT_SQL, (result, 1 if forfeit else 0, ending, tournament_id, round_no, board)
        )

    async def log_tournament(
        self,
        tournament_id: int,
        action: str,
        *,
        actor_id: int | None = None,
        player_id: int | None = None,
        detail: str = "",
    ) -> None:
        await self._rows(LOG_SQL, (tournament_id, actor_id, action, player_id, detail, self._now()))

    async def move_game_posts(self, game_id: int, from_channel: int, to_channel: int) -> int:
        """A game's posts owed to ``from_channel`` (not yet delivered) go to ``to_channel``."""
        rows = await self._rows(
            MOVE_POSTS_SQL + " RETURNING id", (to_channel, game_id, from_channel)
        )
        return len(rows)
