"""Local console front end: hot-seat play, records and dice, through the same service and store.

    chessgarden play VARIANT [--db PATH] [--game ID] [--seed N] [--days N] [--images DIR]
    chessgarden record [--db PATH] ID
    chessgarden roll EXPR

``play`` prints ``game <id>`` first, then reads one command per line from standard
input: an action in notation, ``moves``, ``board``, ``history``, ``resign``, ``draw``,
``help`` or ``quit``. After each action it prints the recorded notation and the dice
now showing as ``[a b]``, and the result when the game ends. A prompt is shown only
when standard input is a terminal. Bad input prints ``error: ...`` and play goes on.

Console games are played by two local players, ``WHITE_ID`` and ``BLACK_ID``; whoever
is to move is the one typing. ``--seed N`` makes a new game's dice reproducible (the
seed is then ``N``, not a secret).

Time (issue 13): a console game has no time limit unless ``--days N`` (1 to 14 days per
move) is given; then the status line says how long the side to act has left, and a
side that runs out of time loses on time (the game ends when it is next resumed, or by
``chessgarden sweep``).

Also runnable as ``python -m bot.console ...``.
"""

from __future__ import annotations

import argparse
import asyncio
import secrets
import signal
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from bot.service import (
    GameService,
    GameView,
    InvalidState,
    Outcome,
    RenderUnavailable,
    ServiceError,
    TimeUp,
    roll_dice,
)
from bot.service.clock import time_left_text
from bot.service.dice_expr import DiceExpressionError
from storage import StorageError, StoreOpenError, resolve_db_path

WHITE_ID = 1
BLACK_ID = 2
CONSOLE_PLAYERS = (WHITE_ID, BLACK_ID)
COMMANDS = "an action in notation (e.g. e4, Nf3, reroll, pass, roll), moves, board, history, resign, draw, help, quit"


def _label(user_id: int) -> str:
    return {WHITE_ID: "White", BLACK_ID: "Black"}.get(user_id, f"player {user_id}")


def dice_text(dice: tuple[int, ...] | None) -> str:
    return f"[{' '.join(str(v) for v in dice)}]" if dice else ""


def add_subcommands(subparsers: Any) -> None:
    """Register ``play``, ``record`` and ``roll`` on an ``argparse`` subparsers object."""
    play = subparsers.add_parser(
        "play",
        help="play a game hot-seat in this terminal",
        description="Hot-seat play through the game service. Commands on stdin: " + COMMANDS,
    )
    play.add_argument(
        "variant",
        nargs="?",
        help="guardener, tquarchess, kings_guard, stone_garden or jepps_random",
    )
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
        "--days",
        type=int,
        default=None,
        metavar="N",
        help="a new game's time control: N days per move, 1 to 14 (default: no time limit)",
    )
    play.add_argument(
        "--images", default=None, metavar="DIR", help="write a PNG of the board after each action"
    )
    play.set_defaults(func=main_play)

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
        help="SQLite file (default: $CHESSGARDEN_DB or ./chessgarden.sqlite3)",
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
    sys.stdout.write(history.record if history.record.endswith("\n") else history.record + "\n")
    return 0


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
    service = await _open(args.db)
    if service is None:
        return 1
    try:
        session = _Session(service, stdin, stdout, args.images)
        view = await session.start(args.variant, args.game, args.seed, getattr(args, "days", None))
        if view is None:
            return 2
        return await session.loop()
    finally:
        await service.close()


