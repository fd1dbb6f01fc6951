"""/roll: general dice expressions (``2d4``, ``d20+3``, ``4d6kh3``), answered in the channel."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.discord import adapter, answers
from bot.discord.adapter import Post
from bot.discord.translate import _
from bot.service import DiceExpressionError, roll_dice
from bot.service.dice_expr import DieRoller

if TYPE_CHECKING:
    from bot.discord.app import ChessGardenBot

Interaction = discord.Interaction[Any]
MAX_EXPRESSION = 100


class DiceCog(commands.Cog, name="Dice"):
    """Roll dice for anything; game dice are rolled by the games themselves."""

    def __init__(self, bot: ChessGardenBot, rng: DieRoller | None = None) -> None:
        self.bot = bot
        self.rng = rng  # None: the roller's default, drawn from ``secrets``

    @app_commands.command(name="roll", description="Roll dice: 2d4, d20+3, 4d6kh3, d%, 3d8+1d6-2")
    @app_commands.describe(
        expression="Dice expression: NdS, +/- numbers, kh/kl/dh/dl to keep or drop (4d6kh3)"
    )
    async def roll(
        self, interaction: Interaction, expression: app_commands.Range[str, 1, MAX_EXPRESSION]
    ) -> None:
        try:
            result = roll_dice(expression, self.rng)
        except DiceExpressionError as error:
            await answers.refuse(interaction, adapter.error_text(error))
            return
        embed = discord.Embed(
            title=f"🎲 {result.expression} = {result.total}",
            description=adapter.clip(result.breakdown, adapter.MAX_EMBED_TEXT),
            colour=adapter.COLOUR_CHALLENGE,
        )
        embed.set_footer(text=_("rolled for {name}", name=interaction.user.display_name))
        await answers.deliver(interaction, Post(embed=embed))


async def setup(bot: ChessGardenBot) -> None:
    await bot.add_cog(DiceCog(bot))
