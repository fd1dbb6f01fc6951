"""Fair dice from the first roll (issue 9, contract C4): no die of a game is drawn, stored
or shown before the challenge is accepted, so cancelling and challenging again gives the
challenger nothing, and the commitment is published with the first dice."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

import pytest

from bot.service import GameService, InvalidState, ServiceError
from variants.dice import seed_commitment, verifiable_roll

ALICE, BOB = 101, 202


class Seeds:
    """A seed factory that counts the seeds it hands out."""

    def __init__(self) -> None:
        self.made: list[str] = []

    def __call__(self) -> str:
        self.made.append(f"seed-{len(self.made)}")
        return self.made[-1]


@pytest.fixture
def seeds() -> Seeds:
    return Seeds()


@pytest.fixture
async def service(tmp_path: Path, seeds: Seeds):
    svc = await GameService.open(
        str(tmp_path / "dice.sqlite3"), renderer=None, rng=random.Random(0), seed_factory=seeds
    )
    yield svc
    await svc.close()


def stored(service: GameService, game_id: int) -> tuple[object, ...]:
    conn = sqlite3.connect(service.repo.path)  # type: ignore[attr-defined]
    try:
        return conn.execute(
            "SELECT seed, commitment, start_rolls, "
            "(SELECT count(*) FROM actions WHERE game_id = games.id) FROM games WHERE id = ?",
            (game_id,),
        ).fetchone()
    finally:
        conn.close()


@pytest.mark.parametrize("variant", ["guardener", "jepps_random"])  # both roll at the start
async def test_a_challenge_has_no_dice_anywhere(
    service: GameService, seeds: Seeds, variant: str
) -> None:
    made = await service.challenge(
        location_id=1, challenger_id=ALICE, opponent_id=BOB, variant=variant, colour="white"
    )
    gid = made.game.id
    assert made.dice is None and made.rolls == () and made.image is None
    assert made.game.commitment is None and made.game.seed is None
    assert seeds.made == []  # not even a seed exists yet
    assert stored(service, gid) == (None, None, "[]", 0)
    assert (await service.view(game_id=gid)).dice is None
    history = await service.history(game_id=gid)  # /history of a pending challenge
    assert history.start_rolls == () and history.entries == () and history.record == ""
    assert history.game.dice is None and history.game.commitment is None
    assert await service.legal_moves(game_id=gid) == ()
    with pytest.raises(InvalidState, match="drawn when it is accepted"):
        await service.board(game_id=gid)
    with pytest.raises(InvalidState):
        await service.position(game_id=gid)
    with pytest.raises(ServiceError):
        await service.verify(game_id=gid)


async def test_cancelling_and_challenging_again_gives_nothing(
    service: GameService, seeds: Seeds
) -> None:
    # The finding: a challenger cancelled and re-challenged until the opening dice suited
    # them (25 tries to open on [4 4]). Now a cancelled challenge never had any dice.
    for _ in range(25):
        made = await service.challenge(
            location_id=1, challenger_id=ALICE, opponent_id=BOB, variant="guardener"
        )
        assert made.dice is None and made.game.commitment is None
        assert stored(service, made.game.id)[:3] == (None, None, "[]")
        cancelled = await service.cancel(location_id=1, user_id=ALICE)
        assert cancelled.game.seed is None and cancelled.messages == (
            f"Game {made.game.id}: challenge cancelled.",
        )
    assert seeds.made == []


async def test_the_seed_is_drawn_at_acceptance_and_committed_before_the_first_dice(
    service: GameService, seeds: Seeds
) -> None:
    made = await service.challenge(
        location_id=1, challenger_id=ALICE, opponent_id=BOB, variant="guardener", colour="white"
    )
    started = await service.accept(location_id=1, user_id=BOB)
    assert seeds.made == ["seed-0"]
    commitment = seed_commitment("seed-0")
    assert started.game.commitment == commitment
    lines = list(started.messages)
    first_dice = next(i for i, line in enumerate(lines) if "[" in line)
    assert lines.index(f"Dice commitment: {commitment}") < first_dice
    dice = tuple(verifiable_roll("seed-0", made.game.id, k, 4) for k in range(2))
    assert started.dice == dice
    # stored with the acceptance, in the same transaction, before anyone saw them
    assert stored(service, made.game.id)[:3] == (
        "seed-0",
        commitment,
        f"[[4,{dice[0]}],[4,{dice[1]}]]",
    )
    history = await service.history(game_id=made.game.id)
    assert history.start_rolls == ((4, dice[0]), (4, dice[1]))
    assert history.game.seed is None  # secret until the game ends


async def test_a_declined_challenge_never_had_dice(service: GameService, seeds: Seeds) -> None:
    made = await service.challenge(
        location_id=1, challenger_id=ALICE, opponent_id=BOB, variant="jepps_random"
    )
    declined = await service.decline(location_id=1, user_id=BOB)
    assert declined.game.seed is None and not any("seed" in m for m in declined.messages)
    assert stored(service, made.game.id)[:3] == (None, None, "[]")
    with pytest.raises(InvalidState, match="never started"):
        await service.verify(game_id=made.game.id)
    assert seeds.made == []
