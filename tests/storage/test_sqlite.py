"""The repositories: migrations, constraints, transactions, append-only log.

The tests taking ``repo`` or ``store_target`` run on both stores (SQLite and PostgreSQL,
tests/conftest.py); those about SQLite's file, pragmas and plans take ``sqlite_repo``."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pgcluster
import pytest
from store_rows import new_game

from storage import (
    LATEST_VERSION,
    ConflictError,
    GameChanges,
    GameQuery,
    NewAction,
    NotFoundError,
    SchemaError,
    SqliteRepository,
    StorageError,
    open_repository,
    resolve_db_path,
)


@pytest.fixture
async def repo(store_target: str):
    repository = await open_repository(store_target)
    yield repository
    await repository.close()


@pytest.fixture
async def sqlite_repo(tmp_path: Path):
    repository = await open_repository(tmp_path / "db.sqlite3")
    yield repository
    await repository.close()


def raw_execute(target: str, sql: str) -> None:
    """Run ``sql`` on the store behind the repository's back."""
    if target.startswith("postgresql://"):
        pgcluster.execute(target, sql)
    else:
        with sqlite3.connect(target) as conn:
            conn.execute(sql)


async def make_game(repo: SqliteRepository, location: int = 10, **kw: object) -> int:
    async with repo.write() as tx:
        await tx.upsert_player(1)
        await tx.upsert_player(2)
        row = await tx.insert_game(new_game(location, **kw))
    return row.id


async def test_migrates_an_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "empty.sqlite3"
    path.touch()  # an empty file is a valid, empty SQLite database
    repo = await open_repository(path)
    try:
        assert await repo.schema_version() == LATEST_VERSION
    finally:
        await repo.close()
    with sqlite3.connect(path) as conn:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        assert {"games", "actions", "players"} <= tables
        assert conn.execute("PRAGMA user_version").fetchone()[0] == LATEST_VERSION
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


