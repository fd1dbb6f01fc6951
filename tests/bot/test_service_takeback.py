"""Takebacks by agreement (issue 27): one player asks, the other accepts or declines; the
computer agrees at levels 1 and 2 only. The take-back is logged as ``undo`` entries, as
the console's undo is, and ``verify`` checks them. On both stores (``store_target``)."""

from __future__ import annotations

import random
from typing import Any

import pytest

import variants
from bot.service import GameService, InvalidState, NotAllowed, Outcome
from bot.service.takeback import may_offer_takeback
from variants.dice import VerifiableDice

WHITE, BLACK = 1001, 1002


@pytest.fixture
async def service(store_target: str) -> Any:
    service = await GameService.open(
        store_target, renderer=None, dice_renderer=None, rng=random.Random(1)
    )
    yield service
    await service.close()


async def start(service: GameService, variant: str, location: int = 5, days: Any = None) -> Outcome:
    made = await service.challenge(
        location_id=location,
        challenger_id=WHITE,
        opponent_id=BLACK,
        variant=variant,
        colour="white",
        days=days,
    )
    return await service.accept(game_id=made.game.id, user_id=BLACK, seed="t", render=False)


async def play(service: GameService, game_id: int, *moves: str) -> Outcome:
    outcome: Outcome | None = None
    for move in moves:
        view = await service.view(game_id=game_id)
        mover = WHITE if view.turn == "white" else BLACK
        outcome = await service.act(game_id=game_id, user_id=mover, text=move, render=False)
    assert outcome is not None
    return outcome


def mirror(variant: str, game_id: int, *moves: str) -> Any:
    game = variants.new_game(variant, dice=VerifiableDice("t", game_id))
    for move in moves:
        game.play(move)
    return game


async def test_request_accept_takes_back_and_verifies(service: GameService) -> None:
    game = (await start(service, "kings_guard", days=3)).game
    await play(service, game.id, "e3", "e6", "Nf3")
    asked = await service.request_takeback(game_id=game.id, user_id=WHITE)
    assert asked.image is None and asked.messages[0] == "White asks to take back Nf3."
    with pytest.raises(NotAllowed, match="your opponent answers it"):
        await service.accept_takeback(game_id=game.id, user_id=WHITE)
    with pytest.raises(InvalidState, match="already asked"):
        await service.request_takeback(game_id=game.id, user_id=WHITE)
    back = await service.accept_takeback(game_id=game.id, user_id=BLACK, render=False)
    assert back.messages[0] == "White takes back Nf3; black agreed."
    assert back.game.turn == "white" and back.game.ply == 2
    assert back.legal == tuple(mirror("kings_guard", game.id, "e3", "e6").legal_moves())
    # the clock is White's again, and the request is gone
    row = await service.repo.get_game(game.id)
    assert row is not None and row.clock_side == "white" and row.takeback_offer is None
    with pytest.raises(InvalidState, match="no takeback request"):
        await service.accept_takeback(game_id=game.id, user_id=BLACK)
    history = await service.history(game_id=game.id)
    assert [e.kind for e in history.entries][-1] == "undo"
    assert history.entries[-1].text == "undo Nf3"
    await play(service, game.id, "d3")
    await service.resign(game_id=game.id, user_id=BLACK)
    report = await service.verify(game_id=game.id)
    assert report.ok, report.messages


async def test_the_player_to_move_takes_back_the_reply_too(service: GameService) -> None:
    game = (await start(service, "kings_guard")).game
    await play(service, game.id, "e3", "e6")
    # White is to move; White's takeback takes back e5 and e4
    await service.request_takeback(game_id=game.id, user_id=WHITE)
    back = await service.accept_takeback(game_id=game.id, user_id=BLACK)
    assert back.messages[0] == "White takes back e3 and e6; black agreed."
    assert back.game.ply == 0 and back.game.turn == "white"
    history = await service.history(game_id=game.id)
    assert [e.text for e in history.entries][-2:] == ["undo e6", "undo e3"]


async def test_decline_and_a_stale_request(service: GameService) -> None:
    game = (await start(service, "kings_guard")).game
    await play(service, game.id, "e3")
    await service.request_takeback(game_id=game.id, user_id=WHITE)
    declined = await service.decline_takeback(game_id=game.id, user_id=BLACK)
    assert declined.messages == ("Black declines the takeback; the game goes on.",)
    with pytest.raises(InvalidState, match="no takeback request"):
        await service.accept_takeback(game_id=game.id, user_id=BLACK)
    await service.request_takeback(game_id=game.id, user_id=WHITE)
    await play(service, game.id, "e6")  # Black moves instead of answering: it lapses
    with pytest.raises(InvalidState, match="no takeback request"):
        await service.accept_takeback(game_id=game.id, user_id=BLACK)
    with pytest.raises(NotAllowed, match="not playing"):
        await service.request_takeback(game_id=game.id, user_id=77)
    assert (await service.view(game_id=game.id)).ply == 2


async def test_refused_after_a_roll(service: GameService) -> None:
    game = (await start(service, "guardener")).game
    view = await service.view(game_id=game.id)
    legal = await service.legal_moves(game_id=game.id)
    await play(service, game.id, legal[0])
    with pytest.raises(InvalidState, match="dice were rolled with it or since"):
        await service.request_takeback(game_id=game.id, user_id=WHITE)
    assert not may_offer_takeback(await service.view(game_id=game.id))
    assert view.dice  # (Guardener rolls at every turn)


async def test_the_computer_agrees_at_level_1_and_refuses_at_level_3(
    service: GameService,
) -> None:
    service.computer_budget_s = 0.05
    easy = await service.play_computer(
        user_id=WHITE, location_id=11, variant="kings_guard", level=1, colour="white",
        seed="c", render=False,
    )  # fmt: skip
    await service.act(game_id=easy.game.id, user_id=WHITE, text="e3", render=False)
    replied = await service.computer_move(game_id=easy.game.id)
    assert replied is not None and replied.game.turn == "white"
    back = await service.request_takeback(game_id=easy.game.id, user_id=WHITE, render=False)
    assert back.messages[0].startswith("The computer agrees: white takes back e3 and ")
    assert back.game.ply == 0 and back.game.turn == "white"

    hard = await service.play_computer(
        user_id=WHITE, location_id=12, variant="kings_guard", level=3, colour="white",
        seed="d", render=False,
    )  # fmt: skip
    await service.act(game_id=hard.game.id, user_id=WHITE, text="e3", render=False)
    with pytest.raises(InvalidState, match="the computer is thinking"):
        await service.request_takeback(game_id=hard.game.id, user_id=WHITE)
    await service.computer_move(game_id=hard.game.id, budget_s=0.05)
    with pytest.raises(NotAllowed, match="level 3 does not take moves back"):
        await service.request_takeback(game_id=hard.game.id, user_id=WHITE)
    assert (await service.view(game_id=hard.game.id)).ply == 2
