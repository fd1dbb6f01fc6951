"""Kill -9 during pairing never pairs a round twice, and never loses one (issue 30).

A child process (forked from a zygote that imported the modules once, as in
``test_service_crash``) runs a Swiss of 10 players and 6 rounds on the store: the scheduler's
pass pairs the next round, then every game of it is resigned, and so on. Opening a round's
games is slowed a little (a pause after each game, inside the pairing's transaction) so
that a kill can land in the middle of it. The test kills the child with SIGKILL while it
pairs, starts another, and so on until the tournament is over. After every kill:

- the rounds stored are 1..n, each with all its boards (or, killed mid-pairing, the round
  is not there at all), each board's game exists, and no game exists without its board;
- the log has one ``pair`` entry per stored round;

and at the end the tournament finished with every round paired once, and ``check``
re-pairs every round from the stored results and finds no difference. On both stores.
"""

from __future__ import annotations

import os
import random
import signal
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest
from stores import raw
from zygote import ZYGOTE, Zygote

from bot.service import GameService, ManualClock

GUILD = 900_000_000_000_000_001
CHANNEL = 900_000_000_000_000_002
PLAYERS = list(range(201, 211))
ROUNDS = 6
START = datetime(2030, 1, 1, 12, 0, tzinfo=UTC)
MID_PAIRING_KILLS = 4
MAX_RUNS = 80
CHILD_TIMEOUT_S = 120.0

CHILD = r"""
import asyncio, json, sys
from datetime import datetime, timedelta, UTC
from bot.service import GameService, ManualClock
from bot.service.tournament_life import TournamentLife

def say(**fields):
    sys.stdout.write(json.dumps(fields) + "\n")
    sys.stdout.flush()

async def main(db, tid):
    clock = ManualClock(datetime(2030, 1, 1, 14, 30, tzinfo=UTC))
    svc = await GameService.open(db, renderer=None, dice_renderer=None, clock=clock)
    opened = TournamentLife._open_game

    async def slowly(self, tx, tournament, round_no, board, white, black):
        made = await opened(self, tx, tournament, round_no, board, white, black)
        say(opened=round_no, board=board)
        await asyncio.sleep(0.01)  # inside the pairing's transaction
        return made

    TournamentLife._open_game = slowly
    say(ready=True)
    while True:
        row = await svc.repo.tournament(tid)
        if row.status == "finished":
            say(finished=True)
            return
        await svc.run_due()
        row = await svc.repo.tournament(tid)
        say(paired=row.current_round)
        for board in await svc.repo.tournament_boards(tid):
            if board.round == row.current_round and board.game_id is not None:
                game = await svc.repo.get_game(board.game_id)
                if game.status == "active":
                    await svc.resign(game_id=game.id, user_id=game.white_id)

"""


def check_store(db: str, tid: int) -> int:
    """The store after a kill: whole rounds only, each paired once. The rounds stored."""
    rounds = [r[0] for r in raw(db, "SELECT number FROM tournament_rounds ORDER BY number")]
    assert rounds == list(range(1, len(rounds) + 1)), rounds
    boards = raw(db, "SELECT round, game_id, white_id, black_id FROM tournament_games")
    byes = dict(raw(db, "SELECT number, bye_id FROM tournament_rounds"))
    for number in rounds:
        mine = [b for b in boards if b[0] == number]
        seated = [p for b in mine for p in b[2:]] + ([byes[number]] if byes[number] else [])
        assert len(mine) == len(PLAYERS) // 2 and sorted(seated) == PLAYERS, (number, mine)
    games = sorted(r[0] for r in raw(db, "SELECT id FROM games"))
    assert games == sorted(b[1] for b in boards), "a game without its board, or the reverse"
    pairs = raw(db, "SELECT COUNT(*) FROM tournament_log WHERE action = 'pair'")[0][0]
    assert pairs == len(rounds), f"{pairs} pair entries for {len(rounds)} rounds"
    current = raw(db, "SELECT current_round FROM tournaments WHERE id = ?", (tid,))[0][0]
    assert current == len(rounds)
    return len(rounds)


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
async def test_kill_during_pairing_never_pairs_twice(tmp_path: Path, store_target: str) -> None:
    db = store_target
    clock = ManualClock(START)
    service = await GameService.open(db, renderer=None, dice_renderer=None, clock=clock)
    try:
        news = await service.tournaments.create(
            guild_id=GUILD,
            channel_id=CHANNEL,
            user_id=9,
            may_run=True,
            variant="kings_guard",
            format="swiss",
            rounds=ROUNDS,
            days=1,
            rated=False,
            starts="2h",
        )
        tid = news.tournament.id
        for player in PLAYERS:
            await service.tournaments.join(guild_id=GUILD, user_id=player)
    finally:
        await service.close()

    script = tmp_path / "child.py"
    script.write_text(CHILD + ZYGOTE)
    rng = random.Random(30)
    mid_pairing = finished = 0
    stored = 0
    with Zygote(script, CHILD_TIMEOUT_S) as zygote:
        for _ in range(MAX_RUNS):
            if finished and mid_pairing >= MID_PAIRING_KILLS:
                break
            pid = zygote.run(db, tid)
            assert zygote.said() == {"ready": True}
            # Let 0 or 1 rounds be paired whole, then kill inside the next pairing.
            whole = rng.random() < 0.4
            said = zygote.said()
            while "opened" not in said and "finished" not in said:
                said = zygote.said()
            if whole and "opened" in said:
                while "paired" not in said and "finished" not in said:
                    said = zygote.said()
                while "opened" not in said and "finished" not in said:
                    said = zygote.said()
            if "finished" in said:
                finished += 1
                dead = zygote.said()
                assert dead == {"dead": pid, "signal": None}, dead
                stored = check_store(db, tid)
                continue
            pairing = int(said["opened"])
            time.sleep(rng.uniform(0.0, 0.03))
            os.kill(pid, signal.SIGKILL)
            while "dead" not in (said := zygote.said()):
                pass
            assert said == {"dead": pid, "signal": signal.SIGKILL}, said
            stored = check_store(db, tid)
            mid_pairing += stored < pairing
        else:
            raise AssertionError(f"not done after {MAX_RUNS} runs")
    assert finished and stored == ROUNDS and mid_pairing >= MID_PAIRING_KILLS
    service = await GameService.open(db, renderer=None, dice_renderer=None, clock=clock)
    try:
        row = await service.tournaments.tournament(tournament_id=tid)
        assert row.status == "finished" and row.current_round == ROUNDS
        assert await service.tournaments.check(tournament_id=tid) == []
        ends = raw(db, "SELECT COUNT(*) FROM outbox WHERE kind = 'tournament_end'")
        assert ends == [(1,)]
    finally:
        await service.close()
