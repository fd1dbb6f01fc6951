"""Looking: /rules, /history, /games, /verify. Anyone may use them, players or not.

They work in direct messages too: /rules as anywhere, /games lists your own games, and
/history and /verify take a game number (a DM has no game of its own).
"""

from __future__ import annotations

import asyncio
import io
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

import variants
from bot import adapter, answers
from bot.adapter import Post
from bot.cogs.game import GAME_NUMBER, variant_choices
from bot.service import SeedNotRevealed, ServiceError
from renderers.diagram import piece_diagram_png

if TYPE_CHECKING:
    from bot.discord_app import ChessGardenBot

Interaction = discord.Interaction[Any]
IN_A_DM = (
    "In a direct message there is no game here; name one: /{command} game:<number>. "
    "/games lists yours."
)


READINGS_TITLE = "Readings in force (our interpretation where the rules are silent)"
MAX_EMBED_TOTAL = 6000  # Discord: all of an embed's text together
MAX_FIELDS = 25


def pack(lines: list[str], limit: int = adapter.MAX_FIELD_TEXT) -> list[str]:
    """Lines joined into chunks of at most ``limit`` characters, never cutting a line that
    fits; a longer line is split between words."""
    pieces: list[str] = []
    for line in lines:
        while len(line) > limit:
            cut = line.rfind(" ", 0, limit)
            cut = cut if cut > 0 else limit
            pieces.append(line[:cut])
            line = line[cut:].lstrip()
        pieces.append(line)
    chunks: list[str] = []
    for piece in pieces:
        if chunks and len(chunks[-1]) + 1 + len(piece) <= limit:
            chunks[-1] += "\n" + piece
        else:
            chunks.append(piece)
    return chunks


def readings_text(key: str) -> str:
    rules = variants.rules(key)
    return "\n".join(f"{n}. {text}" for n, text in enumerate(rules.readings, 1))


def rules_embed(key: str, *, image: bool) -> tuple[discord.Embed, bool]:
    """Summary, options, dice and every reading in force (RULES.md marks them **(reading)**).

    The readings fill as many fields as they need (1,024 characters each). If they would
    not fit in one embed, they go in an attached text file instead; the second value says
    so.
    """
    rules = variants.rules(key)
    embed = discord.Embed(
        title=f"{rules.title} (`{key}`)",
        description=adapter.clip(rules.summary or "No summary yet.", adapter.MAX_EMBED_TEXT),
        colour=adapter.COLOUR_CHALLENGE,
    )
    lines = [f"{n}. {text}" for n, text in enumerate(rules.readings, 1)] or ["none"]
    chunks = pack(lines)
    names = [READINGS_TITLE] + ["Readings, continued"] * (len(chunks) - 1)
    size = len(embed.title or "") + len(embed.description or "") + 200  # with the other fields
    size += sum(len(n) + len(c) for n, c in zip(names, chunks, strict=True))
    attach = size > MAX_EMBED_TOTAL or len(chunks) + 2 > MAX_FIELDS
    if attach:
        embed.add_field(
            name=READINGS_TITLE,
            value=f"{len(rules.readings)} readings, in the attached file.",
            inline=False,
        )
    else:
        for name, chunk in zip(names, chunks, strict=True):
            embed.add_field(name=name, value=chunk, inline=False)
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
    return embed, attach


class InfoCog(commands.Cog, name="Info"):
    """Rules, records and checks."""

    def __init__(self, bot: ChessGardenBot) -> None:
        self.bot = bot

    @app_commands.command(name="rules", description="A variant's rules, pieces and readings")
    @app_commands.describe(variant="Which variant")
    @app_commands.choices(variant=variant_choices())
    async def rules(self, interaction: Interaction, variant: str) -> None:
        if variant not in variants.names():
            await answers.refuse(
                interaction,
                f"Unknown variant {variant!r}; choose one of: {', '.join(variants.names())}.",
            )
            return

        async def work() -> Post:
            try:
                png: bytes | None = await asyncio.to_thread(piece_diagram_png, variant)
            except (ValueError, OSError):
                png = None
            embed, attach = rules_embed(variant, image=png is not None)
            files = [adapter.png_file(png, adapter.PIECES_FILE)] if png is not None else []
            if attach:
                data = (readings_text(variant) + "\n").encode()
                files.append(discord.File(io.BytesIO(data), filename=f"readings-{variant}.txt"))
            return Post(embed=embed, files=files)

        await answers.answer(interaction, work())

    @app_commands.command(
        name="history", description="The record of this channel's game, as text and as a file"
    )
    @app_commands.describe(
        game="A game number (default: the game in this channel, or its last one)"
    )
    async def history(self, interaction: Interaction, game: GAME_NUMBER | None = None) -> None:
        if game is None and interaction.guild_id is None:
            await answers.refuse(interaction, IN_A_DM.format(command="history"))
            return
        service = answers.service_of(interaction)

        async def work() -> Post:
            try:
                history = await service.history(
                    location_id=answers.location_unless(interaction, game),
                    game_id=game,
                    **answers.seen(interaction),
                )
            except ServiceError as error:
                return await answers.refusal(interaction, error)
            return adapter.history_post(history)

        await answers.answer(interaction, work())

    @app_commands.command(
        name="games", description="The games and open challenges in this server (in a DM: yours)"
    )
    async def games(self, interaction: Interaction) -> None:
        service = answers.service_of(interaction)
        guild_id = interaction.guild_id

        async def work() -> Post:
            try:
                games = await service.list_games(
                    guild_id=guild_id,
                    player_id=interaction.user.id if guild_id is None else None,
                    statuses=("challenge", "active"),
                    limit=25,
                    viewer=answers.viewer_of(interaction),
                )
            except ServiceError as error:
                return await answers.refusal(interaction, error)
            return Post(embed=adapter.games_embed(games, guild_id), ephemeral=True)

        await answers.answer(interaction, work())

    @app_commands.command(
        name="verify", description="Check every dice roll of a finished game against its seed"
    )
    @app_commands.describe(
        game="A game number (default: the game in this channel, or its last one)"
    )
    async def verify(self, interaction: Interaction, game: GAME_NUMBER | None = None) -> None:
        if game is None and interaction.guild_id is None:
            await answers.refuse(interaction, IN_A_DM.format(command="verify"))
            return
        service = answers.service_of(interaction)

        async def work() -> Post:
            try:
                report = await service.verify(
                    location_id=answers.location_unless(interaction, game),
                    game_id=game,
                    **answers.seen(interaction),
                )
            except SeedNotRevealed as error:
                return answers.error_post(
                    adapter.error_text(error)
                    + "\nThe seed is revealed when the game ends; its SHA-256 commitment was "
                    "posted when the game began."
                )
            except ServiceError as error:
                return await answers.refusal(interaction, error)
            return Post(embed=adapter.verify_embed(report))

        await answers.answer(interaction, work())


async def setup(bot: ChessGardenBot) -> None:
    await bot.add_cog(InfoCog(bot))
