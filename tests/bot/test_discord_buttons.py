"""Buttons: every DynamicItem's custom_id round-trips, and the buttons act on the game
named in their custom_id (so they keep working after a restart)."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # the fakes toolkit lives beside this file
from fakes import Table  # noqa: E402

from bot import views  # noqa: E402
from bot.cogs.game import GameCog  # noqa: E402

GAME_ID = 9_007_199_254_740_993  # bigger than a float can hold exactly


def template(cls: type[Any]) -> re.Pattern[str]:
    pattern: re.Pattern[str] = cls.__discord_ui_compiled_template__
    return pattern


def examples() -> list[tuple[type[Any], tuple[Any, ...], dict[str, Any]]]:
    cases: list[tuple[type[Any], tuple[Any, ...], dict[str, Any]]] = []
    for cls in views.DYNAMIC_ITEMS:
        if cls is views.RerollButton:
            cases.append((cls, (GAME_ID, 41), {"game_id": GAME_ID, "ply": 41}))
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
    assert {"accept", "decline", "reroll", "draw", "resign", "flip"} <= set(prefixes)
    for cls in views.DYNAMIC_ITEMS:
        assert not template(cls).fullmatch("cg:accept:")


@pytest.fixture
async def table(tmp_path: Path) -> Any:
    table = await Table.open(tmp_path)
    yield table
    await table.close()


async def test_decline_and_cancel(table: Table) -> None:
    game = GameCog(table.client)  # type: ignore[arg-type]
    alice, bob, eve = table.member("alice"), table.member("bob"), table.member("eve")
    await game.play.callback(game, table.interaction(alice), "kings_guard", bob)
    challenge = table.last_sent(with_view=True)
    await table.press(challenge.button("Decline"), table.interaction(eve))
    assert table.last_sent().ephemeral  # not eve's challenge
    await table.press(challenge.button("Accept"), table.interaction(eve))
    assert table.last_sent().ephemeral and "for <@" in table.last_sent().text
    await table.press(
        challenge.button("Decline"), table.interaction(bob, message=table.message_of(challenge))
    )
    assert "declined" in table.last_sent().text
    assert table.message_of(challenge).sent.view is None
    await game.play.callback(game, table.interaction(alice), "kings_guard", bob)
    second = table.last_sent(with_view=True)
    await table.press(second.button("Decline"), table.interaction(alice))  # the challenger cancels
    assert "cancelled" in table.last_sent().text
    await table.press(second.button("Accept"), table.interaction(bob))  # too late
    assert table.last_sent().ephemeral


async def test_board_buttons_draw_flip_and_a_stale_reroll(table: Table) -> None:
    game = GameCog(table.client)  # type: ignore[arg-type]
    alice, bob, eve = table.member("alice"), table.member("bob"), table.member("eve")
    await game.play.callback(game, table.interaction(alice), "kings_guard", bob, "white")
    await table.press(table.last_sent(with_view=True).button("Accept"), table.interaction(bob))
    board = table.last_sent()
    game_id = (await table.service.view(location_id=table.channel.id)).id
    # a spectator's Flip: an ephemeral board from the other side
    mark = len(table.log)
    await table.press(board.button("Flip"), table.interaction(eve))
    flipped = table.last_sent()
    assert flipped.ephemeral and "board.png" in flipped.filenames()
    assert ("render", "black") in table.log[mark:]
    assert ("defer", True, True) in table.log[mark:]
    # Offer draw by black (not to move: offering is allowed any time), accepted by white
    await table.press(board.button("Offer draw"), table.interaction(bob))
    offer = table.last_sent()
    assert alice.mention in (offer.content or "")
    await table.press(offer.button("Accept draw"), table.interaction(alice))
    view = await table.service.view(game_id=game_id)
    assert view.status == "finished" and view.winner is None
    # buttons on old messages answer, ephemerally, that the game is over
    await table.press(board.button("Offer draw"), table.interaction(alice))
    assert table.last_sent().ephemeral
    stale = views.RerollButton(game_id, 0).custom_id
    await table.press(stale, table.interaction(alice))
    assert table.last_sent().ephemeral
