"""The outbox (issue 24): every message the bot owes a channel is a row, written in the
same transaction as the action that owes it, and delivered until Discord confirms.

A row is ``pending`` until a delivery settles it: ``sent`` (with the message id Discord
gave it) or ``failed`` (a permanent refusal: the channel is gone, or the bot may not post
there; ``error`` says why). ``due_ms`` is when it may be tried next; claiming a row moves
it a lease into the future, so a process that dies while delivering leaves it to be tried
again once the lease runs out, by whichever process claims it then. The message's
``nonce`` (``nonce_of``) is the same at every try, and Discord's ``enforce_nonce`` makes a
retry after an unknown outcome return the message the first try made instead of posting a
second one.

Order: a channel's rows are delivered one at a time, in the order they were owed. A row
is claimable only when no earlier row of its channel is still pending (``CLAIM_SQL``), so
a reminder never overtakes the board it points to, on one process or many. PostgreSQL
skips rows another transaction has locked (``FOR UPDATE SKIP LOCKED``); SQLite's single
writer serialises the claims.

The SQL is shared by both stores (``?`` marks; PostgreSQL's store numbers them), as
``storage.standings`` is: one text, one codec.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal

from storage.models import Shards

OutboxState = Literal["pending", "sent", "failed"]
OUTBOX_STATES: tuple[OutboxState, ...] = ("pending", "sent", "failed")
NONCE_PREFIX = "cg-o"  # Discord allows nonces of up to 25 characters


def nonce_of(outbox_id: int) -> str:
    """The Discord message nonce of a row: the same at every delivery attempt."""
    return f"{NONCE_PREFIX}{outbox_id}"


@dataclass(frozen=True)
class NewPost:
    """A message owed to a channel, as the action that owes it writes it.

    ``kind`` names what to post (the Discord layer builds the message from it and the
    game); ``seq`` is the game's log length when it was owed, so the message describes
    exactly that moment; ``payload`` holds anything the game cannot tell later."""

    channel_id: int
    kind: str
    game_id: int | None = None
    guild_id: int | None = None
    seq: int | None = None
    payload: dict[str, Any] = field(default_factory=dict)
    delay_ms: int = 0  # not before this many ms from now (a post another path may make)


@dataclass(frozen=True)
class OutboxRow:
    id: int
    game_id: int | None
    guild_id: int | None
    channel_id: int
    kind: str
    seq: int | None
    payload: dict[str, Any]
    state: OutboxState
    due_ms: int | None
    attempts: int
    created_ms: int
    settled_ms: int | None
    message_id: int | None
    error: str | None

    @property
    def nonce(self) -> str:
        return nonce_of(self.id)


_COLUMNS = (
    "id, game_id, guild_id, channel_id, kind, seq, payload, state, due_ms, attempts, "
    "created_ms, settled_ms, message_id, error"
)

INSERT_SQL = (
    "INSERT INTO outbox (game_id, guild_id, channel_id, kind, seq, payload, state, due_ms, "
    "attempts, created_ms) VALUES (?, ?, ?, ?, ?, ?, 'pending', ?, 0, ?) RETURNING id"
)
# The first pending row of each channel that is due, oldest first. ``{lock}``: PostgreSQL
# adds ``FOR UPDATE SKIP LOCKED``; ``{shards}``: an optional filter on the guild's shard.
CLAIM_SQL = (
    "UPDATE outbox SET due_ms = ?, attempts = attempts + 1 WHERE id IN ("
    "SELECT o.id FROM outbox o WHERE o.state = 'pending' AND o.due_ms <= ?{shards} "
    "AND NOT EXISTS (SELECT 1 FROM outbox e WHERE e.channel_id = o.channel_id "
    "AND e.state = 'pending' AND e.id < o.id) "
    "ORDER BY o.due_ms, o.id LIMIT ?{lock}"
    f") RETURNING {_COLUMNS}"
)
NEXT_DUE_SQL = "SELECT MIN(due_ms) FROM outbox WHERE state = 'pending'"
SENT_SQL = (
    "UPDATE outbox SET state = 'sent', due_ms = NULL, settled_ms = ?, message_id = ?, "
    "channel_id = ?, error = NULL WHERE id = ? AND state = 'pending'"
)
FAILED_SQL = (
    "UPDATE outbox SET state = 'failed', due_ms = NULL, settled_ms = ?, error = ? "
    "WHERE id = ? AND state = 'pending'"
)
RETRY_SQL = "UPDATE outbox SET due_ms = ?, error = ? WHERE id = ? AND state = 'pending'"
DEPTH_SQL = (
    "SELECT (SELECT COUNT(*) FROM outbox WHERE state = 'pending'), "
    "(SELECT COUNT(*) FROM outbox WHERE state = 'failed')"
)
ROWS_OF_GAME_SQL = f"SELECT {_COLUMNS} FROM outbox WHERE game_id = ? ORDER BY id"
FAILED_OF_GAMES_SQL = (
    f"SELECT {_COLUMNS} FROM outbox WHERE state = 'failed' AND game_id IN ({{marks}}) ORDER BY id"
)
# A moderator moved the game (``relocate``): its failed rows are owed again, there.
REOWE_SQL = (
    "UPDATE outbox SET state = 'pending', due_ms = ?, channel_id = ?, settled_ms = NULL, "
    "attempts = 0 WHERE game_id = ? AND state = 'failed' RETURNING id"
)
PRUNE_SQL = "DELETE FROM outbox WHERE state = 'sent' AND settled_ms < ? RETURNING id"


def shard_clause(shards: Shards | None) -> tuple[str, tuple[int, ...]]:
    """Rows whose guild is on ``shards`` (Discord's rule, as for deadlines)."""
    if shards is None:
        return "", ()
    marks = ", ".join("?" for _ in shards.ids)
    return (
        f" AND (COALESCE(o.guild_id / 4194304, 0) % ?) IN ({marks})",
        (shards.count, *shards.ids),
    )


def outbox_from_row(row: Any) -> OutboxRow:
    values = tuple(row)
    payload = values[6]
    return OutboxRow(
        id=int(values[0]),
        game_id=values[1],
        guild_id=values[2],
        channel_id=int(values[3]),
        kind=values[4],
        seq=values[5],
        payload=json.loads(payload) if payload else {},
        state=values[7],
        due_ms=values[8],
        attempts=int(values[9]),
        created_ms=int(values[10]),
        settled_ms=values[11],
        message_id=values[12],
        error=values[13],
    )


def insert_params(post: NewPost, now_ms: int) -> tuple[Any, ...]:
    return (
        post.game_id,
        post.guild_id,
        post.channel_id,
        post.kind,
        post.seq,
        json.dumps(post.payload, sort_keys=True, separators=(",", ":")),
        now_ms + max(0, post.delay_ms),
        now_ms,
    )


class OutboxReads:
    """Outbox reads, on the repository (a committed snapshot) and in a transaction."""

    async def _rows(self, sql: str, params: tuple[Any, ...] = ()) -> list[Any]:
        raise NotImplementedError

    async def outbox_next_due(self) -> int | None:
        rows = await self._rows(NEXT_DUE_SQL)
        return None if not rows or rows[0][0] is None else int(rows[0][0])

    async def outbox_depth(self) -> tuple[int, int]:
        """``(pending, failed)`` row counts."""
        rows = await self._rows(DEPTH_SQL)
        return int(rows[0][0]), int(rows[0][1])

    async def outbox_of_game(self, game_id: int) -> list[OutboxRow]:
        return [outbox_from_row(r) for r in await self._rows(ROWS_OF_GAME_SQL, (game_id,))]

    async def outbox_failures(self, game_ids: list[int]) -> list[OutboxRow]:
        """The failed rows of these games (the newest last)."""
        if not game_ids:
            return []
        marks = ", ".join("?" for _ in game_ids)
        sql = FAILED_OF_GAMES_SQL.replace("{marks}", marks)
        return [outbox_from_row(r) for r in await self._rows(sql, tuple(game_ids))]


class OutboxWrites(OutboxReads):
    """Outbox writes inside a write transaction. ``_claim_lock`` is PostgreSQL's row lock."""

    _claim_lock = ""

    async def owe(self, post: NewPost, now_ms: int) -> int:
        """Write a message owed to a channel; its row id. In the caller's transaction:
        it is owed if and only if the action that owes it commits."""
        rows = await self._rows(INSERT_SQL, insert_params(post, now_ms))
        return int(rows[0][0])

    async def claim_outbox(
        self, now_ms: int, lease_ms: int, limit: int, shards: Shards | None = None
    ) -> list[OutboxRow]:
        """Due rows (the first pending one of each channel), each leased until
        ``now_ms + lease_ms``: nobody else claims them meanwhile."""
        where, params = shard_clause(shards)
        sql = CLAIM_SQL.format(shards=where, lock=self._claim_lock)
        rows = await self._rows(sql, (now_ms + lease_ms, now_ms, *params, max(1, limit)))
        return sorted((outbox_from_row(r) for r in rows), key=lambda r: r.id)

    async def outbox_sent(
        self, outbox_id: int, channel_id: int, message_id: int | None, now_ms: int
    ) -> None:
        await self._rows(SENT_SQL, (now_ms, message_id, channel_id, outbox_id))

    async def outbox_failed(self, outbox_id: int, reason: str, now_ms: int) -> None:
        await self._rows(FAILED_SQL, (now_ms, reason[:500], outbox_id))

    async def outbox_retry(self, outbox_id: int, at_ms: int, reason: str) -> None:
        await self._rows(RETRY_SQL, (at_ms, reason[:500], outbox_id))

    async def outbox_reowe(self, game_id: int, channel_id: int, now_ms: int) -> int:
        """Owe a game's failed rows again, in ``channel_id``; how many."""
        rows = await self._rows(REOWE_SQL, (now_ms, channel_id, game_id))
        return len(rows)

    async def outbox_prune(self, before_ms: int) -> int:
        """Forget delivered rows settled before ``before_ms``; how many."""
        return len(await self._rows(PRUNE_SQL, (before_ms,)))
