"""Racing commands from two OS processes on one PostgreSQL database (issue 16): 1,000 pairs
of actions on the same turn apply at most one.

Two child processes each open their own ``GameService`` on the database (own pool, own
engine cache, own locks). For each pair the parent picks the game and the two commands
from what a player sees, writes one command to each child at once, and reads both
answers; the log count is read from the store before and after. Only the database keeps
the two processes apart (``SELECT ... FOR UPDATE`` on the game row)."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import variants
from bot.service import GameService

PAIRS = 1000
GAMES = 8
ALICE, BOB = 11, 22

CHILD = r"""
import asyncio, json, sys
from bot.service import GameService, ServiceError

async def main(url):
    svc = await GameService.open(url, renderer=None, dice_renderer=None)
    loop = asyncio.get_running_loop()
    print("ready", flush=True)
    while True:
        line = await loop.run_in_executor(None, sys.stdin.readline)
        if not line:
            break
        command = json.loads(line)
        try:
            out = await svc.act(render=False, **command)
            answer = {"ok": True, "repeated": out.repeated, "recorded": out.recorded,
                      "rolls": [list(r) for r in out.rolls]}
        except ServiceError as error:
            answer = {"ok": False, "error": type(error).__name__}
        print(json.dumps(answer), flush=True)
    await svc.close()

asyncio.run(main(sys.argv[1]))
"""


async def _start(service: GameService, location: int, variant: str) -> None:
    await service.challenge(
        location_id=location, challenger_id=ALICE, opponent_id=BOB, colour="white", variant=variant
    )
    await service.accept(location_id=location, user_id=BOB, render=False)


async def test_two_processes_racing_pairs_apply_at_most_one(tmp_path: Path, pg_url: str) -> None:
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[2])}
    children = [
        subprocess.Popen(
            [sys.executable, str(script), pg_url],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        for _ in range(2)
    ]
    parent = await GameService.open(pg_url, renderer=None, dice_renderer=None)
    rng = random.Random(16)
    names = variants.names()
    try:
        for child in children:
            assert child.stdout is not None and child.stdout.readline().strip() == "ready"
        for location in range(GAMES):
            await _start(parent, location, names[location % len(names)])
        applied_total = 0
        for pair in range(PAIRS):
            location = pair % GAMES
            view = await parent.view(location_id=location)
            if view.is_over or view.ply > 120:
                if not view.is_over:
                    await parent.resign(location_id=location, user_id=ALICE)
                await _start(parent, location, rng.choice(names))
                view = await parent.view(location_id=location)
            legal = list(await parent.legal_moves(location_id=location))
            mover = view.to_move_id
            assert mover is not None
            other = BOB if mover == ALICE else ALICE
            first, second = rng.choice(legal), rng.choice(legal)
            kind = pair % 4
            base = {"game_id": view.id, "user_id": mover, "text": first}
            if kind == 0:  # the side to move sends two moves, both from what it saw
                a = {**base, "expected_ply": view.ply}
                b = {**base, "text": second, "expected_ply": view.ply}
            elif kind == 1:  # one command delivered twice (to both processes)
                a = b = {**base, "request_id": f"req-{pair}"}
            elif kind == 2:  # both players press at once on the board they both see
                a = {**base, "expected_ply": view.ply}
                b = {**base, "user_id": other, "text": second, "expected_ply": view.ply}
            else:  # a double click with the same text
                a = b = {**base, "expected_ply": view.ply}
            before = await parent.repo.last_seq(view.id)
            for child, command in zip(children, (a, b), strict=True):
                assert child.stdin is not None
                child.stdin.write(json.dumps(command) + "\n")
                child.stdin.flush()
            answers = []
            for child in children:
                assert child.stdout is not None
                line = child.stdout.readline()
                assert line, child.stderr.read() if child.stderr else "child died"
                answers.append(json.loads(line))
            after = await parent.repo.last_seq(view.id)
            applied = after - before
            assert applied <= 1, (pair, kind, answers)
            fresh = [x for x in answers if x["ok"] and not x["repeated"]]
            assert len(fresh) == applied, (pair, kind, answers)
            if kind == 1:
                assert all(x["ok"] for x in answers), answers
                assert sorted(x["repeated"] for x in answers) == [False, True]
                assert answers[0]["recorded"] == answers[1]["recorded"]
                assert answers[0]["rolls"] == answers[1]["rolls"]
            applied_total += applied
        assert applied_total >= PAIRS * 0.9  # the races were real: almost every pair applied one
        for location in range(GAMES):  # the store's log still replays, as every process sees it
            history = await parent.history(location_id=location)
            moves = [e.text for e in history.entries if e.kind == "move"]
            assert variants.replay(history.record).history == moves
    finally:
        for child in children:
            if child.stdin is not None:
                child.stdin.close()
        for child in children:
            try:
                child.wait(timeout=30)
            except subprocess.TimeoutExpired:
                child.kill()
        await parent.close()


async def test_rated_games_finishing_at_once_in_two_services_rate_in_one_order(
    pg_url: str,
) -> None:
    """Two services (two pools, as two processes) end 60 rated games among four players
    at once: each game gets its own ``finish_order`` (1..60, no collision of ``MAX + 1``),
    and every game is rated on the ratings the one before it wrote (no lost update), so a
    rebuild from the finished games in that order matches the stored ratings exactly."""
    import asyncio

    from stores import raw

    one = await GameService.open(pg_url, renderer=None, dice_renderer=None)
    two = await GameService.open(pg_url, renderer=None, dice_renderer=None)
    try:
        people = [501, 502, 503, 504]
        rng = random.Random(16)
        games = 60
        pairs = []
        for n in range(games):
            white, black = rng.sample(people, 2)
            made = await one.challenge(
                location_id=100 + n,
                challenger_id=white,
                opponent_id=black,
                colour="white",
                variant="guardener",
                guild_id=7000,
                rated=True,
            )
            await one.accept(game_id=made.game.id, user_id=black, render=False)
            pairs.append((made.game.id, rng.choice([white, black])))
        await asyncio.gather(
            *(
                (one if n % 2 else two).resign(game_id=game_id, user_id=loser)
                for n, (game_id, loser) in enumerate(pairs)
            )
        )
        orders = sorted(r[0] for r in raw(pg_url, "SELECT finish_order FROM games"))
        assert orders == list(range(1, games + 1))
        assert len(raw(pg_url, "SELECT * FROM rating_changes")) == games * 4
        assert (await one.rebuild_ratings(check=True)).matched
    finally:
        await one.close()
        await two.close()
