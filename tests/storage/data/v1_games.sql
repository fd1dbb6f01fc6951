-- A schema-version-1 database as Chess Garden wrote it before issue 9 (commit 5c3eea8),
-- dumped with sqlite3 iterdump. Games: 1 pending Guardener challenge and 2 pending open
-- Jepps challenge (both with start rolls drawn at creation, as version 1 did), 3 active
-- Guardener, 4 finished Tquarchess (resigned, after a declined draw offer), 5 declined,
-- 6 aborted challenge, 7 aborted Stone Garden game, 8 active Jepps Random in setup.
-- Seeds are 'v1-seed-<n>'. Used by tests/storage/test_migrations.py.
BEGIN TRANSACTION;
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
    );
INSERT INTO "actions" VALUES(3,1,'move',NULL,101,'f3','[[4,2],[4,1]]','2026-11-23T11:01:36.426+00:00');
INSERT INTO "actions" VALUES(3,2,'move',NULL,202,'Nf6','[[4,4],[4,4]]','2026-11-23T11:01:36.428+00:00');
INSERT INTO "actions" VALUES(3,3,'move',NULL,101,'h4','[[4,3],[4,1]]','2026-11-23T11:01:36.430+00:00');
INSERT INTO "actions" VALUES(3,4,'move',NULL,202,'h5','[[4,4],[4,4]]','2026-11-23T11:01:36.431+00:00');
INSERT INTO "actions" VALUES(3,5,'move',NULL,101,'Gf0','[[4,4],[4,1]]','2026-11-23T11:01:36.432+00:00');
INSERT INTO "actions" VALUES(3,6,'move',NULL,202,'c5','[[4,1],[4,4]]','2026-11-23T11:01:36.434+00:00');
INSERT INTO "actions" VALUES(3,7,'move',NULL,101,'a3','[[4,1],[4,3]]','2026-11-23T11:01:36.435+00:00');
INSERT INTO "actions" VALUES(3,8,'move',NULL,202,'b5','[[4,2],[4,2]]','2026-11-23T11:01:36.436+00:00');
INSERT INTO "actions" VALUES(3,9,'move',NULL,101,'Gd0','[[4,3],[4,4]]','2026-11-23T11:01:36.437+00:00');
INSERT INTO "actions" VALUES(4,1,'move',NULL,202,'b3','[]','2026-11-23T11:01:36.457+00:00');
INSERT INTO "actions" VALUES(4,2,'move',NULL,303,'d6','[]','2026-11-23T11:01:36.459+00:00');
INSERT INTO "actions" VALUES(4,3,'move',NULL,202,'g3','[]','2026-11-23T11:01:36.461+00:00');
INSERT INTO "actions" VALUES(4,4,'move',NULL,303,'Bd7/T%3','[[4,3]]','2026-11-23T11:01:36.463+00:00');
INSERT INTO "actions" VALUES(4,5,'move',NULL,202,'Bh3/T%3','[[4,3]]','2026-11-23T11:01:36.464+00:00');
INSERT INTO "actions" VALUES(4,6,'move',NULL,303,'Na6','[]','2026-11-23T11:01:36.466+00:00');
INSERT INTO "actions" VALUES(4,7,'draw_offer',NULL,303,'black offers a draw','[]','2026-11-23T11:01:36.467+00:00');
INSERT INTO "actions" VALUES(4,8,'draw_decline',NULL,202,'white declines the draw','[]','2026-11-23T11:01:36.468+00:00');
INSERT INTO "actions" VALUES(4,9,'move',NULL,202,'f3','[]','2026-11-23T11:01:36.469+00:00');
INSERT INTO "actions" VALUES(4,10,'move',NULL,303,'Rb8','[]','2026-11-23T11:01:36.471+00:00');
INSERT INTO "actions" VALUES(4,11,'move',NULL,202,'Ba3','[]','2026-11-23T11:01:36.472+00:00');
INSERT INTO "actions" VALUES(4,12,'resign',NULL,303,'black resigns','[]','2026-11-23T11:01:36.473+00:00');
INSERT INTO "actions" VALUES(6,1,'abort',NULL,999,'test abort','[]','2026-11-23T11:01:36.478+00:00');
INSERT INTO "actions" VALUES(7,1,'move',NULL,101,'Hde4','[]','2026-11-23T11:01:36.520+00:00');
INSERT INTO "actions" VALUES(7,2,'move',NULL,303,'Hab5','[]','2026-11-23T11:01:36.522+00:00');
INSERT INTO "actions" VALUES(7,3,'move',NULL,101,'Pc6','[]','2026-11-23T11:01:36.523+00:00');
INSERT INTO "actions" VALUES(7,4,'move',NULL,303,'Hhg5','[]','2026-11-23T11:01:36.525+00:00');
INSERT INTO "actions" VALUES(7,5,'abort',NULL,999,'spam','[]','2026-11-23T11:01:36.525+00:00');
INSERT INTO "actions" VALUES(8,1,'move',NULL,202,'Ra1','[[6,4],[6,1]]','2026-11-23T11:01:36.529+00:00');
INSERT INTO "actions" VALUES(8,2,'move',NULL,202,'Kb1','[[6,4],[6,6]]','2026-11-23T11:01:36.530+00:00');
INSERT INTO "actions" VALUES(8,3,'move',NULL,202,'Nc1','[[6,4],[6,6]]','2026-11-23T11:01:36.531+00:00');
INSERT INTO "actions" VALUES(8,4,'move',NULL,202,'Rd1','[[6,4],[6,5]]','2026-11-23T11:01:36.532+00:00');
INSERT INTO "actions" VALUES(8,5,'move',NULL,202,'Qe1','[[6,2],[6,5]]','2026-11-23T11:01:36.533+00:00');
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
    );
