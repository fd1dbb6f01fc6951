"""The computer's moves on Discord (issue 14): ``ComputerRunner`` (``bot.service.computer``)
thinks in worker processes and calls ``ComputerPoster.computer_moved`` with each move's
``Outcome``. It is posted like a player's move: a new board in the game's channel or
thread (the image, the dice, the buttons of the player's legal actions) whose content
pings the player to act, or tells both the result; the previous board loses its buttons;
the new one is remembered (``set_board_message``); the thread is archived at the end if
the bot made it. Every request uses the bot's token (no interaction is involved).

While the computer thinks, the board posted after the player's move says so instead of
pinging anyone (``adapter.turn_prompt``: "The computer is thinking… (level N)").
"""

from __future__ import annotations

import logging

from bot import adapter, views
from bot.adapter import Post
from bot.deadline_posts import DiscordNotifier
from bot.service import COMPUTER_ID, Outcome

log = logging.getLogger(__name__)


def computer_post(outcome: Outcome) -> Post:
    """The board after the computer's move, as ``flows.board_post`` makes a player's."""
    view = outcome.game
    side = view.turn if view.status == "active" and view.turn else "white"
    files = []
    if outcome.image is not None:
        files.append(adapter.png_file(outcome.image, adapter.BOARD_FILE))
    if outcome.dice_image is not None:
        files.append(adapter.png_file(outcome.dice_image, adapter.DICE_FILE))
    embed = adapter.board_embed(
        view,
        outcome.messages,
        image=outcome.image is not None,
        dice_image=outcome.dice_image is not None,
        orientation=side if outcome.image is not None else None,
        status=outcome.status,
    )
    content, ping = adapter.turn_prompt(view, actor_id=COMPUTER_ID)
    return Post(
        embed=embed,
        content=content,
        files=files,
        view=views.board_view(view, outcome.legal, side),
        ping=ping,
        game_id=view.id,
        is_board=True,
        game_over=view.is_over,
        failure=f"Game {view.id} is updated, but I could not post its board.",
    )


class ComputerPoster(DiscordNotifier):
    """Posts the computer's moves in the games' channels and threads."""

    async def computer_moved(self, outcome: Outcome) -> None:
        view = outcome.game
        service = self.bot.service
        previous = await service.board_message(game_id=view.id)
        sent = await self._post(view.location_id, computer_post(outcome))
        if sent is None:
            return  # logged; the player still sees the move with /board
        await service.set_board_message(
            game_id=view.id, channel_id=sent.channel.id, message_id=sent.id
        )
        if previous is not None:
            await self._retire(view, *previous)
        if view.is_over:
            await self._archive_if_ours(view.location_id)
