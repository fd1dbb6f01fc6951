"""Playing: /play, /move (with autocomplete), /board, /resign, /draw, /pass, /reroll, /abort.

The cog translates; the service decides. Every command validates through the service
before it defers, so errors stay ephemeral; see ``bot.flows`` for the shared shape.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

import variants
from bot import adapter, flows, views
from bot.adapter import Post
from bot.service import ServiceError

if TYPE_CHECKING:
    from bot.discord_app import ChessGardenBot

log = logging.getLogger(__name__)

Interaction = discord.Interaction[Any]
Choice = app_commands.Choice

THREAD_TYPES = (
    discord.ChannelType.public_thread,
    discord.ChannelType.private_thread,
    discord.ChannelType.news_thread,
)
THREAD_ARCHIVE_MINUTES = 1440
LIVE = ("challenge", "active")


def variant_choices() -> list[Choice[str]]:
    return [Choice(name=variants.rules(key).title, value=key) for key in variants.names()]


COLOUR_CHOICES = [
    Choice(name="random", value="random"),
    Choice(name="white", value="white"),
    Choice(name="black", value="black"),
]
DRAW_CHOICES = [
    Choice(name="offer (or agree, if your opponent offered)", value="offer"),
    Choice(name="accept your opponent's offer", value="accept"),
    Choice(name="decline your opponent's offer", value="decline"),
]
DRAW_COMMANDS = {"offer": "offer_draw", "accept": "accept_draw", "decline": "decline_draw"}


def is_thread(channel: Any) -> bool:
    return getattr(channel, "type", None) in THREAD_TYPES


def is_moderator(interaction: Interaction) -> bool:
    """Manage Messages in this channel: the right to tidy up other people's games."""
    return bool(interaction.permissions.manage_messages)


def thread_name(title: str, challenger: Any, opponent: Any | None) -> str:
    them = opponent.display_name if opponent is not None else "open challenge"
    return adapter.clip(f"{title}: {challenger.display_name} vs {them}", 100)


