"""Buttons: every DynamicItem's custom_id round-trips, and the buttons act on the game
named in their custom_id (so they keep working after a restart), through raw payloads."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # the harness lives beside this file
from harness import World, start_game  # noqa: E402

from bot.discord import views  # noqa: E402

GAME_ID = 9_007_199_254_740_993  # bigger than a float can hold exactly


def template(cls: type[Any]) -> re.Pattern[str]:
    pattern: re.Pattern[str] = cls.__discord_ui_compiled_template__
    return pattern


def examples() -> list[tuple[type[Any], tuple[Any, ...], dict[str, Any]]]:
    cases: list[tuple[type[Any], tuple[Any, ...], dict[str, Any]]] = []
    for cls in views.DYNAMIC_ITEMS:
        if cls is views.RerollButton:
            cases.append((cls, (GAME_ID, 41), {"game_id": GAME_ID, "ply": 41}))
        elif cls is views.HelpPageButton:  # a help page, not a game (issue 27)
            cases.append((cls, (3, "next"), {"page": 3}))
            cases.append((cls, (1, "prev"), {"page": 1}))
        elif cls is views.FlipButton:
            cases.append((cls, (GAME_ID, "black"), {"game_id": GAME_ID, "side": "black"}))
            cases.append((cls, (GAME_ID, "w"), {"game_id": GAME_ID, "side": "white"}))
        else:
            cases.append((cls, (GAME_ID,), {"game_id": GAME_ID}))
    return cases


@pytest.mark.parametrize(("cls", "args", "expected"), examples())
async def test_custom_id_round_trip(
    cls: type[Any], args: tuple[Any, ...], expected: dict[str, Any]
) -> None:
    item = cls(*args)
    custom_id = item.custom_id
    assert len(custom_id) <= 100 and custom_id.startswith("cg:")
    matches = [c for c in views.DYNAMIC_ITEMS if template(c).fullmatch(custom_id)]
    assert matches == [cls], f"{custom_id} must match exactly one template"
    match = template(cls).fullmatch(custom_id)
    again = await cls.from_custom_id(None, item.item, match)  # type: ignore[arg-type]
    assert type(again) is cls and again.custom_id == custom_id
    for name, value in expected.items():
        assert getattr(again, name) == value


def test_every_button_class_is_registered_and_distinct() -> None:
    prefixes = [template(c).pattern.split(":")[1] for c in views.DYNAMIC_ITEMS]
    assert len(set(prefixes)) == len(prefixes)
    assert {"accept", "decline", "reroll", "draw", "resign", "flip", "rematch"} <= set(prefixes)
    for cls in views.DYNAMIC_ITEMS:
        assert not template(cls).fullmatch("cg:accept:")


@pytest.fixture
async def world(tmp_path: Path) -> Any:
    world = await World.open(tmp_path)
    yield world
    await world.close()


async def test_board_buttons_draw_flip_and_stale_ones(world: World) -> None:
    alice, bob, eve = world.user("alice"), world.user("bob"), world.user("eve")
    view, accepted = await start_game(world, alice, bob)
    (board,) = accepted.public
    # a spectator's Flip: a private board from the other side, no ping, nothing retired
    flipped = await world.press(eve, board, "Flip")
    assert "board.png" in flipped.only_private().files and flipped.bot_requests == []
    # Offer draw by black (not to move: offering is allowed any time), accepted by white
    offered = await world.press(bob, board, "Offer draw")
    (offer,) = offered.public
    assert alice.id in offer.pings
    assert not world.discord.messages[board.id].buttons()  # the old board was retired
    await world.press(alice, offer, "Accept draw")
    view = await world.service.view(game_id=view.id)
    assert view.status == "finished" and view.winner is None
    # the final board: Rematch and Flip only
    assert set(world.with_buttons()[0].buttons()) == {"Rematch", "Analyse", "Flip"}  # a rated game


async def test_a_double_press_gets_a_private_answer(world: World) -> None:
    alice, bob = world.user("alice"), world.user("bob")
    _, accepted = await start_game(world, alice, bob)
    asked = (await world.press(bob, accepted.public[0], "Resign")).only_private()
    first = await world.press(bob, asked, "Yes, resign")
    assert first.public
    second = await world.press(bob, asked, "Yes, resign")  # the same button, again
    assert "over" in second.only_private().text or "finished" in second.only_private().text


async def test_a_spectator_pressing_resign_is_refused_without_a_question(world: World) -> None:
    alice, bob, eve = world.user("alice"), world.user("bob"), world.user("eve")
    view, accepted = await start_game(world, alice, bob)
    (board,) = accepted.public
    refused = (await world.press(eve, board, "Resign")).only_private()
    assert "Only the players" in refused.text and not refused.buttons()
    asked = (await world.press(bob, board, "Resign")).only_private()
    assert "Resign game" in asked.text and set(asked.buttons()) == {"Yes, resign"}
    resigned = await world.press(bob, asked, "Yes, resign")
    assert resigned.public and (await world.service.view(game_id=view.id)).winner == "white"


async def test_rematch_challenges_the_same_opponent_with_colours_swapped(world: World) -> None:
    alice, bob, eve = world.user("alice"), world.user("bob"), world.user("eve")
    view, _ = await start_game(world, alice, bob)
    resigned = await world.command(alice, "resign")
    (final,) = resigned.public
    (await world.press(eve, final, "Rematch")).only_private()
    again = await world.press(bob, final, "Rematch")
    (challenge,) = again.public
    assert challenge.pings == {alice.id} and "Accept" in challenge.buttons()
    assert set(world.discord.messages[final.id].buttons()) == {"Flip"}  # one rematch per board
    accepted = await world.press(alice, challenge, "Accept")
    rematch = await world.game()
    assert rematch.id != view.id and rematch.variant == view.variant
    assert (rematch.white_id, rematch.black_id) == (bob.id, alice.id)  # bob was black
    assert accepted.public[0].pings == {bob.id}
