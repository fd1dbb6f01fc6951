"""Aborts (issue 9, contract C5): a moderator who plays in a started game may not abort it
(they may resign); aborting a challenge is fine; every abort is logged with who and why
and shows in the history."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from bot.service import GameService, NotAllowed

ALICE, BOB, MOD = 101, 202, 404


@pytest.fixture
async def service(tmp_path: Path):
    svc = await GameService.open(
        str(tmp_path / "abort.sqlite3"), renderer=None, rng=random.Random(0)
    )
    yield svc
    await svc.close()


async def started(service: GameService, location: int = 1) -> int:
    await service.challenge(
        location_id=location, challenger_id=ALICE, opponent_id=BOB, variant="guardener"
    )
    return (await service.accept(location_id=location, user_id=BOB)).game.id


@pytest.mark.parametrize("player", [ALICE, BOB])
async def test_a_moderator_who_plays_may_not_abort_a_started_game(
    service: GameService, player: int
) -> None:
    gid = await started(service)
    with pytest.raises(NotAllowed, match="you play in this game; resign instead"):
        await service.abort(game_id=gid, user_id=player, moderator=True, reason="bad dice")
    view = await service.view(game_id=gid)
    assert view.status == "active" and view.seed is None  # nothing changed, nothing revealed
    assert (await service.history(game_id=gid)).entries == ()
    resigned = await service.resign(game_id=gid, user_id=player)  # this they may do
    assert resigned.game.status == "finished" and resigned.game.result_reason == "resignation"


async def test_a_moderator_may_abort_their_own_challenge(service: GameService) -> None:
    made = await service.challenge(
        location_id=1, challenger_id=ALICE, opponent_id=BOB, variant="guardener"
    )
    aborted = await service.abort(location_id=1, user_id=ALICE, moderator=True, reason="oops")
    assert aborted.game.status == "aborted" and aborted.game.seed is None
    assert aborted.messages == (f"Game {made.game.id} aborted by player {ALICE}: oops.",)
    entry = (await service.history(game_id=made.game.id)).entries[-1]
    assert (entry.kind, entry.actor_id, entry.text) == ("abort", ALICE, "oops")


async def test_every_abort_is_logged_with_who_and_why(service: GameService) -> None:
    gid = await started(service)
    aborted = await service.abort(game_id=gid, user_id=MOD, moderator=True, reason="spam")
    assert aborted.messages[0] == f"Game {gid} aborted by player {MOD}: spam."
    assert aborted.game.result is None and aborted.game.result_reason == "spam"
    history = await service.history(game_id=gid)
    entry = history.entries[-1]
    assert (entry.kind, entry.actor_id, entry.text) == ("abort", MOD, "spam")
    assert (await service.verify(game_id=gid)).ok
    # without a reason, the log still says who
    other = await started(service, location=2)
    await service.abort(game_id=other, user_id=MOD, moderator=True)
    entry = (await service.history(game_id=other)).entries[-1]
    assert (entry.kind, entry.actor_id, entry.text) == ("abort", MOD, "aborted by a moderator")