class GameCog(commands.Cog, name="Games"):
    """Challenge, play and end games."""

    def __init__(self, bot: ChessGardenBot) -> None:
        self.bot = bot

    # ----- /play --------------------------------------------------------------

    @app_commands.command(name="play", description="Challenge someone, or anyone, to a game")
    @app_commands.describe(
        variant="Which variant to play (see /rules)",
        opponent="Who you challenge; leave empty for an open challenge anyone may accept",
        colour="The side you play (default: random, drawn when the challenge is accepted)",
        thread="Play in a new thread (made anyway when this channel already has a game)",
        options="Variant options, e.g. free_play or name=value, separated by commas",
    )
    @app_commands.choices(variant=variant_choices(), colour=COLOUR_CHOICES)
    @app_commands.guild_only()
    async def play(
        self,
        interaction: Interaction,
        variant: str,
        opponent: discord.Member | None = None,
        colour: str = "random",
        thread: bool = False,
        options: str | None = None,
    ) -> None:
        # 1. validate everything we can before touching Discord or the database
        try:
            parsed = adapter.parse_options(options)
            rules = variants.rules(variant)
            parsed = rules.check_options(parsed)
        except ValueError as error:
            allowed = ""
            if variant in variants.names():
                names = variants.rules(variant).option_names
                allowed = f" Options for {variant}: {', '.join(names) or 'none'}."
            await flows.fail(interaction, adapter.error_text(error) + allowed)
            return
        if opponent is not None and opponent.bot:
            await flows.fail(interaction, "Bots cannot play; challenge a person, or leave it open.")
            return
        if opponent is not None and opponent.id == interaction.user.id:
            await flows.fail(interaction, "You cannot challenge yourself.")
            return
        service = flows.service_of(interaction)
        channel = interaction.channel
        here = flows.location_of(interaction)
        busy = await service.list_games(location_id=here, statuses=LIVE, limit=1)
        in_thread = is_thread(channel)
        if busy and in_thread:
            await flows.fail(
                interaction,
                f"This thread already has game {busy[0].id}; finish it first, or use /play "
                "in a channel (a new thread is made for you).",
            )
            return
        new_thread = (thread or bool(busy)) and not in_thread
        if new_thread and not hasattr(channel, "create_thread"):
            await flows.fail(
                interaction, "I cannot make a thread here; use /play in a text channel."
            )
            return
        kwargs: dict[str, Any] = dict(
            challenger_id=interaction.user.id,
            variant=variant,
            opponent_id=opponent.id if opponent is not None else None,
            colour=colour,
            options=parsed,
            guild_id=interaction.guild_id,
            request_id=flows.request_id(interaction),
        )
        if not new_thread:
            try:
                outcome = await service.challenge(location_id=here, **kwargs)
            except ServiceError as error:
                await flows.fail_with(interaction, error)
                return
            await flows.reply(interaction, self._challenge_post(outcome))
            return
        # 2. a thread: defer (creating it is a Discord round trip), make it, challenge there
        await flows.defer(interaction)
        assert channel is not None
        try:
            made = await channel.create_thread(  # type: ignore[union-attr]
                name=thread_name(rules.title, interaction.user, opponent),
                type=discord.ChannelType.public_thread,
                auto_archive_duration=THREAD_ARCHIVE_MINUTES,
                reason=f"Chess Garden game for {interaction.user}",
            )
        except discord.HTTPException as error:
            await flows.fail(
                interaction,
                f"I could not create a thread here ({error}). I need Create Public Threads "
                "and Send Messages in Threads.",
            )
            return
        try:
            outcome = await service.challenge(location_id=made.id, **kwargs)
        except ServiceError as error:
            await flows.fail_with(interaction, error)
            return
        await made.send(**self._challenge_post(outcome).kwargs())
        why = "" if thread else f" (this channel already has game {busy[0].id})"
        note = discord.Embed(
            description=f"Game {outcome.game.id}: the challenge is in {made.mention}{why}.",
            colour=adapter.COLOUR_CHALLENGE,
        )
        await flows.reply(interaction, Post(embed=note))

    @staticmethod
    def _challenge_post(outcome: Any) -> Post:
        return Post(
            embed=adapter.challenge_embed(outcome),
            content=adapter.mover_content(outcome.game),
            view=views.challenge_view(outcome.game.id),
        )

    # ----- /move and its autocomplete ----------------------------------------------

    @app_commands.command(name="move", description="Play an action in this channel's game")
    @app_commands.describe(
        notation="Your action, e.g. e4, Nf3, O-O, e8=Q (the suggestions are your legal actions)"
    )
    @app_commands.guild_only()
    async def move(self, interaction: Interaction, notation: str) -> None:
        await flows.act(interaction, notation)  # the service re-validates whatever was typed

    @move.autocomplete("notation")
    async def move_autocomplete(self, interaction: Interaction, current: str) -> list[Choice[str]]:
        """The caller's legal actions matching ``current``, prefix matches first, at most 25.

        Nothing for someone who is not to act: suggestions are only for the mover.
        """
        try:
            legal = await flows.legal_for(interaction, location_id=flows.location_of(interaction))
        except (ServiceError, RuntimeError):
            return []
        ranked = adapter.rank_actions(legal, current or "")
        return [
            Choice(name=adapter.clip(action, adapter.MAX_CHOICE_TEXT), value=action)
            for action in ranked
            if len(action) <= adapter.MAX_CHOICE_TEXT
        ]

    # ----- other player commands ---------------------------------------------------

    @app_commands.command(name="board", description="Show this channel's game board")
    @app_commands.describe(flip="Show it from the other side (you see your own side by default)")
    @app_commands.guild_only()
    async def board(self, interaction: Interaction, flip: bool = False) -> None:
        await flows.show_board(interaction, flip=flip)

    @app_commands.command(name="resign", description="Resign your game in this channel")
    @app_commands.guild_only()
    async def resign(self, interaction: Interaction) -> None:
        await flows.player_command(interaction, "resign")

    @app_commands.command(name="draw", description="Offer, accept or decline a draw")
    @app_commands.describe(
        action="offer (agrees if your opponent already offered), accept, or decline"
    )
    @app_commands.choices(action=DRAW_CHOICES)
    @app_commands.guild_only()
    async def draw(self, interaction: Interaction, action: str = "offer") -> None:
        name = DRAW_COMMANDS.get(action)
        if name is None:
            await flows.fail(interaction, "Choose offer, accept or decline.")
            return
        await flows.player_command(interaction, name)

    @app_commands.command(name="pass", description="Pass your turn, where the variant allows it")
    @app_commands.guild_only()
    async def pass_(self, interaction: Interaction) -> None:
        await flows.act(interaction, "pass")

    @app_commands.command(
        name="reroll", description="Re-roll your dice, where the variant allows it"
    )
    @app_commands.guild_only()
    async def reroll(self, interaction: Interaction) -> None:
        await flows.act(interaction, "reroll")

    # ----- moderators ----------------------------------------------------------------

    @app_commands.command(
        name="abort", description="Moderators: abort the game or challenge in this channel"
    )
    @app_commands.describe(reason="Why, for the record (optional)")
    @app_commands.default_permissions(manage_messages=True)
    @app_commands.checks.has_permissions(manage_messages=True)
    @app_commands.guild_only()
    async def abort(self, interaction: Interaction, reason: str | None = None) -> None:
        # the check above, once more: a callback can be reached without the decorators
        if not is_moderator(interaction):
            await flows.fail(interaction, "Only members with Manage Messages can abort a game.")
            return
        service = flows.service_of(interaction)
        try:
            outcome = await service.abort(
                user_id=interaction.user.id,
                moderator=True,
                location_id=flows.location_of(interaction),
                reason=reason,
            )
        except ServiceError as error:
            await flows.fail_with(interaction, error)
            return
        await flows.reply(interaction, Post(embed=adapter.closed_embed(outcome)))

    async def cog_app_command_error(
        self, interaction: Interaction, error: app_commands.AppCommandError
    ) -> None:
        await report_command_error(interaction, error)


async def report_command_error(
    interaction: Interaction, error: app_commands.AppCommandError
) -> None:
    """Failed checks and surprises: an ephemeral line, and the traceback in the log."""
    if isinstance(error, app_commands.MissingPermissions):
        text = "You need Manage Messages for that."
    elif isinstance(error, app_commands.NoPrivateMessage):
        text = "That works only in a server."
    elif isinstance(error, app_commands.CheckFailure):
        text = "You cannot use that here."
    else:
        log.error("command failed", exc_info=error)
        text = "Something went wrong on my side. /board shows where the game stands."
    try:
        await flows.fail(interaction, text)
    except discord.HTTPException:
        log.warning("could not report an error to the user")


async def setup(bot: ChessGardenBot) -> None:
    await bot.add_cog(GameCog(bot))
