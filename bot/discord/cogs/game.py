"""Playing: /play, /accept, /move (with autocomplete), /board, /resign, /draw, /pass,
/reroll, /abort, /extend.

The cog translates; the service decides. Errors reach only the person who caused them,
and a turn prompt is a new message that pings the player; see ``bot.discord.flows`` for how.
Failures nobody planned for end in the command tree's ``on_error`` (``bot.discord.app``).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

import variants
from bot.discord import adapter, answers, challenges, flows, threads
from bot.discord.adapter import Post
from bot.discord.translate import _, variant_choice, variant_name
from bot.service import ServiceError
from bot.service.clock import MAX_DAYS, MIN_DAYS

if TYPE_CHECKING:
    from bot.discord.app import ChessGardenBot

log = logging.getLogger(__name__)

Interaction = discord.Interaction[Any]
Choice = app_commands.Choice

LIVE = ("challenge", "active")
MAX_OPTIONS_TEXT = 200
MAX_NOTATION = 100  # Discord's limit for a string offered by autocomplete
MAX_REASON = 200
GAME_NUMBER = app_commands.Range[int, 1, 2**53]  # Discord's integers stop at 2**53


def variant_choices() -> list[Choice[str]]:
    return [variant_choice(key) for key in variants.names()]


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

# /play days: a menu rather than a number box, so that "no time limit" is one of the
# choices (value 0) next to 1 to 14 days per move; 15 choices, under Discord's 25.
NO_TIME_LIMIT = 0
DEFAULT_DAYS = 3
DAYS_CHOICES = [
    Choice(name=f"{n} day{'s' if n != 1 else ''} per move", value=n)
    for n in range(MIN_DAYS, MAX_DAYS + 1)
] + [Choice(name="no time limit", value=NO_TIME_LIMIT)]
EXTRA_DAYS = app_commands.Range[int, MIN_DAYS, MAX_DAYS]
# /play computer: the computer's level (issue 14).
COMPUTER_CHOICES = [
    Choice(name="level 1: quick, makes mistakes", value=1),
    Choice(name="level 2", value=2),
    Choice(name="level 3: the strongest, up to 2 s a move", value=3),
]


def is_moderator(interaction: Interaction) -> bool:
    """Manage Messages in this channel: the right to tidy up other people's games."""
    return bool(interaction.permissions.manage_messages)


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
        days="Time per move (default: the server's, 3 days), or none; a late player loses",
        computer="Play the computer instead, at this level (unrated, no time limit)",
        rated="Whether the game counts for ratings (default: the server's, rated)",
    )
    @app_commands.choices(variant=variant_choices(), colour=COLOUR_CHOICES)
    @app_commands.choices(days=DAYS_CHOICES, computer=COMPUTER_CHOICES)
    @app_commands.guild_only()
    async def play(
        self,
        interaction: Interaction,
        variant: str,
        opponent: discord.Member | None = None,
        colour: str = "random",
        thread: bool = False,
        options: app_commands.Range[str, 1, MAX_OPTIONS_TEXT] | None = None,
        days: int | None = None,
        computer: int | None = None,
        rated: bool | None = None,
    ) -> None:
        # everything that needs no request is checked first, and refused privately
        if await answers.refuse_outside_server(interaction):
            return
        if days is None or rated is None:  # the server's defaults (/settings, issue 27)
            here = await answers.service_of(interaction).server_settings.of_guild(
                interaction.guild_id
            )
            days = here.days if days is None else days
            rated = here.rated if rated is None else rated
        try:
            parsed = adapter.parse_options(options)
            rules = variants.rules(variant)
            parsed = rules.check_options(parsed)
        except ValueError as error:
            allowed = ""
            if variant in variants.names():
                names = variants.rules(variant).option_names
                allowed = " " + _(
                    "Options for {variant}: {options}.",
                    variant=variant,
                    options=", ".join(names) or _("none"),
                )
            await answers.refuse(interaction, adapter.error_text(error) + allowed)
            return
        if computer is not None and opponent is not None:
            await answers.refuse(
                interaction,
                _(
                    "Choose an opponent or the computer, not both: leave opponent empty to play "
                    "the computer."
                ),
            )
            return
        if opponent is not None and opponent.bot:
            await answers.refuse(
                interaction, _("Bots cannot play; challenge a person, or leave it open.")
            )
            return
        if opponent is not None and opponent.id == interaction.user.id:
            await answers.refuse(interaction, _("You cannot challenge yourself."))
            return
        await challenges.challenge(
            interaction,
            variant=variant,
            opponent_id=opponent.id if opponent is not None else None,
            colour=colour,
            options=parsed,
            want_thread=thread,
            days=None if days == NO_TIME_LIMIT else days,
            rated=rated,
            name=threads.thread_name(
                variant_name(variant),
                interaction.user.display_name,
                _("the computer")
                if computer is not None
                else opponent.display_name
                if opponent is not None
                else None,
            ),
            computer=computer,
        )

    @app_commands.command(name="accept", description="Accept the challenge in this channel")
    @app_commands.describe(game="A game number (default: the open challenge in this channel)")
    @app_commands.guild_only()
    async def accept(self, interaction: Interaction, game: GAME_NUMBER | None = None) -> None:
        await flows.accept(interaction, game_id=game)

    # ----- /move and its autocomplete ----------------------------------------------

    @app_commands.command(name="move", description="Play an action in this channel's game")
    @app_commands.describe(
        notation="Your action, e.g. e4, Nf3, O-O, e8=Q (the suggestions are your legal actions)"
    )
    @app_commands.guild_only()
    async def move(
        self, interaction: Interaction, notation: app_commands.Range[str, 1, MAX_NOTATION]
    ) -> None:
        await flows.act(interaction, notation)  # the service re-validates whatever was typed

    @move.autocomplete("notation")
    async def move_autocomplete(self, interaction: Interaction, current: str) -> list[Choice[str]]:
        """The caller's legal actions matching ``current``, prefix matches first, at most 25.

        Nothing for someone who is not to act: suggestions are only for the mover.
        """
        try:
            legal = await answers.legal_for(
                interaction, location_id=answers.location_of(interaction)
            )
        except Exception:  # an empty list beats "loading options failed"
            log.exception("autocomplete failed in channel %s", interaction.channel_id)
            return []
        ranked = adapter.rank_actions(legal, current or "")
        return [
            Choice(name=adapter.clip(action, adapter.MAX_CHOICE_TEXT), value=action)
            for action in ranked
            if len(action) <= adapter.MAX_CHOICE_TEXT
        ]

    # ----- other player commands ---------------------------------------------------

    @app_commands.command(name="board", description="Show this channel's game board")
    @app_commands.describe(
        flip="Show it from the other side (you see your own side by default)",
        private="Show it only to you, in your /prefs theme and orientation",
    )
    @app_commands.guild_only()
    async def board(
        self, interaction: Interaction, flip: bool = False, private: bool = False
    ) -> None:
        await flows.show_board(interaction, flip=flip, ephemeral=private)

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
            await answers.refuse(interaction, _("Choose offer, accept or decline."))
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
    @app_commands.guild_only()
    async def abort(
        self,
        interaction: Interaction,
        reason: app_commands.Range[str, 1, MAX_REASON] | None = None,
    ) -> None:
        # Checked here, not by app_commands.checks (default_permissions only hides the
        # command): first a DM (it has no permissions at all), then Manage Messages.
        if await answers.refuse_outside_server(interaction):
            return
        if not is_moderator(interaction):
            await answers.refuse(
                interaction, _("Only members with Manage Messages can abort a game.")
            )
            return
        service = answers.service_of(interaction)

        async def work() -> Post:
            try:
                outcome = await service.abort(
                    user_id=interaction.user.id,
                    moderator=True,
                    location_id=answers.location_of(interaction),
                    reason=reason,
                    **answers.seen(interaction),
                )
            except ServiceError as error:
                return await answers.refusal(interaction, error)
            interaction.extras["game_id"] = outcome.game.id
            return Post(
                embed=adapter.closed_embed(outcome), game_id=outcome.game.id, game_over=True
            )

        await flows.publish(interaction, work())

    @app_commands.command(
        name="extend", description="Moderators: add days to the clock of the player to act here"
    )
    @app_commands.describe(days="Days to add (1 to 14)", reason="Why, for the record (optional)")
    @app_commands.default_permissions(manage_messages=True)
    @app_commands.guild_only()
    async def extend(
        self,
        interaction: Interaction,
        days: EXTRA_DAYS,
        reason: app_commands.Range[str, 1, MAX_REASON] | None = None,
    ) -> None:
        if await answers.refuse_outside_server(interaction):
            return
        if not is_moderator(interaction):
            await answers.refuse(
                interaction, _("Only members with Manage Messages can extend a game's clock.")
            )
            return
        service = answers.service_of(interaction)

        async def work() -> Post:
            try:
                outcome = await service.extend(
                    user_id=interaction.user.id,
                    moderator=True,
                    days=days,
                    location_id=answers.location_of(interaction),
                    reason=reason,
                    **answers.seen(interaction),
                )
            except ServiceError as error:
                return await answers.refusal(interaction, error)
            interaction.extras["game_id"] = outcome.game.id
            embed = adapter.closed_embed(outcome)
            adapter.add_clock(embed, outcome.game)
            # the player whose clock it is hears of it; nobody else is pinged
            who = outcome.game.to_move_id
            content = (
                _("{player}, your clock was extended.", player=adapter.mention(who))
                if who
                else None
            )
            return Post(embed=embed, content=content, ping=(who,) if who else ())

        await answers.answer(interaction, work())

    @app_commands.command(
        name="relocate", description="Moderators: move a game whose channel the bot cannot use"
    )
    @app_commands.describe(
        to="The channel or thread where the game goes on",
        game="The game's number (default: the game in this channel)",
        reason="Why, for the record (optional)",
    )
    @app_commands.default_permissions(manage_messages=True)
    @app_commands.guild_only()
    async def relocate(
        self,
        interaction: Interaction,
        to: discord.TextChannel | discord.Thread,
        game: GAME_NUMBER | None = None,
        reason: app_commands.Range[str, 1, MAX_REASON] | None = None,
    ) -> None:
        """When the bot cannot post in a game's channel (``/games`` says so), a moderator
        moves the game; what it could not post is posted in the new channel, with the
        board (issue 24)."""
        if await answers.refuse_outside_server(interaction):
            return
        if not is_moderator(interaction):
            await answers.refuse(
                interaction, _("Only members with Manage Messages can move a game.")
            )
            return
        service = answers.service_of(interaction)

        async def work() -> Post:
            try:
                outcome = await service.relocate(
                    user_id=interaction.user.id,
                    moderator=True,
                    channel_id=to.id,
                    game_id=game,
                    location_id=answers.location_unless(interaction, game),
                    reason=reason,
                    **answers.seen(interaction),
                )
            except ServiceError as error:
                return await answers.refusal(interaction, error)
            interaction.extras["game_id"] = outcome.game.id
            return Post(embed=adapter.closed_embed(outcome), ephemeral=True)

        await answers.answer(interaction, work())


async def setup(bot: ChessGardenBot) -> None:
    await bot.add_cog(GameCog(bot))
