"""Plain values that cross the repository boundary. No SQL here.

Every row the repository returns is a frozen dataclass, so callers never see a
database cursor or a driver type, and a PostgreSQL repository can return the same
values.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Literal

GameStatus = Literal["challenge", "active", "finished", "aborted", "declined", "cancelled"]
STATUSES: tuple[GameStatus, ...] = (
    "challenge",
    "active",
    "finished",
    "aborted",
    "declined",
    "cancelled",
)
LIVE_STATUSES: tuple[GameStatus, ...] = ("challenge", "active")
ENDED_STATUSES: tuple[GameStatus, ...] = ("finished", "aborted", "declined", "cancelled")

ActionKind = Literal[
    "move",
    "resign",
    "draw_offer",
    "draw_accept",
    "draw_decline",
    "abort",
    "undo",
    "timeout",
    "extend",
    "relocate",
]
ACTION_KINDS: tuple[ActionKind, ...] = (
    "move",
    "resign",
    "draw_offer",
    "draw_accept",
    "draw_decline",
    "abort",
    "undo",  # a take-back in a local game; a replay skips the move it takes back
    "timeout",  # the side to act missed its deadline (logged by the deadline scheduler)
    "extend",  # a moderator added days to the clock of the side to act
    "relocate",  # a moderator moved the game to another channel (its posts were refused)
)

Colour = Literal["white", "black"]
ColourChoice = Literal["white", "black", "random"]
ResultText = Literal["1-0", "0-1", "1/2-1/2"]

Roll = tuple[int, int]
"""One die roll as ``(sides, value)``."""


@dataclass(frozen=True)
class GameRow:
    """One game as stored.

    ``seed`` and ``commitment`` are ``None`` until the game is accepted (no die exists
    before that); ``start_rolls`` are the rolls drawn when the engine game was created,
    at acceptance. ``log_count`` is the number of entries in the game's action log and
    ``roll_count`` the number of rolls stored (start rolls included); the store keeps
    both with every append. ``board_channel_id``/``board_message_id``: the latest board
    message posted for the game, if any.

    Time (schema version 3; instants are whole milliseconds since the Unix epoch, UTC):
    ``time_days`` is the time control chosen with the challenge (days per move; ``None``
    for an untimed game). For a challenge, ``deadline_ms`` is when it expires. For an
    active game, ``clock_side`` is the side to act, ``turn_started_ms`` when its turn
    began, ``deadline_ms`` when its time runs out (``None`` untimed) and ``reminder_ms``
    when it is to be reminded (``None`` once reminded this turn, or untimed). The store
    derives from them the game's next due instant (the indexed ``due_ms``) for the
    deadline scheduler.

    Ratings (issue 15): ``rated`` says whether the game counts for ratings once finished
    (chosen with the challenge); ``finish_order`` numbers finished games 1, 2, 3, ... in
    the order they finished (``None`` until then), the order ``ratings rebuild`` replays.
    """

    id: int
    variant: str
    options: dict[str, Any]
    status: GameStatus
    location_id: int
    guild_id: int | None
    challenger_id: int
    opponent_id: int | None
    challenger_colour: ColourChoice
    white_id: int | None
    black_id: int | None
    result: ResultText | None
    result_reason: str | None
    draw_offer: Colour | None
    seed: str | None
    commitment: str | None
    start_rolls: tuple[Roll, ...]
    log_count: int
    roll_count: int
    board_channel_id: int | None
    board_message_id: int | None
    request_id: str | None
    created_at: str
    updated_at: str
    time_days: int | None = None
    clock_side: Colour | None = None
    turn_started_ms: int | None = None
    deadline_ms: int | None = None
    reminder_ms: int | None = None
    computer: Colour | None = None  # the side the computer plays, if any (issue 14)
    computer_level: int | None = None
    thinking_seq: int | None = None  # the log length a process claimed to think about
    thinking_until_ms: int | None = None  # ... until then
    rated: bool = False
    finish_order: int | None = None
    log_head: str | None = None  # the digest of the log's last entry (storage.chain)
    # A standing takeback request (issue 27): the side that asked, and the log length it
    # was asked at (stale once the log has grown).
    takeback_offer: Colour | None = None
    takeback_seq: int | None = None

    @property
    def is_live(self) -> bool:
        return self.status in LIVE_STATUSES

    @property
    def is_ended(self) -> bool:
        return self.status in ENDED_STATUSES


@dataclass(frozen=True)
class NewGame:
    """What a caller supplies to create a game; the store fills in id and timestamps."""

    variant: str
    options: dict[str, Any]
    status: GameStatus
    location_id: int
    guild_id: int | None
    challenger_id: int
    opponent_id: int | None
    challenger_colour: ColourChoice
    seed: str | None = None  # a challenge has none: it is drawn at acceptance
    commitment: str | None = None
    start_rolls: tuple[Roll, ...] = ()
    white_id: int | None = None
    black_id: int | None = None
    request_id: str | None = None
    time_days: int | None = None  # days per move; None: untimed
    deadline_ms: int | None = None  # a challenge: when it expires
    computer: Colour | None = None  # the side the computer plays (issue 14)
    computer_level: int | None = None
    rated: bool = False  # counts for ratings once finished (issue 15)


_UNSET: Any = object()


@dataclass(frozen=True)
class GameChanges:
    """Columns to change on a game. A field left at ``UNSET`` is not touched."""

    status: GameStatus = _UNSET
    white_id: int | None = _UNSET
    black_id: int | None = _UNSET
    opponent_id: int | None = _UNSET
    result: ResultText | None = _UNSET
    result_reason: str | None = _UNSET
    draw_offer: Colour | None = _UNSET
    seed: str | None = _UNSET  # set once, at acceptance; the store refuses a change
    commitment: str | None = _UNSET
    clock_side: Colour | None = _UNSET
    turn_started_ms: int | None = _UNSET
    deadline_ms: int | None = _UNSET
    reminder_ms: int | None = _UNSET
    thinking_seq: int | None = _UNSET
    thinking_until_ms: int | None = _UNSET
    location_id: int = _UNSET  # a moderator moved the game (``relocate``, issue 24)
    takeback_offer: Colour | None = _UNSET  # a takeback request (issue 27)
    takeback_seq: int | None = _UNSET

    def items(self) -> list[tuple[str, Any]]:
        """The ``(column, value)`` pairs to set, in field order."""
        names = [f.name for f in fields(self)]
        return [(n, getattr(self, n)) for n in names if getattr(self, n) is not _UNSET]


@dataclass(frozen=True)
class ActionRow:
    """One entry of a game's append-only log. ``seq`` counts from 1 within the game;
    ``roll_index`` is the game's number (from 0, start rolls first) of the entry's
    first roll, set by the store. ``digest`` chains the entry to the one before it
    (``storage.chain``), set by the store when it appends the entry."""

    game_id: int
    seq: int
    kind: ActionKind
    request_id: str | None
    actor_id: int | None
    text: str
    rolls: tuple[Roll, ...]
    roll_index: int
    created_at: str
    digest: str | None = None


@dataclass(frozen=True)
class SnapshotRow:
    """A cached engine state of a game after log entry ``seq`` (issue 12): a rebuild
    restores it and replays only the later entries. ``format`` names how ``data`` is
    written (the service's business); the log, not this, is the truth."""

    game_id: int
    seq: int
    ply: int
    turns: int
    roll_count: int
    format: str
    data: bytes


@dataclass(frozen=True)
class NewAction:
    game_id: int
    seq: int
    kind: ActionKind
    actor_id: int | None
    text: str
    rolls: tuple[Roll, ...] = ()
    request_id: str | None = None


@dataclass(frozen=True)
class FinishedGame:
    """A finished game and when it finished (the ``created_at`` of its last log entry):
    what ``ratings rebuild`` replays, in ``finish_order``."""

    game: GameRow
    finished_at: str


@dataclass(frozen=True)
class DueGame:
    """A game the deadline scheduler must look at: at ``due_ms`` its challenge expires,
    its side to act is to be reminded, or its side to act runs out of time."""

    game_id: int
    due_ms: int


@dataclass(frozen=True)
class Shards:
    """The Discord shards one bot process runs (issue 16): ``count`` in all, this process
    ``ids``. A guild belongs to shard ``(guild_id >> 22) % count`` (Discord's rule); a game
    without a guild (a DM) to shard 0. The deadline reads take it so that each process
    handles (and posts) only the games of its own guilds."""

    count: int
    ids: tuple[int, ...]

    def owns(self, guild_id: int | None) -> bool:
        shard = 0 if guild_id is None else (guild_id >> 22) % self.count
        return shard in self.ids


@dataclass(frozen=True)
class PlayerRow:
    id: int
    name: str | None
    created_at: str
    updated_at: str


@dataclass(frozen=True)
class GameQuery:
    """Filters for listing games; ``None`` means any. Newest first."""

    location_id: int | None = None
    guild_id: int | None = None
    player_id: int | None = None  # plays, challenged or was challenged
    challenger_id: int | None = None
    statuses: tuple[GameStatus, ...] | None = None
    limit: int = 25
    computer_only: bool = False  # only games against the computer


@dataclass(frozen=True)
class RatingRow:
    """A player's current rating in one scope and variant, with their record there.
    ``last_ms``: when their last rated game there finished; ``name`` from ``players``."""

    scope: int
    variant: str
    player_id: int
    rating: float
    rd: float
    volatility: float
    games: int
    wins: int
    draws: int
    losses: int
    last_ms: int
    last_game_id: int
    name: str | None = None


@dataclass(frozen=True)
class RatingChangeRow:
    """What one rated game did to one player in one scope. ``before`` is the rating as
    it stood when the game was rated (its RD already widened for idleness)."""

    game_id: int
    scope: int
    player_id: int
    variant: str
    finish_order: int
    opponent_id: int
    score: float
    rating_before: float
    rd_before: float
    volatility_before: float
    rating_after: float
    rd_after: float
    volatility_after: float
