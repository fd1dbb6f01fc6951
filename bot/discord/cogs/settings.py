"""/settings for a server's moderators and /prefs for everyone (issue 27).

``/settings`` needs Manage Server (checked here: ``default_permissions`` only hides the
command); without options it shows the settings in force and the latest changes. Each
change is stored and logged by the service (``bot.service.settings``). The settings take
effect where the bot reads them: /play's defaults and the channels where games may start,
threads, the thread and challenge limits (``bot.discord.challenges``).

``/prefs`` sets a user's board theme and orientation, for the boards only they see and
the boards of the games they start.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.discord import adapter, answers
from bot.discord.adapter import Post
from bot.discord.cogs.game import DAYS_CHOICES
from bot.discord.translate import N_, _, ngettext
from bot.service import GuildSettings, ServiceError, UserPrefs
from bot.service.settings import (
    MAX_CHALLENGES_LIMIT,
    MAX_THREADS_LIMIT,
    MAX_TOURNAMENT_PLAYERS_LIMIT,
    MAX_TOURNAMENTS_LIMIT,
)
from storage import SettingChange

if TYPE_CHECKING:
    from bot.discord.app import ChessGardenBot

Interaction = discord.Interaction[Any]
Choice = app_commands.Choice
GameChannel = discord.TextChannel | discord.ForumChannel
RECENT_CHANGES = 5

# The service's names, in words (also the choices of reset:, translated by the tree's
# translator; here, with ``_``).
LABELS = {
    "days": N_("Days per move (default)"),
    "threads": N_("Game threads"),
    "rated": N_("Rated (default)"),
    "channels": N_("Channels where games may start"),
    "tournament_role": N_("Role that may run tournaments"),
    "max_challenges": N_("Open challenges per user"),
    "threads_per_hour": N_("New game threads per channel per hour"),
    "web_list": N_("Live games listed on the web"),
    "max_tournaments": N_("Tournaments under way at once"),
    "tournament_players": N_("Players per tournament"),
}
RESET_CHOICES = [Choice(name=label, value=name) for name, label in LABELS.items()]
THEME_CHOICES = [
    Choice(name="classic", value="classic"),
    Choice(name="high-contrast", value="high-contrast"),
]
ORIENTATION_CHOICES = [
    Choice(name="White at the bottom", value="white"),
    Choice(name="the side to act at the bottom", value="mover"),
]
NOT_MODERATOR = N_("Only members with Manage Server can see or change this server's settings.")
THEME_WORDS = {"classic": N_("classic"), "high-contrast": N_("high-contrast")}
SIDE_WORDS = {"white": N_("White at the bottom"), "mover": N_("the side to act at the bottom")}


def is_server_moderator(interaction: Interaction) -> bool:
    """Manage Server (Manage Guild): the right to change how the bot works here."""
    return bool(interaction.permissions.manage_guild)


def value_words(name: str, value: Any, defaults: GuildSettings | None = None) -> str:
    """A setting's value in words (``None``: the default, from ``defaults``)."""
    if value is None:
        if defaults is None or getattr(defaults, name) is None:
            return _("not set") if name == "tournament_role" else _("the default")
        return _("{value} (default)", value=value_words(name, getattr(defaults, name)))
    if name == "days":
        return _("no time limit") if value == 0 else ngettext("{n} day", "{n} days", value)
    if name in ("threads", "rated", "web_list"):
        return _("on") if value else _("off")
    if name == "channels":
        return ", ".join(f"<#{c}>" for c in value) if value else _("anywhere")
    if name == "tournament_role":
        return f"<@&{value}>"
    return str(value)


def settings_embed(
    settings: GuildSettings,
    changes: tuple[tuple[str, Any, Any], ...],
    log: list[SettingChange],
    defaults: GuildSettings,
) -> discord.Embed:
    """The settings in force, what was just changed, and the latest changes."""

    def change(name: str, old: Any, new: Any) -> str:
        return f"{value_words(name, old, defaults)} → {value_words(name, new, defaults)}"

    def label(name: str) -> str:
        return _(LABELS[name]) if name in LABELS else name

    said = "\n".join(f"{label(name)}: {change(name, old, new)}" for name, old, new in changes)
    embed = discord.Embed(
        title=_("This server's settings"),
        description=said or _("Change them with the options of /settings."),
        colour=adapter.COLOUR_CHALLENGE,
    )
    for name in LABELS:
        value = getattr(settings, name)
        if name == "tournament_role" and value is None:
            words = _("not set")
        else:
            words = value_words(name, value)
        if name not in settings.chosen:
            words = _("{value} (default)", value=words)
        embed.add_field(name=label(name), value=adapter.clip(words, 1024), inline=True)
    if log:
        lines = [
            f"{entry.created_at[:16].replace('T', ' ')} · <@{entry.actor_id}> · "
            f"{label(entry.name)}: {change(entry.name, entry.old, entry.new)}"
            for entry in log
        ]
        embed.add_field(
            name=_("Latest changes"), value=adapter.clip("\n".join(lines), 1024), inline=False
        )
    return adapter.fit(embed)


