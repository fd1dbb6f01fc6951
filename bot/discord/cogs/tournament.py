"""/tournament (issue 30): Swiss and round-robin tournaments on a server.

- ``create variant format rounds days rated starts [title]``, ``start``, ``remove``,
  ``cancel``: for moderators (Manage Messages) and the server's tournament role
  (``/settings tournament_role``);
- ``join``, ``leave`` (before the start), ``withdraw`` (after it), ``pairings [round]``,
  ``standings``, ``info``: for everyone.

A command names its tournament with ``id``, or means the server's only one under way.
The tournament is announced in the channel where it is created; each round's games get
their own threads there (``bot.discord.tournament_posts``, from the outbox). The cog
translates; the service decides (``bot.service.tournaments``); a refusal is one private
sentence.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot import i18n
from bot.discord import adapter, answers, threads, tournament_posts, translate
from bot.discord.adapter import Post
from bot.discord.cogs.game import DAYS_CHOICES, NO_TIME_LIMIT, is_moderator, variant_choices
from bot.discord.translate import N_, _
from bot.service import ServiceError
from bot.service.tournaments import MAX_SWISS_ROUNDS, default_name

if TYPE_CHECKING:
    from bot.discord.app import ChessGardenBot

Interaction = discord.Interaction[Any]
Choice = app_commands.Choice

FORMAT_CHOICES = [
    Choice(name="Swiss", value="swiss"),
    Choice(name="round robin", value="round-robin"),
]
TIMED_DAYS = [c for c in DAYS_CHOICES if c.value != NO_TIME_LIMIT]  # a tournament is timed
TOURNAMENT_ID = app_commands.Range[int, 1, 2**53]
ROUNDS = app_commands.Range[int, 1, MAX_SWISS_ROUNDS]
MAX_REASON = 200
NOT_ORGANISER = N_(
    "Only moderators (Manage Messages) and members with this server's tournament role can {doing}."
)


async def may_run(interaction: Interaction) -> bool:
    """A moderator, or a member with the server's tournament role (``/settings``)."""
    if is_moderator(interaction):
        return True
    settings = await answers.service_of(interaction).server_settings.of_guild(interaction.guild_id)
    role = settings.tournament_role
    roles = getattr(interaction.user, "roles", [])
    return role is not None and any(r.id == role for r in roles)


