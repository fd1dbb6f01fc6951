"""Storage: games, the append-only action log, dice commitments and players in SQLite.

All SQL of the project lives in this package. Callers depend on the ``Repository``
and ``WriteTx`` protocols and the row dataclasses; ``open_repository`` returns the
SQLite implementation. Ratings (issue 15) are stored by ``storage.standings``.
"""

from __future__ import annotations

import os

from storage.migrations import LATEST_VERSION
from storage.models import (
    ACTION_KINDS,
    ENDED_STATUSES,
    LIVE_STATUSES,
    STATUSES,
    ActionKind,
    ActionRow,
    Colour,
    ColourChoice,
    DueGame,
    FinishedGame,
    GameChanges,
    GameQuery,
    GameRow,
    GameStatus,
    NewAction,
    NewGame,
    PlayerRow,
    RatingChangeRow,
    RatingRow,
    ResultText,
    Roll,
    SnapshotRow,
)
from storage.repository import (
    ConflictError,
    NotFoundError,
    RatingReadsProtocol,
    Repository,
    SchemaError,
    StorageError,
    StoreBusyError,
    StoreFullError,
    StoreOpenError,
    StoreUnavailableError,
    WriteTx,
)
from storage.sqlite import DB_ENV_VAR, DEFAULT_DB_PATH, SqliteRepository, resolve_db_path
from storage.standings import GLOBAL_SCOPE


async def open_repository(path: str | os.PathLike[str] | None = None) -> SqliteRepository:
    """Open the SQLite store at ``path`` (or ``$CHESSGARDEN_DB``, or ``./chessgarden.sqlite3``)."""
    return await SqliteRepository.open(path)


__all__ = [
    "ACTION_KINDS",
    "DB_ENV_VAR",
    "DEFAULT_DB_PATH",
    "ENDED_STATUSES",
    "LATEST_VERSION",
    "LIVE_STATUSES",
    "STATUSES",
    "ActionKind",
    "ActionRow",
    "Colour",
    "ColourChoice",
    "ConflictError",
    "DueGame",
    "FinishedGame",
    "GLOBAL_SCOPE",
    "GameChanges",
    "GameQuery",
    "GameRow",
    "GameStatus",
    "NewAction",
    "NewGame",
    "NotFoundError",
    "PlayerRow",
    "RatingChangeRow",
    "RatingReadsProtocol",
    "RatingRow",
    "Repository",
    "ResultText",
    "Roll",
    "SchemaError",
    "SnapshotRow",
    "SqliteRepository",
    "StorageError",
    "StoreBusyError",
    "StoreFullError",
    "StoreOpenError",
    "StoreUnavailableError",
    "WriteTx",
    "open_repository",
    "resolve_db_path",
]
