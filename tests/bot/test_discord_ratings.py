"""/leaderboard, /profile, /play rated and the rating changes on the final board, through
raw Discord payloads (the harness: real interactions, only the HTTP edges replaced)."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # the harness lives beside this file
from discord_payloads import snowflake, user_payload  # noqa: E402
from harness import Person, World, latest_board, start_game  # noqa: E402

from bot.service import GameService, ManualClock  # noqa: E402

TITLE = "King's Guard Chess"


@pytest.fixture
async def world(tmp_path: Path):
    w = await World.open(tmp_path)
    yield w
    await w.close()


def only_embed(message: Any) -> dict[str, Any]:
    (embed,) = message.embeds
    return embed


def embed_size(embed: dict[str, Any]) -> int:
    """What Discord counts toward its 6,000 characters."""
    total = len(embed.get("title") or "") + len(embed.get("description") or "")
    total += len((embed.get("footer") or {}).get("text") or "")
    for f in embed.get("fields") or []:
        total += len(f["name"]) + len(f["value"])
    return total


def assert_within_limits(embed: dict[str, Any]) -> None:
    assert embed_size(embed) <= 6000
    assert len(embed.get("title") or "") <= 256
    assert len(embed.get("description") or "") <= 4096
    assert len(embed.get("fields") or []) <= 25
    for f in embed.get("fields") or []:
        assert len(f["name"]) <= 256 and len(f["value"]) <= 1024


async def rated_games(
    service: GameService, guild: int, results: list[tuple[int, int, int]], start: int = 10_000
) -> None:
    """Rated King's Guard games in ``guild``: (white, black, loser) each, by resignation."""
    for n, (white, black, loser) in enumerate(results):
        await service.challenge(
            location_id=start + n,
            challenger_id=white,
            opponent_id=black,
            colour="white",
            variant="kings_guard",
            guild_id=guild,
            rated=True,
        )
        await service.accept(location_id=start + n, user_id=black, render=False)
        await service.resign(location_id=start + n, user_id=loser)


async def test_a_rated_game_ends_with_each_players_rating_change(world: World) -> None:
    alice, bob = world.user("alice"), world.user("bob")
    view, _ = await start_game(world, alice, bob)
    assert view.rated  # /play rates by default
    ended = await world.command(bob, "resign")
    final = next(m for m in ended.public if m.embeds and "Result" in m.text)
    embed = only_embed(final)
    (field,) = [f for f in embed["fields"] if f["name"].startswith("Rating changes")]
    assert field["name"] == "Rating changes (this server)"
    assert field["value"].splitlines() == [
        f"white <@{alice.id}>: 1662? (+162)",
        f"black <@{bob.id}>: 1338? (−162)",
    ]
    assert "Rating changes (server)" not in (embed.get("description") or "")  # said once
    assert_within_limits(embed)
    # Ratings in embeds ping nobody.
    assert final.pings <= {alice.id, bob.id}


async def test_an_unrated_game_shows_no_rating_and_changes_none(world: World) -> None:
    alice, bob = world.user("alice"), world.user("bob")
    made = await world.command(
        alice, "play", variant="kings_guard", opponent=bob, colour="white", rated=False
    )
    assert "unrated" in made.text
    challenge = next(m for m in made.created if "Accept" in m.buttons())
    await world.press(bob, challenge, "Accept")
    ended = await world.command(bob, "resign")
    assert "Rating" not in ended.text
    board = await world.command(alice, "leaderboard", variant="kings_guard")
    assert "Nobody has finished a rated game" in board.text


async def test_leaderboard_top_ten_and_the_callers_rank_beyond(world: World) -> None:
    people = [world.user(f"p{n}") for n in range(14)]
    ids = [p.id for p in people]
    # p0..p11 each beat someone; p12 loses twice; p13 only loses once
    results = [(ids[n], ids[(n + 1) % 12], ids[(n + 1) % 12]) for n in range(12)]
    results += [(ids[12], ids[0], ids[12]), (ids[12], ids[1], ids[12]), (ids[13], ids[2], ids[13])]
    await rated_games(world.service, world.guild_id, results)
    asked = await world.command(people[12], "leaderboard", variant="kings_guard")
    (post,) = asked.public
    assert post.how == "response"
    embed = only_embed(post)
    assert embed["title"] == f"Leaderboard · {TITLE} · this server"
    lines = embed["description"].splitlines()
    assert [line.split()[0] for line in lines[:10]] == [f"**{n}.**" for n in range(1, 11)]
    assert lines[10] == "…" and lines[11].startswith("**") and f"<@{ids[12]}>" in lines[11]
    rank = int(lines[11].split(".")[0].strip("*"))
    assert rank > 10
    assert all("?" in line for line in lines[:10])  # two or three games: provisional
    assert "provisional" in embed["footer"]["text"]
    assert_within_limits(embed)
    assert post.pings == set()  # a leaderboard pings nobody
    # Someone in the top sees no extra line; the global board counts the same games.
    top = await world.command(people[0], "leaderboard", variant="kings_guard", scope="global")
    top_embed = only_embed(top.public[0])
    assert top_embed["title"].endswith("· global")
    assert len(top_embed["description"].splitlines()) == 10


