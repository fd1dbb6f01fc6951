"""/analyse: a finished game's errors and luck, with its graph (issue 29). The flow, shared
with the Analyse button of a finished rated game's final board, is in
``bot.discord.analysis``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.discord import analysis, answers
from bot.discord.cogs.game import GAME_NUMBER

if TYPE_CHECKING:
    from bot.discord.app import ChessGardenBot

Interaction = discord.Interaction[Any]


class AnalyseCog(commands.Cog, name="Analysis"):
    """What decided a game: each player's errors and the dice's luck."""

    def __init__(self, bot: ChessGardenBot) -> None:
        self.bot = bot

    @app_commands.command(
        name="analyse",
        description="A finished game's errors and luck, move by move, with a graph",
    )
    @app_commands.describe(game="A game number (default: this channel's last game)")
    async def analyse(self, interaction: Interaction, game: GAME_NUMBER | None = None) -> None:
        if game is None and interaction.guild_id is None:
            answers.stamp(interaction)
            await answers.refuse(
                interaction,
                "In a direct message there is no game here; name one: /analyse game:<number>.",
            )
            return
        await analysis.analyse(interaction, game)


async def setup(bot: ChessGardenBot) -> None:
    await bot.add_cog(AnalyseCog(bot))
