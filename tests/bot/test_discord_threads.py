"""Threads through raw payloads: a second game gets a thread that lives seven days; the
right kind of thread for announcement channels and forums; none in voice-channel chats;
a per-channel limit; archived when the game is over, reopened when the bot posts there;
old boards lose their buttons, even long after, even after a restart."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # the harness lives beside this file
from harness import World, assert_no_orphans, latest_board, start_game  # noqa: E402

from bot.discord.app import Settings  # noqa: E402

THREADS = "POST /channels/{channel_id}/threads"


@pytest.fixture
async def world(tmp_path: Path) -> Any:
    world = await World.open(tmp_path)
    yield world
    await world.close()


def thread_requests(exchange: Any) -> list[Any]:
    return [r for r in exchange.requests if r.route == THREADS]


async def test_a_second_game_gets_a_thread_that_lives_seven_days(world: World) -> None:
    alice, bob, carol, dave = (world.user(n) for n in ("alice", "bob", "carol", "dave"))
    await start_game(world, alice, bob)
    made = await world.command(carol, "play", variant="guardener", opponent=dave)
    (request,) = thread_requests(made)
    assert request.body is not None
    assert request.body["auto_archive_duration"] == 10080 and request.body["type"] == 11
    assert "Carol vs Dave" in request.body["name"]
    (thread,) = world.threads()
    thread_id = int(thread["id"])
    challenge, note = made.created
    assert challenge.channel_id == thread_id and challenge.how == "channel"
    assert challenge.pings == {dave.id} and "Accept" in challenge.buttons()
    assert note.channel_id == world.chess and note.pings == set() and not note.ephemeral
    assert f"<#{thread_id}>" in note.text and "already has game 1" in note.text
    view = await world.game(thread_id)
    assert view.status == "challenge" and view.guild_id == world.guild_id
    # the game goes on in the thread, with pings
    accepted = await world.press(dave, challenge, "Accept")
    view = await world.game(thread_id)
    assert accepted.public[0].channel_id == thread_id
    assert accepted.public[0].pings == {view.white_id}
    await assert_no_orphans(world)


async def test_announcement_channels_get_announcement_threads(world: World) -> None:
    alice, bob = world.user("alice"), world.user("bob")
    made = await world.command(
        alice, "play", channel="news", variant="kings_guard", opponent=bob, thread=True
    )
    (request,) = thread_requests(made)
    assert request.body is not None and request.body["type"] == 10
    (thread,) = world.threads()
    assert thread["type"] == 10
    assert (await world.game(int(thread["id"]))).status == "challenge"


async def test_from_a_busy_forum_post_a_new_post(world: World) -> None:
    alice, bob, carol, dave = (world.user(n) for n in ("alice", "bob", "carol", "dave"))
    post = world.user_thread("forum", "Chess here", alice)
    await start_game(world, alice, bob, channel=post)  # the first game lives in the post itself
    made = await world.command(carol, "play", channel=post, variant="tquarchess", opponent=dave)
    (request,) = thread_requests(made)
    assert request.path == f"/channels/{world.channels['forum']}/threads"
    assert request.body is not None and request.body["message"]["content"]  # a post's first message
    new_post = next(int(t["id"]) for t in world.threads() if int(t["id"]) != post)
    assert (await world.game(new_post)).status == "challenge"
    challenge = next(m for m in made.created if "Accept" in m.buttons())
    assert challenge.channel_id == new_post and challenge.pings == {dave.id}


async def test_voice_channel_chats_have_no_threads(world: World) -> None:
    alice, bob, carol = world.user("alice"), world.user("bob"), world.user("carol")
    view, accepted = await start_game(world, alice, bob, channel="voice")
    assert accepted.public[0].channel_id == world.channels["voice"]
    refused = await world.command(carol, "play", channel="voice", variant="kings_guard")
    text = refused.only_private().text
    assert "voice-channel chats cannot have threads" in text and f"game {view.id}" in text
    asked = await world.command(carol, "play", channel="voice", variant="kings_guard", thread=True)
    assert "cannot have threads" in asked.only_private().text
    assert world.threads() == [] and refused.bot_requests == []


async def test_new_threads_per_channel_are_limited(tmp_path: Path) -> None:
    world = await World.open(tmp_path, settings=Settings(threads_per_hour=2))
    try:
        people = [world.user(f"p{n}") for n in range(3)]
        for person in people[:2]:
            made = await world.command(person, "play", variant="kings_guard", thread=True)
            assert thread_requests(made)
        refused = await world.command(people[2], "play", variant="kings_guard", thread=True)
        text = refused.only_private().text
        assert "2 new game threads in the last hour" in text and "minutes" in text
        assert thread_requests(refused) == [] and len(world.threads()) == 2
        assert len(await world.service.list_games(statuses=("challenge",))) == 2
        # another channel has its own allowance
        elsewhere = await world.command(
            people[2], "play", channel="lobby", variant="kings_guard", thread=True
        )
        assert thread_requests(elsewhere)
    finally:
        await world.close()


async def test_the_thread_is_archived_at_the_end_and_reopened_for_a_rematch(world: World) -> None:
    alice, bob = world.user("alice"), world.user("bob")
    made = await world.command(
        alice, "play", variant="kings_guard", opponent=bob, colour="white", thread=True
    )
    thread_id = int(world.threads()[0]["id"])
    challenge = next(m for m in made.created if "Accept" in m.buttons())
    await world.press(bob, challenge, "Accept")
    resigned = await world.command(bob, "resign", channel=thread_id)
    (final,) = resigned.public
    archive = [r for r in resigned.bot_requests if r.route == "PATCH /channels/{channel_id}"]
    assert [r.body for r in archive] == [{"archived": True}]
    assert resigned.requests.index(archive[0]) > resigned.requests.index(resigned.requests[0])
    assert world.discord.archived(thread_id)
    assert len(resigned.bot_requests) <= 2  # the old board's buttons, the archive
    rematch = await world.press(alice, final, "Rematch")
    first = rematch.requests[0]
    assert first.route == "PATCH /channels/{channel_id}" and first.body == {"archived": False}
    assert not world.discord.archived(thread_id)
    (challenge,) = rematch.public
    assert challenge.channel_id == thread_id and challenge.pings == {bob.id}


async def test_a_members_thread_is_not_archived_by_the_bot(world: World) -> None:
    alice, bob = world.user("alice"), world.user("bob")
    post = world.user_thread("forum", "Our game", alice)
    await start_game(world, alice, bob, channel=post)
    resigned = await world.command(alice, "resign", channel=post)
    assert resigned.public and not world.discord.archived(post)
    assert all(r.route != "PATCH /channels/{channel_id}" for r in resigned.requests)


async def test_old_boards_lose_their_buttons_even_after_fifteen_minutes(world: World) -> None:
    alice, bob = world.user("alice"), world.user("bob")
    view, accepted = await start_game(world, alice, bob)
    (board,) = accepted.public
    world.advance(20 * 60)  # the board's interaction token has expired
    legal = await world.service.legal_moves(game_id=view.id)
    played = await world.command(alice, "move", notation=legal[0])
    (retire,) = played.bot_requests
    assert retire.route == "PATCH /channels/{channel_id}/messages/{message_id}"
    assert retire.status == 200 and not world.discord.messages[board.id].buttons()
    assert latest_board(world, view.id).id == played.public[0].id
