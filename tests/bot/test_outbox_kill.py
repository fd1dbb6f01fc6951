"""kill -9 between a commit and its post (issue 24): a real ``chessgarden run`` subprocess
against the loopback fake Discord, on SQLite and on PostgreSQL. The bot commits an action
that owes a post (the computer's move; a loss on time), its post to Discord is in flight
(held by the fake: not answered, or done by Discord with the answer lost), and the process
is killed with SIGKILL. A new process starts on the same store: the owed post is delivered
once (the nonce turns a second try of a post Discord made into the first message), and no
worker is left from the killed one. The same for a takeback request and /analyse's summary,
owed by a service whose interaction never posted them (the Discord bot's hold run out). Printed: what was tried, and the posts lost and
doubled."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from bot.discord.app import service_label
from bot.service import GameService, ManualClock

sys.path.insert(0, str(Path(__file__).parent))  # the fake lives beside this file
sys.path.insert(0, str(Path(__file__).parents[1]))  # tests/stores.py
from bot_process import HUMAN, alive, computer_game, descendants, stop  # noqa: E402
from loopback_discord import LoopbackDiscord  # noqa: E402
from stores import raw  # noqa: E402

POST = "POST /channels/{channel_id}/messages"
OTHER = 434343434343434343


@pytest.fixture
def fake() -> Iterator[LoopbackDiscord]:
    with LoopbackDiscord() as server:
        yield server


def timed_out_game(db: str, fake: LoopbackDiscord) -> int:
    """A game whose Black ran out of time days ago: the bot's scheduler ends it at once."""

    async def make() -> int:
        past = datetime.now(UTC) - timedelta(days=10)
        service = await GameService.open(db, label=service_label, clock=ManualClock(past))
        try:
            return int((await _e3_played(service, fake)).id)
        finally:
            await service.close()

    return asyncio.run(make())


async def _e3_played(service: GameService, fake: LoopbackDiscord) -> Any:
    """Human (White) against OTHER in King's Guard with a day per move, e3 played: the
    game's view."""
    made = await service.challenge(
        location_id=fake.channel_id,
        guild_id=fake.guild_id,
        challenger_id=HUMAN,
        opponent_id=OTHER,
        variant="kings_guard",
        colour="white",
        days=1,
    )
    await service.accept(user_id=OTHER, game_id=made.game.id, render=False)
    await service.act(user_id=HUMAN, game_id=made.game.id, text="e3", render=False)
    return made.game


def person_game(service: GameService, fake: LoopbackDiscord) -> Any:
    """Human (White) against OTHER, e3 played: the made game's view (a coroutine)."""
    return _e3_played(service, fake)


def takeback_requested(db: str, fake: LoopbackDiscord) -> int:
    """A takeback request whose interaction never answered (the bot died): owed."""

    async def make() -> int:
        service = await GameService.open(db, label=service_label)
        try:
            game = await person_game(service, fake)
            service.hold_boards_ms = 0  # the Discord bot's hold, run out
            await service.request_takeback(user_id=HUMAN, game_id=game.id, request_id="k1")
            return int(game.id)
        finally:
            await service.close()

    return asyncio.run(make())


def analysed_game(db: str, fake: LoopbackDiscord) -> int:
    """A finished game analysed for /analyse, whose summary was never posted: owed."""

    async def make() -> int:
        service = await GameService.open(db, label=service_label)
        try:
            game = await person_game(service, fake)
            await service.act(user_id=OTHER, game_id=game.id, text="e6", render=False)
            await service.resign(user_id=HUMAN, game_id=game.id)
            service.hold_boards_ms = 0  # the Discord bot's hold, run out
            await service.analyse(
                game_id=game.id, depth=1, post_in=fake.channel_id, request_id="k2", render=False
            )
            return int(game.id)
        finally:
            await service.close()

    return asyncio.run(make())


FLOWS = {  # how the game is made, the outbox row it owes, the words of that post
    # level 1 moves at once: the post owed after the commit is what is tested, not the search
    "the computer's move": (partial(computer_game, level=1), "board", f"<@{HUMAN}>, your move"),
    "a loss on time": (timed_out_game, "timeout", "is over"),
    "a takeback request": (takeback_requested, "takeback", "asks for a takeback"),
    "/analyse's summary": (analysed_game, "analysis", "errors and luck"),
}


def state_of(db: str, game_id: int) -> list[str]:
    rows = raw(db, "SELECT state, kind FROM outbox WHERE game_id = ? ORDER BY id", (game_id,))
    return [f"{r[1]} {r[0]}" for r in rows]


@pytest.mark.parametrize("answer", ["hang", "apply-hang"])
@pytest.mark.parametrize("flow", list(FLOWS))
def test_kill_9_between_the_commit_and_its_post(
    fake: LoopbackDiscord, store_target: str, tmp_path: Path, flow: str, answer: str
) -> None:
    make, kind, words = FLOWS[flow]
    game_id = make(store_target, fake)
    fake.fault(POST, answer, count=1)  # the first post is in flight when the kill comes
    log = tmp_path / "bot.log"
    proc = fake.spawn_bot(store_target, log)
    try:
        fake.wait_for(lambda: fake.held, 90)
        owed = state_of(store_target, game_id)  # committed, owed, not confirmed (the
        # computer may have acted twice, a re-roll then its move: one post each, in order)
        assert owed and set(owed) == {f"{kind} pending"}, owed
        below = descendants(proc.pid)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    fake.wait_for(lambda: not alive(below), 10)  # no worker outlives the killed bot
    # Time passes: the killed process's lease on the row runs out (60 s; moved back here).
    raw(store_target, "UPDATE outbox SET due_ms = 0 WHERE state = 'pending'")
    again = fake.spawn_bot(store_target, tmp_path / "bot.2.log")
    try:
        # until the owed posts are sent and the flow's own post is among them (after a
        # re-roll the computer still has its move to make: that is owed next)
        fake.wait_for(
            lambda: (
                set(state_of(store_target, game_id)) == {f"{kind} sent"}
                and any(words in m.text for m in fake.messages(fake.channel_id))
            ),
            90,
        )
    finally:
        stop(again, tmp_path / "bot.2.log")
    fake.release()  # the dead process's request, if Discord answers it now, changes nothing
    posts = [m for m in fake.messages(fake.channel_id) if words in m.text]
    owed = state_of(store_target, game_id)
    everything = fake.messages(fake.channel_id)  # one message per owed row, no more
    lost = int(not posts) + max(0, len(owed) - len(everything))
    doubled = max(0, len(posts) - 1) + max(0, len(everything) - len(owed))
    print(f"\n{flow}, {answer}, killed: {len(owed)} owed; lost {lost}, doubled {doubled}")
    assert (lost, doubled) == (0, 0), [m.content for m in everything]
