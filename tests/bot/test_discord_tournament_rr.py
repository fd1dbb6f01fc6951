"""A whole round robin through the payload harness (issue 30): five players meeting once
(so each of the five rounds has a bye), and four meeting twice. Only the moderator's /tournament
create; the start comes at the start time, and every later round opens by itself on
the scheduler's injected clock. Every pair meets once, each player's colours are
balanced to within one, and the final post carries the crosstable image."""

from __future__ import annotations

import io
import itertools
import sys
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import pytest
from PIL import Image

sys.path.insert(0, str(Path(__file__).parent))  # the harness lives beside this file
from harness import World, assert_no_orphans, latest_board  # noqa: E402

from bot.i18n import Speech  # noqa: E402
from bot.service import ManualClock, Scheduler  # noqa: E402
from bot.service.tournament_views import standings_table  # noqa: E402
from renderers.tournament import render_standings  # noqa: E402

START = datetime(2030, 1, 1, 12, 0, tzinfo=UTC)


async def tick(world: World, scheduler: Scheduler) -> None:
    """One pass of the scheduler, then the posts it owes."""
    await scheduler.run_once()
    await world.deliver()


@pytest.mark.parametrize(("players", "double"), [(5, False), (4, True)])
async def test_a_whole_round_robin_runs_by_itself(
    tmp_path: Path, players: int, double: bool
) -> None:
    clock = ManualClock(START)
    world = await World.open(tmp_path, clock=clock)
    scheduler = Scheduler(world.service)
    try:
        mod = world.user("mod", moderator=True)
        people = [world.user(f"r{n}") for n in range(1, players + 1)]
        by_id = {p.id: p for p in people}
        ex = await world.command(
            mod, "tournament create", variant="kings_guard", format="round-robin",
            rounds=2 if double else 1, days=2, rated=False, starts="30m", title="Spring RR",
        )  # fmt: skip
        assert "Tournament 1 (Spring RR) is open" in ex.text
        for person in people:
            await world.command(person, "tournament join")

        clock.advance(minutes=31)
        met: Counter[frozenset[int]] = Counter()
        whites: Counter[int] = Counter()
        blacks: Counter[int] = Counter()
        byes: Counter[int] = Counter()
        meetings = 2 if double else 1
        rounds = (players - 1 if players % 2 == 0 else players) * meetings
        for number in range(1, rounds + 1):
            await tick(world, scheduler)
            pairs = await world.service.tournaments.pairings(guild_id=world.guild_id)
            assert pairs.round_no == number and len(pairs.boards) == players // 2
            assert (pairs.bye_id is None) == (players % 2 == 0)
            if pairs.bye_id is not None:
                byes[pairs.bye_id] += 1
            posts = [
                m for m in world.messages_in(world.chess) if f"Round {number} is paired" in m.text
            ]
            assert len(posts) == 1
            for k, b in enumerate(pairs.boards):
                assert b.location_id in world.discord.threads  # a thread of its own
                assert latest_board(world, b.game_id).channel_id == b.location_id
                met[frozenset((b.white_id, b.black_id))] += 1
                whites[b.white_id] += 1
                blacks[b.black_id] += 1
                # results: White resigns on board 1, Black on board 2 (odd rounds), a draw
                # on board 2 in even rounds
                if k == 0:
                    await world.command(by_id[b.white_id], "resign", channel=b.location_id)
                elif number % 2:
                    await world.command(by_id[b.black_id], "resign", channel=b.location_id)
                else:
                    await world.command(
                        by_id[b.white_id], "draw", channel=b.location_id, action="offer"
                    )
                    await world.command(
                        by_id[b.black_id], "draw", channel=b.location_id, action="accept"
                    )
        await tick(world, scheduler)
        await tick(world, scheduler)

        # Every pair met exactly once, colours balanced, one bye each.
        ids = [p.id for p in people]
        assert set(met) == {frozenset(pair) for pair in itertools.combinations(ids, 2)}
        assert set(met.values()) == {meetings}
        assert all(abs(whites[p] - blacks[p]) <= 1 for p in ids)
        if double:  # each pair once with each colour
            assert all(whites[p] == blacks[p] for p in ids)
        assert byes == (Counter({p: meetings for p in ids}) if players % 2 else Counter())
        assert len(world.threads()) == rounds * (players // 2)
        await assert_no_orphans(world)

        # The end, posted once, with the crosstable drawn from the stored results.
        final = [m for m in world.messages_in(world.chess) if "is over" in m.text]
        assert len(final) == 1 and final[0].files == ["standings.png"]
        row = await world.service.tournaments.tournament(tournament_id=1)
        assert row.status == "finished" and row.winner_id is not None
        assert final[0].pings == {row.winner_id}
        standing = await world.service.tournaments.standings_of(row)
        table = standings_table(standing)
        assert table.kind == "crosstable" and len(table.columns) == players
        sent = [data for name, data in world.discord.uploads if name == "standings.png"]
        assert sent[-1] == render_standings(table)
        assert Image.open(io.BytesIO(sent[-1])).size[0] > 0
        assert await world.service.tournaments.check(tournament_id=1) == []
        # /standings in a German server: posted for everyone, in the server's language
        world.guild_locale = "de"
        await world.command(people[0], "tournament standings")
        sent = [data for name, data in world.discord.uploads if name == "standings.png"]
        assert sent[-1] == render_standings(table, Speech("de"))
        assert sent[-1] != render_standings(table)
    finally:
        await world.close()
