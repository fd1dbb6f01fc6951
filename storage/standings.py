"""Ratings in the store (issue 15): the rows, and the SQL behind the leaderboard, the
profile, the rating of a finished game and ``chessgarden ratings rebuild``.

Ratings are a projection of the finished games: ``ratings`` holds each player's current
rating per scope (a server's guild id, or ``GLOBAL_SCOPE``) and variant, and
``rating_changes`` what each rated game did to each player. Both can be thrown away and
recomputed from ``games`` (``finished_games`` reads them in the order they finished).

Query plans (a test asks SQLite for them): the top of a leaderboard walks the index
``ratings_board`` (scope, variant, rating DESC, player_id) and stops after N rows; a
player's rank counts the index range above theirs; a profile reads
``ratings_by_player`` (player_id, scope, variant) and, per variant, the newest entries of
``rating_changes_by_player``. None of them reads a whole table.
"""

from __future__ import annotations

from typing import Any

from storage.models import RatingChangeRow, RatingRow
from storage.repository import NotFoundError

GLOBAL_SCOPE = 0  # the ``scope`` of a global rating; a server's ratings use its guild id

_RATING_COLUMNS = (
    "r.scope, r.variant, r.player_id, r.rating, r.rd, r.volatility, r.games, r.wins, "
    "r.draws, r.losses, r.last_ms, r.last_game_id, p.name"
)
_CHANGE_COLUMNS = (
    "game_id, scope, player_id, variant, finish_order, opponent_id, score, rating_before, "
    "rd_before, volatility_before, rating_after, rd_after, volatility_after"
)

LEADERBOARD_SQL = (
    f"SELECT {_RATING_COLUMNS} FROM ratings r LEFT JOIN players p ON p.id = r.player_id "
    "WHERE r.scope = ? AND r.variant = ? ORDER BY r.rating DESC, r.player_id LIMIT ? OFFSET ?"
)
RANK_SQL = (  # two index ranges: those rated higher, and those level with a lower id
    "SELECT (SELECT COUNT(*) FROM ratings WHERE scope = ? AND variant = ? AND rating > ?) "
    "+ (SELECT COUNT(*) FROM ratings WHERE scope = ? AND variant = ? AND rating = ? "
    "AND player_id < ?)"
)
PLAYER_RATINGS_SQL = (
    f"SELECT {_RATING_COLUMNS} FROM ratings r LEFT JOIN players p ON p.id = r.player_id "
    "WHERE r.player_id = ? AND r.scope = ? ORDER BY r.variant"
)
RECENT_CHANGES_SQL = (
    f"SELECT {_CHANGE_COLUMNS} FROM rating_changes WHERE scope = ? AND player_id = ? "
    "AND variant = ? ORDER BY finish_order DESC LIMIT ?"
)


def _rating_from_row(row: Any) -> RatingRow:
    return RatingRow(*tuple(row))


def _change_from_row(row: Any) -> RatingChangeRow:
    return RatingChangeRow(*tuple(row))


def _rating_params(r: RatingRow) -> tuple[Any, ...]:
    return (
        r.scope,
        r.variant,
        r.player_id,
        r.rating,
        r.rd,
        r.volatility,
        r.games,
        r.wins,
        r.draws,
        r.losses,
        r.last_ms,
        r.last_game_id,
    )


def _change_params(c: RatingChangeRow) -> tuple[Any, ...]:
    return (
        c.game_id,
        c.scope,
        c.player_id,
        c.variant,
        c.finish_order,
        c.opponent_id,
        c.score,
        c.rating_before,
        c.rd_before,
        c.volatility_before,
        c.rating_after,
        c.rd_after,
        c.volatility_after,
    )


