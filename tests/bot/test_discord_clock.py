"""Correspondence time on Discord, through raw payloads and a manual clock (issue 13).

/play days, the clock in every embed as a Discord timestamp, /games and /history, /extend;
and what the deadline scheduler sends with the bot's token: a reminder that pings the
player to act (and nobody else), the end of a game on time (a new message pinging both
players, the old board's buttons off, the thread archived), an expired challenge edited
in place. Every request is checked against Discord's limits, as in every harness test."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # the harness lives beside this file
from discord_fake import Request, StoredMessage  # noqa: E402
from harness import World, game_of, latest_board, start_game  # noqa: E402

from bot.service import DeadlineEvent, ManualClock  # noqa: E402

START = datetime(2030, 1, 1, 12, 0, tzinfo=UTC)
DAY = timedelta(days=1)
POST = "POST /channels/{channel_id}/messages"
EDIT = "PATCH /channels/{channel_id}/messages/{message_id}"
CHANNEL = "PATCH /channels/{channel_id}"


def ts(when: datetime, style: str = "R") -> str:
    return f"<t:{int(when.timestamp())}:{style}>"


def field(message: StoredMessage, name: str) -> str:
    (embed,) = message.embeds
    return next(f["value"] for f in embed.get("fields") or [] if f["name"] == name)


@pytest.fixture
async def world(tmp_path: Path) -> AsyncIterator[World]:
    world = await World.open(tmp_path, clock=ManualClock(START))
    yield world
    await world.close()


def clock(world: World) -> ManualClock:
    found = world.service.clock
    assert isinstance(found, ManualClock)
    return found


async def tick(
    world: World,
) -> tuple[tuple[DeadlineEvent, ...], list[Request], list[StoredMessage]]:
    """One pass of the bot's own scheduler: what it did, the requests it sent, the new
    messages. Every request must be within Discord's limits."""
    first = len(world.discord.requests)
    before = set(world.discord.messages)
    events = await world.bot.scheduler.run_once()
    await world.deliver()  # the posts the events owe (issue 24: outbox rows)
    requests = world.discord.requests[first:]
    problems = [f"{r.summary()}: {p}" for r in requests for p in r.problems]
    assert not problems, "\n".join(problems)
    assert all(r.edge == "bot" for r in requests)  # no interaction is involved
    new = [m for m in world.discord.messages.values() if m.id not in before]
    return events, requests, new


async def test_play_takes_days_and_every_embed_counts_down(world: World) -> None:
    alice, bob = world.user("alice"), world.user("bob")
    made = await world.command(alice, "play", variant="kings_guard", opponent=bob)
    (challenge,) = made.public
    assert field(challenge, "Time") == f"3 days per move\nthe challenge expires {ts(START + DAY)}"
    accepted = await world.press(bob, challenge, "Accept")
    (board,) = accepted.public
    deadline = START + 3 * DAY
    assert field(board, "Time") == (
        f"white must act {ts(deadline)} ({ts(deadline, 'f')})\n3 days per move"
    )
    view = await world.game()
    assert view.time_days == 3 and view.deadline == deadline

    untimed = await world.command(alice, "play", channel="lobby", variant="guardener", days=0)
    (open_challenge,) = untimed.public
    assert field(open_challenge, "Time").startswith("no time limit\nthe challenge expires")
    started = await world.press(bob, open_challenge, "Accept")
    assert field(started.public[0], "Time") == "no time limit"
    assert (await world.game("lobby")).deadline is None

    week = await world.command(alice, "play", channel="news", variant="guardener", days=7)
    assert "7 days per move" in field(week.public[0], "Time")


async def test_games_and_history_show_the_time_left(world: World) -> None:
    alice, bob, eve = world.user("alice"), world.user("bob"), world.user("eve")
    view, _ = await start_game(world, alice, bob)
    await world.command(alice, "play", channel="lobby", variant="guardener", days=1)
    listed = (await world.command(eve, "games")).only_private()
    assert f"white must act {ts(START + 3 * DAY)}" in listed.text
    assert f"expires {ts(START + DAY)}" in listed.text
    history = await world.command(eve, "history", game=view.id)
    (posted,) = history.public
    assert ts(START + 3 * DAY) in field(posted, "Time")


