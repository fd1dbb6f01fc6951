"""The computer opponent in the service (C13): a game against the computer to a
result through the same act path (logged, verifiable), the claim that makes each turn
thought about once across processes, resuming after a restart, and bad input. On both
stores (``store_target``): on PostgreSQL the claim is taken under the game's row lock."""

from __future__ import annotations

import asyncio
import random
import time
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

import variants
from bot.service import (
    COMPUTER_ID,
    ComputerBusy,
    ComputerRunner,
    GameService,
    InvalidInput,
    LocationBusy,
    ManualClock,
    Outcome,
    UnknownVariant,
)
from storage import LATEST_VERSION, open_repository

ALICE = 101


@pytest.fixture
def db(store_target: str) -> str:
    """An SQLite file, then a PostgreSQL database (tests/conftest.py)."""
    return store_target


async def open_service(db: Path, **kw: object) -> GameService:
    svc = await GameService.open(str(db), renderer=None, rng=random.Random(0), **kw)  # type: ignore[arg-type]
    svc.computer_budget_s = 0.05  # level 1 finishes its one iteration at once
    return svc


@pytest.fixture
async def service(db: Path):
    svc = await open_service(db)
    yield svc
    await svc.close()


class Posts:
    """A notifier that keeps what it is told."""

    def __init__(self) -> None:
        self.outcomes: list[Outcome] = []

    async def computer_moved(self, outcome: Outcome) -> None:
        self.outcomes.append(outcome)


async def test_a_game_against_the_computer_runs_to_a_result(service: GameService) -> None:
    posts = Posts()
    runner = ComputerRunner(service, posts)
    await runner.start()
    try:
        out = await service.play_computer(
            user_id=ALICE, location_id=1, variant="kings_guard", level=1, colour="black",
            seed="computer-game",
        )  # fmt: skip
        view = out.game
        assert view.computer == "white" and view.computer_level == 1
        assert view.white_id == COMPUTER_ID and view.black_id == ALICE
        assert "against the computer (level 1, white)" in out.messages[0]
        assert out.messages[1].startswith("Dice commitment: ")
        rng = random.Random(3)
        for _ in range(400):
            await runner.idle()
            view = await service.view(game_id=view.id)
            if view.is_over:
                break
            assert view.turn == "black"  # the computer has moved: it is Alice's turn
            legal = await service.legal_moves(game_id=view.id)
            await service.act(user_id=ALICE, text=rng.choice(legal), game_id=view.id)
        await runner.idle()
        view = await service.view(game_id=view.id)
        assert view.is_over and view.result is not None, "no result in 400 moves"
    finally:
        await runner.stop()
    history = await service.history(game_id=view.id)
    computer_moves = [e for e in history.entries if e.actor_id == COMPUTER_ID]
    assert computer_moves and all(e.kind == "move" for e in computer_moves)
    assert len(computer_moves) == runner.moves == len(posts.outcomes)
    assert [o.recorded for o in posts.outcomes] == [e.text for e in computer_moves]
    replayed = variants.replay(history.record)
    assert replayed.result is not None and replayed.result.score == view.result
    report = await service.verify(game_id=view.id)
    assert report.ok, report.problems


async def test_the_computer_as_black_waits_for_white(service: GameService) -> None:
    runner = ComputerRunner(service)
    await runner.start()
    try:
        out = await service.play_computer(
            user_id=ALICE, location_id=2, variant="tquarchess", level=2, colour="white"
        )
        await runner.idle()
        assert runner.moves == 0 and out.game.turn == "white" and out.game.computer == "black"
        assert await service.computer_move(game_id=out.game.id) is None  # not its turn
        await service.act(user_id=ALICE, text="e4", game_id=out.game.id)
        await runner.idle()
        view = await service.view(game_id=out.game.id)
        assert runner.moves == 1 and view.turn == "white" and view.ply == 2
    finally:
        await runner.stop()


