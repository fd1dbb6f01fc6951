"""Game threads: where a new game goes when its channel is busy, and keeping threads tidy.

- A second game in a text channel gets a public thread; in an announcement channel, an
  announcement thread (Discord's type 10); from a forum post, a new post in the forum
  (a forum thread must start with a message). Voice-channel chats cannot have threads.
- Threads are made with the longest auto-archive Discord allows (7 days), so a
  correspondence game does not vanish overnight; the bot unarchives a game's thread before
  it posts there, and archives a thread it made once the game's end has been posted.
- ``ThreadBudget`` limits new threads per channel and hour (``CHESSGARDEN_THREADS_PER_HOUR``).
- ``discard`` removes a thread the bot made but could not use: delete (needs Manage
  Threads), else archive (a thread's creator may), else say where it is.
"""

from __future__ import annotations

import logging
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import aiohttp
import discord

from bot.discord import adapter
from bot.discord.translate import _

log = logging.getLogger(__name__)
# What a request to Discord can fail with: a refusal or 5xx, no answer, a dropped connection.
REQUEST_FAILURES = (discord.HTTPException, TimeoutError, aiohttp.ClientError)

THREAD_ARCHIVE_MINUTES = 10080  # seven days: the longest auto-archive Discord allows
THREAD_TYPES = (
    discord.ChannelType.public_thread,
    discord.ChannelType.private_thread,
    discord.ChannelType.news_thread,
)
HOUR = 3600.0

# What the bot needs in the channel that holds the new thread, by kind of channel.
NEEDS_FOR_THREAD = (
    "view_channel",
    "create_public_threads",
    "send_messages_in_threads",
    "embed_links",
)
NEEDS_FOR_FORUM_POST = ("view_channel", "send_messages", "send_messages_in_threads", "embed_links")


def is_thread(channel: Any) -> bool:
    return getattr(channel, "type", None) in THREAD_TYPES


class ThreadBudget:
    """At most ``per_hour`` new game threads per channel in any sliding hour."""

    def __init__(self, per_hour: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.per_hour = per_hour
        self._clock = clock
        self._made: dict[int, deque[float]] = {}

    def _recent(self, channel_id: int) -> deque[float]:
        made = self._made.setdefault(channel_id, deque())
        now = self._clock()
        while made and now - made[0] >= HOUR:
            made.popleft()
        return made

    def wait_for(self, channel_id: int, per_hour: int | None = None) -> float:
        """Seconds until a new thread is allowed in this channel (0: now); ``per_hour``:
        the server's own limit (``/settings``, issue 27), else this budget's."""
        made = self._recent(channel_id)
        if len(made) < (self.per_hour if per_hour is None else per_hour):
            return 0.0
        return max(1.0, HOUR - (self._clock() - made[0]))

    def spend(self, channel_id: int) -> None:
        self._recent(channel_id).append(self._clock())


@dataclass(frozen=True)
class Home:
    """Where a new game thread goes: the channel, and what kind of thread it takes."""

    parent: Any  # discord.TextChannel (text or announcement) or discord.ForumChannel
    kind: str  # 'thread' | 'news' | 'forum'

    @property
    def needs(self) -> tuple[str, ...]:
        return NEEDS_FOR_FORUM_POST if self.kind == "forum" else NEEDS_FOR_THREAD


def thread_home(channel: Any) -> Home | str:
    """Where a new game thread goes from ``channel``, or a clause saying why nowhere (the
    caller makes it a sentence: "I can't make a thread here: ...")."""
    target = getattr(channel, "parent", None) if is_thread(channel) else channel
    if target is None:
        return _("I can't find the channel this thread belongs to")
    if isinstance(target, discord.ForumChannel):
        return Home(target, "forum")
    if isinstance(target, discord.TextChannel):
        return Home(target, "news" if target.is_news() else "thread")
    if isinstance(target, discord.VoiceChannel | discord.StageChannel):
        return _("voice-channel chats cannot have threads")
    return _("this kind of channel cannot have threads")


def bot_permissions(interaction: discord.Interaction[Any], place: Any) -> discord.Permissions:
    """The bot's permissions in ``place``: Discord's own figure for the interaction's channel,
    else worked out from the guild (roles and overwrites, which the gateway keeps current)."""
    if place.id == interaction.channel_id:
        return interaction.app_permissions
    guild = getattr(place, "guild", None)
    me = guild.me if guild is not None else None
    if me is None:
        return interaction.app_permissions
    perms: discord.Permissions = place.permissions_for(me)
    return perms


def thread_name(title: str, first: str, second: str | None) -> str:
    name = _(
        "{title}: {first} vs {second}",
        title=title,
        first=first,
        second=second or _("open challenge"),
    )
    return adapter.clip(name, 100)


async def open_thread(home: Home, name: str, *, starter: str, reason: str) -> discord.Thread:
    """Make the thread (one request). A forum post starts with ``starter`` as its message."""
    if home.kind == "forum":
        made = await home.parent.create_thread(
            name=name,
            auto_archive_duration=THREAD_ARCHIVE_MINUTES,
            content=starter,
            allowed_mentions=adapter.NO_PINGS,
            reason=reason,
        )
        thread: discord.Thread = made.thread
        return thread
    kind = (
        discord.ChannelType.news_thread
        if home.kind == "news"
        else discord.ChannelType.public_thread
    )
    thread = await home.parent.create_thread(
        name=name, type=kind, auto_archive_duration=THREAD_ARCHIVE_MINUTES, reason=reason
    )
    return thread


async def discard(thread: discord.Thread) -> str:
    """Remove a thread the bot made and could not use. Returns what happened, as a clause
    ("I deleted the thread")."""
    try:
        await thread.delete(reason="Chess Garden: the game could not start here")
        return _("I deleted the thread")
    except REQUEST_FAILURES as error:
        log.info("could not delete thread %s: %s", thread.id, error)
    try:
        await thread.edit(archived=True, reason="Chess Garden: the game could not start here")
        return _(
            "I archived the empty thread {thread} (deleting it needs Manage Threads)",
            thread=thread.mention,
        )
    except REQUEST_FAILURES as error:
        log.warning("could not archive thread %s: %s", thread.id, error)
    return _(
        "I could not remove the empty thread {thread}; a moderator may delete it",
        thread=thread.mention,
    )


def owned_thread(channel: Any, bot_id: int | None) -> bool:
    return (
        is_thread(channel) and bot_id is not None and getattr(channel, "owner_id", None) == bot_id
    )


async def unarchive(channel: Any) -> None:
    """Before the bot posts in an archived thread: reopen it (it may, as long as it is not locked)."""
    if not (is_thread(channel) and channel.archived):
        return
    try:
        await channel.edit(archived=False)
    except REQUEST_FAILURES as error:
        log.info("could not unarchive thread %s: %s", channel.id, error)


async def archive_if_ours(channel: Any, bot_id: int | None) -> None:
    """After a game's end has been posted: archive its thread, if the bot made it."""
    if not owned_thread(channel, bot_id) or channel.archived:
        return
    try:
        await channel.edit(archived=True, reason="Chess Garden: the game is over")
    except REQUEST_FAILURES as error:
        log.info("could not archive thread %s: %s", channel.id, error)
