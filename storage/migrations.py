"""Versioned schema migrations, tracked in ``PRAGMA user_version``.

Migration ``n`` (1-based) brings the schema from version ``n - 1`` to ``n``. Append
new migrations to ``MIGRATIONS``; never edit one that has shipped. Each migration
is a list of single statements so that it runs inside one ``BEGIN IMMEDIATE``
transaction together with the ``user_version`` bump (``executescript`` would
commit half-way). Migrations run with foreign keys off (a table can then be rebuilt,
SQLite's documented way to change a column) and ``PRAGMA foreign_key_check`` must
find nothing before the transaction commits.

A new file (version 0, no table of any version) is not walked through every migration:
it is given the schema they make at once (``storage.sqlite_faults.latest_schema``, read
back from an empty database migrated in memory), which a test compares with a file
migrated in turn.
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

# Version 2 (issue 9):
# - no die before acceptance (RULES.md section 6): ``seed`` and ``commitment`` are NULL
#   while a game is a challenge; they are drawn when it is accepted, and never change
#   after that. Challenges stored by version 1 drew their seed and start rolls when
#   they were made; they get a fresh seed at acceptance (their old dice were visible);
# - the game row counts its log entries and rolls (``log_count``, ``roll_count``) and
#   every action stores the number of its first roll (``roll_index``), so ``verify``
#   can tell a complete log from one that lost entries at the end or in the middle.
#   Triggers keep the counts; the store refuses an action out of order;
# - the latest board message of a game (``board_channel_id``, ``board_message_id``);
# - indexes for "the last game in this channel" and "a user's open challenges".
# SQLite cannot drop NOT NULL from a column, so ``games`` and ``actions`` are rebuilt
# (create, copy, drop, rename), keeping ids and the AUTOINCREMENT counter.
_V2_GAMES = """
    CREATE TABLE games_v2 (
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
        seed               TEXT,        -- drawn at acceptance; secret until the game ends
        commitment         TEXT,        -- SHA-256 of the seed, public from acceptance
        start_rolls        TEXT NOT NULL DEFAULT '[]',          -- JSON [[sides, value], ...]
        log_count          INTEGER NOT NULL DEFAULT 0 CHECK (log_count >= 0),
        roll_count         INTEGER NOT NULL DEFAULT 0 CHECK (roll_count >= 0),
        board_channel_id   INTEGER,     -- the latest board message, to take its buttons off
        board_message_id   INTEGER,
        request_id         TEXT UNIQUE,
        created_at         TEXT NOT NULL,
        updated_at         TEXT NOT NULL,
        CHECK ((seed IS NULL) = (commitment IS NULL)),
        CHECK (seed IS NOT NULL OR status IN ('challenge', 'declined', 'cancelled', 'aborted')),
        CHECK (seed IS NOT NULL OR (start_rolls = '[]' AND roll_count = 0))
    )
"""

_V2_ACTIONS = """
    CREATE TABLE actions_v2 (
        game_id     INTEGER NOT NULL REFERENCES games (id),
        seq         INTEGER NOT NULL CHECK (seq >= 1),          -- position in the game's log
        kind        TEXT NOT NULL CHECK (kind IN
                        ('move', 'resign', 'draw_offer', 'draw_accept', 'draw_decline', 'abort')),
        request_id  TEXT,
        actor_id    INTEGER,
        text        TEXT NOT NULL,                              -- canonical notation as recorded
        rolls       TEXT NOT NULL DEFAULT '[]',                 -- JSON [[sides, value], ...]
        roll_index  INTEGER NOT NULL CHECK (roll_index >= 0),   -- the game's number of its first roll
        created_at  TEXT NOT NULL,
        PRIMARY KEY (game_id, seq),
        UNIQUE (game_id, request_id)
    )
