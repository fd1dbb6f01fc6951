"""Copying every row of one store into another, empty one (``chessgarden migrate-store``,
issue 16): players, then games with their ids, seeds, commitments and start rolls, each
with its whole action log in order, then the ratings and rating changes (issue 15: a
projection of the finished games, copied as they are), then, row for row with their ids,
the posts the bot owes or owed (``outbox``: a post not yet delivered is delivered from
the target), the servers' settings, their log and the users' preferences (issue 27), and
the tournaments with their players, rounds, boards and log (issue 30).
Snapshots are a cache and are not copied: the target takes new ones as games go on.
Either store may be SQLite or PostgreSQL.

Each entry keeps its chained digest (issue 24, ``storage.chain``) as stored: the copy never
recomputes one, so it never vouches for a log changed before the copy (the caller's
verification recomputes them and compares).

The copy goes through the target's own triggers (the log's order, its counts and roll
numbers are checked again as the entries arrive), in transactions of ``batch`` games. The
caller verifies the result (``bot.console.migrate_store`` replays every game and checks its dice).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from storage.models import GameQuery
from storage.repository import StorageError

ALL = 2**62  # no limit on a listing
# Tables copied row for row, ids included, after the games they may name.
VERBATIM = (
    "outbox",
    "guild_settings",
    "settings_log",
    "user_prefs",
    "tournaments",  # issue 30: after the games their boards name, each before its parts
    "tournament_players",
    "tournament_rounds",
    "tournament_games",
    "tournament_log",
)


class VerbatimRows:
    """Reading and writing whole tables of ``VERBATIM`` as they are (both stores: their
    ``_rows`` takes ``?`` marks)."""

    # The store's catalogue query for a table's columns (``?``: the table), in order.
    COLUMNS_SQL: str

    async def _rows(self, sql: str, params: tuple[Any, ...] = ()) -> list[Any]:
        raise NotImplementedError

    async def table_rows(self, table: str) -> tuple[list[str], list[tuple[Any, ...]]]:
        """The columns of ``table`` and every row, in the order of its key."""
        if table not in VERBATIM:
            raise ValueError(f"{table} is not copied row for row")
        columns = [str(r[0]) for r in await self._rows(self.COLUMNS_SQL, (table,))]
        rows = await self._rows(f"SELECT {', '.join(columns)} FROM {table} ORDER BY 1")
        return columns, [tuple(r) for r in rows]

    async def insert_rows(
        self, table: str, columns: list[str], rows: list[tuple[Any, ...]]
    ) -> None:
        """Insert ``rows`` into ``table`` as they are (in a write transaction)."""
        if table not in VERBATIM or not all(c.isidentifier() for c in columns):
            raise ValueError(f"cannot insert into {table} row for row")
        marks = ", ".join("?" for _ in columns)
        sql = f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})"
        for row in rows:
            await self._rows(sql, row)


class TargetNotEmpty(StorageError):
    """The target already holds players, games or actions; nothing was copied."""


@dataclass(frozen=True)
class CopyCounts:
    players: int
    games: int
    actions: int
    rolls: int


async def copy_store(
    source: Any,
    target: Any,
    *,
    batch: int = 100,
    progress: Callable[[int, int], None] | None = None,
) -> CopyCounts:
    """Copy everything in ``source`` to ``target`` (both repositories from
    ``storage.open_repository``). Refuses (``TargetNotEmpty``) a target with any row."""
    if not await target.is_empty():
        raise TargetNotEmpty(
            f"the target {target.path} is not empty; migrate-store copies into an empty store only"
        )
    players = await source.list_players()
    games = sorted(await source.list_games(GameQuery(limit=ALL)), key=lambda g: g.id)
    async with target.write() as tx:
        for player in players:
            await tx.import_player(player)
    actions = rolls = 0
    for start in range(0, len(games), max(1, batch)):
        chunk = games[start : start + batch]
        logs = [await source.actions(game.id) for game in chunk]
        async with target.write() as tx:
            for game, log in zip(chunk, logs, strict=True):
                await tx.import_game(game, log)
                actions += len(log)
                rolls += len(game.start_rolls) + sum(len(a.rolls) for a in log)
        if progress is not None:
            progress(min(start + batch, len(games)), len(games))
    ratings, changes = await source.all_ratings(), await source.all_rating_changes()
    if ratings or changes:
        async with target.write() as tx:
            await tx.replace_all_ratings(ratings, changes)
    for table in VERBATIM:
        columns, rows = await source.table_rows(table)
        if rows:
            async with target.write() as tx:
                await tx.insert_rows(table, columns, rows)
    await target.after_import()
    return CopyCounts(len(players), len(games), actions, rolls)
