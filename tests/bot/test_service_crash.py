"""Crash safety: SIGKILL the service process at 100+ random points during play.

A child process plays random legal actions in several games through ``GameService``
and prints an acknowledgement after each call returns. The test kills it with
SIGKILL at a random moment, restarts it, and so on. After every kill:

- every acknowledged action is in the log with the same text and rolls;
- no stored roll has changed (acknowledged or not), start rolls included;
- and at the end every game's log replays and every roll is the seed's.
"""

from __future__ import annotations

import json
import os
import random
import signal
import time
from pathlib import Path

import pytest
from stores import raw
from zygote import ZYGOTE, Zygote

import variants
from bot.service import GameService
from variants.dice import verifiable_roll

KILLS = 105  # kills that land after the child has acknowledged at least one action
MAX_RUNS = 600
MIN_ACKED = 250  # and at least this many acknowledged actions checked, however slow the machine

CHILD = r"""
import asyncio, json, random, sys
import variants
from bot.service import GameService, ServiceError

W, B = 7, 8

def say(**fields):
    sys.stdout.write(json.dumps(fields) + "\n")
    sys.stdout.flush()

async def main(db, seed):
    svc = await GameService.open(db, renderer=None)
    rng = random.Random(seed)
    names = variants.names()
    for g in await svc.list_games(statuses=["challenge"], limit=100):
        await svc.accept(game_id=g.id, user_id=B, render=False)  # killed between the two steps
    say(ready=True)
    n = 0
    while True:
        n += 1
        active = await svc.list_games(statuses=["active"], limit=100)
        if len(active) < 4:
            made = await svc.challenge(location_id=rng.randrange(1, 2**40), challenger_id=W,
                                       opponent_id=B, colour="white", variant=rng.choice(names))
            await svc.accept(game_id=made.game.id, user_id=B, render=False)
            continue
        game = rng.choice(active)
        view = await svc.view(game_id=game.id)
        if view.ply >= 100:
            await svc.resign(game_id=game.id, user_id=W, request_id=f"{seed}-{n}")
            say(resigned=game.id)
            continue
        legal = await svc.legal_moves(game_id=game.id)
        out = await svc.act(game_id=game.id, user_id=view.to_move_id, text=rng.choice(legal),
                            request_id=f"{seed}-{n}", render=False)
        say(game=game.id, ply=out.game.ply, text=out.recorded,
            rolls=[list(r) for r in out.rolls], dice=list(out.dice or []))

"""

CHILD_TIMEOUT_S = 120.0  # a run that says nothing for this long has hung: the test fails


def stored_moves(db: str) -> dict[tuple[int, int], tuple[str, str]]:
    """(game id, move number) -> (text, rolls JSON) for every stored move."""
    moves: dict[tuple[int, int], tuple[str, str]] = {}
    counts: dict[int, int] = {}
    for game_id, text, rolls in raw(
        db, "SELECT game_id, text, rolls FROM actions WHERE kind = 'move' ORDER BY game_id, seq"
    ):
        counts[game_id] = counts.get(game_id, 0) + 1
        moves[(game_id, counts[game_id])] = (text, rolls)
    return moves


def check_store(
    db: str,
    acked: dict[tuple[int, int], dict[str, object]],
    seen_moves: dict[tuple[int, int], tuple[str, str]],
    seen_all: dict[tuple[int, int], str],
    seen_start: dict[int, str],
) -> None:
    """After a kill: every acknowledged action is stored as acknowledged, and no stored
    move, roll or start roll has changed since an earlier kill."""
    moves = stored_moves(db)
    for key, ack in acked.items():
        assert key in moves, f"acknowledged action lost: {ack}"
        text, rolls = moves[key]
        assert text == ack["text"] and json.loads(rolls) == ack["rolls"], (ack, moves[key])
    for key, value in seen_moves.items():
        assert moves.get(key) == value, f"a stored move changed: {key}"
    seen_moves.update(moves)
    for game_id, seq, rolls in raw(db, "SELECT game_id, seq, rolls FROM actions"):
        assert seen_all.setdefault((game_id, seq), rolls) == rolls
    for game_id, start_rolls in raw(db, "SELECT id, start_rolls FROM games"):
        if start_rolls != "[]":
            assert seen_start.setdefault(game_id, start_rolls) == start_rolls


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
async def test_sigkill_at_random_points_loses_nothing_acknowledged(
    tmp_path: Path, store_target: str
) -> None:
    """On both stores (tests/conftest.py): on PostgreSQL, the client process is killed
    with its transactions and pooled connections open."""
    db = store_target
    script = tmp_path / "child.py"
    script.write_text(CHILD + ZYGOTE)
    rng = random.Random(4242)
    acked: dict[tuple[int, int], dict[str, object]] = {}
    seen_moves: dict[tuple[int, int], tuple[str, str]] = {}
    seen_all: dict[tuple[int, int], str] = {}
    seen_start: dict[int, str] = {}
    kills_mid_play = 0
    run = 0
    with Zygote(script, CHILD_TIMEOUT_S) as zygote:
        while kills_mid_play < KILLS or len(acked) < MIN_ACKED:
            run += 1
            assert run <= MAX_RUNS, "the child never gets far enough to acknowledge anything"
            pid = zygote.run(db, run)
            first = zygote.said()
            assert first == {"ready": True}, f"child died at start: {first}"
            read: list[str] = []
            if rng.random() < 0.25:  # anywhere from the start (accepting, the first action...)
                time.sleep(rng.uniform(0.0, 0.3))
            else:  # after a few acknowledged actions, however slow the machine, then anywhere
                for _ in range(rng.randint(1, 6)):  # in the next one
                    read.append(zygote.line())
                time.sleep(rng.uniform(0.0, 0.05))
            os.kill(pid, signal.SIGKILL)
            while "dead" not in (said := zygote.said()):
                read.append(json.dumps(said))
            assert said == {"dead": pid, "signal": signal.SIGKILL}, said
            lines = [json.loads(line) for line in read if line.strip()]
            kills_mid_play += bool(lines)
            for ack in lines:
                if "game" in ack:
                    acked[(int(ack["game"]), int(ack["ply"]))] = ack
            check_store(db, acked, seen_moves, seen_all, seen_start)
    assert len(acked) >= MIN_ACKED

    # Every game replays from its log, every roll is the seed's, and a resumed game
    # shows the dice of its last acknowledged action.
    service = await GameService.open(str(db), renderer=None)
    try:
        if True:  # one block, as before
            games = raw(db, "SELECT id, seed, start_rolls FROM games")
            for game_id, seed, start_rolls in games:
                rolls = [tuple(r) for r in json.loads(start_rolls)]
                for (row_rolls,) in raw(
                    db, "SELECT rolls FROM actions WHERE game_id = ? ORDER BY seq", (game_id,)
                ):
                    rolls.extend(tuple(r) for r in json.loads(row_rolls))
                for index, (sides, value) in enumerate(rolls):
                    assert value == verifiable_roll(seed, game_id, index, sides)
                history = await service.history(game_id=game_id)
                moves = [e.text for e in history.entries if e.kind == "move"]
                if history.game.status == "challenge":
                    # killed between challenge and accept: no game, no dice, no record yet
                    assert history.record == "" and not moves and start_rolls == "[]"
                    continue
                assert variants.replay(history.record).history == moves
                last = max((k for k in acked if k[0] == game_id), default=None, key=lambda k: k[1])
                if last is not None and last[1] == len(moves) and history.game.status == "active":
                    assert list(history.game.dice or []) == acked[last]["dice"]
    finally:
        await service.close()
