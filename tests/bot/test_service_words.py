"""What the service adds for the front ends of issue 11: the status in words with every
outcome (``Outcome.status``), the text board (``GameService.text_board``), and the
engine's refusal carried by ``IllegalAction`` (contract C2)."""

from __future__ import annotations

import random
import threading
from pathlib import Path
from typing import Any

import pytest

import variants
from bot.service import GameService, IllegalAction, InvalidInput, InvalidState, Outcome
from variants.dice import VerifiableDice

ALICE, BOB = 101, 202


@pytest.fixture
async def service(tmp_path: Path) -> Any:
    service = await GameService.open(
        str(tmp_path / "words.sqlite3"), renderer=None, dice_renderer=None, rng=random.Random(1)
    )
    yield service
    await service.close()


async def start(service: GameService, variant: str, seed: str = "s") -> Outcome:
    made = await service.challenge(
        location_id=1, challenger_id=ALICE, opponent_id=BOB, variant=variant, colour="white"
    )
    return await service.accept(game_id=made.game.id, user_id=BOB, seed=seed, render=False)


def engine(variant: str, seed: str = "s", game_id: int = 1) -> variants.Game:
    return variants.new_game(variant, dice=VerifiableDice(seed, game_id))


@pytest.mark.parametrize("variant", variants.names())
async def test_every_outcome_carries_the_status_in_words(
    service: GameService, variant: str
) -> None:
    outcome = await start(service, variant)
    mirror = engine(variant)
    assert outcome.status == variants.describe(mirror)
    rng = random.Random(variant)
    for _ in range(8):
        move = rng.choice(mirror.legal_moves())
        mirror.play(move)
        mover = outcome.next_user_id
        assert mover is not None
        outcome = await service.act(game_id=outcome.game.id, user_id=mover, text=move, render=False)
        assert outcome.status == variants.describe(mirror)
    resigned = await service.resign(game_id=outcome.game.id, user_id=ALICE)
    assert resigned.status is not None and resigned.status.phase == "over"
    assert resigned.status.headline == "Game over: Black wins (resignation)"


async def test_the_status_is_computed_off_the_event_loop(service: GameService) -> None:
    seen: set[int] = set()
    real = variants.describe

    def spying(game: variants.Game) -> variants.Status:
        seen.add(threading.get_ident())
        return real(game)

    variants_describe = "bot.service.workers.variants.describe"
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(variants_describe, spying)
        outcome = await start(service, "guardener")
        await service.act(
            game_id=outcome.game.id, user_id=ALICE, text=outcome.legal[0], render=False
        )
    assert seen and threading.get_ident() not in seen


async def test_text_board_from_either_side(service: GameService) -> None:
    outcome = await start(service, "tquarchess")
    await service.act(game_id=outcome.game.id, user_id=ALICE, text="e4", render=False)
    mirror = engine("tquarchess")
    mirror.play("e4")
    shown = await service.text_board(game_id=outcome.game.id)
    assert shown.orientation == "black"  # the side to act, by default
    assert shown.board == variants.text_board(mirror, orientation="black")
    assert shown.status == variants.describe(mirror)
    assert shown.game.ply == 1 and shown.game.turn == "black"
    white = await service.text_board(game_id=outcome.game.id, orientation="white")
    assert white.board == variants.text_board(mirror, orientation="white")
    with pytest.raises(InvalidInput):
        await service.text_board(game_id=outcome.game.id, orientation="mover")
    await service.resign(game_id=outcome.game.id, user_id=BOB)
    over = await service.text_board(game_id=outcome.game.id)
    assert over.orientation == "white" and over.status.phase == "over"


async def test_a_challenge_has_no_text_board(service: GameService) -> None:
    made = await service.challenge(location_id=5, challenger_id=ALICE, variant="kings_guard")
    with pytest.raises(InvalidState, match="has not started"):
        await service.text_board(game_id=made.game.id)


@pytest.mark.parametrize(
    ("variant", "text", "cause"),
    [("kings_guard", "exd5", "unreachable"), ("kings_guard", "zz", "notation")],
)
async def test_an_illegal_action_carries_the_engines_refusal(
    service: GameService, variant: str, text: str, cause: str
) -> None:
    outcome = await start(service, variant)
    with pytest.raises(IllegalAction) as refused:
        await service.act(game_id=outcome.game.id, user_id=ALICE, text=text, render=False)
    expected = engine(variant).explain(text)
    assert refused.value.refusal == expected
    assert expected is not None and expected.cause == cause
    assert str(refused.value).startswith(str(expected))  # the message passes through unchanged
