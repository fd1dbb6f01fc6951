"""Shards (issue 16): ``CHESSGARDEN_SHARDS`` and ``CHESSGARDEN_SHARD_IDS`` start discord.py's
sharded bot on those shards; without them the bot is one client as before. The sharded
bot plays through the payload harness like the other, and its deadline scheduler handles
only the games of its own shards' guilds (Discord: shard = (guild_id >> 22) % count)."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import discord
import pytest

sys.path.insert(0, str(Path(__file__).parent))  # the harness lives beside this file
from harness import World, start_game  # noqa: E402

from bot.discord.app import (  # noqa: E402
    ChessGardenBot,
    Settings,
    SettingsError,
    ShardedChessGardenBot,
    make_bot,
)
from bot.service import ManualClock  # noqa: E402
from storage import Shards  # noqa: E402

START = datetime(2030, 1, 1, 12, 0, tzinfo=UTC)


def test_settings_read_the_shards() -> None:
    assert Settings.from_env({}).shards is None
    both = Settings.from_env({"CHESSGARDEN_SHARDS": "2"})
    assert (both.shard_count, both.shard_ids, both.shards) == (2, None, Shards(2, (0, 1)))
    some = Settings.from_env({"CHESSGARDEN_SHARDS": "4", "CHESSGARDEN_SHARD_IDS": " 3, 1,3"})
    assert some.shards == Shards(4, (1, 3))


@pytest.mark.parametrize(
    ("env", "words"),
    [
        ({"CHESSGARDEN_SHARD_IDS": "0"}, "needs CHESSGARDEN_SHARDS"),
        ({"CHESSGARDEN_SHARDS": "2", "CHESSGARDEN_SHARD_IDS": "2"}, "from 0 to 1"),
        ({"CHESSGARDEN_SHARDS": "2", "CHESSGARDEN_SHARD_IDS": "0;1"}, "separated by commas"),
        ({"CHESSGARDEN_SHARDS": "0"}, "at least 1"),
        ({"CHESSGARDEN_SHARDS": "two"}, "whole number"),
    ],
)
def test_bad_shard_settings_are_one_clear_line(env: dict[str, str], words: str) -> None:
    with pytest.raises(SettingsError, match=words) as info:
        Settings.from_env(env)
    assert "\n" not in str(info.value)


def test_shard_of_a_guild_follows_discords_rule() -> None:
    guild = 81384788765712384  # a real guild id (a snowflake)
    for count in (1, 2, 3, 4, 16):
        shard = (guild >> 22) % count
        assert Shards(count, (shard,)).owns(guild)
        assert not Shards(count, tuple(i for i in range(count) if i != shard)).owns(guild)
    assert Shards(2, (0,)).owns(None) and not Shards(2, (1,)).owns(None)  # DMs: shard 0


@pytest.fixture
async def world(tmp_path: Path) -> AsyncIterator[World]:
    world = await World.open(
        tmp_path, clock=ManualClock(START), settings=Settings(shard_count=2, shard_ids=(0, 1))
    )
    yield world
    await world.close()


async def test_the_sharded_bot_plays_through_the_harness(world: World) -> None:
    bot = world.bot
    assert isinstance(bot, ShardedChessGardenBot) and isinstance(bot, discord.AutoShardedClient)
    assert (bot.shard_count, bot.shard_ids) == (2, [0, 1])
    alice, bob = world.user("alice"), world.user("bob")
    view, accepted = await start_game(world, alice, bob)
    assert accepted.public and view.status == "active"
    # each process's scheduler handles its own shards' guilds only
    own = (world.guild_id >> 22) % 2
    clock = world.service.clock
    assert isinstance(clock, ManualClock)
    clock.set(START + timedelta(days=3))  # the default 3 days per move have run out
    world.service.shards = Shards(2, (1 - own,))
    assert await world.service.next_due() is None
    assert await world.bot.scheduler.run_once() == ()
    assert (await world.service.view(game_id=view.id)).status == "active"
    world.service.shards = Shards(2, (own,))
    events = await world.bot.scheduler.run_once()
    assert [(e.game.id, e.kind) for e in events] == [(view.id, "timeout")]


def test_without_shards_the_bot_is_one_client(tmp_path: Path) -> None:
    class Service:  # make_bot only hands it on
        clock = None

    bot = make_bot(Service(), Settings())  # type: ignore[arg-type]
    assert type(bot) is ChessGardenBot and not isinstance(bot, discord.AutoShardedClient)
