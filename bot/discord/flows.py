"""Interaction flows shared by slash commands and buttons: playing, accepting, declining,
looking, rematches, and the bookkeeping of a game's board messages.

Every flow is ``answers.answer`` (see there) around a piece of work: one service call,
which also draws the board (``Outcome.image``, ``dice_image``, ``legal``). After a board
goes out (``after_post``): the buttons come off the game's previous board (a bot-token
edit, which works however old the message is), the new board is remembered by the service
(so this survives a restart), and when the game has ended its thread is archived (if the
bot made it).
"""

from __future__ import annotations

import logging
from collections.abc import Coroutine
from typing import Any

import discord

from bot.discord import adapter, standings_embeds, threads, translate, views
from bot.discord.adapter import Post
from bot.discord.answers import (
    Interaction,
    Sent,
    answer,
    bot_user_id,
    deliver,
    location_unless,
    refusal,
    refuse_outside_server,
    request_id,
    seen,
    service_of,
)
from bot.discord.translate import _
from bot.service import DrawAnswer, GameView, Outcome, ServiceError

log = logging.getLogger(__name__)


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
    return board_message(
        outcome,
        actor_id=interaction.user.id,
        orientation=orientation,
        ephemeral=ephemeral,
        prompt=prompt,
        show_commitment=show_commitment,
    )


def board_message(
    outcome: Outcome,
    *,
    actor_id: int,
    orientation: str | None = None,
    ephemeral: bool = False,
    prompt: bool = True,
    show_commitment: bool = False,
) -> Post:
    """``board_post`` for the entry of ``actor_id``, with or without an interaction (the
    outbox posts the computer's moves, and a board an interaction could not carry, so)."""
    view = outcome.game
    side = orientation or outcome.orientation or default_orientation(view)
    files = []
    if outcome.image is not None:
        files.append(adapter.png_file(outcome.image, adapter.BOARD_FILE))
    if outcome.dice_image is not None:
        files.append(adapter.png_file(outcome.dice_image, adapter.DICE_FILE))
    embed = adapter.board_embed(
        view,
        standings_embeds.without_rating_line(outcome.messages, outcome.ratings),
        image=outcome.image is not None,
        dice_image=outcome.dice_image is not None,
        show_commitment=show_commitment,
        orientation=side if outcome.image is not None else None,
        status=outcome.status,
    )
    standings_embeds.add_rating_changes(embed, outcome.ratings)  # a rated game's end
    content: str | None = None
    ping: tuple[int, ...] = ()
    if prompt and not ephemeral:
        content, ping = adapter.turn_prompt(view, actor_id=actor_id)
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
        failure=_("Game {game} is updated, but I could not post its board.", game=view.id),
        owed=None if ephemeral else outcome.owed,
    )


async def remember_board(
    interaction: Interaction, game_id: int, sent: Sent, owed: int | None = None
) -> Sent | None:
    """Store ``sent`` as the game's board message (in the database, so it outlives a
    restart), settling the outbox row it delivers (``owed``); return the one it replaces."""
    previous = await service_of(interaction).set_board_message(
        game_id=game_id, channel_id=sent.channel_id, message_id=sent.message_id, owed=owed
    )  # one call: it answers with the board it replaces
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
    game_id: int | None = None,
) -> None:
    """Take the buttons off an old board (or replace them with ``keep``), with the bot's
    token: an interaction's token expires after 15 minutes, the bot's does not. If
    Discord fails for now (a 5xx, a 429, no answer), taking the buttons off is owed: the
    outbox worker does it later (issue 24). A refusal is only logged: an old button then
    answers "over" or "the game moved on"."""
    channel = interaction.client.get_partial_messageable(
        message.channel_id, guild_id=interaction.guild_id
    )
    kwargs: dict[str, Any] = {"view": keep}
    if embed is not None:
        kwargs["embed"] = embed
    try:
        await channel.get_partial_message(message.message_id).edit(**kwargs)
    except threads.REQUEST_FAILURES as error:
        log.info("could not retire the buttons of message %s: %r", message.message_id, error)
        transient = (
            not isinstance(error, discord.HTTPException)
            or error.status in (429,)
            or (error.status >= 500)
        )
        if transient and keep is None and game_id is not None:
            await service_of(interaction).owe_retire(
                game_id=game_id, channel_id=message.channel_id, message_id=message.message_id
            )


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
    if sent is None and post.owed is not None:
        # The interaction could not carry the board: the outbox worker posts it (and then
        # retires the previous board, remembers the new one, archives at the end).
        await service_of(interaction).owe_now(post.owed, "the interaction could not carry it")
        return
    previous: Sent | None = None
    if sent is not None and post.owed is not None and not post.is_board:
        # an owed post that is not a board (a takeback request): settled as delivered
        await service_of(interaction).owed_posted(
            post.owed, channel_id=sent.channel_id, message_id=sent.message_id
        )
    if sent is not None and post.is_board:
        previous = await remember_board(interaction, post.game_id, sent, post.owed)
    elif post.game_over:
        previous = await last_board(interaction, post.game_id)
    if previous is not None and previous != sent:
        await retire(interaction, previous, embed=retired_embed, game_id=post.game_id)
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
    if await refuse_outside_server(interaction):
        return
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
        post.note = _("Played {action}; the board follows.", action=outcome.recorded or text)
        post.failure = _(
            "Your action in game {game} is played, but I could not show its board here; "
            "I am posting it in the channel instead.",
            game=outcome.game.id,
        )
        return post

    await publish(interaction, work())


PLAYER_COMMANDS = ("resign", "offer_draw", "accept_draw", "decline_draw")


