"""/help, /settings, /prefs and takebacks through the payload harness (issue 27): real
interactions from raw payloads, only the HTTP edges replaced.

- /help: private, paged with buttons, each page within Discord's limits, one line per
  command of the real command tree, the same lines as ``chessgarden commands``;
- /settings: refused to members without Manage Server (a Manage Messages moderator too),
  changed by one who has it, logged, kept across a restart of the bot and the service on
  the same store (both stores), and in force: /play's defaults, the channels where games
  may start, the challenge limit;
- /prefs: a private board drawn in the user's theme and orientation, byte for byte the
  renderer's own drawing; the public boards of their own challenges in their theme;
- takebacks: asked, declined, asked again and accepted; refused after a roll and to a
  spectator; the computer agrees at level 1 and refuses at level 3.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))  # the harness lives beside this file
import discord  # noqa: E402
from harness import World, game_of, latest_board, start_game  # noqa: E402
from stores import raw  # noqa: E402

import variants  # noqa: E402
from bot.discord import help as help_module  # noqa: E402
from bot.discord import run as discord_run  # noqa: E402
from renderers import render_png  # noqa: E402

MAX_DESCRIPTION = 4096
MAX_EMBED = 6000


def embed_size(embed: dict[str, object]) -> int:
    total = len(str(embed.get("title") or "")) + len(str(embed.get("description") or ""))
    total += len(str((embed.get("footer") or {}).get("text") or ""))  # type: ignore[union-attr]
    for field in embed.get("fields") or []:  # type: ignore[union-attr]
        total += len(field["name"]) + len(field["value"])
    return total


# ----- /help -----------------------------------------------------------------------------


async def test_help_is_private_paged_within_limits_and_matches_the_cli(tmp_path: Path) -> None:
    world = await World.open(tmp_path)
    try:
        alice = world.user("alice")
        first = (await world.command(alice, "help")).only_private()
        pages = [first.embeds[0]]
        assert set(first.buttons()) == {"Next"}
        message = first
        while "Next" in message.buttons():
            pressed = await world.press(alice, message, "Next")
            assert not pressed.created  # the same private message shows the next page
            message = world.discord.messages[first.id]
            pages.append(message.embeds[0])
        count = len(pages)
        assert count >= 4 and set(message.buttons()) == {"Previous"}
        for number, embed in enumerate(pages, 1):
            assert len(str(embed["description"])) <= MAX_DESCRIPTION
            assert embed_size(embed) <= MAX_EMBED
            assert str(embed["footer"]["text"]).startswith(f"Page {number} of {count}")  # type: ignore[index]
        text = "\n".join(str(e["description"]) for e in pages)
        for words in ("/play", "Accept", "/move", "Takeback", "Flip", "/verify", "/games"):
            assert words in text
        shown = [line for line in text.splitlines() if line.startswith("/")]
        tree = sorted(  # the commands one types: a group's subcommands, not the group
            c.qualified_name
            for c in world.bot.tree.walk_commands()
            if not isinstance(c, discord.app_commands.Group)
        )
        assert [line.split(" — ")[0][1:] for line in shown] == tree
        # `chessgarden commands` (its own bot, not connected) prints the same lines
        printed = await asyncio.to_thread(discord_run.help_text)
        assert [line for line in printed.splitlines() if line.startswith("/")] == shown
        assert printed == help_module.help_text(help_module.help_pages(world.bot.tree))
        # a page by number, and one that does not exist
        third = (await world.command(alice, "help", page=3)).only_private()
        assert third.embeds[0]["description"] == pages[2]["description"]
        refused = (await world.command(alice, "help", page=50)).only_private()
        assert f"There are {count} pages of help" in refused.text
        assert (await world.command(alice, "help", channel=None)).only_private()  # in a DM too
    finally:
        await world.close()


# ----- /settings ---------------------------------------------------------------------------


async def test_settings_are_for_moderators_persist_and_take_effect(
    tmp_path: Path, store_target: str
) -> None:
    world = await World.open(tmp_path, target=store_target)
    try:
        alice, mod = world.user("alice"), world.user("mod", moderator=True)
        admin = world.user("admin", admin=True)
        for person in (alice, mod):  # Manage Messages is not enough
            refused = (await world.command(person, "settings", days=7)).only_private()
            assert "Only members with Manage Server" in refused.text
        assert raw(store_target, "SELECT COUNT(*) FROM settings_log") == [(0,)]
        changed = await world.command(
            admin,
            "settings",
            days=7,
            rated=False,
            allow_channel="lobby",
            challenges_per_user=1,
        )
        answer = changed.only_private()
        assert "Days per move (default): 3 days (default) → 7 days" in answer.text
        assert f"<#{world.channels['lobby']}>" in answer.text

        await world.restart(service=True)  # a new bot and a new service on the same store
        shown = (await world.command(admin, "settings")).only_private()
        assert "Days per move (default): 7 days" in shown.text
        assert "Rated (default): off" in shown.text
        assert f"Channels where games may start: <#{world.channels['lobby']}>" in shown.text
        assert f"<@{admin.id}> · Open challenges per user: 3 (default) → 1" in shown.text
        logged = raw(store_target, "SELECT name, actor_id FROM settings_log ORDER BY id")
        assert sorted(logged) == sorted(
            (name, admin.id) for name in ("days", "rated", "channels", "max_challenges")
        )

        # in force: games start only in #lobby, with the server's defaults
        elsewhere = (await world.command(alice, "play", variant="kings_guard")).only_private()
        assert f"Games may start only in <#{world.channels['lobby']}>" in elsewhere.text
        made = await world.command(alice, "play", channel="lobby", variant="kings_guard")
        challenge = await world.service.view(game_id=game_of(made.public[0]))
        assert challenge.time_days == 7 and not challenge.rated
        again = await world.command(alice, "play", channel="lobby", variant="stone_garden")
        assert "at most 1 may wait at once" in again.only_private().text
        # a moderator returns a setting to the default: games may start anywhere again
        await world.command(admin, "settings", reset="channels")
        anywhere = await world.command(alice, "play", variant="kings_guard", rated=True)
        assert "at most 1 may wait" in anywhere.only_private().text  # the limit still holds
    finally:
        await world.close()


# ----- /prefs --------------------------------------------------------------------------------


async def test_prefs_draw_private_boards_and_own_challenges(tmp_path: Path) -> None:
    world = await World.open(tmp_path, real_images=True)
    try:
        alice, bob = world.user("alice"), world.user("bob")
        view, _ = await start_game(world, alice, bob)  # alice white, bob black
        await world.command(alice, "move", notation="e3")
        saved = await world.command(bob, "prefs", theme="high-contrast", orientation="white")
        assert "Saved." in saved.only_private().text
        before = len(world.discord.uploads)
        private = (await world.command(bob, "board", private=True)).only_private()
        assert private.files[:1] == ["board.png"]
        sent = dict(world.discord.uploads[before:])["board.png"]
        record = (await world.service.history(game_id=view.id)).record
        game = variants.replay(record)
        assert sent == render_png(game, orientation="white", theme="high-contrast")
        assert sent != render_png(game, orientation="black", theme="classic")  # the default
        # the games Alice starts are drawn in her theme, on the public boards too
        await world.command(alice, "prefs", theme="high-contrast")
        before = len(world.discord.uploads)
        moved = await world.command(bob, "move", notation="e6")
        assert moved.public
        public = dict(world.discord.uploads[before:])["board.png"]
        game = variants.replay((await world.service.history(game_id=view.id)).record)
        assert public == render_png(game, orientation="white", theme="high-contrast")
        shown = (await world.command(bob, "prefs", channel=None)).only_private()  # in a DM
        assert "Theme: high-contrast" in shown.text and "White at the bottom" in shown.text
    finally:
        await world.close()


# ----- takebacks -------------------------------------------------------------------------------


async def test_takeback_asked_declined_and_accepted(tmp_path: Path) -> None:
    world = await World.open(tmp_path)
    try:
        alice, bob, carol = world.user("alice"), world.user("bob"), world.user("carol")
        view, _ = await start_game(world, alice, bob)
        await world.command(alice, "move", notation="e3")
        board = latest_board(world, view.id)
        assert "Takeback" in board.buttons()
        asked = await world.press(alice, board, "Takeback")
        (request,) = asked.public
        assert request.pings == {bob.id} and "asks to take back e3" in request.text
        assert set(request.buttons()) == {"Accept takeback", "Decline takeback"}
        spectator = await world.press(carol, request, "Accept takeback")
        assert "not playing" in spectator.only_private().text
        mine = await world.press(alice, request, "Accept takeback")
        assert "your opponent answers it" in mine.only_private().text
        declined = await world.press(bob, request, "Decline takeback")
        assert "Black declines the takeback" in world.discord.messages[request.id].text
        assert not declined.public and world.discord.messages[request.id].buttons() == {}

        asked = await world.press(alice, latest_board(world, view.id), "Takeback")
        (request,) = asked.public
        accepted = await world.press(bob, request, "Accept takeback")
        (new_board,) = accepted.public
        assert "White takes back e3; black agreed." in new_board.text
        assert "Takeback accepted" in world.discord.messages[request.id].text
        assert world.discord.messages[request.id].buttons() == {}
        after = await world.service.view(game_id=view.id)
        assert after.ply == 0 and after.turn == "white"
        assert "Takeback" not in latest_board(world, view.id).buttons()  # nothing to take back
        history = await world.service.history(game_id=view.id)
        assert history.entries[-1].kind == "undo" and history.entries[-1].text == "undo e3"
        await world.command(alice, "move", notation="d3")
        await world.command(bob, "resign")
        assert (await world.service.verify(game_id=view.id)).ok
    finally:
        await world.close()


async def test_takeback_refused_after_a_roll(tmp_path: Path) -> None:
    world = await World.open(tmp_path)
    try:
        alice, bob = world.user("alice"), world.user("bob")
        view, _ = await start_game(world, alice, bob, variant="guardener")
        legal = [m for m in await world.service.legal_moves(game_id=view.id) if m != "reroll"]
        await world.command(alice, "move", notation=legal[0])
        board = latest_board(world, view.id)
        assert "Takeback" not in board.buttons()  # a die is rolled at every turn
        # Tquarchess: a Tquarc's entry rolls its die; no die shows after it, so the button
        # is there, and the press is refused with the reason
        game, _ = await start_game(world, alice, bob, variant="tquarchess", channel="lobby")
        entered = await world.command(alice, "move", channel="lobby", notation="Nf3/T%")
        assert "Nf3/T%" in entered.text
        refused = await world.press(alice, latest_board(world, game.id), "Takeback")
        assert (
            "cannot be taken back: dice were rolled with it or since" in refused.only_private().text
        )
        assert (await world.service.view(game_id=game.id)).ply == 1
    finally:
        await world.close()


async def test_the_computer_agrees_at_level_1_and_refuses_at_level_3(tmp_path: Path) -> None:
    world = await World.open(tmp_path)
    world.service.computer_budget_s = 0.05
    try:
        alice = world.user("alice")
        await world.command(alice, "play", variant="kings_guard", computer=1, colour="white")
        easy = await world.game()
        await world.command(alice, "move", notation="e3")  # and the computer replies
        assert (await world.service.view(game_id=easy.id)).ply == 2
        agreed = await world.press(alice, latest_board(world, easy.id), "Takeback")
        (board,) = agreed.public
        assert "The computer agrees: white takes back e3 and" in board.text
        assert (await world.service.view(game_id=easy.id)).ply == 0

        await world.command(
            alice, "play", channel="lobby", variant="kings_guard", computer=3, colour="white"
        )
        hard = await world.game("lobby")
        await world.command(alice, "move", channel="lobby", notation="e3")
        refused = await world.press(alice, latest_board(world, hard.id), "Takeback")
        assert "level 3 does not take moves back" in refused.only_private().text
        assert (await world.service.view(game_id=hard.id)).ply == 2
    finally:
        await world.close()
