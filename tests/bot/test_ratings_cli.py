"""``chessgarden leaderboard``, ``profile`` and ``ratings rebuild`` on a real database: an
SQLite file, then a PostgreSQL URL (``store_target``)."""

from __future__ import annotations

import asyncio
import random
import subprocess
import sys
from pathlib import Path

import pytest
import stores

from bot import cli
from bot.service import GameService

GUILD = 77


async def _fill(path: Path | str) -> None:
    service = await GameService.open(str(path), renderer=None, rng=random.Random(1))
    try:
        for n, (white, black, loser) in enumerate(
            [(1, 2, 2), (1, 3, 3), (2, 3, 2), (1, 2, 1), (3, 1, 1)]
        ):
            await service.challenge(
                location_id=n + 1,
                challenger_id=white,
                opponent_id=black,
                colour="white",
                variant="guardener",
                guild_id=GUILD,
                rated=True,
            )
            await service.accept(location_id=n + 1, user_id=black, render=False)
            await service.resign(location_id=n + 1, user_id=loser)
        await service.challenge(
            location_id=50,
            challenger_id=1,
            opponent_id=2,
            colour="white",
            variant="tquarchess",
            guild_id=GUILD,
            rated=True,
        )
        await service.accept(location_id=50, user_id=2, render=False)
    finally:
        await service.close()


@pytest.fixture
def db(store_target: str) -> str:
    asyncio.run(_fill(store_target))
    return store_target


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_leaderboard_global_and_per_server(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "leaderboard", "guardener", "--db", str(db))
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "Guardener Chess: global leaderboard"
    ranked = [line.split()[1] for line in lines[2:5]]
    assert sorted(ranked) == ["1", "2", "3"] and "?" in lines[2]  # few games: provisional
    code, server, _ = run(
        capsys, "leaderboard", "guardener", "--guild", str(GUILD), "--db", str(db)
    )
    assert code == 0 and server.splitlines()[2:5] == lines[2:5]  # the same games counted
    code, empty, _ = run(capsys, "leaderboard", "stone_garden", "--db", str(db))
    assert code == 0 and "nobody has played a rated game" in empty


def test_profile_shows_ratings_results_and_current_games(
    db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "profile", "1", "--guild", str(GUILD), "--db", str(db))
    assert code == 0
    assert "Guardener Chess: " in out and "4 games: 2 won, 0 drawn, 2 lost" in out
    assert "  game 5: lost against 3" in out and "  game 4: lost against 2" in out
    assert "Playing now:\n  game 6: tquarchess against 2" in out


def test_rebuild_matches_then_repairs_a_spoiled_table(
    db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "ratings", "rebuild", "--check", "--db", str(db))
    assert code == 0 and "5 rated games" in out and "matched exactly" in out
    stores.raw(db, "UPDATE ratings SET rating = 2000 WHERE player_id = 1")
    code, out, _ = run(capsys, "ratings", "rebuild", "--check", "--db", str(db))
    assert code == 1 and "stored rows differed" in out
    code, out, _ = run(capsys, "ratings", "rebuild", "--db", str(db))
    assert code == 0 and "replaced" in out
    code, out, _ = run(capsys, "ratings", "rebuild", "--check", "--db", str(db))
    assert code == 0 and "matched exactly" in out


def test_bad_arguments_get_one_line_and_change_nothing(
    tmp_path: Path, db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(capsys, "leaderboard", "chess", "--db", str(db))
    assert code == 2 and err.startswith("error: unknown variant 'chess'") and err.count("\n") == 1
    missing = tmp_path / "none.sqlite3"
    code, _, err = run(capsys, "profile", "1", "--db", str(missing))
    assert code == 2 and "there is no database" in err and not missing.exists()


def test_the_rating_commands_load_no_discord(db: Path) -> None:
    probe = (
        "import sys; from bot import cli; cli.main(sys.argv[1:]); "
        "print('discord' in sys.modules, 'PIL' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe, "leaderboard", "guardener", "--db", str(db)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert out.strip().endswith("False False")
