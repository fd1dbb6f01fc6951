"""Snapshots, the warm-up after a restart and the collector policy (issue 12, service side).

- a game restored from its snapshot plus the entries after it is the game a full replay
  of the log gives, and goes on the same way (same dice from the seed);
- a restarted service acts from the snapshot (no full replay) with the same outcome as
  one that replays the whole log; a snapshot that does not fit is ignored;
- the warm-up rebuilds live games most recent first, up to the cache's size;
- a database written before the snapshots migration gets its snapshots as games go on.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import random
import shutil
import sqlite3
import weakref
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

import bot.service.core as core
import variants
from bot.service import GameService, ManualClock, Outcome
from bot.service.gcpolicy import FULL_OFF, GcPolicy, GcWatch
from bot.service.live import Live, rebuild
from bot.service.snapshots import FORMAT, SNAPSHOT_EVERY, NotThisTime, restore
from storage import LATEST_VERSION, SnapshotRow, open_repository
from storage.migrations import MIGRATIONS
from variants.dice import VerifiableDice

WHITE, BLACK = 101, 202
SNAPSHOTS = next(n for n, m in enumerate(MIGRATIONS, 1) if any("TABLE snapshots" in s for s in m))
V1_DUMP = Path(__file__).parents[1] / "storage" / "data" / "v1_games.sql"


async def open_service(path: Path | str, **kwargs: Any) -> GameService:
    kwargs.setdefault("rng", random.Random(3))
    return await GameService.open(str(path), renderer=None, dice_renderer=None, **kwargs)


async def start(service: GameService, variant: str, location: int, seed: str = "s") -> int:
    made = await service.challenge(
        location_id=location,
        challenger_id=WHITE,
        opponent_id=BLACK,
        variant=variant,
        colour="white",
    )
    outcome = await service.accept(game_id=made.game.id, user_id=BLACK, seed=seed, render=False)
    return outcome.game.id


async def play_random(service: GameService, game_id: int, plies: int, rng: random.Random) -> None:
    for _ in range(plies):
        view = await service.view(game_id=game_id)
        if view.status != "active":
            return
        legal = await service.legal_moves(game_id=game_id)
        await service.act(
            game_id=game_id,
            user_id=view.to_move_id or 0,
            text=rng.choice(legal),
            render=False,
        )


def normalised(game: Any) -> bytes:
    """The game's snapshot once restored: equal states write equal bytes (the count of
    actions the game itself remembers, all or the last few, is left out that way)."""
    return bytes(variants.restore(game.snapshot(), VerifiableDice("x", 0)).snapshot())


def state(live: Live) -> dict[str, Any]:
    """Everything of a game the service and the images read from here on (the record
    so far is the log's business: a restored game keeps only the last actions)."""
    game = live.game
    return {
        "seq": live.seq,
        "ply": live.ply,
        "turns": live.turns,
        "snapshot": normalised(game),
        "fen": game.fen(),
        "turn": game.turn,
        "dice": game.dice,
        "legal": game.legal_moves(),
        "last": game.history[-1:],
        "keys": list(game.keys),
        "captured": list(game.captured),
        "last_move": game.last_move,
        "result": game.result,
        "drawn": game.dice_source.count,
        "status": variants.describe(game),
    }


@pytest.mark.parametrize("variant", variants.names())
async def test_a_restored_game_is_the_replayed_game_and_goes_on_alike(
    store_target: str, variant: str
) -> None:
    service = await open_service(store_target)
    try:
        rng = random.Random(variant)
        game_id = await start(service, variant, 1)
        await play_random(service, game_id, 3 * SNAPSHOT_EVERY + 3, rng)
        await service.idle()
        row = await service.repo.get_game(game_id)
        assert row is not None and row.status == "active", "the game ended too soon to test"
        snapshot, after = await service.repo.snapshot_and_actions(game_id)
        assert snapshot is not None and snapshot.format == FORMAT
        assert 0 < snapshot.seq < row.log_count  # some entries replayed after it
        assert [a.seq for a in after] == list(range(snapshot.seq + 1, row.log_count + 1))
        restored = restore(row, snapshot, after)
        replayed = rebuild(row, await service.repo.actions(game_id))
        assert state(restored) == state(replayed)
        # Both go on alike: same legal actions, same dice from the seed.
        for _ in range(6):
            if restored.game.result is not None:
                break
            move = rng.choice(replayed.game.legal_moves())
            assert restored.game.play(move) == replayed.game.play(move)
            assert state(restored) | {"seq": 0} == state(replayed) | {"seq": 0}
    finally:
        await service.close()


async def test_a_restart_acts_from_the_snapshot_like_a_full_replay(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "a.sqlite3"
    service = await open_service(path)
    game_id = await start(service, "tquarchess", 1)
    await play_random(service, game_id, 2 * SNAPSHOT_EVERY + 2, random.Random(5))
    await service.close()  # writes the pending snapshots
    shutil.copy(path, tmp_path / "b.sqlite3")

    full: list[int] = []
    real_rebuild = core.rebuild

    def counting(row: Any, actions: Any) -> Live:
        full.append(len(actions))
        return real_rebuild(row, actions)

    monkeypatch.setattr(core, "rebuild", counting)
    outcomes: list[Outcome] = []
    for name, snapshots in (("a", True), ("b", False)):
        again = await open_service(tmp_path / f"{name}.sqlite3", snapshots=snapshots)
        try:
            view = await again.view(game_id=game_id)
            legal = await again.legal_moves(game_id=game_id)
            outcomes.append(
                await again.act(
                    game_id=game_id,
                    user_id=view.to_move_id or 0,
                    text=legal[len(legal) // 2],
                    render=False,
                )
            )
        finally:
            await again.close()
    with_snapshot, replayed = outcomes
    assert full == [replayed.game.ply - 1], "only the service without snapshots replays the log"
    assert with_snapshot.recorded == replayed.recorded
    assert with_snapshot.rolls == replayed.rolls
    assert with_snapshot.legal == replayed.legal
    # the same game, but for the chain head: it covers the entry's time (issue 24), and the
    # two services acted at different moments
    assert with_snapshot.game.chain_head and replayed.game.chain_head
    assert replace(with_snapshot.game, chain_head=None) == replace(replayed.game, chain_head=None)
    assert with_snapshot.messages == replayed.messages


async def test_a_snapshot_that_does_not_fit_is_ignored(tmp_path: Path) -> None:
    """Damaged bytes, another game's snapshot, a wrong roll count: the log is replayed."""
    service = await open_service(tmp_path / "c.sqlite3")
    try:
        game_id = await start(service, "guardener", 1)
        await play_random(service, game_id, SNAPSHOT_EVERY + 1, random.Random(8))
        await service.idle()
        snapshot, _ = await service.repo.snapshot_and_actions(game_id)
        assert snapshot is not None
        expected = await service.legal_moves(game_id=game_id)
        other = variants.new_game("tquarchess", seed=1).snapshot()
        changes = [
            ("data", snapshot.data[:20]),
            ("data", b"not a snapshot"),
            ("data", other),
            ("roll_count", snapshot.roll_count + 1),
            ("format", "engine-state-0"),
        ]
        for column, value in changes:
            with sqlite3.connect(tmp_path / "c.sqlite3") as conn:
                conn.execute(
                    f"UPDATE snapshots SET {column} = ?, data = CASE WHEN ? = 'data' THEN data "
                    "ELSE ? END WHERE game_id = ?",
                    (value, column, snapshot.data, game_id),
                )
            service._cache.clear()
            assert await service.legal_moves(game_id=game_id) == expected
    finally:
        await service.close()


async def test_a_cold_game_is_rebuilt_before_the_write_transaction(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A game missing from the cache is rebuilt before its action takes the store's only
    writer, so other games' actions never wait behind a rebuild; the outcome is the same."""
    service = await open_service(tmp_path / "w.sqlite3")
    try:
        game_id = await start(service, "tquarchess", 1)
        await play_random(service, game_id, SNAPSHOT_EVERY + 3, random.Random(4))
        await service.idle()
        writer_held: list[bool] = []
        for name in ("rebuild", "restore"):
            real = getattr(core, name)

            def watched(*args: Any, _real: Any = real) -> Any:
                writer_held.append(service.repo._write_lock.locked())  # type: ignore[attr-defined]
                return _real(*args)

            monkeypatch.setattr(core, name, watched)
        for kind in ("move", "offer"):
            service._cache.clear()
            view = await service.view(game_id=game_id)
            service._cache.clear()
            if kind == "move":
                legal = await service.legal_moves(game_id=game_id)
                service._cache.clear()
                await service.act(game_id=game_id, user_id=view.to_move_id or 0, text=legal[0])
            else:
                await service.offer_draw(game_id=game_id, user_id=view.to_move_id or 0)
        assert writer_held and not any(writer_held)
    finally:
        await service.close()


async def test_an_undo_after_the_snapshot_replays_the_whole_log(
    store_target: str, caplog: pytest.LogCaptureFixture
) -> None:
    service = await open_service(store_target)
    try:
        game_id = await start(service, "stone_garden", 1)
        await play_random(service, game_id, SNAPSHOT_EVERY + 1, random.Random(2))
        await service.idle()
        snapshot, _ = await service.repo.snapshot_and_actions(game_id)
        assert snapshot is not None
        # A move inside the snapshot, then its take-back: an undo is allowed only when
        # no die was rolled since, so play until one is possible.
        undone = None
        for _ in range(30):
            try:
                undone = await service.undo(game_id=game_id, user_id=WHITE)
                break
            except Exception:
                await play_random(service, game_id, 1, random.Random(_))
        assert undone is not None, "no take-back possible in this line"
        row = await service.repo.get_game(game_id)
        assert row is not None
        snapshot, after = await service.repo.snapshot_and_actions(game_id)
        assert snapshot is not None and any(a.kind == "undo" for a in after)
        with pytest.raises(NotThisTime, match="taken back"):
            restore(row, snapshot, after)
        service._cache.clear()
        with caplog.at_level(logging.DEBUG, logger="bot.service.core"):
            view = await service.view(game_id=game_id)
        # expected, so not a warning (the console printed it under 'record')
        noted = [r for r in caplog.records if "not used" in r.getMessage()]
        assert noted and all(r.levelno == logging.DEBUG for r in noted)
        assert view.ply == undone.game.ply
        assert await service.legal_moves(game_id=game_id) == undone.legal
    finally:
        await service.close()


async def test_the_warm_up_takes_the_most_recent_games_first(tmp_path: Path) -> None:
    clock = ManualClock()
    path = tmp_path / "w.sqlite3"
    service = await open_service(path, clock=clock)
    ids = [await start(service, "kings_guard", location) for location in range(1, 6)]
    order = [ids[3], ids[0], ids[4], ids[1], ids[2]]  # played last to first
    for game_id in reversed(order):
        clock.advance(minutes=1)
        await play_random(service, game_id, 1, random.Random(game_id))
    await service.close()

    again = await open_service(path, clock=clock, cache_size=3)
    try:
        assert not again._cache
        warmed = await again.start_warm_up(gc_policy=False)
        assert warmed == order[:3]
        assert set(again._cache) == set(order[:3])
        # Least recent at the evicting end: the next game in evicts the oldest warmed one.
        await again.view(game_id=order[3])
        assert set(again._cache) == {order[0], order[1], order[3]}
    finally:
        await again.close()


async def test_the_warm_up_lets_players_act_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While a game is being acted on, the warm-up rebuilds nothing (up to its wait)."""
    path = tmp_path / "p.sqlite3"
    service = await open_service(path)
    ids = [await start(service, "kings_guard", location) for location in range(1, 4)]
    await service.close()
    monkeypatch.setattr(core, "WARM_GAP_WAIT", 30.0)
    again = await open_service(path)
    try:
        async with again._lock(again._game_locks, ids[0]):  # a player's action in progress
            warming = again.start_warm_up(gc_policy=False)
            await asyncio.sleep(0.1)
            assert not again._cache and not warming.done()
        assert sorted(await asyncio.wait_for(warming, 10)) == sorted(ids)
    finally:
        await again.close()


async def test_the_first_acts_after_a_restart_meet_the_warm_up(tmp_path: Path) -> None:
    path = tmp_path / "r.sqlite3"
    service = await open_service(path)
    ids = [await start(service, "tquarchess", location) for location in range(1, 9)]
    rng = random.Random(4)
    for game_id in ids:
        await play_random(service, game_id, SNAPSHOT_EVERY + 2, rng)
    expected = {gid: await service.legal_moves(game_id=gid) for gid in ids}
    await service.close()

    again = await open_service(path)
    try:
        warming = again.start_warm_up(gc_policy=False)
        # Players act while the warm-up runs: each gets the right game, once.
        for game_id in reversed(ids):
            view = await again.view(game_id=game_id)
            assert await again.legal_moves(game_id=game_id) == expected[game_id]
            await again.act(
                game_id=game_id,
                user_id=view.to_move_id or 0,
                text=expected[game_id][0],
                render=False,
            )
        warmed = await warming
        assert set(warmed) <= set(ids)
        assert set(again._cache) == set(ids)
        for game_id in ids:
            row = await again.repo.get_game(game_id)
            assert row is not None and again._cache[game_id].seq == row.log_count
    finally:
        await again.close()


async def test_an_older_populated_database_gains_snapshots(tmp_path: Path) -> None:
    path = tmp_path / "v1.sqlite3"
    conn = sqlite3.connect(path, isolation_level=None)
    conn.executescript(V1_DUMP.read_text())
    conn.close()
    before = sqlite3.connect(path)
    active = before.execute("SELECT id FROM games WHERE status = 'active'").fetchall()
    before.close()
    assert active, "the dump has an active game"
    service = await open_service(path)
    try:
        assert await service.repo.schema_version() == LATEST_VERSION >= SNAPSHOTS
        game_id = int(active[0][0])
        row = await service.repo.get_game(game_id)
        assert row is not None
        snapshot, after = await service.repo.snapshot_and_actions(game_id)
        assert snapshot is None and len(after) == row.log_count  # none yet: the whole log
        before = rebuild(row, after).game.fen()
        assert (await service.view(game_id=game_id)).ply == row.log_count  # a full replay
        await play_random(service, game_id, SNAPSHOT_EVERY, random.Random(1))
        await service.idle()
        row = await service.repo.get_game(game_id)
        assert row is not None
        snapshot, after = await service.repo.snapshot_and_actions(game_id)
        assert snapshot is not None and snapshot.seq > 0
        assert rebuild(row, []).game.fen() != before  # the game had moved on
        assert state(restore(row, snapshot, after)) == state(
            rebuild(row, await service.repo.actions(game_id))
        )
    finally:
        await service.close()
    with sqlite3.connect(path) as conn:
        indexes = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='index'")}
    assert {"games_by_location", "games_active_recent"} <= indexes


async def test_a_later_snapshot_is_never_replaced_by_an_earlier_one(store_target: str) -> None:
    repo = await open_repository(store_target)
    service = GameService(repo, renderer=None, dice_renderer=None)
    try:
        game_id = await start(service, "kings_guard", 1)
        await play_random(service, game_id, 12, random.Random(6))
        late = SnapshotRow(game_id, 9, 9, 9, 0, "x", b"late")
        early = SnapshotRow(game_id, 5, 5, 5, 0, "x", b"early")
        async with repo.write() as tx:
            assert await tx.save_snapshot(late)
            assert not await tx.save_snapshot(early)
        assert await repo.snapshot(game_id) == late  # type: ignore[attr-defined]
    finally:
        await service.close()
        await repo.close()


async def test_the_gc_policy_freezes_and_turns_full_collections_off() -> None:
    saved = gc.get_threshold()
    watch = GcWatch().install()
    policy = GcPolicy(refreeze_every=3600)
    try:
        policy.settle()
        assert gc.get_freeze_count() > 0
        assert gc.get_threshold()[2] == FULL_OFF
        assert watch.counts[2] == 0  # ``settle`` makes no full collection
        junk = [[i] for i in range(50_000)]
        policy.tick()
        assert gc.get_freeze_count() >= len(junk)
        policy.start()
    finally:
        await policy.stop()
        watch.remove()
        gc.unfreeze()
    assert gc.get_threshold() == saved


def test_the_gc_policy_collects_frozen_cycles_at_a_quiet_moment_or_when_overdue() -> None:
    """A cycle that became garbage after it was frozen is collected by the periodic full
    collection: when it is due and nothing was written for ``quiet_for`` seconds, or
    anyway once it is twice overdue."""
    now = [0.0]
    policy = GcPolicy(refreeze_every=3600, full_every=100.0, quiet_for=2.0, clock=lambda: now[0])
    saved = gc.get_threshold()

    class Node:
        pass

    try:
        policy.settle()
        cycle = Node()
        cycle.me = cycle  # type: ignore[attr-defined]
        policy.tick()  # frozen: no young collection looks at it again
        alive = weakref.ref(cycle)
        del cycle
        gc.collect()
        assert alive() is not None  # frozen garbage survives an ordinary collection
        now[0] = 150.0
        policy.note_activity()  # busy: due, but not quiet
        policy.step()
        assert policy.full_collections == 0 and alive() is not None
        now[0] = 153.0  # quiet for 3 s
        policy.step()
        assert policy.full_collections == 1 and alive() is None
        now[0] = 353.0
        policy.note_activity()  # never quiet, but twice overdue
        policy.step()
        assert policy.full_collections == 2
    finally:
        gc.set_threshold(*saved)
        gc.unfreeze()


async def test_the_log_reaches_the_database_file_without_a_commit_waiting(
    tmp_path: Path,
) -> None:
    """The background checkpointer copies the write-ahead log into the database file;
    the writer's own checkpoint (inside a commit) is pushed far away."""
    for every, expected in ((0.05, True), (None, False)):
        path = tmp_path / f"cp-{every}.sqlite3"
        service = await GameService.open(
            str(path), renderer=None, dice_renderer=None, checkpoint_every=every
        )
        try:
            game_id = await start(service, "kings_guard", 1)
            await play_random(service, game_id, 3, random.Random(1))
            await asyncio.sleep(0.3)
            copy = tmp_path / f"main-only-{every}.sqlite3"
            shutil.copy(path, copy)  # the database file alone, without its -wal
            with sqlite3.connect(copy) as conn:
                try:
                    found = conn.execute("SELECT count(*) FROM actions").fetchone()[0]
                except sqlite3.OperationalError:  # not even the tables are in the file yet
                    found = 0
            assert (found == 3) is expected, (every, found)
        finally:
            await service.close()
