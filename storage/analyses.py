"""The analyses of finished games, kept by the digest of the log they analysed (issue 29).

An analysis (``engine.analysis``: each action's error, each roll's luck) takes seconds of a
worker process, and a game's log does not change once the game is over, so each is kept:
one row per ``(digest, depth)``, where ``digest`` is the game's chain head
(``GameRow.log_head``, ``storage.chain``) when it was analysed and ``depth`` the search
depth. A log that grew since (a moderator moved the game: a ``relocate`` entry) has a new
head and is analysed again. ``result`` is the analysis as JSON (``Analysis.dumps``).

The table is a cache, like the snapshots: ``migrate-store`` does not copy it.

The SQL is shared by both stores (``?`` marks; PostgreSQL's store numbers them), as
``storage.settings`` is.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

STORED_SQL = "SELECT result FROM analyses WHERE digest = ? AND depth = ?"
SAVE_SQL = (
    "INSERT INTO analyses (digest, depth, game_id, result, cpu_ms, created_at) "
    "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (digest, depth) DO NOTHING"
)
COUNT_SQL = "SELECT COUNT(*) FROM analyses WHERE game_id = ?"


class AnalysisReads:
    """Reads of kept analyses, on the repository and in a transaction."""

    async def _rows(self, sql: str, params: tuple[Any, ...] = ()) -> list[Any]:
        raise NotImplementedError

    async def stored_analysis(self, digest: str, depth: int) -> str | None:
        """The JSON of the analysis of the log whose head is ``digest`` at ``depth``, or
        ``None`` if it was never kept."""
        rows = await self._rows(STORED_SQL, (digest, depth))
        return str(rows[0][0]) if rows else None

    async def analyses_of_game(self, game_id: int) -> int:
        """How many analyses of the game are kept (any log head, any depth)."""
        rows = await self._rows(COUNT_SQL, (game_id,))
        return int(rows[0][0]) if rows else 0


class AnalysisWrites(AnalysisReads):
    """Keeping an analysis, inside one write transaction."""

    _now: Callable[[], str]

    async def save_analysis(
        self, game_id: int, digest: str, depth: int, result: str, cpu_ms: int
    ) -> None:
        """Keep the analysis ``result`` (JSON) of the log whose head is ``digest``; an
        analysis kept already for the same head and depth stays as it is."""
        await self._rows(SAVE_SQL, (digest, depth, game_id, result, cpu_ms, self._now()))
