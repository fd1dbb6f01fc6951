"""The console's commands: ``play`` (a game at this keyboard), ``games``, ``record`` and
``roll``, through the same service and store as the Discord bot.

    chessgarden play VARIANT [--db PATH] [--seed N] [--days N] [--option NAME[=VALUE] ...]
                             [--no-board] [--orientation white|black|mover]
                             [--images DIR [--size PX] [--no-legend]]
    chessgarden play VARIANT --vs ai:LEVEL [--colour white|black] [...]
                                                          play against the computer
    chessgarden play --game ID [--db PATH] [...]          resume a stored game
    chessgarden games [--db PATH] [--limit N]             list the stored games
    chessgarden record [--db PATH] ID
    chessgarden roll EXPR

``play`` opens the service and hands over to ``bot.console.play.Session``, which says
what it prints and reads. Console games are played by two local players, ``WHITE_ID``
and ``BLACK_ID``; in hot-seat play whoever is to move is the one typing. Against the
computer (``--vs ai:LEVEL``, 1-3, and ``--colour``, the player's side, white by default)
the player is ``WHITE_ID`` or ``BLACK_ID`` by colour, the computer
``bot.service.COMPUTER_ID``; its search runs in a worker process
(``GameService.computer_move``). ``--seed N`` makes a new game's dice reproducible (the
seed is then ``N``, not a secret).

Time (issue 13): a console game has no time limit unless ``--days N`` (1 to 14 days per
move) is given; then the status line says how long the side to act has left, and a
side that runs out of time loses on time (the game ends when it is next resumed, or by
``chessgarden sweep``).

``record`` prints the record with the log's chain head as a tag, and for a game against
the computer ``[White "..."]``/``[Black "..."]`` tags naming it and its level. Every
hint printed (resume, record) is a command that runs as shown
(``bot.console.words.program``).

Also runnable as ``python -m bot.console.session ...``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any, TextIO

import variants
from bot.console.games import (
    BLACK_ID,
    CONSOLE_PLAYERS,
    WHITE_ID,
    is_console_game,
    player_label,
)
from bot.console.play import ACTION_HINT, COMMANDS, Session
from bot.console.words import db_words, player_tags, program, tagged
from bot.options import OptionsError, parse_option_args
from bot.service import (
    GameService,
    GameSummary,
    RenderUnavailable,
    ServiceError,
    roll_dice,
)
from bot.service.dice_expr import DiceExpressionError
from storage import StorageError, StoreOpenError, is_postgres_url, resolve_db_path

__all__ = [
    "BLACK_ID",
    "COMMANDS",
    "CONSOLE_PLAYERS",
    "ORIENTATIONS",
    "WHITE_ID",
    "Session",
    "add_subcommands",
    "main",
]

ORIENTATIONS = ("white", "black", "mover")
SIZES = (160, 4000)  # the renderer's narrowest and widest boards (renderers.layout)


def variant_list() -> str:
    """The variants' keys in words, for the help: "a, b or c"."""
    keys = variants.names()
    return ", ".join(keys[:-1]) + " or " + keys[-1] if len(keys) > 1 else "".join(keys)


def add_subcommands(subparsers: Any) -> None:
    """Register ``play``, ``games``, ``record`` and ``roll`` on an ``argparse`` subparsers object."""
    play = subparsers.add_parser(
        "play",
        help="play a game in this terminal: hot-seat, or against the computer",
        description=(
            "Play at this keyboard through the game service. Type "
            + ACTION_HINT
            + ", or one of: "
            + ", ".join(COMMANDS)
            + "."
        ),
    )
    play.add_argument("variant", nargs="?", help=variant_list())
    _add_db(play)
    play.add_argument("--game", type=int, default=None, metavar="ID", help="resume stored game ID")
    play.add_argument(
        "--seed",
        type=int,
        default=None,
        metavar="N",
        help="reproducible dice for a new game (the seed is N, not a secret)",
    )
    play.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="NAME[=VALUE]",
        help="a variant option for a new game, e.g. free_play (repeatable; "
        "`chessgarden rules VARIANT` lists them)",
    )
    play.add_argument(
        "--no-board",
        dest="show_board",
        action="store_false",
        help="do not print the text board after each action (the status still shows)",
    )
    play.add_argument(
        "--orientation",
        choices=ORIENTATIONS,
        default=None,
        help="the side at the bottom of the board: white, black, or mover (the side to "
        "act). Default: your side against the computer; else mover for the text board and "
        "white for --images",
    )
    play.add_argument(
        "--days",
        type=int,
        default=None,
        metavar="N",
        help="a new game's time control: N days per move, 1 to 14 (default: no time limit)",
    )
    play.add_argument(
        "--images", default=None, metavar="DIR", help="write a PNG of the board after each action"
    )
    play.add_argument(
        "--size",
        type=int,
        default=None,
        metavar="PX",
        help=f"the width of the --images PNGs in pixels, {SIZES[0]} to {SIZES[1]} (default 800)",
    )
    play.add_argument(
        "--no-legend",
        dest="legend",
        action="store_false",
        help="--images without the strip under the board that names the pieces a newcomer "
        "will not know (Stone Garden's, the Guardener, the Tquarc)",
    )
    play.add_argument(
        "--vs",
        default=None,
        metavar="ai:LEVEL",
        help="play against the computer at LEVEL 1 (quick, makes mistakes), 2 or 3 (strongest)",
    )
    play.add_argument(
        "--colour",
        "--color",
        dest="colour",
        choices=("white", "black"),
        default=None,
        help="your side against the computer (default white)",
    )
    play.set_defaults(func=main_play)

    games = subparsers.add_parser(
        "games",
        help="list the stored games",
        description="List the stored games, newest activity first: id, variant, status, "
        "players, moves and last activity.",
    )
    _add_db(games)
    games.add_argument(
        "--limit", type=int, default=25, metavar="N", help="at most N games (default 25)"
    )
    games.set_defaults(func=main_games)

    record = subparsers.add_parser("record", help="print a stored game's record")
    _add_db(record)
    record.add_argument("id", type=int, help="the game id")
    record.set_defaults(func=main_record)

    roll = subparsers.add_parser("roll", help="roll a dice expression such as 2d6+3 or 4d6kh3")
    roll.add_argument("expression", nargs="+", help="the dice expression")
    roll.set_defaults(func=main_roll)


