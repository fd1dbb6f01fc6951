"""GameService: lifecycle, authorization, idempotency, draws, restart, verify."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest
from stores import raw, tamper

import variants
from bot.service import (
    GameService,
    IllegalAction,
    InvalidInput,
    InvalidState,
    LocationBusy,
    NotAllowed,
    NotFound,
    Outcome,
    RequestConflict,
    SeedNotRevealed,
    StaleAction,
    UnknownVariant,
)
from variants.dice import seed_commitment, verifiable_roll

ALICE, BOB, CAROL, MOD = 101, 202, 303, 404


@pytest.fixture
def db(store_target: str) -> str:
    """The store: an SQLite file, then a PostgreSQL database (tests/conftest.py)."""
    return store_target


@pytest.fixture
async def service(db: Path):
    svc = await GameService.open(str(db), renderer=None, rng=random.Random(0))
    yield svc
    await svc.close()


async def start(
    service: GameService, variant: str = "guardener", location: int = 1, **kw: object
) -> Outcome:
    await service.challenge(
        location_id=location,
        challenger_id=ALICE,
        opponent_id=BOB,
        colour="white",
        variant=variant,
        **kw,  # type: ignore[arg-type]
    )
    return await service.accept(location_id=location, user_id=BOB)


async def play_random(
    service: GameService, outcome: Outcome, moves: int, rng: random.Random, location: int = 1
) -> Outcome:
    for _ in range(moves):
        if outcome.game_over:
            break
        legal = await service.legal_moves(location_id=location)
        outcome = await service.act(
            location_id=location, user_id=outcome.next_user_id, text=rng.choice(legal)
        )
    return outcome


# ----- challenges -------------------------------------------------------------


async def test_challenge_and_accept(service: GameService) -> None:
    made = await service.challenge(
        location_id=1, challenger_id=ALICE, opponent_id=BOB, variant="guardener", colour="black"
    )
    assert made.game.status == "challenge"
    assert made.next_user_id == BOB
    assert made.game.commitment is None and made.game.seed is None  # no dice yet (C4)
    with pytest.raises(NotAllowed):
        await service.accept(location_id=1, user_id=CAROL)
    with pytest.raises(NotAllowed):
        await service.accept(location_id=1, user_id=ALICE)
    started = await service.accept(location_id=1, user_id=BOB)
    view = started.game
    assert (view.status, view.white_id, view.black_id) == ("active", BOB, ALICE)
    assert view.turn == "white" and started.next_user_id == BOB
    assert view.dice is not None and len(view.dice) == 2 and all(1 <= d <= 4 for d in view.dice)
    assert view.seed is None and view.commitment is not None and len(view.commitment) == 64
    commitment_line = started.messages.index(f"Dice commitment: {view.commitment}")
    assert commitment_line < len(started.messages) - 1  # before the line with the first dice
    with pytest.raises(InvalidState):
        await service.accept(location_id=1, user_id=BOB)


async def test_open_challenge_random_colour(service: GameService) -> None:
    made = await service.challenge(location_id=1, challenger_id=ALICE, variant="tquarchess")
    assert made.next_user_id is None
    with pytest.raises(NotAllowed, match="open challenge"):
        await service.decline(location_id=1, user_id=CAROL)
    started = await service.accept(location_id=1, user_id=CAROL)
    assert {started.game.white_id, started.game.black_id} == {ALICE, CAROL}
    assert started.game.opponent_id == CAROL


async def test_one_live_game_per_location(service: GameService) -> None:
    await service.challenge(location_id=1, challenger_id=ALICE, variant="guardener")
    with pytest.raises(LocationBusy) as info:
        await service.challenge(location_id=1, challenger_id=CAROL, variant="tquarchess")
    assert info.value.game_id == 1
    await service.challenge(location_id=2, challenger_id=CAROL, variant="tquarchess")
    await service.cancel(location_id=1, user_id=ALICE)
    await service.challenge(location_id=1, challenger_id=CAROL, variant="kings_guard")


async def test_decline_and_cancel_rules(service: GameService) -> None:
    await service.challenge(
        location_id=1, challenger_id=ALICE, opponent_id=BOB, variant="guardener"
    )
    with pytest.raises(NotAllowed):
        await service.cancel(location_id=1, user_id=BOB)
    with pytest.raises(NotAllowed):
        await service.decline(location_id=1, user_id=ALICE)
    declined = await service.decline(location_id=1, user_id=BOB)
    assert declined.game.status == "declined" and declined.game_over
    with pytest.raises(NotFound):
        await service.accept(location_id=1, user_id=BOB)
    with pytest.raises(InvalidState):
        await service.accept(game_id=declined.game.id, user_id=BOB)


@pytest.mark.parametrize(
    ("kwargs", "error", "words"),
    [
        (dict(variant="chess960"), UnknownVariant, "guardener"),
        (dict(variant="guardener", colour="purple"), InvalidInput, "white, black or random"),
        (dict(variant="guardener", opponent_id=ALICE), InvalidInput, "yourself"),
        (dict(variant="guardener", options={"free_play": True}), InvalidInput, "option"),
        (dict(variant="jepps_random", options={"free_play": "yes"}), InvalidInput, "free_play"),
        (dict(variant="jepps_random", options=[1]), InvalidInput, "mapping"),
        (dict(variant="guardener", location_id="here"), InvalidInput, "whole number"),
    ],
)
async def test_bad_challenges(
    service: GameService, kwargs: dict[str, object], error: type[Exception], words: str
) -> None:
    args: dict[str, object] = dict(location_id=1, challenger_id=ALICE)
    args.update(kwargs)
    with pytest.raises(error, match=words):
        await service.challenge(**args)  # type: ignore[arg-type]
    assert await service.list_games() == ()


async def test_variant_options_are_kept(service: GameService) -> None:
    started = await start(service, "jepps_random", options={"free_play": True})
    assert started.game.options == {"free_play": True}


# ----- acting and authorization ----------------------------------------------------


async def test_only_the_side_to_move_acts(service: GameService) -> None:
    started = await start(service, "tquarchess")
    with pytest.raises(NotAllowed, match="turn"):
        await service.act(location_id=1, user_id=BOB, text="e5")
    with pytest.raises(NotAllowed, match="not playing"):
        await service.act(location_id=1, user_id=CAROL, text="e4")
    moved = await service.act(location_id=1, user_id=ALICE, text="e2e4")
    assert moved.recorded == "e4" and moved.next_user_id == BOB
    assert moved.game.ply == started.game.ply + 1
    assert moved.game.last_move == "e4"
    with pytest.raises(NotAllowed):
        await service.act(location_id=1, user_id=ALICE, text="d4")


async def test_illegal_actions_have_clear_errors(service: GameService) -> None:
    await start(service, "tquarchess")
    for text, kind in [("Ke2", "illegal"), ("hello", "syntax"), ("e5", "illegal")]:
        with pytest.raises(IllegalAction) as info:
            await service.act(location_id=1, user_id=ALICE, text=text)
        assert "\n" not in str(info.value) and str(info.value)
        assert info.value.kind in {kind, "illegal", "syntax"}
    for text in ["", "   ", "x" * 500, "e4\x00"]:
        with pytest.raises(InvalidInput):
            await service.act(location_id=1, user_id=ALICE, text=text)
    assert (await service.view(location_id=1)).ply == 0


async def test_anyone_may_look(service: GameService) -> None:
    await start(service, "guardener")
    view = await service.view(location_id=1)
    assert view.status == "active"
    assert await service.legal_moves(location_id=1)
    history = await service.history(game_id=view.id)
    assert history.record.startswith('[Variant "guardener"]')
    assert history.start_rolls == tuple((4, d) for d in view.dice or ())
    assert "/" in await service.position(location_id=1)
    with pytest.raises(NotFound):
        await service.view(location_id=99)
    with pytest.raises(NotFound):
        await service.view(game_id=99)
    with pytest.raises(InvalidInput):
        await service.view()


async def test_rolls_are_stored_before_the_reply(service: GameService, db: Path) -> None:
    started = await start(service, "guardener")
    rng = random.Random(5)
    outcome = started
    for _ in range(10):
        legal = await service.legal_moves(location_id=1)
        outcome = await service.act(
            location_id=1, user_id=outcome.next_user_id, text=rng.choice(legal)
        )
        rows = raw(db, "SELECT text, rolls FROM actions ORDER BY seq DESC LIMIT 1")
        assert rows[0][0] == outcome.recorded
        stored = tuple(tuple(r) for r in __import__("json").loads(rows[0][1]))
        assert stored == outcome.rolls
        if outcome.game_over:
            break
        assert outcome.rolls  # Guardener rolls 2d4 at the start of every turn
        assert outcome.rolls[-2:] == tuple((4, d) for d in outcome.dice or ())


# ----- retries and races ------------------------------------------------------------


async def test_a_retried_request_applies_once(service: GameService) -> None:
    started = await start(service, "guardener")
    legal = await service.legal_moves(location_id=1)
    first = await service.act(location_id=1, user_id=ALICE, text=legal[0], request_id="int-1")
    again = await service.act(location_id=1, user_id=ALICE, text=legal[0], request_id="int-1")
    assert again.repeated and not first.repeated
    assert (again.recorded, again.rolls, again.game.dice) == (
        first.recorded,
        first.rolls,
        first.game.dice,
    )
    assert again.game.ply == first.game.ply == started.game.ply + 1
    # Still the original result after the game has moved on.
    nxt = await service.legal_moves(location_id=1)
    await service.act(location_id=1, user_id=BOB, text=nxt[0], request_id="int-2")
    later = await service.act(location_id=1, user_id=ALICE, text="anything", request_id="int-1")
    assert later.repeated and later.recorded == first.recorded and later.game.ply == 1
    assert later.game.dice == first.game.dice
    assert (await service.view(location_id=1)).ply == 2
    with pytest.raises(RequestConflict):
        await service.resign(location_id=1, user_id=ALICE, request_id="int-1")


async def test_a_retried_request_that_ended_the_game_gets_its_answer(
    service: GameService,
) -> None:
    """The retry of an action that ended the game finds no live game at the location: it
    is still answered as the action was (a repeat), and no other request is."""
    await start(service, "guardener")
    done = await service.resign(location_id=1, user_id=BOB, request_id="end-1")
    again = await service.resign(location_id=1, user_id=BOB, request_id="end-1")
    assert again.repeated and not done.repeated and again.game.result == done.game.result
    with pytest.raises(NotFound):
        await service.resign(location_id=1, user_id=BOB, request_id="end-2")
    # A move that ends the game, retried.
    outcome = await start(service, "kings_guard", location=2)
    rng = random.Random(5)
    for number in range(1_000):
        legal = await service.legal_moves(location_id=2)
        last = (outcome.next_user_id, rng.choice(legal), f"move-{number}")
        outcome = await service.act(
            location_id=2, user_id=last[0], text=last[1], request_id=last[2]
        )
        if outcome.game_over:
            break
    assert outcome.game_over
    retried = await service.act(location_id=2, user_id=last[0], text=last[1], request_id=last[2])
    assert retried.repeated and retried.recorded == outcome.recorded
    with pytest.raises(NotFound):
        await service.act(location_id=2, user_id=last[0], text=last[1], request_id="other")


async def test_expected_ply_rejects_a_stale_command(service: GameService) -> None:
    started = await start(service, "guardener")
    legal = await service.legal_moves(location_id=1)
    await service.act(location_id=1, user_id=ALICE, text=legal[0], expected_ply=started.game.ply)
    with pytest.raises(StaleAction):
        await service.act(location_id=1, user_id=BOB, text="e5", expected_ply=started.game.ply)


# ----- resign, draws, abort ---------------------------------------------------------


async def test_resign(service: GameService) -> None:
    await start(service, "guardener")
    with pytest.raises(NotAllowed):
        await service.resign(location_id=1, user_id=CAROL)
    done = await service.resign(location_id=1, user_id=BOB)  # not on move: still allowed
    assert done.game_over and done.game.result == "1-0" and done.game.winner == "white"
    assert done.game.seed is not None
    assert seed_commitment(done.game.seed) == done.game.commitment
    assert any("seed" in m for m in done.messages)
    with pytest.raises(NotFound):
        await service.act(location_id=1, user_id=ALICE, text="e4")
    with pytest.raises(InvalidState):
        await service.act(game_id=done.game.id, user_id=ALICE, text="e4")
    history = await service.history(game_id=done.game.id)
    assert '[Result "1-0"]' in history.record
    assert variants.replay(history.record).result.winner == "white"  # type: ignore[union-attr]


async def test_draw_offers(service: GameService) -> None:
    await start(service, "tquarchess")
    with pytest.raises(NotAllowed):
        await service.offer_draw(location_id=1, user_id=CAROL)
    with pytest.raises(InvalidState, match="no draw offer"):
        await service.accept_draw(location_id=1, user_id=BOB)
    offered = await service.offer_draw(location_id=1, user_id=ALICE)
    assert offered.game.draw_offer == "white"
    with pytest.raises(InvalidState, match="already"):
        await service.offer_draw(location_id=1, user_id=ALICE)
    with pytest.raises(InvalidState, match="own"):
        await service.accept_draw(location_id=1, user_id=ALICE)
    declined = await service.decline_draw(location_id=1, user_id=BOB)
    assert declined.game.draw_offer is None and not declined.game_over
    await service.offer_draw(location_id=1, user_id=ALICE)
    moved = await service.act(location_id=1, user_id=ALICE, text="e4")  # the offerer may move
    assert moved.game.draw_offer == "white"
    moved = await service.act(location_id=1, user_id=BOB, text="e5")  # moving instead declines
    assert moved.game.draw_offer is None
    await service.offer_draw(location_id=1, user_id=BOB)
    agreed = await service.offer_draw(location_id=1, user_id=ALICE)  # crossing offers agree
    assert agreed.game_over and agreed.game.result == "1/2-1/2"
    assert agreed.game.result_reason == "agreement"


async def test_abort_needs_the_moderator_flag(service: GameService) -> None:
    await start(service, "guardener")
    with pytest.raises(NotAllowed):
        await service.abort(location_id=1, user_id=ALICE, moderator=False)
    aborted = await service.abort(location_id=1, user_id=MOD, moderator=True, reason="spam")
    assert aborted.game.status == "aborted" and aborted.game.seed is not None
    assert aborted.game.result is None and aborted.game.result_reason == "spam"
    report = await service.verify(game_id=aborted.game.id)
    assert report.ok
    await service.challenge(location_id=1, challenger_id=ALICE, variant="guardener")
    assert (
        await service.abort(location_id=1, user_id=MOD, moderator=True)
    ).game.status == "aborted"


# ----- restart, replay, verify -------------------------------------------------------


@pytest.mark.parametrize("variant", variants.names())
async def test_every_variant_survives_a_restart(db: Path, variant: str) -> None:
    rng = random.Random(variant)
    first = await GameService.open(str(db), renderer=None)
    outcome = await play_random(first, await start(first, variant), 60, rng)
    before = await first.history(location_id=1)
    moves_before = await first.legal_moves(location_id=1)
    await first.close()

    second = await GameService.open(str(db), renderer=None)
    try:
        after = await second.history(location_id=1)
        assert after.record == before.record
        assert after.game == before.game
        assert after.game.dice == outcome.game.dice
        assert await second.legal_moves(location_id=1) == moves_before
        replayed = variants.replay(after.record)
        assert replayed.history == [e.text for e in after.entries if e.kind == "move"]
        outcome = await play_random(second, outcome, 10, rng)
        if not outcome.game_over:
            await second.resign(location_id=1, user_id=ALICE)
        report = await second.verify(game_id=outcome.game.id)
        assert report.ok, report.messages
    finally:
        await second.close()


async def test_verify_refuses_a_game_in_play(service: GameService) -> None:
    started = await start(service, "guardener")
    with pytest.raises(SeedNotRevealed, match=started.game.commitment):
        await service.verify(location_id=1)


async def finished_guardener(service: GameService, db: Path) -> int:
    outcome = await play_random(service, await start(service, "guardener"), 12, random.Random(9))
    if not outcome.game_over:
        await service.resign(location_id=1, user_id=ALICE)
    report = await service.verify(game_id=outcome.game.id)
    assert report.ok and report.rolls_checked >= 10 and not report.mismatches
    return outcome.game.id


async def test_verify_catches_a_tampered_roll(service: GameService, db: Path) -> None:
    gid = await finished_guardener(service, db)
    seq, rolls = raw(db, "SELECT seq, rolls FROM actions WHERE game_id = ? AND seq = 3", (gid,))[0]
    values = __import__("json").loads(rolls)
    values[0][1] = values[0][1] % 4 + 1  # another face of the same d4
    tamper(
        db,
        "UPDATE actions SET rolls = ? WHERE game_id = ? AND seq = ?",
        (__import__("json").dumps(values), gid, seq),
        triggers=("actions_no_update",),
    )
    report = await service.verify(game_id=gid)
    assert not report.ok
    assert len(report.mismatches) == 1
    mismatch = report.mismatches[0]
    assert mismatch.where.startswith("action 3")
    assert mismatch.stored == values[0][1]
    seed = raw(db, "SELECT seed FROM games WHERE id = ?", (gid,))[0][0]
    assert mismatch.expected == verifiable_roll(str(seed), gid, mismatch.index, 4)
    assert any("stored" in m for m in report.messages)


async def test_verify_catches_a_tampered_start_roll_and_seed(
    service: GameService, db: Path
) -> None:
    gid = await finished_guardener(service, db)
    (start_rolls,) = raw(db, "SELECT start_rolls FROM games WHERE id = ?", (gid,))[0]
    values = __import__("json").loads(start_rolls)
    values[1][1] = values[1][1] % 4 + 1
    tamper(
        db,
        "UPDATE games SET start_rolls = ? WHERE id = ?",
        (__import__("json").dumps(values), gid),
        triggers=("games_start_rolls_once",),
    )
    report = await service.verify(game_id=gid)
    assert not report.ok and report.mismatches[0].index == 1
    assert report.mismatches[0].where == "game start"
    tamper(
        db,
        "UPDATE games SET seed = 'not the seed' WHERE id = ?",
        (gid,),
        triggers=("games_seed_once",),
    )
    report = await service.verify(game_id=gid)
    assert not report.seed_matches and not report.ok


async def test_a_second_process_on_the_same_file_stays_consistent(db: Path) -> None:
    one = await GameService.open(str(db), renderer=None)
    two = await GameService.open(str(db), renderer=None)
    try:
        outcome = await start(one, "guardener")
        rng = random.Random(3)
        for turn in range(20):
            svc = (one, two)[turn % 2]
            legal = await svc.legal_moves(location_id=1)
            outcome = await svc.act(
                location_id=1, user_id=outcome.next_user_id, text=rng.choice(legal)
            )
            if outcome.game_over:
                break
        assert (await one.view(location_id=1)) == (await two.view(location_id=1))
        assert (await one.history(location_id=1)).record == (
            await two.history(location_id=1)
        ).record
    finally:
        await one.close()
        await two.close()


async def test_list_games(service: GameService) -> None:
    await start(service, "guardener", location=1)
    await service.challenge(location_id=2, challenger_id=CAROL, variant="tquarchess", guild_id=9)
    assert [g.id for g in await service.list_games()] == [2, 1]
    assert [g.id for g in await service.list_games(statuses=["active"])] == [1]
    assert [g.id for g in await service.list_games(player_id=CAROL)] == [2]
    assert [g.id for g in await service.list_games(guild_id=9)] == [2]
    with pytest.raises(InvalidInput):
        await service.list_games(statuses=["winning"])


def test_service_imports_no_discord() -> None:
    code = (
        "import sys, variants, storage, bot.service, bot.service.dice_expr; "
        "assert 'discord' not in sys.modules, 'discord imported'"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


async def test_locks_are_not_kept_for_idle_games(service: GameService) -> None:
    await play_random(service, await start(service, "guardener"), 5, random.Random(1))
    await service.view(location_id=1)
    assert service._game_locks == {} and service._location_locks == {}  # noqa: SLF001


async def test_verify_catches_a_rewritten_move(service: GameService, db: Path) -> None:
    gid = await finished_guardener(service, db)
    (text,) = raw(db, "SELECT text FROM actions WHERE game_id = ? AND seq = 2", (gid,))[0]
    tamper(
        db,
        "UPDATE actions SET text = 'pass' WHERE game_id = ? AND seq = 2",
        (gid,),
        triggers=("actions_no_update",),
    )
    report = await service.verify(game_id=gid)
    assert not report.ok and not report.mismatches
    assert report.replay_error is not None and "action 2" in report.replay_error
    assert text != "pass"