async def test_a_reminder_pings_only_the_player_to_act(world: World) -> None:
    alice, bob = world.user("alice"), world.user("bob")
    view, accepted = await start_game(world, alice, bob)
    board = accepted.public[0]
    remind = START + 3 * DAY - timedelta(hours=18)  # 3 days: a quarter (18 h) is under 24 h
    clock(world).set(remind - timedelta(seconds=1))
    assert (await tick(world))[0] == ()
    clock(world).set(remind)
    events, requests, new = await tick(world)
    assert [e.kind for e in events] == ["reminder"]
    assert [r.route for r in requests] == [POST]
    (reminder,) = new
    assert reminder.channel_id == world.chess and reminder.pings == {alice.id}
    assert reminder.content.startswith(f"{alice.mention}, your move in game {view.id} (white)")
    assert ts(START + 3 * DAY) in reminder.content and ts(START + 3 * DAY, "f") in reminder.content
    link = f"https://discord.com/channels/{world.guild_id}/{world.chess}/{board.id}"
    assert link in reminder.content
    assert reminder.buttons() == {}  # the board keeps its buttons; nothing was edited
    assert latest_board(world, view.id).id == board.id
    assert (await tick(world))[1] == []  # once per turn
    await world.restart()  # and not again after a restart
    assert (await tick(world))[1] == []


async def test_a_timeout_posts_the_end_and_takes_the_buttons_off(world: World) -> None:
    alice, bob, eve = world.user("alice"), world.user("bob"), world.user("eve")
    view, _ = await start_game(world, alice, bob)
    moved = await world.command(alice, "move", notation="e3")
    old_board = moved.public[0]
    clock(world).set(START + 3 * DAY)
    events, requests, new = await tick(world)
    assert [e.kind for e in events] == ["timeout"]
    assert [r.route for r in requests] == [POST, EDIT]
    (final,) = new
    assert final.channel_id == world.chess and final.pings == {alice.id, bob.id}
    assert f"game {view.id} is over, 1-0 · white wins (timeout)" in final.content
    assert "black ran out of time: white wins (timeout), 1-0." in final.text
    assert "board.png" in final.files and "Dice seed, revealed" in final.text
    assert set(final.buttons()) == {"Rematch", "Analyse", "Flip"}  # a rated game
    edit = requests[1]
    assert edit.path.endswith(f"/messages/{old_board.id}")
    assert edit.body is not None and edit.body["components"] == []
    assert [m.id for m in world.with_buttons()] == [final.id]
    assert (await world.service.board_message(game_id=view.id)) == (world.chess, final.id)
    verified = await world.command(eve, "verify", game=view.id)
    assert "all rolls check out" in verified.text
    rematch = await world.press(alice, final, "Rematch")  # the same time control
    assert "3 days per move" in rematch.text


async def test_a_late_button_press_is_refused_privately(world: World) -> None:
    alice, bob = world.user("alice"), world.user("bob")
    view, accepted = await start_game(world, alice, bob)
    clock(world).set(START + 4 * DAY)  # the scheduler has not run yet
    pressed = await world.press(alice, accepted.public[0], "Offer draw")
    assert "white's time ran out" in pressed.only_private().text
    moved = await world.command(alice, "move", notation="e3")
    assert "time ran out" in moved.only_private().text
    events, _, new = await tick(world)
    assert events[0].game.status == "aborted"  # nobody had moved: no result
    (final,) = new
    assert final.pings == {alice.id, bob.id} and "aborted with no result" in final.content
    assert final.buttons() == {} and world.with_buttons() == []
    assert view.id == events[0].game.id


async def test_in_a_thread_the_end_archives_it_and_an_archived_thread_is_reopened(
    world: World,
) -> None:
    alice, bob = world.user("alice"), world.user("bob")
    made = await world.command(
        alice, "play", variant="tquarchess", opponent=bob, colour="white", thread=True
    )
    (thread,) = world.threads()
    thread_id = int(thread["id"])
    challenge = next(m for m in made.created if "Accept" in m.buttons())
    await world.press(bob, challenge, "Accept")
    await world.command(alice, "move", notation="e4", channel=thread_id)
    # seven quiet days later Discord has archived the thread (the bot's cache drops it)
    thread["thread_metadata"]["archived"] = True
    world.discord.dispatch("THREAD_UPDATE", dict(thread))
    clock(world).set(START + 3 * DAY - timedelta(hours=18))
    events, requests, new = await tick(world)
    assert [e.kind for e in events] == ["reminder"]
    assert [(r.route, r.status) for r in requests] == [(POST, 400), (CHANNEL, 200), (POST, 200)]
    assert requests[1].body == {"archived": False}
    (reminder,) = new
    assert reminder.channel_id == thread_id and reminder.pings == {bob.id}
    clock(world).set(START + 3 * DAY)
    events, requests, new = await tick(world)
    assert [e.game.winner for e in events] == ["white"]
    assert [r.route for r in requests] == [POST, EDIT, CHANNEL]
    assert requests[-1].body == {"archived": True}  # the bot made it: archived at the end
    assert world.discord.archived(thread_id)