def _add_db(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--db",
        default=None,
        metavar="PATH",
        help="SQLite file or postgresql:// URL (default: $CHESSGARDEN_DB or ./chessgarden.sqlite3)",
    )


# ----- roll -------------------------------------------------------------------


def main_roll(args: argparse.Namespace) -> int:
    expression = args.expression
    if not isinstance(expression, str):
        expression = " ".join(expression)
    try:
        result = roll_dice(expression)
    except DiceExpressionError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(result.breakdown)
    return 0


# ----- record -----------------------------------------------------------------


def main_record(args: argparse.Namespace) -> int:
    return asyncio.run(_record(args))


async def _record(args: argparse.Namespace) -> int:
    service = await _open(args.db, existing=True)
    if service is None:
        return 1
    try:
        history = await service.history(game_id=args.id)
    except ServiceError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    finally:
        await service.close()
    game = history.game
    tags = player_tags(game.computer, game.computer_level)
    if game.chain_head is not None:
        tags.append(("Chain", game.chain_head))
    record = tagged(history.record, tags)
    sys.stdout.write(record if record.endswith("\n") else record + "\n")
    return 0


def chain_tagged(record: str, head: str | None) -> str:
    """The record with the log's chain head as one more tag after the others (issue 24;
    a replay ignores it): what ``/verify chain:`` compares with the stored log."""
    return record if head is None else tagged(record, [("Chain", head)])


# ----- games ------------------------------------------------------------------


def main_games(args: argparse.Namespace) -> int:
    return asyncio.run(_games(args, sys.stdout))


async def _games(args: argparse.Namespace, stdout: TextIO) -> int:
    if args.limit < 1:
        print("error: --limit must be at least 1", file=sys.stderr)
        return 2
    path = resolve_db_path(args.db)
    if no_store_at(path):  # nothing stored here: say so, make nothing
        stdout.write(games_table([])[0] + f" (no database at {path})\n")
        return 0
    service = await _open(args.db)
    if service is None:
        return 1
    try:
        games = await service.list_games(limit=min(args.limit, 100), count_moves=True)
    except ServiceError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    finally:
        await service.close()
    for line in games_table(games):
        stdout.write(line + "\n")
    if any(g.status == "active" and is_console_game(g) for g in games):
        stdout.write(f"Resume a console game with: {program()} play --game ID{db_words(args.db)}\n")
    return 0


def games_table(games: Sequence[GameSummary]) -> list[str]:
    """One line per game: id, variant, status, players, moves, last activity (UTC)."""
    if not games:
        return [f"No games stored yet. Start one with: {program()} play VARIANT"]
    rows = [("id", "variant", "status", "players", "moves", "last activity (UTC)")]
    for game in games:
        status = f"{game.status} {game.result}" if game.result else str(game.status)
        moves = "" if game.moves is None else str(game.moves)
        rows.append((str(game.id), game.variant, status, _players(game), moves, _when(game)))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = []
    for row in rows:
        cells = [
            cell.rjust(widths[i]) if i in (0, 4) else cell.ljust(widths[i])
            for i, cell in enumerate(row)
        ]
        lines.append("  ".join(cells).rstrip())
    return lines


def _players(game: GameSummary) -> str:
    if is_console_game(game) and game.computer is not None:
        return f"you vs the computer (level {game.computer_level}, playing {game.computer})"
    if is_console_game(game):
        return "hot-seat (console)"
    if game.status == "challenge" or game.white_id is None:
        opponent = "anyone" if game.opponent_id is None else f"user {game.opponent_id}"
        return f"user {game.challenger_id} challenges {opponent}"
    return f"user {game.white_id} vs user {game.black_id}"


