"""Looking: /rules, /history, /games, /verify. Anyone may use them, players or not."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

import variants
from bot import adapter, flows
from bot.adapter import Post
from bot.cogs.game import report_command_error, variant_choices
from bot.service import SeedNotRevealed, ServiceError
from renderers.diagram import piece_diagram_png

if TYPE_CHECKING:
    from bot.discord_app import ChessGardenBot

Interaction = discord.Interaction[Any]


def rules_embed(key: str, *, image: bool) -> discord.Embed:
    """Summary, options, dice and every reading in force (RULES.md marks them **(reading)**)."""
    rules = variants.rules(key)
    embed = discord.Embed(
        title=f"{rules.title} (`{key}`)",
        description=adapter.clip(rules.summary or "No summary yet.", adapter.MAX_EMBED_TEXT),
        colour=adapter.COLOUR_CHALLENGE,
    )
    readings = "\n".join(f"{n}. {text}" for n, text in enumerate(rules.readings, 1))
    embed.add_field(
        name="Readings in force (our interpretation where the rules are silent)",
        value=adapter.clip(readings or "none", adapter.MAX_FIELD_TEXT),
        inline=False,
    )
    embed.add_field(
        name="Options for /play",
        value=", ".join(f"`{name}`" for name in rules.option_names) or "none",
        inline=True,
    )
    sides = int(getattr(rules, "dice_sides", 0) or 0)
    embed.add_field(name="Dice", value=f"d{sides}" if sides else "see the summary", inline=True)
    if image:
        embed.set_image(url=f"attachment://{adapter.PIECES_FILE}")
    embed.set_footer(text="Every roll is verifiable: /verify after the game.")
    return embed


class InfoCog(commands.Cog, name="Info"):
    """Rules, records and checks."""

    def __init__(self, bot: ChessGardenBot) -> None:
        self.bot = bot

    @app_commands.command(name="rules", description="A variant's rules, pieces and readings")
    @app_commands.describe(variant="Which variant")
    @app_commands.choices(variant=variant_choices())
    async def rules(self, interaction: Interaction, variant: str) -> None:
        if variant not in variants.names():
            await flows.fail(
                interaction,
                f"Unknown variant {variant!r}; choose one of: {', '.join(variants.names())}.",
            )
            return
        await flows.defer(interaction)
        try:
            png: bytes | None = await asyncio.to_thread(piece_diagram_png, variant)
        except (ValueError, OSError):
            png = None
        files = [adapter.png_file(png, adapter.PIECES_FILE)] if png is not None else []
        await flows.reply(
            interaction, Post(embed=rules_embed(variant, image=png is not None), files=files)
        )

    @app_commands.command(
        name="history", description="The record of this channel's game, as text and as a file"
    )
    @app_commands.describe(
        game="A game number (default: the game in this channel, or its last one)"
    )
    async def history(self, interaction: Interaction, game: int | None = None) -> None:
        service = flows.service_of(interaction)
        try:
            history = await service.history(
                location_id=flows.location_unless(interaction, game),
                game_id=game,
            )
        except ServiceError as error:
            await flows.fail_with(interaction, error)
            return
        await flows.reply(interaction, adapter.history_post(history))

    @app_commands.command(name="games", description="The games and open challenges in this server")
    async def games(self, interaction: Interaction) -> None:
        service = flows.service_of(interaction)
        guild_id = interaction.guild_id
        try:
            games = await service.list_games(
                guild_id=guild_id,
                location_id=None if guild_id is not None else flows.location_of(interaction),
                statuses=("challenge", "active"),
                limit=25,
            )
        except ServiceError as error:
            await flows.fail_with(interaction, error)
            return
        await flows.reply(
            interaction, Post(embed=adapter.games_embed(games, guild_id), ephemeral=True)
        )

    @app_commands.command(
        name="verify", description="Check every dice roll of a finished game against its seed"
    )
    @app_commands.describe(
        game="A game number (default: the game in this channel, or its last one)"
    )
    async def verify(self, interaction: Interaction, game: int | None = None) -> None:
        service = flows.service_of(interaction)
        try:
            report = await service.verify(
                location_id=flows.location_unless(interaction, game),
                game_id=game,
            )
        except SeedNotRevealed as error:
            await flows.fail(
                interaction,
                adapter.error_text(error)
                + "\nThe seed is revealed when the game ends; its SHA-256 commitment was posted at the start.",
            )
            return
        except ServiceError as error:
            await flows.fail_with(interaction, error)
            return
        await flows.reply(interaction, Post(embed=adapter.verify_embed(report)))

    async def cog_app_command_error(
        self, interaction: Interaction, error: app_commands.AppCommandError
    ) -> None:
        await report_command_error(interaction, error)


async def setup(bot: ChessGardenBot) -> None:
    await bot.add_cog(InfoCog(bot))
