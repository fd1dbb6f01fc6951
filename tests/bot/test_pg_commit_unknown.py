"""A connection to PostgreSQL lost while the COMMIT is in flight (issue 24): the store says
the outcome is unknown (``CommitUnknownError``), and the service asks again and answers
truthfully: "played" when the server had stored the move, "not played; send it again"
when it had not. Never "nothing was saved" for a stored move.

The faults are the server's own, on a cluster of this module's:
- **stored, reply lost**: for the moment of the test the cluster names a synchronous
  standby that never connects (``synchronous_standby_names``; ``synchronous_commit`` is
  on). A COMMIT is then written to the server's log and waits for the standby before it
  answers (``wait_event = 'SyncRep'``). The test ends that backend
  (``pg_terminate_backend``): the transaction stays committed (PostgreSQL says so: "The
  transaction has already committed locally"), and the client sees its connection die
  during COMMIT;
- **not stored**: a deferred trigger sleeps inside the COMMIT, before the transaction is
  committed; the backend is ended there, and the server rolls it back;
- **before COMMIT**: the backend is ended during a statement (``StoreLostError``: nothing
  stored, certainly);
- **out of reach**: the server is stopped (``pg_ctl stop -m immediate``) while the COMMIT
  waits; the service cannot ask again and says ``OutcomeUnknown``, which claims nothing.
  After a restart the move is there, and the same request returns it.
"""

from __future__ import annotations

import asyncio
import importlib.util
import os
import time
from collections.abc import Iterator
from typing import Any

import pgcluster
import pytest

from bot.service import GameService, Outcome, OutcomeUnknown, StoreLost
from storage import CommitUnknownError, PgRepository, StoreLostError

ALICE, BOB = 101, 202


@pytest.fixture(scope="module")
def cluster() -> Iterator[pgcluster.Cluster]:
    reason = None
    if not pgcluster.available():
        reason = pgcluster.SKIP_REASON
    elif importlib.util.find_spec("asyncpg") is None:
        reason = "PostgreSQL tests skipped: asyncpg missing"
    if reason is not None:
        if os.environ.get("CHESSGARDEN_REQUIRE_PG") == "1":
            pytest.fail(reason, pytrace=False)
        pytest.skip(reason)
    made = pgcluster.Cluster()
    made.settings.pop("synchronous_commit")  # on: a commit waits for a named standby
    made.start()
    try:
        yield made
    finally:
        made.stop()


def admin(cluster: pgcluster.Cluster, sql: str) -> list[tuple[Any, ...]]:
    return pgcluster.query(cluster.url(), sql)


def waiting_commit(cluster: pgcluster.Cluster, event: str) -> int | None:
    rows = admin(
        cluster,
        "SELECT pid FROM pg_stat_activity WHERE wait_event = "
        f"'{event}' AND pid <> pg_backend_pid()",
    )
    return int(rows[0][0]) if rows else None


async def wait_for_commit(cluster: pgcluster.Cluster, event: str) -> int:
    """The backend whose COMMIT waits on ``event``, once one does."""
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        pid = waiting_commit(cluster, event)
        if pid is not None:
            return pid
        await asyncio.sleep(0.02)
    raise AssertionError(f"no COMMIT waited on {event}")


def commits_wait_for_the_standby(cluster: pgcluster.Cluster, wait: bool) -> None:
    if wait:
        admin(cluster, "ALTER SYSTEM SET synchronous_standby_names = 'ghost_standby'")
    else:
        admin(cluster, "ALTER SYSTEM RESET synchronous_standby_names")
    admin(cluster, "SELECT pg_reload_conf()")
    time.sleep(0.2)  # every backend has the new setting before its next statement


def logged(url: str, game_id: int) -> list[tuple[Any, ...]]:
    return pgcluster.query(
        url, "SELECT seq, kind, text, request_id FROM actions WHERE game_id = $1 ORDER BY seq",
        (game_id,),
    )  # fmt: skip


async def started(service: GameService, location: int = 1) -> Outcome:
    await service.challenge(
        location_id=location, challenger_id=ALICE, opponent_id=BOB, variant="guardener"
    )
    return await service.accept(location_id=location, user_id=BOB, render=False)


async def first_move(service: GameService, game: Outcome) -> tuple[str, int]:
    legal = await service.legal_moves(game_id=game.game.id)
    assert game.next_user_id is not None
    return legal[0], game.next_user_id


