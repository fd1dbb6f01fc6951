"""Buttons that survive restarts: ``discord.ui.DynamicItem``s whose ``custom_id`` carries
the game id (and, where it matters, the ply or the side the board was drawn from).

The bot registers ``DYNAMIC_ITEMS`` with ``Client.add_dynamic_items`` in ``setup_hook``;
discord.py then rebuilds the right item from any matching ``custom_id`` (``from_custom_id``)
and calls its ``callback``, with no view kept in memory.

Custom ids (at most 100 characters, all well under)::

    cg:accept:<game>          cg:decline:<game>
    cg:reroll:<game>:<ply>    cg:draw:<game>        cg:resign:<game>     cg:flip:<game>:<w|b>
    cg:resign-yes:<game>      cg:draw-yes:<game>    cg:draw-no:<game>    cg:rematch:<game>
    cg:takeback:<game>        cg:tb-yes:<game>      cg:tb-no:<game>      cg:help:<page>:<prev|next>
    cg:analyse:<game>

Every button's ``callback`` runs its ``run`` inside ``answers.guarded``: whatever breaks,
the presser gets a private answer and the log gets the traceback with the game id
(discord.py itself only logs a failing DynamicItem, leaving the presser with
"This interaction failed").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, Self

import discord

from bot.discord import adapter, answers
from bot.discord.adapter import Post, watch_button
from bot.discord.help import HelpPageButton
from bot.discord.translate import N_, _
from bot.service import GameView, ServiceError, is_person, may_offer_takeback

Interaction = discord.Interaction[Any]
Button = discord.ui.Button[Any]

GAME = r"(?P<game>[0-9]{1,19})"


class _Guarded:
    """Mixin: ``callback`` runs ``run`` with an answer for every failure."""

    game_id: int

    async def callback(self, interaction: Interaction) -> None:
        if await answers.refuse_outside_server(interaction):  # a game button in a DM
            return
        await answers.guarded(
            interaction, self.run(interaction), what=type(self).__name__, game_id=self.game_id
        )

    async def run(self, interaction: Interaction) -> None:
        """The button's action, by name, from the bot's table (``bot.discord.actions``)."""
        action = interaction.client.actions[self.ACTION]
        await action(interaction, self.game_id, **self.params())

    ACTION = "never"

    def params(self) -> dict[str, Any]:
        """The button's own values for its action, beside the game."""
        return {}


class GardenView(discord.ui.View):
    """A view whose items' failures are answered like the buttons' (``answers.report_failure``)."""

    def __init__(self) -> None:
        super().__init__(timeout=None)

    async def on_error(
        self, interaction: Interaction, error: Exception, item: discord.ui.Item[Any], /
    ) -> None:
        await answers.report_failure(interaction, error, what=f"button {type(item).__name__}")


