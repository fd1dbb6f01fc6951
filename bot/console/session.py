"""Local console front end: hot-seat play, stored games, records and dice, through the
same service and store as the Discord bot.

    chessgarden play VARIANT [--db PATH] [--seed N] [--days N] [--option NAME[=VALUE] ...]
                             [--no-board] [--orientation white|black|mover] [--images DIR]
    chessgarden play VARIANT --vs ai:LEVEL [--colour white|black] [...]
                                                          play against the computer
    chessgarden play --game ID [--db PATH] [...]          resume a stored game
    chessgarden games [--db PATH] [--limit N]             list the stored games
    chessgarden record [--db PATH] ID
    chessgarden roll EXPR

``play`` prints ``game <id>``, then the board and the status in words, then reads one
command per line: an action in notation, or ``moves``, ``board``, ``history``,
``undo``, ``resign``, ``draw``, ``rules``, ``help``, ``quit`` (see ``COMMANDS``).
After each action it prints the action as recorded with the dice now showing
(``e4 [2 4]``), the text board (``variants.text_board``, from the side to act unless
``--orientation`` says otherwise; ``--no-board`` leaves it out) and the status in words
(``variants.describe``): who acts, what the dice allow, what is pending, check. Each
answer ends with an empty line. A refused action prints the rule that refuses it and
the closest legal actions (``variants.explain``). ``resign`` and ``draw`` ask y/N
first; ``quit`` says how to resume.

On a terminal there is a prompt, line editing, history and Tab completion of the legal
actions and the commands (``bot.console.terminal``). Console games are played by two local
players, ``WHITE_ID`` and ``BLACK_ID``; whoever is to move is the one typing.
``--seed N`` makes a new game's dice reproducible (the seed is then ``N``, not a secret).

Against the computer (issue 14): ``--vs ai:LEVEL`` (1-3) and ``--colour`` (the
player's side, white by default). The player is ``WHITE_ID`` or ``BLACK_ID`` by colour,
the computer ``bot.service.COMPUTER_ID``. When it is the computer's turn the console
prints ``The computer is thinking (level N)...`` and then its action like a player's
(``e5 [1 3]``), the board and the status. The search runs in a worker process
(``GameService.computer_move``). ``undo`` and ``draw`` are for two players at one
keyboard and are refused in such a game; ``resign`` resigns for the player.

Time (issue 13): a console game has no time limit unless ``--days N`` (1 to 14 days per
move) is given; then the status line says how long the side to act has left, and a
side that runs out of time loses on time (the game ends when it is next resumed, or by
``chessgarden sweep``).

Also runnable as ``python -m bot.console.session ...``.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import secrets
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

import variants
from bot.console.terminal import LineReader, wrap_width, wrapped
from bot.options import OptionsError, parse_option_args
from bot.service import (
    COMPUTER_ID,
    GameService,
    GameSummary,
    GameView,
    IllegalAction,
    InvalidState,
    Outcome,
    RenderUnavailable,
    ServiceError,
    TimeUp,
    roll_dice,
)
from bot.service.clock import days_text, time_left_text
from bot.service.dice_expr import DiceExpressionError
from storage import StorageError, StoreOpenError, resolve_db_path

WHITE_ID = 1
BLACK_ID = 2
CONSOLE_PLAYERS = (WHITE_ID, BLACK_ID)
ORIENTATIONS = ("white", "black", "mover")
COMMANDS: dict[str, str] = {
    "moves": "list the legal actions now (Tab completes them as you type)",
    "board": "show the board and the status again",
    "history": "the game's record so far",
    "undo": "take back the last move (only while no die has been rolled since it)",
    "resign": "the side to move resigns (asks y/N first)",
    "draw": "both players agree a draw (asks y/N first)",
    "rules": "the complete rules of this variant",
    "help": "this list",
    "quit": "leave; the game stays stored and can be resumed",
}
ACTION_HINT = "an action in notation (e.g. e4, Nf3, reroll, pass, roll)"
YES = ("y", "yes")


def _label(user_id: int) -> str:
    return {WHITE_ID: "White", BLACK_ID: "Black"}.get(user_id, f"player {user_id}")


def dice_text(dice: tuple[int, ...] | None) -> str:
    return f"[{' '.join(str(v) for v in dice)}]" if dice else ""


def variant_list() -> str:
    """The variants' keys in words, for the help: "a, b or c"."""
    keys = variants.names()
    return ", ".join(keys[:-1]) + " or " + keys[-1] if len(keys) > 1 else "".join(keys)


