"""``verify`` (issue 9): the log has no gaps (a deleted last action is caught), roll numbers
are consecutive, the stored result follows from the log, each mismatch is told in words
naming the dice, and a finished game's verification is computed once and kept."""

from __future__ import annotations

import asyncio
import json
import random
import sqlite3
from pathlib import Path

import pytest

from bot.service import GameService, Outcome

ALICE, BOB, MOD = 101, 202, 404


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "verify.sqlite3"


@pytest.fixture
async def service(db: Path):
    svc = await GameService.open(str(db), renderer=None, rng=random.Random(0))
    yield svc
    await svc.close()


def tamper(db: Path, *statements: tuple[str, tuple[object, ...]]) -> None:
    """Change the stored game behind the service's back, as someone with the file could."""
    conn = sqlite3.connect(db)
    try:
        for trigger in ("actions_no_update", "actions_no_delete", "games_seed_once"):
            conn.execute(f"DROP TRIGGER IF EXISTS {trigger}")
        for sql, params in statements:
            conn.execute(sql, params)
        conn.commit()
    finally:
        conn.close()


def one(db: Path, sql: str, params: tuple[object, ...] = ()) -> tuple[object, ...]:
    conn = sqlite3.connect(db)
    try:
        return conn.execute(sql, params).fetchone()
    finally:
        conn.close()


async def start(service: GameService, variant: str = "guardener", location: int = 1) -> Outcome:
    await service.challenge(
        location_id=location, challenger_id=ALICE, opponent_id=BOB, variant=variant, colour="white"
    )
    return await service.accept(location_id=location, user_id=BOB, render=False)


async def play(service: GameService, outcome: Outcome, plies: int, seed: int) -> Outcome:
    rng = random.Random(seed)
    for _ in range(plies):
        if outcome.game_over:
            break
        outcome = await service.act(
            game_id=outcome.game.id,
            user_id=outcome.next_user_id,
            text=rng.choice(await service.legal_moves(game_id=outcome.game.id)),
            render=False,
        )
    return outcome


async def resigned_game(service: GameService, resigner: int = BOB) -> int:
    outcome = await play(service, await start(service), 10, seed=4)
    assert not outcome.game_over
    await service.resign(game_id=outcome.game.id, user_id=resigner)
    report = await service.verify(game_id=outcome.game.id)
    assert report.ok, report.messages
    return outcome.game.id


async def engine_ended_game(service: GameService) -> tuple[int, str]:
    outcome = await play(service, await start(service), 3000, seed=1)
    assert outcome.game.status == "finished" and outcome.game.result_reason != "resignation"
    assert outcome.recorded is not None
    return outcome.game.id, outcome.recorded


def said(report: object, *words: str) -> bool:
    messages = getattr(report, "messages", ())
    return any(all(w in m for w in words) for m in messages)


# ----- a deleted last action ---------------------------------------------------------


@pytest.mark.parametrize("fix_the_counts", [False, True])
async def test_a_deleted_last_resignation_is_caught(
    service: GameService, db: Path, fix_the_counts: bool
) -> None:
    gid = await resigned_game(service)
    (last,) = one(db, "SELECT max(seq) FROM actions WHERE game_id = ?", (gid,))
    changes = [("DELETE FROM actions WHERE game_id = ? AND seq = ?", (gid, last))]
    if fix_the_counts:  # a careful tamperer fixes the count too: the result still gives it away
        changes.append(("UPDATE games SET log_count = log_count - 1 WHERE id = ?", (gid,)))
    tamper(db, *changes)
    report = await service.verify(game_id=gid)
    assert not report.ok and not report.mismatches and report.replay_error is None
    assert said(report, "stored as finished 1-0 (resignation)", "nobody resigned in the log")
    assert said(report, "the last entry is missing") != fix_the_counts


async def test_a_deleted_last_move_is_caught(service: GameService, db: Path) -> None:
    gid, last_move = await engine_ended_game(service)
    (last,) = one(db, "SELECT max(seq) FROM actions WHERE game_id = ?", (gid,))
    tamper(db, ("DELETE FROM actions WHERE game_id = ? AND seq = ?", (gid, last)))
    report = await service.verify(game_id=gid)
    assert not report.ok
    assert said(report, f"the game counts {last} log entries", "the last entry is missing")
    assert said(report, "the game is not over", "does not show how it ended")


async def test_a_deleted_abort_is_caught(service: GameService, db: Path) -> None:
    outcome = await play(service, await start(service), 6, seed=2)
    await service.abort(game_id=outcome.game.id, user_id=MOD, moderator=True, reason="spam")
    assert (await service.verify(game_id=outcome.game.id)).ok
    tamper(db, ("DELETE FROM actions WHERE game_id = ? AND kind = 'abort'", (outcome.game.id,)))
    report = await service.verify(game_id=outcome.game.id)
    assert not report.ok and said(report, "no abort entry")


