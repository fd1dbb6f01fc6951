"""Looking: /rules, /history, /games, /verify. Anyone may use them, players or not.

They work in direct messages too: /rules as anywhere, /games lists your own games, and
/history and /verify take a game number (a DM has no game of its own).
"""

from __future__ import annotations

import asyncio
import functools
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

import variants
from bot import i18n
from bot.discord import adapter, answers
from bot.discord.adapter import Post
from bot.discord.cogs.game import GAME_NUMBER, variant_choices
from bot.discord.translate import N_, _, command_name
from bot.service import SeedNotRevealed, ServiceError
from renderers.diagram import piece_diagram_png
from variants.rulebook import discord_pages, translated

# A chain head as a board shows it (16 hex characters), or longer, with room for spaces.
CHAIN_HEAD = app_commands.Range[str, 1, 100]

if TYPE_CHECKING:
    from bot.discord.app import ChessGardenBot

Interaction = discord.Interaction[Any]
IN_A_DM = N_(
    "In a direct message there is no game here; name one: /{command} game:<number>. "
    "/games lists yours."
)


def rules_embeds(key: str, *, image: bool, locale: str | None = None) -> list[discord.Embed]:
    """The complete rules of a variant as Discord embeds: ``variants.rulebook_pages``, the
    same source as ``chessgarden rules`` and ``docs/rules/``, so they cannot drift. Each
    embed keeps under Discord's limits (6,000 characters, 25 fields); one message holds
    at most 6,000 characters of embeds in all, so each page is a message of its own. The
    first page has the summary, the options for /play and the pieces diagram.

    In ``locale`` (default: the reader's, ``i18n.current``), every paragraph of the
    rulebook as the catalogue says it (``variants.rulebook.texts``; issue 27)."""
    language = locale or i18n.current()
    book = variants.rulebook(key)
    if language != i18n.DEFAULT:
        book = translated(book, functools.partial(i18n.gettext, language))
    rules = variants.rules(key)
    pages = discord_pages(book)
    embeds = []
    for number, page in enumerate(pages, 1):
        first = number == 1
        title = f"{book.title} (`{key}`)"
        embed = discord.Embed(
            title=title if first else _("{title}, continued", title=title),
            colour=adapter.COLOUR_CHALLENGE,
        )
        if first:
            options = ", ".join(f"`{name}`" for name in rules.option_names)
            embed.description = adapter.clip(
                f"*{book.tagline}*\n{book.summary}"
                + ("\n" + _("Options for /play: {options}.", options=options) if options else ""),
                adapter.MAX_EMBED_TEXT,
            )
            if image:
                embed.set_image(url=f"attachment://{adapter.PIECES_FILE}")
        for name, value in page:
            embed.add_field(name=name, value=value, inline=False)
        footer = _("Every roll is verifiable: /verify after the game.")
        if len(pages) > 1:
            footer = _("Page {page} of {pages}", page=number, pages=len(pages)) + " · " + footer
        embed.set_footer(text=footer)
        embeds.append(embed)
    return embeds


class InfoCog(commands.Cog, name="Info"):
    """Rules, records and checks."""

    def __init__(self, bot: ChessGardenBot) -> None:
        self.bot = bot

    @app_commands.command(
        name="rules", description="A variant's complete rules: pieces, dice, actions, the end"
    )
    @app_commands.describe(variant="Which variant")
    @app_commands.choices(variant=variant_choices())
    async def rules(self, interaction: Interaction, variant: str) -> None:
        if variant not in variants.names():
            await answers.refuse(
                interaction,
                _(
                    "Unknown variant {variant}; choose one of: {variants}.",
                    variant=repr(variant),
                    variants=", ".join(variants.names()),
                ),
            )
            return

        async def work() -> Post:
            try:
                speech = i18n.Speech(i18n.current())
                png: bytes | None = await asyncio.to_thread(
                    piece_diagram_png, variant, "classic", speech
                )
            except (ValueError, OSError):
                png = None
            embeds = rules_embeds(variant, image=png is not None)
            files = [adapter.png_file(png, adapter.PIECES_FILE)] if png is not None else []
            rest.extend(embeds[1:])
            return Post(embed=embeds[0], files=files)

        rest: list[discord.Embed] = []
        _post, sent = await answers.answer(interaction, work())
        for embed in rest:  # each further page in a message of its own
            if sent is None:  # the page before did not go out: stop there
                break
            sent = await answers.deliver(interaction, Post(embed=embed))

    @app_commands.command(
        name="history", description="The record of this channel's game, as text and as a file"
    )
    @app_commands.describe(
        game="A game number (default: the game in this channel, or its last one)"
    )
    async def history(self, interaction: Interaction, game: GAME_NUMBER | None = None) -> None:
        if game is None and interaction.guild_id is None:
            await answers.refuse(interaction, _(IN_A_DM, command=command_name("history")))
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
                failures = await service.post_failures([g.id for g in games])
            except ServiceError as error:
                return await answers.refusal(interaction, error)
            return Post(embed=adapter.games_embed(games, guild_id, failures), ephemeral=True)

        await answers.answer(interaction, work())

    @app_commands.command(
        name="verify", description="Check every dice roll of a finished game against its seed"
    )
    @app_commands.describe(
        game="A game number (default: the game in this channel, or its last one)",
        chain="A chain head copied from the foot of a board: is the log still the one it showed?",
    )
    async def verify(
        self,
        interaction: Interaction,
        game: GAME_NUMBER | None = None,
        chain: CHAIN_HEAD | None = None,
    ) -> None:
        if game is None and interaction.guild_id is None:
            await answers.refuse(interaction, _(IN_A_DM, command=command_name("verify")))
            return
        service = answers.service_of(interaction)

        async def work() -> Post:
            try:
                report = await service.verify(
                    location_id=answers.location_unless(interaction, game),
                    game_id=game,
                    expected_head=chain,
                    **answers.seen(interaction),
                )
            except SeedNotRevealed as error:
                return answers.error_post(
                    adapter.error_text(error)
                    + "\n"
                    + _(
                        "The seed is revealed when the game ends; its SHA-256 commitment was "
                        "posted when the game began."
                    )
                )
            except ServiceError as error:
                return await answers.refusal(interaction, error)
            return Post(embed=adapter.verify_embed(report))

        await answers.answer(interaction, work())


async def setup(bot: ChessGardenBot) -> None:
    await bot.add_cog(InfoCog(bot))
