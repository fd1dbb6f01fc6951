"""Interaction flows shared by slash commands and buttons.

Every flow has the same shape (``answer``):

1. **work**: ask the service and draw the board (the service's lock and one SQLite
   transaction, then a few milliseconds of drawing in worker threads). The work never
   touches the interaction: it returns the ``Post`` to send, which is a private error
   when the service refused.
2. **answer**: if the work is done within ``defer_after`` seconds (2 s; Discord allows 3),
   the post is the interaction's response itself (type 4): a *new* message, so a
   "your move" mention in it notifies the player, and an error is ephemeral.
   If the work is slower, the interaction is deferred *privately*; the first follow-up then
   fills that private "thinking…" message (a one-line note, or the error), and a public
   post follows as a second, new message, which notifies.
3. **after**: the buttons come off the game's previous board (a bot-token edit, which
   works however old the message is), the new board is remembered, and when the game has
   ended its thread is archived (if the bot made it).

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

from bot import adapter, threads, views
from bot.adapter import Post
from bot.service import GameService, GameView, IllegalAction, Outcome, ServiceError, Viewer

log = logging.getLogger(__name__)

Interaction = discord.Interaction[Any]
DEFER_AFTER = 2.0  # seconds of work before the answer is deferred (Discord allows 3)
LIVE = ("challenge", "active")


def service_of(interaction: Interaction) -> GameService:
    """The service the bot was built with (``ChessGardenBot.service``)."""
    service: GameService = interaction.client.service  # type: ignore[attr-defined]
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
    """A service's refusal as a private post; an illegal action lists what is legal now."""
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
    """Note when the bot started on this interaction: Discord's 3 seconds count from there."""
    interaction.extras.setdefault("cg_started", time.monotonic())


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
    done, _ = await asyncio.wait({task}, timeout=time_left(interaction))
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
    the caller is told privately what did and did not happen (``post.failure``).
    """
    try:
        return await _deliver(interaction, post)
    except discord.HTTPException as error:
        if post.ephemeral:
            raise
        log.warning("could not post for game %s: %s", post.game_id, error)
        where = "post here"
        text = f"{post.failure} {adapter.discord_error_text(error, doing=where)}"
        await _deliver(interaction, error_post(text))
        return None


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
        else:
            result = await response.send_message(**kwargs)
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
        text = adapter.discord_error_text(error, doing="finish that")
    else:
        where = f" /board shows where game {game_id} stands." if game_id is not None else ""
        text = f"Something went wrong on my side, and I have logged it.{where}"
    try:
        await _deliver(interaction, error_post(text))
    except discord.HTTPException as again:
        log.warning("could not tell user %s about the failure: %s", interaction.user.id, again)


# ----- boards ------------------------------------------------------------------------------


def default_orientation(view: GameView) -> str:
    """Live boards face the side to act; finished ones face White."""
    return view.turn if view.status == "active" and view.turn else "white"


def board_post(
    interaction: Interaction,
    outcome: Outcome,
    *,
    orientation: str | None = None,
    ephemeral: bool = False,
    prompt: bool = True,
    show_commitment: bool = False,
) -> Post:
    """The post for a board the service drew with its outcome (one service call per move):
    the image, the dice, the buttons from its legal actions, the turn prompt.

    ``prompt``: mention (and ping) the player who must act; never for a private board.
    """
    view = outcome.game
    side = orientation or default_orientation(view)
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
        show_commitment=show_commitment,
        orientation=side if outcome.image is not None else None,
    )
    content: str | None = None
    ping: tuple[int, ...] = ()
    if prompt and not ephemeral:
        content, ping = adapter.turn_prompt(view, actor_id=interaction.user.id)
    if ephemeral:
        item_view = views.flip_view(view, side)
    else:
        item_view = views.board_view(view, outcome.legal, side)
    return Post(
        embed=embed,
        content=content,
        files=files,
        view=item_view,
        ephemeral=ephemeral,
        ping=ping,
        game_id=view.id,
        is_board=not ephemeral,
        game_over=view.is_over,
        failure=f"Game {view.id} is updated, but I could not post its board.",
    )


async def remember_board(interaction: Interaction, game_id: int, sent: Sent) -> Sent | None:
    """Store ``sent`` as the game's board message (in the database, so it outlives a
    restart); return the one it replaces."""
    service = service_of(interaction)
    previous = await service.board_message(game_id=game_id)
    await service.set_board_message(
        game_id=game_id, channel_id=sent.channel_id, message_id=sent.message_id
    )
    return Sent(*previous) if previous is not None else None


async def last_board(interaction: Interaction, game_id: int) -> Sent | None:
    found = await service_of(interaction).board_message(game_id=game_id)
    return Sent(*found) if found is not None else None


async def retire(
    interaction: Interaction,
    message: Sent,
    *,
    embed: discord.Embed | None = None,
    keep: discord.ui.View | None = None,
) -> None:
    """Take the buttons off an old board (or replace them with ``keep``), with the bot's
    token: an interaction's token expires after 15 minutes, the bot's does not."""
    channel = interaction.client.get_partial_messageable(
        message.channel_id, guild_id=interaction.guild_id
    )
    kwargs: dict[str, Any] = {"view": keep}
    if embed is not None:
        kwargs["embed"] = embed
    try:
        await channel.get_partial_message(message.message_id).edit(**kwargs)
    except discord.HTTPException as error:  # not fatal: an old button then only answers "over"
        log.info("could not retire the buttons of message %s: %s", message.message_id, error)


async def after_post(
    interaction: Interaction,
    post: Post | None,
    sent: Sent | None,
    *,
    retired_embed: discord.Embed | None = None,
) -> None:
    """A game's message went out: retire the previous board, remember this one, archive at the end."""
    if post is None or post.game_id is None:
        return
    previous: Sent | None = None
    if sent is not None and post.is_board:
        previous = await remember_board(interaction, post.game_id, sent)
    elif post.game_over:
        previous = await last_board(interaction, post.game_id)
    if previous is not None and previous != sent:
        await retire(interaction, previous, embed=retired_embed)
    if post.game_over and (sent is not None or post.replace):
        await threads.archive_if_ours(interaction.channel, bot_user_id(interaction))


