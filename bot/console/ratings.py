"""Ratings on the command line (issue 15):

- ``chessgarden leaderboard VARIANT [--guild ID] --db PATH``: the top 10 (global, or one
  server's), provisional ratings (RD above 110) marked "?";
- ``chessgarden profile USER_ID [--guild ID] --db PATH``: a player's rating per variant
  (rating ± 2·RD, rank, games, wins/draws/losses), their last 5 rated results and their
  games going on now;
- ``chessgarden ratings rebuild [--check] --db PATH``: recompute every rating from the
  finished games in the order they finished, compare with the stored ones and (unless
  ``--check``) replace them if they differ. Exit 0 when they matched or were replaced;
  with ``--check``, 1 when they differ.

Exit codes: 0 done, 1 the store cannot be opened (or ``--check`` found differences),
2 a bad argument (an unknown variant, a missing database file).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bot.service import GameService, Leaderboard, Profile, Standing

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2


def _db_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--db",
        default=None,
        metavar="PATH",
        help="SQLite file or postgresql:// URL (default: $CHESSGARDEN_DB or ./chessgarden.sqlite3)",
    )


def _guild_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--guild",
        type=int,
        default=None,
        metavar="ID",
        help="a Discord server's ratings (default: the global ones)",
    )


def add_subcommands(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "leaderboard",
        help="the best ratings of a variant (global, or one server's)",
        description="The top 10 Glicko-2 ratings of a variant; '?' marks a provisional "
        "rating (RD above 110).",
    )
    p.add_argument("variant", help="variant key, see `chessgarden variants`")
    _guild_option(p)
    _db_option(p)
    p.set_defaults(func=lambda args: _run(args.db, lambda s: _leaderboard(s, args)))

    p = subparsers.add_parser(
        "profile",
        help="a player's ratings, record, last results and current games",
        description="A player's rating per variant (rating ± 2·RD), games, wins/draws/"
        "losses, last 5 rated results, and games going on now.",
    )
    p.add_argument("user_id", type=int, help="the player's user id (a Discord user id)")
    _guild_option(p)
    _db_option(p)
    p.set_defaults(func=lambda args: _run(args.db, lambda s: _profile(s, args)))

    p = subparsers.add_parser(
        "ratings",
        help="ratings maintenance: rebuild every rating from the finished games",
        description="Ratings are a projection of the finished games; `rebuild` recomputes "
        "them all, in the order the games finished, and reports whether the stored ones "
        "were exactly those.",
    )
    actions = p.add_subparsers(dest="ratings_action", metavar="ACTION")
    actions.required = True
    r = actions.add_parser("rebuild", help="recompute every rating from the finished games")
    r.add_argument(
        "--check", action="store_true", help="only compare; change nothing (exit 1 if they differ)"
    )
    _db_option(r)
    r.set_defaults(func=lambda args: _run(args.db, lambda s: _rebuild(s, args)))


def _run(db: str | None, work: Callable[[GameService], Awaitable[int]]) -> int:
    return asyncio.run(_open_and(db, work))


async def _open_and(db: str | None, work: Callable[[GameService], Awaitable[int]]) -> int:
    from bot.console.session import no_store_at
    from bot.service import GameService, ServiceError
    from storage import StorageError, StoreOpenError, resolve_db_path

    path = resolve_db_path(db)
    if no_store_at(path):
        print(f"error: there is no database at {path} (give --db PATH)", file=sys.stderr)
        return EXIT_USAGE
    try:
        service = await GameService.open(path, renderer=None, dice_renderer=None)
    except StoreOpenError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_FAILED
    except (StorageError, OSError) as error:
        print(f"error: cannot open the database {path}: {error}", file=sys.stderr)
        return EXIT_FAILED
    try:
        return await work(service)
    except ServiceError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_USAGE
    finally:
        await service.close()


def _who(player_id: int, name: str | None) -> str:
    return f"{name} ({player_id})" if name else str(player_id)


def rating_text(rating: float, rd: float) -> str:
    from bot.service.rating_log import shown_rating

    return shown_rating(rating, rd)


def standing_line(s: Standing) -> str:
    return (
        f"{s.rank:>4}  {_who(s.player_id, s.name):<28} {rating_text(s.rating, s.rd):>6}"
        f"  ±{round(2 * s.rd):<4} {s.games:>5}  {s.wins}/{s.draws}/{s.losses}"
    )


def leaderboard_text(board: Leaderboard) -> str:
    where = f"server {board.scope}" if board.scope is not None else "global"
    lines = [f"{board.variant_title}: {where} leaderboard"]
    if not board.top:
        lines.append("nobody has played a rated game of it yet")
        return "\n".join(lines)
    lines.append(f"{'rank':>4}  {'player':<28} {'rating':>6}  {'±2RD':<5} {'games':>5}  W/D/L")
    lines += [standing_line(s) for s in board.top]
    if board.own is not None:
        lines += ["   …", standing_line(board.own)]
    lines.append("? provisional: rating deviation above 110 (few or long-ago games)")
    return "\n".join(lines)


def profile_text(profile: Profile) -> str:
    from bot.service.rating_log import signed

    where = f"server {profile.scope}" if profile.scope is not None else "global"
    lines = [f"{_who(profile.user_id, profile.name)}: {where} ratings"]
    if not profile.records:
        lines.append("no rated games yet")
    for record in profile.records:
        s = record.standing
        lines.append(
            f"{record.variant_title}: {rating_text(s.rating, s.rd)} ± {round(2 * s.rd)} "
            f"(rank {s.rank}), {s.games} game{'s' if s.games != 1 else ''}: "
            f"{s.wins} won, {s.draws} drawn, {s.losses} lost"
        )
        for r in record.recent:
            word = {1.0: "won", 0.5: "drew", 0.0: "lost"}[r.score]
            lines.append(
                f"  game {r.game_id}: {word} against {r.opponent_id} "
                f"({round(r.before)} → {round(r.after)}, {signed(r.after - r.before)})"
            )
    if profile.current:
        lines.append("Playing now:")
        for game in profile.current:
            other = game.black_id if game.white_id == profile.user_id else game.white_id
            lines.append(f"  game {game.id}: {game.variant} against {other}")
    return "\n".join(lines)


async def _leaderboard(service: GameService, args: argparse.Namespace) -> int:
    board = await service.leaderboard(variant=args.variant, guild_id=args.guild)
    print(leaderboard_text(board))
    return EXIT_OK


async def _profile(service: GameService, args: argparse.Namespace) -> int:
    profile = await service.profile(
        user_id=args.user_id, guild_id=args.guild, viewer_id=args.user_id
    )
    print(profile_text(profile))
    return EXIT_OK


async def _rebuild(service: GameService, args: argparse.Namespace) -> int:
    report = await service.rebuild_ratings(check=args.check)
    print(report.line)
    return EXIT_FAILED if args.check and not report.matched else EXIT_OK
