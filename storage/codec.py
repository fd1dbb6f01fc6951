"""The row codec both stores share (issue 25): the columns of a game and of a log entry,
and how a row's values become ``GameRow``/``ActionRow`` and back. SQLite and PostgreSQL
differ in how they run SQL, not in what a row holds, so this is written once."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from storage.models import ActionRow, GameRow, NewAction, NewGame, Roll

GAME_COLUMNS = (
    "id, variant, options, status, location_id, guild_id, challenger_id, opponent_id, "
    "challenger_colour, white_id, black_id, result, result_reason, draw_offer, seed, "
    "commitment, start_rolls, log_count, roll_count, board_channel_id, board_message_id, "
    "request_id, created_at, updated_at, time_days, clock_side, turn_started_ms, deadline_ms, "
    "reminder_ms, computer, computer_level, thinking_seq, thinking_until_ms, rated, finish_order, "
    "log_head, takeback_offer, takeback_seq"
)
GAME_NAMES = tuple(name.strip() for name in GAME_COLUMNS.split(","))
ACTION_COLUMNS = (
    "game_id, seq, kind, request_id, actor_id, text, rolls, roll_index, created_at, digest"
)
ACTION_NAMES = tuple(name.strip() for name in ACTION_COLUMNS.split(","))
# What a new game is inserted with (the store fills in the rest).
NEW_GAME_COLUMNS = (
    "variant, options, status, location_id, guild_id, challenger_id, opponent_id, "
    "challenger_colour, white_id, black_id, seed, commitment, start_rolls, request_id, "
    "created_at, updated_at, time_days, deadline_ms, computer, computer_level, rated"
)


def rolls_json(rolls: tuple[Roll, ...]) -> str:
    return json.dumps([[int(s), int(v)] for s, v in rolls], separators=(",", ":"))


def rolls_from_json(text: str) -> tuple[Roll, ...]:
    return tuple((int(s), int(v)) for s, v in json.loads(text))


def game_from_values(values: Sequence[Any]) -> GameRow:
    """A game from its ``GAME_COLUMNS`` values, in that order."""
    row = dict(zip(GAME_NAMES, values, strict=True))
    row["options"] = json.loads(row["options"])
    row["start_rolls"] = rolls_from_json(row["start_rolls"])
    row["rated"] = bool(row["rated"])
    return GameRow(**row)


def new_game_values(game: NewGame, now: str) -> tuple[Any, ...]:
    """The ``NEW_GAME_COLUMNS`` values of a new game created at ``now``."""
    return (
        game.variant,
        json.dumps(game.options, sort_keys=True),
        game.status,
        game.location_id,
        game.guild_id,
        game.challenger_id,
        game.opponent_id,
        game.challenger_colour,
        game.white_id,
        game.black_id,
        game.seed,
        game.commitment,
        rolls_json(game.start_rolls),
        game.request_id,
        now,
        now,
        game.time_days,
        game.deadline_ms,
        game.computer,
        game.computer_level,
        1 if game.rated else 0,
    )


def action_from_values(values: Sequence[Any]) -> ActionRow:
    """A log entry from its ``ACTION_COLUMNS`` values, in that order."""
    row = dict(zip(ACTION_NAMES, values, strict=True))
    row["rolls"] = rolls_from_json(row["rolls"])
    return ActionRow(**row)


def action_values(action: NewAction, roll_index: int, created_at: str, digest: str) -> list[Any]:
    """The ``ACTION_COLUMNS`` values of a new entry."""
    return [
        action.game_id,
        action.seq,
        action.kind,
        action.request_id,
        action.actor_id,
        action.text,
        rolls_json(action.rolls),
        roll_index,
        created_at,
        digest,
    ]
