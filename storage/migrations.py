"""Versioned schema migrations, tracked in ``PRAGMA user_version``.

Migration ``n`` (1-based) brings the schema from version ``n - 1`` to ``n``. Append
new migrations to ``MIGRATIONS``; never edit one that has shipped. Each migration
is a list of single statements so that it runs inside one ``BEGIN IMMEDIATE``
transaction together with the ``user_version`` bump (``executescript`` would
commit half-way).
"""

from __future__ import annotations

_V1: list[str] = [
    """
    CREATE TABLE players (
        id          INTEGER PRIMARY KEY,   -- the platform's user id (a Discord snowflake)
        name        TEXT,
        created_at  TEXT NOT NULL,
        updated_at  TEXT NOT NULL
    )
    """,
    """
    CREATE TABLE games (
        id                 INTEGER PRIMARY KEY AUTOINCREMENT,
        variant            TEXT NOT NULL,
        options            TEXT NOT NULL DEFAULT '{}',          -- JSON object
        status             TEXT NOT NULL CHECK (status IN
                               ('challenge', 'active', 'finished', 'aborted', 'declined', 'cancelled')),
        location_id        INTEGER NOT NULL,                    -- channel or thread id
        guild_id           INTEGER,
        challenger_id      INTEGER NOT NULL REFERENCES players (id),
        opponent_id        INTEGER REFERENCES players (id),     -- NULL: open challenge
        challenger_colour  TEXT NOT NULL CHECK (challenger_colour IN ('white', 'black', 'random')),
        white_id           INTEGER REFERENCES players (id),
        black_id           INTEGER REFERENCES players (id),
        result             TEXT CHECK (result IN ('1-0', '0-1', '1/2-1/2')),
        result_reason      TEXT,
        draw_offer         TEXT CHECK (draw_offer IN ('white', 'black')),
        seed               TEXT NOT NULL,                       -- secret until the game ends
        commitment         TEXT NOT NULL,                       -- SHA-256 of the seed, public
        start_rolls        TEXT NOT NULL DEFAULT '[]',          -- JSON [[sides, value], ...]
        request_id         TEXT UNIQUE,
        created_at         TEXT NOT NULL,
        updated_at         TEXT NOT NULL
    )
    """,
    # One live game (challenge or active) per channel or thread.
    """
    CREATE UNIQUE INDEX games_one_live_per_location
        ON games (location_id) WHERE status IN ('challenge', 'active')
    """,
    "CREATE INDEX games_by_guild ON games (guild_id, id)",
    "CREATE INDEX games_by_white ON games (white_id, id)",
    "CREATE INDEX games_by_black ON games (black_id, id)",
    "CREATE INDEX games_by_challenger ON games (challenger_id, id)",
    """
    CREATE TABLE actions (
        game_id     INTEGER NOT NULL REFERENCES games (id),
        seq         INTEGER NOT NULL CHECK (seq >= 1),          -- position in the game's log
        kind        TEXT NOT NULL CHECK (kind IN
                        ('move', 'resign', 'draw_offer', 'draw_accept', 'draw_decline', 'abort')),
        request_id  TEXT,
        actor_id    INTEGER,
        text        TEXT NOT NULL,                              -- canonical notation as recorded
        rolls       TEXT NOT NULL DEFAULT '[]',                 -- JSON [[sides, value], ...]
        created_at  TEXT NOT NULL,
        PRIMARY KEY (game_id, seq),
        UNIQUE (game_id, request_id)
    )
    """,
    # The log is append-only: a roll, once stored, never changes.
    """
    CREATE TRIGGER actions_no_update BEFORE UPDATE ON actions
    BEGIN SELECT RAISE(ABORT, 'the action log is append-only'); END
    """,
    """
    CREATE TRIGGER actions_no_delete BEFORE DELETE ON actions
    BEGIN SELECT RAISE(ABORT, 'the action log is append-only'); END
    """,
    # Start rolls are written once, right after the game row, and never again.
    """
    CREATE TRIGGER games_start_rolls_once BEFORE UPDATE OF start_rolls ON games
    WHEN OLD.start_rolls <> '[]'
    BEGIN SELECT RAISE(ABORT, 'start rolls are already stored'); END
    """,
]

MIGRATIONS: list[list[str]] = [_V1]
LATEST_VERSION = len(MIGRATIONS)
