"""Plain, frozen result values returned by ``GameService``. No engine or driver types leak out."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from bot.service.ratings import PROVISIONAL_RD
from storage import ENDED_STATUSES, Colour, GameStatus, ResultText, Roll
from variants import Status


@dataclass(frozen=True)
class GameView:
    """A game as a player sees it now.

    ``turn``/``to_move_id``/``dice`` are about the side to act and are ``None`` unless
    the game is active (for a challenge, ``to_move_id`` is the challenged user, or
    ``None`` for an open challenge). No die exists before acceptance: a challenge has
    no seed and no ``commitment`` (``None``); the seed is drawn at acceptance and its
    SHA-256 ``commitment`` is public from then on; ``seed`` is ``None`` until the game
    has ended.

    Time (issue 13): ``time_days`` is the time control (days per move; ``None``: no time
    limit). ``deadline`` is when the side to act runs out of time (``None`` when untimed or
    over); for a challenge, when it expires.
    """

    id: int
    variant: str
    variant_title: str
    options: dict[str, Any]
    status: GameStatus
    location_id: int
    guild_id: int | None
    challenger_id: int
    opponent_id: int | None
    white_id: int | None
    black_id: int | None
    turn: Colour | None
    to_move_id: int | None
    dice: tuple[int, ...] | None
    ply: int  # moves played so far; pass it back as ``expected_ply``
    last_move: str | None
    result: ResultText | None
    winner: Colour | None
    result_reason: str | None
    draw_offer: Colour | None
    commitment: str | None
    seed: str | None
    time_days: int | None = None
    deadline: datetime | None = None
    computer: Colour | None = None  # the side the computer plays (C13); None: two people
    computer_level: int | None = None  # 1-3, with ``computer``
    rated: bool = False  # counts for ratings once finished (issue 15)
    # The log's chain head (issue 24, ``storage.chain``): the digest of its latest entry
    # (of the game's start before any), 64 hex characters; ``None`` for a challenge.
    chain_head: str | None = None

    @property
    def is_over(self) -> bool:
        return self.status in ENDED_STATUSES

    def colour_of(self, user_id: int) -> Colour | None:
        """The side ``user_id`` plays (white first if they play both), else ``None``."""
        if user_id == self.white_id:
            return "white"
        if user_id == self.black_id:
            return "black"
        return None


@dataclass(frozen=True)
class RatingChange:
    """What a finished game did to one player's rating in one scope (``scope`` is the
    guild id, or ``None`` for the global rating). ``rd``: the RD after the game."""

    player_id: int
    colour: str
    scope: int | None
    before: float
    after: float
    rd: float

    @property
    def delta(self) -> float:
        return self.after - self.before

    @property
    def is_provisional(self) -> bool:
        return self.rd > PROVISIONAL_RD


@dataclass(frozen=True)
class Outcome:
    """What every command returns.

    - ``messages``: lines to show, in order;
    - ``image``: PNG bytes of the board, when asked for and available;
    - ``recorded``: the action as recorded (``act`` only), e.g. ``Bg5/T%3``;
    - ``rolls``: the ``(sides, value)`` rolls this command drew, already stored;
    - ``repeated``: a retried request id; this is the original result, nothing new applied;
    - ``legal``: the legal actions for the side now to act (empty unless the game is active),
      a sequence that writes each text when it is read (``live.LegalActions``);
    - ``dice_image``: PNG bytes of the dice showing, drawn with the board (``None`` when
      no board was drawn, no dice show, or no dice renderer is configured);
    - ``status``: the position in words (``variants.describe``, contract C1): who acts,
      what the dice allow, what is pending, check; ``None`` for a game that never started;
    - ``ratings``: what the command did to the players' ratings, when it finished a rated
      game (``bot.service.standings.RatingChange``: the server's first, then global);
    - ``owed``: with ``GameService.hold_boards_ms`` set (the Discord bot), the outbox row
      that owes this board to the game's channel, held back while the front end posts it
      itself: ``set_board_message(..., owed=...)`` settles it, ``owe_now`` gives it to the
      delivery worker at once; left alone, the worker posts it when the hold runs out
      (issue 24: a process killed between the commit and its answer loses no board).
    """

    game: GameView
    messages: tuple[str, ...] = ()
    image: bytes | None = None
    recorded: str | None = None
    rolls: tuple[Roll, ...] = ()
    repeated: bool = False
    legal: Sequence[str] = ()
    dice_image: bytes | None = None
    status: Status | None = None
    ratings: tuple[RatingChange, ...] = ()
    owed: int | None = None  # the outbox row of this board, held for its front end to post
    # the side at the bottom of ``image`` (the front end says it; the game's challenger's
    # /prefs orientation may have chosen it, issue 27); None: no image
    orientation: str | None = None

    @property
    def next_user_id(self) -> int | None:
        return self.game.to_move_id

    @property
    def dice(self) -> tuple[int, ...] | None:
        return self.game.dice

    @property
    def game_over(self) -> bool:
        return self.game.is_over

    @property
    def text(self) -> str:
        return "\n".join(self.messages)


@dataclass(frozen=True)
class GameSummary:
    """One line of a game list (no engine state needed). ``clock_side`` is the side to act
    in an active game (``None`` for games stored before time controls existed) and
    ``deadline`` as in ``GameView``."""

    id: int
    variant: str
    status: GameStatus
    location_id: int
    guild_id: int | None
    challenger_id: int
    opponent_id: int | None
    white_id: int | None
    black_id: int | None
    result: ResultText | None
    result_reason: str | None
    created_at: str
    updated_at: str
    moves: int | None = None  # moves on the board (taken-back ones not counted), if asked
    time_days: int | None = None
    clock_side: Colour | None = None
    deadline: datetime | None = None
    computer: Colour | None = None  # as in ``GameView`` (C13)
    computer_level: int | None = None
    rated: bool = False


@dataclass(frozen=True)
class TextBoard:
    """The position as text for a terminal (``GameService.text_board``): the board from
    ``orientation``'s side (``variants.text_board``) and the status in words."""

    game: GameView
    status: Status
    board: str
    orientation: Colour


@dataclass(frozen=True)
class HistoryEntry:
    """One log entry. An ``abort`` entry's ``actor_id`` is the moderator and its ``text``
    the reason they gave; an ``undo`` entry's text names the move it takes back; an
    ``extend`` entry's the moderator and the days added (``2 days
    added to white's clock: why``); a ``timeout`` entry has no actor (the deadline
    scheduler) and says who ran out of time (``white ran out of time``)."""

    seq: int
    kind: str  # 'move', 'resign', 'draw_offer', 'draw_accept', 'draw_decline', 'abort',
    # 'undo', 'timeout', 'extend', 'relocate'
    actor_id: int | None
    text: str
    rolls: tuple[Roll, ...]
    created_at: str
    digest: str | None = None  # the log's chain digest up to this entry (``storage.chain``)


@dataclass(frozen=True)
class History:
    """``record`` is the engine record (``variants.replay(record)`` rebuilds the game),
    or ``''`` for a game that never started: a challenge has no dice and no record."""

    game: GameView
    record: str
    entries: tuple[HistoryEntry, ...]
    start_rolls: tuple[Roll, ...]


@dataclass(frozen=True)
class LogTail:
    """The log entries after entry ``after`` (``GameService.log_tail``), with the game as
    it is now: a reader that keeps what it built from the entries before reads only the
    new ones. ``started``: the game has dice (a challenge, or one declined or cancelled,
    has none and no ``start_rolls``)."""

    game: GameView
    after: int
    entries: tuple[HistoryEntry, ...]
    start_rolls: tuple[Roll, ...]
    started: bool


@dataclass(frozen=True)
class RollMismatch:
    index: int  # 0-based roll number in the game
    where: str  # 'game start' or 'action 7 (Nf3)'
    sides: int
    stored: int
    expected: int


@dataclass(frozen=True)
class VerifyReport:
    """``ok`` is true when the seed matches the commitment, every stored roll equals the
    roll recomputed from the seed, the log is complete (no entry and no roll missing,
    first or last), the log replays on the seed's dice alone, and the stored result
    follows from the log. ``problems`` says, in words, everything that is not so
    (the roll mismatches are also in ``mismatches``, one value each)."""

    game_id: int
    commitment: str
    seed: str
    seed_matches: bool
    rolls_checked: int
    mismatches: tuple[RollMismatch, ...]
    replay_error: str | None
    messages: tuple[str, ...] = field(default=())
    problems: tuple[str, ...] = field(default=())
    log_entries: int = 0

    @property
    def ok(self) -> bool:
        return (
            self.seed_matches
            and not self.mismatches
            and self.replay_error is None
            and not self.problems
        )


@dataclass(frozen=True)
class DeadlineEvent:
    """Something the deadline scheduler did to one game (``GameService.run_due``), for a
    notifier to tell the players:

    - ``'reminder'``: the side to act (``ping``) has little time left (``game.deadline``);
    - ``'timeout'``: the side to act ran out of time; ``game`` is the game after it, which
      is ``finished`` (a loss on time, or a draw) or ``aborted`` (nobody had moved yet);
      ``ping`` is both players; ``image`` the final board when drawn;
    - ``'expired'``: a challenge nobody accepted in time is cancelled.

    ``messages`` say it in words (the first is one line for a log or ``chessgarden
    sweep``); ``board_message`` is the game's latest board or challenge message
    (channel id, message id), whose buttons are to come off; ``at`` is when it was handled.
    """

    kind: str
    game: GameView
    messages: tuple[str, ...]
    ping: tuple[int, ...]
    at: datetime
    board_message: tuple[int, int] | None = None
    image: bytes | None = None
    ratings: tuple[RatingChange, ...] = ()  # a rated game that ended on time

    @property
    def line(self) -> str:
        return f"game {self.game.id}: {self.messages[0] if self.messages else self.kind}"
