"""Transport-agnostic game sessions: the heart of the bot. No discord imports, ever.

Everything a Discord command or the local console does goes through ``GameService``.
It returns frozen dataclasses (``bot.service.results``) and raises ``ServiceError``
subclasses (``bot.service.errors``) whose ``str()`` is a one-line user message. On
any ``ServiceError`` nothing stored has changed.

Opening and closing::

    service = await GameService.open(db_path, busy_timeout_ms=None, checkpoint_every=1.0,
                                     **options)
        # path, $CHESSGARDEN_DB or ./chessgarden.sqlite3. A store that cannot be opened
        # raises storage.StoreOpenError, one line naming the file and the cause, with
        # every connection closed (the process can exit at once).
    service = GameService(repository, renderer=..., dice_renderer=..., label=..., rng=...,
                          seed_factory=..., max_open_challenges=3, cpu_workers=2,
                          cache_size=4096, snapshots=True)
    service.start_warm_up(gc_policy=True)  # after a restart: background task (issues 12, 26)
    await service.drawings_ready()  # its drawings done (the bot waits before interactions)
    await service.warm_up(limit=None) -> list[int]  # the games, awaited; ids warmed, in order
    await service.idle()   # wait for background work (warm-up, snapshots) and write them
    await service.close()  # also writes the snapshots still pending

    # renderer:      Callable[[variants.Game, str], bytes], (game, 'white'|'black') -> PNG;
    #                default renderers.render_png(game, orientation=...). None: no boards.
    # dice_renderer: Callable[[str, tuple[int, ...]], bytes], (variant, dice) -> PNG;
    #                default renderers.render_dice_png with the variant's die. None: no dice.
    # label:         Callable[[int], str], how messages name a user; default "player <id>".
    #                Discord: label=lambda uid: f"<@{uid}>".
    # max_open_challenges: open challenges one user may have at once (contract C7).
    # cpu_workers:   worker threads for rebuilds and images, and worker processes for verify.
    # clock:         a bot.service.Clock (now(), sleep_until()); default SystemClock. Tests
    #                pass a ManualClock. GameService.open stamps log entries on it too.
    # challenge_hours: hours before a challenge nobody accepted expires (24).
    # cache_size:    live games kept in memory (engine state), least recently used out.
    # snapshots:     keep a snapshot of each live game every 8 log entries (taken after
    #                the answer, written in batches), so a game that is not in memory is
    #                restored and replays a few entries, not its whole log
    #                (bot.service.snapshots; the log stays the truth).
    # checkpoint_every: seconds between the store's background WAL checkpoints (None:
    #                SQLite's own, inside commits; storage.sqlite).
    # start_warm_up: on a background thread of its own, never the players' (issue 26):
    #                with the service's own renderers, it starts the painter process
    #                (bot.service.painter), which draws the tiles, empty boards and start
    #                positions, then every player's board and dice, off this process's
    #                interpreter (before it, and without a warm-up: worker threads);
    #                with other renderers, their tiles and empty boards here; then
    #                live games rebuilt into the cache, the most recently played first,
    #                each in a quiet moment (players' requests first); then, with
    #                gc_policy, gc.freeze() and no automatic full collections
    #                (bot.service.gcpolicy). `chessgarden run` starts it before the bot
    #                logs in; the bot's setup_hook waits for drawings_ready().

Addressing a game: every per-game method takes ``location_id=`` (the channel or thread
id; it finds the live game there, or for looking the last game there) or ``game_id=``.
Exactly one of them.

Who may see a game (contract C3): every per-game method takes ``viewer=`` (a
``Viewer(user_id, guild_id, location_id, from_button=False)``). ``None`` is a trusted
local caller (the console, tests): no check. With a viewer, the game must be in the
viewer's server; in a DM (``guild_id=None``) only the viewer's own games; for a button
(``from_button=True``) the game's location must also be the viewer's. Otherwise
``NotFound("there is no game N here")``, the same words as for a game that does not
exist. ``list_games(viewer=...)`` lists only the viewer's server (or, in a DM, only the
viewer's own games).

Commands (keyword-only; all return ``Outcome``)::

    challenge(*, location_id, challenger_id, variant, opponent_id=None, colour="random",
              options=None, guild_id=None, request_id=None, days=None, rated=False)
        # days: the time control, 1 to 14 days per move; None = no time limit.
        # rated: the game counts for ratings once finished (Discord's /play: default true).
        # No seed, no engine game and no die until acceptance (C4): the Outcome has no
        # dice, no image, and GameView.commitment is None.
        # opponent_id None = open to anyone. colour is the challenger's: 'white'|'black'|'random'.
        # options e.g. {"free_play": True} (see variants.rules(key).option_names).
        # Over max_open_challenges open challenges of this challenger -> TooManyChallenges.
    accept(*, user_id, location_id=None, game_id=None, render=True, seed=None, viewer=None)
        # The game starts: the seed is drawn, the engine game made and its first dice
        # rolled and stored, in one transaction. messages: "Game N begins: ...",
        # "Dice commitment: <sha256>", then the first to-move line with the dice.
        # seed: only for local/demo play (console --seed); normally a fresh secret.
    decline(*, user_id, location_id=None, game_id=None, viewer=None)   # the challenged user
    cancel(*, user_id, location_id=None, game_id=None, viewer=None)    # the challenger
    act(*, user_id, text, location_id=None, game_id=None, request_id=None,
        expected_ply=None, render=True, orientation=None, viewer=None)
        # any notation, including 'reroll', 'pass', 'roll'. Only the side to move.
        # request_id: a retry with the same id returns the original Outcome (repeated=True).
        # expected_ply: the GameView.ply the user saw; if someone acted first -> StaleAction.
        # render: draw the board and the dice after the action (orientation None = the
        # side now to move). Outcome.legal always comes with it (C9: one call per move).
    resign(*, user_id, location_id=None, game_id=None, request_id=None, render=False,
           viewer=None)                                      # either player, any time
    offer_draw(*, user_id, ..., request_id=None, render=False, viewer=None)
        # offering when the opponent has offered = agreeing. An offer stands until the
        # other side answers; the other side moving instead declines it.
    accept_draw(*, user_id, ..., request_id=None, render=False, viewer=None)
    decline_draw(*, user_id, ..., request_id=None, render=False, viewer=None)
    agree_draw(*, user_id, location_id=None, game_id=None, request_id=None, render=False)
        # hot-seat only (the console, both players at one keyboard): the draw is agreed
        # in ONE transaction, whatever offer stands. No viewer: never for Discord.
    undo(*, user_id, location_id=None, game_id=None, request_id=None, render=False)
        # hot-seat only (the console): no viewer, never for Discord. Takes back the last
        # move not taken back yet, only while no die has been rolled since it (its own
        # rolls included), else InvalidState saying so. Logged as an 'undo' entry (text
        # "undo <move>"); rebuilds, the record and verify skip the move taken back.
    request_takeback(*, user_id, location_id=None, game_id=None, request_id=None,
                     render=False, viewer=None)
    accept_takeback(*, user_id, location_id=None, game_id=None, request_id=None,
                    render=False, viewer=None)
    decline_takeback(*, user_id, location_id=None, game_id=None, viewer=None)
        # A takeback by agreement (issue 27): the asker's last move and any reply are
        # taken back (one 'undo' entry each, as undo logs them) once the opponent accepts,
        # while no die has been rolled since that move. The computer answers at once:
        # agrees at levels 1 and 2, NotAllowed at 3. decline also withdraws one's own.

    abort(*, user_id, moderator: bool, location_id=None, game_id=None, reason=None,
          viewer=None)
        # moderator=True is required; works on a challenge or an active game, but a
        # moderator who plays in a started game gets NotAllowed("you play in this game;
        # resign instead") (C5). Logged as an 'abort' entry: actor_id = who, text = why.

    extend(*, user_id, moderator: bool, days, location_id=None, game_id=None, reason=None,
           viewer=None)
        # a moderator who does not play adds 1-14 days to the clock of the side to act;
        # logged as an 'extend' entry ("2 days added to white's clock: why").

Time (issue 13; ``bot.service.clock``, ``bot.service.deadlines``, ``bot.service.scheduler``)::

    # A timed game's side to act must act by GameView.deadline: its turn's start + days
    # (+ extensions). The clock restarts only when the side to act changes (a re-roll, a
    # Tquarc roll, a Jepps placement run do not). After the deadline every command that
    # would change the game raises TimeUp (InvalidState) until the scheduler ends it.
    next_due() -> datetime | None             # the next due instant (an indexed query)
    run_due(*, now=None, render=False, limit=100) -> tuple[DeadlineEvent, ...]
        # handles everything due at now, each item exactly once across processes (claimed
        # in the database): challenges expire ('expired'), reminders ('reminder': one per
        # turn, 24 h or a quarter of the turn before the deadline), timeouts ('timeout': a
        # 'timeout' log entry; a loss on time, a draw if the winner cannot win
        # (Variant.can_still_win), or an abort if nobody completed a turn).
    add_deadline_listener(fn) / remove_deadline_listener(fn)   # fn(due: datetime), sync
    Scheduler(service, notifier=None, *, clock=None, render=False, max_sleep=5 min)
        .start() / .stop() / .run() / .run_once(now=None) / .wake(due)
        # the background task: a pass, then sleep until next_due() (at most max_sleep), or
        # until a new earlier deadline; notifier.deadline_event(event) for each event.
    DeadlineEvent(kind, game: GameView, messages, ping: tuple[int, ...], at,
                  board_message: (channel, message) | None, image: bytes | None) .line

The computer opponent (issue 14, C13; ``bot.service.computer``)::

    play_computer(*, user_id, location_id, variant, level, colour="random", options=None,
                  guild_id=None, request_id=None, seed=None, render=True) -> Outcome
        # a game against the computer (level 1-3), started at once: no challenge, untimed,
        # unrated (GameView.computer: its side; computer_level). colour is the player's.
        # The computer is the player COMPUTER_ID (3); labels name it "the computer".
    computer_move(*, game_id, render=False, budget_s=None) -> Outcome | None
        # claims the computer's turn in the database, searches in a worker process
        # (engine.choose) and plays through act as
        # COMPUTER_ID with expected_ply (logged, verifiable). None: not its turn, or the
        # game moved on meanwhile. ComputerBusy(.until_ms): another claim holds (a claim
        # lasts think_lease_s = 30 s; a dead thinker's runs out). computer_budget_s (2 s)
        # is the player's whole wait, from the claim to the board: the search gets it
        # less what was spent before it and AFTER_SEARCH_S for the move's commit and board.
    computer_turns() -> tuple[int, ...]       # active games where the computer is to act
    add_computer_listener(fn) / remove_computer_listener(fn)   # fn(game_id), sync
    ComputerRunner(service, notifier=None, *, render=False)
        .start() / .stop() / .wake(game_id) / .idle()
        # the background mover: wakes on each commit that leaves the computer to act,
        # keeps moving while it acts again (a re-roll), resumes computer_turns() on start
        # (once across processes); notifier.computer_moved(outcome) for each move.
    offer_draw_to_computer(*, user_id, location_id=None, game_id=None, request_id=None,
                           render=False, viewer=None) -> DrawAnswer(outcome, accepted)
        # on the player's turn only: one search judges the position, then ONE transaction
        # logs the player's draw_offer and the computer's draw_accept/draw_decline; no
        # offer ever stands, so the runner posts nothing (bot.service.computer_draw).
    play_computer(..., hold=True) then release_computer(*, game_id)
        # a front end that must post the game first (a new thread) holds the computer's
        # first move until the game is visible (bot.service.withdraw).

Taking back a game nobody has seen (``bot.service.withdraw``)::

    withdraw(*, user_id, game_id, reason) -> Outcome
        # by the player who made it, while no person has acted in it (the computer's
        # moves do not count): a challenge is cancelled; a started game is aborted with an
        # 'abort' entry by that player, text "withdrawn: <reason>". InvalidState after a
        # person's action or once over; NotAllowed for anyone else.

Ids: COMPUTER_ID (3) and the console's players (1, 2) are RESERVED_IDS; is_person(uid) is
False for them and for None: front ends never mention or ping them.

Looking (anyone who can see the game)::

    board(*, location_id=None, game_id=None, orientation=None, user_id=None,
          viewer=None) -> Outcome
        # image and dice_image are PNG bytes, with legal; RenderUnavailable if the board
        # cannot be drawn; InvalidState for a challenge (no board before the dice exist).
    text_board(*, location_id=None, game_id=None, orientation=None, viewer=None) -> TextBoard
        # the board as text (variants.text_board) from orientation's side (default: the
        # side to act; White once over) and the status in words; in a worker thread.
    view(*, location_id=None, game_id=None, viewer=None) -> GameView
    legal_moves(*, location_id=None, game_id=None, viewer=None) -> tuple[str, ...]
    position(*, location_id=None, game_id=None, viewer=None) -> str    # FEN-like text
    history(*, location_id=None, game_id=None, viewer=None) -> History
    log_tail(*, game_id, after=0, viewer=None) -> LogTail   (the entries after ``after`` only)
        # .record is variants.replay-able ('' for a game that never started: a
        # challenge shows no dice); .entries include aborts with who and why.
    list_games(*, location_id=None, guild_id=None, player_id=None,
               statuses=None, limit=25, viewer=None, count_moves=False)
        -> tuple[GameSummary, ...]
        # count_moves: GameSummary.moves from each game's log (one read each, no replay)
    verify(*, location_id=None, game_id=None, viewer=None) -> VerifyReport
        # only once the game has ended (the seed is revealed then); else SeedNotRevealed;
        # InvalidState for a game that never started. Runs in a worker process; kept
        # per game until the stored game changes (see bot.service.looking).

Analyses (issue 29; ``bot.service.analysis``, the engine's ``engine.analysis``)::

    analyse(*, location_id=None, game_id=None, viewer=None, depth=None, progress=None,
            render=True, names=None, locale=None, post_in=None, request_id=None)
            -> AnalysisReport
        # a game that is over (InvalidState while it is played, or without moves): each
        # action's error and each roll's luck (report.analysis, an engine Analysis), run
        # in a worker process once per log head and depth and kept in the store
        # (report.cached on a later call, even after a restart). At most max_analyses
        # (default 1) run at once; the rest wait in order. progress(AnalysisProgress(
        # game_id, state 'queued'|'running'|'done', position, done, total)) on the loop.
        # report.image: the graph (renderers.graph) when render, its words in locale
        # (default: bot.i18n.pictures(), the public pictures' language); report.boards: actions
        # played -> (channel id, message id) of the board posted then; report.last_board.
        # post_in (a channel id, a game in a server): the summary post is owed there, an
        # 'analysis' outbox row (report.owed, report.nonce; one per game and request_id),
        # held while the front end posts it with that nonce (owed_posted), else the worker.
    max_analyses  # settable: analyses at once

Ratings (issue 15; Glicko-2 in ``bot.service.ratings``, the rules in
``bot.service.rating_log``)::

    leaderboard(*, variant, guild_id=None, user_id=None, limit=10) -> Leaderboard
        # guild_id None: the global ratings. Leaderboard(variant, variant_title, scope,
        # top: tuple[Standing, ...], own: Standing | None); own: user_id's standing when
        # rated but outside the top. Standing(rank, player_id, name, rating, rd, games,
        # wins, draws, losses) .is_provisional (RD above 110: shown with "?")
    profile(*, user_id, guild_id=None, viewer_id=None) -> Profile
        # Profile(user_id, name, scope, records: tuple[VariantRecord(variant,
        # variant_title, standing, recent: tuple[RecentResult(game_id, opponent_id,
        # score, before, after), ...]), ...], current: tuple[GameSummary, ...],
        # boards: tuple[(channel id, message id) | None, ...]); current games: in that
        # server, or without one only the viewer's own
    game_ratings(*, game_id) -> tuple[RatingChange, ...]
    rebuild_ratings(*, check=False) -> RebuildReport(games, ratings, matched,
                                                      differences, written) .line
        # every rating recomputed from the finished games in the order they finished;
        # replaces the stored ones (unless check) when they differ.
    # A command that finishes a rated game between two different people (act, resign,
    # draw agreement, a timeout) rates it in the same transaction: Outcome.ratings /
    # DeadlineEvent.ratings hold RatingChange(player_id, colour, scope, before, after,
    # rd) .delta .is_provisional (the server's first, then the global ones), and the
    # messages end with "Rating changes (server): white ... 1662? (+162); black ...".
    # Aborted, unrated, hot-seat (one person) and AI games change no rating.

Board messages (contract C8; no viewer, the Discord layer's own bookkeeping)::

    set_board_message(*, game_id, channel_id, message_id) -> tuple[int, int] | None
        # the latest board post; returns the one it replaces (read in the same transaction)
    board_message(*, game_id) -> tuple[int, int] | None             # (channel id, message id)

Result types (``bot.service.results``)::

    Outcome(game: GameView, messages: tuple[str, ...], image: bytes | None,
            recorded: str | None, rolls: tuple[(sides, value), ...], repeated: bool,
            legal: Sequence[str], dice_image: bytes | None, status: variants.Status | None,
            ratings: tuple[RatingChange, ...])
        .next_user_id -> int | None   .dice -> tuple[int, ...] | None   .game_over -> bool
        .text -> the messages joined by newlines
        # legal: the legal actions for the side now to act (empty unless active), a sequence
        #   equal to their tuple that writes each text only when read (live.LegalActions);
        # dice_image: the dice showing, drawn with the board when render=True;
        # status: the position in words (variants.describe, C1), computed with legal.
    TextBoard(game: GameView, status: variants.Status, board: str, orientation)
    GameView(id, variant, variant_title, options, status, location_id, guild_id,
             challenger_id, opponent_id, white_id, black_id, turn, to_move_id, dice, ply,
             last_move, result, winner, result_reason, draw_offer, commitment, seed,
             time_days, deadline, computer, computer_level, rated)
        computer: the side the computer plays ('white'|'black') or None; computer_level 1-3
        time_days: days per move or None; deadline: when the side to act runs out of
        time (a challenge: when it expires), an aware UTC datetime, or None
        status: 'challenge'|'active'|'finished'|'aborted'|'declined'|'cancelled'
        commitment: str | None (None for a challenge)   seed: None until the game ended
        .is_over  .colour_of(user_id)
    GameSummary(id, variant, status, location_id, guild_id, challenger_id, opponent_id,
                white_id, black_id, result, result_reason, created_at, updated_at,
                moves: int | None, time_days, clock_side, deadline, computer, computer_level,
                rated)
    History(game, record, entries: tuple[HistoryEntry(seq, kind, actor_id, text, rolls,
            created_at, digest), ...], start_rolls)
    LogTail(game, after, entries, start_rolls, started)
    VerifyReport(game_id, commitment, seed, seed_matches, rolls_checked,
                 mismatches: tuple[RollMismatch(index, where, sides, stored, expected)],
                 replay_error, messages, problems, log_entries)  .ok
        # problems: every finding in words (gaps, roll numbers, rolls, replay, result).

Errors (``bot.service.errors``)::

    ServiceError > InvalidInput > UnknownVariant; NotFound; NotAllowed;
    InvalidState > LocationBusy (.game_id), StaleAction, SeedNotRevealed, TooManyChallenges,
                   TimeUp;
    IllegalAction (.kind: 'syntax'|'illegal'|'ambiguous'|'over'; .refusal: the engine's
                   variants.Refusal, C2: cause, the rule in a sentence, closest actions);
    RequestConflict;
    RenderUnavailable; CorruptGame;
    StoreUnavailable > StoreBusy ("The database is busy; try again in a moment."),
                       StoreFull ("The database disk is full; nothing was saved. Try again later."),
                       StoreLost ("The database could not be reached; nothing was saved. ...")
        # a lock held past the busy timeout, a full disk, a lost connection: rolled back,
        # retry works. A connection lost during COMMIT: the command asks the store again
        # (its request id) and answers as if played, or StoreLost ("... not played ...").
    StoreDamaged (the store's line: "X is damaged (...): restore it from a backup");
    StoreFault; OutcomeUnknown (lost during COMMIT and the store stayed out of reach)

General dice roller (``bot.service.dice_expr``)::

    roll_dice(text, rng=None) -> DiceResult(expression, total, terms) .breakdown
    parse_dice(text) -> DiceExpression; DiceExpressionError(ValueError), one-line message

Storage: ``GameService.open(path)`` uses ``storage.SqliteRepository`` (WAL, synchronous=FULL,
``BEGIN IMMEDIATE``, migrations on ``PRAGMA user_version``); ``GameService.open(url)`` with a
``postgresql://`` URL uses ``storage.PgRepository`` (asyncpg pool, the game row locked
``FOR NO KEY UPDATE`` in every command, finishing games and rating them one at a time under
an advisory lock, the same migrations; docs/scaling.md). ``shards=`` (``storage.Shards``):
the deadline scheduler and the computer's resumption handle only those Discord shards' games. Each started game's row holds
the seed (drawn at acceptance, secret until the game ends), its SHA-256 commitment, and
the count of its log entries and rolls; the append-only ``actions`` log holds every
move, resignation, draw offer/answer, take-back, abort, timeout and extension with the
``(sides, value)`` rolls it drew and the number of its first roll. The engine state is only a cache, rebuilt from that
log (in a worker thread).

Guarantees: one live game (challenge or active) per location; every action runs under
a per-game lock inside one ``BEGIN IMMEDIATE`` transaction; rolls are stored before
the call returns; a retried request id applies once; two racing commands never apply
two actions for one turn (pass ``expected_ply`` from buttons to make that strict for
multi-action turns such as ``reroll``); replays, verification and drawing run off the
event loop.

Settings (issue 27): ``service.server_settings`` (``bot.service.settings.ServerSettings``)::

    await of_guild(guild_id) -> GuildSettings      # days, threads, rated, channels, ...
    await change(guild_id=, actor_id=, values={name: value}, reset=(), add_channels=(),
                 remove_channels=()) -> SettingsChanged   # stored and logged, one entry each
    await log(guild_id, limit=20) -> list[storage.SettingChange]
    await prefs(user_id) -> UserPrefs; await set_prefs(user_id=, theme=, orientation=)
        # a game's boards are drawn in its challenger's theme (board(theme=) overrides).
"""