async def test_an_expired_challenge_is_edited_and_its_buttons_stop(world: World) -> None:
    alice, bob = world.user("alice"), world.user("bob")
    made = await world.command(alice, "play", variant="stone_garden", opponent=bob)
    (challenge,) = made.public
    gid = game_of(challenge)
    clock(world).set(START + DAY)
    # pressed after the expiry, before the scheduler got to it: refused, privately
    late = await world.press(bob, challenge, "Accept")
    assert "the challenge expired" in late.only_private().text
    events, requests, new = await tick(world)
    assert [e.kind for e in events] == ["expired"] and new == []
    (edit,) = requests
    assert edit.route == EDIT and edit.path.endswith(f"/messages/{challenge.id}")
    assert edit.body is not None and edit.body["components"] == []
    stored = world.discord.messages[challenge.id]
    assert stored.buttons() == {} and stored.pings == {bob.id}  # an edit pings nobody anew
    assert stored.embeds[0]["title"] == f"Challenge expired · Stone Garden Chess · game {gid}"
    assert "nobody accepted it within 24 hours" in stored.text
    refused = await world.command(bob, "accept")
    assert refused.only_private()
    again = await world.command(alice, "play", variant="stone_garden", opponent=bob)
    assert again.public  # the channel is free for a new challenge


async def test_a_moderator_extends_the_clock(world: World) -> None:
    alice, bob = world.user("alice"), world.user("bob")
    mod = world.user("mod", moderator=True)
    view, _ = await start_game(world, alice, bob)
    refused = await world.command(bob, "extend", days=2)
    assert "Manage Messages" in refused.only_private().text
    extended = await world.command(mod, "extend", days=2, reason="holiday")
    (post,) = extended.public
    assert post.pings == {alice.id}  # the player whose clock it is
    deadline = START + 5 * DAY
    assert f"white must act {ts(deadline)}" in field(post, "Time")
    assert "added 2 days to white's clock (holiday)" in post.text
    history = await world.service.history(game_id=view.id)
    assert [(e.kind, e.actor_id) for e in history.entries] == [("extend", mod.id)]
    assert (await world.game()).deadline == deadline


async def test_a_playing_moderator_cannot_extend_their_own_clock(tmp_path: Path) -> None:
    world = await World.open(tmp_path, clock=ManualClock(START))
    try:
        mod, bob = world.user("mod", moderator=True), world.user("bob")
        await start_game(world, mod, bob)
        refused = await world.command(mod, "extend", days=1)
        assert "you play in this game" in refused.only_private().text.lower()
    finally:
        await world.close()


async def test_the_challenge_hours_come_from_the_environment(tmp_path: Path) -> None:
    from bot.discord.app import Settings, SettingsError

    assert Settings.from_env({}).challenge_hours == 24
    settings = Settings.from_env({"CHESSGARDEN_CHALLENGE_HOURS": "2"})
    assert settings.challenge_hours == 2
    with pytest.raises(SettingsError, match="CHESSGARDEN_CHALLENGE_HOURS"):
        Settings.from_env({"CHESSGARDEN_CHALLENGE_HOURS": "soon"})
    world = await World.open(tmp_path, clock=ManualClock(START), settings=settings)
    try:
        alice = world.user("alice")
        made = await world.command(alice, "play", variant="guardener")
        expires = START + timedelta(hours=2)
        assert f"the challenge expires {ts(expires)}" in field(made.public[0], "Time")
        clock(world).set(expires)
        events, _, _ = await tick(world)
        assert [e.kind for e in events] == ["expired"]
    finally:
        await world.close()