async def publish(
    interaction: Interaction,
    work: Coroutine[Any, Any, Post | None],
    *,
    retired_embed: discord.Embed | None = None,
) -> tuple[Post | None, Sent | None]:
    post, sent = await answer(interaction, work)
    await after_post(interaction, post, sent, retired_embed=retired_embed)
    return post, sent


# ----- playing -------------------------------------------------------------------------------


async def act(
    interaction: Interaction,
    text: str,
    *,
    game_id: int | None = None,
    expected_ply: int | None = None,
    from_button: bool = False,
) -> None:
    """Play ``text`` (any notation, ``pass``, ``reroll`` ...) for the caller."""
    service = service_of(interaction)
    location_id = location_unless(interaction, game_id)

    async def work() -> Post:
        try:
            outcome = await service.act(
                user_id=interaction.user.id,
                text=text,
                location_id=location_id,
                game_id=game_id,
                request_id=request_id(interaction),
                expected_ply=expected_ply,
                render=True,
                **seen(interaction, from_button=from_button),
            )
        except ServiceError as error:
            return await refusal(interaction, error, location_id=location_id, game_id=game_id)
        interaction.extras["game_id"] = outcome.game.id
        post = board_post(interaction, outcome)
        post.note = f"Played {outcome.recorded or text}; the board follows."
        post.failure = (
            f"Your action in game {outcome.game.id} is played, but I could not post the board."
        )
        return post

    await publish(interaction, work())


PLAYER_COMMANDS = ("resign", "offer_draw", "accept_draw", "decline_draw")


async def player_command(
    interaction: Interaction, name: str, *, game_id: int | None = None, from_button: bool = False
) -> None:
    """Resign, offer, accept or decline a draw for the caller."""
    if name not in PLAYER_COMMANDS:
        raise ValueError(f"unknown player command {name!r}")
    service = service_of(interaction)
    location_id = location_unless(interaction, game_id)

    async def work() -> Post:
        try:
            outcome: Outcome = await getattr(service, name)(
                user_id=interaction.user.id,
                location_id=location_id,
                game_id=game_id,
                request_id=request_id(interaction),
                render=True,
                **seen(interaction, from_button=from_button),
            )
        except ServiceError as error:
            return await refusal(interaction, error)
        interaction.extras["game_id"] = outcome.game.id
        return board_post(interaction, outcome)

    await publish(interaction, work())