@app_commands.guild_only()
class TournamentCog(commands.GroupCog, group_name="tournament"):
    """Tournaments on this server"""

    # The docstring is the group's description in Discord (discord.py's default for
    # ``group_description``): a string of the command tree, which the translator gives
    # Discord in each catalogued language when the commands are synced.

    def __init__(self, bot: ChessGardenBot) -> None:
        self.bot = bot
        super().__init__()

    # ----- organisers ---------------------------------------------------------------

    @app_commands.command(name="create", description="Organisers: open a tournament here")
    @app_commands.describe(
        variant="Which variant every game is played in",
        format="Swiss (a set number of rounds) or round robin (everyone meets everyone)",
        rounds="Swiss: how many rounds. Round robin: 1 (meet once) or 2 (twice)",
        days="Days per move of every game",
        rated="Whether the games count for ratings",
        starts="When registration closes and round 1 starts: 2h, 3d, or 2030-05-01 18:00 (UTC)",
        title="The tournament's name (default: the variant and the format)",
    )
    @app_commands.choices(variant=variant_choices(), format=FORMAT_CHOICES)
    @app_commands.choices(days=TIMED_DAYS)
    async def create(
        self,
        interaction: Interaction,
        variant: str,
        format: str,
        rounds: ROUNDS,
        days: int,
        rated: bool,
        starts: app_commands.Range[str, 1, 60],
        title: app_commands.Range[str, 1, 80] | None = None,
    ) -> None:
        if await answers.refuse_outside_server(interaction):
            return
        if not await may_run(interaction):
            await answers.refuse(interaction, _(NOT_ORGANISER, doing=_("create a tournament")))
            return
        home = threads.thread_home(interaction.channel)
        if isinstance(home, str):
            await answers.refuse(
                interaction, _("{problem}: a tournament's games need threads.", problem=home)
            )
            return
        perms = threads.bot_permissions(interaction, home.parent)
        missing = adapter.missing_permissions(perms, home.needs)
        if missing:
            await answers.refuse(
                interaction,
                _(
                    "I can't make the games' threads in {channel}: I need {permissions} there.",
                    channel=home.parent.mention,
                    permissions=adapter.permission_words(missing),
                ),
            )
            return
        service = answers.service_of(interaction)
        guild_id = interaction.guild_id
        assert guild_id is not None

        async def work() -> Post:
            try:
                news = await service.tournaments.create(
                    guild_id=guild_id,
                    channel_id=home.parent.id,
                    user_id=interaction.user.id,
                    may_run=True,
                    variant=variant,
                    format=format,
                    rounds=rounds,
                    days=days,
                    rated=rated,
                    starts=starts,
                    # no title: the variant and the format, in the server's language
                    name=title
                    or i18n.render(
                        translate.public_locale(interaction), default_name(variant, format)
                    ),
                )
                info = await service.tournaments.info(
                    guild_id=guild_id, tournament_id=news.tournament.id
                )
            except ServiceError as error:
                return await answers.refusal(interaction, error)
            embed = tournament_posts.info_embed(info)
            sentence = i18n.render(None, news.message)  # the service's, in the reader's language
            embed.description = f"{sentence}\n{embed.description or ''}"
            return Post(embed=embed, note=_("Tournament {id} is open.", id=news.tournament.id))

        await answers.answer(interaction, work())

    @app_commands.command(name="start", description="Organisers: start a tournament now")
    @app_commands.describe(id="The tournament (default: this server's only one)")
    async def start(self, interaction: Interaction, id: TOURNAMENT_ID | None = None) -> None:
        if await answers.refuse_outside_server(interaction):
            return
        if not await may_run(interaction):
            await answers.refuse(interaction, _(NOT_ORGANISER, doing=_("start a tournament")))
            return
        await self._news(
            interaction,
            lambda s, g: s.tournaments.start(
                guild_id=g, user_id=interaction.user.id, may_run=True, tournament_id=id
            ),
        )

    @app_commands.command(name="remove", description="Organisers: take a player out")
    @app_commands.describe(
        player="Who", reason="Why, for the record (optional)", id="The tournament"
    )
    async def remove(
        self,
        interaction: Interaction,
        player: discord.Member,
        reason: app_commands.Range[str, 1, MAX_REASON] | None = None,
        id: TOURNAMENT_ID | None = None,
    ) -> None:
        if await answers.refuse_outside_server(interaction):
            return
        if not await may_run(interaction):
            await answers.refuse(interaction, _(NOT_ORGANISER, doing=_("remove a player")))
            return
        await self._news(
            interaction,
            lambda s, g: s.tournaments.remove(
                guild_id=g,
                user_id=interaction.user.id,
                may_run=True,
                player_id=player.id,
                reason=reason,
                tournament_id=id,
            ),
        )

    @app_commands.command(name="cancel", description="Organisers: cancel a tournament")
    @app_commands.describe(reason="Why, for the record (optional)", id="The tournament")
    async def cancel(
        self,
        interaction: Interaction,
        reason: app_commands.Range[str, 1, MAX_REASON] | None = None,
        id: TOURNAMENT_ID | None = None,
    ) -> None:
        if await answers.refuse_outside_server(interaction):
            return
        if not await may_run(interaction):
            await answers.refuse(interaction, _(NOT_ORGANISER, doing=_("cancel a tournament")))
            return
        await self._news(
            interaction,
            lambda s, g: s.tournaments.cancel(
                guild_id=g,
                user_id=interaction.user.id,
                may_run=True,
                reason=reason,
                tournament_id=id,
            ),
        )

    # ----- players ----------------------------------------------------------------------

    @app_commands.command(name="join", description="Join a tournament before it starts")
    @app_commands.describe(id="The tournament (default: this server's only one)")
    async def join(self, interaction: Interaction, id: TOURNAMENT_ID | None = None) -> None:
        await self._news(
            interaction,
            lambda s, g: s.tournaments.join(
                guild_id=g,
                user_id=interaction.user.id,
                name=interaction.user.display_name,
                tournament_id=id,
            ),
            private=True,
        )

    @app_commands.command(name="leave", description="Leave a tournament before it starts")
    @app_commands.describe(id="The tournament (default: this server's only one)")
    async def leave(self, interaction: Interaction, id: TOURNAMENT_ID | None = None) -> None:
        await self._news(
            interaction,
            lambda s, g: s.tournaments.leave(
                guild_id=g, user_id=interaction.user.id, tournament_id=id
            ),
            private=True,
        )

    @app_commands.command(name="withdraw", description="Stop playing in a running tournament")
    @app_commands.describe(id="The tournament (default: this server's only one)")
    async def withdraw(self, interaction: Interaction, id: TOURNAMENT_ID | None = None) -> None:
        await self._news(
            interaction,
            lambda s, g: s.tournaments.withdraw(
                guild_id=g, user_id=interaction.user.id, tournament_id=id
            ),
            private=True,
        )

    # ----- looking --------------------------------------------------------------------

    @app_commands.command(name="pairings", description="A round's pairings and results")
    @app_commands.describe(round="Which round (default: the latest)", id="The tournament")
    async def pairings(
        self,
        interaction: Interaction,
        round: app_commands.Range[int, 1, 1000] | None = None,
        id: TOURNAMENT_ID | None = None,
    ) -> None:
        if await answers.refuse_outside_server(interaction):
            return
        service = answers.service_of(interaction)

        async def work() -> Post:
            try:
                pairs = await service.tournaments.pairings(
                    guild_id=interaction.guild_id, tournament_id=id, round_no=round
                )
            except ServiceError as error:
                return await answers.refusal(interaction, error)
            return Post(embed=tournament_posts.pairings_embed(pairs))

        await answers.answer(interaction, work())

    @app_commands.command(name="standings", description="The standings, with tiebreaks")
    @app_commands.describe(id="The tournament (default: this server's only one)")
    async def standings(self, interaction: Interaction, id: TOURNAMENT_ID | None = None) -> None:
        if await answers.refuse_outside_server(interaction):
            return
        service = answers.service_of(interaction)

        async def work() -> Post:
            try:
                standing = await service.tournaments.standings(
                    guild_id=interaction.guild_id, tournament_id=id
                )
                image = (  # posted for everyone: in the server's language
                    await service.tournaments.standings_image(
                        standing, locale=translate.public_locale(interaction)
                    )
                    if standing.rows
                    else None
                )
            except ServiceError as error:
                return await answers.refusal(interaction, error)
            post = tournament_posts.standings_post(standing, image)
            post.content, post.ping = None, ()  # a look, not the announcement: nobody pinged
            return post

        await answers.answer(interaction, work())

    @app_commands.command(name="info", description="A tournament: format, time, players")
    @app_commands.describe(id="The tournament (default: this server's only one)")
    async def info(self, interaction: Interaction, id: TOURNAMENT_ID | None = None) -> None:
        if await answers.refuse_outside_server(interaction):
            return
        service = answers.service_of(interaction)

        async def work() -> Post:
            try:
                info = await service.tournaments.info(
                    guild_id=interaction.guild_id, tournament_id=id
                )
            except ServiceError as error:
                return await answers.refusal(interaction, error)
            return Post(embed=tournament_posts.info_embed(info))

        await answers.answer(interaction, work())

    # ----- one line of news -----------------------------------------------------------

    async def _news(self, interaction: Interaction, call: Any, *, private: bool = False) -> None:
        if await answers.refuse_outside_server(interaction):
            return
        service = answers.service_of(interaction)

        async def work() -> Post:
            try:
                news = await call(service, interaction.guild_id)
            except ServiceError as error:
                return await answers.refusal(interaction, error)
            sentence = i18n.render(None, news.message)  # the service's, in the reader's language
            embed = discord.Embed(
                description=adapter.clip(sentence, 4000),
                colour=tournament_posts.COLOUR_TOURNAMENT,
            )
            embed.set_footer(text=_("Tournament {id}", id=news.tournament.id))
            return Post(embed=embed, ephemeral=private, note=sentence[:200])

        await answers.answer(interaction, work())


async def setup(bot: ChessGardenBot) -> None:
    await bot.add_cog(TournamentCog(bot))
