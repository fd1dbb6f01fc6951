"""What the buttons do (issue 25): a button names an action, and this one table maps each
action to its flow. ``ChessGardenBot.setup_hook`` sets it up (``bot.actions``), so the views
import no flow, and the flows and challenges import the views, one way.

Each action is called with the interaction, the button's game and the button's own values
(``ply`` of a Re-roll, ``side`` of a Flip), as keywords.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from bot.discord import analysis, challenges, flows, takebacks
from bot.discord.answers import Interaction

Action = Callable[..., Awaitable[None]]


def _command(name: str) -> Action:
    async def run(interaction: Interaction, game_id: int, **_params: Any) -> None:
        await flows.player_command(interaction, name, game_id=game_id, from_button=True)

    return run


async def _accept(interaction: Interaction, game_id: int, **_params: Any) -> None:
    await flows.accept(interaction, game_id=game_id, from_button=True)


async def _decline(interaction: Interaction, game_id: int, **_params: Any) -> None:
    await flows.decline(interaction, game_id, from_button=True)


async def _reroll(interaction: Interaction, game_id: int, *, ply: int, **_params: Any) -> None:
    await flows.act(interaction, "reroll", game_id=game_id, expected_ply=ply, from_button=True)


async def _flip(interaction: Interaction, game_id: int, *, side: str, **_params: Any) -> None:
    await flows.show_board(
        interaction, game_id=game_id, flip=True, ephemeral=True, from_side=side, from_button=True
    )


async def _analyse(interaction: Interaction, game_id: int, **_params: Any) -> None:
    await analysis.analyse(interaction, game_id, from_button=True)


async def _rematch(interaction: Interaction, game_id: int, **_params: Any) -> None:
    await challenges.rematch(interaction, game_id)


def registry() -> dict[str, Action]:
    """Every action a button may name."""
    return {
        "accept": _accept,
        "decline": _decline,
        "reroll": _reroll,
        "flip": _flip,
        "rematch": _rematch,
        "analyse": _analyse,
        "takeback": takebacks.ask,
        "accept_takeback": takebacks.accept,
        "decline_takeback": takebacks.decline,
        **{name: _command(name) for name in flows.PLAYER_COMMANDS},
    }
