"""Issue 24, item 3, through raw payloads (the harness): creating a game in a new thread is
one unit; a draw offered to the computer is answered in one private reply; no
``allowed_mentions`` (and no content mention) names a non-user; game commands and buttons
refuse DMs at run time."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # the harness lives beside this file
from discord_fake import EPHEMERAL, TIMEOUT  # noqa: E402
from harness import World, latest_board, start_game  # noqa: E402

import bot.service.computer_draw as computer_draw  # noqa: E402
from bot.discord.answers import OUTSIDE_SERVER  # noqa: E402
from bot.service import COMPUTER_ID, RESERVED_IDS  # noqa: E402

MESSAGES = "POST /channels/{channel_id}/messages"
ANY_MENTION = re.compile(r"<@!?([0-9]+)>")
LIVE = ("challenge", "active")


async def open_world(tmp_path: Path) -> World:
    world = await World.open(tmp_path)
    world.service.computer_budget_s = 0.05  # level 1 finishes its iteration at once
    return world


@pytest.fixture
async def world(tmp_path: Path) -> Any:
    world = await open_world(tmp_path)
    yield world
    await world.close()


def non_user_mentions(world: World) -> list[str]:
    """Every request whose allowed_mentions or content names an id that is not a person."""
    found = []
    for request in world.discord.requests:
        message = request.message
        allowed = message.get("allowed_mentions") or {}
        users = {int(u) for u in allowed.get("users") or []}
        texts = [str(message.get("content") or "")]
        for embed in message.get("embeds") or []:
            texts.append(str(embed.get("description") or ""))
            texts += [str(f.get("value") or "") for f in embed.get("fields") or []]
        mentioned = {int(m) for text in texts for m in ANY_MENTION.findall(text)}
        bad = (users | mentioned) & RESERVED_IDS
        if bad:
            found.append(f"{request.summary()}: names {sorted(bad)}")
    return found


def one_sentence(text: str) -> bool:
    return text.endswith(".") and ". " not in text and "\n" not in text


# ----- 1. a game in a new thread is one unit -----------------------------------------------

FAILURES = [403, 404, 500, 503, TIMEOUT]


@pytest.mark.parametrize("kind", ["challenge", "computer"])
@pytest.mark.parametrize("status", FAILURES, ids=["403", "404", "500", "503", "timeout"])
async def test_a_refused_first_post_in_a_new_thread_leaves_nothing(
    world: World, kind: str, status: int
) -> None:
    alice, bob = world.user("alice"), world.user("bob")
    attempts = count_computer_moves(world)
    world.discord.fail(MESSAGES, status)  # every channel message: a computer move would fail too
    options: dict[str, Any] = {"variant": "kings_guard", "thread": True}
    if kind == "computer":
        options.update(computer=1, colour="black")  # the computer is White: it would move first
    else:
        options.update(opponent=bob)
    refused = await world.command(alice, "play", **options)
    await world.bot.computer_runner.idle()
    text = refused.only_private().text
    assert is_private(refused), refused.summary()
    what = "the game" if kind == "computer" else "the challenge"
    assert text.startswith("I can't post in the new thread: ") and f"I withdrew {what}" in text
    assert one_sentence(text), text
    (thread,) = world.threads()  # the bot may not delete it here: it archives it
    assert thread["thread_metadata"]["archived"] and f"<#{thread['id']}>" in text
    # what is left: no live game, no open challenge, nothing in /games, no computer move
    live = await world.service.list_games(statuses=LIVE, limit=100)
    (game,) = await world.service.list_games(limit=100)
    posts = [
        r for r in world.discord.requests
        if r.route == MESSAGES and r.path == f"/channels/{thread['id']}/messages"
    ]  # fmt: skip
    moves = len(attempts)
    print(
        f"first post fails with {status or 'a timeout'} ({kind}): games left live {len(live)}, "
        f"computer moves attempted {moves}, posts tried in the thread {len(posts)}, "
        f"game {game.id} {game.status}"
    )
    assert live == () and moves == 0 and len(posts) == 1
    assert posts[0].status == status
    history = await world.service.history(game_id=game.id)
    if kind == "computer":
        assert game.status == "aborted"
        (entry,) = history.entries  # the computer never moved
        assert entry.kind == "abort" and entry.actor_id == alice.id
        assert entry.text.startswith("withdrawn: ")
    else:
        assert game.status == "cancelled" and history.entries == ()
    listed = await world.command(alice, "games")
    assert "No games or open challenges here" in listed.only_private().text
    await world.bot.computer_runner.idle()
    assert world.bot.computer_runner.moves == 0 and attempts == []


def count_computer_moves(world: World) -> list[int]:
    """The games the computer tried to move in (each call of ``computer_move``, played or
    not): the real method, counted."""
    attempts: list[int] = []
    real = world.service.computer_move

    async def counted(**kwargs: Any) -> Any:
        attempts.append(kwargs["game_id"])
        return await real(**kwargs)

    world.service.computer_move = counted  # type: ignore[method-assign]
    return attempts


def is_private(exchange: Any) -> bool:
    return all(m.ephemeral for m in exchange.created) and bool(exchange.created)


async def test_with_manage_threads_the_thread_is_deleted(world: World) -> None:
    alice = world.user("alice")
    world.grant_bot(manage_threads=True)
    world.discord.fail(MESSAGES, 403, times=1)
    refused = await world.command(
        alice, "play", variant="guardener", computer=2, colour="black", thread=True
    )
    text = refused.only_private().text
    assert "I withdrew the game, and I deleted the thread" in text and one_sentence(text)
    assert world.threads() == []
    assert await world.service.list_games(statuses=LIVE) == ()
    assert world.bot.computer_runner.moves == 0


async def test_a_posted_computer_game_in_a_thread_is_played(world: World) -> None:
    alice, bob = world.user("alice"), world.user("bob")
    await start_game(world, alice, bob)  # the channel is busy: the next game gets a thread
    made = await world.command(alice, "play", variant="kings_guard", computer=1, colour="black")
    await world.bot.computer_runner.idle()
    (thread,) = world.threads()
    game = await world.game(int(thread["id"]))
    assert game.computer == "white" and game.ply >= 1  # released after its first board
    assert latest_board(world, game.id).pings == {alice.id}
    assert "is in <#" in made.text


# ----- 2. a draw offered to the computer -----------------------------------------------------


async def computer_game(world: World) -> tuple[Any, Any]:
    alice = world.user("alice")
    await world.command(alice, "play", variant="kings_guard", computer=1, colour="white")
    await world.bot.computer_runner.idle()
    game = await world.game()
    return alice, game


async def test_the_computer_declines_a_draw_in_one_private_reply(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(computer_draw, "DRAW_ACCEPT_AT", -2.0)  # it declines whatever it sees
    alice, game = await computer_game(world)
    before = len(world.discord.messages)
    offered = await world.command(alice, "draw", action="offer")
    await world.bot.computer_runner.idle()
    reply = offered.only_private()
    assert reply.text.startswith("The computer declines your draw offer;")
    assert one_sentence(reply.text) and reply.files == [] and reply.buttons() == {}
    (callback,) = [r for r in offered.requests if r.callback_type == 4]
    assert callback.flags & EPHEMERAL
    assert offered.bot_requests == []  # no board, no edit of the old one
    assert len(world.discord.messages) == before + 1  # the reply only: no second board
    view = await world.service.view(game_id=game.id)
    assert view.status == "active" and view.draw_offer is None and view.turn == "white"
    history = await world.service.history(game_id=game.id)
    assert [(e.kind, e.actor_id) for e in history.entries[-2:]] == [
        ("draw_offer", alice.id),
        ("draw_decline", COMPUTER_ID),
    ]
    # the board still offers a draw to the player, never an answer meant for the machine
    assert "Offer draw" in latest_board(world, game.id).buttons()
    assert non_user_mentions(world) == []


async def test_the_computer_accepts_a_draw_privately_and_the_end_is_posted_once(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(computer_draw, "DRAW_ACCEPT_AT", 2.0)  # it accepts whatever it sees
    alice, game = await computer_game(world)
    board = latest_board(world, game.id)
    offered = await world.press(alice, board, "Offer draw")
    await world.bot.computer_runner.idle()
    reply, final = offered.created
    assert reply.ephemeral and reply.text.startswith("The computer accepts your draw offer:")
    assert reply.files == [] and one_sentence(reply.text)
    assert offered.public == [final]  # the end, once, as when a person accepts a draw
    assert "Rematch" in final.buttons() and "agreement" in final.text
    assert final.pings == set() and "the computer," not in final.content
    assert world.discord.messages[board.id].buttons() == {}  # the old board is retired
    view = await world.service.view(game_id=game.id)
    assert view.status == "finished" and view.result == "1/2-1/2"
    assert (await world.service.verify(game_id=game.id)).ok
    assert non_user_mentions(world) == []


async def test_an_offer_standing_for_the_computer_is_never_addressed_to_it(
    world: World,
) -> None:
    """An offer left standing (the console's path, or a runner that died): the board neither
    pings nor addresses the computer, and offers no buttons meant for it."""
    alice, game = await computer_game(world)
    await world.bot.computer_runner.stop()
    await world.service.offer_draw(user_id=alice.id, game_id=game.id)  # as the console does
    shown = await world.command(alice, "board")
    (board,) = shown.public
    assert "the computer," not in board.content and "Accept draw" not in board.buttons()
    assert "Decline draw" not in board.buttons() and board.pings == {alice.id}
    (request,) = [r for r in shown.requests if r.callback_type == 4]
    assert [int(u) for u in request.message["allowed_mentions"]["users"]] == [alice.id]
    assert non_user_mentions(world) == []


def test_pings_and_mentions_leave_out_non_users() -> None:
    from bot.discord import adapter

    person = 1_100_000_000_000_000_123
    allowed = adapter.pings([COMPUTER_ID, 1, 2, None, person]).to_dict()
    assert allowed["users"] == [person]
    assert adapter.pings([COMPUTER_ID, 1, 2]).to_dict().get("users", []) == []
    assert [adapter.mention(i) for i in (COMPUTER_ID, 1, 2)] == [
        "the computer",
        "player 1",
        "player 2",
    ]


# ----- 3. no game is made or changed from a DM ------------------------------------------------

DM_COMMANDS: list[tuple[str, dict[str, Any]]] = [
    ("play", {"variant": "kings_guard"}),
    ("play", {"variant": "kings_guard", "computer": 1}),
    ("accept", {}),  # the game option is filled in below: bob's open challenge
    ("move", {"notation": "e4"}),
    ("board", {}),
    ("resign", {}),
    ("draw", {"action": "offer"}),
    ("pass", {}),
    ("reroll", {}),
    ("abort", {}),
    ("extend", {"days": 1}),
    ("relocate", {"to": "lobby"}),
]


async def snapshot(world: World) -> list[tuple[Any, ...]]:
    games = await world.service.list_games(limit=100, count_moves=True)
    return [(g.id, g.status, g.moves) for g in games]


async def test_game_commands_and_buttons_refuse_dms(world: World) -> None:
    alice, bob, carol = world.user("alice"), world.user("bob"), world.user("carol")
    mod = world.user("mod", moderator=True)
    view, accepted = await start_game(world, alice, bob)  # a live game with Alice
    board = accepted.public[0]
    made = await world.command(bob, "play", channel="lobby", variant="guardener")  # open
    challenge = next(m for m in made.created if "Accept" in m.buttons())
    for _ in range(2):  # Carol has 2 open challenges of her 3
        await world.command(carol, "play", variant="kings_guard", opponent=bob, thread=True)
    open_before = await world.service.list_games(player_id=carol.id, statuses=("challenge",))
    assert len(open_before) == 2
    before = await snapshot(world)
    sent = 0
    for person in (alice, carol, mod):
        for name, options in DM_COMMANDS:
            if name == "accept":
                options = {"game": (await world.game("lobby")).id}
            refused = await world.command(person, name, channel=None, stale_client=True, **options)
            reply = refused.only_private()
            assert reply.text == OUTSIDE_SERVER, f"/{name}: {reply.text!r}"
            assert refused.bot_requests == [] and refused.pings == set()
            sent += 1
    for person, message, label in (
        (alice, board, "Resign"),
        (alice, board, "Offer draw"),
        (alice, board, "Flip"),
        (carol, challenge, "Accept"),
        (bob, challenge, "Decline"),
    ):
        pressed = await world.press_in_dm(person, message, label)
        assert pressed.only_private().text == OUTSIDE_SERVER, label
        sent += 1
    assert await snapshot(world) == before  # nothing stored, nothing changed
    after = await world.service.list_games(player_id=carol.id, statuses=("challenge",))
    assert [g.id for g in after] == [g.id for g in open_before]
    print(f"{sent} DM payloads refused; games unchanged: {len(before)}")
    # the same commands still work in the server
    assert (await world.command(carol, "play", variant="kings_guard", thread=True)).public
    assert view.id == (await world.game()).id