def prefs_embed(prefs: UserPrefs, changed: bool) -> discord.Embed:
    theme = prefs.theme or "classic"
    theme_words = _(THEME_WORDS[theme]) if theme in THEME_WORDS else theme
    orientation = prefs.orientation or ""
    if orientation in SIDE_WORDS:
        side = _(SIDE_WORDS[orientation])
    else:
        side = _("your own side at the bottom (the default)")
    lead = _("Saved.") if changed else _("Your board preferences:")
    lines = [
        lead,
        _("Theme: {theme}.", theme=theme_words),
        _("Boards shown only to you: {side}.", side=side),
        _(
            "The boards of the games you start are drawn in your theme, and with White at "
            "the bottom if you chose White."
        ),
    ]
    return discord.Embed(description="\n".join(lines), colour=adapter.COLOUR_CHALLENGE)


class SettingsCog(commands.Cog, name="Settings"):
    """Per-server settings and per-user preferences."""

    def __init__(self, bot: ChessGardenBot) -> None:
        self.bot = bot

    @app_commands.command(
        name="settings", description="Moderators: this server's game settings (show or change)"
    )
    @app_commands.describe(
        days="Days per move of a challenge that does not choose (or no time limit)",
        threads="Whether games may get threads of their own",
        rated="Whether challenges are rated unless they say otherwise",
        allow_channel="Add a channel where games may start (none listed: anywhere)",
        disallow_channel="Remove a channel from those where games may start",
        tournament_role="The role that may run tournaments",
        challenges_per_user="Open challenges one user may have at once",
        threads_per_hour="New game threads per channel in any hour",
        web_list="List this server's live games on its web page (off: reachable by link only)",
        tournaments_at_once="Tournaments that may be under way at once",
        tournament_players="Players a tournament takes at most",
        reset="Return one setting to the bot's default",
    )
    @app_commands.choices(days=DAYS_CHOICES)
    @app_commands.choices(reset=RESET_CHOICES)
    @app_commands.default_permissions(manage_guild=True)
    @app_commands.guild_only()
    async def settings(
        self,
        interaction: Interaction,
        days: int | None = None,
        threads: bool | None = None,
        rated: bool | None = None,
        allow_channel: GameChannel | None = None,
        disallow_channel: GameChannel | None = None,
        tournament_role: discord.Role | None = None,
        challenges_per_user: app_commands.Range[int, 1, MAX_CHALLENGES_LIMIT] | None = None,
        threads_per_hour: app_commands.Range[int, 1, MAX_THREADS_LIMIT] | None = None,
        web_list: bool | None = None,
        tournaments_at_once: app_commands.Range[int, 1, MAX_TOURNAMENTS_LIMIT] | None = None,
        tournament_players: app_commands.Range[int, 2, MAX_TOURNAMENT_PLAYERS_LIMIT] | None = None,
        reset: str | None = None,
    ) -> None:
        if await answers.refuse_outside_server(interaction):
            return
        if not is_server_moderator(interaction):
            await answers.refuse(interaction, _(NOT_MODERATOR))
            return
        guild_id = interaction.guild_id
        assert guild_id is not None
        values = {
            name: value
            for name, value in (
                ("days", days),
                ("threads", threads),
                ("rated", rated),
                ("tournament_role", tournament_role.id if tournament_role else None),
                ("max_challenges", challenges_per_user),
                ("threads_per_hour", threads_per_hour),
                ("web_list", web_list),
                ("max_tournaments", tournaments_at_once),
                ("tournament_players", tournament_players),
            )
            if value is not None
        }
        store = answers.service_of(interaction).server_settings

        async def work() -> Post:
            changes: tuple[tuple[str, Any, Any], ...] = ()
            try:
                if values or reset or allow_channel or disallow_channel:
                    changed = await store.change(
                        guild_id=guild_id,
                        actor_id=interaction.user.id,
                        values=values,
                        reset=(reset,) if reset else (),
                        add_channels=(allow_channel.id,) if allow_channel else (),
                        remove_channels=(disallow_channel.id,) if disallow_channel else (),
                    )
                    changes = changed.changes
                current = await store.of_guild(guild_id)
                log = await store.log(guild_id, RECENT_CHANGES)
            except ServiceError as error:
                return await answers.refusal(interaction, error)
            defaults = await store.of_guild(None)
            return Post(embed=settings_embed(current, changes, log, defaults), ephemeral=True)

        await answers.answer(interaction, work())

    @app_commands.command(
        name="prefs", description="Your board theme and orientation (show or change)"
    )
    @app_commands.describe(
        theme="classic, or high-contrast (easier to tell the squares and pieces apart)",
        orientation="Which side is at the bottom of your private boards and your games' boards",
    )
    @app_commands.choices(theme=THEME_CHOICES, orientation=ORIENTATION_CHOICES)
    async def prefs(
        self, interaction: Interaction, theme: str | None = None, orientation: str | None = None
    ) -> None:
        store = answers.service_of(interaction).server_settings

        async def work() -> Post:
            try:
                if theme or orientation:
                    prefs = await store.set_prefs(
                        user_id=interaction.user.id, theme=theme, orientation=orientation
                    )
                else:
                    prefs = await store.prefs(interaction.user.id)
            except ServiceError as error:
                return await answers.refusal(interaction, error)
            return Post(embed=prefs_embed(prefs, bool(theme or orientation)), ephemeral=True)

        await answers.answer(interaction, work())


async def setup(bot: ChessGardenBot) -> None:
    await bot.add_cog(SettingsCog(bot))
