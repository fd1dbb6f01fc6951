"""``chessgarden backup`` (issue 24): SQLite's online backup while the store is written,
checked and replayed; it refuses to overwrite, names damage in one line, and sends a
PostgreSQL store to pg_dump."""

from __future__ import annotations

import asyncio
import io
import sqlite3
import sys
from pathlib import Path

import pytest
from stores import raw, tamper

sys.path.insert(0, str(Path(__file__).parent))  # test_migrate_store's fill() lives beside this
from test_migrate_store import fill  # noqa: E402

from bot.cli import main
from bot.console.backup import backup
from storage import LATEST_VERSION, NewGame, open_repository
from storage.maintenance import TargetExists, backup_sqlite


async def test_a_backup_while_the_store_is_written_is_one_moment_and_verifies(
    tmp_path: Path,
) -> None:
    source = str(tmp_path / "live.sqlite3")
    await fill(source, 40, 24)
    # The bot has the store open: its latest commits are still in the write-ahead log.
    repo = await open_repository(source)
    try:
        async with repo.write() as tx:
            await tx.upsert_player(99, "late")
        assert Path(source + "-wal").stat().st_size > 0
        players = raw(source, "SELECT count(*) FROM players")[0][0]
        games = raw(source, "SELECT count(*) FROM games")[0][0]
        writer = sqlite3.connect(source, isolation_level=None)
        steps: list[tuple[int, int]] = []

        def write_meanwhile(done: int, total: int) -> None:
            steps.append((done, total))  # another writer commits between the copy's steps
            writer.execute("INSERT INTO players (id, name, created_at, updated_at) "
                           f"VALUES ({1000 + len(steps)}, 'x', 'now', 'now')")  # fmt: skip

        out = tmp_path / "copy.sqlite3"
        facts = backup_sqlite(source, str(out), step_pages=2, progress=write_meanwhile)
        writer.close()
    finally:
        await repo.close()
    assert len(steps) > 5 and steps[-1][0] == steps[-1][1]  # many steps, none restarted
    assert raw(str(out), "SELECT count(*) FROM players") == [(players,)]  # as it began
    assert raw(str(out), "SELECT count(*) FROM games") == [(games,)]
    assert raw(source, "SELECT count(*) FROM players") == [(players + len(steps),)]
    assert facts.version == LATEST_VERSION
    assert raw(str(out), "PRAGMA journal_mode") == [("delete",)]  # one self-contained file
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("copy")) == [out.name]
    said = io.StringIO()
    assert await backup(str(out), str(tmp_path / "again.sqlite3"), out=said) == 0
    lines = said.getvalue().splitlines()
    assert lines[0].startswith(f"copied {out} to ") and "schema version" in lines[0]
    assert lines[1] == "checked: SQLite's integrity check of the copy passed"
    seeded = raw(source, "SELECT count(*) FROM games WHERE seed IS NOT NULL")[0][0]
    assert (
        lines[2]
        == f"verified: {seeded} games with dice replay from their logs on their seeds' dice"
    )


async def test_big_files_show_progress_by_tenths(tmp_path: Path) -> None:
    source = str(tmp_path / "big.sqlite3")
    await fill(source, 60, 3)
    said = io.StringIO()
    assert await backup(source, str(tmp_path / "b.sqlite3"), out=said, step_pages=1) == 0
    progress = [line for line in said.getvalue().splitlines() if line.startswith("copied ")]
    assert 5 <= len(progress) - 1 <= 10  # at most one line per tenth, then the summary
    assert progress[0].startswith("copied 0%") or progress[0].startswith("copied 1")


def test_an_existing_target_is_kept_unless_forced(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = str(tmp_path / "s.sqlite3")
    asyncio.run(fill(source, 3, 1))
    target = tmp_path / "keep.sqlite3"
    target.write_bytes(b"an older backup")
    assert main(["backup", "--db", source, str(target)]) == 2
    err = capsys.readouterr().err
    assert err == f"error: {target} already exists; choose a new name, or add --force\n"
    assert target.read_bytes() == b"an older backup"
    assert main(["backup", "--db", source, str(target), "--force"]) == 0
    assert raw(str(target), "PRAGMA user_version") == [(LATEST_VERSION,)]
    with pytest.raises(TargetExists):
        backup_sqlite(source, str(target))
    with pytest.raises(Exception, match="is the database itself"):
        backup_sqlite(source, source, force=True)


def test_a_damaged_or_missing_store_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    damaged = tmp_path / "damaged.sqlite3"
    damaged.write_bytes(b"SQLite format 3\x00" + b"\xff" * 5000)
    assert main(["backup", "--db", str(damaged), str(tmp_path / "out.sqlite3")]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "damaged" in err, err
    assert not list(tmp_path.glob("out.sqlite3*"))  # no half copy left behind
    assert main(["backup", "--db", str(tmp_path / "nope.sqlite3"), str(tmp_path / "o")]) == 1
    assert "there is no such file" in capsys.readouterr().err
    assert main(["backup", "--db", str(damaged), str(tmp_path / "no" / "o.sqlite3")]) == 1
    assert "does not exist" in capsys.readouterr().err


async def test_a_game_that_does_not_replay_fails_the_backup(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = str(tmp_path / "t.sqlite3")
    await fill(source, 20, 5)
    gid, seq = raw(source, "SELECT game_id, max(seq) FROM actions WHERE rolls <> '[]' "
                           "GROUP BY game_id ORDER BY game_id LIMIT 1")[0]  # fmt: skip
    tamper(source, "UPDATE actions SET rolls = '[[4,9]]' WHERE game_id = ? AND seq = ?",
           (gid, seq), triggers=("actions_no_update",))  # fmt: skip
    target = tmp_path / "t-copy.sqlite3"
    assert await backup(source, str(target), out=io.StringIO()) == 1
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith(f"error: game {gid} does not verify: ")
    assert err[-1].startswith("error: 1 games in the copy do not verify; the copy is exact")
    assert target.exists()  # an exact copy of a store with a bad game is still a copy


async def test_an_older_schema_is_copied_and_not_replayed(tmp_path: Path) -> None:
    source = str(tmp_path / "old.sqlite3")
    repo = await open_repository(source)
    try:
        async with repo.write() as tx:
            await tx.upsert_player(1, "one")
            await tx.insert_game(NewGame(variant="guardener", options={}, status="challenge",
                                         location_id=1, guild_id=None, challenger_id=1,
                                         opponent_id=None, challenger_colour="white"))  # fmt: skip
    finally:
        await repo.close()
    raw(source, f"PRAGMA user_version = {LATEST_VERSION - 1}")
    said = io.StringIO()
    assert await backup(source, str(tmp_path / "old-copy.sqlite3"), out=said) == 0
    assert (
        said.getvalue()
        .splitlines()[-1]
        .startswith(f"not replayed: the copy has schema version {LATEST_VERSION - 1}")
    )


def test_a_postgresql_store_is_sent_to_pg_dump(capsys: pytest.CaptureFixture[str]) -> None:
    url = "postgresql://chessgarden:s3cret@db.example:5432/chessgarden"
    assert main(["backup", "--db", url, "x.dump"]) == 2
    err = capsys.readouterr().err
    assert "pg_dump -Fc" in err and "pg_restore" in err and "s3cret" not in err
    assert err.count("\n") == 1
