"""A whole Swiss through the payload harness (issue 30): six players, three rounds,
driven by the deadline scheduler on the service's injected clock: registration and its
refusals, each round announced and its games opened in threads of their own (already
accepted, the first board pinging both players), a game lost on time, a withdrawal and
the byes it brings, the standings with their image, and the final post naming the winner."""

from __future__ import annotations

import sys
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))  # the harness lives beside this file
from harness import World, assert_no_orphans, latest_board  # noqa: E402

from bot.service import ManualClock, Scheduler  # noqa: E402

START = datetime(2030, 1, 1, 12, 0, tzinfo=UTC)


async def tick(world: World, scheduler: Scheduler) -> None:
    """One pass of the scheduler, then the posts it owes."""
    await scheduler.run_once()
    await world.deliver()


async def round_boards(world: World, number: int) -> list:  # type: ignore[type-arg]
    pairs = await world.service.tournaments.pairings(guild_id=world.guild_id, round_no=number)
    return list(pairs.boards)


async def test_a_whole_swiss_runs_in_its_threads(tmp_path: Path) -> None:
    clock = ManualClock(START)
    world = await World.open(tmp_path, clock=clock)
    scheduler = Scheduler(world.service)
    try:
        mod = world.user("mod", moderator=True)
        people = [world.user(f"p{n}") for n in range(1, 7)]
        by_id = {p.id: p for p in people}

        # Registration, and plain refusals that change nothing.
        ex = await world.command(
            people[0], "tournament create", variant="kings_guard", format="swiss",
            rounds=3, days=1, rated=True, starts="1h",
        )  # fmt: skip
        assert "Only moderators" in ex.only_private().text
        ex = await world.command(
            mod, "tournament create", variant="kings_guard", format="swiss",
            rounds=3, days=1, rated=True, starts="2029-12-31 09:00",
        )  # fmt: skip
        assert "has passed" in ex.only_private().text
        ex = await world.command(people[0], "tournament join")
        assert "no tournament on this server" in ex.only_private().text
        ex = await world.command(
            mod, "tournament create", variant="kings_guard", format="swiss",
            rounds=3, days=1, rated=True, starts="1h", title="Winter Swiss",
        )  # fmt: skip
        assert len(ex.public) == 1 and "Tournament 1 (Winter Swiss) is open" in ex.text
        for person in people:
            ex = await world.command(person, "tournament join")
            assert "You have joined tournament 1" in ex.only_private().text
        ex = await world.command(people[0], "tournament join")
        assert "already joined" in ex.only_private().text
        ex = await world.command(people[1], "tournament withdraw")
        assert "has not started: leave it instead" in ex.only_private().text
        ex = await world.command(people[1], "tournament info")
        assert "Players (6)" in ex.text and "Registration open" in ex.text
        ex = await world.command(people[1], "tournament pairings")
        assert "has no round paired yet" in ex.only_private().text

        # The start: round 1 announced, its three games open in threads of their own.
        clock.advance(hours=1, minutes=1)
        await tick(world, scheduler)
        announced = [m for m in world.messages_in(world.chess) if "Round 1 is paired" in m.text]
        assert len(announced) == 1 and announced[0].pings == {p.id for p in people}
        assert len(world.threads()) == 3
        boards = await round_boards(world, 1)
        for b in boards:
            assert b.location_id in world.discord.threads
            board = latest_board(world, b.game_id)
            assert board.channel_id == b.location_id  # the board lives in the game's thread
            assert {b.white_id, b.black_id} <= board.pings
            assert "round 1, board" in board.content
        await assert_no_orphans(world)
        ex = await world.command(people[0], "tournament leave")
        assert "can no longer leave it" in ex.only_private().text
        await tick(world, scheduler)  # nothing more to pair
        assert len(world.threads()) == 3

        # Round 1: a resignation, a draw, and a game nobody moves in (lost on time).
        b1, b2, b3 = boards
        await world.command(by_id[b1.black_id], "resign", channel=b1.location_id)
        await world.command(by_id[b2.white_id], "draw", channel=b2.location_id, action="offer")
        ex = await world.command(
            by_id[b2.black_id], "draw", channel=b2.location_id, action="accept"
        )
        assert "draw" in ex.text.lower()
        clock.advance(days=1, minutes=1)
        await tick(world, scheduler)
        timed_out = world.messages_in(b3.location_id)[-1]
        assert "ran out of time" in timed_out.text
        assert len(world.threads()) == 6  # round 2 opened by itself

        # A withdrawal: five players left, so round 3 has a bye.
        leaver = by_id[b1.black_id]
        ex = await world.command(leaver, "tournament withdraw")
        assert "withdrawn from tournament 1" in ex.only_private().text
        for b in await round_boards(world, 2):
            await world.command(by_id[b.white_id], "resign", channel=b.location_id)
        await tick(world, scheduler)
        pairs = await world.service.tournaments.pairings(guild_id=world.guild_id)
        assert pairs.round_no == 3 and pairs.bye_id is not None and len(pairs.boards) == 2
        assert leaver.id not in {p for b in pairs.boards for p in (b.white_id, b.black_id)}
        round3 = [m for m in world.messages_in(world.chess) if "Round 3 is paired" in m.text]
        assert len(round3) == 1 and "Bye:" in round3[0].text
        ex = await world.command(people[2], "tournament standings")
        assert ex.public[0].files == ["standings.png"] and "after round 2" in ex.text

        # Round 3, and the end: the final standings posted once, with the winner.
        for b in pairs.boards:
            await world.command(by_id[b.black_id], "resign", channel=b.location_id)
        await tick(world, scheduler)
        await tick(world, scheduler)
        final = [m for m in world.messages_in(world.chess) if "is over" in m.text]
        assert len(final) == 1 and final[0].files == ["standings.png"]
        row = await world.service.tournaments.tournament(tournament_id=1)
        assert row.status == "finished" and row.winner_id is not None
        winner = await world.service.repo.tournament_player(1, row.winner_id)
        assert winner is not None and winner.name  # the name they joined with
        assert f"{winner.name} wins with" in final[0].text
        assert final[0].content.startswith(f"Congratulations <@{row.winner_id}>")
        assert final[0].pings == {row.winner_id}
        ex = await world.command(people[3], "tournament pairings", round=1)
        assert "1-0" in ex.text and "on time" in ex.text
        assert await world.service.tournaments.check(tournament_id=1) == []
        ex = await world.command(mod, "tournament cancel")
        assert "no tournament on this server now" in ex.only_private().text
    finally:
        await world.close()