class _Session:
    def __init__(
        self, service: GameService, stdin: TextIO, stdout: TextIO, images: str | None
    ) -> None:
        self.service = service
        self.stdin = stdin
        self.stdout = stdout
        self.images = Path(images) if images else None
        self.game_id = 0
        self.warned_images = False

    def say(self, line: str) -> None:
        self.stdout.write(line + "\n")
        self.stdout.flush()

    def error(self, message: str) -> None:
        self.say(f"error: {message}")

    async def start(
        self, variant: str | None, game_id: int | None, seed: int | None, days: int | None = None
    ) -> GameView | None:
        try:
            if game_id is not None:
                view = await self.service.view(game_id=game_id)
                if (
                    view.challenger_id not in CONSOLE_PLAYERS
                    or view.opponent_id not in CONSOLE_PLAYERS
                ):
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
        self.say(f"game {view.id}")
        view = await self.on_time(view)
        self.say(self.status(view))
        if self.images is not None:
            await self.write_image(None, view)
        return view

    def status(self, view: GameView) -> str:
        if view.status == "active":
            dice = dice_text(view.dice)
            return f"{view.turn} to move" + (f" {dice}" if dice else "") + self.clock(view)
        return result_line(view)

    def clock(self, view: GameView) -> str:
        """`` · 2 days 3 hours left`` for a timed game (issue 13); ``''`` untimed."""
        if view.deadline is None:
            return ""
        return f" · {time_left_text(view.deadline, self.service.clock.now())} left"

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
        interactive = self.stdin.isatty()
        while True:
            if interactive:
                self.stdout.write("> ")
                self.stdout.flush()
            try:
                line = _readline(self.stdin)
            except KeyboardInterrupt:
                self.say("")
                return 130
            if not line:
                return 0
            command = line.strip()
            if not command:
                continue
            if command.lower() in ("quit", "exit"):
                return 0
            try:
                await self.handle(command)
            except TimeUp as error:  # the side to act ran out of time: the game ends on time
                self.error(str(error))
                view = await self.on_time(await self.service.view(game_id=self.game_id))
                self.say(self.status(view))
            except ServiceError as error:
                self.error(str(error))

    async def handle(self, command: str) -> None:
        word = command.lower()
        service, gid = self.service, self.game_id
        if word in ("help", "?"):
            self.say("commands: " + COMMANDS)
        elif word == "moves":
            moves = await service.legal_moves(game_id=gid)
            self.say(" ".join(moves) if moves else "(no legal moves)")
        elif word == "board":
            view = await service.view(game_id=gid)
            self.say(f"{view.variant} after {view.ply} moves; {self.status(view)}")
            self.say(await service.position(game_id=gid))
            if self.images is not None:
                await self.write_image(None, view)
        elif word == "history":
            history = await service.history(game_id=gid)
            self.say(history.record.rstrip("\n"))
        elif word == "resign":
            outcome = await service.resign(game_id=gid, user_id=await self.mover())
            self.after(outcome, outcome.messages[0].rstrip("."))
        elif word == "draw":  # both players are at this keyboard: one agreement, one commit
            outcome = await service.agree_draw(game_id=gid, user_id=await self.mover())
            self.after(outcome, "draw agreed")
        else:
            view = await service.view(game_id=gid)
            if view.is_over:
                self.error(f"the game is over: {result_line(view)}")
                return
            outcome = await service.act(
                game_id=gid,
                user_id=await self.mover(view),
                text=command,
                render=self.images is not None,
                expected_ply=view.ply,
            )
            dice = dice_text(outcome.dice)
            self.after(outcome, str(outcome.recorded) + (f" {dice}" if dice else ""))
            if self.images is not None:
                await self.write_image(outcome, outcome.game)

    def after(self, outcome: Outcome, line: str) -> None:
        self.say(line)
        if outcome.game_over:
            self.say(result_line(outcome.game))

    async def mover(self, view: GameView | None = None) -> int:
        view = view or await self.service.view(game_id=self.game_id)
        if view.is_over:
            raise_over(view)
        return WHITE_ID if view.turn == "white" else BLACK_ID

    async def write_image(self, outcome: Outcome | None, view: GameView) -> None:
        assert self.images is not None
        image = outcome.image if outcome is not None else None
        if image is None:
            try:
                image = (await self.service.board(game_id=self.game_id, orientation="white")).image
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


def _readline(stdin: TextIO) -> str:
    """One line of input; Ctrl-C interrupts the wait at once (asyncio's own handler would
    only cancel the task once the blocking read returned)."""
    try:
        previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    except ValueError:  # not the main thread
        return stdin.readline()
    try:
        return stdin.readline()
    finally:
        signal.signal(signal.SIGINT, previous)


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
