"""What the players see when a deadline falls due (issue 13): the posts of the deadline
scheduler's events (``bot.service.scheduler``). Each event is an outbox row written with
the change that caused it (issue 24); ``bot.discord.delivery`` builds the message with these
functions when it delivers the row, with the bot's token (an interaction token would have
expired days ago anyway).

- **reminder**: a new message in the game's channel or thread that pings the player to
  act (and nobody else): how long is left, as a Discord timestamp, and a link to the
  latest board;
- **timeout**: the game's final board as a new message (the result, the revealed seed,
  the picture; Rematch and Flip for a finished game) pinging both players; the buttons
  come off the previous board; the new board is remembered (``set_board_message``); the
  thread is archived if the bot made it, as after any other end;
- **expired**: the challenge message itself is edited to say that the challenge expired,
  without its buttons (Accept and Decline would only answer "not an open challenge"
  anyway); the thread is archived if the bot made it.
"""

from __future__ import annotations

import discord

from bot import i18n
from bot.discord import adapter, standings_embeds, timestamps, views
from bot.discord.adapter import Post
from bot.discord.timestamps import days_text
from bot.discord.translate import _, colour_word
from bot.service import DeadlineEvent, GameView
from bot.service.words import reason_word


def reminder_post(event: DeadlineEvent) -> Post | None:
    """A new message pinging the player to act: the time left and a link to the board;
    ``None`` when there is nobody to remind (no clock, or nobody to act)."""
    view = event.game
    if view.to_move_id is None or view.deadline is None:
        return None
    board = ""
    if event.board_message is not None and view.guild_id is not None:
        channel_id, message_id = event.board_message
        link = f"https://discord.com/channels/{view.guild_id}/{channel_id}/{message_id}"
        board = " [" + _("The board.") + f"]({link})"
    content = (
        _(
            "{player}, your move in game {game} ({colour}): your time runs out {when}.",
            player=adapter.mention(view.to_move_id),
            game=view.id,
            colour=colour_word(view.turn),
            when=timestamps.runs_out(view.deadline),
        )
        + board
    )
    embed = discord.Embed(
        title=adapter.game_title(view),
        description=_(
            "{colour} must act {when} ({control}). If no move comes in time, the game is "
            "lost on time.",
            colour=colour_word(view.turn).capitalize(),
            when=timestamps.runs_out(view.deadline),
            control=days_text(view.time_days),
        ),
        colour=adapter.COLOUR_ACTIVE,
    )
    return Post(embed=embed, content=content, ping=event.ping, game_id=view.id)


def timeout_post(event: DeadlineEvent) -> Post:
    """The game's final board as a new message, pinging both players (Rematch and Flip
    for a finished game)."""
    view = event.game
    files = []
    if event.image is not None:
        files.append(adapter.png_file(event.image, adapter.BOARD_FILE))
    embed = adapter.board_embed(
        view,
        standings_embeds.without_rating_line(event.messages, event.ratings),
        image=event.image is not None,
        dice_image=False,
        orientation="white" if event.image is not None else None,
    )
    standings_embeds.add_rating_changes(embed, event.ratings)
    players = " ".join(adapter.mention(p) for p in event.ping)
    content = (
        _(
            "{players}: game {game} is over, {result}.",
            players=players,
            game=view.id,
            result=_outcome_words(view),
        )
        if players
        else None
    )
    buttons = views.board_view(view, (), "white") if view.status == "finished" else None
    return Post(
        embed=embed,
        content=content,
        files=files,
        view=buttons,
        ping=event.ping,
        game_id=view.id,
        is_board=True,
        game_over=True,
    )


def expired_embed(event: DeadlineEvent) -> discord.Embed:
    """What the challenge message says once nobody accepted it in time."""
    view = event.game
    return discord.Embed(
        title=adapter.game_title(view, _("Challenge expired")),
        description=_(
            "{player}'s challenge expired: {why} Start a new one with /play.",
            player=adapter.mention(view.challenger_id),
            why=_expired_why(event.messages[0]),
        ),
        colour=adapter.COLOUR_CLOSED,
    )


def _expired_why(line: str) -> str:
    """Why the challenge expired, in the reader's language (the service says it as
    ``Said``: "the challenge expired: {why}"); an older line in English as it is."""
    why = line.params.get("why") if isinstance(line, i18n.Said) else None
    if why is not None:
        return i18n.render(None, why)
    return line.partition(": ")[2] or line  # (English: the service's)


def _outcome_words(view: GameView) -> str:
    if view.status == "aborted":
        # a reason the service chose or wrote with its facts, in the reader's language
        reason = i18n.render(None, reason_word(view.result_reason))
        return _("aborted with no result ({reason})", reason=reason)
    return adapter.result_line(view)
