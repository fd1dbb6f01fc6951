"""The pictures speak the reader's language through the payload harness (issue 27).

A private board (``/board private:True``) is drawn in its reader's language; a board
posted in a channel speaks the server's language, whoever made the move; the computer's
move, posted by the outbox, the server's too. Each is compared byte for byte with the
renderer's own drawing in that language.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))  # the harness lives beside this file
from harness import World, start_game  # noqa: E402

import variants  # noqa: E402
from bot.i18n import Speech  # noqa: E402
from renderers import render_png  # noqa: E402

VARIANT = "stone_garden"  # a legend of pieces: the most words


def drawn(game: variants.Game, side: str, locale: str) -> bytes:
    return render_png(game, orientation=side, speech=Speech(locale))


async def test_private_boards_in_the_readers_language_public_in_the_servers(
    tmp_path: Path,
) -> None:
    world = await World.open(tmp_path, real_images=True)
    try:
        alice, hans = world.user("alice"), world.user("hans", locale="de")
        view, _ = await start_game(world, alice, hans, variant=VARIANT)
        game = variants.replay((await world.service.history(game_id=view.id)).record)
        move = game.legal_moves()[0]
        # Hans's private board: German
        before = len(world.discord.uploads)
        await world.command(hans, "board", private=True)
        private = dict(world.discord.uploads[before:])["board.png"]
        assert private == drawn(game, "black", "de")
        assert private != drawn(game, "black", "en")
        # Alice's private board beside it: English
        before = len(world.discord.uploads)
        await world.command(alice, "board", private=True)
        assert dict(world.discord.uploads[before:])["board.png"] == drawn(game, "white", "en")
        # Alice's move in an English server: the posted board is English
        before = len(world.discord.uploads)
        moved = await world.command(alice, "move", notation=move)
        assert moved.public
        game = variants.replay((await world.service.history(game_id=view.id)).record)
        public = dict(world.discord.uploads[before:])["board.png"]
        assert public == drawn(game, "black", "en")
        # in a German server, the posted board is German, an English user's move too
        world.guild_locale = "de"
        reply = next(m for m in game.legal_moves())
        before = len(world.discord.uploads)
        await world.command(hans, "move", notation=reply)
        game = variants.replay((await world.service.history(game_id=view.id)).record)
        public = dict(world.discord.uploads[before:])["board.png"]
        assert public == drawn(game, "white", "de")
        before = len(world.discord.uploads)
        await world.command(alice, "move", notation=game.legal_moves()[0])
        game = variants.replay((await world.service.history(game_id=view.id)).record)
        public = dict(world.discord.uploads[before:])["board.png"]
        assert public == drawn(game, "black", "de")
    finally:
        await world.close()


async def test_the_computers_move_posted_by_the_outbox_is_drawn_in_the_servers_language(
    tmp_path: Path,
) -> None:
    import discord

    world = await World.open(tmp_path, real_images=True)
    try:
        guild = world.bot.get_guild(world.guild_id)
        assert guild is not None
        guild.preferred_locale = discord.Locale.german
        alice = world.user("alice")  # English herself: the server's language is German
        before = len(world.discord.uploads)
        await world.command(alice, "play", variant=VARIANT, computer=1, colour="black")
        await world.bot.computer_runner.idle()
        await world.deliver()
        (row,) = await world.service.list_games(location_id=world.chess, limit=1)
        view = await world.service.view(game_id=row.id)
        assert view.ply >= 1  # the computer moved
        game = variants.replay((await world.service.history(game_id=row.id)).record)
        names = [name for name, _ in world.discord.uploads[before:]]
        assert names == ["board.png", "board.png"]  # the challenge's board, the computer's
        posted = world.discord.uploads[-1][1]
        side = view.turn or "white"
        assert posted == drawn(game, side, "de")
        assert posted != drawn(game, side, "en")
    finally:
        await world.close()
