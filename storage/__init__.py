"""Storage: games, the append-only action log, dice commitments and players, in SQLite
(the default) or PostgreSQL.

All SQL of the project lives in this package. Callers depend on the ``Repository``
and ``WriteTx`` protocols and the row dataclasses; ``open_repository`` returns the
implementation the target names: a ``postgresql://`` URL opens ``PgRepository``
(asyncpg, an optional extra), a path or nothing opens ``SqliteRepository``. Ratings
(issue 15) are stored by ``storage.standings``.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from typing import Any

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
    Shards,
    SnapshotRow,
)
from storage.outbox import NewPost, OutboxRow, nonce_of
from storage.postgres import PgRepository, is_postgres_url, redact
from storage.repository import (
    CommitUnknownError,
    ConflictError,
    NotFoundError,
    RatingReadsProtocol,
    Repository,
    SchemaError,
    StorageError,
    StoreBusyError,
    StoreDamagedError,
    StoreFullError,
    StoreLostError,
    StoreOpenError,
    StoreUnavailableError,
    WriteTx,
)
from storage.settings import SettingChange
from storage.sqlite import (
    CHECKPOINT_EVERY,
    DB_ENV_VAR,
    DEFAULT_DB_PATH,
    SqliteRepository,
    resolve_db_path,
)
from storage.sqlite_faults import store_error
from storage.standings import GLOBAL_SCOPE


def as_storage_error(error: BaseException) -> BaseException:
    """A driver's error (``sqlite3``'s or asyncpg's) as the store's own; anything else as
    it is. The stores raise only their own errors already: this is a safety net for
    callers (the service), so that a driver error missed there still reaches the user as
    one plain sentence."""
    if isinstance(error, sqlite3.Error):
        return store_error(error)
    if type(error).__module__.startswith("asyncpg"):
        from storage.postgres import as_store_error

        return as_store_error(error)
    return error


async def open_repository(
    path: str | os.PathLike[str] | None = None,
    *,
    clock: Callable[[], str] | None = None,
    busy_timeout_ms: int | None = None,
    checkpoint_every: float | None = CHECKPOINT_EVERY,
) -> Repository:
    """Open the store ``path`` names (or ``$CHESSGARDEN_DB``, or ``./chessgarden.sqlite3``):
    PostgreSQL for a ``postgresql://`` URL, SQLite otherwise. Raises ``StoreOpenError``
    (one line naming the file or URL and the cause) when it cannot. ``checkpoint_every``:
    SQLite's background WAL checkpoints (see ``storage.sqlite``); PostgreSQL has none."""
    target = resolve_db_path(path)
    options: dict[str, Any] = {}
    if clock is not None:
        options["clock"] = clock
    if busy_timeout_ms is not None:
        options["busy_timeout_ms"] = busy_timeout_ms
    if is_postgres_url(target):
        return await PgRepository.open(target, **options)
    return await SqliteRepository.open(target, checkpoint_every=checkpoint_every, **options)


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
    "CommitUnknownError",
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
    "NewPost",
    "OutboxRow",
    "NotFoundError",
    "PgRepository",
    "PlayerRow",
    "RatingChangeRow",
    "RatingReadsProtocol",
    "RatingRow",
    "Repository",
    "ResultText",
    "Roll",
    "SchemaError",
    "SettingChange",
    "Shards",
    "SnapshotRow",
    "SqliteRepository",
    "StorageError",
    "StoreBusyError",
    "StoreDamagedError",
    "StoreFullError",
    "StoreLostError",
    "StoreOpenError",
    "StoreUnavailableError",
    "WriteTx",
    "as_storage_error",
    "is_postgres_url",
    "nonce_of",
    "open_repository",
    "redact",
    "resolve_db_path",
]