async def test_leaderboard_in_a_dm_is_global_and_refuses_the_server_scope(world: World) -> None:
    alice, bob = world.user("alice"), world.user("bob")
    await rated_games(world.service, world.guild_id, [(alice.id, bob.id, bob.id)])
    dm = await world.command(alice, "leaderboard", channel=None, variant="kings_guard")
    embed = only_embed(dm.created[0])
    assert embed["title"].endswith("· global") and f"<@{alice.id}>" in embed["description"]
    refused = await world.command(
        alice, "leaderboard", channel=None, variant="kings_guard", scope="server"
    )
    assert "no server ratings" in refused.only_private().text


async def test_profile_shows_ratings_record_results_and_jump_links(world: World) -> None:
    alice, bob, carol = world.user("alice"), world.user("bob"), world.user("carol")
    await rated_games(
        world.service,
        world.guild_id,
        [(alice.id, bob.id, bob.id)] * 3 + [(alice.id, carol.id, alice.id)] * 4,
    )
    view, _ = await start_game(world, alice, bob)  # a game going on now, with its board
    board = latest_board(world, view.id)
    asked = await world.command(bob, "profile", user=alice)
    embed = only_embed(asked.public[0])
    assert embed["title"] == "Profile · Alice"
    (kg,) = [f for f in embed["fields"] if f["name"].startswith(TITLE)]
    rating, _, spread = kg["name"].removeprefix(f"{TITLE}: ").partition(" ± ")
    assert rating.rstrip("?").isdigit() and spread.isdigit()
    lines = kg["value"].splitlines()
    assert lines[0].endswith("7 games: 3 won, 0 drawn, 4 lost")
    assert len(lines) == 1 + 5  # the last 5 results, newest first
    assert all(line.startswith("game ") and " lost vs " in line for line in lines[1:5])
    assert f"<@{carol.id}>" in lines[1]
    (now,) = [f for f in embed["fields"] if f["name"] == "Playing now"]
    link = f"https://discord.com/channels/{world.guild_id}/{board.channel_id}/{board.id}"
    assert f"**{view.id}** · kings_guard vs <@{bob.id}> · [jump]({link})" == now["value"]
    assert_within_limits(embed)
    mine = await world.command(carol, "profile")
    assert only_embed(mine.public[0])["title"] == "Profile · Carol"
    nobody = await world.command(carol, "profile", user=world.user("dave"))
    assert "no rated games" in nobody.text


@dataclass(frozen=True)
class _Bot(Person):
    def payload(self) -> dict[str, Any]:
        return user_payload(self.id, self.name, bot=True)


async def test_profile_of_a_bot_is_refused(world: World) -> None:
    alice = world.user("alice")
    refused = await world.command(alice, "profile", user=_Bot(snowflake(), "robot"))
    assert "Bots play no rated games" in refused.only_private().text


async def test_a_rated_game_lost_on_time_posts_the_rating_changes(tmp_path: Path) -> None:
    start = datetime(2030, 1, 1, tzinfo=UTC)
    world = await World.open(tmp_path, clock=ManualClock(start))
    try:
        alice, bob = world.user("alice"), world.user("bob")
        view, _ = await start_game(world, alice, bob)
        await world.command(alice, "move", notation="e3")
        clock = world.service.clock
        assert isinstance(clock, ManualClock)
        clock.set(start + timedelta(days=3))
        before = set(world.discord.messages)
        events = await world.bot.scheduler.run_once()
        await world.deliver()  # the final board is an outbox row (issue 24)
        assert [e.kind for e in events] == ["timeout"] and events[0].ratings
        (final,) = [m for m in world.discord.messages.values() if m.id not in before]
        embed = only_embed(final)
        (field,) = [f for f in embed["fields"] if f["name"].startswith("Rating changes")]
        assert field["value"].splitlines() == [
            f"white <@{alice.id}>: 1662? (+162)",
            f"black <@{bob.id}>: 1338? (−162)",
        ]
        assert_within_limits(embed)
        board = await world.command(bob, "leaderboard", variant="kings_guard")
        assert f"**1.** <@{alice.id}> **1662?**" in board.text
    finally:
        await world.close()