INSERT INTO "games" VALUES(1,'guardener','{}','challenge',11,5,101,202,'white',NULL,NULL,NULL,NULL,NULL,'v1-seed-0','e3c89e3f384d674f0f94d9a004bec22b57490d816fe1c197761d9fe8e656a351','[[4,2],[4,3]]',NULL,'2026-11-23T11:01:36.399+00:00','2026-11-23T11:01:36.399+00:00');
INSERT INTO "games" VALUES(2,'jepps_random','{}','challenge',12,5,101,NULL,'random',NULL,NULL,NULL,NULL,NULL,'v1-seed-1','e3d239dc65b2a3dca72fd1a8dc93d4c64868c8ec8502295ee0c184e9fc5d2fb1','[[6,1],[6,4]]',NULL,'2026-11-23T11:01:36.412+00:00','2026-11-23T11:01:36.412+00:00');
INSERT INTO "games" VALUES(3,'guardener','{}','active',13,5,101,202,'white',101,202,NULL,NULL,NULL,'v1-seed-2','2874d7d323751172adbcb0a02026645429bf2b0b0f2e7792d006fb35824adcc4','[[4,3],[4,1]]',NULL,'2026-11-23T11:01:36.413+00:00','2026-11-23T11:01:36.437+00:00');
INSERT INTO "games" VALUES(4,'tquarchess','{}','finished',14,6,303,202,'black',202,303,'1-0','resignation',NULL,'v1-seed-3','6254c7d714bbef9a1ff1038a32c96e9a3df7e878ae1722d3af43239cabbd2926','[]',NULL,'2026-11-23T11:01:36.438+00:00','2026-11-23T11:01:36.473+00:00');
INSERT INTO "games" VALUES(5,'guardener','{}','declined',15,5,101,303,'random',NULL,NULL,NULL,NULL,NULL,'v1-seed-4','2c5c0b4933df73a5852e2a3f4fb8d52cef3f75d421aad7dd892dc6715ca4b831','[[4,1],[4,4]]',NULL,'2026-11-23T11:01:36.474+00:00','2026-11-23T11:01:36.475+00:00');
INSERT INTO "games" VALUES(6,'kings_guard','{}','aborted',16,5,101,303,'random',NULL,NULL,NULL,'test abort',NULL,'v1-seed-5','47325493cab8e491fe5551fd0bb5b26abeeadb9e24cfe4bcb8178a464034ed0e','[]',NULL,'2026-11-23T11:01:36.476+00:00','2026-11-23T11:01:36.478+00:00');
INSERT INTO "games" VALUES(7,'stone_garden','{}','aborted',17,5,101,303,'white',101,303,NULL,'spam',NULL,'v1-seed-6','9074b7201a8bffe55882df75eda336477d3b09946e8f6f4c0ba06273cb80bc68','[]',NULL,'2026-11-23T11:01:36.479+00:00','2026-11-23T11:01:36.526+00:00');
INSERT INTO "games" VALUES(8,'jepps_random','{}','active',18,5,202,303,'white',202,303,NULL,NULL,NULL,'v1-seed-7','5d1e2aa065895edca781bb7014a58878ddbbbbafd5f7aed3c13b55543b560715','[[6,6],[6,3]]',NULL,'2026-11-23T11:01:36.526+00:00','2026-11-23T11:01:36.533+00:00');
CREATE TABLE players (
        id          INTEGER PRIMARY KEY,   -- the platform's user id (a Discord snowflake)
        name        TEXT,
        created_at  TEXT NOT NULL,
        updated_at  TEXT NOT NULL
    );
INSERT INTO "players" VALUES(101,NULL,'2026-11-23T11:01:36.399+00:00','2026-11-23T11:01:36.399+00:00');
INSERT INTO "players" VALUES(202,NULL,'2026-11-23T11:01:36.399+00:00','2026-11-23T11:01:36.399+00:00');
INSERT INTO "players" VALUES(303,NULL,'2026-11-23T11:01:36.438+00:00','2026-11-23T11:01:36.438+00:00');
CREATE UNIQUE INDEX games_one_live_per_location
        ON games (location_id) WHERE status IN ('challenge', 'active')
    ;
CREATE INDEX games_by_guild ON games (guild_id, id);
CREATE INDEX games_by_white ON games (white_id, id);
CREATE INDEX games_by_black ON games (black_id, id);
CREATE INDEX games_by_challenger ON games (challenger_id, id);
CREATE TRIGGER actions_no_update BEFORE UPDATE ON actions
    BEGIN SELECT RAISE(ABORT, 'the action log is append-only'); END;
CREATE TRIGGER actions_no_delete BEFORE DELETE ON actions
    BEGIN SELECT RAISE(ABORT, 'the action log is append-only'); END;
CREATE TRIGGER games_start_rolls_once BEFORE UPDATE OF start_rolls ON games
    WHEN OLD.start_rolls <> '[]'
    BEGIN SELECT RAISE(ABORT, 'start rolls are already stored'); END;
DELETE FROM "sqlite_sequence";
INSERT INTO "sqlite_sequence" VALUES('games',8);
COMMIT;
PRAGMA user_version = 1;
