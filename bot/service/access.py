"""Who may see a game (contract C3).

A game is visible only where it is played: in its own server, and for a button press
only in its own channel or thread. In a DM a user sees only their own games. A game
that is not visible is reported exactly like one that does not exist ("there is no
game N here"), so game ids, which are sequential, leak nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.i18n import said
from bot.service.errors import NotFound
from storage import GameRow


@dataclass(frozen=True)
class Viewer:
    """Where a request comes from.

    - ``user_id``: who asks;
    - ``guild_id``: the server, or ``None`` for a DM;
    - ``location_id``: the channel or thread the request came from;
    - ``from_button``: a button press; the game's location must match too.
    """

    user_id: int
    guild_id: int | None
    location_id: int | None
    from_button: bool = False


def plays_in(row: GameRow, user_id: int) -> bool:
    """The user made the challenge, was challenged, or plays a side."""
    return user_id in (row.challenger_id, row.opponent_id, row.white_id, row.black_id)


def can_see(row: GameRow, viewer: Viewer | None) -> bool:
    """``None`` is a trusted local caller (the console, tests): everything is visible."""
    if viewer is None:
        return True
    if viewer.guild_id is None:
        if not plays_in(row, viewer.user_id):
            return False
    elif row.guild_id != viewer.guild_id:
        return False
    return not viewer.from_button or row.location_id == viewer.location_id


def hidden(game_id: int | None) -> NotFound:
    """The error for a game that does not exist or is not visible: the same words."""
    if game_id is None:
        return NotFound(said("there is no game or challenge here"))
    return NotFound(said("there is no game {game} here", game=game_id))


def check_visible(row: GameRow, viewer: Viewer | None, *, by_id: bool) -> GameRow:
    if not can_see(row, viewer):
        raise hidden(row.id if by_id else None)
    return row
