"""Interaction flows shared by slash commands and buttons.

Every flow has the same shape:

1. **validate**: ask the service (cheap: checks and one SQLite transaction, no drawing);
   on a ``ServiceError`` answer ephemerally, saying what would have been legal;
2. **defer**: ``interaction.response.defer()``, so Discord's 3-second clock stops;
3. **render**: draw the board and the dice in worker threads (the service draws the
   board with ``asyncio.to_thread``; the dice here the same way);
4. **send**: one follow-up message with the embed, the images and the buttons.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import discord

import variants
from bot import adapter, views
from bot.adapter import Post
from bot.service import GameService, GameView, IllegalAction, Outcome, ServiceError

log = logging.getLogger(__name__)

Interaction = discord.Interaction[Any]


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


async def reply(interaction: Interaction, post: Post) -> Any:
    """Send ``post`` as the response, or as a follow-up once the response is used."""
    kwargs = post.kwargs()
    if interaction.response.is_done():
        return await interaction.followup.send(**kwargs)
    return await interaction.response.send_message(**kwargs)


async def fail(interaction: Interaction, text: str) -> None:
    """An ephemeral error: only the caller sees it."""
    post = Post(embed=adapter.error_embed(text), ephemeral=True)
    await reply(interaction, post)


async def fail_with(
    interaction: Interaction,
    error: ServiceError | ValueError,
    *,
    location_id: int | None = None,
    game_id: int | None = None,
) -> None:
    """Report a service error; for an illegal action also list the legal ones for the mover."""
    legal: tuple[str, ...] = ()
    if isinstance(error, IllegalAction) and (location_id is not None or game_id is not None):
        legal = await legal_for(interaction, location_id=location_id, game_id=game_id)
    await fail(interaction, adapter.error_text(error, legal))


async def legal_for(
    interaction: Interaction, *, location_id: int | None = None, game_id: int | None = None
) -> tuple[str, ...]:
    """The legal actions, if the caller is the one to act; else nothing."""
    service = service_of(interaction)
    try:
        view = await service.view(location_id=location_id, game_id=game_id)
        if view.status != "active" or view.to_move_id != interaction.user.id:
            return ()
        return await service.legal_moves(game_id=view.id)
    except ServiceError:
        return ()


async def defer(interaction: Interaction, *, ephemeral: bool = False) -> None:
    if not interaction.response.is_done():
        await interaction.response.defer(ephemeral=ephemeral, thinking=True)


# ----- drawing --------------------------------------------------------------------


def _dice_png(view: GameView) -> bytes | None:
    if not view.dice or view.status != "active":
        return None
    from renderers import render_dice_png

    try:
        sides = adapter.dice_sides(int(variants.rules(view.variant).dice_sides), view.dice)
        return render_dice_png(view.dice, sides)
    except ValueError:
        log.warning("cannot draw dice %s for %s", view.dice, view.variant)
        return None


def default_orientation(view: GameView) -> str:
    """Live boards face the side to act; finished ones face White."""
    return view.turn if view.status == "active" and view.turn else "white"


async def board_post(
    service: GameService,
    view: GameView,
    messages: tuple[str, ...] | list[str],
    *,
    orientation: str | None = None,
    buttons: bool = True,
    show_commitment: bool = False,
    ephemeral: bool = False,
    mention_mover: bool = True,
) -> Post:
    """Draw the board (service, worker thread) and the dice (worker thread); build the post.

    Call only after ``defer()``: this is the slow part.
    """
    side = orientation or default_orientation(view)
    image: bytes | None = None
    try:
        looked = await service.board(game_id=view.id, orientation=side)
        image = looked.image
        messages = messages or looked.messages
    except ServiceError as error:
        log.warning("no board image for game %s: %s", view.id, error)
    dice = await asyncio.to_thread(_dice_png, view)
    files = []
    if image is not None:
        files.append(adapter.png_file(image, adapter.BOARD_FILE))
    if dice is not None:
        files.append(adapter.png_file(dice, adapter.DICE_FILE))
    embed = adapter.board_embed(
        view,
        messages,
        image=image is not None,
        dice_image=dice is not None,
        show_commitment=show_commitment,
        orientation=side if image is not None else None,
    )
    content = adapter.mover_content(view) if mention_mover else None
    item_view: discord.ui.View | None = None
    if buttons and not ephemeral:
        legal = await service.legal_moves(game_id=view.id) if view.status == "active" else ()
        item_view = views.board_view(view, legal, side)
        if view.status == "active" and view.draw_offer is not None:
            offered_to = view.black_id if view.draw_offer == "white" else view.white_id
            content = f"{adapter.mention(offered_to)}, {view.draw_offer} offers a draw."
    elif buttons:
        item_view = views.flip_view(view, side)
    return Post(embed=embed, content=content, files=files, view=item_view, ephemeral=ephemeral)


async def publish(
    interaction: Interaction,
    outcome: Outcome,
    *,
    show_commitment: bool = False,
    orientation: str | None = None,
    ephemeral: bool = False,
) -> Any:
    """Defer, render, send: the tail of every flow that changed or shows a game."""
    await defer(interaction, ephemeral=ephemeral)
    post = await board_post(
        service_of(interaction),
        outcome.game,
        outcome.messages,
        orientation=orientation,
        show_commitment=show_commitment,
        ephemeral=ephemeral,
        mention_mover=not ephemeral,
    )
    return await reply(interaction, post)


# ----- playing --------------------------------------------------------------------


async def act(
    interaction: Interaction,
    text: str,
    *,
    game_id: int | None = None,
    expected_ply: int | None = None,
) -> Outcome | None:
    """Play ``text`` (any notation, ``pass``, ``reroll`` ...) for the caller."""
    service = service_of(interaction)
    location_id = location_unless(interaction, game_id)
    try:
        outcome = await service.act(
            user_id=interaction.user.id,
            text=text,
            location_id=location_id,
            game_id=game_id,
            request_id=request_id(interaction),
            expected_ply=expected_ply,
            render=False,
        )
    except ServiceError as error:
        await fail_with(interaction, error, location_id=location_id, game_id=game_id)
        return None
    await publish(interaction, outcome)
    return outcome


PLAYER_COMMANDS = ("resign", "offer_draw", "accept_draw", "decline_draw")


async def player_command(
    interaction: Interaction, name: str, *, game_id: int | None = None
) -> Outcome | None:
    """Resign, offer, accept or decline a draw for the caller."""
    if name not in PLAYER_COMMANDS:
        raise ValueError(f"unknown player command {name!r}")
    service = service_of(interaction)
    location_id = location_unless(interaction, game_id)
    try:
        outcome: Outcome = await getattr(service, name)(
            user_id=interaction.user.id,
            location_id=location_id,
            game_id=game_id,
            request_id=request_id(interaction),
        )
    except ServiceError as error:
        await fail_with(interaction, error)
        return None
    await publish(interaction, outcome)
    return outcome


async def accept(interaction: Interaction, game_id: int) -> Outcome | None:
    """Accept a challenge: the game starts; post the first board and the dice commitment."""
    service = service_of(interaction)
    try:
        outcome = await service.accept(user_id=interaction.user.id, game_id=game_id, render=False)
    except ServiceError as error:
        await fail_with(interaction, error)
        return None
    await defer(interaction)
    await _retire_buttons(interaction, outcome)
    await publish(interaction, outcome, show_commitment=True)
    return outcome


async def decline(interaction: Interaction, game_id: int) -> Outcome | None:
    """The challenged player declines; the challenger's Decline cancels."""
    service = service_of(interaction)
    try:
        view = await service.view(game_id=game_id)
        command = service.cancel if interaction.user.id == view.challenger_id else service.decline
        outcome = await command(user_id=interaction.user.id, game_id=game_id)
    except ServiceError as error:
        await fail_with(interaction, error)
        return None
    await defer(interaction)
    await _retire_buttons(interaction, outcome)
    await reply(interaction, Post(embed=adapter.closed_embed(outcome)))
    return outcome


