"""A moderator moves a game to another channel (issue 24): when the bot cannot post in the
game's channel any more (Missing Access, Missing Permissions, Unknown Channel; the outbox
keeps the reason, ``post_failures``), the game goes on elsewhere.

One transaction: the game's location changes (the new channel must not have a live game of
its own), a ``relocate`` entry is logged (who moved it, from where to where, why), the posts
that could not be delivered are owed again in the new channel, and the current board is
owed there too, so that the players find the game, with its buttons, where it now lives.
``verify`` checks each ``relocate`` entry: made by a moderator who does not play in the game,
saying where the game went.
"""

from __future__ import annotations

import re

from bot.i18n import said
from bot.service.access import Viewer
from bot.service.core import ServiceCore, check_id, clean_text
from bot.service.errors import InvalidInput, InvalidState, NotAllowed
from bot.service.live import make_view
from bot.service.results import Outcome
from bot.service.words import status_word
from storage import GameChanges, NewAction

RELOCATE_PATTERN = re.compile(r"^moved from channel (\d+) to channel (\d+)(?: \((.*)\))?$")


def relocate_text(old: int, new: int, why: str | None) -> str:
    return f"moved from channel {old} to channel {new}" + (f" ({why})" if why else "")


class Relocation(ServiceCore):
    """``relocate`` for ``GameService``; see the module."""

    async def relocate(
        self,
        *,
        user_id: int,
        moderator: bool,
        channel_id: int,
        location_id: int | None = None,
        game_id: int | None = None,
        reason: str | None = None,
        viewer: Viewer | None = None,
    ) -> Outcome:
        """Move the active game (named by ``game_id``, or the one at ``location_id``) to
        ``channel_id`` in the same server, as a moderator who does not play in it."""
        user_id = check_id(user_id, "the user id")
        channel_id = check_id(channel_id, "the channel id")
        if moderator is not True:
            raise NotAllowed(said("only a moderator can move a game to another channel"))
        why = clean_text(reason) if reason else None
        row = await self._find(location_id, game_id, live_only=False, viewer=viewer)
        async with self._lock(self._game_locks, row.id):
            async with self._write() as tx:
                row = await self._reload(tx, row.id)
                if row.status != "active":
                    if row.status == "challenge":
                        raise InvalidState(
                            said(
                                "game {game} is an open challenge: only a game in progress "
                                "can be moved",
                                game=row.id,
                            )
                        )
                    raise InvalidState(
                        said(
                            "game {game} is {status}: only a game in progress can be moved",
                            game=row.id,
                            status=status_word(row.status),
                        )
                    )
                if user_id in (row.white_id, row.black_id):
                    raise NotAllowed(said("you play in this game; another moderator must move it"))
                if channel_id == row.location_id:
                    raise InvalidInput(said("game {game} is already in that channel", game=row.id))
                there = await tx.live_game_at(channel_id)
                if there is not None:
                    raise InvalidState(
                        said(
                            "that channel already has game {game}; choose another channel",
                            game=there.id,
                        )
                    )
                live = await self._live_in(tx, row)
                old = row.location_id
                await tx.append_action(
                    NewAction(
                        row.id,
                        live.seq + 1,
                        "relocate",
                        user_id,
                        relocate_text(old, channel_id, why),
                    )
                )
                row = await tx.update_game(row.id, GameChanges(location_id=channel_id))
                again = await tx.outbox_reowe(row.id, channel_id, self._now_ms())
                await self._owe(tx, row, "board", payload={"actor": user_id})
            live.seq += 1
            self._announce_row(row)  # committed: the listeners (live pages) learn
            view = make_view(row, live)
        values = {"game": row.id, "old": f"<#{old}>", "new": f"<#{channel_id}>"}
        if why and again:
            moved = said(
                "Game {game} moved from {old} to {new} ({reason}); its board follows there, "
                "with {n} message(s) that could not be posted before.",
                reason=why,
                n=again,
                **values,
            )
        elif why:
            moved = said(
                "Game {game} moved from {old} to {new} ({reason}); its board follows there.",
                reason=why,
                **values,
            )
        elif again:
            moved = said(
                "Game {game} moved from {old} to {new}; its board follows there, "
                "with {n} message(s) that could not be posted before.",
                n=again,
                **values,
            )
        else:
            moved = said(
                "Game {game} moved from {old} to {new}; its board follows there.", **values
            )
        messages = (moved,)
        return Outcome(view, messages)
