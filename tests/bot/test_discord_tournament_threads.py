"""A round's threads and the channel's hourly thread budget (issue 30), through the
payload harness: a round with more games than ``/settings threads_per_hour`` allows opens
every game in its own thread at once (a moderator started the tournament; its games open
together), and those threads count in the budget, so a player's own challenge in that
channel must then wait for the hour, while another channel keeps its own allowance."""

from __future__ import annotations

import sys
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))  # the harness lives beside this file
from harness import World, latest_board  # noqa: E402

from bot.service import ManualClock, Scheduler  # noqa: E402

START = datetime(2030, 1, 1, 12, 0, tzinfo=UTC)
THREADS = "POST /channels/{channel_id}/threads"


def thread_requests(ex: object) -> list[object]:
    return [r for r in ex.bot_requests if r.route == THREADS]  # type: ignore[attr-defined]


async def test_a_round_opens_all_its_threads_and_they_count(tmp_path: Path) -> None:
    clock = ManualClock(START)
    world = await World.open(tmp_path, clock=clock)
    scheduler = Scheduler(world.service)
    try:
        admin = world.user("admin", admin=True)
        mod = world.user("mod", moderator=True)
        people = [world.user(f"p{n}") for n in range(1, 7)]
        ex = await world.command(admin, "settings", threads_per_hour=2)
        assert "2" in ex.text
        await world.command(
            mod, "tournament create", variant="kings_guard", format="swiss",
            rounds=3, days=1, rated=False, starts="1h",
        )  # fmt: skip
        for person in people:
            await world.command(person, "tournament join")

        # Round 1: three games, all in threads of their own, though the budget is two.
        clock.advance(hours=1, minutes=1)
        await scheduler.run_once()
        await world.deliver()
        pairs = await world.service.tournaments.pairings(guild_id=world.guild_id)
        assert len(pairs.boards) == 3 and len(world.threads()) == 3
        for b in pairs.boards:
            assert b.location_id in world.discord.threads
            assert latest_board(world, b.game_id).channel_id == b.location_id

        # The round's threads used up the hour: a challenge in a new thread here waits.
        guest = world.user("guest")
        refused = await world.command(guest, "play", variant="kings_guard", thread=True)
        text = refused.only_private().text
        assert "2 new game threads in the last hour" in text and "minutes" in text
        assert thread_requests(refused) == [] and len(world.threads()) == 3
        elsewhere = await world.command(
            guest, "play", channel="lobby", variant="kings_guard", thread=True
        )
        assert thread_requests(elsewhere) and len(world.threads()) == 4
    finally:
        await world.close()


async def open_round(world: World, clock: ManualClock, players: int) -> None:
    mod = world.user("mod", moderator=True)
    await world.command(
        mod, "tournament create", variant="kings_guard", format="swiss",
        rounds=2, days=1, rated=False, starts="1h",
    )  # fmt: skip
    for n in range(1, players + 1):
        await world.command(world.user(f"p{n}"), "tournament join")
    clock.advance(hours=1, minutes=1)
    await Scheduler(world.service).run_once()
    await world.deliver()


async def test_a_refused_thread_leaves_its_game_in_the_channel(tmp_path: Path) -> None:
    clock = ManualClock(START)
    world = await World.open(tmp_path, clock=clock)
    try:
        world.discord.fail(THREADS, 403, code=50013, message="Missing Permissions", times=1)
        await open_round(world, clock, 4)
        pairs = await world.service.tournaments.pairings(guild_id=world.guild_id)
        here = [b for b in pairs.boards if b.location_id == world.chess]
        threaded = [b for b in pairs.boards if b.location_id in world.discord.threads]
        assert len(here) == 1 and len(threaded) == 1 and len(world.threads()) == 1
        (b,) = here
        board = latest_board(world, b.game_id)
        assert board.channel_id == world.chess and {b.white_id, b.black_id} <= board.pings
        assert "so it is played here" in board.content and "lack a permission" in board.content
        # the game is played there like any game of the channel
        by_id = {p.id: p for p in world.people.values()}
        ex = await world.command(by_id[b.white_id], "resign")
        assert "resign" in ex.text.lower()
        game = await world.service.repo.get_game(b.game_id)
        assert game is not None and game.status == "finished" and game.result == "0-1"
        assert await world.service.post_failures([x.game_id for x in pairs.boards]) == {}
    finally:
        await world.close()


async def test_when_the_channel_is_taken_too_a_moderator_can_move_the_game(
    tmp_path: Path,
) -> None:
    clock = ManualClock(START)
    world = await World.open(tmp_path, clock=clock)
    try:
        world.discord.fail(THREADS, 403, code=50013, message="Missing Permissions")
        await open_round(world, clock, 4)
        pairs = await world.service.tournaments.pairings(guild_id=world.guild_id)
        assert world.threads() == []
        here = [b for b in pairs.boards if b.location_id == world.chess]
        waiting = [b for b in pairs.boards if b.location_id is None]
        assert len(here) == 1 and len(waiting) == 1
        (w,) = waiting
        game = await world.service.repo.get_game(w.game_id)
        assert game is not None and game.location_id < 0
        placeholder = game.location_id
        failures = await world.service.post_failures([w.game_id])
        assert "the tournament's channel already has a game" in failures[w.game_id].reason
        # not lost: /games says why, a moderator moves it, and its board follows there
        mod = world.user("mod")
        listed = await world.command(mod, "games")
        assert "cannot post in" in listed.text and "already has a game" in listed.text
        assert f"/{placeholder}" not in listed.text  # no link to a place that is none
        ex = await world.command(mod, "relocate", to="lobby", game=w.game_id)
        assert "moved" in ex.text.lower()
        await world.deliver()
        board = latest_board(world, w.game_id)
        assert board.channel_id == world.channels["lobby"]
        lobby = world.messages_in(world.channels["lobby"])
        assert "round 1, board" in lobby[0].text and lobby[0].pings == {w.white_id, w.black_id}
        assert "A moderator moved game" in lobby[-1].text
    finally:
        await world.close()
