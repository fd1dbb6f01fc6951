"""``chessgarden migrate-store --from PATH_OR_URL --to URL``: move a server's store, for
example from SQLite to PostgreSQL (issue 16; docs/scaling.md).

It copies every player, game (ids, seeds, commitments, start rolls, clocks, board
messages) and log entry with its rolls (``storage.transfer``), then verifies the copy: each
game and log in the target equals the source's, and every game that has dice replays
from its log on its seed's dice (``bot.service.verify``: every roll is the seed's, the log
is complete, the result follows), and every game's chained log (issue 24) holds: the
digests are copied as they are, never recomputed, so a log changed before the copy is
still caught after it. It refuses a target that is not empty, and changes
nothing in the source. Stop the bot while it runs: actions taken during the copy would
not be in the target.

Exit status: 0 copied and verified; 1 the stores cannot be opened, the target is not
empty, or the copy does not verify; 2 a usage error.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import Any

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2


def add_subcommands(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "migrate-store",
        help="copy every game, action, roll and player into an empty store, and verify it",
        description=(
            "Copy a whole store (SQLite file or postgresql:// URL) into an empty one, then "
            "verify the copy by comparing every row and replaying every game on its dice. "
            "Stop the bot first."
        ),
    )
    p.add_argument(
        "--from",
        dest="source",
        required=True,
        metavar="PATH_OR_URL",
        help="the store to copy: an SQLite file or a postgresql:// URL",
    )
    p.add_argument(
        "--to",
        dest="target",
        required=True,
        metavar="URL",
        help="the empty store to fill: a postgresql:// URL (or an SQLite file)",
    )
    p.set_defaults(func=main_migrate)  # fmt: skip


def main_migrate(args: argparse.Namespace) -> int:
    if args.source == args.target:
        print("error: --from and --to name the same store", file=sys.stderr)
        return EXIT_USAGE
    return asyncio.run(migrate(args.source, args.target, out=sys.stdout))


async def migrate(source: str, target: str, *, out: Any = None) -> int:
    from pathlib import Path

    from storage import StorageError, StoreOpenError, is_postgres_url, open_repository, redact
    from storage.transfer import copy_store

    def say(line: str) -> None:
        if out is not None:
            print(line, file=out, flush=True)

    if not is_postgres_url(source) and not Path(source).is_file():
        print(f"error: cannot open the database {source}: there is no such file", file=sys.stderr)
        return EXIT_FAILED
    opened: list[Any] = []
    try:
        try:
            src = await open_repository(source)
            opened.append(src)
            dst = await open_repository(target)
            opened.append(dst)
        except StoreOpenError as error:
            print(f"error: {error}", file=sys.stderr)
            return EXIT_FAILED
        shown_from, shown_to = redact(source), redact(target)
        try:
            counts = await copy_store(
                src, dst, progress=lambda done, total: say(f"copied {done} of {total} games")
            )
        except StorageError as error:
            print(f"error: {error}", file=sys.stderr)
            return EXIT_FAILED
        say(
            f"copied {counts.players} players, {counts.games} games, {counts.actions} log "
            f"entries and {counts.rolls} rolls from {shown_from} to {shown_to}"
        )
        problems = await verify_copy(src, dst)
        for line in problems[:20]:
            print(f"error: {line}", file=sys.stderr)
        if problems:
            print(
                f"error: the copy does not verify ({len(problems)} problems); "
                f"empty {shown_to} before trying again",
                file=sys.stderr,
            )
            return EXIT_FAILED
        say(
            f"verified: {counts.games} games equal in both stores; every game with dice "
            "replays from its log, and every roll is its seed's"
        )
        return EXIT_OK
    finally:
        for repo in reversed(opened):
            await repo.close()


async def verify_copy(source: Any, target: Any) -> list[str]:
    """What differs between the two stores, or cannot be replayed in the target ([] if
    nothing)."""
    from bot.service.chain_check import chain_problems
    from bot.service.verify import verify_game
    from storage import GameQuery
    from storage.transfer import ALL

    problems: list[str] = []
    if await source.list_players() != await target.list_players():
        problems.append("the players differ")
    ids = sorted(g.id for g in await source.list_games(GameQuery(limit=ALL)))
    copied = sorted(g.id for g in await target.list_games(GameQuery(limit=ALL)))
    if ids != copied:
        problems.append(f"the target has games {len(copied)}, the source {len(ids)}")
    if await source.all_ratings() != await target.all_ratings():
        problems.append("the ratings differ")
    if await source.all_rating_changes() != await target.all_rating_changes():
        problems.append("the rating changes differ")
    loop = asyncio.get_running_loop()
    for game_id in ids:
        row, copy = await source.get_game(game_id), await target.get_game(game_id)
        if row != copy:
            problems.append(f"game {game_id} differs: {row} != {copy}")
            continue
        log, copied_log = await source.actions(game_id), await target.actions(game_id)
        if log != copied_log:
            problems.append(f"game {game_id}: its log differs")
            continue
        if copy is None:
            continue
        if copy.seed is None:  # a challenge, or one never accepted: no dice to replay,
            broken = chain_problems(copy, copied_log)  # but an abort entry is chained
            if broken:
                problems.append(f"game {game_id} does not verify: {'; '.join(broken)}")
            continue
        report = await loop.run_in_executor(None, verify_game, copy, copied_log)
        if not report.ok:
            problems.append(f"game {game_id} does not verify: {'; '.join(report.problems)}")
    return problems
