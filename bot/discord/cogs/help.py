"""/help (issue 27): a short guide to playing, then one line per command from the command
tree (``bot.discord.help``), privately, a page at a time."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.discord import answers, help
from bot.discord.adapter import Post
from bot.discord.translate import _

if TYPE_CHECKING:
    from bot.discord.app import ChessGardenBot

Interaction = discord.Interaction[Any]
MAX_PAGE = 50


class HelpCog(commands.Cog, name="Help"):
    """The guide."""

    def __init__(self, bot: ChessGardenBot) -> None:
        self.bot = bot

    @app_commands.command(
        name="help", description="How to play here: challenges, moves, buttons, every command"
    )
    @app_commands.describe(page="Which page (default: the first)")
    async def help(
        self, interaction: Interaction, page: app_commands.Range[int, 1, MAX_PAGE] = 1
    ) -> None:
        pages = help.help_pages(self.bot.tree)
        if page > len(pages):
            await answers.refuse(
                interaction,
                _("There are {pages} pages of help; choose 1 to {pages}.", pages=len(pages)),
            )
            return
        post = Post(
            embed=help.page_embed(pages, page),
            view=help.page_view(page, len(pages)),
            ephemeral=True,
        )
        await answers.deliver(interaction, post)


async def setup(bot: ChessGardenBot) -> None:
    await bot.add_cog(HelpCog(bot))
