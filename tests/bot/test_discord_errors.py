"""Every error path through raw payloads. Each gives a private, plain reply to the person who
caused it (never Discord's raw API text), no request breaks a limit (the harness checks
every one), and nothing is left orphaned in the store: every live game has a message with
its buttons where it lives. Then an injected exception in each button type, and in a
command: the presser gets a private answer, the log gets the game id, no spinner is left.
"""

from __future__ import annotations

import asyncio
import logging
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # the harness lives beside this file
from discord_payloads import snowflake  # noqa: E402
from harness import World, assert_no_orphans, latest_board, start_game  # noqa: E402

from bot.discord import help as help_module  # noqa: E402
from bot.discord import views  # noqa: E402
from bot.discord.help import HelpPageButton  # noqa: E402

MESSAGES = "POST /channels/{channel_id}/messages"
THREADS = "POST /channels/{channel_id}/threads"
CALLBACK = "POST /interactions/{webhook_id}/{webhook_token}/callback"
RAW = ("50013", "Missing Permissions", "Forbidden", "error code", "Internal Server Error")


def plain(text: str) -> str:
    """The text, after checking that no raw API text leaked into it."""
    assert not any(raw in text for raw in RAW), text
    return text


@pytest.fixture
async def world(tmp_path: Path) -> Any:
    world = await World.open(tmp_path)
    yield world
    await assert_no_orphans(world)
    await world.close()


# ----- players and spectators ----------------------------------------------------------


async def test_not_your_turn(world: World) -> None:
    alice, bob = world.user("alice"), world.user("bob")
    view, _ = await start_game(world, alice, bob)
    legal = await world.service.legal_moves(game_id=view.id)
    refused = await world.command(bob, "move", notation=legal[0])
    assert "turn" in plain(refused.only_private().text).lower()
    assert refused.pings == set() and (await world.game()).ply == 0


async def test_an_illegal_action(world: World) -> None:
    alice, bob = world.user("alice"), world.user("bob")
    await start_game(world, alice, bob)
    refused = await world.command(alice, "move", notation="Qh5xh7")
    text = plain(refused.only_private().text)
    assert "closest legal" in text.lower() and (await world.game()).ply == 0


async def test_a_spectator_on_every_player_button(world: World) -> None:
    alice, bob, eve = world.user("alice"), world.user("bob"), world.user("eve")
    made = await world.command(alice, "play", variant="kings_guard", opponent=bob, colour="white")
    (challenge,) = made.public
    for label in ("Accept", "Decline"):
        plain((await world.press(eve, challenge, label)).only_private().text)
    accepted = await world.press(bob, challenge, "Accept")
    (board,) = accepted.public
    for label in ("Offer draw", "Resign"):
        refused = await world.press(eve, board, label)
        text = plain(refused.only_private().text)
        assert "Resign game" not in text and not refused.private[0].buttons()
    offered = await world.command(alice, "draw")
    (offer,) = offered.public
    for label in ("Accept draw", "Decline draw"):
        plain((await world.press(eve, offer, label)).only_private().text)
    view = await world.game()
    assert view.status == "active" and view.draw_offer == "white"
    resigned = await world.command(bob, "resign")
    plain((await world.press(eve, resigned.public[0], "Rematch")).only_private().text)


# ----- threads ------------------------------------------------------------------------------


async def test_missing_permission_to_make_a_thread(world: World) -> None:
    alice, bob = world.user("alice"), world.user("bob")
    refused = await world.command(
        alice, "play", channel="nothreads", variant="kings_guard", opponent=bob, thread=True
    )
    text = plain(refused.only_private().text)
    assert "I need Create Public Threads and Send Messages in Threads" in text
    assert refused.bot_requests == []  # decided before any request
    assert world.threads() == [] and await world.service.list_games() == ()
    # the bot may make threads in "quiet" but not post in them: also refused up front
    refused = await world.command(
        alice, "play", channel="quiet", variant="kings_guard", thread=True
    )
    assert "Send Messages in Threads" in plain(refused.only_private().text)
    assert refused.bot_requests == []


async def test_discord_refuses_the_thread_anyway(world: World) -> None:
    alice = world.user("alice")
    world.discord.fail(THREADS, 403)
    refused = await world.command(alice, "play", variant="kings_guard", thread=True)
    text = plain(refused.only_private().text)
    assert text.startswith("I can't make a thread in") and "lack a permission" in text
    assert world.threads() == [] and await world.service.list_games() == ()


