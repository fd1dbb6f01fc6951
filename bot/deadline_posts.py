"""What the players see when a deadline falls due (issue 13): the Discord side of the
deadline scheduler (``bot.service.scheduler``), which calls ``DiscordNotifier`` with each
``DeadlineEvent``. Every request uses the bot's token (no interaction is involved; an
interaction token would have expired days ago anyway).

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

A game thread that Discord archived meanwhile (after 7 days without a message) is
reopened first: the bot may reopen a thread that is not locked.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

import discord

from bot import adapter, standings_embeds, threads, timestamps, views
from bot.adapter import Post
from bot.service import DeadlineEvent, GameView
from bot.service.clock import days_text

if TYPE_CHECKING:
    from bot.discord_app import ChessGardenBot

log = logging.getLogger(__name__)

T = TypeVar("T")
THREAD_ARCHIVED = 50083


class DiscordNotifier:
    """Posts the scheduler's events in the games' channels and threads."""

    def __init__(self, bot: ChessGardenBot) -> None:
        self.bot = bot

    async def deadline_event(self, event: DeadlineEvent) -> None:
        if event.kind == "reminder":
            await self.remind(event)
        elif event.kind == "timeout":
            await self.ended(event)
        elif event.kind == "expired":
            await self.expired(event)
        else:
            log.warning("game %s: unknown deadline event %r", event.game.id, event.kind)

    # ----- the three events -----------------------------------------------------------

    async def remind(self, event: DeadlineEvent) -> None:
        view = event.game
        if view.to_move_id is None or view.deadline is None:
            return
        board = ""
        if event.board_message is not None and view.guild_id is not None:
            channel_id, message_id = event.board_message
            link = f"https://discord.com/channels/{view.guild_id}/{channel_id}/{message_id}"
            board = f" [The board.]({link})"
        content = (
            f"{adapter.mention(view.to_move_id)}, your move in game {view.id} ({view.turn}): "
            f"your time runs out {timestamps.runs_out(view.deadline)}.{board}"
        )
        embed = discord.Embed(
            title=f"{view.variant_title} · game {view.id}",
            description=(
                f"{str(view.turn).capitalize()} must act {timestamps.runs_out(view.deadline)} "
                f"({days_text(view.time_days)}). If no move comes in time, the game is lost "
                "on time."
            ),
            colour=adapter.COLOUR_ACTIVE,
        )
        await self._post(view.location_id, Post(embed=embed, content=content, ping=event.ping))

    async def ended(self, event: DeadlineEvent) -> None:
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
        content = f"{players}: game {view.id} is over, {_outcome_words(view)}." if players else None
        buttons = views.board_view(view, (), "white") if view.status == "finished" else None
        post = Post(embed=embed, content=content, files=files, view=buttons, ping=event.ping)
        sent = await self._post(view.location_id, post)
        if event.board_message is not None:
            await self._retire(view, *event.board_message)
        if sent is not None:
            await self.bot.service.set_board_message(
                game_id=view.id, channel_id=sent.channel.id, message_id=sent.id
            )
        await self._archive_if_ours(view.location_id)

    async def expired(self, event: DeadlineEvent) -> None:
        view = event.game
        if event.board_message is None:
            log.info("game %s: the challenge expired, and no challenge message is known", view.id)
            return
        channel_id, message_id = event.board_message
        embed = discord.Embed(
            title=f"Challenge expired · {view.variant_title} · game {view.id}",
            description=(
                f"{adapter.mention(view.challenger_id)}'s challenge expired: "
                f"{event.messages[0].removeprefix('the challenge expired: ')} "
                "Start a new one with /play."
            ),
            colour=adapter.COLOUR_CLOSED,
        )
        message = self.bot.get_partial_messageable(channel_id, guild_id=view.guild_id)
        await self._in_thread(
            channel_id,
            lambda: message.get_partial_message(message_id).edit(
                embed=embed, view=None, allowed_mentions=adapter.NO_PINGS
            ),
        )
        await self._archive_if_ours(view.location_id)

    # ----- requests -----------------------------------------------------------------

    async def _post(self, channel_id: int, post: Post) -> discord.Message | None:
        channel = self.bot.get_partial_messageable(channel_id)
        try:
            return await self._in_thread(channel_id, lambda: channel.send(**post.kwargs()))
        except discord.HTTPException as error:
            log.warning("could not post in channel %s: %s", channel_id, error)
            return None

    async def _retire(self, view: GameView, channel_id: int, message_id: int) -> None:
        """Take the buttons off the game's previous board."""
        message = self.bot.get_partial_messageable(channel_id, guild_id=view.guild_id)
        try:
            await self._in_thread(
                channel_id, lambda: message.get_partial_message(message_id).edit(view=None)
            )
        except discord.HTTPException as error:
            log.info("could not retire the buttons of message %s: %s", message_id, error)

    async def _in_thread(self, channel_id: int, request: Callable[[], Awaitable[T]]) -> T:
        """Send ``request``; if Discord says the thread is archived, reopen it and again."""
        try:
            return await request()
        except discord.HTTPException as error:
            if getattr(error, "code", 0) != THREAD_ARCHIVED:
                raise
        await self.bot.http.edit_channel(channel_id, archived=False)
        return await request()

    async def _archive_if_ours(self, channel_id: int) -> None:
        """After the end: archive the game's thread if the bot made it (as after any end)."""
        channel: Any = self.bot.get_channel(channel_id)
        me = self.bot.user
        if channel is not None:
            await threads.archive_if_ours(channel, me.id if me is not None else None)


def _outcome_words(view: GameView) -> str:
    if view.status == "aborted":
        return f"aborted with no result ({view.result_reason})"
    return adapter.result_line(view)