@pytest.mark.parametrize("request_id", ["interaction-1", None])
async def test_a_move_stored_but_unanswered_is_answered_played(
    cluster: pgcluster.Cluster, request_id: str | None
) -> None:
    url = cluster.database()
    service = await GameService.open(url, renderer=None)
    try:
        game = await started(service)
        text, mover = await first_move(service, game)
        commits_wait_for_the_standby(cluster, True)
        try:
            acting = asyncio.ensure_future(
                service.act(
                    game_id=game.game.id, user_id=mover, text=text, request_id=request_id,
                    render=False,
                )
            )  # fmt: skip
            pid = await wait_for_commit(cluster, "SyncRep")
            assert logged(url, game.game.id) == []  # not visible yet: the COMMIT waits
            admin(cluster, f"SELECT pg_terminate_backend({pid})")
        finally:
            commits_wait_for_the_standby(cluster, False)
        outcome = await acting
        assert outcome.recorded is not None and outcome.game.ply == 1
        assert not outcome.repeated
        assert outcome.messages[0] == f"{game.game.turn.capitalize()} played {outcome.recorded}."
        assert logged(url, game.game.id) == [(1, "move", outcome.recorded, request_id)]
        # The game goes on from there, once: the other player moves next.
        text, mover = await first_move(service, outcome)
        after = await service.act(game_id=game.game.id, user_id=mover, text=text, render=False)
        assert after.game.ply == 2 and len(logged(url, game.game.id)) == 2
    finally:
        await service.close()
        cluster.drop(url)


SLOW_COMMIT = [
    "CREATE FUNCTION slow_commit() RETURNS trigger LANGUAGE plpgsql AS "
    "$$ BEGIN PERFORM pg_sleep(60); RETURN NULL; END $$",
    "CREATE CONSTRAINT TRIGGER slow_commit AFTER INSERT ON actions "
    "DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION slow_commit()",
]


@pytest.mark.parametrize("request_id", ["interaction-2", None])
async def test_a_move_lost_inside_the_commit_is_answered_not_played(
    cluster: pgcluster.Cluster, request_id: str | None
) -> None:
    url = cluster.database()
    service = await GameService.open(url, renderer=None)
    try:
        game = await started(service)
        text, mover = await first_move(service, game)
        for statement in SLOW_COMMIT:
            pgcluster.execute(url, statement)
        acting = asyncio.ensure_future(
            service.act(
                game_id=game.game.id, user_id=mover, text=text, request_id=request_id,
                render=False,
            )
        )  # fmt: skip
        pid = await wait_for_commit(cluster, "PgSleep")
        admin(cluster, f"SELECT pg_terminate_backend({pid})")
        pgcluster.execute(url, "DROP TRIGGER slow_commit ON actions")
        with pytest.raises(StoreLost) as info:
            await acting
        assert str(info.value) == (
            "Your move was not played: the connection to the database was lost before it "
            "was saved. Send it again."
        )
        assert logged(url, game.game.id) == []
        again = await service.act(
            game_id=game.game.id, user_id=mover, text=text, request_id=request_id, render=False
        )
        assert again.game.ply == 1 and not again.repeated
        assert logged(url, game.game.id) == [(1, "move", again.recorded, request_id)]
    finally:
        await service.close()
        cluster.drop(url)


async def test_the_store_tells_a_lost_statement_from_a_lost_commit(
    cluster: pgcluster.Cluster,
) -> None:
    url = cluster.database()
    repo = await PgRepository.open(url)
    try:
        # Lost during a statement, before COMMIT: certainly rolled back.
        async def sleeper() -> None:
            async with repo.write() as tx:
                await tx.upsert_player(1, "one")
                await tx._q.execute("SELECT pg_sleep(60)")  # type: ignore[attr-defined]

        task = asyncio.ensure_future(sleeper())
        pid = await wait_for_commit(cluster, "PgSleep")
        admin(cluster, f"SELECT pg_terminate_backend({pid})")
        with pytest.raises(StoreLostError):
            await task
        assert pgcluster.query(url, "SELECT count(*) FROM players") == [(0,)]

        # Lost while the COMMIT waits: unknown to the store (here in fact stored).
        async def committer() -> None:
            async with repo.write() as tx:
                await tx.upsert_player(2, "two")

        commits_wait_for_the_standby(cluster, True)
        try:
            task = asyncio.ensure_future(committer())
            pid = await wait_for_commit(cluster, "SyncRep")
            admin(cluster, f"SELECT pg_terminate_backend({pid})")
        finally:
            commits_wait_for_the_standby(cluster, False)
        with pytest.raises(CommitUnknownError):
            await task
        assert pgcluster.query(url, "SELECT id FROM players") == [(2,)]
        async with repo.write() as tx:  # the pool replaced the dead connection
            await tx.upsert_player(3, "three")
    finally:
        await repo.close()
        cluster.drop(url)