def _when(game: GameSummary) -> str:
    return game.updated_at[:16].replace("T", " ")  # ISO 8601 in UTC: date, hours, minutes


# ----- play -------------------------------------------------------------------


def main_play(args: argparse.Namespace) -> int:
    try:
        return asyncio.run(_play(args, sys.stdin, sys.stdout))
    except KeyboardInterrupt:  # Ctrl-C while an action was being stored: it is either in or out
        print()
        return 130


def no_store_at(path: str) -> bool:
    """True when ``path`` names an SQLite file that does not exist (a command that only
    reads must say so, not make an empty store there)."""
    return path != ":memory:" and not is_postgres_url(path) and not os.path.exists(path)


async def _open(db: str | None, *, existing: bool = False, **options: Any) -> GameService | None:
    """The service on the store, or ``None`` after printing one ``error:`` line.
    ``existing``: the store must be there already (reading or resuming a game)."""
    path = resolve_db_path(db)
    if existing and no_store_at(path):
        print(
            f"error: there is no database at {path}; give --db PATH (or set CHESSGARDEN_DB)",
            file=sys.stderr,
        )
        return None
    try:
        return await GameService.open(path, label=player_label, **options)
    except StoreOpenError as error:  # names the file and the cause already
        print(f"error: {error}", file=sys.stderr)
    except (StorageError, OSError) as error:
        print(f"error: cannot open the database {path}: {error}", file=sys.stderr)
    return None


async def _play(args: argparse.Namespace, stdin: TextIO, stdout: TextIO) -> int:
    options: dict[str, Any] = {}
    try:
        options = parse_option_args(getattr(args, "option", None) or [])
    except OptionsError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if options and args.game is not None:
        print(
            f"error: --option is for a new game; game {args.game} keeps the options it "
            "was created with",
            file=sys.stderr,
        )
        return 2
    level: int | None = None
    vs = getattr(args, "vs", None)
    colour = getattr(args, "colour", None)
    if vs is not None:
        level = _computer_level(vs)
        if level is None:
            print(f"error: --vs takes ai:1, ai:2 or ai:3, not {vs!r}", file=sys.stderr)
            return 2
        if args.game is not None:
            print("error: --vs is for a new game; a stored game keeps its players", file=sys.stderr)
            return 2
    elif colour is not None:
        print(
            "error: --colour is your side against the computer: add --vs ai:LEVEL",
            file=sys.stderr,
        )
        return 2
    size = getattr(args, "size", None)
    legend = getattr(args, "legend", True)
    renderer: dict[str, Any] = {}
    if not legend and getattr(args, "images", None) is None:
        print("error: --no-legend is about the --images PNGs: add --images DIR", file=sys.stderr)
        return 2
    if size is not None:
        if getattr(args, "images", None) is None:
            print(
                "error: --size is the width of the --images PNGs: add --images DIR", file=sys.stderr
            )
            return 2
        if not SIZES[0] <= size <= SIZES[1]:
            print(
                f"error: --size takes {SIZES[0]} to {SIZES[1]} pixels, not {size}", file=sys.stderr
            )
            return 2
    if size is not None or not legend:
        renderer["renderer"] = sized_renderer(size, legend=legend)
    service = await _open(args.db, existing=args.game is not None, **renderer)
    if service is None:
        return 1
    try:
        session = Session(
            service,
            stdin,
            stdout,
            images=args.images,
            show_board=getattr(args, "show_board", True),
            orientation=getattr(args, "orientation", None),
            db=args.db,
        )
        view = await session.start(
            args.variant,
            args.game,
            args.seed,
            options,
            getattr(args, "days", None),
            computer=(level, colour or "white") if level is not None else None,
        )
        if view is None:
            return 2
        return await session.loop()
    finally:
        await service.close()


def sized_renderer(size: int | None, *, legend: bool = True) -> Callable[[Any, str], bytes]:
    """The service's board renderer at ``size`` pixels (``--size``; None: the renderer's
    own), with the legend strip or without it (``--no-legend``); Pillow is loaded only
    when the first board is drawn."""
    sized: dict[str, Any] = {} if size is None else {"size": size}

    def render(game: Any, orientation: str = "white") -> bytes:
        try:
            from renderers import render_png
        except ImportError as error:
            raise RenderUnavailable("the board renderer is not available") from error
        return bytes(render_png(game, orientation=orientation, legend=legend, **sized))

    return render


def _computer_level(text: str) -> int | None:
    word = text.strip().lower()
    if word.startswith("ai:") and word[3:] in ("1", "2", "3"):
        return int(word[3:])
    return None


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="chessgarden", description="Chess Garden console")
    subparsers = parser.add_subparsers(dest="command", required=True)
    add_subcommands(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":
    from bot.cli import quiet_pipe

    sys.exit(quiet_pipe(main))
