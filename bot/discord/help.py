"""The guide behind ``/help`` and ``chessgarden commands`` (issue 27): a few short pages on
playing, then one line per slash command, made from the command tree itself, so that a
command added, renamed or described anew shows up here without anyone editing this file.

Each page is an embed's title and description, well under Discord's limits (a
description of at most ``PAGE_TEXT`` characters, under the 4,096 allowed, and the whole
embed under 6,000). ``help_text`` is the same pages as plain text for the terminal.

Page buttons (``HelpPageButton``) carry the page to show in their custom id
(``cg:help:<page>``), so they work after a restart, in a server or a DM.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Self

import discord
from discord import app_commands

from bot.discord import adapter, translate
from bot.discord.answers import report_failure
from bot.discord.translate import N_, _

PAGE_TEXT = 1800  # characters of a page's text (Discord allows 4,096 in a description)
HELP_TITLE = N_("Chess Garden help")


@dataclass(frozen=True)
class HelpPage:
    title: str
    text: str


GUIDE: tuple[HelpPage, ...] = (
    HelpPage(
        N_("Playing a game"),
        N_(
            "**Challenge.** `/play variant:` challenges anyone in this channel; add `opponent:` "
            "for one person, or `computer:` (level 1 to 3) to play the computer at once. "
            "`/rules` explains each variant.\n"
            "**Accept.** Press *Accept* under the challenge (or `/accept`). The dice are drawn "
            "only then: the board shows the SHA-256 commitment of the secret seed.\n"
            "**Move.** `/move` in the game's channel or thread; it suggests your legal actions "
            "as you type. `/pass` and `/reroll` where the variant allows them.\n"
            "**Time.** Each move has its days (`/play days:`); a late player loses on time, "
            "after a reminder."
        ),
    ),
    HelpPage(
        N_("The buttons under a board"),
        N_(
            "**Re-roll**: re-roll your dice, where the variant allows it.\n"
            "**Offer draw**, then *Accept draw* or *Decline draw* for the opponent.\n"
            "**Takeback**: ask to take back your last move while no die has been rolled since "
            "it; your opponent accepts or declines. The computer agrees at levels 1 and 2.\n"
            "**Resign**: asks you to confirm first.\n"
            "**Flip**: the board from the other side, shown only to you.\n"
            "**Rematch**: on a finished game, the same opponent with the colours swapped.\n"
            "`/prefs` sets your board theme (classic or high-contrast) and which side is at "
            "the bottom of the boards shown only to you."
        ),
    ),
    HelpPage(
        N_("Watching and checking"),
        N_(
            "**Spectate.** `/games` lists the games and challenges in this server, with links; "
            "`/board` shows a game's board (`private:` to see it alone), `/history` its "
            "record as text and as a file.\n"
            "**Verify.** When a game ends its seed is revealed: `/verify` replays every roll "
            "from it and checks it against the commitment. `/verify chain:` checks the chain "
            "head printed at the foot of an old board: the history up to it was not rewritten.\n"
            "**Ratings.** `/leaderboard` and `/profile`, per server or global.\n"
            "**Moderators.** `/abort`, `/extend` and `/relocate` need Manage Messages; "
            "`/settings` needs Manage Server."
        ),
    ),
)


def command_lines(tree: app_commands.CommandTree[Any]) -> list[str]:
    """One line per slash command of ``tree``, by name: ``/name — description``, in the
    current locale's words (the names and descriptions the translator gives Discord)."""
    lines = []
    for command in tree.walk_commands():
        if isinstance(command, app_commands.Command):
            name = " ".join(translate.command_name(part) for part in command.qualified_name.split())
            lines.append(f"/{name} — {translate.command_description(command.description)}")
    return sorted(lines)


def _chunks(lines: Iterable[str], limit: int) -> list[list[str]]:
    pages: list[list[str]] = [[]]
    size = 0
    for line in lines:
        if pages[-1] and size + len(line) + 1 > limit:
            pages.append([])
            size = 0
        pages[-1].append(line)
        size += len(line) + 1
    return pages


def help_pages(tree: app_commands.CommandTree[Any]) -> list[HelpPage]:
    """The guide, then the commands (as many pages as they need), in the current locale."""
    parts = _chunks(command_lines(tree), PAGE_TEXT)
    commands = [
        HelpPage(
            _("Commands")
            if len(parts) == 1
            else _("Commands ({page} of {pages})", page=n, pages=len(parts)),
            "\n".join(p),
        )
        for n, p in enumerate(parts, 1)
    ]
    guide = [HelpPage(_(page.title), _(page.text)) for page in GUIDE]
    return [*guide, *commands]


def help_text(pages: list[HelpPage]) -> str:
    """The pages as plain text, for ``chessgarden commands``."""
    return "\n\n".join(f"{page.title}\n{'=' * len(page.title)}\n{page.text}" for page in pages)


def page_embed(pages: list[HelpPage], number: int) -> discord.Embed:
    """Page ``number`` (from 1) as an embed."""
    page = pages[number - 1]
    embed = discord.Embed(
        title=f"{_(HELP_TITLE)}: {page.title}",
        description=adapter.clip(page.text, adapter.MAX_EMBED_TEXT),
        colour=adapter.COLOUR_CHALLENGE,
    )
    embed.set_footer(
        text=_("Page {page} of {pages}", page=number, pages=len(pages))
        + " · "
        + _("/help page: jumps to a page")
    )
    return adapter.fit(embed)


class HelpPageButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"cg:help:(?P<page>[0-9]{1,3}):(?P<label>prev|next)",
):
    """Shows another page of the help, in the same private message."""

    def __init__(self, page: int, label: str) -> None:
        self.page = page
        super().__init__(
            discord.ui.Button(
                label=_("Previous") if label == "prev" else _("Next"),
                style=discord.ButtonStyle.secondary,
                custom_id=f"cg:help:{page}:{label}",
            )
        )

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> Self:
        return cls(int(match["page"]), match["label"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        translate.use(interaction)
        try:
            pages = help_pages(interaction.client.tree)
            number = min(max(1, self.page), len(pages))
            await interaction.response.edit_message(
                embed=page_embed(pages, number), view=page_view(number, len(pages))
            )
        except Exception as error:  # the presser must get an answer, whatever broke
            await report_failure(interaction, error, what=type(self).__name__)


def page_view(number: int, count: int) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    if number > 1:
        view.add_item(HelpPageButton(number - 1, "prev"))
    if number < count:
        view.add_item(HelpPageButton(number + 1, "next"))
    return view