@pytest.mark.parametrize("manage_threads", [False, True])
async def test_missing_permission_on_the_first_thread_message(
    world: World, manage_threads: bool
) -> None:
    alice, bob = world.user("alice"), world.user("bob")
    if manage_threads:
        world.grant_bot(manage_threads=True)
    world.discord.fail(MESSAGES, 403)
    refused = await world.command(alice, "play", variant="kings_guard", opponent=bob, thread=True)
    text = plain(refused.only_private().text)
    assert text.startswith("I can't post in the new thread") and "I withdrew the challenge" in text
    assert refused.pings == set()
    (game,) = await world.service.list_games()
    assert game.status == "cancelled"  # nothing waits where nobody can see it
    if manage_threads:
        assert "deleted the thread" in text and world.threads() == []
    else:
        (thread,) = world.threads()
        assert thread["thread_metadata"]["archived"]
        assert f"<#{thread['id']}>" in text and "Manage Threads" in text


async def test_a_500_on_the_first_thread_message(world: World) -> None:
    alice = world.user("alice")
    world.discord.fail(MESSAGES, 500)
    refused = await world.command(alice, "play", variant="kings_guard", thread=True)
    text = plain(refused.only_private().text)
    assert "Discord had a problem on its side" in text and "withdrew the challenge" in text
    assert [g.status for g in await world.service.list_games()] == ["cancelled"]


@pytest.mark.parametrize("fault", ["StoreBusy", "StoreFull"])
async def test_a_busy_or_full_database(world: World, fault: str) -> None:
    import bot.service as service_module

    alice, bob = world.user("alice"), world.user("bob")
    view, _ = await start_game(world, alice, bob)
    legal = await world.service.legal_moves(game_id=view.id)
    act = world.service.act

    async def failing(**_: Any) -> Any:
        raise getattr(service_module, fault)()

    world.service.act = failing  # type: ignore[method-assign]
    refused = await world.command(alice, "move", notation=legal[0])
    text = plain(refused.only_private().text)
    assert text.startswith("The database") and "try again" in text.lower()
    world.service.act = act  # type: ignore[method-assign]
    played = await world.command(alice, "move", notation=legal[0])  # the retry works
    assert played.public[0].pings == {bob.id}


# ----- Discord failing under a move -------------------------------------------------------------


async def test_a_500_on_the_answer_to_a_move(world: World) -> None:
    alice, bob = world.user("alice"), world.user("bob")
    view, _ = await start_game(world, alice, bob)
    legal = await world.service.legal_moves(game_id=view.id)
    world.discord.fail(CALLBACK, 500, times=1)
    played = await world.command(alice, "move", notation=legal[0])
    (told,) = played.private
    text = plain(told.text)
    assert f"Your action in game {view.id} is played" in text
    assert "Discord had a problem on its side" in text
    assert (await world.game()).ply == 1  # the move stands
    # The board the answer could not carry is owed: the outbox worker posts it with the
    # bot's token (issue 24), pinging Bob, and the old board loses its buttons.
    (board,) = played.public
    assert board.how == "channel" and board.pings == {bob.id}
    assert latest_board(world, view.id).id == board.id


async def test_a_500_when_retiring_the_old_board(world: World) -> None:
    alice, bob = world.user("alice"), world.user("bob")
    view, _ = await start_game(world, alice, bob)
    legal = await world.service.legal_moves(game_id=view.id)
    world.discord.fail("PATCH /channels/{channel_id}/messages/{message_id}", 500, times=1)
    played = await world.command(alice, "move", notation=legal[0])
    (board,) = played.public
    assert board.pings == {bob.id} and not played.private  # nobody is troubled by it


async def test_a_500_on_every_answer_is_logged(
    world: World, caplog: pytest.LogCaptureFixture
) -> None:
    alice, bob = world.user("alice"), world.user("bob")
    view, _ = await start_game(world, alice, bob)
    legal = await world.service.legal_moves(game_id=view.id)
    world.discord.fail(CALLBACK, 500, times=2)  # the answer, then the sentence about it
    payload = world._base(alice, world.chess, 2)
    opts, _ = world._command_options("move", {"notation": legal[0]})
    payload["data"] = {"id": str(snowflake()), "name": "move", "type": 1, "options": opts}
    with caplog.at_level(logging.WARNING):
        await world.feed(payload, answered=False)  # Discord is down: nobody can be answered
    assert (await world.game()).ply == 1
    assert "could not post for game" in caplog.text and "could not tell user" in caplog.text
    shown = await world.command(bob, "board")  # Discord is back: the board can be shown
    assert shown.public[0].pings == {bob.id}