from __future__ import annotations

from bot.service.access import Viewer
from bot.service.analysis import AnalysisProgress, AnalysisReport
from bot.service.clock import Clock, ManualClock, SystemClock
from bot.service.computer import ComputerBusy, ComputerNotifier, ComputerRunner
from bot.service.computer_draw import DrawAnswer
from bot.service.core import COMPUTER_ID, RESERVED_IDS, is_person
from bot.service.dice_expr import DiceExpressionError, DiceResult, parse_dice, roll_dice
from bot.service.errors import (
    CorruptGame,
    IllegalAction,
    InvalidInput,
    InvalidState,
    LocationBusy,
    NotAllowed,
    NotFound,
    OutcomeUnknown,
    RenderUnavailable,
    RequestConflict,
    SeedNotRevealed,
    ServiceError,
    StaleAction,
    StoreBusy,
    StoreDamaged,
    StoreFault,
    StoreFull,
    StoreLost,
    StoreUnavailable,
    TimeUp,
    TooManyChallenges,
    UnknownVariant,
)
from bot.service.outbox import Owed, PostFailure
from bot.service.rating_log import (
    Leaderboard,
    Profile,
    RebuildReport,
    RecentResult,
    Standing,
    VariantRecord,
)
from bot.service.results import (
    DeadlineEvent,
    GameSummary,
    GameView,
    History,
    HistoryEntry,
    LogTail,
    Outcome,
    RatingChange,
    RollMismatch,
    TextBoard,
    VerifyReport,
)
from bot.service.scheduler import Notifier, Scheduler
from bot.service.service import GameService, render_board, render_dice
from bot.service.settings import GuildSettings, ServerSettings, SettingDefaults, UserPrefs
from bot.service.takeback import may_offer_takeback