_UPSERT_RATING = (
    "INSERT INTO ratings (scope, variant, player_id, rating, rd, volatility, games, wins, "
    "draws, losses, last_ms, last_game_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
    "ON CONFLICT (scope, variant, player_id) DO UPDATE SET rating = excluded.rating, "
    "rd = excluded.rd, volatility = excluded.volatility, games = excluded.games, "
    "wins = excluded.wins, draws = excluded.draws, losses = excluded.losses, "
    "last_ms = excluded.last_ms, last_game_id = excluded.last_game_id"
)
_INSERT_CHANGE = (
    f"INSERT INTO rating_changes ({_CHANGE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)


class RatingReads:
    """Rating reads on a connection (the repository's reader, or a write transaction)."""

    async def _rows(self, sql: str, params: tuple[Any, ...] = ()) -> list[Any]:
        raise NotImplementedError  # the connection's reads (storage.sqlite)

    async def leaderboard(
        self, scope: int, variant: str, limit: int = 10, offset: int = 0
    ) -> list[RatingRow]:
        """The best ratings of a scope and variant, best first (ties: lower player id)."""
        rows = await self._rows(
            LEADERBOARD_SQL, (scope, variant, max(0, int(limit)), max(0, int(offset)))
        )
        return [_rating_from_row(r) for r in rows]

    async def rating_of(self, scope: int, variant: str, player_id: int) -> RatingRow | None:
        rows = await self._rows(
            f"SELECT {_RATING_COLUMNS} FROM ratings r LEFT JOIN players p ON p.id = r.player_id "
            "WHERE r.scope = ? AND r.variant = ? AND r.player_id = ?",
            (scope, variant, player_id),
        )
        return _rating_from_row(rows[0]) if rows else None

    async def rating_rank(self, row: RatingRow) -> int:
        """The place of ``row`` on its leaderboard (1 for the best)."""
        rows = await self._rows(
            RANK_SQL,
            (row.scope, row.variant, row.rating, row.scope, row.variant, row.rating, row.player_id),
        )
        return int(rows[0][0]) + 1

    async def player_ratings(self, player_id: int, scope: int) -> list[RatingRow]:
        """A player's ratings in one scope, one per variant they have played rated."""
        rows = await self._rows(PLAYER_RATINGS_SQL, (player_id, scope))
        return [_rating_from_row(r) for r in rows]

    async def recent_rating_changes(
        self, scope: int, player_id: int, variant: str, limit: int = 5
    ) -> list[RatingChangeRow]:
        """A player's last rated games in a scope and variant, newest first."""
        rows = await self._rows(RECENT_CHANGES_SQL, (scope, player_id, variant, int(limit)))
        return [_change_from_row(r) for r in rows]

    async def game_rating_changes(self, game_id: int) -> list[RatingChangeRow]:
        rows = await self._rows(
            f"SELECT {_CHANGE_COLUMNS} FROM rating_changes WHERE game_id = ? "
            "ORDER BY scope DESC, player_id",
            (game_id,),
        )
        return [_change_from_row(r) for r in rows]

    async def all_ratings(self) -> list[RatingRow]:
        """Every stored rating (for ``ratings rebuild`` to compare), in key order."""
        rows = await self._rows(
            f"SELECT {_RATING_COLUMNS} FROM ratings r LEFT JOIN players p ON p.id = r.player_id "
            "ORDER BY r.scope, r.variant, r.player_id"
        )
        return [_rating_from_row(r) for r in rows]

    async def all_rating_changes(self) -> list[RatingChangeRow]:
        rows = await self._rows(
            f"SELECT {_CHANGE_COLUMNS} FROM rating_changes ORDER BY finish_order, scope, player_id"
        )
        return [_change_from_row(r) for r in rows]


class RatingWrites(RatingReads):
    """Rating writes inside one write transaction."""

    async def _run_many(self, sql: str, params: list[tuple[Any, ...]]) -> None:
        raise NotImplementedError  # the connection's executemany (storage.sqlite)

    async def mark_finished(self, game_id: int) -> tuple[int, str]:
        """Number the game in the order games finish (``finish_order``, once) and return
        that number with the ``created_at`` of its last log entry (the entry that ended
        it, appended in this transaction)."""
        rows = await self._rows(
            "UPDATE games SET finish_order = COALESCE(finish_order, "
            "(SELECT COALESCE(MAX(finish_order), 0) + 1 FROM games)) WHERE id = ? "
            "RETURNING finish_order, "
            "(SELECT a.created_at FROM actions a WHERE a.game_id = games.id "
            "AND a.seq = games.log_count)",
            (game_id,),
        )
        if not rows:
            raise NotFoundError(f"no game {game_id}")
        order, finished_at = rows[0]
        return int(order), str(finished_at)

    async def save_ratings(self, ratings: list[RatingRow], changes: list[RatingChangeRow]) -> None:
        """Store new current ratings (insert or replace) and the changes that led there."""
        await self._run_many(_UPSERT_RATING, [_rating_params(r) for r in ratings])
        await self._run_many(_INSERT_CHANGE, [_change_params(c) for c in changes])

    async def replace_all_ratings(
        self, ratings: list[RatingRow], changes: list[RatingChangeRow]
    ) -> None:
        """Throw every rating away and store these instead (``ratings rebuild``)."""
        await self._rows("DELETE FROM rating_changes")
        await self._rows("DELETE FROM ratings")
        await self.save_ratings(ratings, changes)
