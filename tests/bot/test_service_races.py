"""Racing commands: 1,000 pairs of actions on the same turn apply at most one.

Two ``GameService`` instances share one database file, each with its own engine
cache, locks and connections, as two bot processes would; pairs are also raced
inside one service. The count of log entries before and after each pair is read
straight from the store.
"""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import variants
from bot.service import GameService, Outcome, ServiceError

PAIRS = 1000
GAMES = 8
ALICE, BOB = 11, 22


async def _start(service: GameService, location: int, variant: str) -> None:
    await service.challenge(
        location_id=location, challenger_id=ALICE, opponent_id=BOB, colour="white", variant=variant
    )
    await service.accept(location_id=location, user_id=BOB)


async def test_racing_pairs_apply_at_most_one(tmp_path: Path) -> None:
    db = str(tmp_path / "race.sqlite3")
    one = await GameService.open(db, renderer=None)
    two = await GameService.open(db, renderer=None)
    rng = random.Random(1000)
    names = variants.names()
    try:
        for location in range(GAMES):
            await _start(one, location, names[location % len(names)])
        kinds: dict[int, int] = {}
        applied_total = 0
        for pair in range(PAIRS):
            location = pair % GAMES
            view = await one.view(location_id=location)
            if view.is_over or view.ply > 120:
                if not view.is_over:
                    await one.resign(location_id=location, user_id=ALICE)
                await _start(one, location, rng.choice(names))
                view = await one.view(location_id=location)
            legal = list(await one.legal_moves(location_id=location))
            mover = view.to_move_id
            assert mover is not None
            other = BOB if mover == ALICE else ALICE
            first, second = rng.choice(legal), rng.choice(legal)
            kind = pair % 4
            kinds[kind] = kinds.get(kind, 0) + 1
            a_svc, b_svc = (one, two) if pair % 8 < 4 else (one, one)
            if kind == 0:  # the side to move sends two moves, both from what it saw
                a = a_svc.act(
                    location_id=location, user_id=mover, text=first, expected_ply=view.ply
                )
                b = b_svc.act(
                    location_id=location, user_id=mover, text=second, expected_ply=view.ply
                )
            elif kind == 1:  # one command delivered twice
                rid = f"req-{pair}"
                a = a_svc.act(location_id=location, user_id=mover, text=first, request_id=rid)
                b = b_svc.act(location_id=location, user_id=mover, text=first, request_id=rid)
            elif kind == 2:  # both players press at once on the board they both see
                a = a_svc.act(
                    location_id=location, user_id=mover, text=first, expected_ply=view.ply
                )
                b = b_svc.act(
                    location_id=location, user_id=other, text=second, expected_ply=view.ply
                )
            else:  # a double click with the same text
                a = a_svc.act(
                    location_id=location, user_id=mover, text=first, expected_ply=view.ply
                )
                b = b_svc.act(
                    location_id=location, user_id=mover, text=first, expected_ply=view.ply
                )
            before = await one.repo.last_seq(view.id)
            results = await asyncio.gather(a, b, return_exceptions=True)
            after = await one.repo.last_seq(view.id)
            applied = after - before
            assert applied <= 1, (pair, kind, results)
            for result in results:
                assert isinstance(result, Outcome | ServiceError), repr(result)
            fresh = [r for r in results if isinstance(r, Outcome) and not r.repeated]
            assert len(fresh) == applied, (pair, kind, results)
            if kind == 1:
                outcomes = [r for r in results if isinstance(r, Outcome)]
                assert len(outcomes) == 2 and len({o.recorded for o in outcomes}) == 1
                assert sorted(o.repeated for o in outcomes) == [False, True]
                assert outcomes[0].rolls == outcomes[1].rolls
            applied_total += applied
        assert sum(kinds.values()) == PAIRS
        assert applied_total >= PAIRS * 0.9  # the races were real: almost every pair applied one
        # Both services agree with the store, and every game still replays.
        for location in range(GAMES):
            seen_one = await one.history(location_id=location)
            seen_two = await two.history(location_id=location)
            assert seen_one.record == seen_two.record
            moves = [e.text for e in seen_one.entries if e.kind == "move"]
            assert variants.replay(seen_one.record).history == moves
    finally:
        await one.close()
        await two.close()
