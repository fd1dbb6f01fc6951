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
        ex = await world.command(
            white if side == "white" else black, "move", channel=channel, notation=move
        )
        (boards[move],) = ex.public
    ended = await world.command(white, "resign", channel=channel)
    final = next(m for m in ended.public if "Result" in m.text)
    return game_id, boards, final


def original_edits(requests: list[Request]) -> list[Request]:
    """The edits of the interaction's own (private, deferred) message."""
    return [r for r in requests if r.method == "PATCH" and r.route.endswith("/messages/@original")]


def summary_of(messages: list[StoredMessage]) -> StoredMessage:
    (post,) = [
        m for m in messages if m.embeds and "errors and luck" in (m.embeds[0].get("title") or "")
    ]
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


async def test_the_summary_links_to_the_games_page_when_pages_are_served(world: World) -> None:
    from bot.links import Links, configure

    alice, bob, eve = world.user("alice"), world.user("bob"), world.user("eve")
    game_id, _, _ = await finished_game(world, alice, bob)
    links = Links(b"a-secret-for-the-summary-link", "https://garden.example")
    configure(links)
    try:
        ex = await world.command(eve, "analyse", game=game_id)
    finally:
        configure(None)
    post = summary_of(ex.public)
    (row,) = post.payload["components"]
    (button,) = row["components"]
    assert button["type"] == 2 and button["style"] == 5  # a link: no interaction
    assert button["url"] == links.game_url(game_id) and "custom_id" not in button
    assert button["label"] == "Step through it on the web"
    # without pages, no button (the summary tested above has none)
    again = await world.command(eve, "analyse", game=game_id)
    assert not summary_of(again.public).payload.get("components")


async def test_a_finished_rated_games_final_board_offers_analyse(world: World) -> None:
    alice, bob = world.user("alice"), world.user("bob")
    game_id, boards, final = await finished_game(world, alice, bob)
    assert "Analyse" not in boards["Qg4"].buttons()  # a board of a game in play: no
    assert {"Analyse", "Rematch"} <= set(final.buttons())
    pressed = await world.press(bob, final, "Analyse")
    callback = next(r for r in pressed.requests if r.callback_type is not None)
    assert callback.callback_type == 5 and callback.flags & 64  # deferred, privately
    post = summary_of(pressed.public)
    assert post.channel_id == world.chess and post.files == [GRAPH_FILE]
    assert post.embeds[0]["title"] == f"Game {game_id} · Tquarchess: errors and luck"
    texts = [(r.body or {}).get("content") or "" for r in original_edits(pressed.requests)]
    assert texts[-1].endswith(link(world, post))
    assert "Analyse" in world.discord.messages[final.id].buttons()  # the board keeps it
    # An unrated game's final board offers no analysis.
    carol, dave = world.user("carol"), world.user("dave")
    _, _, unrated = await finished_game(world, carol, dave, rated=False, channel="lobby")
    assert "Rematch" in unrated.buttons() and "Analyse" not in unrated.buttons()


async def test_a_game_in_play_is_not_analysed(world: World) -> None:
    alice, bob = world.user("alice"), world.user("bob")
    made = await world.command(alice, "play", variant="tquarchess", opponent=bob, colour="white")
    challenge = next(m for m in made.created if "Accept" in m.buttons())
    game_id = game_of(challenge)
    await world.press(bob, challenge, "Accept")
    ex = await world.command(alice, "analyse")  # this channel's game
    assert ex.public == []
    (edit,) = original_edits(ex.requests)
    (embed,) = (edit.body or {})["embeds"]
    assert embed["description"] == (
        f"Game {game_id} is still being played; it can be analysed once it is over."
    )
    assert world.service.analyses.runs == 0


async def test_a_game_is_analysed_once_even_after_a_restart(world: World) -> None:
    alice, bob, eve = world.user("alice"), world.user("bob"), world.user("eve")
    game_id, _, _ = await finished_game(world, alice, bob)
    first = await world.command(eve, "analyse", game=game_id)
    assert world.service.analyses.runs == 1
    again = await world.command(alice, "analyse", game=game_id)
    assert world.service.analyses.runs == 1  # read from the store: no search ran
    texts = [(r.body or {}).get("content") or "" for r in original_edits(again.requests)]
    assert not any("steps" in t or "waiting" in t for t in texts)
    assert summary_of(first.public).embeds == summary_of(again.public).embeds
    await world.restart(service=True)  # a new bot and a new service on the same store
    world.service.analyses.depth = DEPTH
    third = await world.command(bob, "analyse", game=game_id)
    assert world.service.analyses.runs == 0
    assert summary_of(third.public).embeds == summary_of(first.public).embeds


async def test_a_second_analysis_waits_in_the_queue_and_shows_its_place(world: World) -> None:
    alice, bob, eve = world.user("alice"), world.user("bob"), world.user("eve")
    first_id, _, _ = await finished_game(world, alice, bob)
    second_id, _, _ = await finished_game(world, alice, bob, channel="lobby")
    assert world.service.max_analyses == 1  # the default: one at a time
    # The first analysis holds the only place (deeper, so that it runs for a while).
    started = asyncio.Event()

    def told(news: AnalysisProgress) -> None:
        if news.state == "running":
            started.set()

    holder = asyncio.ensure_future(world.service.analyse(game_id=first_id, depth=2, progress=told))
    await asyncio.wait_for(started.wait(), 60)
    assert not holder.done()
    ex = await world.command(eve, "analyse", game=second_id)
    texts = [(r.body or {}).get("content") or "" for r in original_edits(ex.requests)]
    assert texts[0] == (
        f"Analysis of game {second_id}: waiting, place 1 in the queue (next to start)."
    )
    assert any(t.startswith(f"Analysing game {second_id}: ") for t in texts[1:])
    assert holder.done()  # the second started only once the first was over
    assert summary_of(ex.public).embeds[0]["title"].startswith(f"Game {second_id} ")
    assert world.service.analyses.runs == 2


async def test_progress_edits_are_spaced(tmp_path: Path) -> None:
    """Discord allows about five edits of a message in five seconds: the bot edits at
    most every ``analysis_edit_every`` seconds (2 by default; shorter here)."""
    assert EDIT_EVERY_S == 2.0
    every = 0.3
    world = await open_world(tmp_path, every=every)
    try:
        alice, bob = world.user("alice"), world.user("bob")
        game_id, _, _ = await finished_game(world, alice, bob)
        world.service.analyses.depth = 2  # long enough for several reports
        ex = await world.command(alice, "analyse", game=game_id)
        edits = original_edits(ex.requests)
        assert len(edits) >= 3
        gaps = [b.at - a.at for a, b in zip(edits, edits[1:], strict=False)]
        assert min(gaps) >= every - 0.02, gaps
    finally:
        await world.close()


async def test_a_channel_that_refuses_the_summary_gets_it_shown_privately(world: World) -> None:
    alice, bob = world.user("alice"), world.user("bob")
    game_id, _, _ = await finished_game(world, alice, bob)
    world.discord.fail("POST /channels/{channel_id}/messages", 403, times=1)
    ex = await world.command(alice, "analyse", game=game_id)
    assert ex.public == []
    last = original_edits(ex.requests)[-1]
    body = last.body or {}
    assert body["content"].startswith(f"Game {game_id} is analysed, but I could not post")
    assert body["embeds"][0]["title"] == f"Game {game_id} · Tquarchess: errors and luck"
    assert last.files == [GRAPH_FILE]
    (private,) = ex.private
    assert private.files == [GRAPH_FILE]
