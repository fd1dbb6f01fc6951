"""Withdrawing a game nobody has seen (``GameService.withdraw``), holding the computer until
its game is visible (``play_computer(hold=True)``, ``release_computer``), and a draw offered
to the computer, answered in one transaction (``offer_draw_to_computer``). On both stores."""

from __future__ import annotations

import random

import pytest

import bot.service.computer_draw as computer_draw
from bot.service import (
    COMPUTER_ID,
    RESERVED_IDS,
    ComputerRunner,
    GameService,
    InvalidState,
    NotAllowed,
    Outcome,
    StaleAction,
    is_person,
)

ALICE, BOB = 101, 102


@pytest.fixture
async def service(store_target: str):
    svc = await GameService.open(store_target, renderer=None, rng=random.Random(0))
    svc.computer_budget_s = 0.05  # level 1 finishes its one iteration at once
    yield svc
    await svc.close()


class Posts:
    def __init__(self) -> None:
        self.outcomes: list[Outcome] = []

    async def computer_moved(self, outcome: Outcome) -> None:
        self.outcomes.append(outcome)


async def live_games(service: GameService) -> int:
    return len(await service.list_games(statuses=("challenge", "active"), limit=100))


async def test_a_challenge_is_withdrawn_as_cancelled(service: GameService) -> None:
    made = await service.challenge(
        challenger_id=ALICE, location_id=10, variant="kings_guard", opponent_id=BOB
    )
    with pytest.raises(NotAllowed):
        await service.withdraw(user_id=BOB, game_id=made.game.id, reason="not his")
    out = await service.withdraw(user_id=ALICE, game_id=made.game.id, reason="post failed")
    assert out.game.status == "cancelled" and await live_games(service) == 0
    assert (await service.history(game_id=made.game.id)).entries == ()  # a challenge has no log
    with pytest.raises(InvalidState, match="already over"):
        await service.withdraw(user_id=ALICE, game_id=made.game.id, reason="again")


async def test_a_held_computer_game_waits_and_a_withdrawn_one_is_never_played(
    service: GameService,
) -> None:
    posts = Posts()
    runner = ComputerRunner(service, posts)
    await runner.start()
    try:
        out = await service.play_computer(
            user_id=ALICE, location_id=11, variant="kings_guard", level=1, colour="black",
            hold=True,
        )  # fmt: skip
        await runner.idle()
        assert runner.moves == 0 and runner.thinking == ()  # held: not woken
        withdrawn = await service.withdraw(
            user_id=ALICE, game_id=out.game.id, reason="its first post failed"
        )
        assert withdrawn.game.status == "aborted"
        await service.release_computer(game_id=out.game.id)  # too late: nothing to play
        await runner.idle()
        assert runner.moves == 0 and posts.outcomes == []
        assert await live_games(service) == 0
        history = await service.history(game_id=out.game.id)
        (entry,) = history.entries
        assert entry.kind == "abort" and entry.actor_id == ALICE
        assert entry.text == "withdrawn: its first post failed"
        assert await service.computer_turns() == ()
    finally:
        await runner.stop()


async def test_a_released_game_is_played(service: GameService) -> None:
    runner = ComputerRunner(service, Posts())
    await runner.start()
    try:
        out = await service.play_computer(
            user_id=ALICE, location_id=12, variant="kings_guard", level=1, colour="black",
            hold=True,
        )  # fmt: skip
        await service.release_computer(game_id=out.game.id)
        await runner.idle()
        assert runner.moves == 1
        assert (await service.view(game_id=out.game.id)).turn == "black"
    finally:
        await runner.stop()


async def test_the_computers_moves_do_not_stop_a_withdrawal_a_persons_do(
    service: GameService,
) -> None:
    out = await service.play_computer(
        user_id=ALICE, location_id=13, variant="kings_guard", level=1, colour="black"
    )
    moved = await service.computer_move(game_id=out.game.id)
    assert moved is not None and moved.game.turn == "black"
    done = await service.withdraw(user_id=ALICE, game_id=out.game.id, reason="post failed")
    assert done.game.status == "aborted"
    # a game where the person has moved is theirs to resign, not to withdraw
    other = await service.play_computer(
        user_id=ALICE, location_id=14, variant="kings_guard", level=1, colour="white"
    )
    legal = await service.legal_moves(game_id=other.game.id)
    await service.act(user_id=ALICE, text=legal[0], game_id=other.game.id)
    with pytest.raises(InvalidState, match="has begun"):
        await service.withdraw(user_id=ALICE, game_id=other.game.id, reason="too late")
    assert (await service.view(game_id=other.game.id)).status == "active"


