"""Visibility (issue 9, contract C3): a game is visible only in its own server; a button
only in the game's own channel or thread; in a DM only one's own games. Every per-game
method says "there is no game N here" otherwise, word for word what it says for a game
that does not exist, and changes nothing."""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from bot.service import GameService, NotFound, Viewer

ALICE, BOB, EVE, MOD = 101, 202, 666, 404
GUILD, OTHER_GUILD = 1, 2
CHANNEL, OTHER_CHANNEL = 10, 20

Call = Callable[[GameService, int, Viewer | None], Awaitable[Any]]

# Every per-game method, with the kind of game it works on.
METHODS: dict[str, tuple[str, Call]] = {
    "view": ("active", lambda s, g, v: s.view(game_id=g, viewer=v)),
    "board": ("active", lambda s, g, v: s.board(game_id=g, viewer=v)),
    "legal_moves": ("active", lambda s, g, v: s.legal_moves(game_id=g, viewer=v)),
    "position": ("active", lambda s, g, v: s.position(game_id=g, viewer=v)),
    "history": ("finished", lambda s, g, v: s.history(game_id=g, viewer=v)),
    "verify": ("finished", lambda s, g, v: s.verify(game_id=g, viewer=v)),
    "act": ("active", lambda s, g, v: s.act(game_id=g, user_id=ALICE, text="pass", viewer=v)),
    "resign": ("active", lambda s, g, v: s.resign(game_id=g, user_id=ALICE, viewer=v)),
    "offer_draw": ("active", lambda s, g, v: s.offer_draw(game_id=g, user_id=ALICE, viewer=v)),
    "accept_draw": ("drawn", lambda s, g, v: s.accept_draw(game_id=g, user_id=BOB, viewer=v)),
    "decline_draw": ("drawn", lambda s, g, v: s.decline_draw(game_id=g, user_id=BOB, viewer=v)),
    "accept": ("challenge", lambda s, g, v: s.accept(game_id=g, user_id=BOB, viewer=v)),
    "decline": ("challenge", lambda s, g, v: s.decline(game_id=g, user_id=BOB, viewer=v)),
    "cancel": ("challenge", lambda s, g, v: s.cancel(game_id=g, user_id=ALICE, viewer=v)),
    "abort": (
        "active",
        lambda s, g, v: s.abort(game_id=g, user_id=MOD, moderator=True, viewer=v),
    ),
}

HIDDEN = {
    "another server": Viewer(ALICE, OTHER_GUILD, OTHER_CHANNEL),
    "a DM of someone who does not play": Viewer(EVE, None, 999),
    "a button in another channel": Viewer(ALICE, GUILD, OTHER_CHANNEL, from_button=True),
    "a button in another server's channel": Viewer(ALICE, OTHER_GUILD, CHANNEL, from_button=True),
}

VISIBLE = {
    "a command in the game's channel": Viewer(EVE, GUILD, CHANNEL),
    "a command in another channel of the server": Viewer(EVE, GUILD, OTHER_CHANNEL),
    "a button in the game's channel": Viewer(ALICE, GUILD, CHANNEL, from_button=True),
    "a DM of a player": Viewer(BOB, None, 999),
    "a trusted local caller": None,
}


@pytest.fixture
async def service(tmp_path: Path):
    svc = await GameService.open(
        str(tmp_path / "visible.sqlite3"),
        renderer=lambda game, side: b"PNG",
        dice_renderer=None,
        rng=random.Random(0),
    )
    yield svc
    await svc.close()


async def make(service: GameService, kind: str) -> int:
    made = await service.challenge(
        location_id=CHANNEL,
        challenger_id=ALICE,
        opponent_id=BOB,
        variant="tquarchess",
        colour="white",
        guild_id=GUILD,
    )
    if kind == "challenge":
        return made.game.id
    await service.accept(location_id=CHANNEL, user_id=BOB)
    if kind == "drawn":
        await service.offer_draw(location_id=CHANNEL, user_id=ALICE)
    if kind == "finished":
        await service.act(location_id=CHANNEL, user_id=ALICE, text="e4")
        await service.resign(location_id=CHANNEL, user_id=BOB)
    return made.game.id


async def snapshot(service: GameService, game_id: int) -> tuple[object, ...]:
    view = await service.view(game_id=game_id)
    return view, (await service.history(game_id=game_id)).entries


@pytest.mark.parametrize("where", list(HIDDEN))
@pytest.mark.parametrize("method", list(METHODS))
async def test_a_game_elsewhere_is_not_found(service: GameService, method: str, where: str) -> None:
    kind, call = METHODS[method]
    gid = await make(service, kind)
    before = await snapshot(service, gid)
    with pytest.raises(NotFound) as hidden:
        await call(service, gid, HIDDEN[where])
    with pytest.raises(NotFound) as missing:
        await call(service, gid + 1000, HIDDEN[where])
    assert str(hidden.value) == f"there is no game {gid} here"
    assert str(missing.value) == f"there is no game {gid + 1000} here"  # the same words
    assert await snapshot(service, gid) == before


@pytest.mark.parametrize("where", list(VISIBLE))
@pytest.mark.parametrize("method", ["view", "board", "history", "verify", "legal_moves"])
async def test_a_game_where_it_belongs_is_visible(
    service: GameService, method: str, where: str
) -> None:
    kind, call = METHODS[method]
    gid = await make(service, kind)
    await call(service, gid, VISIBLE[where])


async def test_a_button_in_the_games_channel_acts(service: GameService) -> None:
    gid = await make(service, "active")
    here = Viewer(ALICE, GUILD, CHANNEL, from_button=True)
    moved = await service.act(game_id=gid, user_id=ALICE, text="e4", viewer=here)
    assert moved.recorded == "e4"


async def test_by_location_a_hidden_game_is_not_here(service: GameService) -> None:
    await make(service, "active")
    with pytest.raises(NotFound, match="^there is no game or challenge here$"):
        await service.view(location_id=CHANNEL, viewer=Viewer(ALICE, OTHER_GUILD, CHANNEL))
    assert (await service.view(location_id=CHANNEL, viewer=Viewer(EVE, GUILD, CHANNEL))).id


async def test_lists_stay_in_their_server(service: GameService) -> None:
    here = await make(service, "active")
    there = await service.challenge(
        location_id=OTHER_CHANNEL, challenger_id=EVE, variant="guardener", guild_id=OTHER_GUILD
    )
    in_guild = await service.list_games(viewer=Viewer(EVE, GUILD, CHANNEL))
    assert [g.id for g in in_guild] == [here]
    asked_for_other = await service.list_games(
        guild_id=OTHER_GUILD, viewer=Viewer(EVE, GUILD, CHANNEL)
    )
    assert asked_for_other == ()
    in_dm = await service.list_games(viewer=Viewer(EVE, None, 5))
    assert [g.id for g in in_dm] == [there.game.id]  # only Eve's own game
    assert await service.list_games(player_id=ALICE, viewer=Viewer(EVE, None, 5)) == ()
    assert len(await service.list_games()) == 2  # a trusted caller sees everything
