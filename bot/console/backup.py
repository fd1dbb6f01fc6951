"""``chessgarden backup [--db PATH] OUT [--force]``: copy the SQLite store while the bot
runs, and prove the copy.

The copy is SQLite's online backup (``storage.maintenance.backup_sqlite``): one consistent
state of the database, taken while the bot goes on writing (WAL). Then the copy is checked:
SQLite's integrity check, its schema version, and every game that has dice is replayed
from its log on its seed's dice, as ``/verify`` and ``migrate-store`` do
(``bot.service.verify``). One line per outcome; for a file of more than ten steps
(``STEP_PAGES``) a line at each tenth of the copy.

It refuses to overwrite OUT unless ``--force``. A ``postgresql://`` store is backed up with
PostgreSQL's own tools: the command says how (docs/scaling.md).

Exit status: 0 copied and verified; 1 the database cannot be read, the copy failed, or
its games do not verify (the copy is then exact: the same games fail in the store); 2 a
usage error (OUT exists, a PostgreSQL store).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import Any

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
MAX_PROBLEM_LINES = 20


def add_subcommands(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "backup",
        help="copy the SQLite store while the bot runs, and verify the copy",
        description=(
            "Copy the SQLite database with SQLite's online backup (safe while the bot "
            "runs), then check the copy: SQLite's integrity check, its schema version, and "
            "every game replayed from its log on its seed's dice. For PostgreSQL, use "
            "pg_dump (docs/scaling.md)."
        ),
    )
    p.add_argument(
        "--db",
        default=None,
        metavar="PATH",
        help="the SQLite file (default: $CHESSGARDEN_DB or ./chessgarden.sqlite3)",
    )
    p.add_argument("out", metavar="OUT", help="the new file to write the copy to")
    p.add_argument("--force", action="store_true", help="replace OUT if it exists")
    p.set_defaults(func=main_backup)


def pg_dump_advice(url: str) -> str:
    from storage import redact

    shown = redact(url)
    return (
        f"chessgarden backup copies SQLite files; back up the PostgreSQL store {shown} with "
        "pg_dump -Fc -f chessgarden.dump URL and restore it into an empty database with "
        "pg_restore -d URL chessgarden.dump (docs/scaling.md)"
    )


def main_backup(args: argparse.Namespace) -> int:
    from storage import is_postgres_url, resolve_db_path

    source = resolve_db_path(args.db)
    if is_postgres_url(source):
        print(f"error: {pg_dump_advice(source)}", file=sys.stderr)
        return EXIT_USAGE
    return asyncio.run(backup(source, args.out, force=args.force, out=sys.stdout))


async def backup(
    source: str, target: str, *, force: bool = False, out: Any = None, step_pages: int = 0
) -> int:
    from storage import LATEST_VERSION, StorageError, StoreOpenError
    from storage.maintenance import STEP_PAGES, BackupError, TargetExists, backup_sqlite

    def say(line: str) -> None:
        if out is not None:
            print(line, file=out, flush=True)

    shown_tenths: set[int] = set()
    step = step_pages or STEP_PAGES

    def progress(done: int, total: int) -> None:
        if total <= 10 * step:
            return  # a small file: no progress lines
        tenth = done * 10 // total
        if tenth not in shown_tenths and tenth < 10:
            shown_tenths.add(tenth)
            say(f"copied {done * 100 // total}% ({done} of {total} pages)")

    loop = asyncio.get_running_loop()
    try:
        facts = await loop.run_in_executor(
            None,
            lambda: backup_sqlite(source, target, step_pages=step, progress=progress, force=force),
        )
    except TargetExists as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except (BackupError, StoreOpenError, StorageError) as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_FAILED
    say(f"copied {source} to {target}: {_size(facts.size_bytes)}, schema version {facts.version}")
    say("checked: SQLite's integrity check of the copy passed")
    if facts.version != LATEST_VERSION:
        later = (
            "the bot migrates the store when it next starts"
            if facts.version < LATEST_VERSION
            else "a newer Chess Garden wrote it"
        )
        say(
            f"not replayed: the copy has schema version {facts.version} and this Chess Garden "
            f"reads version {LATEST_VERSION}; {later}"
        )
        return EXIT_OK
    games, problems = await replay_games(target, say)
    for line in problems[:MAX_PROBLEM_LINES]:
        print(f"error: {line}", file=sys.stderr)
    if problems:
        print(
            f"error: {len(problems)} games in the copy do not verify; the copy is exact, so "
            "the store has the same problems (see /verify)",
            file=sys.stderr,
        )
        return EXIT_FAILED
    say(f"verified: {games} games with dice replay from their logs on their seeds' dice")
    return EXIT_OK


async def replay_games(path: str, say: Any = None) -> tuple[int, list[str]]:
    """Replay every game with a seed in the SQLite file ``path``: (games, problems)."""
    from bot.service.verify import verify_game
    from storage.maintenance import stored_games

    loop = asyncio.get_running_loop()
    problems: list[str] = []
    checked = 0
    async for game, log in stored_games(path):
        if game.seed is None:
            continue  # a challenge never accepted: no dice, nothing to replay
        report = await loop.run_in_executor(None, verify_game, game, log)
        checked += 1
        if not report.ok:
            problems.append(f"game {game.id} does not verify: {'; '.join(report.problems)}")
        if say is not None and checked % 1000 == 0:
            say(f"replayed {checked} games")
    return checked, problems


def _size(n: int) -> str:
    value, unit = float(n), "bytes"
    for bigger in ("KB", "MB", "GB"):
        if value < 1024:
            break
        value, unit = value / 1024, bigger
    return f"{n} bytes" if unit == "bytes" else f"{value:.1f} {unit}"
