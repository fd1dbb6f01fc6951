"""The store's side of deadlines (issue 13): the derived ``due_ms``, the two indexed reads
of the scheduler and the claim inside a write transaction."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from storage import GameChanges, NewGame, SqliteRepository, open_repository
from storage.sqlite import CLAIM_DUE_WHERE, DUE_GAMES_SQL, NEXT_DUE_SQL


@pytest.fixture
async def repo(store_target: str) -> AsyncIterator[SqliteRepository]:
    """Both stores (tests/conftest.py)."""
    repository = await open_repository(store_target)
    yield repository  # type: ignore[misc]
    await repository.close()


@pytest.fixture
async def sqlite_repo(tmp_path: Path) -> AsyncIterator[SqliteRepository]:
    repository = await SqliteRepository.open(tmp_path / "due.sqlite3")
    yield repository
    await repository.close()


async def add(repo: SqliteRepository, location: int, **changes: object) -> int:
    async with repo.write() as tx:
        await tx.upsert_player(1)
        row = await tx.insert_game(
            NewGame(
                variant="guardener",
                options={},
                status="challenge",
                location_id=location,
                guild_id=None,
                challenger_id=1,
                opponent_id=None,
                challenger_colour="white",
                time_days=3,
                deadline_ms=changes.pop("expires", None),  # type: ignore[arg-type]
            )
        )
        if changes:
            await tx.update_game(row.id, GameChanges(**changes))  # type: ignore[arg-type]
    return row.id


async def plan(repo: SqliteRepository, sql: str, params: tuple[object, ...]) -> str:
    async with repo.write() as tx:
        rows = await tx._conn.execute_fetchall(f"EXPLAIN QUERY PLAN {sql}", params)  # noqa: SLF001
    return " ".join(str(tuple(r)) for r in rows)


async def test_the_scheduler_reads_only_the_index(sqlite_repo: SqliteRepository) -> None:
    repo = sqlite_repo
    for sql, params in (
        (NEXT_DUE_SQL, ()),
        (DUE_GAMES_SQL, (10**13, 100)),
    ):
        text = await plan(repo, sql, params)
        assert "USING INDEX games_due" in text, (sql, text)
        assert "SCAN" not in text and "TEMP B-TREE" not in text, (sql, text)
    claim = await plan(repo, f"SELECT id FROM games WHERE {CLAIM_DUE_WHERE}", (1, 2))
    assert "INTEGER PRIMARY KEY" in claim, claim


async def test_due_is_derived_from_the_clock_columns(repo: SqliteRepository) -> None:
    assert await repo.next_due() is None
    challenge = await add(repo, 1, expires=5_000)
    reminded = await add(
        repo,
        2,
        status="active",
        seed="s",
        commitment="c",
        clock_side="white",
        turn_started_ms=0,
        deadline_ms=9_000,
        reminder_ms=3_000,
    )
    after_reminder = await add(
        repo, 3, status="active", seed="s", commitment="c", deadline_ms=4_000, reminder_ms=None
    )
    untimed = await add(repo, 4, status="active", seed="s", commitment="c")
    over = await add(
        repo, 5, status="finished", seed="s", commitment="c", deadline_ms=1, reminder_ms=1
    )
    assert await repo.next_due() == 3_000
    due = await repo.due_games(5_000)
    assert [(d.game_id, d.due_ms) for d in due] == [
        (reminded, 3_000),
        (after_reminder, 4_000),
        (challenge, 5_000),
    ]
    assert [d.game_id for d in await repo.due_games(5_000, limit=1)] == [reminded]
    assert await repo.due_games(2_999) == []
    assert {untimed, over}.isdisjoint(d.game_id for d in await repo.due_games(10**15))
    # clearing the reminder makes the deadline the next due instant; the end clears all
    async with repo.write() as tx:
        assert await tx.claim_due(reminded, 2_999) is None  # not due yet
        row = await tx.claim_due(reminded, 3_000)
        assert row is not None and row.reminder_ms == 3_000 and row.clock_side == "white"
        await tx.update_game(reminded, GameChanges(reminder_ms=None))
        assert await tx.claim_due(reminded, 3_000) is None  # claimed: no longer due
    assert [d.due_ms for d in await repo.due_games(10_000)] == [4_000, 5_000, 9_000]
    async with repo.write() as tx:
        await tx.update_game(after_reminder, GameChanges(status="finished"))
        await tx.update_game(challenge, GameChanges(status="cancelled"))
    assert [d.game_id for d in await repo.due_games(10**15)] == [reminded]
    assert await repo.next_due() == 9_000


async def test_a_timeout_and_an_extension_are_log_entries(repo: SqliteRepository) -> None:
    from storage import NewAction

    gid = await add(repo, 1, status="active", seed="s", commitment="c", deadline_ms=1)
    async with repo.write() as tx:
        await tx.upsert_player(5)
        await tx.append_action(NewAction(gid, 1, "extend", 5, "1 day added to white's clock"))
        await tx.append_action(NewAction(gid, 2, "timeout", None, "white ran out of time"))
    kinds = [(a.kind, a.actor_id) for a in await repo.actions(gid)]
    assert kinds == [("extend", 5), ("timeout", None)]


async def test_due_reads_for_some_shards_only(repo: SqliteRepository) -> None:
    """Issue 16: a process running some Discord shards reads only their guilds' games."""
    from storage import Shards

    guilds = [(n << 22) + 5 for n in range(6)]  # shard n % count for count 2 or 3
    ids = []
    for n in range(len(guilds)):
        ids.append(await add(repo, 100 + n, expires=1_000 + n))  # the guild is set below
    dm = await add(repo, 200, expires=500)
    from stores import raw

    target = getattr(repo, "url", None) or repo.path
    for gid, guild in zip(ids, guilds, strict=True):
        raw(target, "UPDATE games SET guild_id = ? WHERE id = ?", (guild, gid))
    everything = [d.game_id for d in await repo.due_games(10**6)]
    assert everything == [dm, *ids]
    odd = [d.game_id for d in await repo.due_games(10**6, shards=Shards(2, (1,)))]
    assert odd == [ids[1], ids[3], ids[5]]
    zero_of_three = [d.game_id for d in await repo.due_games(10**6, 2, Shards(3, (0,)))]
    assert zero_of_three == [dm, ids[0]]  # a game without a guild is shard 0's; limit 2
    assert await repo.next_due(Shards(2, (1,))) == 1_001
    assert await repo.next_due(Shards(3, (0, 2))) == 500
    assert await repo.next_due() == 500
