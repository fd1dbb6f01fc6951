"""Ratings: /leaderboard and /profile (issue 15). Anyone may use them.

In a server they show that server's ratings by default (``scope: global`` for everyone's,
everywhere); in a direct message, the global ones. /profile lists a player's games going
on now in this server with links to their latest boards (in a DM only your own games).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.discord import answers, standings_embeds
from bot.discord.adapter import Post
from bot.discord.cogs.game import variant_choices
from bot.discord.translate import N_, _
from bot.service import ServiceError

if TYPE_CHECKING:
    from bot.discord.app import ChessGardenBot

Interaction = discord.Interaction[Any]
Choice = app_commands.Choice

SCOPE_CHOICES = [
    Choice(name="this server", value="server"),
    Choice(name="global (every server)", value="global"),
]
NO_SERVER = N_("A direct message has no server ratings; use scope: global.")


class StandingsCog(commands.Cog, name="Ratings"):
    """Leaderboards and profiles from the rated games."""

    def __init__(self, bot: ChessGardenBot) -> None:
        self.bot = bot

    @app_commands.command(name="leaderboard", description="The best rated players of a variant")
    @app_commands.describe(
        variant="Which variant",
        scope="This server's ratings (default in a server) or everyone's",
    )
    @app_commands.choices(variant=variant_choices(), scope=SCOPE_CHOICES)
    async def leaderboard(
        self, interaction: Interaction, variant: str, scope: str | None = None
    ) -> None:
        guild_id = interaction.guild_id
        if scope == "server" and guild_id is None:
            await answers.refuse(interaction, _(NO_SERVER))
            return
        service = answers.service_of(interaction)

        async def work() -> Post:
            try:
                board = await service.leaderboard(
                    variant=variant,
                    guild_id=None if scope == "global" else guild_id,
                    user_id=interaction.user.id,
                )
            except ServiceError as error:
                return await answers.refusal(interaction, error)
            return Post(embed=standings_embeds.leaderboard_embed(board))

        await answers.answer(interaction, work())

    @app_commands.command(
        name="profile", description="A player's ratings, record, last results and current games"
    )
    @app_commands.describe(
        user="Whose profile (default: yours)",
        scope="This server's ratings (default in a server) or everyone's",
    )
    @app_commands.choices(scope=SCOPE_CHOICES)
    async def profile(
        self,
        interaction: Interaction,
        user: discord.User | None = None,
        scope: str | None = None,
    ) -> None:
        guild_id = interaction.guild_id
        if scope == "server" and guild_id is None:
            await answers.refuse(interaction, _(NO_SERVER))
            return
        who = user or interaction.user
        if who.bot:
            await answers.refuse(interaction, _("Bots play no rated games; name a person."))
            return
        service = answers.service_of(interaction)

        async def work() -> Post:
            try:
                profile = await service.profile(
                    user_id=who.id,
                    guild_id=None if scope == "global" else guild_id,
                    viewer_id=interaction.user.id,
                )
            except ServiceError as error:
                return await answers.refusal(interaction, error)
            return Post(embed=standings_embeds.profile_embed(profile, who.display_name))

        await answers.answer(interaction, work())


async def setup(bot: ChessGardenBot) -> None:
    await bot.add_cog(StandingsCog(bot))
