"""The chain head at the foot of every board (issue 24), through raw payloads: each board
shows the head after its latest entry; a head copied from a board is checked by
``/verify chain:``, which catches a history rewritten after that board, even with every
digest recomputed."""

from __future__ import annotations

import re
import sqlite3
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # the harness lives beside this file
from harness import World, latest_board, start_game  # noqa: E402

from bot.discord.adapter import board_embed  # noqa: E402
from storage.chain import SHORT_HEAD, chain_of  # noqa: E402

FOOTER_HEAD = re.compile(r"chain ([0-9a-f]+)")
MAX_FOOTER = 2048  # Discord's limit on an embed footer's text


@pytest.fixture
async def world(tmp_path: Path) -> Any:
    world = await World.open(tmp_path)
    yield world
    await world.close()


def footer(message: Any) -> str:
    (embed,) = [e for e in message.embeds if e.get("footer")]
    return str(embed["footer"]["text"])


def posted_head(message: Any) -> str:
    """The chain head as a reader copies it from a board's foot."""
    found = FOOTER_HEAD.search(footer(message))
    assert found is not None, footer(message)
    return found[1]


async def test_every_board_shows_its_chain_head_and_verify_checks_a_copied_one(
    world: World,
) -> None:
    alice, bob, eve = world.user("alice"), world.user("bob"), world.user("eve")
    view, accepted = await start_game(world, alice, bob)  # King's Guard: no dice
    first = next(m for m in accepted.public if m.embeds)
    assert view.chain_head is not None and posted_head(first) == view.chain_head[:SHORT_HEAD]
    copied: list[str] = [posted_head(first)]
    for person, move in ((alice, "Nc3"), (bob, "Nc6"), (alice, "Nf3"), (bob, "Nf6")):
        await world.command(person, "move", notation=move)
        board = latest_board(world, view.id)
        now = await world.service.view(game_id=view.id)
        assert now.chain_head is not None and posted_head(board) == now.chain_head[:SHORT_HEAD]
        assert len(posted_head(board)) == SHORT_HEAD and len(footer(board)) <= MAX_FOOTER
        copied.append(posted_head(board))
    assert len(set(copied)) == len(copied)  # every entry moves the head on
    await world.command(bob, "resign")
    checked = await world.command(eve, "verify", game=view.id, chain=f"chain {copied[3]}")
    assert "all rolls check out" in checked.text and "is the head after entry 3" in checked.text

    # Someone with the database swaps white's two moves and recomputes every digest.
    path = world.service.repo.path
    row = await world.service.repo.get_game(view.id)
    conn = sqlite3.connect(path)
    try:
        conn.execute("DROP TRIGGER actions_no_update")
        for seq, text in ((1, "Nf3"), (3, "Nc3")):
            conn.execute(
                "UPDATE actions SET text = ? WHERE game_id = ? AND seq = ?", (text, view.id, seq)
            )
        conn.commit()
        log = await world.service.repo.actions(view.id)
        assert row is not None
        digests = chain_of(row, log)
        for action, digest in zip(log, digests[1:], strict=True):
            conn.execute(
                "UPDATE actions SET digest = ? WHERE game_id = ? AND seq = ?",
                (digest, view.id, action.seq),
            )
        conn.execute("UPDATE games SET log_head = ? WHERE id = ?", (digests[-1], view.id))
        conn.commit()
    finally:
        conn.close()
    # Alone, the store cannot tell; the board posted after white's second move can.
    assert "all rolls check out" in (await world.command(eve, "verify", game=view.id)).text
    caught = await world.command(eve, "verify", game=view.id, chain=copied[3])
    assert "MISMATCH" in caught.text
    assert f"no entry of this game's log has the chain head {copied[3]}" in caught.text
    assert "the history was rewritten after that board was posted" in caught.text
    # the first board, posted before any move, still matches
    start = await world.command(eve, "verify", game=view.id, chain=copied[0])
    assert "all rolls check out" in start.text

    # A chain that is not hex is refused in one private sentence.
    refused = await world.command(eve, "verify", game=view.id, chain="not a head")
    message = refused.only_private()
    assert "is not a chain head" in message.text and message.text.count(".") <= 2


async def test_a_challenge_shows_no_chain_and_a_long_footer_stays_within_limits(
    world: World,
) -> None:
    alice, bob = world.user("alice"), world.user("bob")
    view, _ = await start_game(world, alice, bob)
    embed = board_embed(view, ["x"], image=False, dice_image=False, orientation="black")
    text = embed.footer.text or ""
    assert f"chain {view.chain_head[:SHORT_HEAD]}" in text and len(text) <= MAX_FOOTER
    assert len(embed) <= 6000
    challenge = await world.command(alice, "play", channel="lobby", variant="kings_guard",
                                    opponent=bob, colour="white")  # fmt: skip
    pending = await world.game("lobby")
    assert pending.status == "challenge" and pending.chain_head is None
    plain = board_embed(pending, ["x"], image=False, dice_image=False)
    assert "chain" not in (plain.footer.text or "")
    assert challenge.public