async def test_guardener_rerolls_and_double_turns_are_played_through(
    service: GameService,
) -> None:
    """A side may act twice running (a re-roll): the runner keeps moving while it is
    the computer's turn."""
    runner = ComputerRunner(service)
    await runner.start()
    try:
        out = await service.play_computer(
            user_id=ALICE, location_id=3, variant="guardener", level=1, colour="black",
            seed="g",
        )  # fmt: skip
        rng = random.Random(1)
        for _ in range(6):
            await runner.idle()
            view = await service.view(game_id=out.game.id)
            if view.is_over:
                break
            assert view.turn == "black"
            legal = await service.legal_moves(game_id=view.id)
            await service.act(user_id=ALICE, text=rng.choice(legal), game_id=view.id)
    finally:
        await runner.stop()
    assert runner.moves >= 4


async def test_a_turn_is_claimed_once_across_processes(db: Path) -> None:
    start = datetime(2030, 1, 1, tzinfo=UTC)
    clock = ManualClock(start)
    one = await open_service(db, clock=clock)
    two = await open_service(db, clock=clock)
    try:
        out = await one.play_computer(
            user_id=ALICE, location_id=4, variant="stone_garden", level=1, colour="black"
        )
        game_id = out.game.id
        claim = await one.computer._claim_turn(game_id)  # one starts thinking, then "dies"
        assert claim is not None and claim.seq == 0 and claim.colour == "white"
        with pytest.raises(ComputerBusy) as busy:
            await two.computer_move(game_id=game_id)
        assert busy.value.until_ms == one._now_ms() + round(one.think_lease_s * 1000)
        assert (await two.view(game_id=game_id)).ply == 0
        clock.advance(timedelta(seconds=one.think_lease_s + 1))  # the claim runs out
        moved = await two.computer_move(game_id=game_id)
        assert moved is not None and moved.game.turn == "black" and moved.game.ply == 1
        # The first process's late move is refused: the game moved on.
        assert await one.computer_move(game_id=game_id) is None
        history = await two.history(game_id=game_id)
        assert [e.actor_id for e in history.entries] == [COMPUTER_ID]
    finally:
        await one.close()
        await two.close()


async def test_after_a_restart_the_computer_resumes_exactly_once(db: Path) -> None:
    first = await open_service(db)
    out = await first.play_computer(
        user_id=ALICE, location_id=5, variant="jepps_random", level=1, colour="black"
    )
    game_id = out.game.id
    await first.close()  # no runner ran: the computer's turn is waiting
    services = [await open_service(db) for _ in range(2)]
    runners = [ComputerRunner(s) for s in services]
    try:
        assert await services[0].computer_turns() == (game_id,)
        await asyncio.gather(*(r.start() for r in runners))
        for _ in range(3):
            await asyncio.gather(*(r.idle() for r in runners))
        history = await services[0].history(game_id=game_id)
        moves = [e for e in history.entries if e.actor_id == COMPUTER_ID]
        view = await services[0].view(game_id=game_id)
        # Jepps Random's setup: the computer places until it is Alice's turn.
        assert moves and view.turn == "black"
        assert sum(r.moves for r in runners) == len(moves)
        assert len({e.seq for e in history.entries}) == len(history.entries)
        assert await services[0].computer_turns() == ()
    finally:
        for r in runners:
            await r.stop()
        for s in services:
            await s.close()


async def test_after_a_restart_from_a_snapshot_the_computer_plays_on(db: Path) -> None:
    """A game restored from a snapshot knows its actions from there only; the computer's
    worker replays the whole record, so it must get the whole record (a console resume
    of a game of 16 actions or more crashed on a record that started mid-game)."""
    first = await open_service(db)
    runner = ComputerRunner(first)
    await runner.start()
    rng = random.Random(7)
    try:
        out = await first.play_computer(
            user_id=ALICE, location_id=6, variant="tquarchess", level=1, colour="black",
            seed="restart-from-a-snapshot",
        )  # fmt: skip
        game_id = out.game.id
        for _ in range(12):  # 24 actions: snapshots are taken every 8 log entries
            await runner.idle()
            legal = await first.legal_moves(game_id=game_id)
            await first.act(user_id=ALICE, text=rng.choice(legal), game_id=game_id)
    finally:
        await runner.stop()
        await first.close()  # the computer's turn waits; the snapshots are written
    again = await open_service(db)
    runner = ComputerRunner(again)
    try:
        view = await again.view(game_id=game_id)
        assert not view.is_over and view.turn == "white"
        assert again._cache[game_id].partial, "the game was not restored from a snapshot"
        await runner.start()
        await runner.idle()
        assert runner.moves >= 1
        view = await again.view(game_id=game_id)
        assert view.turn == "black" or view.is_over
        history = await again.history(game_id=game_id)
        assert variants.replay(history.record).fen() == await again.position(game_id=game_id)
    finally:
        await runner.stop()
        await again.close()