# ----- an exception nobody planned for, in every button and in a command -----------------------


BUTTON_FAILS = {
    views.AcceptButton: "accept",
    views.DeclineButton: "view",
    views.RerollButton: "act",
    views.DrawButton: "offer_draw",
    views.AcceptDrawButton: "accept_draw",
    views.DeclineDrawButton: "decline_draw",
    views.ResignButton: "view",
    views.ConfirmResignButton: "resign",
    views.FlipButton: "board",
    views.RematchButton: "view",
    views.TakebackButton: "request_takeback",
    views.AcceptTakebackButton: "accept_takeback",
    views.DeclineTakebackButton: "decline_takeback",
    views.AnalyseButton: "analyse",
}


def test_every_button_type_is_covered() -> None:
    # The help's page buttons call no service: their failure is the page itself, below.
    assert set(BUTTON_FAILS) | {HelpPageButton} == set(views.DYNAMIC_ITEMS)


async def test_an_injected_exception_in_a_help_page_button(
    world: World, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    alice = world.user("alice")
    shown = await world.command(alice, "help")
    message = shown.private[0]

    def broken(*_: Any, **__: Any) -> Any:
        raise RuntimeError("injected failure")

    monkeypatch.setattr(help_module, "help_pages", broken)
    with caplog.at_level(logging.ERROR):
        pressed = await world.press(alice, message, "Next")
    assert "Something went wrong on my side" in plain(pressed.only_private().text)
    assert "HelpPageButton" in caplog.text and "injected failure" in caplog.text


@pytest.mark.parametrize("cls", list(BUTTON_FAILS), ids=lambda c: c.__name__)
async def test_an_injected_exception_in_a_button(
    world: World, caplog: pytest.LogCaptureFixture, cls: type[Any]
) -> None:
    alice, bob = world.user("alice"), world.user("bob")
    view, accepted = await start_game(world, alice, bob)
    args = (view.id, view.ply) if cls is views.RerollButton else (view.id,)
    if cls is views.FlipButton:
        args = (view.id, "white")
    button = cls(*args)
    board = accepted.public[0]
    # the board as the bot posted it, carrying this button (as if it had been offered)
    message = world.discord.messages[board.id]
    original = message.payload["components"]
    message.payload["components"] = [{"type": 1, "components": [button.item.to_component_dict()]}]

    async def broken(*_: Any, **__: Any) -> Any:
        raise RuntimeError("injected failure")

    setattr(world.service, BUTTON_FAILS[cls], broken)
    with caplog.at_level(logging.ERROR):
        pressed = await world.press(alice, message, button.item.label)
    text = plain(pressed.only_private().text)
    assert "Something went wrong on my side" in text
    assert f"game {view.id}" in caplog.text and "injected failure" in caplog.text
    assert cls.__name__ in caplog.text
    delattr(world.service, BUTTON_FAILS[cls])
    message.payload["components"] = original
    assert (await world.game()).status == "active"  # nothing happened to the game


async def test_an_injected_exception_after_a_slow_defer_fills_the_spinner(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    world = await World.open(tmp_path, defer_after=0.05)
    try:
        alice, bob = world.user("alice"), world.user("bob")
        view, _ = await start_game(world, alice, bob)
        legal = await world.service.legal_moves(game_id=view.id)

        async def broken(**_: Any) -> Any:
            await asyncio.sleep(0.2)  # slow enough to be deferred first
            raise RuntimeError("injected after the defer")

        world.service.act = broken  # type: ignore[method-assign]
        with caplog.at_level(logging.ERROR):
            played = await world.command(alice, "move", notation=legal[0])
        assert played.requests[0].callback_type == 5
        answer = played.only_private()
        assert answer.how == "deferred-filled" and "Something went wrong" in answer.text
        assert f"game {view.id}" in caplog.text
    finally:
        await world.close()


async def test_an_injected_exception_in_a_command(
    world: World, caplog: pytest.LogCaptureFixture
) -> None:
    alice, bob = world.user("alice"), world.user("bob")
    view, _ = await start_game(world, alice, bob)

    async def broken(**_: Any) -> Any:
        raise RuntimeError("injected in /move")

    world.service.act = broken  # type: ignore[method-assign]
    with caplog.at_level(logging.ERROR):
        refused = await world.command(alice, "move", notation="e4")
    assert "Something went wrong on my side" in plain(refused.only_private().text)
    assert "/move" in caplog.text and f"game {view.id}" in caplog.text
