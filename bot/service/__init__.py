"""Transport-agnostic game sessions: the heart of the bot. No discord imports, ever.

Everything a Discord command or the local console does goes through ``GameService``.
It returns frozen dataclasses (``bot.service.results``) and raises ``ServiceError``
subclasses (``bot.service.errors``) whose ``str()`` is a one-line user message. On
any ``ServiceError`` nothing stored has changed.

Opening and closing::

    service = await GameService.open(db_path)        # path, $CHESSGARDEN_DB or ./chessgarden.sqlite3
    service = GameService(repository, renderer=..., label=..., rng=...)   # inject instead
    await service.close()

    # renderer: Callable[[variants.Game, str], bytes], (game, 'white'|'black') -> PNG;
    #           default renderers.render_png(game, orientation=...).
    # label:    Callable[[int], str], how messages name a user; default "player <id>".
    #           Discord: label=lambda uid: f"<@{uid}>".

Addressing a game: every per-game method takes ``location_id=`` (the channel or thread
id; it finds the live game there) or ``game_id=``. Exactly one of them.

Commands (keyword-only; all return ``Outcome`` unless noted)::

    challenge(*, location_id, challenger_id, variant, opponent_id=None, colour="random",
              options=None, guild_id=None, request_id=None, seed=None, render=False)
        # opponent_id None = open to anyone. colour is the challenger's: 'white'|'black'|'random'.
        # options e.g. {"free_play": True} (see variants.rules(key).option_names).
        # seed: only for local/demo play (console --seed); normally a fresh secret.
    accept(*, user_id, location_id=None, game_id=None, render=True)
    decline(*, user_id, location_id=None, game_id=None)      # the challenged user
    cancel(*, user_id, location_id=None, game_id=None)       # the challenger
    act(*, user_id, text, location_id=None, game_id=None, request_id=None,
        expected_ply=None, render=True, orientation=None)
        # any notation, including 'reroll', 'pass', 'roll'. Only the side to move.
        # request_id: a retry with the same id returns the original Outcome (repeated=True).
        # expected_ply: the GameView.ply the user saw; if someone acted first -> StaleAction.
        # render: draw the board after the action (orientation None = the side now to move).
    resign(*, user_id, location_id=None, game_id=None, request_id=None)   # either player, any time
    offer_draw(*, user_id, location_id=None, game_id=None, request_id=None)
        # offering when the opponent has offered = agreeing. An offer stands until the
        # other side answers; the other side moving instead declines it.
    accept_draw(*, user_id, location_id=None, game_id=None, request_id=None)
    decline_draw(*, user_id, location_id=None, game_id=None, request_id=None)
    abort(*, user_id, moderator: bool, location_id=None, game_id=None, reason=None)
        # moderator=True is required; works on a challenge or an active game.

Looking (anyone may look)::

    board(*, location_id=None, game_id=None, orientation=None, user_id=None) -> Outcome
        # image is PNG bytes; raises RenderUnavailable if no renderer.
    view(*, location_id=None, game_id=None) -> GameView
    legal_moves(*, location_id=None, game_id=None) -> tuple[str, ...]
    position(*, location_id=None, game_id=None) -> str       # FEN-like text of the position
    history(*, location_id=None, game_id=None) -> History     # .record is variants.replay-able
    list_games(*, location_id=None, guild_id=None, player_id=None,
               statuses=None, limit=25) -> tuple[GameSummary, ...]
    verify(*, location_id=None, game_id=None) -> VerifyReport
        # only once the game has ended (the seed is revealed then); else SeedNotRevealed.

Result types (``bot.service.results``)::

    Outcome(game: GameView, messages: tuple[str, ...], image: bytes | None,
            recorded: str | None, rolls: tuple[(sides, value), ...], repeated: bool)
        .next_user_id -> int | None   .dice -> tuple[int, ...] | None   .game_over -> bool
        .text -> the messages joined by newlines
    GameView(id, variant, variant_title, options, status, location_id, guild_id,
             challenger_id, opponent_id, white_id, black_id, turn, to_move_id, dice, ply,
             last_move, result, winner, result_reason, draw_offer, commitment, seed)
        status: 'challenge'|'active'|'finished'|'aborted'|'declined'|'cancelled'
        .is_over  .colour_of(user_id)
    GameSummary(id, variant, status, location_id, guild_id, challenger_id, opponent_id,
                white_id, black_id, result, result_reason, created_at, updated_at)
    History(game, record, entries: tuple[HistoryEntry(seq, kind, actor_id, text, rolls,
            created_at), ...], start_rolls)
    VerifyReport(game_id, commitment, seed, seed_matches, rolls_checked,
                 mismatches: tuple[RollMismatch(index, where, sides, stored, expected)],
                 replay_error, messages)  .ok

Errors (``bot.service.errors``)::

    ServiceError > InvalidInput > UnknownVariant; NotFound; NotAllowed;
    InvalidState > LocationBusy (.game_id), StaleAction, SeedNotRevealed;
    IllegalAction (.kind: 'syntax'|'illegal'|'ambiguous'|'over'); RequestConflict;
    RenderUnavailable; CorruptGame

General dice roller (``bot.service.dice_expr``)::

    roll_dice(text, rng=None) -> DiceResult(expression, total, terms) .breakdown
    parse_dice(text) -> DiceExpression; DiceExpressionError(ValueError), one-line message

Storage: ``GameService.open(path)`` uses ``storage.SqliteRepository`` (WAL, synchronous=FULL,
``BEGIN IMMEDIATE``, migrations on ``PRAGMA user_version``). Each game row holds the seed
(secret until the game ends) and its SHA-256 commitment; the append-only ``actions`` log
holds every move, resignation, draw offer/answer and abort with the ``(sides, value)`` rolls
it drew. The engine state is only a cache, rebuilt from that log.

Guarantees: one live game (challenge or active) per location; every action runs under
a per-game lock inside one ``BEGIN IMMEDIATE`` transaction; rolls are stored before
the call returns; a retried request id applies once; two racing commands never apply
two actions for one turn (pass ``expected_ply`` from buttons to make that strict for
multi-action turns such as ``reroll``).
"""

