"""Issue 11 on Discord, through the payload harness: the board embed says the position in
words (``variants.describe``), ``/rules`` shows ``variants.rulebook_pages`` (the same
source as ``chessgarden rules`` and ``docs/rules/``), and a refused move says the rule
and the closest legal actions. Every request is checked against Discord's limits by the
harness before anything else."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # the harness lives beside this file
from discord_fake import StoredMessage  # noqa: E402
from harness import World, assert_no_orphans, latest_board, start_game  # noqa: E402

import variants  # noqa: E402
from bot.discord import adapter  # noqa: E402

MESSAGES = "POST /channels/{channel_id}/messages"


@pytest.fixture
async def world(tmp_path: Path) -> Any:
    world = await World.open(tmp_path)
    yield world
    await assert_no_orphans(world)
    await world.close()


def field(message: StoredMessage, name: str) -> str:
    (embed,) = message.embeds
    values = [f["value"] for f in embed.get("fields") or [] if f["name"] == name]
    assert len(values) == 1, f"no single {name!r} field in {embed.get('fields')}"
    return str(values[0])


def embed_size(embed: dict[str, Any]) -> int:
    """Characters Discord counts toward an embed's 6,000."""
    size = len(embed.get("title") or "") + len(embed.get("description") or "")
    size += len((embed.get("footer") or {}).get("text") or "")
    return size + sum(len(f["name"]) + len(f["value"]) for f in embed.get("fields") or [])


async def status_now(world: World, game_id: int) -> variants.Status:
    return (await world.service.text_board(game_id=game_id)).status


@pytest.mark.parametrize("variant", ["guardener", "jepps_random", "stone_garden"])
async def test_the_board_says_what_the_dice_allow(world: World, variant: str) -> None:
    alice, bob = world.user("alice"), world.user("bob")
    view, accepted = await start_game(world, alice, bob, variant=variant)
    (board,) = accepted.public
    status = await status_now(world, view.id)
    now = field(board, adapter.STATUS_FIELD)
    assert now.startswith(f"**{status.headline}**")
    assert status.allows in now  # e.g. "Bishop or Rook may move or capture"
    assert len(now) <= 1024 and embed_size(board.embeds[0]) <= 6000
    # after a move, the new board says the new position
    legal = await world.service.legal_moves(game_id=view.id)
    moved = await world.command(alice, "move", notation=legal[0])
    (after,) = moved.public
    status = await status_now(world, view.id)
    assert field(after, adapter.STATUS_FIELD).startswith(f"**{status.headline}**")
    for line in status.lines[1:]:
        if len(field(after, adapter.STATUS_FIELD)) + len(line) < 900:
            assert line in field(after, adapter.STATUS_FIELD)


async def test_the_board_shows_a_pending_tquarc_value(world: World) -> None:
    alice, bob = world.user("alice"), world.user("bob")
    view, _ = await start_game(world, alice, bob, variant="tquarchess")
    await world.command(alice, "move", notation="e4")
    rolled = await world.command(bob, "move", notation="roll")
    (board,) = rolled.public
    status = await status_now(world, view.id)
    assert status.pending.startswith("Tquarc entry with value")
    assert status.pending in field(board, adapter.STATUS_FIELD)


async def test_an_ended_game_has_no_status_field(world: World) -> None:
    alice, bob = world.user("alice"), world.user("bob")
    await start_game(world, alice, bob)
    resigned = await world.command(alice, "resign")
    (board,) = resigned.public
    names = [f["name"] for f in board.embeds[0].get("fields") or []]
    assert adapter.STATUS_FIELD not in names and "Result" in names


def test_status_text_keeps_whole_lines_within_the_limit() -> None:
    status = variants.describe(variants.new_game("guardener", seed=3))
    full = adapter.status_text(status)
    assert full.split("\n") == [f"**{status.headline}**", *status.lines[1:]]
    short = adapter.status_text(status, limit=200)
    assert len(short) <= 200 and full.startswith(short)
    assert short.split("\n") == full.split("\n")[: len(short.split("\n"))]


@pytest.mark.parametrize("variant", variants.names())
async def test_rules_are_the_rulebook_pages(world: World, variant: str) -> None:
    shown = await world.command(world.user("eve"), "rules", variant=variant)
    pages = variants.rulebook_pages(variant)
    assert len(shown.public) == len(pages) and not shown.private
    for message, page in zip(shown.public, pages, strict=True):
        (embed,) = message.embeds
        assert [(f["name"], f["value"]) for f in embed["fields"]] == list(page)
        assert embed_size(embed) <= 6000 and len(embed["fields"]) <= 25
    first = shown.public[0]
    book = variants.rulebook(variant)
    assert book.tagline in first.text and book.summary[:60] in first.text
    assert "pieces.png" in first.files
    for name in variants.rules(variant).option_names:
        assert f"`{name}`" in first.text
    # Every reading in force, whole: nothing cut off between the pages.
    everything = "\n".join(m.text for m in shown.public)
    for reading in variants.rules(variant).readings:
        assert " ".join(reading.split()) in " ".join(everything.split())


async def test_rules_in_several_pages_are_several_messages(world: World) -> None:
    assert len(variants.rulebook_pages("guardener")) > 1  # the case this test is about
    shown = await world.command(world.user("eve"), "rules", variant="guardener")
    first, *rest = shown.public
    assert first.how == "response" and all(m.how == "followup" for m in rest)
    assert all("continued" in m.embeds[0]["title"] for m in rest)
    assert first.embeds[0]["footer"]["text"].startswith("Page 1 of ")


@pytest.mark.parametrize(
    ("variant", "text", "opening"),
    [
        ("kings_guard", "exd5", []),
        ("kings_guard", "Qd2", []),
        ("stone_garden", "Rb1^E", []),
        ("tquarchess", "Ke2", ["d4", "e5"]),
    ],
)
async def test_a_refused_move_says_the_rule_and_the_closest_actions(
    world: World, variant: str, text: str, opening: list[str]
) -> None:
    alice, bob = world.user("alice"), world.user("bob")
    view, _ = await start_game(world, alice, bob, variant=variant)
    for n, move in enumerate(opening):
        await world.command(alice if n % 2 == 0 else bob, "move", notation=move)
    mover = alice if len(opening) % 2 == 0 else bob
    board_before = latest_board(world, view.id)
    refused = await world.command(mover, "move", notation=text)
    reply = refused.only_private().text
    mirror = variants.replay((await world.service.history(game_id=view.id)).record)
    refusal = mirror.explain(text)
    assert refusal is not None
    assert refusal.message[1:] in reply and f"you typed `{text}`" in reply
    assert "Closest legal: " + ", ".join(f"`{a}`" for a in refusal.closest) + "." in reply
    assert "Legal now" not in reply and "legal now" not in reply
    assert refused.pings == set() and not refused.bot_requests  # nothing posted, no board change
    assert latest_board(world, view.id).id == board_before.id