__all__ = [
    "AnalysisProgress",
    "AnalysisReport",
    "COMPUTER_ID",
    "RESERVED_IDS",
    "DrawAnswer",
    "is_person",
    "ComputerBusy",
    "ComputerNotifier",
    "ComputerRunner",
    "Clock",
    "CorruptGame",
    "DeadlineEvent",
    "DiceExpressionError",
    "DiceResult",
    "GameService",
    "GuildSettings",
    "ServerSettings",
    "SettingDefaults",
    "UserPrefs",
    "may_offer_takeback",
    "GameSummary",
    "GameView",
    "History",
    "HistoryEntry",
    "LogTail",
    "IllegalAction",
    "InvalidInput",
    "InvalidState",
    "Leaderboard",
    "LocationBusy",
    "ManualClock",
    "NotAllowed",
    "Notifier",
    "NotFound",
    "Outcome",
    "Owed",
    "PostFailure",
    "Profile",
    "RatingChange",
    "RebuildReport",
    "RecentResult",
    "RenderUnavailable",
    "RequestConflict",
    "RollMismatch",
    "Scheduler",
    "SeedNotRevealed",
    "ServiceError",
    "StaleAction",
    "Standing",
    "OutcomeUnknown",
    "StoreBusy",
    "StoreDamaged",
    "StoreFault",
    "StoreFull",
    "StoreLost",
    "StoreUnavailable",
    "SystemClock",
    "TextBoard",
    "TimeUp",
    "TooManyChallenges",
    "UnknownVariant",
    "VariantRecord",
    "VerifyReport",
    "Viewer",
    "parse_dice",
    "render_board",
    "render_dice",
    "roll_dice",
]