async def test_a_server_out_of_reach_says_unknown_and_the_retry_finds_the_move(
    cluster: pgcluster.Cluster,
) -> None:
    url = cluster.database()
    service = await GameService.open(url, renderer=None)
    service.settle_delays = (0.0, 0.05, 0.1)
    try:
        game = await started(service)
        text, mover = await first_move(service, game)
        commits_wait_for_the_standby(cluster, True)
        acting = asyncio.ensure_future(
            service.act(
                game_id=game.game.id, user_id=mover, text=text, request_id="interaction-3",
                render=False,
            )
        )  # fmt: skip
        await wait_for_commit(cluster, "SyncRep")
        cluster.crash()  # the COMMIT is in the server's log, and no one can ask it
        with pytest.raises(OutcomeUnknown) as info:
            await acting
        assert "nothing" not in str(info.value) and "look at the game" in str(info.value)
        cluster.start_again()
        commits_wait_for_the_standby(cluster, False)
        assert [row[0] for row in logged(url, game.game.id)] == [1]  # it was stored
        retried = await service.act(
            game_id=game.game.id, user_id=mover, text=text, request_id="interaction-3",
            render=False,
        )  # fmt: skip
        assert retried.repeated and retried.game.ply == 1
        assert len(logged(url, game.game.id)) == 1
    finally:
        await service.close()
        if cluster.folder:
            cluster.drop(url)


async def answered_despite_a_lost_reply(cluster: pgcluster.Cluster, call: Any) -> Any:
    """Run ``call`` while commits wait for the absent standby; end the backend whose
    COMMIT waits (it stays committed); the call's answer."""
    commits_wait_for_the_standby(cluster, True)
    try:
        task = asyncio.ensure_future(call)
        pid = await wait_for_commit(cluster, "SyncRep")
        admin(cluster, f"SELECT pg_terminate_backend({pid})")
    finally:
        commits_wait_for_the_standby(cluster, False)
    return await task


async def test_other_commands_stored_but_unanswered_are_answered_done(
    cluster: pgcluster.Cluster,
) -> None:
    url = cluster.database()
    service = await GameService.open(url, renderer=None)
    settled: list[str] = []
    settle = service._settle

    async def counted(check: Any) -> Any:
        answer = await settle(check)
        settled.append(type(answer).__name__)
        return answer

    service._settle = counted  # type: ignore[method-assign]
    try:
        made = await answered_despite_a_lost_reply(
            cluster,
            service.challenge(
                location_id=5, challenger_id=ALICE, opponent_id=BOB, variant="tquarchess",
                request_id="interaction-4",
            ),
        )  # fmt: skip
        assert made.messages[0].startswith(f"Game {made.game.id}: ") and not made.repeated
        assert pgcluster.query(url, "SELECT request_id, status FROM games") == [
            ("interaction-4", "challenge")
        ]
        begun = await answered_despite_a_lost_reply(
            cluster, service.accept(game_id=made.game.id, user_id=BOB, render=False)
        )
        assert begun.messages[0].startswith(f"Game {made.game.id} begins")
        assert begun.game.status == "active" and begun.legal
        resigned = await answered_despite_a_lost_reply(
            cluster, service.resign(game_id=made.game.id, user_id=ALICE, request_id="r-5")
        )
        assert resigned.game.status == "finished" and resigned.game.result_reason
        assert [(seq, kind, rid) for seq, kind, _, rid in logged(url, made.game.id)] == [
            (1, "resign", "r-5")
        ]
        assert settled == ["GameRow", "GameRow", "tuple"]  # each answer came from asking again
    finally:
        await service.close()
        cluster.drop(url)