async def _retire_buttons(interaction: Interaction, outcome: Outcome) -> None:
    """Take the buttons off the challenge message the button was on (if any)."""
    message = getattr(interaction, "message", None)
    if message is None:
        return
    try:
        await message.edit(embed=adapter.closed_embed(outcome), view=None)
    except discord.HTTPException as error:  # not fatal: the buttons then just answer "over"
        log.info("could not edit the challenge message: %s", error)


async def show_board(
    interaction: Interaction,
    *,
    game_id: int | None = None,
    flip: bool = False,
    ephemeral: bool = False,
    from_side: str | None = None,
) -> Outcome | None:
    """The board for anyone: players see their own side, spectators the side to act.

    ``flip`` turns it round; ``from_side`` is the side the caller was looking from.
    """
    service = service_of(interaction)
    location_id = location_unless(interaction, game_id)
    try:
        view = await service.view(location_id=location_id, game_id=game_id)
    except ServiceError as error:
        await fail_with(interaction, error)
        return None
    side = from_side or view.colour_of(interaction.user.id) or default_orientation(view)
    if flip:
        side = "black" if side == "white" else "white"
    outcome = Outcome(view)  # no messages: the board's own status lines are used
    if view.status == "challenge":
        await reply(interaction, Post(embed=adapter.closed_embed(outcome), ephemeral=ephemeral))
        return outcome
    await publish(interaction, outcome, orientation=side, ephemeral=ephemeral)
    return outcome
