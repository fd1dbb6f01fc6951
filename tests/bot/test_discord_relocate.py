"""A game whose channel refuses the bot's posts (issue 24), through the payload harness: the
refusal is kept with Discord's reason, /games and /board say so, and a moderator moves the
game with /relocate; what could not be posted is then posted in the new channel, with the
board, and the move is logged and verified."""

from __future__ import annotations

import sys
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))  # the harness lives beside this file
from harness import World, game_of, reminder_refused, start_game  # noqa: E402

from bot.service import ManualClock  # noqa: E402

START = datetime(2030, 1, 1, 12, 0, tzinfo=UTC)


async def test_a_refused_channel_is_shown_and_a_moderator_moves_the_game(tmp_path: Path) -> None:
    world = await World.open(tmp_path, clock=ManualClock(START))
    try:
        alice, bob = world.user("alice"), world.user("bob")
        carol = world.user("carol", moderator=True)
        # The server takes the bot's right to post in #chess away: the reminder is refused.
        view = await reminder_refused(world, alice, bob)
        chess = world.chess
        failures = await world.service.post_failures([view.id])
        assert "Missing Permissions" in failures[view.id].reason
        listed = await world.command(bob, "games")
        text = listed.only_private().text
        assert f"cannot post in <#{chess}>" in text and "/relocate" in text
        shown = await world.command(bob, "board")  # an interaction's answer still works
        assert f"cannot post in <#{chess}>" in shown.public[0].text

        # Only a moderator, and not one who plays, may move it; nothing changes otherwise.
        refused = await world.command(bob, "relocate", to="lobby", game=view.id)
        assert "Only members with Manage Messages" in refused.only_private().text
        assert (await world.game()).location_id == chess
        moved = await world.command(carol, "relocate", to="lobby", game=view.id,
                                    reason="the bot lost its rights in #chess")  # fmt: skip
        (told,) = moved.private  # the moderator's answer; the posts follow in #lobby
        answer = told.text
        assert f"moved from <#{chess}> to <#{world.channels['lobby']}>" in answer
        lobby = world.channels["lobby"]
        game = await world.service.view(game_id=view.id)
        assert game.location_id == lobby
        # What #chess refused is posted in #lobby, then the board with its buttons.
        posted = [m for m in world.discord.messages.values() if m.channel_id == lobby]
        assert any(f"{bob.mention}, your move in game {view.id}" in m.content for m in posted)
        boards = [m for m in posted if m.buttons() and game_of(m) == view.id]
        assert len(boards) == 1 and bob.id in boards[0].pings
        assert await world.service.post_failures([view.id]) == {}
        # The game goes on in #lobby: Bob moves there, and the log says who moved it.
        played = await world.command(bob, "move", channel="lobby", notation="e6")
        assert played.public and (await world.service.view(game_id=view.id)).ply == 2
        history = await world.service.history(game_id=view.id)
        (entry,) = [e for e in history.entries if e.kind == "relocate"]
        assert entry.actor_id == carol.id and str(lobby) in entry.text
        await world.command(alice, "resign", channel="lobby")
        report = await world.service.verify(game_id=view.id)
        assert report.ok, report.messages
    finally:
        await world.close()


async def test_a_moderator_who_plays_cannot_move_the_game(tmp_path: Path) -> None:
    world = await World.open(tmp_path)
    try:
        alice, mod = world.user("alice"), world.user("mod", moderator=True)
        view, _ = await start_game(world, alice, mod)
        refused = await world.command(mod, "relocate", to="lobby", game=view.id)
        assert "You play in this game" in refused.only_private().text
        assert (await world.game()).location_id == world.chess
        # and a channel with a live game of its own is refused with a sentence
        other = world.user("other")
        await world.command(other, "play", channel="lobby", variant="guardener")
        carol = world.user("carol", moderator=True)
        busy = await world.command(carol, "relocate", to="lobby", game=view.id)
        assert "already has game" in busy.only_private().text
    finally:
        await world.close()