async def test_reopening_keeps_data_and_does_not_migrate_again(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite3"
    repo = await open_repository(path)
    gid = await make_game(repo)
    await repo.close()
    repo = await open_repository(path)
    try:
        assert await repo.schema_version() == LATEST_VERSION
        game = await repo.get_game(gid)
        assert game is not None and game.options == {"x": 1}
    finally:
        await repo.close()


async def test_refuses_a_newer_schema(tmp_path: Path) -> None:
    path = tmp_path / "future.sqlite3"
    with sqlite3.connect(path) as conn:
        conn.execute(f"PRAGMA user_version = {LATEST_VERSION + 1}")
    with pytest.raises(SchemaError, match="newer"):
        await open_repository(path)


async def test_missing_folder_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(StorageError, match="folder"):
        await open_repository(tmp_path / "no" / "such" / "db.sqlite3")


def test_db_path_resolution(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CHESSGARDEN_DB", raising=False)
    assert resolve_db_path(None) == "chessgarden.sqlite3"
    monkeypatch.setenv("CHESSGARDEN_DB", "/tmp/x.sqlite3")
    assert resolve_db_path(None) == "/tmp/x.sqlite3"
    assert resolve_db_path("given.sqlite3") == "given.sqlite3"


async def test_pragmas(sqlite_repo: SqliteRepository) -> None:
    """The writer commits with NORMAL in WAL mode: a durable write waits for the log's
    sync after its COMMIT instead (``storage.wal_sync``, ``test_wal_sync.py``)."""
    async with sqlite_repo.write() as tx:
        conn = tx._conn  # noqa: SLF001 - checking the connection settings themselves
        assert (await conn.execute_fetchall("PRAGMA journal_mode"))[0][0] == "wal"
        assert (await conn.execute_fetchall("PRAGMA synchronous"))[0][0] == 1  # NORMAL
        assert (await conn.execute_fetchall("PRAGMA foreign_keys"))[0][0] == 1


async def test_non_durable_write_on_both_stores(repo: SqliteRepository) -> None:
    """What a non-durable write commits is there, for a reader and after a durable one."""
    gid = await make_game(repo, 10)
    async with repo.write(durable=False) as tx:
        await tx.set_board_message(gid, 10, 555)
    assert (await repo.get_game(gid)).board_message_id == 555  # type: ignore[union-attr]
    assert await repo.replace_board_message(gid, 10, 556, durable=False) == (10, 555)
    async with repo.write() as tx:
        await tx.update_game(gid, GameChanges(status="declined"))
    row = await repo.get_game(gid)
    assert row is not None and (row.status, row.board_message_id) == ("declined", 556)


async def test_one_live_game_per_location(repo: SqliteRepository) -> None:
    gid = await make_game(repo, 10)
    with pytest.raises(ConflictError) as info:
        await make_game(repo, 10)
    assert info.value.what == "location"
    await make_game(repo, 11)  # another location is fine
    async with repo.write() as tx:
        await tx.update_game(gid, GameChanges(status="finished", result="1-0"))
    await make_game(repo, 10)  # the location is free again once the game has ended
    live = await repo.live_game_at(10)
    assert live is not None and live.id != gid


async def test_action_slots_and_request_ids_are_unique(repo: SqliteRepository) -> None:
    gid = await make_game(repo)
    async with repo.write() as tx:
        await tx.append_action(NewAction(gid, 1, "move", 1, "e4", ((4, 2), (4, 3)), "r1"))
    with pytest.raises(ConflictError) as info:
        async with repo.write() as tx:
            await tx.append_action(NewAction(gid, 1, "move", 2, "e5", (), "r2"))
    assert info.value.what == "seq"
    with pytest.raises(ConflictError) as info:
        async with repo.write() as tx:
            await tx.append_action(NewAction(gid, 2, "move", 2, "e5", (), "r1"))
    assert info.value.what == "request"
    actions = await repo.actions(gid)
    assert [(a.seq, a.text, a.rolls) for a in actions] == [(1, "e4", ((4, 2), (4, 3)))]
    assert await repo.last_seq(gid) == 1
    async with repo.write() as tx:
        found = await tx.action_by_request(gid, "r1")
        assert found is not None and found.text == "e4"
        assert await tx.action_by_request(gid, "r2") is None
    async with repo.write() as tx:  # as every action's transaction starts, on both stores
        row, found = await tx.game_and_request(gid, "r1")
        assert row is not None and row.log_count == 1
        assert found is not None and found.text == "e4"
        assert await tx.game_and_request(gid, "r2") == (row, None)
        assert await tx.game_and_request(gid, None) == (row, None)
        assert await tx.game_and_request(gid + 99, "r1") == (None, None)


async def test_an_exception_rolls_the_whole_transaction_back(repo: SqliteRepository) -> None:
    gid = await make_game(repo)
    with pytest.raises(RuntimeError):
        async with repo.write() as tx:
            await tx.append_action(NewAction(gid, 1, "move", 1, "e4"))
            await tx.update_game(gid, GameChanges(status="active"))
            raise RuntimeError("boom")
    assert await repo.actions(gid) == []
    game = await repo.get_game(gid)
    assert game is not None and game.status == "challenge"


async def test_the_log_is_append_only(store_target: str, repo: SqliteRepository) -> None:
    gid = await make_game(repo)
    async with repo.write() as tx:
        await tx.append_action(NewAction(gid, 1, "move", 1, "e4", ((4, 1),)))
    for sql in ("UPDATE actions SET rolls = '[[4, 2]]'", "DELETE FROM actions"):
        with pytest.raises(Exception, match="append-only"):
            raw_execute(store_target, sql)
    assert [(a.text, a.rolls) for a in await repo.actions(gid)] == [("e4", ((4, 1),))]


async def test_start_rolls_are_written_once(repo: SqliteRepository) -> None:
    gid = await make_game(repo)
    async with repo.write() as tx:
        await tx.set_start_rolls(gid, ((4, 1), (4, 2)))
    with pytest.raises(StorageError):
        async with repo.write() as tx:
            await tx.set_start_rolls(gid, ((4, 3), (4, 3)))
    game = await repo.get_game(gid)
    assert game is not None and game.start_rolls == ((4, 1), (4, 2))


async def test_game_request_ids_are_unique(repo: SqliteRepository) -> None:
    await make_game(repo, 10, request_id="abc")
    with pytest.raises(ConflictError) as info:
        await make_game(repo, 11, request_id="abc")
    assert info.value.what == "game_request"
    async with repo.write() as tx:
        found = await tx.game_by_request("abc")
    assert found is not None and found.location_id == 10


async def test_listing_filters(repo: SqliteRepository) -> None:
    a = await make_game(repo, 10)
    b = await make_game(repo, 11, guild_id=8)
    async with repo.write() as tx:
        await tx.upsert_player(3, "Carol")
        c = (await tx.insert_game(new_game(12, challenger_id=3, opponent_id=None))).id
        await tx.update_game(a, GameChanges(status="active", white_id=1, black_id=2))
    ids = lambda rows: [r.id for r in rows]  # noqa: E731
    assert ids(await repo.list_games(GameQuery())) == [c, b, a]
    assert ids(await repo.list_games(GameQuery(guild_id=8))) == [b]
    assert ids(await repo.list_games(GameQuery(player_id=3))) == [c]
    assert ids(await repo.list_games(GameQuery(statuses=("active",)))) == [a]
    assert ids(await repo.list_games(GameQuery(statuses=()))) == []
    assert ids(await repo.list_games(GameQuery(limit=1))) == [c]
    assert ids(await repo.list_games(GameQuery(location_id=11))) == [b]
    player = await repo.get_player(3)
    assert player is not None and player.name == "Carol"
    async with repo.write() as tx:
        await tx.upsert_player(3)  # no name given: the stored one stays
    player = await repo.get_player(3)
    assert player is not None and player.name == "Carol"


async def test_two_repositories_on_one_file_see_each_others_commits(store_target: str) -> None:
    path = store_target
    first = await open_repository(path)
    second = await open_repository(path)
    try:
        gid = await make_game(first)
        async with second.write() as tx:
            await tx.append_action(NewAction(gid, 1, "move", 1, "e4"))
        assert await first.last_seq(gid) == 1
        with pytest.raises(ConflictError):
            async with first.write() as tx:
                await tx.append_action(NewAction(gid, 1, "move", 1, "d4"))
    finally:
        await first.close()
        await second.close()


async def test_concurrent_first_opens_migrate_once(store_target: str) -> None:
    path = store_target
    repos = await asyncio.gather(*(open_repository(path) for _ in range(4)))
    try:
        for repo in repos:
            assert await repo.schema_version() == LATEST_VERSION
        await make_game(repos[0])
        assert len(await repos[3].list_games(GameQuery())) == 1
    finally:
        for repo in repos:
            await repo.close()


async def test_the_game_counts_its_log_and_rolls(repo: SqliteRepository) -> None:
    gid = await make_game(repo, seed=None, commitment=None)
    game = await repo.get_game(gid)
    assert game is not None and (game.seed, game.log_count, game.roll_count) == (None, 0, 0)
    async with repo.write() as tx:
        await tx.update_game(gid, GameChanges(status="active", seed="s", commitment="c"))
        await tx.set_start_rolls(gid, ((4, 1), (4, 2)))
        first = await tx.append_action(NewAction(gid, 1, "move", 1, "e4", ((4, 3), (4, 4))))
        second = await tx.append_action(NewAction(gid, 2, "draw_offer", 2, "black offers"))
        third = await tx.append_action(NewAction(gid, 3, "move", 2, "e5", ((4, 1),)))
    assert (first.roll_index, second.roll_index, third.roll_index) == (2, 4, 4)
    game = await repo.get_game(gid)
    assert game is not None and (game.log_count, game.roll_count) == (3, 5)
    with pytest.raises(ConflictError) as info:  # entry 5 would leave entry 4 out
        async with repo.write() as tx:
            await tx.append_action(NewAction(gid, 5, "move", 1, "d4"))
    assert info.value.what == "seq"
    with pytest.raises(StorageError):  # the seed is drawn once
        async with repo.write() as tx:
            await tx.update_game(gid, GameChanges(seed="other", commitment="other"))


async def test_a_command_as_the_service_makes_it_reads_back_as_it_said(
    repo: SqliteRepository,
) -> None:
    """Lock the game, append an entry, change the game: what the store answered at each
    step (the entry's roll number, the counts) is what it then holds; PostgreSQL sends
    the entry with the change as one statement, and after a retried request id the
    refusal still comes inside the transaction, which leaves nothing behind."""
    gid = await make_game(repo, status="active")
    async with repo.write() as tx:
        await tx.set_start_rolls(gid, ((4, 1), (4, 2)))
    answered = []
    for seq, rolls in ((1, ((4, 3), (4, 4))), (2, ()), (3, ((4, 1),))):
        async with repo.write() as tx:
            row = await tx.get_game(gid)
            assert row is not None and row.log_count == seq - 1
            entry = await tx.append_action(
                NewAction(gid, seq, "move", 1, f"m{seq}", rolls, request_id=f"r{seq}")
            )
            changed = await tx.update_game(gid, GameChanges(draw_offer=None))
            answered.append(entry)
        stored = await repo.get_game(gid)
        assert changed == stored
        assert (changed.log_count, changed.roll_count) == (seq, [4, 4, 5][seq - 1])
    assert await repo.actions(gid) == answered
    assert [a.roll_index for a in answered] == [2, 4, 4]
    with pytest.raises(ConflictError) as info:  # a request id already used in this game
        async with repo.write() as tx:
            await tx.get_game(gid)
            await tx.append_action(NewAction(gid, 4, "move", 1, "m4", request_id="r2"))
            await tx.update_game(gid, GameChanges(draw_offer="white"))
    assert info.value.what == "request"
    with pytest.raises(ConflictError):  # the same, found at the commit
        async with repo.write() as tx:
            await tx.get_game(gid)
            await tx.append_action(NewAction(gid, 4, "move", 1, "m4", request_id="r3"))
    after = await repo.get_game(gid)
    assert after == stored and len(await repo.actions(gid)) == 3


async def test_a_game_without_a_seed_cannot_start(repo: SqliteRepository) -> None:
    gid = await make_game(repo, seed=None, commitment=None)
    with pytest.raises(StorageError):
        async with repo.write() as tx:
            await tx.update_game(gid, GameChanges(status="active"))


async def test_board_message_is_kept_without_touching_the_game(repo: SqliteRepository) -> None:
    gid = await make_game(repo)
    before = await repo.get_game(gid)
    async with repo.write() as tx:
        await tx.set_board_message(gid, 55, 66)
    after = await repo.get_game(gid)
    assert after is not None and before is not None
    assert (after.board_channel_id, after.board_message_id) == (55, 66)
    assert after.updated_at == before.updated_at
    with pytest.raises(StorageError):
        async with repo.write() as tx:
            await tx.set_board_message(gid + 100, 1, 2)


async def test_replacing_the_board_message_gives_the_one_before(repo: SqliteRepository) -> None:
    gid = await make_game(repo)
    before = await repo.get_game(gid)
    assert await repo.replace_board_message(gid, 55, 66) is None
    assert await repo.replace_board_message(gid, 55, 77) == (55, 66)
    assert await repo.replace_board_message(gid, 88, 99) == (55, 77)
    after = await repo.get_game(gid)
    assert after is not None and before is not None
    assert (after.board_channel_id, after.board_message_id) == (88, 99)
    assert after.updated_at == before.updated_at  # not a change of the game
    with pytest.raises(NotFoundError):
        await repo.replace_board_message(gid + 100, 1, 2)


async def test_the_last_game_in_a_channel_is_found_by_index(
    sqlite_repo: SqliteRepository,
) -> None:
    await make_game(sqlite_repo, 10)
    async with sqlite_repo.write() as tx:
        conn = tx._conn  # noqa: SLF001 - asking SQLite for its plan
        plan = await conn.execute_fetchall(
            "EXPLAIN QUERY PLAN SELECT id FROM games WHERE location_id = ? ORDER BY id DESC LIMIT 1",
            (10,),
        )
    text = " ".join(str(tuple(r)) for r in plan)
    assert "games_by_location" in text and "TEMP B-TREE" not in text, text


async def test_open_challenges_of_one_challenger(repo: SqliteRepository) -> None:
    a = await make_game(repo, 10, seed=None, commitment=None)
    await make_game(repo, 11, seed=None, commitment=None, challenger_id=2, opponent_id=1)
    c = await make_game(repo, 12, seed=None, commitment=None)
    async with repo.write() as tx:
        found = await tx.list_games(GameQuery(challenger_id=1, statuses=("challenge",)))
    assert [g.id for g in found] == [c, a]
