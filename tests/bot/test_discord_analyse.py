"""/analyse and the Analyse button through raw Discord payloads (issue 29): a private,
deferred answer edited with the progress, the summary posted in the channel with the
graph and jump links to the boards, the queue, and the analysis kept per game."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # the harness lives beside this file
from discord_fake import Request, StoredMessage  # noqa: E402
from harness import Person, World, game_of  # noqa: E402

from bot.discord.analysis import EDIT_EVERY_S, GRAPH_FILE  # noqa: E402
from bot.service.analysis import AnalysisProgress  # noqa: E402

DEPTH = 1  # the tests' search depth: quick (each variant's own is deeper)
MOVES = (("white", "e4"), ("black", "d6"), ("white", "Qg4"), ("black", "Bxg4"))


async def open_world(tmp_path: Path, target: str | None = None, every: float = 0.0) -> World:
    world = await World.open(tmp_path, target=target)
    world.service.analyses.depth = DEPTH
    world.bot.analysis_edit_every = every  # type: ignore[attr-defined]
    return world


@pytest.fixture
async def world(tmp_path: Path) -> Any:
    w = await open_world(tmp_path)
    yield w
    await w.close()


async def finished_game(
    world: World, white: Person, black: Person, *, rated: bool = True, channel: str = "chess"
) -> tuple[int, dict[str, StoredMessage], StoredMessage]:
    """A Tquarchess game where White hangs the Queen (Qg4??) and resigns: its id, the
    board posted after each move, and the final board."""
    made = await world.command(
        white,
        "play",
        channel=channel,
        variant="tquarchess",
        opponent=black,
        colour="white",
        rated=rated,
    )
    challenge = next(m for m in made.created if "Accept" in m.buttons())
    game_id = game_of(challenge)
    await world.press(black, challenge, "Accept")
    boards = {}
    for side, move in MOVES:
        ex = await world.command(white if side == "white" else black, "move", channel=channel, notation=move)
        (boards[move],) = ex.public
    ended = await world.command(white, "resign", channel=channel)
    final = next(m for m in ended.public if "Result" in m.text)
    return game_id, boards, final


def original_edits(requests: list[Request]) -> list[Request]:
    """The edits of the interaction's own (private, deferred) message."""
    return [
        r
        for r in requests
        if r.method == "PATCH" and r.route.endswith("/messages/@original")
    ]


def summary_of(messages: list[StoredMessage]) -> StoredMessage:
    (post,) = [m for m in messages if m.embeds and "errors and luck" in (m.embeds[0].get("title") or "")]
    return post


def link(world: World, message: StoredMessage) -> str:
    return f"https://discord.com/channels/{world.guild_id}/{message.channel_id}/{message.id}"


async def test_analyse_edits_its_progress_and_posts_the_summary_with_the_graph(
    tmp_path: Path, store_target: str
) -> None:
    world = await open_world(tmp_path, target=store_target)
    try:
        alice, bob, eve = world.user("alice"), world.user("bob"), world.user("eve")
        game_id, boards, _ = await finished_game(world, alice, bob)
        ex = await world.command(eve, "analyse", game=game_id)
        # Deferred privately at once: "thinking…" that only eve sees.
        callback = next(r for r in ex.requests if r.callback_type is not None)
        assert callback.callback_type == 5 and callback.flags & 64
        edits = original_edits(ex.requests)
        texts = [(r.body or {}).get("content") or "" for r in edits]
        steps = [t for t in texts if t.startswith(f"Analysing game {game_id}: ") and "steps" in t]
        assert steps, texts
        assert steps[-1].endswith("5/5 steps.")  # four actions and the end
        assert texts[-1].startswith(f"Game {game_id} is analysed: the summary is posted here: ")
        # The summary: in the channel, for everyone, with the graph attached.
        post = summary_of(ex.public)
        assert post.channel_id == world.chess and not post.ephemeral
        assert post.files == [GRAPH_FILE]
        assert texts[-1].endswith(link(world, post))
        embed = post.embeds[0]
        assert embed["image"]["url"] == f"attachment://{GRAPH_FILE}"
        fields = {f["name"]: f["value"] for f in embed["fields"]}
        for side, person in (("White", alice), ("Black", bob)):
            assert fields[side].startswith(person.mention)
            assert "Error rate: " in fields[side] and "Luck rate: " in fields[side]
            assert "Luck-adjusted result: " in fields[side]
        assert "Luck-adjusted result: 0.00 (lost 0" in fields["White"]  # no dice, no luck
        # The biggest error is the hung Queen, linked to the board that showed it.
        assert "**Qg4??**" in fields["Biggest error"]
        assert link(world, boards["Qg4"]) in fields["Biggest error"]
        assert "its luck is 0" in fields["Luckiest roll"]
        assert post.pings == set()  # a summary pings nobody
        # Kept in the store, by the log's digest.
        row = await world.service.repo.get_game(game_id)
        assert row is not None and row.log_head is not None
        assert await world.service.repo.stored_analysis(row.log_head, DEPTH) is not None
    finally:
        await world.close()