"""

_V2: list[str] = [
    _V2_GAMES,
    # A challenge made by version 1 had drawn its seed and first dice: both are dropped,
    # and acceptance draws a new seed. Everything else is copied as it is.
    """
    INSERT INTO games_v2 (id, variant, options, status, location_id, guild_id, challenger_id,
        opponent_id, challenger_colour, white_id, black_id, result, result_reason, draw_offer,
        seed, commitment, start_rolls, log_count, roll_count, request_id, created_at, updated_at)
    SELECT g.id, g.variant, g.options, g.status, g.location_id, g.guild_id, g.challenger_id,
        g.opponent_id, g.challenger_colour, g.white_id, g.black_id, g.result, g.result_reason,
        g.draw_offer,
        CASE WHEN g.status = 'challenge' THEN NULL ELSE g.seed END,
        CASE WHEN g.status = 'challenge' THEN NULL ELSE g.commitment END,
        CASE WHEN g.status = 'challenge' THEN '[]' ELSE g.start_rolls END,
        (SELECT COALESCE(MAX(a.seq), 0) FROM actions a WHERE a.game_id = g.id),
        CASE WHEN g.status = 'challenge' THEN 0 ELSE json_array_length(g.start_rolls)
            + (SELECT COALESCE(SUM(json_array_length(a.rolls)), 0)
               FROM actions a WHERE a.game_id = g.id) END,
        g.request_id, g.created_at, g.updated_at
    FROM games g
    """,
    # Keep the AUTOINCREMENT counter: a game id is never used twice.
    """
    INSERT INTO sqlite_sequence (name, seq)
    SELECT 'games_v2', seq FROM sqlite_sequence WHERE name = 'games'
        AND NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'games_v2')
    """,
    """
    UPDATE sqlite_sequence
    SET seq = MAX(seq, COALESCE((SELECT s.seq FROM sqlite_sequence s WHERE s.name = 'games'), 0))
    WHERE name = 'games_v2'
    """,
    _V2_ACTIONS,
    """
    INSERT INTO actions_v2 (game_id, seq, kind, request_id, actor_id, text, rolls, roll_index,
        created_at)
    SELECT a.game_id, a.seq, a.kind, a.request_id, a.actor_id, a.text, a.rolls,
        COALESCE(json_array_length(g.start_rolls), 0)
            + COALESCE(SUM(json_array_length(a.rolls)) OVER (
                PARTITION BY a.game_id ORDER BY a.seq
                ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0),
        a.created_at
    FROM actions a LEFT JOIN games g ON g.id = a.game_id  -- an orphan is kept, and refused below
    """,
    "DROP TABLE actions",
    "DROP TABLE games",
    "ALTER TABLE games_v2 RENAME TO games",
    "ALTER TABLE actions_v2 RENAME TO actions",
    """
    CREATE UNIQUE INDEX games_one_live_per_location
        ON games (location_id) WHERE status IN ('challenge', 'active')
    """,
    "CREATE INDEX games_by_location ON games (location_id, id)",
    "CREATE INDEX games_by_guild ON games (guild_id, id)",
    "CREATE INDEX games_by_white ON games (white_id, id)",
    "CREATE INDEX games_by_black ON games (black_id, id)",
    "CREATE INDEX games_by_challenger ON games (challenger_id, id)",
    "CREATE INDEX games_open_challenges ON games (challenger_id) WHERE status = 'challenge'",
    # The log is append-only: a roll, once stored, never changes.
    """
    CREATE TRIGGER actions_no_update BEFORE UPDATE ON actions
    BEGIN SELECT RAISE(ABORT, 'the action log is append-only'); END
    """,
    """
    CREATE TRIGGER actions_no_delete BEFORE DELETE ON actions
    BEGIN SELECT RAISE(ABORT, 'the action log is append-only'); END
    """,
    # Entries come in order, with no gap: seq n + 1 after n entries, and the first roll
    # numbered after every roll stored so far.
    """
    CREATE TRIGGER actions_in_order BEFORE INSERT ON actions
    WHEN NEW.seq <> (SELECT log_count FROM games WHERE id = NEW.game_id) + 1
      OR NEW.roll_index <> (SELECT roll_count FROM games WHERE id = NEW.game_id)
    BEGIN SELECT RAISE(ABORT, 'action out of order: the log takes entry log_count + 1'); END
    """,
    """
    CREATE TRIGGER actions_counted AFTER INSERT ON actions
    BEGIN
        UPDATE games SET log_count = NEW.seq,
                         roll_count = roll_count + json_array_length(NEW.rolls)
        WHERE id = NEW.game_id;
    END
    """,
    # Start rolls are written once, when the game starts, and never again.
    """
    CREATE TRIGGER games_start_rolls_once BEFORE UPDATE OF start_rolls ON games
    WHEN OLD.start_rolls <> '[]'
    BEGIN SELECT RAISE(ABORT, 'start rolls are already stored'); END
    """,
    # The seed is drawn once, at acceptance, and never changes.
    """
    CREATE TRIGGER games_seed_once BEFORE UPDATE OF seed, commitment ON games
    WHEN OLD.seed IS NOT NULL
      AND (NEW.seed IS NOT OLD.seed OR NEW.commitment IS NOT OLD.commitment)
    BEGIN SELECT RAISE(ABORT, 'the dice seed is already drawn'); END
    """,
]


# Versions 3 and 4 rebuild ``actions`` (SQLite cannot alter a CHECK constraint): the new
# table is filled from the old one and takes its name; the triggers, dropped with the old
# table, are made again (version 2's, and the undo's own: an undo draws no die).
def _replace_actions(new_table: str) -> list[str]:
    return [
        f"""
        INSERT INTO {new_table} (game_id, seq, kind, request_id, actor_id, text, rolls,
            roll_index, created_at)
        SELECT game_id, seq, kind, request_id, actor_id, text, rolls, roll_index, created_at
        FROM actions
        """,
        "DROP TABLE actions",
        f"ALTER TABLE {new_table} RENAME TO actions",
    ]


_LOG_TRIGGERS: list[str] = [
    """
    CREATE TRIGGER actions_no_update BEFORE UPDATE ON actions
    BEGIN SELECT RAISE(ABORT, 'the action log is append-only'); END
    """,
    """
    CREATE TRIGGER actions_no_delete BEFORE DELETE ON actions
    BEGIN SELECT RAISE(ABORT, 'the action log is append-only'); END
    """,
    """
    CREATE TRIGGER actions_in_order BEFORE INSERT ON actions
    WHEN NEW.seq <> (SELECT log_count FROM games WHERE id = NEW.game_id) + 1
      OR NEW.roll_index <> (SELECT roll_count FROM games WHERE id = NEW.game_id)
    BEGIN SELECT RAISE(ABORT, 'action out of order: the log takes entry log_count + 1'); END
    """,
    """
    CREATE TRIGGER actions_counted AFTER INSERT ON actions
    BEGIN
        UPDATE games SET log_count = NEW.seq,
                         roll_count = roll_count + json_array_length(NEW.rolls)
        WHERE id = NEW.game_id;
    END
    """,
    # An undo draws no die.
    """
    CREATE TRIGGER actions_undo_rolls_nothing BEFORE INSERT ON actions
    WHEN NEW.kind = 'undo' AND NEW.rolls <> '[]'
    BEGIN SELECT RAISE(ABORT, 'an undo rolls no dice'); END
    """,
]


# Undo (issue 11): in a local hot-seat game a player may take back the last move,
# provided no die was rolled since it. The log stays append-only: the take-back is an
# entry of its own, kind 'undo', and a replay skips the move it takes back. SQLite
# cannot change a CHECK constraint, so ``actions`` is rebuilt (create, copy, drop,
# rename) with 'undo' among the kinds, and its triggers made again.
_UNDO_ACTIONS = """
    CREATE TABLE actions_undo (
        game_id     INTEGER NOT NULL REFERENCES games (id),
        seq         INTEGER NOT NULL CHECK (seq >= 1),          -- position in the game's log
        kind        TEXT NOT NULL CHECK (kind IN
                        ('move', 'resign', 'draw_offer', 'draw_accept', 'draw_decline', 'abort',
                         'undo')),
        request_id  TEXT,
        actor_id    INTEGER,
        text        TEXT NOT NULL,                              -- canonical notation as recorded
        rolls       TEXT NOT NULL DEFAULT '[]',                 -- JSON [[sides, value], ...]
        roll_index  INTEGER NOT NULL CHECK (roll_index >= 0),   -- the game's number of its first roll
        created_at  TEXT NOT NULL,
        PRIMARY KEY (game_id, seq),
        UNIQUE (game_id, request_id)
    )
"""

_UNDO: list[str] = [
    _UNDO_ACTIONS,
    *_replace_actions("actions_undo"),
    # The same triggers as version 2 (dropped with the old table), and the undo's own.
    *_LOG_TRIGGERS,
]

# Version 4 (issue 13, correspondence time):
# - the time control chosen with a challenge (``time_days``, days per move; NULL untimed)
#   and the clock of the side to act: ``clock_side``, ``turn_started_ms``, ``deadline_ms``
#   (a challenge: when it expires) and ``reminder_ms`` (NULL once reminded this turn).
#   Instants are whole milliseconds since the Unix epoch, UTC (a BIGINT in PostgreSQL);
# - ``due_ms``, the next instant the deadline scheduler must look at the game: derived by
#   the database from the columns above (never written by hand), NULL for a game that is
#   over or has no clock, and indexed (partial index ``games_due``), so that "the next
#   deadline" and "everything due by now" read only due games, in order. PostgreSQL:
#   ``GENERATED ALWAYS AS (...) STORED`` with ``LEAST`` for ``MIN``;
# - two new log entry kinds: ``timeout`` (the scheduler ends the game on time) and
#   ``extend`` (a moderator adds days to the clock). The kinds are a CHECK constraint,
#   which SQLite cannot alter, so ``actions`` is rebuilt (create, copy, drop, rename) and
#   its triggers made again, as in versions 2 and 3 ('undo' stays a kind);
# - challenges stored before version 4 expire 24 hours after they were made (the default
#   of CHESSGARDEN_CHALLENGE_HOURS); games stored before version 4 are untimed.
_V4_ACTIONS = """
    CREATE TABLE actions_v4 (
        game_id     INTEGER NOT NULL REFERENCES games (id),
        seq         INTEGER NOT NULL CHECK (seq >= 1),          -- position in the game's log
        kind        TEXT NOT NULL CHECK (kind IN
                        ('move', 'resign', 'draw_offer', 'draw_accept', 'draw_decline', 'abort',
                         'undo', 'timeout', 'extend')),
        request_id  TEXT,
        actor_id    INTEGER,
        text        TEXT NOT NULL,                              -- canonical notation as recorded
        rolls       TEXT NOT NULL DEFAULT '[]',                 -- JSON [[sides, value], ...]
        roll_index  INTEGER NOT NULL CHECK (roll_index >= 0),   -- the game's number of its first roll
        created_at  TEXT NOT NULL,
        PRIMARY KEY (game_id, seq),
        UNIQUE (game_id, request_id)
    )
"""

_V4: list[str] = [
    "ALTER TABLE games ADD COLUMN time_days INTEGER CHECK (time_days IS NULL OR time_days >= 1)",
    "ALTER TABLE games ADD COLUMN clock_side TEXT CHECK (clock_side IN ('white', 'black'))",
    "ALTER TABLE games ADD COLUMN turn_started_ms INTEGER",
    "ALTER TABLE games ADD COLUMN deadline_ms INTEGER",
    "ALTER TABLE games ADD COLUMN reminder_ms INTEGER",
    """
    ALTER TABLE games ADD COLUMN due_ms INTEGER GENERATED ALWAYS AS (
        CASE WHEN status IN ('challenge', 'active') AND deadline_ms IS NOT NULL
             THEN MIN(COALESCE(reminder_ms, deadline_ms), deadline_ms) END
    ) VIRTUAL
    """,
    "CREATE INDEX games_due ON games (due_ms) WHERE due_ms IS NOT NULL",
    """
    UPDATE games SET deadline_ms = CAST(strftime('%s', created_at) AS INTEGER) * 1000 + 86400000
    WHERE status = 'challenge' AND deadline_ms IS NULL
    """,
    _V4_ACTIONS,
    *_replace_actions("actions_v4"),
    # The triggers went with the old table; the same ones again.
    *_LOG_TRIGGERS,
]

# Snapshots (issue 12): a cache of each live game's engine state after log entry ``seq``,
# so that a rebuild replays only the entries after it. Never the truth: the log is; a
# snapshot that does not check out is ignored and the game is replayed from the start.
# The index serves the warm-up after a restart (live games, the most recent first).
_SNAPSHOTS: list[str] = [
    """
    CREATE TABLE snapshots (
        game_id     INTEGER PRIMARY KEY REFERENCES games (id),
        seq         INTEGER NOT NULL CHECK (seq >= 1),   -- log entries 1..seq are in it
        ply         INTEGER NOT NULL,
        turns       INTEGER NOT NULL,                    -- completed turns (the clock's count)
        roll_count  INTEGER NOT NULL,                    -- dice drawn so far (start rolls too)
        format      TEXT NOT NULL,                       -- how ``data`` is written
        data        BLOB NOT NULL,
        created_at  TEXT NOT NULL
    )
    """,
    "CREATE INDEX IF NOT EXISTS games_by_location ON games (location_id, id)",
    "CREATE INDEX games_active_recent ON games (updated_at) WHERE status = 'active'",
]


# The computer opponent (issue 14, contract C13): which side the computer plays and at
# what level (both NULL in a game between people), and the claim on its thinking: the
# log length it is thinking about (``thinking_seq``) and until when that claim holds
# (``thinking_until_ms``; a process that died while thinking leaves a claim that runs
# out, and another process may then think instead). An index finds the live ones.
_COMPUTER: list[str] = [
    "ALTER TABLE games ADD COLUMN computer TEXT CHECK (computer IN ('white', 'black'))",
    """
    ALTER TABLE games ADD COLUMN computer_level INTEGER
        CHECK (computer_level IS NULL OR computer_level BETWEEN 1 AND 3)
    """,
    "ALTER TABLE games ADD COLUMN thinking_seq INTEGER",
    "ALTER TABLE games ADD COLUMN thinking_until_ms INTEGER",
    "CREATE INDEX games_computer ON games (id) WHERE computer IS NOT NULL AND status = 'active'",
]


# Ratings (issue 15): Glicko-2 per (server, variant, player) and per (variant, player),
# a projection of the finished games that ``chessgarden ratings rebuild`` can recompute.
# - ``games.rated``: whether the game counts for ratings (chosen with the challenge;
#   /play asks for rated games by default). Games stored before this version were played
#   when nothing was rated, so they stay unrated (0): nobody agreed to a rated game then;
# - ``games.finish_order``: 1, 2, 3, ... in the order games finished (unique), so that a
#   rebuild rates the games in the order they were rated live, even when two finished in
#   the same millisecond. Games finished before this version are numbered by when they
#   last changed (``updated_at``, then id);
# - ``ratings``: one row per (scope, variant, player); ``scope`` is the server (guild id)
#   or 0 for the global rating. ``last_ms`` is when the player's last rated game in that
#   scope finished (RD grows with the days since). Indexed for the leaderboard (top N and
#   "how many are above me") and for a player's profile;
# - ``rating_changes``: each rated game's effect on each player in each scope, before
#   and after, to show the change on the final board and a player's last results.
_RATINGS: list[str] = [
    "ALTER TABLE games ADD COLUMN rated INTEGER NOT NULL DEFAULT 0 CHECK (rated IN (0, 1))",
    "ALTER TABLE games ADD COLUMN finish_order INTEGER",
    """
    UPDATE games SET finish_order = numbered.n
    FROM (
        SELECT id, ROW_NUMBER() OVER (ORDER BY updated_at, id) AS n
        FROM games WHERE status = 'finished'
    ) AS numbered
    WHERE games.id = numbered.id
    """,
    "CREATE UNIQUE INDEX games_finish_order ON games (finish_order) WHERE finish_order IS NOT NULL",
    # A profile's "playing now": a player's active games, without reading their old ones.
    "CREATE INDEX games_active_by_white ON games (white_id, id) WHERE status = 'active'",
    "CREATE INDEX games_active_by_black ON games (black_id, id) WHERE status = 'active'",
    """
    CREATE TABLE ratings (
        scope       INTEGER NOT NULL,            -- the server (guild id), or 0: global
        variant     TEXT NOT NULL,
        player_id   INTEGER NOT NULL REFERENCES players (id),
        rating      REAL NOT NULL,
        rd          REAL NOT NULL,
        volatility  REAL NOT NULL,
        games       INTEGER NOT NULL CHECK (games >= 1),
        wins        INTEGER NOT NULL CHECK (wins >= 0),
        draws       INTEGER NOT NULL CHECK (draws >= 0),
        losses      INTEGER NOT NULL CHECK (losses >= 0),
        last_ms     INTEGER NOT NULL,            -- when the last rated game here finished
        last_game_id INTEGER NOT NULL REFERENCES games (id),
        PRIMARY KEY (scope, variant, player_id),
        CHECK (games = wins + draws + losses)
    )
    """,
    "CREATE INDEX ratings_board ON ratings (scope, variant, rating DESC, player_id)",
    "CREATE INDEX ratings_by_player ON ratings (player_id, scope, variant)",
    """
    CREATE TABLE rating_changes (
        game_id            INTEGER NOT NULL REFERENCES games (id),
        scope              INTEGER NOT NULL,     -- as in ratings
        player_id          INTEGER NOT NULL REFERENCES players (id),
        variant            TEXT NOT NULL,
        finish_order       INTEGER NOT NULL,
        opponent_id        INTEGER NOT NULL REFERENCES players (id),
        score              REAL NOT NULL CHECK (score IN (0, 0.5, 1)),
        rating_before      REAL NOT NULL,        -- as it stood at the game (RD widened)
        rd_before          REAL NOT NULL,
        volatility_before  REAL NOT NULL,
        rating_after       REAL NOT NULL,
        rd_after           REAL NOT NULL,
        volatility_after   REAL NOT NULL,
        PRIMARY KEY (game_id, scope, player_id)
    )
    """,
    """
    CREATE INDEX rating_changes_by_player
        ON rating_changes (scope, player_id, variant, finish_order DESC)
    """,
]

# Version 8 (issue 24): the outbox, a row per message the bot owes a channel
# (storage.outbox).
_OUTBOX: list[str] = [
    """
    CREATE TABLE outbox (
        id          INTEGER PRIMARY KEY AUTOINCREMENT,
        game_id     INTEGER REFERENCES games (id),
        guild_id    INTEGER,
        channel_id  INTEGER NOT NULL,                -- where it is owed
        kind        TEXT NOT NULL,                   -- what to post (the Discord layer's word)
        seq         INTEGER,                         -- the game's log length when owed
        payload     TEXT NOT NULL DEFAULT '{}',      -- JSON: what the game cannot tell later
        state       TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'sent', 'failed')),
        due_ms      INTEGER,                         -- next try (a claim leases it ahead)
        attempts    INTEGER NOT NULL DEFAULT 0,
        created_ms  INTEGER NOT NULL,
        settled_ms  INTEGER,
        message_id  INTEGER,                         -- what Discord made of it, once sent
        error       TEXT,                            -- why the last try failed
        CHECK ((state = 'pending') = (due_ms IS NOT NULL))
    )
    """,
    "CREATE INDEX outbox_due ON outbox (due_ms, id) WHERE state = 'pending'",
    "CREATE INDEX outbox_channel ON outbox (channel_id, id) WHERE state = 'pending'",
    "CREATE INDEX outbox_by_game ON outbox (game_id, id)",
]

# The chained log (issue 24, storage/chain.py), and the entry kind ``relocate`` (a moderator
# moved a game to another channel, issue 24): every entry stores ``digest``, SHA-256 over
# the digest before it (the game's root for entry 1) and its own fields, and the game row
# keeps the latest one (``log_head``, kept by the trigger that counts the entries).
# - ``digest`` is added, then filled by the repository at ``FILL_LOG_DIGESTS`` (SQL has no
#   SHA-256 here, and the definition lives in one place: ``storage.chain.fill_digests``;
#   with plain sqlite3 that line is a comment and an empty log needs nothing);
# - ``actions`` is then rebuilt (create, copy, drop, rename, as in versions 3 and 4) so
#   that ``digest`` is NOT NULL with 64 characters, and its triggers made again, with
#   ``actions_counted`` keeping ``log_head`` as well;
# - each game's ``log_head`` is its last entry's digest (NULL for a game with no entry).
FILL_LOG_DIGESTS = "-- fill the log digests (storage.chain.fill_digests)"

_CHAIN_ACTIONS = """
    CREATE TABLE actions_v9 (
        game_id     INTEGER NOT NULL REFERENCES games (id),
        seq         INTEGER NOT NULL CHECK (seq >= 1),          -- position in the game's log
        kind        TEXT NOT NULL CHECK (kind IN
                        ('move', 'resign', 'draw_offer', 'draw_accept', 'draw_decline', 'abort',
                         'undo', 'timeout', 'extend', 'relocate')),
        request_id  TEXT,
        actor_id    INTEGER,
        text        TEXT NOT NULL,                              -- canonical notation as recorded
        rolls       TEXT NOT NULL DEFAULT '[]',                 -- JSON [[sides, value], ...]
        roll_index  INTEGER NOT NULL CHECK (roll_index >= 0),   -- the game's number of its first roll
        created_at  TEXT NOT NULL,
        digest      TEXT NOT NULL CHECK (length(digest) = 64),  -- SHA-256, chained (storage.chain)
        PRIMARY KEY (game_id, seq),
        UNIQUE (game_id, request_id)
    )
"""

_CHAIN_TRIGGERS: list[str] = [
    *(t for t in _LOG_TRIGGERS if "actions_counted" not in t),
    """
    CREATE TRIGGER actions_counted AFTER INSERT ON actions
    BEGIN
        UPDATE games SET log_count = NEW.seq,
                         roll_count = roll_count + json_array_length(NEW.rolls),
                         log_head = NEW.digest
        WHERE id = NEW.game_id;
    END
    """,
]

_CHAIN: list[str] = [
    "ALTER TABLE games ADD COLUMN log_head TEXT",
    "ALTER TABLE actions ADD COLUMN digest TEXT",
    "DROP TRIGGER actions_no_update",
    FILL_LOG_DIGESTS,
    """
    UPDATE games SET log_head = (
        SELECT a.digest FROM actions a WHERE a.game_id = games.id AND a.seq = games.log_count
    ) WHERE log_count > 0
    """,
    _CHAIN_ACTIONS,
    """
    INSERT INTO actions_v9 (game_id, seq, kind, request_id, actor_id, text, rolls,
        roll_index, created_at, digest)
    SELECT game_id, seq, kind, request_id, actor_id, text, rolls, roll_index, created_at, digest
    FROM actions
    """,
    "DROP TABLE actions",
    "ALTER TABLE actions_v9 RENAME TO actions",
    *_CHAIN_TRIGGERS,
]


# Version 10 (issue 27): per-server settings, per-user preferences, and takeback requests.
# - ``guild_settings``: one row per server, its settings as a JSON object (only the ones a
#   moderator set; the rest are the operator's defaults, ``bot.service.settings``);
# - ``settings_log``: every change, append-only: who changed which setting, from what to
#   what, and when (``old``/``new`` are JSON values, NULL for "the default");
# - ``user_prefs``: one row per user, their board preferences as a JSON object;
# - ``games.takeback_offer``/``takeback_seq``: a standing takeback request (the side that
#   asked, and the log length it was asked at: a request is stale once the log grew).
_SETTINGS: list[str] = [
    "ALTER TABLE games ADD COLUMN takeback_offer TEXT CHECK (takeback_offer IN ('white', 'black'))",
    "ALTER TABLE games ADD COLUMN takeback_seq INTEGER",
    """
    CREATE TABLE guild_settings (
        guild_id    INTEGER PRIMARY KEY,
        settings    TEXT NOT NULL DEFAULT '{}',        -- JSON object: the settings changed
        updated_by  INTEGER,
        updated_at  TEXT NOT NULL
    )
    """,
    """
    CREATE TABLE settings_log (
        id          INTEGER PRIMARY KEY AUTOINCREMENT,
        guild_id    INTEGER NOT NULL,
        actor_id    INTEGER NOT NULL,
        name        TEXT NOT NULL,
        old         TEXT,                              -- JSON value; NULL: the default
        new         TEXT,
        created_at  TEXT NOT NULL
    )
    """,
    "CREATE INDEX settings_log_by_guild ON settings_log (guild_id, id)",
    """
    CREATE TRIGGER settings_log_no_update BEFORE UPDATE ON settings_log
    BEGIN SELECT RAISE(ABORT, 'the settings log is append-only'); END
    """,
    """
    CREATE TRIGGER settings_log_no_delete BEFORE DELETE ON settings_log
    BEGIN SELECT RAISE(ABORT, 'the settings log is append-only'); END
    """,
    """
    CREATE TABLE user_prefs (
        user_id     INTEGER PRIMARY KEY,
        prefs       TEXT NOT NULL DEFAULT '{}',        -- JSON object
        updated_at  TEXT NOT NULL
    )
    """,
]


# Version 11 (issue 30): tournaments (``storage.tournaments``): the tournament, its players,
# its rounds (one row per paired round: the key refuses a second pairing), its boards
# (each a game of ``games``, or a forfeit decided without one), and its log, append-only.
_TOURNAMENTS: list[str] = [
    """
    CREATE TABLE tournaments (
        id             INTEGER PRIMARY KEY AUTOINCREMENT,
        guild_id       INTEGER NOT NULL,
        channel_id     INTEGER NOT NULL,               -- where it is announced
        name           TEXT NOT NULL,
        variant        TEXT NOT NULL,
        format         TEXT NOT NULL CHECK (format IN ('swiss', 'round-robin')),
        rounds         INTEGER NOT NULL,
        days           INTEGER NOT NULL,               -- days per move of every game
        rated          INTEGER NOT NULL CHECK (rated IN (0, 1)),
        starts_ms      INTEGER NOT NULL,               -- registration closes then
        status         TEXT NOT NULL CHECK (status IN
                           ('registration', 'running', 'finished', 'cancelled')),
        created_by     INTEGER NOT NULL,
        settings       TEXT NOT NULL DEFAULT '{}',     -- JSON object, fixed at creation
        current_round  INTEGER NOT NULL DEFAULT 0,
        winner_id      INTEGER,
        created_at     TEXT NOT NULL,
        updated_at     TEXT NOT NULL
    )
    """,
    "CREATE INDEX tournaments_by_status ON tournaments (status, starts_ms)",
    "CREATE INDEX tournaments_by_guild ON tournaments (guild_id, status)",
    """
    CREATE TABLE tournament_players (
        tournament_id  INTEGER NOT NULL REFERENCES tournaments (id),
        player_id      INTEGER NOT NULL,
        name           TEXT,
        status         TEXT NOT NULL CHECK (status IN ('joined', 'left', 'withdrawn', 'removed')),
        rating         REAL,                           -- fixed at the start
        seed_no        INTEGER,                        -- starting rank (Berger number)
        out_from       INTEGER,                        -- the first round not paired
        timeouts       INTEGER NOT NULL DEFAULT 0,
        joined_at      TEXT NOT NULL,
        updated_at     TEXT NOT NULL,
        PRIMARY KEY (tournament_id, player_id)
    )
    """,
    """
    CREATE TABLE tournament_rounds (
        tournament_id  INTEGER NOT NULL REFERENCES tournaments (id),
        number         INTEGER NOT NULL,
        status         TEXT NOT NULL CHECK (status IN ('playing', 'done')),
        bye_id         INTEGER,
        bye_points     REAL NOT NULL DEFAULT 0,
        compromises    TEXT NOT NULL DEFAULT '',
        started_ms     INTEGER NOT NULL,
        deadline_ms    INTEGER NOT NULL,
        ended_ms       INTEGER,
        PRIMARY KEY (tournament_id, number)
    )
    """,
    "CREATE INDEX tournament_rounds_playing ON tournament_rounds (status, deadline_ms)",
    """
    CREATE TABLE tournament_games (
        tournament_id  INTEGER NOT NULL,
        round          INTEGER NOT NULL,
        board          INTEGER NOT NULL,
        white_id       INTEGER NOT NULL,
        black_id       INTEGER NOT NULL,
        game_id        INTEGER UNIQUE REFERENCES games (id),   -- NULL: a forfeit, no game
        result         TEXT CHECK (result IN ('1-0', '0-1', '1/2-1/2')),
        forfeit        INTEGER NOT NULL DEFAULT 0 CHECK (forfeit IN (0, 1)),
        ending         TEXT,
        PRIMARY KEY (tournament_id, round, board),
        FOREIGN KEY (tournament_id, round) REFERENCES tournament_rounds (tournament_id, number)
    )
    """,
    """
    CREATE TABLE tournament_log (
        id             INTEGER PRIMARY KEY AUTOINCREMENT,
        tournament_id  INTEGER NOT NULL,
        actor_id       INTEGER,                        -- NULL: the bot itself
        action         TEXT NOT NULL,
        player_id      INTEGER,
        detail         TEXT NOT NULL DEFAULT '',
        created_at     TEXT NOT NULL
    )
    """,
    "CREATE INDEX tournament_log_by_tournament ON tournament_log (tournament_id, id)",
    """
    CREATE TRIGGER tournament_log_no_update BEFORE UPDATE ON tournament_log
    BEGIN SELECT RAISE(ABORT, 'the tournament log is append-only'); END
    """,
    """
    CREATE TRIGGER tournament_log_no_delete BEFORE DELETE ON tournament_log
    BEGIN SELECT RAISE(ABORT, 'the tournament log is append-only'); END
    """,
]

# Version 12 (issue 29): analyses of finished games, kept by the digest of the log they
# analysed (``storage.analyses``): one row per (log head, search depth), the result as
# JSON. A cache: a row may be dropped at any time and is computed again.
_ANALYSES: list[str] = [
    """
    CREATE TABLE analyses (
        digest      TEXT NOT NULL,                     -- the game's log head when analysed
        depth       INTEGER NOT NULL CHECK (depth >= 1),
        game_id     INTEGER NOT NULL REFERENCES games (id),
        result      TEXT NOT NULL,                     -- JSON (engine.analysis.Analysis)
        cpu_ms      INTEGER NOT NULL DEFAULT 0,
        created_at  TEXT NOT NULL,
        PRIMARY KEY (digest, depth)
    )
    """,
    "CREATE INDEX analyses_by_game ON analyses (game_id)",
]


MIGRATIONS: list[list[str]] = [
    _V1,
    _V2,
    _UNDO,
    _V4,
    _SNAPSHOTS,
    _COMPUTER,
    _RATINGS,
    _OUTBOX,
    _CHAIN,
    _SETTINGS,
    _TOURNAMENTS,
    _ANALYSES,
]
LATEST_VERSION = len(MIGRATIONS)
