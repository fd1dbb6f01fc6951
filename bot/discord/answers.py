"""Answering an interaction: privately when something is wrong, as a new message when a
player must be told to act, and always within Discord's 3 seconds.

``answer`` runs the work (a service call, the drawing) and sends the ``Post`` it returns:

- if the work is done within ``defer_after`` seconds (2 s; Discord allows 3), the post is
  the interaction's response itself (type 4): a *new* message, so a "your move" mention in
  it notifies the player, and an error is ephemeral;
- if the work is slower, the interaction is deferred *privately*; the first follow-up then
  fills that private "thinking…" message (a one-line note, or the error), and a public post
  follows as a second, new message, which notifies. (After a public defer, Discord would make
  the first follow-up an edit of "thinking…", which pings nobody, and would show an error to
  everyone, ignoring ``ephemeral``.)

Unexpected exceptions in any command or button end in ``report_failure``: a private
sentence for the person who pressed or typed, and a log line with the game id.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Coroutine
from dataclasses import dataclass
from typing import Any

import discord

from bot.discord import adapter, threads, translate
from bot.discord.adapter import Post
from bot.discord.translate import N_, _
from bot.service import GameService, IllegalAction, ServiceError, Viewer

log = logging.getLogger(__name__)

Interaction = discord.Interaction[Any]
DEFER_AFTER = 2.0  # seconds of work before the answer is deferred (Discord allows 3)
LIVE = ("challenge", "active")


def service_of(interaction: Interaction) -> GameService:
    """The service the bot was built with (``ChessGardenBot.service``)."""
    service: GameService = interaction.client.service
    return service


def location_of(interaction: Interaction) -> int:
    """Where a game lives: the channel or thread the command was used in."""
    channel_id = interaction.channel_id
    if channel_id is None:
        raise RuntimeError("an interaction without a channel")
    return channel_id


def location_unless(interaction: Interaction, game_id: int | None) -> int | None:
    """``None`` when a game is named by id, else this channel: the service takes one of them."""
    return None if game_id is not None else location_of(interaction)


def request_id(interaction: Interaction) -> str:
    """Discord redelivers an interaction with the same id; the service applies it once."""
    return f"discord:{interaction.id}"


def viewer_of(interaction: Interaction, *, from_button: bool = False) -> Viewer:
    """Who asks, and from where: the service shows a game only in its own server (in a DM,
    only the asker's own games), and to a button only in the game's own channel or thread."""
    return Viewer(
        user_id=interaction.user.id,
        guild_id=interaction.guild_id,
        location_id=interaction.channel_id,
        from_button=from_button,
    )


def seen(interaction: Interaction, *, from_button: bool = False) -> dict[str, Any]:
    """``viewer=`` for every per-game service call (``**seen(interaction)``)."""
    return {"viewer": viewer_of(interaction, from_button=from_button)}


def bot_user_id(interaction: Interaction) -> int | None:
    user = interaction.client.user
    return user.id if user is not None else None


# ----- answering -------------------------------------------------------------------------


@dataclass(frozen=True)
class Sent:
    """A public message the bot posted: where, and its id."""

    channel_id: int
    message_id: int


def error_post(text: str) -> Post:
    return Post(embed=adapter.error_embed(text), ephemeral=True)


async def refusal(
    interaction: Interaction,
    error: ServiceError | ValueError,
    *,
    location_id: int | None = None,
    game_id: int | None = None,
) -> Post:
    """A service's refusal as a private post. An illegal action says the rule that refuses
    it and the closest legal actions (the engine's ``Refusal``, contract C2); without
    one, it lists what is legal now."""
    if isinstance(error, IllegalAction) and error.refusal is not None:
        return error_post(adapter.refusal_text(error.refusal))
    legal: tuple[str, ...] = ()
    if isinstance(error, IllegalAction) and (location_id is not None or game_id is not None):
        legal = await legal_for(interaction, location_id=location_id, game_id=game_id)
    return error_post(adapter.error_text(error, legal))


async def legal_for(
    interaction: Interaction, *, location_id: int | None = None, game_id: int | None = None
) -> tuple[str, ...]:
    """The legal actions, if the caller is the one to act; else nothing."""
    service = service_of(interaction)
    try:
        view = await service.view(location_id=location_id, game_id=game_id, **seen(interaction))
        if view.status != "active" or view.to_move_id != interaction.user.id:
            return ()
        return await service.legal_moves(game_id=view.id, **seen(interaction))
    except ServiceError:
        return ()


def defer_after(interaction: Interaction) -> float:
    return float(getattr(interaction.client, "defer_after", DEFER_AFTER))


def stamp(interaction: Interaction) -> None:
    """Note when the bot started on this interaction: Discord's 3 seconds count from there;
    and speak the asker's language from here on (``translate.use``)."""
    interaction.extras.setdefault("cg_started", time.monotonic())
    translate.use(interaction)


def time_left(interaction: Interaction) -> float:
    """Seconds of work left before the answer must be deferred."""
    started = interaction.extras.get("cg_started")
    spent = time.monotonic() - started if started is not None else 0.0
    return max(0.0, defer_after(interaction) - spent)


async def answer(
    interaction: Interaction, work: Coroutine[Any, Any, Post | None]
) -> tuple[Post | None, Sent | None]:
    """Run ``work``; send its post as the response if it is quick, else defer privately first."""
    task = asyncio.ensure_future(work)
    done, _pending = await asyncio.wait({task}, timeout=time_left(interaction))
    if not done and not interaction.response.is_done():
        try:
            await interaction.response.defer(ephemeral=True, thinking=True)
        except discord.HTTPException as error:  # the work goes on; its answer may still land
            log.warning("could not defer interaction %s: %s", interaction.id, error)
    post = await task
    if post is None:
        return None, None
    return post, await deliver(interaction, post)


async def refuse(interaction: Interaction, text: str) -> None:
    """A private one-line refusal, decided before any work."""
    await deliver(interaction, error_post(text))


def _filled(interaction: Interaction) -> bool:
    """Whether the deferred "thinking…" message has been filled by a first follow-up."""
    response = interaction.response
    if response.type is not discord.InteractionResponseType.deferred_channel_message:
        return True
    return bool(interaction.extras.get("cg_filled"))


async def _followup(interaction: Interaction, **kwargs: Any) -> Any:
    message = await interaction.followup.send(wait=True, **kwargs)
    interaction.extras["cg_filled"] = True
    return message


async def deliver(interaction: Interaction, post: Post) -> Sent | None:
    """Send ``post``: as the response, or as follow-ups (see the module's notes).

    Returns the public message, if one was posted. When Discord refuses a public post,
    the caller is told privately what did and did not happen (``post.failure``). A
    private answer that fails (and did not land after all) is tried once more, then
    logged: Discord's failure is not the bot's ("Something went wrong on my side").
    """
    try:
        return await _deliver(interaction, post)
    except threads.REQUEST_FAILURES as error:
        landed = await _landed(interaction)
        if landed is not None:  # Discord made the response; only its answer was lost
            return None if post.ephemeral else landed
        if post.ephemeral:  # a private answer: tried once more, then only logged
            try:
                await _deliver(interaction, post)
            except threads.REQUEST_FAILURES as again:
                log.warning("could not answer user %s: %r", interaction.user.id, again)
            return None
        log.warning("could not post for game %s: %r", post.game_id, error)
        why = (
            adapter.discord_error_text(error, doing=_("post here"))
            if isinstance(error, discord.HTTPException)
            else _("Discord did not answer in time.")
        )
        try:
            await _deliver(interaction, error_post(f"{post.failure} {why}"))
        except threads.REQUEST_FAILURES as again:
            log.warning("could not tell user %s either: %r", interaction.user.id, again)
        return None


async def _landed(interaction: Interaction) -> Sent | None:
    """After a failed response whose outcome is unknown (a timeout, a reset, a 5xx): the
    response message, if Discord made it after all (issue 24: else the board would be
    posted twice, once by the response and once by the outbox)."""
    if not interaction.extras.pop("cg_responding", False):
        return None
    try:
        message = await interaction.original_response()
    except threads.REQUEST_FAILURES:
        return None
    return Sent(message.channel.id, message.id)


async def _deliver(interaction: Interaction, post: Post) -> Sent | None:
    response = interaction.response
    if not post.ephemeral:
        await threads.unarchive(interaction.channel)
    kwargs = post.kwargs()
    if not response.is_done():
        if post.replace and interaction.type is discord.InteractionType.component:
            kwargs.pop("files", None)
            kwargs.pop("ephemeral", None)
            result = await response.edit_message(**kwargs)
            if post.owed is not None and interaction.message is not None:
                # an owed edit (a takeback's answer) was made: its outbox row is settled
                return Sent(interaction.message.channel.id, interaction.message.id)
        else:
            interaction.extras["cg_responding"] = True  # see _landed
            result = await response.send_message(**kwargs)
            interaction.extras.pop("cg_responding", None)
        if post.ephemeral or result is None or result.message_id is None:
            return None
        return Sent(location_of(interaction), result.message_id)
    if not _filled(interaction):
        if post.ephemeral:
            await _followup(interaction, **kwargs)
            return None
        await _followup(interaction, content=post.note, ephemeral=True)
    if post.replace and interaction.message is not None:
        kwargs.pop("files", None)
        kwargs.pop("ephemeral", None)
        message = await interaction.message.edit(**kwargs)
        return Sent(message.channel.id, message.id)
    message = await _followup(interaction, **kwargs)
    if post.ephemeral:
        return None
    return Sent(location_of(interaction), message.id)


# ----- where games are played -------------------------------------------------------------

OUTSIDE_SERVER = N_("Games are played in a server's channels; use /play there.")


async def refuse_outside_server(interaction: Interaction) -> bool:
    """A command or button that makes or changes a game, used in a DM: refuse it privately
    (and return True). ``app_commands.guild_only`` only hides a command in DMs; a stale or
    forged client still sends it, and nobody would see a game made there."""
    if interaction.guild_id is not None:
        return False
    stamp(interaction)
    await refuse(interaction, _(OUTSIDE_SERVER))
    return True


# ----- failures nobody planned for ----------------------------------------------------------


async def guarded(
    interaction: Interaction, work: Awaitable[Any], *, what: str, game_id: int | None
) -> None:
    """Run a button's work; any exception is answered privately and logged with the game id."""
    stamp(interaction)
    if game_id is not None:
        interaction.extras.setdefault("game_id", game_id)
    try:
        await work
    except Exception as error:  # the presser must get an answer, whatever broke
        await report_failure(interaction, error, what=what)


async def report_failure(interaction: Interaction, error: BaseException, *, what: str) -> None:
    """Log the traceback with the game id; tell only the person who pressed or typed."""
    translate.use(interaction)  # (a view's item may fail before anything set the locale)
    game_id = interaction.extras.get("game_id")
    if game_id is None and interaction.channel_id is not None:
        try:  # a command names no game: the one here, if any, for the log
            here = await service_of(interaction).list_games(
                location_id=interaction.channel_id, statuses=LIVE, limit=1
            )
            game_id = here[0].id if here else None
        except Exception:  # the log line matters more than the lookup
            log.debug("no game id for the failure report", exc_info=True)
    log.error(
        "%s failed (game %s, user %s, channel %s)",
        what,
        game_id if game_id is not None else "-",
        interaction.user.id,
        interaction.channel_id,
        exc_info=error,
    )
    if isinstance(error, discord.HTTPException):
        text = adapter.discord_error_text(error, doing=_("finish that"))
    else:
        text = _("Something went wrong on my side, and I have logged it.")
        if game_id is not None:
            text += " " + _("/board shows where game {game} stands.", game=game_id)
    try:
        await _deliver(interaction, error_post(text))
    except discord.HTTPException as again:
        log.warning("could not tell user %s about the failure: %s", interaction.user.id, again)
