"""``chessgarden sweep --db PATH [--now ISO-8601]``: one pass of the deadline scheduler.

It handles everything due at the given time (default: now) exactly as the bot's
scheduler would: games whose side to act ran out of time end on time (or are aborted if
nobody had moved), players due a reminder are marked reminded, challenges past their
expiry are cancelled. It prints one line per game it ended, reminded or expired, and
exits (0; 1 if the store cannot be opened; 2 for a bad ``--now``).

It posts nothing on Discord: a reminder it marks is not sent again by the bot, and the
end of a game it ends is not posted there. It is for operations (ending games while the
bot is down) and for tests. Each item is claimed in the database, so running it while
the bot runs, or twice at once, still handles each item once.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from datetime import datetime
from typing import Any

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2


def add_subcommands(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "sweep",
        help="one pass of the deadline scheduler: timeouts, reminders, expired challenges",
        description=(
            "End the games whose player to act ran out of time, mark reminders and expire "
            "challenges, as of --now (default: now); one line per game; then exit. Posts "
            "nothing on Discord."
        ),
    )
    p.add_argument(
        "--db",
        default=None,
        metavar="PATH",
        help="SQLite file or postgresql:// URL (default: $CHESSGARDEN_DB or ./chessgarden.sqlite3)",
    )
    p.add_argument(
        "--now",
        default=None,
        metavar="ISO-8601",
        help="the time to sweep at, e.g. 2030-01-03T12:00:00Z (no zone: UTC); default now",
    )
    p.set_defaults(func=main_sweep)


def parse_now(text: str) -> datetime:
    """An ISO-8601 time; ``Z`` and a missing zone both mean UTC. ValueError, in words."""
    cleaned = text.strip()
    if cleaned.endswith(("Z", "z")):
        cleaned = cleaned[:-1] + "+00:00"
    try:
        return datetime.fromisoformat(cleaned)
    except ValueError:
        raise ValueError(
            f"--now must be an ISO-8601 time such as 2030-01-03T12:00:00Z, not {text!r}"
        ) from None


def main_sweep(args: argparse.Namespace) -> int:
    now: datetime | None = None
    if args.now is not None:
        try:
            now = parse_now(args.now)
        except ValueError as error:
            print(f"error: {error}", file=sys.stderr)
            return EXIT_USAGE
    return asyncio.run(_sweep(args.db, now))


async def _sweep(db: str | None, now: datetime | None) -> int:
    from bot.service import GameService, ManualClock, Scheduler
    from storage import StorageError, StoreOpenError, resolve_db_path

    path = resolve_db_path(db)
    # On --now, everything runs on that time: the log entries are stamped with it too.
    clock = ManualClock(now) if now is not None else None
    try:
        service = await GameService.open(path, clock=clock, renderer=None, dice_renderer=None)
    except StoreOpenError as error:  # names the file and the cause already
        print(f"error: {error}", file=sys.stderr)
        return EXIT_FAILED
    except (StorageError, OSError) as error:
        print(f"error: cannot open the database {path}: {error}", file=sys.stderr)
        return EXIT_FAILED
    try:
        events = await Scheduler(service).run_once()
    finally:
        await service.close()
    for event in events:
        print(event.line)
    return EXIT_OK