async def test_a_game_that_moved_on_while_the_computer_thought(service: GameService) -> None:
    out = await service.play_computer(
        user_id=ALICE, location_id=6, variant="kings_guard", level=1, colour="black"
    )
    original = service._in_process

    async def resign_first(*args: object) -> object:
        await service.resign(user_id=ALICE, game_id=out.game.id)
        return await original(*args)  # type: ignore[arg-type]

    service._in_process = resign_first  # type: ignore[method-assign,assignment]
    assert await service.computer_move(game_id=out.game.id) is None
    history = await service.history(game_id=out.game.id)
    assert [e.kind for e in history.entries] == ["resign"]
    assert history.game.winner == "white"


async def test_bad_input(service: GameService) -> None:
    base = dict(user_id=ALICE, location_id=7, variant="guardener", level=1)
    for change, error, words in [
        ({"level": 4}, InvalidInput, "level must be 1, 2 or 3"),
        ({"level": True}, InvalidInput, "level must be 1, 2 or 3"),
        ({"variant": "chess"}, UnknownVariant, "unknown variant"),
        ({"colour": "green"}, InvalidInput, "colour"),
        ({"user_id": COMPUTER_ID}, InvalidInput, "computer cannot play itself"),
    ]:
        with pytest.raises(error, match=words):
            await service.play_computer(**{**base, **change})  # type: ignore[arg-type]
    assert await service.list_games() == () or not await service.list_games()
    await service.play_computer(**base)  # type: ignore[arg-type]
    with pytest.raises(LocationBusy):
        await service.play_computer(**base)  # type: ignore[arg-type]


async def test_the_row_keeps_the_side_and_level(db: Path) -> None:
    svc = await open_service(db)
    out = await svc.play_computer(
        user_id=ALICE, location_id=8, variant="guardener", level=3, colour="white"
    )
    await svc.close()
    repo = await open_repository(str(db))
    try:
        assert await repo.schema_version() == LATEST_VERSION
        row = await repo.get_game(out.game.id)
        assert row is not None and row.computer == "black" and row.computer_level == 3
        assert row.thinking_seq is None and row.thinking_until_ms is None
    finally:
        await repo.close()


def test_the_service_knows_the_engine_levels_without_importing_it() -> None:
    import engine
    from bot.service import computer

    assert computer.LEVEL_NUMBERS == tuple(sorted(engine.LEVELS))
    assert computer.DEFAULT_BUDGET_S == engine.DEFAULT_BUDGET_S


async def test_each_shard_resumes_only_its_own_guilds_games(db: Path) -> None:
    from storage import Shards

    svc = await open_service(db)
    guilds = {0: 4 << 22, 1: 5 << 22}  # on shards 0 and 1 of 2
    ids = {}
    for shard, guild in guilds.items():
        out = await svc.play_computer(
            user_id=ALICE, location_id=20 + shard, variant="guardener", level=1,
            colour="black", guild_id=guild,
        )  # fmt: skip
        ids[shard] = out.game.id
    dm = await svc.play_computer(
        user_id=ALICE, location_id=30, variant="guardener", level=1, colour="black"
    )
    await svc.close()
    for shard in (0, 1):
        mine = await open_service(db, shards=Shards(2, (shard,)))
        try:
            expected = {ids[shard]} | ({dm.game.id} if shard == 0 else set())
            assert set(await mine.computer_turns()) == expected
        finally:
            await mine.close()


