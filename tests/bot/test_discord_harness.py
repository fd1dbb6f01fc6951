"""The harness itself: its model of Discord must catch what the real Discord would do to a
careless bot, or the other tests prove nothing. Each case drives discord.py's own
response and HTTP calls against the fake and checks what the fake made of them."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import discord
import pytest

sys.path.insert(0, str(Path(__file__).parent))  # the harness lives beside this file
from discord_payloads import choice_problems, message_problems  # noqa: E402
from harness import World  # noqa: E402


@pytest.fixture
async def world(tmp_path: Path) -> Any:
    world = await World.open(tmp_path)
    yield world
    await world.close()


PING = discord.AllowedMentions(users=True)


async def test_the_bot_logged_in_and_parsed_the_guild(world: World) -> None:
    routes = [r.route for r in world.discord.requests[:2]]
    assert routes == ["GET /users/@me", "GET /oauth2/applications/@me"]
    guild = world.discord.guild()
    assert guild.me is not None and guild.me.id == world.discord.bot_id
    assert {c.type.value for c in guild.channels} == {0, 2, 5, 15}
    nothreads = guild.get_channel(world.channels["nothreads"])
    assert nothreads is not None and not nothreads.permissions_for(guild.me).create_public_threads
    assert {c.name for c in world.bot.tree.get_commands()} >= {"play", "move", "accept"}


async def test_a_follow_up_after_a_public_defer_edits_it_and_pings_nobody(world: World) -> None:
    alice, bob = world.user("alice"), world.user("bob")
    interaction = world.raw_interaction(alice)
    await interaction.response.defer(thinking=True)
    # the flag is ignored and the mention does not notify: the "thinking" message is edited
    await interaction.followup.send(
        f"{bob.mention}, your move", ephemeral=True, allowed_mentions=PING
    )
    (first,) = [m for m in world.discord.messages.values() if m.interaction_id == interaction.id]
    assert first.how == "deferred-filled" and not first.ephemeral and first.pings == set()
    # a second follow-up is a new message: its flag counts and its mention pings
    await interaction.followup.send(f"{bob.mention}, your move", allowed_mentions=PING)
    await interaction.followup.send("only you", ephemeral=True)
    second, third = [
        m for m in world.discord.messages.values() if m.interaction_id == interaction.id
    ][1:]
    assert second.pings == {bob.id} and not second.ephemeral
    assert third.ephemeral and third.pings == set()


async def test_mentions_ping_only_when_allowed_and_never_in_an_edit(world: World) -> None:
    alice, bob, eve = world.user("alice"), world.user("bob"), world.user("eve")
    interaction = world.raw_interaction(alice)
    only_bob = discord.AllowedMentions(users=[discord.Object(bob.id)])
    await interaction.response.send_message(
        f"{bob.mention} {eve.mention}", allowed_mentions=only_bob
    )
    (message,) = [m for m in world.discord.messages.values() if m.interaction_id == interaction.id]
    assert message.pings == {bob.id}
    before = len(world.discord.messages)
    await interaction.edit_original_response(content=f"{eve.mention}", allowed_mentions=PING)
    assert len(world.discord.messages) == before and message.edits == 1  # an edit pings nobody
    channel = world.bot.get_partial_messageable(world.chess)
    silent = await channel.send(f"{eve.mention}", allowed_mentions=discord.AllowedMentions.none())
    assert world.discord.messages[silent.id].pings == set()


async def test_limits_are_enforced_like_discord(world: World) -> None:
    channel = world.bot.get_partial_messageable(world.chess, guild_id=world.guild_id)
    with pytest.raises(discord.HTTPException) as refused:
        await channel.send("x" * 2001)
    assert refused.value.status == 400 and refused.value.code == 50035
    assert "content has 2001 characters" in world.discord.requests[-1].problems[0]
    world.discord.requests[-1].problems.clear()  # seen; the fixture's world stays clean
    embed = discord.Embed(title="t" * 257, description="d" * 4097)
    embed.add_field(name="n", value="v" * 1025)
    embed.set_footer(text="f" * 2049)
    problems = message_problems({"embeds": [embed.to_dict()] * 11}, new=True)
    for expected in ("11 embeds", "title has 257", "description has 4097", "value has 1025",
                     "footer has 2049", "in all"):  # fmt: skip
        assert any(expected in p for p in problems), expected
    rows = [{"type": 1, "components": [
        {"type": 2, "style": 1, "label": "L" * 81, "custom_id": f"{'c' * 99}{i}{j}"}
        for j in range(6)]} for i in range(6)]  # fmt: skip
    problems = message_problems({"components": rows}, new=True)
    for expected in ("6 action rows", "6 buttons", "over 100 characters", "label"):
        assert any(expected in p for p in problems), expected
    choices = [{"name": "n" * 101, "value": "v"}] * 26
    assert len(choice_problems(choices)) == 27
    image = {"embeds": [{"image": {"url": "attachment://board.png"}}]}
    assert message_problems(image, new=True) and not message_problems(
        image, ["board.png"], new=True
    )


async def test_the_first_callback_must_come_within_three_seconds(world: World) -> None:
    interaction = world.raw_interaction(world.user("alice"))
    world.advance(3.5)
    with pytest.raises(discord.NotFound) as late:
        await interaction.response.send_message("too late")
    assert late.value.code == 10062
    assert "first callback after 3.5" in world.discord.requests[-1].problems[0]
    world.discord.requests[-1].problems.clear()


async def test_interaction_tokens_expire_after_fifteen_minutes(world: World) -> None:
    interaction = world.raw_interaction(world.user("alice"))
    await interaction.response.send_message("a board")
    world.advance(16 * 60)
    with pytest.raises(discord.HTTPException) as expired:
        await interaction.edit_original_response(view=None)
    assert expired.value.status == 401 and expired.value.code == 50027
    # the bot's own token still edits the message (this is how old boards are retired)
    (message,) = [m for m in world.discord.messages.values() if m.interaction_id == interaction.id]
    channel = world.bot.get_partial_messageable(world.chess, guild_id=world.guild_id)
    await channel.get_partial_message(message.id).edit(view=None)
    assert message.edits == 1


async def test_rules_make_routes_fail_with_discords_errors(world: World) -> None:
    channel = world.bot.get_partial_messageable(world.chess, guild_id=world.guild_id)
    world.discord.fail("POST /channels/{channel_id}/messages", 403, times=1)
    with pytest.raises(discord.Forbidden) as forbidden:
        await channel.send("hello")
    assert forbidden.value.code == 50013 and forbidden.value.text == "Missing Permissions"
    world.discord.fail("POST /channels/{channel_id}/messages", 500, times=1)
    with pytest.raises(discord.DiscordServerError):
        await channel.send("hello")
    await channel.send("hello")  # the rules were for one request each


async def test_permissions_come_from_the_guild(world: World) -> None:
    nothreads = world.discord.guild().get_channel(world.channels["nothreads"])
    assert isinstance(nothreads, discord.TextChannel)
    with pytest.raises(discord.Forbidden):
        await nothreads.create_thread(name="x", type=discord.ChannelType.public_thread)
    news = world.discord.guild().get_channel(world.channels["news"])
    assert isinstance(news, discord.TextChannel)
    with pytest.raises(discord.HTTPException):  # an announcement channel takes type 10 only
        await news.create_thread(name="x", type=discord.ChannelType.public_thread)
    assert any("must be 10" in p for p in world.discord.requests[-1].problems)
    world.discord.requests[-1].problems.clear()
    thread = await news.create_thread(name="x", type=discord.ChannelType.news_thread)
    assert thread.type is discord.ChannelType.news_thread
    with pytest.raises(discord.Forbidden):  # deleting a thread needs Manage Threads
        await thread.delete()
    await thread.edit(archived=True)  # its creator may archive it
    assert world.discord.archived(thread.id)


def test_fit_keeps_every_embed_within_6000_characters() -> None:
    from bot.discord.adapter import fit

    embed = discord.Embed(title="t" * 200, description="d" * 4000)
    for n in range(4):
        embed.add_field(name=f"field {n}", value="v" * 1000)
    assert len(embed) > 6000
    fitted = fit(embed)
    assert len(fitted) <= 6000 and not message_problems({"embeds": [fitted.to_dict()]}, new=True)
