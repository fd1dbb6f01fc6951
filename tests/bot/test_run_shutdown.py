"""``chessgarden run`` stops gracefully on SIGTERM (issue 24): a real subprocess against the
loopback fake Discord, a computer game in the store, the signal while the computer
thinks (or while Discord hangs on its post). Exit code 0 within 10 s, one log line per
step, the store sound afterwards, and no worker process left behind."""

from __future__ import annotations

import asyncio
import sqlite3
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # the fake lives beside this file
from bot_process import HUMAN, computer_game, descendants, sound, stop  # noqa: E402
from discord_payloads import user_payload  # noqa: E402
from harness import World  # noqa: E402
from loopback_discord import LoopbackDiscord  # noqa: E402

from bot.discord.app import Settings

POST = "POST /channels/{channel_id}/messages"
STEPS = (
    "shutdown: SIGTERM received; stopping",
    "shutdown: the deadline scheduler stopped",
    "shutdown: interactions in flight finished",
    "shutdown: the Discord connection closed",
    "shutdown: the store closed",
    "shutdown: done in",
)


@pytest.fixture
def fake() -> Iterator[LoopbackDiscord]:
    with LoopbackDiscord() as server:
        yield server


def row(db: str, game_id: int) -> tuple[int, int | None]:
    """(log_count, thinking_until_ms) of the game, read as another process would."""
    with sqlite3.connect(db, timeout=5) as con:
        found = con.execute(
            "SELECT log_count, thinking_until_ms FROM games WHERE id = ?", (game_id,)
        ).fetchone()
    return int(found[0]), found[1]


def test_sigterm_while_the_computer_thinks(fake: LoopbackDiscord, tmp_path: Path) -> None:
    db, log = str(tmp_path / "db.sqlite3"), tmp_path / "bot.log"
    game_id = computer_game(db, fake)
    proc = fake.spawn_bot(db, log)
    try:
        fake.wait_for(lambda: row(db, game_id)[1] is not None, 60)  # the turn is claimed
        # the search runs in a worker process, forked by the fork server
        fake.wait_for(lambda: len(descendants(proc.pid)) >= 2, 20)
        assert row(db, game_id)[0] == 0  # thinking, not moved yet
        code, took, text, left = stop(proc, log)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert code == 0, text
    assert took < 10, text
    for step in (*STEPS, "shutdown: the computer's moves stopped"):
        assert step in text, f"{step!r} missing:\n{text}"
    assert "Traceback" not in text, text
    assert not left, f"processes left behind: {left}"
    assert sound(db) == "ok"
    moved, claim = row(db, game_id)
    posted = [m for m in fake.messages(fake.channel_id) if f"game {game_id}" in m.text.lower()]
    # The move in flight finished: played and committed (the search takes 2 s, the grace is
    # 4 s). Its post is an outbox row (issue 24): sent before the connection closed, or
    # kept in the store for the next start (the bot may not have reached READY yet).
    assert moved >= 1, text
    with sqlite3.connect(db) as con:
        owed = con.execute("SELECT state FROM outbox WHERE game_id = ?", (game_id,)).fetchall()
    # (the computer may act twice, a re-roll then its move: one row each)
    if posted:
        assert "board.png" in posted[-1].files and ("sent",) in owed, owed
    else:
        assert owed and set(owed) == {("pending",)}, ([r.line for r in fake.requests()], owed)


def test_sigterm_while_discord_hangs_on_the_post(fake: LoopbackDiscord, tmp_path: Path) -> None:
    db, log = str(tmp_path / "db.sqlite3"), tmp_path / "bot.log"
    game_id = computer_game(db, fake)
    fake.fault(POST, "hang", count=10)
    proc = fake.spawn_bot(db, log)
    try:
        fake.wait_for(lambda: fake.held, 60)  # the move is stored; its post hangs
        assert row(db, game_id)[0] >= 1
        code, took, text, left = stop(proc, log)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert code == 0, text
    assert took < 10, text
    # The move is stored; its post (an outbox row, issue 24) could not be sent before the
    # deadline, so it stays owed in the store, and the next start delivers it once.
    assert "shutdown: the outbox delivery stopped" in text and "stay owed" in text, text
    for step in STEPS:
        assert step in text, f"{step!r} missing:\n{text}"
    assert not left, f"processes left behind: {left}"
    assert sound(db) == "ok"
    assert row(db, game_id)[1] is None or row(db, game_id)[0] >= 1  # nothing half-done
    with sqlite3.connect(db) as con:
        owed = con.execute("SELECT state FROM outbox WHERE game_id = ?", (game_id,)).fetchall()
        con.execute("UPDATE outbox SET due_ms = 0 WHERE state = 'pending'")  # the lease ran out
    assert owed and set(owed) == {("pending",)}, owed  # (a re-roll, then its move: a row each)
    fake.clear_faults()
    fake.release()  # Discord got to the hung request after all: the message exists

    def state() -> str:
        with sqlite3.connect(db) as con:
            found = con.execute("SELECT DISTINCT state FROM outbox WHERE game_id = ?", (game_id,))
            return ",".join(sorted(str(r[0]) for r in found))

    again = fake.spawn_bot(db, log.with_suffix(".2.log"))
    try:  # the next start delivers the owed post, and its nonce keeps it single
        fake.wait_for(
            lambda: (
                state() == "sent"
                and any(f"<@{HUMAN}>" in m.content for m in fake.messages(fake.channel_id))
            ),
            60,
        )
    finally:
        stop(again, log.with_suffix(".2.log"))
    boards = [m for m in fake.messages(fake.channel_id) if f"<@{HUMAN}>" in m.content]
    assert len(boards) == 1, [m.content for m in boards]


@pytest.mark.parametrize("shards", [None, 2])
async def test_closing_while_discord_py_waits_for_the_guilds(
    tmp_path: Path, shards: int | None
) -> None:
    """After READY, discord.py waits for the guilds (``guild_ready_timeout``) in a task that
    its close() leaves running, and close() clears the client's loop: a wait that ended
    after it raised in 'ready' (a CI run's shutdown log once held that traceback). The
    shutdown cancels the wait before it closes the connection."""
    world = await World.open(tmp_path, settings=Settings(shard_count=shards))
    state = world.bot._connection
    state.guild_ready_timeout = 0.3
    state.parsers["READY"](
        {
            "v": 10,
            "user": user_payload(world.discord.bot_id, "chessgarden", bot=True),
            "guilds": [{"id": str(world.guild_id), "unavailable": True}],
            "session_id": "harness",
            "resume_gateway_url": "wss://gateway.invalid",
            "application": {"id": str(world.discord.application_id), "flags": 0},
            **({"shard": [0, shards]} if shards else {}),
        }
    )  # discord.py's own READY handler: its wait for the guild starts
    waits = [state._ready_task, *getattr(state, "_ready_tasks", {}).values()]
    waiting = next(w for w in waits if w is not None)
    assert not waiting.done()
    await world.close()
    await asyncio.wait([waiting], timeout=2)  # the wait would have ended by now
    assert waiting.done()
    assert waiting.cancelled() or waiting.exception() is None, waiting.exception()
