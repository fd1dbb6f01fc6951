"""The outbox in the store (issue 24, ``storage.outbox``), on both stores: a row is owed
only if its transaction commits; a channel's rows are claimed one at a time, in order;
a claim is a lease; settled rows are never claimed again; several claimers never take the
same row."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from storage import NewGame, NewPost, Repository, Shards, nonce_of, open_repository


@pytest.fixture
async def repo(store_target: str) -> AsyncIterator[Repository]:
    repository = await open_repository(store_target)
    yield repository
    await repository.close()


async def game(repo: Repository, location: int, guild: int | None = 7) -> int:
    async with repo.write() as tx:
        await tx.upsert_player(1)
        row = await tx.insert_game(
            NewGame(
                variant="guardener",
                options={},
                status="challenge",
                location_id=location,
                guild_id=guild,
                challenger_id=1,
                opponent_id=None,
                challenger_colour="white",
            )
        )
    return row.id


async def owe(repo: Repository, channel: int, kind: str, now: int = 1000, **kw: object) -> int:
    async with repo.write() as tx:
        return await tx.owe(NewPost(channel_id=channel, kind=kind, **kw), now)  # type: ignore[arg-type]


async def test_a_row_is_owed_only_if_its_transaction_commits(repo: Repository) -> None:
    with pytest.raises(RuntimeError):
        async with repo.write() as tx:
            await tx.owe(NewPost(channel_id=5, kind="board"), 1000)
            raise RuntimeError("the action failed")
    assert await repo.outbox_depth() == (0, 0)
    first = await owe(repo, 5, "board", payload={"colour": "white"})
    assert await repo.outbox_depth() == (1, 0)
    assert await repo.outbox_next_due() == 1000
    async with repo.write() as tx:
        (row,) = await tx.claim_outbox(1000, 60_000, 10)
    assert (row.id, row.kind, row.channel_id, row.payload) == (
        first,
        "board",
        5,
        {"colour": "white"},
    )
    assert row.attempts == 1 and row.nonce == nonce_of(first) and len(row.nonce) <= 25


async def test_a_channel_is_served_in_order_one_row_at_a_time(repo: Repository) -> None:
    a1 = await owe(repo, 10, "board")
    b1 = await owe(repo, 20, "reminder")
    a2 = await owe(repo, 10, "timeout")
    async with repo.write() as tx:
        claimed = await tx.claim_outbox(1000, 60_000, 10)
    assert [r.id for r in claimed] == [a1, b1]  # not a2: a1 is still pending
    async with repo.write() as tx:
        assert await tx.claim_outbox(2000, 60_000, 10) == []  # leased
        await tx.outbox_sent(a1, 10, 555, 2000)
    async with repo.write() as tx:
        assert [r.id for r in await tx.claim_outbox(2000, 60_000, 10)] == [a2]
    # b1's lease runs out: it is claimed again (its process died), with the same nonce
    async with repo.write() as tx:
        again = await tx.claim_outbox(61_000, 60_000, 10)
    assert [(r.id, r.attempts, r.nonce) for r in again] == [(b1, 2, nonce_of(b1))]


async def test_settled_rows_are_never_claimed_again(repo: Repository) -> None:
    gid = await game(repo, 30)
    sent = await owe(repo, 30, "board", game_id=gid, guild_id=7, seq=1)
    async with repo.write() as tx:
        await tx.claim_outbox(1000, 60_000, 10)
        await tx.outbox_sent(sent, 30, 999, 1500)
    failed = await owe(repo, 30, "reminder", game_id=gid, guild_id=7, seq=1)
    async with repo.write() as tx:
        await tx.claim_outbox(1000, 60_000, 10)
        await tx.outbox_failed(failed, "Missing Access (50001)", 1600)
    retried = await owe(repo, 31, "board", now=1000)
    async with repo.write() as tx:
        await tx.claim_outbox(1000, 60_000, 10)
        await tx.outbox_retry(retried, 5000, "503 Service Unavailable")
        assert await tx.claim_outbox(4999, 60_000, 10) == []
    async with repo.write() as tx:
        assert [r.id for r in await tx.claim_outbox(5000, 60_000, 10)] == [retried]
    assert await repo.outbox_depth() == (1, 1)
    rows = {r.id: r for r in await repo.outbox_of_game(gid)}
    assert (rows[sent].state, rows[sent].message_id) == ("sent", 999)
    assert (rows[failed].state, rows[failed].error) == ("failed", "Missing Access (50001)")
    failures = await repo.outbox_failures([gid])
    assert [f.id for f in failures] == [failed]
    # a moderator moved the game: its failed rows are owed again, in the new channel
    async with repo.write() as tx:
        assert await tx.outbox_reowe(gid, 33, 7000) == 1
    async with repo.write() as tx:
        (row,) = [r for r in await tx.claim_outbox(7000, 60_000, 10) if r.id == failed]
    assert (row.channel_id, row.state) == (33, "pending")
    async with repo.write() as tx:
        assert await tx.outbox_prune(1501) == 1  # the sent row, settled at 1500
    assert sent not in {r.id for r in await repo.outbox_of_game(gid)}


async def test_a_shard_claims_only_its_guilds_rows(repo: Repository) -> None:
    guild_on_0 = 0 << 22
    guild_on_1 = (1 << 22) + 5
    on_0 = await owe(repo, 40, "board", guild_id=guild_on_0)
    on_1 = await owe(repo, 41, "board", guild_id=guild_on_1)
    async with repo.write() as tx:
        assert [r.id for r in await tx.claim_outbox(1000, 1, 10, Shards(2, (1,)))] == [on_1]
    async with repo.write() as tx:
        assert [r.id for r in await tx.claim_outbox(1000, 1, 10, Shards(2, (0,)))] == [on_0]


async def test_concurrent_claimers_never_take_the_same_row(store_target: str) -> None:
    repos = [await open_repository(store_target) for _ in range(3)]
    try:
        for channel in range(60):
            await owe(repos[0], 1000 + channel, "board")

        async def claimer(repo: Repository) -> list[int]:
            got: list[int] = []
            for _ in range(30):
                async with repo.write() as tx:
                    got += [r.id for r in await tx.claim_outbox(1000, 60_000, 3)]
                await asyncio.sleep(0)
            return got

        results = await asyncio.gather(*(claimer(r) for r in repos))
    finally:
        for r in repos:
            await r.close()
    everything = [i for got in results for i in got]
    assert len(everything) == 60 and len(set(everything)) == 60