from __future__ import annotations

from bot.service.access import Viewer
from bot.service.dice_expr import DiceExpressionError, DiceResult, parse_dice, roll_dice
from bot.service.errors import (
    CorruptGame,
    IllegalAction,
    InvalidInput,
    InvalidState,
    LocationBusy,
    NotAllowed,
    NotFound,
    RenderUnavailable,
    RequestConflict,
    SeedNotRevealed,
    ServiceError,
    StaleAction,
    StoreBusy,
    StoreFull,
    StoreUnavailable,
    TooManyChallenges,
    UnknownVariant,
)
from bot.service.results import (
    GameSummary,
    GameView,
    History,
    HistoryEntry,
    Outcome,
    RollMismatch,
    VerifyReport,
)
from bot.service.service import GameService, render_board, render_dice

__all__ = [
    "CorruptGame",
    "DiceExpressionError",
    "DiceResult",
    "GameService",
    "GameSummary",
    "GameView",
    "History",
    "HistoryEntry",
    "IllegalAction",
    "InvalidInput",
    "InvalidState",
    "LocationBusy",
    "NotAllowed",
    "NotFound",
    "Outcome",
    "RenderUnavailable",
    "RequestConflict",
    "RollMismatch",
    "SeedNotRevealed",
    "ServiceError",
    "StaleAction",
    "StoreBusy",
    "StoreFull",
    "StoreUnavailable",
    "TooManyChallenges",
    "UnknownVariant",
    "VerifyReport",
    "Viewer",
    "parse_dice",
    "render_board",
    "render_dice",
    "roll_dice",
]
