"""Issue 9 through Discord: games visible only where they belong, dice only after
acceptance, a playing moderator cannot abort, challenge limits, board messages that
outlive a restart, one service call per move. Raw payloads, as everywhere in tests/bot."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # the harness lives beside this file
from harness import World, latest_board, start_game  # noqa: E402

from bot.discord import views  # noqa: E402
from bot.discord.app import Settings  # noqa: E402


@pytest.fixture
async def world(tmp_path: Path) -> Any:
    world = await World.open(tmp_path)
    yield world
    await world.close()


async def test_a_button_works_only_where_its_game_lives(world: World) -> None:
    alice, bob = world.user("alice"), world.user("bob")
    view, accepted = await start_game(world, alice, bob)
    # the same board, as if it had been posted (or forwarded) in another channel
    copy = world.discord.new_message(
        world.channels["lobby"],
        {"components": accepted.public[0].payload["components"]},
        [],
        how="channel",
        interaction=None,
        ephemeral=False,
    )
    for label in ("Offer draw", "Resign", "Flip"):
        refused = await world.press(alice, copy, label)
        assert f"there is no game {view.id} here" in refused.only_private().text.lower()
    assert (await world.game()).draw_offer is None


async def test_a_game_is_visible_in_its_server_and_to_its_players_in_a_dm(world: World) -> None:
    alice, bob, eve = world.user("alice"), world.user("bob"), world.user("eve")
    view, _ = await start_game(world, alice, bob)
    elsewhere = await world.command(eve, "history", channel="lobby", game=view.id)
    assert elsewhere.public  # the same server: anyone may read the record
    for name in ("history", "verify"):
        refused = await world.command(eve, name, channel=None, game=view.id)
        assert f"there is no game {view.id} here" in refused.only_private().text.lower()
    mine = await world.command(alice, "history", channel=None, game=view.id)
    assert mine.public
    hidden = await world.command(eve, "history", channel=None, game=view.id + 1000)
    assert hidden.only_private().text.lower() == f"there is no game {view.id + 1000} here."


async def test_no_dice_and_no_commitment_before_acceptance(world: World) -> None:
    alice, bob = world.user("alice"), world.user("bob")
    made = await world.command(alice, "play", variant="guardener", opponent=bob)
    (challenge,) = made.public
    assert "commitment" not in challenge.text.lower() and "Dice:" not in challenge.text
    assert "drawn when the challenge is accepted" in challenge.text
    shown = await world.command(bob, "board")
    assert "has not started" in shown.only_private().text
    accepted = await world.press(bob, challenge, "Accept")
    (board,) = accepted.public
    view = await world.game()
    assert view.commitment is not None and f"Dice commitment: {view.commitment}" in board.text
    description = board.payload["embeds"][0]["description"]
    assert description.index("Dice commitment") < description.index("to move")


async def test_a_moderator_who_plays_cannot_abort(world: World) -> None:
    mod, bob = world.user("mod", moderator=True), world.user("bob")
    view, _ = await start_game(world, mod, bob)
    refused = await world.command(mod, "abort", reason="losing")
    assert "resign instead" in refused.only_private().text
    assert (await world.game()).status == "active"
    other = world.user("other-mod", moderator=True)
    aborted = await world.command(other, "abort", reason="spam")
    assert aborted.public and (await world.game()).status == "aborted"
    history = await world.service.history(game_id=view.id)
    assert any(e.kind == "abort" and "spam" in e.text for e in history.entries)


async def test_open_challenges_are_limited_and_no_thread_is_made_over_the_limit(
    tmp_path: Path,
) -> None:
    world = await World.open(tmp_path, settings=Settings(max_challenges=2))
    try:
        alice = world.user("alice")
        await world.command(alice, "play", variant="kings_guard")  # in the channel
        await world.command(alice, "play", variant="kings_guard")  # busy: a thread
        assert len(world.threads()) == 1
        refused = await world.command(alice, "play", variant="kings_guard", thread=True)
        text = refused.only_private().text
        assert "2 open challenges" in text and "at most 2" in text
        assert refused.bot_requests == [] and len(world.threads()) == 1
        refused = await world.command(alice, "play", channel="lobby", variant="kings_guard")
        assert "at most 2" in refused.only_private().text  # the service's own refusal
        assert len(await world.service.list_games(statuses=("challenge",))) == 2
    finally:
        await world.close()


async def test_old_boards_lose_their_buttons_after_a_restart(world: World) -> None:
    alice, bob = world.user("alice"), world.user("bob")
    view, accepted = await start_game(world, alice, bob)
    (board,) = accepted.public
    await world.restart()
    legal = await world.service.legal_moves(game_id=view.id)
    played = await world.command(alice, "move", notation=legal[0])
    assert not world.discord.messages[board.id].buttons()
    assert latest_board(world, view.id).id == played.public[0].id
    # and the buttons of the new board work in the new process
    offered = await world.press(bob, played.public[0], "Offer draw")
    assert offered.public and (await world.game()).draw_offer == "black"


async def test_a_move_is_one_service_call(world: World) -> None:
    alice, bob = world.user("alice"), world.user("bob")
    view, _ = await start_game(world, alice, bob)
    legal = await world.service.legal_moves(game_id=view.id)
    calls: list[str] = []
    for name in ("act", "view", "board", "legal_moves", "history"):
        method = getattr(world.service, name)

        async def counted(*args: Any, _name: str = name, _method: Any = method, **kw: Any) -> Any:
            calls.append(_name)
            return await _method(*args, **kw)

        setattr(world.service, name, counted)
    played = await world.command(alice, "move", notation=legal[0])
    assert calls == ["act"]
    (board,) = played.public
    assert "board.png" in board.files and set(board.buttons()) >= {"Offer draw", "Resign"}
    assert views.ResignButton(view.id).custom_id in board.buttons().values()
