"""The computer's moves on Discord (issue 14): ``ComputerRunner`` (``bot.service.computer``)
thinks in worker processes and plays; each of its moves owes a ``board`` outbox row
(issue 24), which ``bot.discord.delivery`` posts with ``computer_post``, like a player's
move: a new board in the game's channel or thread (the image, the dice, the buttons of
the player's legal actions) whose content pings the player to act, or tells both the
result; the previous board loses its buttons; the new one is remembered
(``set_board_message``); the thread is archived at the end if the bot made it. Every
request uses the bot's token (no interaction is involved).

While the computer thinks, the board posted after the player's move says so instead of
pinging anyone (``adapter.turn_prompt``: "The computer is thinking… (level N)").
"""

from __future__ import annotations

from bot.discord import adapter, views
from bot.discord.adapter import Post
from bot.service import COMPUTER_ID, Outcome


def computer_post(outcome: Outcome, actor_id: int = COMPUTER_ID) -> Post:
    """The board after ``actor_id``'s entry (the computer's move, or a person's whose
    interaction could not carry it), as ``flows.board_post`` makes it."""
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
    content, ping = adapter.turn_prompt(view, actor_id=actor_id)
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


def moved_on_post(outcome: Outcome) -> Post:
    """The computer's move, told after the game had moved on (its board could not be
    posted in time): the news in words, without an old picture or buttons."""
    view = outcome.game
    embed = adapter.board_embed(view, outcome.messages, image=False, dice_image=False)
    return Post(embed=embed, game_id=view.id)