@pytest.mark.parametrize("accept", [False, True])
async def test_a_draw_offered_to_the_computer_is_answered_in_one_transaction(
    service: GameService, monkeypatch: pytest.MonkeyPatch, accept: bool
) -> None:
    # the threshold decides; the search itself is the real one
    monkeypatch.setattr(computer_draw, "DRAW_ACCEPT_AT", 2.0 if accept else -2.0)
    woken: list[int] = []
    service.add_computer_listener(woken.append)
    out = await service.play_computer(
        user_id=ALICE, location_id=15, variant="kings_guard", level=1, colour="white"
    )
    woken.clear()
    answer = await service.offer_draw_to_computer(
        user_id=ALICE, game_id=out.game.id, request_id="offer-1"
    )
    assert answer.accepted is accept
    assert woken == []  # no offer ever stood: nothing for the runner to answer or post
    history = await service.history(game_id=out.game.id)
    kinds = [(e.kind, e.actor_id) for e in history.entries]
    answer_kind = "draw_accept" if accept else "draw_decline"
    assert kinds == [("draw_offer", ALICE), (answer_kind, COMPUTER_ID)]
    view = await service.view(game_id=out.game.id)
    assert view.draw_offer is None
    assert view.status == ("finished" if accept else "active")
    # a retried request (Discord redelivers an interaction) gets the same answer, even
    # after the end, and logs nothing more
    again = await service.offer_draw_to_computer(
        user_id=ALICE, game_id=out.game.id, request_id="offer-1"
    )
    assert again.accepted is accept and again.outcome.repeated
    assert len((await service.history(game_id=out.game.id)).entries) == 2
    if accept:
        assert view.result == "1/2-1/2" and view.result_reason == "agreement"
        assert (await service.verify(game_id=out.game.id)).ok


async def test_a_draw_offer_on_the_computers_turn_or_by_another_is_refused(
    service: GameService,
) -> None:
    out = await service.play_computer(
        user_id=ALICE, location_id=16, variant="kings_guard", level=1, colour="black"
    )  # the computer is White: its turn
    with pytest.raises(InvalidState, match="offer the draw on your turn"):
        await service.offer_draw_to_computer(user_id=ALICE, game_id=out.game.id)
    await service.computer_move(game_id=out.game.id)
    with pytest.raises(NotAllowed):
        await service.offer_draw_to_computer(user_id=BOB, game_id=out.game.id)
    assert (await service.history(game_id=out.game.id)).entries[-1].kind == "move"
    people = await service.challenge(
        challenger_id=ALICE, location_id=17, variant="kings_guard", opponent_id=BOB
    )
    with pytest.raises(InvalidState):
        await service.offer_draw_to_computer(user_id=ALICE, game_id=people.game.id)


async def test_a_game_that_moved_on_during_the_search_is_not_answered(
    service: GameService, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = await service.play_computer(
        user_id=ALICE, location_id=18, variant="kings_guard", level=1, colour="white"
    )
    real = service._in_process

    async def meanwhile(*args: object) -> object:
        result = await real(*args)  # type: ignore[arg-type]
        legal = await service.legal_moves(game_id=out.game.id)  # Alice moves meanwhile
        await service.act(user_id=ALICE, text=legal[0], game_id=out.game.id)
        return result

    monkeypatch.setattr(service, "_in_process", meanwhile)
    with pytest.raises(StaleAction, match="moved on"):
        await service.offer_draw_to_computer(user_id=ALICE, game_id=out.game.id)
    kinds = [e.kind for e in (await service.history(game_id=out.game.id)).entries]
    assert "draw_offer" not in kinds


def test_reserved_ids_name_no_person() -> None:
    from bot.console import session as console

    assert {console.WHITE_ID, console.BLACK_ID, COMPUTER_ID} == set(RESERVED_IDS)
    assert not any(is_person(i) for i in (*RESERVED_IDS, None))
    assert is_person(1_100_000_000_000_000_001)
