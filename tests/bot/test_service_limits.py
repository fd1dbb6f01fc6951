"""Limits (issue 9, contract C7): at most ``max_open_challenges`` (3 by default) open
challenges per user; over the limit ``challenge`` raises ``TooManyChallenges`` with a
clear message and stores nothing. Accepted, declined or cancelled challenges free a place."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from bot.service import GameService, InvalidState, TooManyChallenges

ALICE, BOB = 101, 202


async def test_at_most_three_open_challenges_per_user(tmp_path: Path) -> None:
    service = await GameService.open(str(tmp_path / "limits.sqlite3"), renderer=None)
    try:
        made = [
            await service.challenge(location_id=n, challenger_id=ALICE, variant="guardener")
            for n in (1, 2, 3)
        ]
        with pytest.raises(TooManyChallenges) as info:
            await service.challenge(location_id=4, challenger_id=ALICE, variant="guardener")
        ids = ", ".join(str(m.game.id) for m in made)
        assert str(info.value) == (
            f"you already have 3 open challenges (games {ids}); at most 3 may wait at once: "
            "cancel one or wait for an answer"
        )
        assert isinstance(info.value, InvalidState)
        assert len(await service.list_games()) == 3  # nothing stored
        # another user is not affected
        await service.challenge(location_id=5, challenger_id=BOB, variant="guardener")
        # an accepted challenge and a cancelled one each free a place
        await service.accept(location_id=1, user_id=BOB, render=False)
        await service.challenge(location_id=6, challenger_id=ALICE, variant="tquarchess")
        await service.cancel(location_id=2, user_id=ALICE)
        await service.challenge(location_id=7, challenger_id=ALICE, variant="tquarchess")
        with pytest.raises(TooManyChallenges):
            await service.challenge(location_id=8, challenger_id=ALICE, variant="guardener")
    finally:
        await service.close()


async def test_the_limit_holds_against_a_burst_from_two_processes(tmp_path: Path) -> None:
    # The finding: one user made 300 open challenges in 0.3 s.
    db = str(tmp_path / "burst.sqlite3")
    one = await GameService.open(db, renderer=None, max_open_challenges=2)
    two = await GameService.open(db, renderer=None, max_open_challenges=2)
    try:
        results = await asyncio.gather(
            *(
                (one, two)[n % 2].challenge(
                    location_id=100 + n, challenger_id=ALICE, variant="kings_guard"
                )
                for n in range(40)
            ),
            return_exceptions=True,
        )
        made = [r for r in results if not isinstance(r, BaseException)]
        refused = [r for r in results if isinstance(r, TooManyChallenges)]
        assert len(made) == 2 and len(refused) == 38
        assert len(await one.list_games(statuses=["challenge"])) == 2
    finally:
        await one.close()
        await two.close()


async def test_the_limit_is_configurable_and_checked(tmp_path: Path) -> None:
    service = await GameService.open(
        str(tmp_path / "one.sqlite3"), renderer=None, max_open_challenges=1
    )
    try:
        await service.challenge(location_id=1, challenger_id=ALICE, variant="guardener")
        with pytest.raises(TooManyChallenges, match=r"1 open challenge \(game 1\); at most 1 may"):
            await service.challenge(location_id=2, challenger_id=ALICE, variant="guardener")
    finally:
        await service.close()
    with pytest.raises(ValueError):
        await GameService.open(str(tmp_path / "zero.sqlite3"), max_open_challenges=0)