# ----- draw offers -------------------------------------------------------------------


def judging(service: GameService, score: float | None, seen: list[float]) -> None:
    """Run the real search in the worker, then (when ``score`` is given) let it report
    that score instead: the decision is then known in advance. ``seen`` collects the
    scores the service received."""
    from bot.service import computer

    original = service._in_process

    async def think(function: object, *args: object) -> object:
        choice = await original(function, *args)  # type: ignore[arg-type]
        if function is computer.think and score is not None:
            choice = replace(choice, score=score)
        if function is computer.think:
            seen.append(choice.score)
        return choice

    service._in_process = think  # type: ignore[method-assign,assignment]


async def test_the_computer_accepts_a_draw_when_it_is_not_better(service: GameService) -> None:
    """The real evaluation of the start position (level 1, Alice White to move, so the
    computer's score is minus the search's) is not better for the computer: it accepts,
    through accept_draw, as the computer."""
    from bot.service.computer import DRAW_ACCEPT_AT

    seen: list[float] = []
    judging(service, None, seen)
    runner = ComputerRunner(service)
    await runner.start()
    try:
        out = await service.play_computer(
            user_id=ALICE, location_id=40, variant="tquarchess", level=1, colour="white"
        )
        await service.offer_draw(user_id=ALICE, game_id=out.game.id)  # on Alice's turn
        await runner.idle()
    finally:
        await runner.stop()
    view = await service.view(game_id=out.game.id)
    assert len(seen) == 1 and -seen[0] <= DRAW_ACCEPT_AT
    assert view.is_over and view.result == "1/2-1/2" and view.result_reason == "agreement"
    history = await service.history(game_id=out.game.id)
    assert [(e.kind, e.actor_id) for e in history.entries] == [
        ("draw_offer", ALICE),
        ("draw_accept", COMPUTER_ID),
    ]


async def test_the_computer_declines_a_draw_when_better_and_play_goes_on(
    service: GameService,
) -> None:
    seen: list[float] = []
    judging(service, -0.4, seen)  # Alice to move scores -0.4: the computer is better
    runner = ComputerRunner(service)
    await runner.start()
    try:
        out = await service.play_computer(
            user_id=ALICE, location_id=41, variant="stone_garden", level=1, colour="white"
        )
        await service.offer_draw(user_id=ALICE, game_id=out.game.id)
        await runner.idle()
        view = await service.view(game_id=out.game.id)
        assert not view.is_over and view.draw_offer is None and view.turn == "white"
        legal = await service.legal_moves(game_id=out.game.id)
        await service.act(user_id=ALICE, text=legal[0], game_id=out.game.id)
        await runner.idle()
    finally:
        await runner.stop()
    history = await service.history(game_id=out.game.id)
    assert [(e.kind, e.actor_id) for e in history.entries] == [
        ("draw_offer", ALICE), ("draw_decline", COMPUTER_ID), ("move", ALICE),
        ("move", COMPUTER_ID),
    ]  # fmt: skip
    assert seen[0] == -0.4


@pytest.mark.parametrize(("score", "accepted"), [(0.05, True), (0.06, False), (-0.5, True)])
async def test_an_offer_on_the_computers_turn_is_answered_before_it_moves(
    service: GameService, score: float, accepted: bool
) -> None:
    """The computer plays White: it is its turn when Alice offers. Its move's own search
    (``score``, the computer's: it is to move) answers the offer: accept at or below
    0.05 (no move), or decline logged before its move."""
    seen: list[float] = []
    judging(service, score, seen)
    out = await service.play_computer(
        user_id=ALICE, location_id=42, variant="kings_guard", level=1, colour="black"
    )
    await service.offer_draw(user_id=ALICE, game_id=out.game.id)
    done = await service.computer_move(game_id=out.game.id)
    assert done is not None and seen == [score]
    history = await service.history(game_id=out.game.id)
    kinds = [(e.kind, e.actor_id) for e in history.entries]
    if accepted:
        assert done.game.is_over and done.game.result_reason == "agreement"
        assert kinds == [("draw_offer", ALICE), ("draw_accept", COMPUTER_ID)]
    else:
        assert not done.game.is_over and done.game.turn == "black"
        assert kinds == [
            ("draw_offer", ALICE),
            ("draw_decline", COMPUTER_ID),
            ("move", COMPUTER_ID),
        ]
        assert done.messages[0] == "White declines the draw."


