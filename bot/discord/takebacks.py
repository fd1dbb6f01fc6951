"""Takebacks on Discord (issue 27): the board's Takeback button asks, and a public message
with Accept/Decline buttons pings the opponent (owed: a ``takeback`` outbox row written
with the request, settled when the answer posts it, else delivered by the worker); accepting posts the board as it was
before the moves taken back (``GameService.accept_takeback``). Against the computer the
answer comes at once: the new board at levels 1 and 2, a private refusal at level 3.

The service decides everything (who may ask, whether a die has been rolled since); this
module only turns its outcomes into posts.
"""

from __future__ import annotations

from typing import Any

import discord

from bot.discord import adapter, flows, views
from bot.discord.adapter import Post
from bot.discord.answers import (
    Interaction,
    Sent,
    refusal,
    refuse_outside_server,
    request_id,
    seen,
    service_of,
)
from bot.discord.translate import _
from bot.service import Outcome, ServiceError


def request_post(outcome: Outcome, asker_id: int) -> Post:
    """The public request: the opponent is pinged, with Accept and Decline buttons. Owed
    (``outcome.owed``, a ``takeback`` outbox row): the interaction's answer settles it,
    or the outbox worker posts it (``bot.discord.delivery``)."""
    view = outcome.game
    opponent = view.black_id if view.white_id == asker_id else view.white_id
    embed = discord.Embed(
        title=_("{title}: takeback?", title=adapter.game_title(view)),
        description=adapter.outcome_text(outcome),
        colour=adapter.COLOUR_CHALLENGE,
    )
    content = _(
        "{player}, {asker} asks for a takeback.",
        player=adapter.mention(opponent),
        asker=adapter.mention(asker_id),
    )
    return Post(
        embed=embed,
        content=content,
        ping=(opponent,) if opponent is not None else (),
        view=views.takeback_view(view.id),
        game_id=view.id,
        owed=outcome.owed,
        note=_("Your takeback request is posted below."),
        failure=_(
            "Your takeback request in game {game} is recorded, but I could not post it.",
            game=view.id,
        ),
    )


async def ask(interaction: Interaction, game_id: int, **_params: Any) -> None:
    """The Takeback button: ask the opponent (or the computer, which answers at once)."""
    if await refuse_outside_server(interaction):
        return
    service = service_of(interaction)

    async def work() -> Post:
        try:
            outcome = await service.request_takeback(
                user_id=interaction.user.id,
                game_id=game_id,
                request_id=request_id(interaction),
                render=True,
                **seen(interaction, from_button=True),
            )
        except ServiceError as error:
            return await refusal(interaction, error)
        interaction.extras["game_id"] = outcome.game.id
        if outcome.image is None:  # a person answers later
            return request_post(outcome, interaction.user.id)
        return flows.board_post(interaction, outcome)  # the computer agreed: the new board

    await flows.publish(interaction, work())


async def accept(interaction: Interaction, game_id: int, **_params: Any) -> None:
    """Accept takeback: the moves are taken back and the board posted anew."""
    if await refuse_outside_server(interaction):
        return
    service = service_of(interaction)

    async def work() -> Post:
        try:
            outcome = await service.accept_takeback(
                user_id=interaction.user.id,
                game_id=game_id,
                request_id=request_id(interaction),
                render=True,
                **seen(interaction, from_button=True),
            )
        except ServiceError as error:
            return await refusal(interaction, error)
        interaction.extras["game_id"] = outcome.game.id
        return flows.board_post(interaction, outcome)

    post, _sent = await flows.publish(interaction, work())
    accepted = post is not None and not post.ephemeral  # (a refusal is private)
    if accepted and interaction.message is not None:  # the request is answered
        # (also when the board could not be carried by the answer: the worker posts it)
        request = Sent(interaction.message.channel.id, interaction.message.id)
        answered = discord.Embed(
            description=_(
                "Takeback accepted by {player}; the board is below.",
                player=adapter.mention(interaction.user.id),
            ),
            colour=adapter.COLOUR_CLOSED,
        )
        # a failure for now owes taking the buttons off (a ``retire`` row)
        await flows.retire(interaction, request, embed=answered, game_id=game_id)


async def decline(interaction: Interaction, game_id: int, **_params: Any) -> None:
    """Decline takeback (or the asker's withdrawal): the request turns into the notice."""
    if await refuse_outside_server(interaction):
        return
    service = service_of(interaction)

    async def work() -> Post:
        try:
            outcome = await service.decline_takeback(
                user_id=interaction.user.id,
                game_id=game_id,
                **seen(interaction, from_button=True),
            )
        except ServiceError as error:
            return await refusal(interaction, error)
        # an empty view: the buttons come off the request (owed: ``takeback_answer``)
        return Post(
            embed=adapter.closed_embed(outcome),
            view=views.GardenView(),
            replace=True,
            game_id=outcome.game.id,
            owed=outcome.owed,
        )

    await flows.publish(interaction, work())