async def accept(
    interaction: Interaction,
    *,
    game_id: int | None = None,
    from_button: bool = False,
) -> None:
    """Accept a challenge: the game starts; the first board pings the side to move."""
    service = service_of(interaction)
    location_id = location_unless(interaction, game_id)

    async def work() -> Post:
        try:
            outcome = await service.accept(
                user_id=interaction.user.id,
                location_id=location_id,
                game_id=game_id,
                render=True,
                **seen(interaction, from_button=from_button),
            )
        except ServiceError as error:
            return await refusal(interaction, error)
        interaction.extras["game_id"] = outcome.game.id
        return board_post(interaction, outcome, show_commitment=True)

    post, sent = await answer(interaction, work())
    if post is None or post.game_id is None or sent is None:
        return
    previous = await remember_board(interaction, post.game_id, sent)
    if previous is None and interaction.message is not None:
        previous = Sent(interaction.message.channel.id, interaction.message.id)
    if previous is not None:
        view = await service.view(game_id=post.game_id)
        closed = adapter.closed_embed(
            Outcome(
                view, (f"Accepted by {adapter.mention(interaction.user.id)}; the board is below.",)
            )
        )
        await retire(interaction, previous, embed=closed)


async def decline(interaction: Interaction, game_id: int, *, from_button: bool = False) -> None:
    """The challenged player declines; the challenger's Decline cancels."""
    service = service_of(interaction)

    async def work() -> Post:
        try:
            view = await service.view(game_id=game_id, **seen(interaction, from_button=from_button))
            command = (
                service.cancel if interaction.user.id == view.challenger_id else service.decline
            )
            outcome = await command(
                user_id=interaction.user.id,
                game_id=game_id,
                **seen(interaction, from_button=from_button),
            )
        except ServiceError as error:
            return await refusal(interaction, error)
        # The challenge message itself turns into the notice (the button was on it).
        return Post(
            embed=adapter.closed_embed(outcome),
            game_id=game_id,
            replace=True,
            game_over=True,
        )

    await publish(interaction, work())


async def show_board(
    interaction: Interaction,
    *,
    game_id: int | None = None,
    flip: bool = False,
    ephemeral: bool = False,
    from_side: str | None = None,
    from_button: bool = False,
) -> None:
    """The board for anyone: players see their own side, spectators the side to act.

    ``flip`` turns it round; ``from_side`` is the side the caller was looking from. A public
    board (``/board``) pings the side to act only when a player asked for it.
    """
    service = service_of(interaction)
    location_id = location_unless(interaction, game_id)

    async def work() -> Post:
        try:
            side = from_side
            if flip and side is None:  # the side the caller would see, turned round
                view = await service.view(
                    location_id=location_id, game_id=game_id, **seen(interaction)
                )
                side = view.colour_of(interaction.user.id) or default_orientation(view)
            if flip and side is not None:
                side = "black" if side == "white" else "white"
            outcome = await service.board(
                location_id=location_id,
                game_id=game_id,
                orientation=side,
                user_id=interaction.user.id,
                **seen(interaction, from_button=from_button),
            )
        except ServiceError as error:
            return await refusal(interaction, error)
        interaction.extras["game_id"] = outcome.game.id
        player = outcome.game.colour_of(interaction.user.id)
        side = side or player or default_orientation(outcome.game)
        return board_post(
            interaction, outcome, orientation=side, ephemeral=ephemeral, prompt=player is not None
        )

    await publish(interaction, work())


async def rematch(interaction: Interaction, game_id: int) -> None:
    """From a finished game's board: challenge the same opponent, colours swapped."""
    service = service_of(interaction)
    try:
        view = await service.view(game_id=game_id, **seen(interaction, from_button=True))
    except ServiceError as error:
        await deliver(interaction, await refusal(interaction, error))
        return
    mine = view.colour_of(interaction.user.id)
    if mine is None:
        await refuse(interaction, f"Only the players of game {view.id} can ask for a rematch.")
        return
    if view.status != "finished":
        await refuse(interaction, f"Game {view.id} is not finished.")
        return
    opponent = view.black_id if mine == "white" else view.white_id
    colour = "black" if mine == "white" else "white"
    from bot import challenges

    made = await challenges.challenge(
        interaction,
        variant=view.variant,
        opponent_id=opponent,
        colour=colour,
        options=dict(view.options),
        want_thread=False,
        name=f"{view.variant_title}: rematch of game {view.id}",
    )
    if made and interaction.message is not None:  # one rematch per board
        board = Sent(interaction.message.channel.id, interaction.message.id)
        await retire(interaction, board, keep=views.flip_view(view, "white"))