class _GameButton(_Guarded, discord.ui.DynamicItem[Button], template=r"cg:never:" + GAME):
    """Base: a button for one game. Subclasses set ``PREFIX``, ``LABEL``, ``STYLE``."""

    PREFIX = "never"
    LABEL = "?"  # (a base class: never shown)
    STYLE = discord.ButtonStyle.secondary
    EMOJI: str | None = None

    def __init__(self, game_id: int) -> None:
        self.game_id = game_id
        super().__init__(
            discord.ui.Button(
                label=_(self.LABEL),  # in the reader's language (a board's locale)
                style=self.STYLE,
                emoji=self.EMOJI,
                custom_id=f"cg:{self.PREFIX}:{game_id}",
            )
        )

    @classmethod
    async def from_custom_id(
        cls, interaction: Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> Self:
        return cls(int(match["game"]))


class _CommandButton(_GameButton, template=r"cg:never:" + GAME):
    """Base: a button that runs the player command its ``ACTION`` names
    (``flows.player_command``)."""

    ACTION = "never"  # the player command's name (``flows.PLAYER_COMMANDS``)


class AcceptButton(_GameButton, template=r"cg:accept:" + GAME):
    PREFIX = "accept"
    LABEL = N_("Accept")
    STYLE = discord.ButtonStyle.success

    ACTION = "accept"


class DeclineButton(_GameButton, template=r"cg:decline:" + GAME):
    PREFIX = "decline"
    LABEL = N_("Decline")
    STYLE = discord.ButtonStyle.danger

    ACTION = "decline"


class DrawButton(_CommandButton, template=r"cg:draw:" + GAME):
    PREFIX = "draw"
    LABEL = N_("Offer draw")
    EMOJI = "🤝"
    ACTION = "offer_draw"


class AcceptDrawButton(_CommandButton, template=r"cg:draw-yes:" + GAME):
    PREFIX = "draw-yes"
    LABEL = N_("Accept draw")
    STYLE = discord.ButtonStyle.success
    ACTION = "accept_draw"


class DeclineDrawButton(_CommandButton, template=r"cg:draw-no:" + GAME):
    PREFIX = "draw-no"
    LABEL = N_("Decline draw")
    ACTION = "decline_draw"


class ResignButton(_GameButton, template=r"cg:resign:" + GAME):
    """Asks first: a private "really resign?" with a confirming button, for players only.

    Anyone else, or a press after the end, is refused at once, with no question asked.
    """

    PREFIX = "resign"
    LABEL = N_("Resign")
    STYLE = discord.ButtonStyle.danger
    EMOJI = "🏳️"

    async def run(self, interaction: Interaction) -> None:
        try:
            game = await answers.service_of(interaction).view(
                game_id=self.game_id, **answers.seen(interaction, from_button=True)
            )
        except ServiceError as error:
            await answers.deliver(interaction, await answers.refusal(interaction, error))
            return
        if game.colour_of(interaction.user.id) is None:
            await answers.refuse(
                interaction, _("Only the players of game {game} can resign it.", game=game.id)
            )
            return
        if game.status != "active":
            status = adapter.status_word(game.status)
            await answers.refuse(
                interaction,
                _("Game {game} is not in play ({status}).", game=game.id, status=status),
            )
            return
        view = GardenView()
        view.add_item(ConfirmResignButton(self.game_id))
        question = discord.Embed(
            description=_("Resign game {game}? This cannot be undone.", game=game.id),
            colour=discord.Colour.red(),
        )
        await answers.deliver(interaction, Post(embed=question, view=view, ephemeral=True))


class ConfirmResignButton(_CommandButton, template=r"cg:resign-yes:" + GAME):
    PREFIX = "resign-yes"
    LABEL = N_("Yes, resign")
    STYLE = discord.ButtonStyle.danger
    ACTION = "resign"


class RematchButton(_GameButton, template=r"cg:rematch:" + GAME):
    """On a finished game's board: challenge the same opponent, colours swapped."""

    PREFIX = "rematch"
    LABEL = N_("Rematch")
    STYLE = discord.ButtonStyle.primary
    EMOJI = "🔁"

    ACTION = "rematch"


class AnalyseButton(_GameButton, template=r"cg:analyse:" + GAME):
    """On a finished rated game's final board: its errors and luck (issue 29), as /analyse."""

    PREFIX = "analyse"
    LABEL = "Analyse"
    EMOJI = "🔎"
    ACTION = "analyse"


class TakebackButton(_GameButton, template=r"cg:takeback:" + GAME):
    """Ask to take back your last move (issue 27); shown while no die has been rolled
    since the last move (``may_offer_takeback``; the service decides on the press)."""

    PREFIX = "takeback"
    LABEL = N_("Takeback")
    EMOJI = "↩️"
    ACTION = "takeback"


class AcceptTakebackButton(_GameButton, template=r"cg:tb-yes:" + GAME):
    PREFIX = "tb-yes"
    LABEL = N_("Accept takeback")
    STYLE = discord.ButtonStyle.success
    ACTION = "accept_takeback"


class DeclineTakebackButton(_GameButton, template=r"cg:tb-no:" + GAME):
    PREFIX = "tb-no"
    LABEL = N_("Decline takeback")
    ACTION = "decline_takeback"


class RerollButton(
    _Guarded,
    discord.ui.DynamicItem[Button],
    template=r"cg:reroll:" + GAME + r":(?P<ply>[0-9]{1,9})",
):
    """Re-roll, for the ply the board showed: a stale button cannot re-roll a later turn."""

    def __init__(self, game_id: int, ply: int) -> None:
        self.game_id = game_id
        self.ply = ply
        super().__init__(
            discord.ui.Button(
                label=_("Re-roll"),
                style=discord.ButtonStyle.primary,
                emoji="🎲",
                custom_id=f"cg:reroll:{game_id}:{ply}",
            )
        )

    @classmethod
    async def from_custom_id(
        cls, interaction: Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> Self:
        return cls(int(match["game"]), int(match["ply"]))

    ACTION = "reroll"

    def params(self) -> dict[str, Any]:
        return {"ply": self.ply}


class FlipButton(
    _Guarded, discord.ui.DynamicItem[Button], template=r"cg:flip:" + GAME + r":(?P<side>[wb])"
):
    """Show the clicker (only) the board from the other side than this message's."""

    def __init__(self, game_id: int, side: str) -> None:
        self.game_id = game_id
        self.side = "white" if side in ("w", "white") else "black"
        super().__init__(
            discord.ui.Button(
                label=_("Flip"),
                style=discord.ButtonStyle.secondary,
                emoji="🔄",
                custom_id=f"cg:flip:{game_id}:{self.side[0]}",
            )
        )

    @classmethod
    async def from_custom_id(
        cls, interaction: Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> Self:
        return cls(int(match["game"]), match["side"])

    ACTION = "flip"

    def params(self) -> dict[str, Any]:
        return {"side": self.side}


DYNAMIC_ITEMS: tuple[type[discord.ui.DynamicItem[Any]], ...] = (
    AcceptButton,
    DeclineButton,
    RerollButton,
    DrawButton,
    AcceptDrawButton,
    DeclineDrawButton,
    ResignButton,
    ConfirmResignButton,
    FlipButton,
    RematchButton,
    AnalyseButton,
    TakebackButton,
    AcceptTakebackButton,
    DeclineTakebackButton,
    HelpPageButton,
)


def challenge_view(game_id: int) -> discord.ui.View:
    view = GardenView()
    view.add_item(AcceptButton(game_id))
    view.add_item(DeclineButton(game_id))
    return view


def board_view(game: GameView, legal: Sequence[str], side: str) -> discord.ui.View:
    """Buttons under a board: Re-roll when the side to act may, draw, resign, flip.

    Whether a re-roll is allowed is the engine's word: ``reroll`` among the legal actions.
    A finished game's board offers a Rematch, and a rated one an Analyse.
    """
    view = GardenView()
    if game.status == "finished":
        view.add_item(RematchButton(game.id))
        if game.rated:
            view.add_item(AnalyseButton(game.id))
    if game.status == "active":
        if "reroll" in legal:
            view.add_item(RerollButton(game.id, game.ply))
        if game.draw_offer is not None:
            answerer = game.black_id if game.draw_offer == "white" else game.white_id
            if is_person(answerer):  # an offer to the computer is its to answer, not a button's
                view.add_item(AcceptDrawButton(game.id))
                view.add_item(DeclineDrawButton(game.id))
        else:
            view.add_item(DrawButton(game.id))
        if may_offer_takeback(game):
            view.add_item(TakebackButton(game.id))
        view.add_item(ResignButton(game.id))
    view.add_item(FlipButton(game.id, side))
    watch = watch_button(game.id)  # the game's web page, when CHESSGARDEN_WEB serves one
    if watch is not None:
        view.add_item(watch)
    return view


def takeback_view(game_id: int) -> discord.ui.View:
    """Under a takeback request: the opponent accepts or declines (the asker may withdraw)."""
    view = GardenView()
    view.add_item(AcceptTakebackButton(game_id))
    view.add_item(DeclineTakebackButton(game_id))
    return view


def flip_view(game: GameView, side: str) -> discord.ui.View:
    view = GardenView()
    view.add_item(FlipButton(game.id, side))
    return view