async def player_command(
    interaction: Interaction, name: str, *, game_id: int | None = None, from_button: bool = False
) -> None:
    """Resign, offer, accept or decline a draw for the caller. A draw offered to the
    computer is answered at once, privately (``offer_computer_draw``)."""
    if name not in PLAYER_COMMANDS:
        raise ValueError(f"unknown player command {name!r}")
    if await refuse_outside_server(interaction):
        return
    service = service_of(interaction)
    location_id = location_unless(interaction, game_id)
    if name == "offer_draw":
        try:
            view = await service.view(
                location_id=location_id,
                game_id=game_id,
                **seen(interaction, from_button=from_button),
            )
        except ServiceError:
            view = None  # the offer itself is refused below, in the usual words
        if view is not None and view.computer is not None and view.status == "active":
            await offer_computer_draw(interaction, view.id, from_button=from_button)
            return

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


def computer_draw_text(answer: DrawAnswer) -> str:
    game = answer.outcome.game
    if answer.accepted:
        return _(
            "The computer accepts your draw offer: game {game} is drawn, and its final "
            "board is posted here.",
            game=game.id,
        )
    return _(
        "The computer declines your draw offer; game {game} goes on, and it is your move.",
        game=game.id,
    )


async def offer_computer_draw(interaction: Interaction, game_id: int, *, from_button: bool) -> None:
    """A draw offered to the computer: its answer in ONE private reply, with no board. If it
    accepts, the game is over, and its final board is posted once, publicly, as when a
    person accepts a draw (the result and the revealed seed belong in the channel)."""
    service = service_of(interaction)
    answers_: list[DrawAnswer] = []

    async def work() -> Post:
        try:
            answer_ = await service.offer_draw_to_computer(
                user_id=interaction.user.id,
                game_id=game_id,
                request_id=request_id(interaction),
                render=True,
                **seen(interaction, from_button=from_button),
            )
        except ServiceError as error:
            return await refusal(interaction, error)
        interaction.extras["game_id"] = game_id
        answers_.append(answer_)
        text = computer_draw_text(answer_)
        colour = adapter.COLOUR_OVER if answer_.accepted else adapter.COLOUR_ACTIVE
        return Post(embed=discord.Embed(description=text, colour=colour), ephemeral=True, note=text)

    await answer(interaction, work())
    if answers_ and answers_[0].accepted:
        final = board_post(interaction, answers_[0].outcome)
        sent = await deliver(interaction, final)
        await after_post(interaction, final, sent)


async def accept(
    interaction: Interaction,
    *,
    game_id: int | None = None,
    from_button: bool = False,
) -> None:
    """Accept a challenge: the game starts; the first board pings the side to move."""
    if await refuse_outside_server(interaction):
        return
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
    if post is None or post.game_id is None:
        return
    if sent is None:
        if post.owed is not None:  # the outbox worker posts the first board instead
            await service.owe_now(post.owed, "the interaction could not carry it")
        return
    previous = await remember_board(interaction, post.game_id, sent, post.owed)
    if previous is None and interaction.message is not None:
        previous = Sent(interaction.message.channel.id, interaction.message.id)
    if previous is not None:
        view = await service.view(game_id=post.game_id)
        closed = adapter.closed_embed(
            Outcome(
                view,
                (
                    _(
                        "Accepted by {player}; the board is below.",
                        player=adapter.mention(interaction.user.id),
                    ),
                ),
            )
        )
        await retire(interaction, previous, embed=closed, game_id=post.game_id)


async def decline(interaction: Interaction, game_id: int, *, from_button: bool = False) -> None:
    """The challenged player declines; the challenger's Decline cancels."""
    if await refuse_outside_server(interaction):
        return
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
    board (``/board``) pings the side to act only when a player asked for it. A private one
    (``ephemeral``) is drawn in the caller's ``/prefs`` theme, and from the side they chose
    unless they asked for a side (issue 27).
    """
    if await refuse_outside_server(interaction):
        return
    service = service_of(interaction)
    location_id = location_unless(interaction, game_id)

    async def work() -> Post:
        try:
            side = from_side
            theme: str | None = None
            if ephemeral:
                prefs = await service.server_settings.prefs(interaction.user.id)
                theme = prefs.theme or "classic"
                if prefs.orientation == "white" and side is None and not flip:
                    side = "white"
            mover = ephemeral and side is None and not flip and prefs.orientation == "mover"
            if (flip and side is None) or mover:  # the side the caller would see
                view = await service.view(
                    location_id=location_id, game_id=game_id, **seen(interaction)
                )
                side = default_orientation(view)
                if not mover:
                    side = view.colour_of(interaction.user.id) or side
            if flip and side is not None:
                side = "black" if side == "white" else "white"
            outcome = await service.board(
                location_id=location_id,
                game_id=game_id,
                orientation=side,
                user_id=interaction.user.id,
                theme=theme,
                # a private board speaks its reader's language; a posted one the server's
                locale=translate.locale_of(interaction) if ephemeral else None,
                **seen(interaction, from_button=from_button),
            )
        except ServiceError as error:
            return await refusal(interaction, error)
        interaction.extras["game_id"] = outcome.game.id
        player = outcome.game.colour_of(interaction.user.id)
        side = side or player or outcome.orientation or default_orientation(outcome.game)
        post = board_post(
            interaction, outcome, orientation=side, ephemeral=ephemeral, prompt=player is not None
        )
        failure = (await service.post_failures([outcome.game.id])).get(outcome.game.id)
        if failure is not None:  # the bot's own posts there are refused (issue 24)
            post.embed.add_field(
                name=_("Cannot post"),
                value=_(
                    "{problem}. A moderator can move the game with /relocate.",
                    problem=failure.line,
                ),
                inline=False,
            )
        return post

    await publish(interaction, work())
