"""/prefs orientation on the public boards of one's own challenges (issue 27), through the
payload harness: "applied to every board that user is shown privately and to their own
challenges".

A public board faces the side to act unless the player who started the game chose
``orientation:white`` (then White is at the bottom of every board of their games);
``mover`` is the side to act. The accepter's preference never changes a public board. The
posted picture is compared byte for byte with the renderer's own drawing.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))  # the harness lives beside this file
from discord_fake import StoredMessage  # noqa: E402
from harness import Person, World, start_game  # noqa: E402

import variants  # noqa: E402
from renderers import render_png  # noqa: E402


async def _moved_board(
    world: World, person: Person, notation: str, channel: str = "chess"
) -> tuple[bytes, StoredMessage]:
    """The board posted after ``person``'s move: its picture and its message."""
    before = len(world.discord.uploads)
    moved = await world.command(person, "move", notation=notation, channel=channel)
    assert moved.public
    return dict(world.discord.uploads[before:])["board.png"], moved.public[0]


async def test_the_challengers_orientation_draws_their_games_public_boards(
    tmp_path: Path,
) -> None:
    world = await World.open(tmp_path, real_images=True)
    try:
        alice, bob = world.user("alice"), world.user("bob")
        carol, dave = world.user("carol"), world.user("dave")
        await world.command(alice, "prefs", orientation="mover")
        said = await world.command(carol, "prefs", orientation="white")
        assert "with White at the bottom if you chose White" in said.only_private().text
        await world.command(bob, "prefs", orientation="white")  # an accepter's: no effect

        # Alice (mover) challenged Bob: Black to act, the posted board has Black at the bottom
        view, _ = await start_game(world, alice, bob)
        public, board = await _moved_board(world, alice, "e3")
        game = variants.replay((await world.service.history(game_id=view.id)).record)
        assert game.turn == "black"
        assert public == render_png(game, orientation="black")
        assert public != render_png(game, orientation="white")
        assert "black at the bottom" in board.text

        # Carol (white) challenged Dave, in another channel: not flipped for Black to act
        view2, _ = await start_game(world, carol, dave, channel="lobby")
        public2, board2 = await _moved_board(world, carol, "e3", channel="lobby")
        game2 = variants.replay((await world.service.history(game_id=view2.id)).record)
        assert game2.turn == "black"
        assert public2 == render_png(game2, orientation="white")
        assert public2 != render_png(game2, orientation="black")
        assert "white at the bottom" in board2.text and "black at the bottom" not in board2.text

        # a spectator's /board in the channel (public): still Carol's choice
        before = len(world.discord.uploads)
        await world.command(world.user("erin"), "board", channel="lobby")
        assert dict(world.discord.uploads[before:])["board.png"] == public2
    finally:
        await world.close()