def add_subcommands(subparsers: Any) -> None:
    """Register ``play``, ``games``, ``record`` and ``roll`` on an ``argparse`` subparsers object."""
    play = subparsers.add_parser(
        "play",
        help="play a game hot-seat in this terminal",
        description=(
            "Hot-seat play through the game service. Type "
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
        "act). Default: mover for the text board, white for --images",
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
    service = await _open(args.db)
    if service is None:
        return 1
    try:
        history = await service.history(game_id=args.id)
    except ServiceError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    finally:
        await service.close()
    record = chain_tagged(history.record, history.game.chain_head)
    sys.stdout.write(record if record.endswith("\n") else record + "\n")
    return 0


RECORD_TAG = re.compile(r'\[[A-Za-z]+ "')  # a record's tag line, e.g. [Variant "..."]


def chain_tagged(record: str, head: str | None) -> str:
    """The record with the log's chain head as one more tag after the others (issue 24;
    a replay ignores it): what ``/verify chain:`` compares with the stored log."""
    if not record or head is None:
        return record
    lines = record.split("\n")
    tags = 0
    while tags < len(lines) and RECORD_TAG.match(lines[tags]):
        tags += 1
    return "\n".join([*lines[:tags], f'[Chain "{head}"]', *lines[tags:]])


# ----- games ------------------------------------------------------------------


def main_games(args: argparse.Namespace) -> int:
    return asyncio.run(_games(args, sys.stdout))


async def _games(args: argparse.Namespace, stdout: TextIO) -> int:
    if args.limit < 1:
        print("error: --limit must be at least 1", file=sys.stderr)
        return 2
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
    if any(g.status == "active" and _is_console_game(g) for g in games):
        stdout.write(
            f"Resume a console game with: chessgarden play --game ID{_db_words(args.db)}\n"
        )
    return 0


def games_table(games: Sequence[GameSummary]) -> list[str]:
    """One line per game: id, variant, status, players, moves, last activity (UTC)."""
    if not games:
        return ["No games stored yet. Start one with: chessgarden play VARIANT"]
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


def _is_console_game(game: GameSummary | GameView) -> bool:
    return game.challenger_id in CONSOLE_PLAYERS and (
        game.opponent_id in CONSOLE_PLAYERS or game.opponent_id == COMPUTER_ID
    )


def _players(game: GameSummary) -> str:
    if _is_console_game(game) and game.computer is not None:
        return f"you vs the computer (level {game.computer_level}, {game.computer})"
    if _is_console_game(game):
        return "hot-seat (console)"
    if game.status == "challenge" or game.white_id is None:
        opponent = "anyone" if game.opponent_id is None else f"user {game.opponent_id}"
        return f"user {game.challenger_id} challenges {opponent}"
    return f"user {game.white_id} vs user {game.black_id}"


def _when(game: GameSummary) -> str:
    return game.updated_at[:16].replace("T", " ")  # ISO 8601 in UTC: date, hours, minutes


def _db_words(db: str | None) -> str:
    return f" --db {db}" if db else ""


# ----- play -------------------------------------------------------------------


def main_play(args: argparse.Namespace) -> int:
    try:
        return asyncio.run(_play(args, sys.stdin, sys.stdout))
    except KeyboardInterrupt:  # Ctrl-C while an action was being stored: it is either in or out
        print()
        return 130


async def _open(db: str | None) -> GameService | None:
    """The service on the store, or ``None`` after printing one ``error:`` line."""
    path = resolve_db_path(db)
    try:
        return await GameService.open(path, label=_label)
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
    service = await _open(args.db)
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


def _computer_level(text: str) -> int | None:
    word = text.strip().lower()
    if word.startswith("ai:") and word[3:] in ("1", "2", "3"):
        return int(word[3:])
    return None


class Session:
    """One hot-seat game at this keyboard, or one against the computer."""

    def __init__(
        self,
        service: GameService,
        stdin: TextIO,
        stdout: TextIO,
        images: str | None = None,
        *,
        show_board: bool = True,
        orientation: str | None = None,
        db: str | None = None,
    ) -> None:
        self.service = service
        self.stdout = stdout
        self.images = Path(images) if images else None
        self.show_board = show_board
        self.orientation = orientation
        self.db = db
        self.game_id = 0
        self.variant = ""
        self.computer: str | None = None  # the computer's side, in a game against it
        self.computer_level: int | None = None
        self.legal: Sequence[str] = ()  # Outcome.legal: each text written when read
        self.warned_images = False
        self.reader = LineReader(stdin, stdout, self.words)
        self.width = wrap_width(stdout)

    # ----- output ----------------------------------------------------------------

    def say(self, line: str = "") -> None:
        self.stdout.write(line + "\n")
        self.stdout.flush()

    def tell(self, line: str) -> None:
        """A line of prose: wrapped between words on a terminal, whole elsewhere."""
        for part in wrapped(line, self.width):
            self.say(part)

    def error(self, message: str) -> None:
        self.tell(f"error: {message}")

    def words(self) -> tuple[str, ...]:
        """What Tab completes: the legal actions now, then the commands."""
        return (*self.legal, *COMMANDS)

    # ----- starting ----------------------------------------------------------------

    async def start(
        self,
        variant: str | None,
        game_id: int | None,
        seed: int | None,
        options: dict[str, Any] | None = None,
        days: int | None = None,
        *,
        computer: tuple[int, str] | None = None,
    ) -> GameView | None:
        """``computer``: (level, the player's colour) for a new game against it."""
        try:
            if game_id is not None:
                view = await self.service.view(game_id=game_id)
                if not _is_console_game(view):
                    print(f"error: game {game_id} is not a console game", file=sys.stderr)
                    return None
                if variant is not None and variant != view.variant:
                    print(
                        f"error: game {game_id} is {view.variant}, not {variant}", file=sys.stderr
                    )
                    return None
                if view.status == "challenge":  # interrupted between creating and starting
                    view = (
                        await self.service.accept(game_id=game_id, user_id=BLACK_ID, render=False)
                    ).game
            elif computer is not None:
                if variant is None:
                    print("error: name a variant to play against the computer", file=sys.stderr)
                    return None
                if days is not None:
                    print("error: a game against the computer has no time limit", file=sys.stderr)
                    return None
                level, mine = computer
                view = (
                    await self.service.play_computer(
                        user_id=WHITE_ID if mine == "white" else BLACK_ID,
                        location_id=-1 - secrets.randbelow(2**62),
                        variant=variant,
                        level=level,
                        colour=mine,
                        options=options or None,
                        seed=None if seed is None else str(seed),
                        render=False,
                    )
                ).game
            else:
                if variant is None:
                    print("error: name a variant to play, or --game ID to resume", file=sys.stderr)
                    return None
                created = await self.service.challenge(
                    location_id=-1 - secrets.randbelow(2**62),
                    challenger_id=WHITE_ID,
                    opponent_id=BLACK_ID,
                    colour="white",
                    variant=variant,
                    options=options or None,
                    days=days,
                )
                view = (
                    await self.service.accept(
                        game_id=created.game.id,
                        user_id=BLACK_ID,
                        render=False,
                        seed=None if seed is None else str(seed),
                    )
                ).game
        except ServiceError as error:
            print(f"error: {error}", file=sys.stderr)
            return None
        self.game_id = view.id
        self.variant = view.variant
        self.computer = view.computer
        self.computer_level = view.computer_level
        self.say(f"game {view.id}")
        what = "resumed" if game_id is not None else "begins"
        options_said = f" (options: {_options_words(view.options)})" if view.options else ""
        who = (
            f"you play {other_side(view.computer)} against the computer "
            f"(level {view.computer_level})"
            if view.computer is not None
            else "White and Black play at this keyboard"
        )
        self.tell(
            f"{view.variant_title}{options_said}, game {view.id} {what}: {who}. "
            "Type help for the commands, rules for the rules."
        )
        view = await self.on_time(view)
        await self.show(view)
        if self.images is not None:
            await self.write_image(None, view)
        self.say()
        if self.computers_turn(view):
            await self.computer_moves()
            self.say()
        return view

    # ----- the computer ------------------------------------------------------------

    def computers_turn(self, view: GameView) -> bool:
        return self.computer is not None and view.status == "active" and view.turn == self.computer

    async def computer_moves(self) -> None:
        """The computer acts while it is its turn (it may act twice running: a re-roll),
        each action printed like a player's."""
        while True:
            self.say(f"The computer is thinking (level {self.computer_level})...")
            outcome = await self.service.computer_move(
                game_id=self.game_id, render=self.images is not None
            )
            if outcome is None:
                return
            dice = dice_text(outcome.dice)
            await self.after(outcome, str(outcome.recorded) + (f" {dice}" if dice else ""))
            if self.images is not None:
                await self.write_image(outcome, outcome.game)
            if not self.computers_turn(outcome.game):
                return

    # ----- time ------------------------------------------------------------------

    def clock(self, view: GameView) -> str:
        """``Clock: White has 2 days 3 hours left (3 days per move).`` for a timed game
        (issue 13); ``''`` untimed."""
        if view.deadline is None:
            return ""
        left = time_left_text(view.deadline, self.service.clock.now())
        if view.turn is None:  # a challenge: its deadline is when it expires (no side acts)
            return f"Clock: the challenge expires in {left}." if view.status == "challenge" else ""
        return f"Clock: {view.turn.capitalize()} has {left} left ({days_text(view.time_days)})."

    async def on_time(self, view: GameView) -> GameView:
        """If the side to act has run out of time, end the game now (one scheduler pass)
        and say so; the game as it stands after that."""
        if view.status != "active" or view.deadline is None:
            return view
        if self.service.clock.now() < view.deadline:
            return view
        for event in await self.service.run_due():
            if event.game.id == self.game_id:
                self.say(event.messages[0])
        return await self.service.view(game_id=self.game_id)

    async def loop(self) -> int:
        while True:
            try:
                line = self.reader.read("> ")
            except KeyboardInterrupt:
                self.say("")
                self.say(self.resume_hint())
                return 130
            if line is None:
                return 0
            if not line:
                continue
            if line.lower() in ("quit", "exit"):
                self.say(self.resume_hint())
                return 0
            try:
                await self.handle(line)
            except IllegalAction as error:
                self.refused(error, line)
            except TimeUp as error:  # the side to act ran out of time: the game ends on time
                self.error(str(error))
                view = await self.on_time(await self.service.view(game_id=self.game_id))
                await self.show(view)
            except ServiceError as error:
                self.error(str(error))
            self.say()

    def resume_hint(self) -> str:
        if self.game_id == 0:
            return ""
        return (
            f"Game {self.game_id} is stored. Resume it with: "
            f"chessgarden play --game {self.game_id}{_db_words(self.db)}"
        )

    async def handle(self, command: str) -> None:
        word = command.lower()
        service, gid = self.service, self.game_id
        if word in ("help", "?"):
            self.help()
        elif word == "moves":
            moves = await service.legal_moves(game_id=gid)
            self.legal = moves
            self.say(" ".join(moves) if moves else "(no legal moves)")
        elif word == "board":
            view = await service.view(game_id=gid)
            self.say(f"{view.variant_title}, game {view.id}, {_actions(view.ply)} played")
            await self.show(view, board=True)
            if self.images is not None:
                await self.write_image(None, view)
        elif word == "history":
            history = await service.history(game_id=gid)
            self.say(history.record.rstrip("\n"))
        elif word == "rules":
            self.stdout.write(variants.rulebook_text(self.variant))
        elif word in ("undo", "draw") and self.computer is not None:
            self.error(f"{word} is for two players at one keyboard, not against the computer")
        elif word == "undo":
            view = await service.view(game_id=gid)
            if view.is_over:
                raise_over(view)
            # The player who made the last move asks: the side not to move now.
            asker = BLACK_ID if view.turn == "white" else WHITE_ID
            outcome = await service.undo(game_id=gid, user_id=asker)
            await self.after(outcome, outcome.messages[0])
        elif word == "resign":
            mover = await self.mover()
            side = _label(mover)
            if self.confirm(f"{side} resigns the game: sure? [y/N] "):
                outcome = await service.resign(game_id=gid, user_id=mover)
                await self.after(outcome, outcome.messages[0].rstrip("."))
            else:
                self.say(f"{side} plays on.")
        elif word == "draw":  # both players are at this keyboard: one agreement, one commit
            mover = await self.mover()
            if self.confirm("Both players agree to a draw: sure? [y/N] "):
                outcome = await service.agree_draw(game_id=gid, user_id=mover)
                await self.after(outcome, "draw agreed")
            else:
                self.say("No draw; play on.")
        else:
            await self.act(command)

    def help(self) -> None:
        self.say(f"Type {ACTION_HINT}, or a command:")
        for name, what in COMMANDS.items():
            self.say(f"  {name:<8} {what}")
        if self.reader.readline is not None:
            self.say("Tab completes actions and commands; Up and Down recall earlier lines.")

    def confirm(self, question: str) -> bool:
        """A y/N question; anything but y or yes (or the end of input) is no."""
        if not self.reader.interactive:
            self.say(question.rstrip())
        answer = self.reader.read(question, remember=False)
        return answer is not None and answer.lower() in YES

    async def act(self, command: str) -> None:
        service, gid = self.service, self.game_id
        view = await service.view(game_id=gid)
        if view.is_over:
            self.error(f"the game is over: {result_line(view)}")
            return
        outcome = await service.act(
            game_id=gid,
            user_id=await self.mover(view),
            text=command,
            render=self.images is not None,
            orientation=self.image_side(),
            expected_ply=view.ply,
        )
        dice = dice_text(outcome.dice)
        await self.after(outcome, str(outcome.recorded) + (f" {dice}" if dice else ""))
        if self.images is not None:
            await self.write_image(outcome, outcome.game)
        if self.computers_turn(outcome.game):
            self.say()
            await self.computer_moves()

    def refused(self, error: IllegalAction, text: str) -> None:
        """The rule that refuses the action and the closest legal actions (contract C2)."""
        refusal = error.refusal
        if refusal is None:
            self.error(str(error))
            return
        shown = text if len(text) <= 40 else text[:37] + "..."
        self.error(f"{refusal.message} ({shown!r})")
        if refusal.closest:
            more = f"; `moves` lists all {len(self.legal)}" if len(self.legal) > 5 else ""
            self.tell(f"closest legal: {', '.join(refusal.closest)}{more}")

    async def after(self, outcome: Outcome, line: str) -> None:
        self.say(line)
        self.legal = outcome.legal
        if outcome.game_over:
            self.say(result_line(outcome.game))
        await self.show(outcome.game, outcome=outcome)

    async def show(
        self, view: GameView, *, outcome: Outcome | None = None, board: bool = False
    ) -> None:
        """The text board (unless ``--no-board``; ``board``: even then) and the status in
        words. No empty line inside: an empty line ends an answer."""
        status = outcome.status if outcome is not None else None
        if self.show_board or board or status is None:
            text = await self.service.text_board(game_id=view.id, orientation=self.text_side())
            status = text.status
            if self.show_board or board:
                for line in text.board.splitlines():
                    if line.strip():
                        self.say(line)
        if view.status == "active" and not self.legal:
            self.legal = await self.service.legal_moves(game_id=view.id)
        if view.status != "active":
            if outcome is None:  # a game that was over already
                self.say(result_line(view))
            self.say(f"Its record: chessgarden record {view.id}{_db_words(self.db)}")
            return
        for line in status.lines:
            self.tell(line)
        if view.deadline is not None:
            self.tell(self.clock(view))

    def text_side(self) -> str | None:
        """The side at the bottom of the text board (``None``: the side to act)."""
        return None if self.orientation in (None, "mover") else self.orientation

    def image_side(self) -> str | None:
        """The side at the bottom of the images (``None``: the side to act); White unless
        ``--orientation`` says otherwise, so that a game's PNGs do not turn every ply."""
        if self.orientation == "mover":
            return None
        return self.orientation or "white"

    async def mover(self, view: GameView | None = None) -> int:
        view = view or await self.service.view(game_id=self.game_id)
        if view.is_over:
            raise_over(view)
        # Against the computer, the one typing is always the player (who may resign
        # while the computer is to act).
        side = other_side(self.computer) if self.computer is not None else view.turn
        return WHITE_ID if side == "white" else BLACK_ID

    async def write_image(self, outcome: Outcome | None, view: GameView) -> None:
        assert self.images is not None
        image = outcome.image if outcome is not None else None
        if image is None:
            try:
                image = (
                    await self.service.board(game_id=self.game_id, orientation=self.image_side())
                ).image
            except RenderUnavailable as error:
                if not self.warned_images:
                    self.error(f"no images: {error}")
                    self.warned_images = True
                return
        try:
            self.images.mkdir(parents=True, exist_ok=True)
            path = self.images / f"game{view.id}-{view.ply:04d}.png"
            path.write_bytes(image or b"")
        except OSError as error:
            self.error(f"cannot write the image: {error}")


def _actions(count: int) -> str:
    return f"{count} action{'' if count == 1 else 's'}"


def _options_words(options: dict[str, Any]) -> str:
    from bot.options import options_text

    return options_text(options)


def other_side(colour: str) -> str:
    return "black" if colour == "white" else "white"


def raise_over(view: GameView) -> None:
    raise InvalidState(f"the game is over: {result_line(view)}")


def result_line(view: GameView) -> str:
    if view.status == "finished":
        outcome = "draw" if view.winner is None else f"{view.winner} wins"
        return f"result {view.result} {outcome} ({view.result_reason})"
    return f"result * game {view.status}" + (
        f" ({view.result_reason})" if view.result_reason else ""
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="chessgarden", description="Chess Garden console")
    subparsers = parser.add_subparsers(dest="command", required=True)
    add_subcommands(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":
    sys.exit(main())
