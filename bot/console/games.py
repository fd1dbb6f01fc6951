"""Console games in the store: the two local players, and games made or resumed for
this keyboard (hot-seat, or against the computer), through the service."""

from __future__ import annotations

import secrets
import sys
from typing import Any

from bot.service import COMPUTER_ID, GameService, GameView

WHITE_ID = 1
BLACK_ID = 2
CONSOLE_PLAYERS = (WHITE_ID, BLACK_ID)


def player_label(user_id: int) -> str:
    return {WHITE_ID: "White", BLACK_ID: "Black"}.get(user_id, f"player {user_id}")


def player_id(colour: str) -> int:
    return WHITE_ID if colour == "white" else BLACK_ID


def new_location() -> int:
    """A console game's location: a negative id no Discord channel has."""
    return -1 - secrets.randbelow(2**62)


async def resumed(service: GameService, game_id: int, variant: str | None) -> GameView | None:
    """Game ``game_id`` to resume at this keyboard, or ``None`` after one ``error:`` line
    (not a console game, or not ``variant``)."""
    view = await service.view(game_id=game_id)
    if not is_console_game(view):
        print(f"error: game {game_id} is not a console game", file=sys.stderr)
        return None
    if variant is not None and variant != view.variant:
        print(f"error: game {game_id} is {view.variant}, not {variant}", file=sys.stderr)
        return None
    if view.status == "challenge":  # interrupted between creating and starting
        view = (await service.accept(game_id=game_id, user_id=BLACK_ID, render=False)).game
    return view


async def new_computer_game(
    service: GameService,
    variant: str,
    level: int,
    mine: str,
    options: dict[str, Any] | None,
    seed: int | None,
) -> GameView:
    """A new game against the computer at ``level``; the player has ``mine``."""
    outcome = await service.play_computer(
        user_id=player_id(mine),
        location_id=new_location(),
        variant=variant,
        level=level,
        colour=mine,
        options=options or None,
        seed=None if seed is None else str(seed),
        render=False,
    )
    return outcome.game


async def new_hot_seat_game(
    service: GameService,
    variant: str,
    options: dict[str, Any] | None,
    days: int | None,
    seed: int | None,
) -> GameView:
    """A new hot-seat game: White and Black at this keyboard."""
    created = await service.challenge(
        location_id=new_location(),
        challenger_id=WHITE_ID,
        opponent_id=BLACK_ID,
        colour="white",
        variant=variant,
        options=options or None,
        days=days,
    )
    accepted = await service.accept(
        game_id=created.game.id,
        user_id=BLACK_ID,
        render=False,
        seed=None if seed is None else str(seed),
    )
    return accepted.game


def is_console_game(game: Any) -> bool:
    """A game whose players are this keyboard's (a ``GameView`` or ``GameSummary``)."""
    return bool(
        game.challenger_id in CONSOLE_PLAYERS
        and (game.opponent_id in CONSOLE_PLAYERS or game.opponent_id == COMPUTER_ID)
    )