async def test_no_offer_nothing_to_answer(service: GameService) -> None:
    out = await service.play_computer(
        user_id=ALICE, location_id=43, variant="guardener", level=1, colour="white"
    )
    assert await service.computer_move(game_id=out.game.id) is None  # Alice's turn, no offer
    assert (await service.history(game_id=out.game.id)).entries == ()


# ----- the computer's promise: the search's share of a move's time (issue 26) ---------


def test_the_search_gets_the_promise_less_what_surrounds_it() -> None:
    from bot.service.computer import AFTER_SEARCH_S, MIN_SEARCH_S, search_budget

    assert 0 < AFTER_SEARCH_S < 0.5 and 0 < MIN_SEARCH_S < 2.0 - AFTER_SEARCH_S
    assert search_budget(2.0) == pytest.approx(2.0 - AFTER_SEARCH_S)
    assert search_budget(2.0, 0.5) == pytest.approx(1.5 - AFTER_SEARCH_S)
    assert search_budget(2.0, 5.0) == MIN_SEARCH_S  # late: still a short search
    assert search_budget(0.05, 1.0) == 0.05  # a budget under the least: the search's whole


def test_the_worker_pays_for_the_time_before_the_search(monkeypatch: pytest.MonkeyPatch) -> None:
    """In the worker, the time since the move began (its claim, a wait for a free worker,
    the engine's import) comes out of the search's budget, with ``AFTER_SEARCH_S``; the
    choice comes back in the service's own class, with the time the worker finished."""
    import engine
    from bot.service import computer

    budgets: list[float] = []
    real = engine.choose

    def choose(record: str, level: int, budget_s: float, seed: int) -> engine.Choice:
        budgets.append(budget_s)
        return real(record, 1, 0.05, seed)  # the budget is what is under test

    monkeypatch.setattr(engine, "choose", choose)
    game = variants.new_game("kings_guard", seed=1)
    late = computer.think(game.record(), 3, 2.0, 7, time.monotonic() - 0.7)
    now = computer.think(game.record(), 3, 2.0, 7)
    assert budgets[0] <= 2.0 - computer.AFTER_SEARCH_S - 0.7
    assert budgets[0] < budgets[1] <= 2.0 - computer.AFTER_SEARCH_S
    assert isinstance(late, computer.Thought) and late.action in game.legal_moves()
    assert late.ended <= now.ended <= time.monotonic()


async def test_moves_and_draw_answers_start_the_promise_when_they_begin(
    service: GameService,
) -> None:
    """``computer_move`` and ``offer_draw_to_computer`` give the worker the whole budget
    and the moment they began, before the claim or the reading of the game."""
    from bot.service import computer

    calls: list[tuple[object, tuple[object, ...], float, float]] = []
    original = service._in_process

    async def spy(function: object, *args: object) -> object:
        calls.append((function, args, began, time.monotonic()))
        return await original(function, *args)  # type: ignore[arg-type]

    service._in_process = spy  # type: ignore[method-assign,assignment]
    service.computer_budget_s = 1.5  # level 1: one iteration, at once
    out = await service.play_computer(
        user_id=ALICE, location_id=44, variant="kings_guard", level=1, colour="black"
    )
    began = time.monotonic()
    assert await service.computer_move(game_id=out.game.id) is not None
    began = time.monotonic()
    await service.offer_draw_to_computer(user_id=ALICE, game_id=out.game.id)
    assert len(calls) == 2
    for function, args, before, at in calls:
        assert function is computer.think and args[2] == 1.5
        assert isinstance(args[4], float) and before <= args[4] <= at