async def test_a_gap_in_the_middle_is_caught(service: GameService, db: Path) -> None:
    gid = await resigned_game(service)
    tamper(db, ("DELETE FROM actions WHERE game_id = ? AND seq = 3", (gid,)))
    report = await service.verify(game_id=gid)
    assert not report.ok
    assert said(report, "the log jumps from entry 2 to entry 4: entry 3 is missing")
    assert said(report, "roll numbers", "are missing")


async def test_roll_numbers_must_follow_each_other(service: GameService, db: Path) -> None:
    gid = await resigned_game(service)
    tamper(
        db,
        ("UPDATE actions SET roll_index = roll_index + 1 WHERE game_id = ? AND seq = 5", (gid,)),
    )
    report = await service.verify(game_id=gid)
    assert not report.ok and said(report, "action 5", "numbers its first roll")


# ----- the result must follow from the log -------------------------------------------


async def test_a_changed_result_is_caught(service: GameService, db: Path) -> None:
    gid = await resigned_game(service, resigner=BOB)  # black resigned: 1-0
    tamper(db, ("UPDATE games SET result = '0-1' WHERE id = ?", (gid,)))
    report = await service.verify(game_id=gid)
    assert not report.ok
    assert said(report, "black resigned, so white won (1-0); the game is stored as 0-1")


async def test_a_changed_resigner_is_caught(service: GameService, db: Path) -> None:
    gid = await resigned_game(service, resigner=BOB)
    tamper(
        db,
        ("UPDATE actions SET text = 'white resigns' WHERE game_id = ? AND kind = 'resign'", (gid,)),
        ("UPDATE games SET result = '0-1' WHERE id = ?", (gid,)),
    )
    report = await service.verify(game_id=gid)
    assert not report.ok
    assert said(report, "says white resigns, but it was sent by player 202")


async def test_a_result_the_last_move_did_not_give_is_caught(
    service: GameService, db: Path
) -> None:
    gid, last_move = await engine_ended_game(service)
    result, reason = one(db, "SELECT result, result_reason FROM games WHERE id = ?", (gid,))
    other = "0-1" if result == "1-0" else "1-0"
    tamper(db, ("UPDATE games SET result = ? WHERE id = ?", (other, gid)))
    report = await service.verify(game_id=gid)
    assert not report.ok
    assert said(report, f"({last_move}) ends the game", f"stored as finished {other} ({reason})")


async def test_an_agreed_draw_must_be_a_draw(service: GameService, db: Path) -> None:
    outcome = await play(service, await start(service, "tquarchess"), 4, seed=3)
    await service.offer_draw(game_id=outcome.game.id, user_id=ALICE)
    await service.accept_draw(game_id=outcome.game.id, user_id=BOB)
    assert (await service.verify(game_id=outcome.game.id)).ok
    tamper(db, ("UPDATE games SET result = '1-0' WHERE id = ?", (outcome.game.id,)))
    report = await service.verify(game_id=outcome.game.id)
    assert not report.ok and said(report, "agrees a draw, so the result is 1/2-1/2")


# ----- mismatches in words, naming the dice -------------------------------------------


async def test_a_changed_roll_is_told_with_the_dice(service: GameService, db: Path) -> None:
    gid = await resigned_game(service)
    seq, text, rolls = one(
        db, "SELECT seq, text, rolls FROM actions WHERE game_id = ? AND seq = 3", (gid,)
    )
    values = json.loads(str(rolls))
    stored_first = values[0][1]
    values[0][1] = stored_first % 4 + 1
    tamper(
        db,
        (
            "UPDATE actions SET rolls = ? WHERE game_id = ? AND seq = 3",
            (json.dumps(values), gid),
        ),
    )
    report = await service.verify(game_id=gid)
    assert not report.ok and len(report.mismatches) == 1
    m = report.mismatches[0]
    assert said(report, f"roll {m.index + 1} (action 3 ({text}))", f"stored as {m.stored} on a d4")
    assert said(report, f"the seed gives {m.expected}")
    # the replay names what is stored and what the seed's dice give
    assert report.replay_error is not None
    assert f"action 3 is stored as {text} with dice [" in report.replay_error
    assert "the seed's dice are [" in report.replay_error and "which give" in report.replay_error


# ----- computed once, kept, and checked again when the data changes ------------------


async def test_a_finished_games_verification_is_computed_once(
    service: GameService, db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import bot.service.looking as looking

    gid = await resigned_game(service)
    service._verified.clear()  # noqa: SLF001 - count from a cold start
    calls = []
    real = looking.verify_game

    def counting(*args: object) -> object:
        calls.append(1)
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(looking, "verify_game", counting)
    reports = await asyncio.gather(*(service.verify(game_id=gid) for _ in range(10)))
    reports += [await service.verify(game_id=gid) for _ in range(5)]
    assert all(r.ok for r in reports) and len(calls) == 1
    tamper(db, ("UPDATE games SET result = '0-1' WHERE id = ?", (gid,)))
    changed = await service.verify(game_id=gid)
    assert not changed.ok and len(calls) == 2  # the kept verdict never vouches for new data
