"""Taking a move back in hot-seat play (``GameService.undo``): only while no die has been
rolled since the move; the log stays append-only (an ``undo`` entry), and rebuilding,
resuming, the record and ``verify`` all skip the move taken back."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

import variants
from bot.service import GameService, InvalidState, NotAllowed, NotFound, Outcome
from bot.service.live import rebuild, taken_back
from bot.service.verify import verify_game
from storage import NewAction, StorageError
from variants.dice import VerifiableDice

WHITE, BLACK = 1, 2


@pytest.fixture
async def service(tmp_path: Path) -> Any:
    service = await GameService.open(
        str(tmp_path / "undo.sqlite3"), renderer=None, dice_renderer=None, rng=random.Random(1)
    )
    yield service
    await service.close()


async def start(service: GameService, variant: str, location: int = -1) -> Outcome:
    made = await service.challenge(
        location_id=location,
        challenger_id=WHITE,
        opponent_id=BLACK,
        variant=variant,
        colour="white",
    )
    return await service.accept(game_id=made.game.id, user_id=BLACK, seed="u", render=False)


async def play(service: GameService, game_id: int, *moves: str) -> Outcome:
    outcome: Outcome | None = None
    for move in moves:
        view = await service.view(game_id=game_id)
        mover = WHITE if view.turn == "white" else BLACK
        outcome = await service.act(game_id=game_id, user_id=mover, text=move, render=False)
    assert outcome is not None
    return outcome


async def test_undo_takes_back_moves_in_turn(service: GameService) -> None:
    game = (await start(service, "stone_garden")).game
    await play(service, game.id, "Hcd4", "Hcd5", "Hh4")
    back = await service.undo(game_id=game.id, user_id=BLACK)
    assert back.messages[0] == "White takes back Hh4."
    mirror = variants.new_game("stone_garden", dice=VerifiableDice("u", game.id))
    for move in ("Hcd4", "Hcd5"):
        mirror.play(move)
    assert back.game.ply == 2 and back.game.turn == "white"
    assert back.status == variants.describe(mirror)
    assert back.legal == tuple(mirror.legal_moves())
    await service.undo(game_id=game.id, user_id=WHITE)
    await play(service, game.id, "Hde5")  # a different move in the place of the one taken back
    mirror = variants.new_game("stone_garden", dice=VerifiableDice("u", game.id))
    for move in ("Hcd4", "Hde5"):
        mirror.play(move)
    history = await service.history(game_id=game.id)
    assert [e.kind for e in history.entries] == ["move", "move", "move", "undo", "undo", "move"]
    assert [e.text for e in history.entries][3:5] == ["undo Hh4", "undo Hcd5"]
    assert variants.replay(history.record).history == mirror.history == ["Hcd4", "Hde5"]
    assert (await service.view(game_id=game.id)).ply == 2


async def test_undo_survives_a_restart(tmp_path: Path) -> None:
    path = str(tmp_path / "restart.sqlite3")
    service = await GameService.open(path, renderer=None, dice_renderer=None)
    game = (await start(service, "tquarchess")).game
    await play(service, game.id, "e4", "e5", "Nf3")
    await service.undo(game_id=game.id, user_id=WHITE)
    before = await service.text_board(game_id=game.id)
    await service.close()
    again = await GameService.open(path, renderer=None, dice_renderer=None)
    try:
        after = await again.text_board(game_id=game.id)  # rebuilt from the log
        assert after == before
        assert after.game.ply == 2 and after.status.actor == "white"
        assert "Nf3" in await again.legal_moves(game_id=game.id)
    finally:
        await again.close()


async def test_a_cached_game_learns_of_an_undo_made_elsewhere(tmp_path: Path) -> None:
    """Two services on one file (two processes): an undo appended by one is replayed by
    the other, whose cached game cannot unmake a move and is rebuilt."""
    path = str(tmp_path / "two.sqlite3")
    one = await GameService.open(path, renderer=None, dice_renderer=None)
    two = await GameService.open(path, renderer=None, dice_renderer=None)
    try:
        game = (await start(one, "kings_guard")).game
        await play(one, game.id, "e3", "e6")
        assert (await two.view(game_id=game.id)).ply == 2  # two caches the game now
        await one.undo(game_id=game.id, user_id=WHITE)
        seen = await two.view(game_id=game.id)
        assert seen.ply == 1 and seen.turn == "black" and seen.last_move == "e3"
        await play(two, game.id, "d6")
        assert (await one.history(game_id=game.id)).record.split()[-2:] == ["e3", "d6"]
    finally:
        await one.close()
        await two.close()


async def test_no_undo_once_a_die_was_rolled(service: GameService) -> None:
    opened = await start(service, "guardener")
    first = opened.legal[0]
    moved = await play(service, opened.game.id, first)
    assert moved.dice  # Black's dice were rolled after White's move
    with pytest.raises(InvalidState, match=f"{first} cannot be taken back: dice were rolled"):
        await service.undo(game_id=opened.game.id, user_id=WHITE)
    assert len((await service.history(game_id=opened.game.id)).entries) == 1  # nothing logged


async def test_no_undo_of_a_tquarc_roll(service: GameService) -> None:
    game = (await start(service, "tquarchess")).game
    rolled = await play(service, game.id, "e4", "roll")  # Black rolls the Tquarc's die first
    roll = rolled.recorded
    assert roll is not None and roll.startswith("roll")
    with pytest.raises(InvalidState, match=f"{roll} cannot be taken back: dice were rolled"):
        await service.undo(game_id=game.id, user_id=BLACK)
    await play(service, game.id, "d6")
    back = await service.undo(game_id=game.id, user_id=BLACK)  # d6 rolled nothing: it may go
    assert back.game.turn == "black" and back.status is not None
    assert back.status == (await service.text_board(game_id=game.id)).status
    with pytest.raises(InvalidState, match="dice were rolled with it or since"):  # the roll stays
        await service.undo(game_id=game.id, user_id=BLACK)


async def test_undo_refusals(service: GameService) -> None:
    game = (await start(service, "kings_guard")).game
    with pytest.raises(InvalidState, match="there is no move to take back"):
        await service.undo(game_id=game.id, user_id=WHITE)
    await play(service, game.id, "e3")
    with pytest.raises(NotAllowed, match="not playing"):
        await service.undo(game_id=game.id, user_id=99)
    with pytest.raises(NotFound):
        await service.undo(game_id=99, user_id=WHITE)
    await service.resign(game_id=game.id, user_id=BLACK)
    with pytest.raises(InvalidState, match="is over"):
        await service.undo(game_id=game.id, user_id=WHITE)


async def test_undo_with_a_request_id_applies_once(service: GameService) -> None:
    game = (await start(service, "kings_guard")).game
    await play(service, game.id, "e3", "e6")
    first = await service.undo(game_id=game.id, user_id=WHITE, request_id="r1")
    again = await service.undo(game_id=game.id, user_id=WHITE, request_id="r1")
    assert again.repeated and again.game.ply == first.game.ply == 1
    assert [e.kind for e in (await service.history(game_id=game.id)).entries].count("undo") == 1


async def test_a_game_with_undos_verifies(service: GameService) -> None:
    game = (await start(service, "tquarchess")).game
    await play(service, game.id, "e4", "e5", "Qh5")
    await service.undo(game_id=game.id, user_id=WHITE)
    await play(service, game.id, "Nf3", "Nc6", "Bc4", "roll")
    await play(service, game.id, (await service.legal_moves(game_id=game.id))[0])
    await service.resign(game_id=game.id, user_id=WHITE)
    report = await service.verify(game_id=game.id)
    assert report.ok, report.problems


async def test_verify_finds_a_forged_undo(service: GameService) -> None:
    """An undo written to the log after a die was rolled (the service refuses it): the
    move taken back is named and the dice since it."""
    opened = await start(service, "guardener")
    await play(service, opened.game.id, opened.legal[0])
    row = await service.repo.get_game(opened.game.id)
    assert row is not None
    async with service.repo.write() as tx:
        await tx.append_action(
            NewAction(row.id, row.log_count + 1, "undo", WHITE, f"undo {opened.legal[0]}")
        )
    await service.abort(game_id=row.id, user_id=77, moderator=True, reason="test")
    report = await service.verify(game_id=row.id)
    assert not report.ok
    assert any(
        f"takes back move 1 ({opened.legal[0]}), but dice were rolled since it" in p
        for p in report.problems
    ), report.problems


async def test_verify_finds_an_undo_with_nothing_to_take_back(service: GameService) -> None:
    game = (await start(service, "kings_guard")).game
    row = await service.repo.get_game(game.id)
    assert row is not None
    async with service.repo.write() as tx:
        await tx.append_action(NewAction(row.id, 1, "undo", WHITE, "undo e3"))
    await service.abort(game_id=row.id, user_id=77, moderator=True, reason="test")
    row = await service.repo.get_game(game.id)
    assert row is not None
    report = verify_game(row, await service.repo.actions(row.id))
    assert "entry 1 takes back a move, but no move is left" in report.problems


async def test_the_store_refuses_an_undo_with_dice(service: GameService) -> None:
    game = (await start(service, "kings_guard")).game
    await play(service, game.id, "e3")
    row = await service.repo.get_game(game.id)
    assert row is not None
    with pytest.raises(StorageError, match="an undo rolls no dice"):
        async with service.repo.write() as tx:
            await tx.append_action(NewAction(row.id, 2, "undo", WHITE, "undo e3", ((6, 3),)))


async def test_rebuild_and_taken_back_agree(service: GameService) -> None:
    game = (await start(service, "kings_guard")).game
    await play(service, game.id, "e3", "e6", "d3")
    await service.undo(game_id=game.id, user_id=WHITE)
    await service.undo(game_id=game.id, user_id=BLACK)
    await play(service, game.id, "d6")
    row = await service.repo.get_game(game.id)
    assert row is not None
    actions = await service.repo.actions(game.id)
    assert {u: m.text for u, m in taken_back(actions).items()} == {4: "d3", 5: "e6"}
    live = rebuild(row, actions)
    assert live.ply == 2 and live.seq == 6 and live.game.history == ["e3", "d6"]
