"""Command-line pictures: ``chessgarden render`` and ``chessgarden gif``.

    chessgarden render VARIANT [--moves M ...] [--seed N] [--flip] [--theme T] [--size N]
                       [--no-legend] -o FILE.png
    chessgarden gif RECORD_FILE [--size N] [--theme T] [--flip] [--no-legend] -o FILE.gif

``--no-legend`` leaves out the strip under the board that names the pieces a newcomer
will not know (Stone Garden's, the Guardener, the Tquarc).

A GIF is at most ``MAX_GIF_SIZE`` px wide and replays at most ``MAX_FRAMES`` - 1 actions
(issue 9: a 1,000-ply GIF used to peak at 895 MiB, and ``--size`` had no bound).

``add_subcommands(subparsers)`` registers both on an argparse sub-parser set; each
sets ``func`` to a function ``(args) -> int`` (0 done, 2 bad input).
``python -m renderers.cli ...`` runs them without the bot.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import variants

from .board import render_png
from .gif import MAX_FRAMES, MAX_GIF_SIZE, check_gif, render_gif
from .layout import MAX_SIZE, MIN_SIZE
from .themes import THEMES

USAGE_ERROR = 2


def add_subcommands(subparsers: Any) -> None:
    """Register ``render`` and ``gif`` on ``parser.add_subparsers()``."""
    render = subparsers.add_parser(
        "render",
        help="draw a position as a PNG",
        description="Draw a variant's start position, or the position after --moves, as a PNG.",
    )
    render.add_argument("variant", help="the variant key (`chessgarden variants` lists them)")
    render.add_argument(
        "--moves",
        nargs="+",
        default=[],
        metavar="MOVE",
        help="moves to play in order, one per argument (commas also separate moves)",
    )
    render.add_argument("--seed", type=int, default=1, help="seed for the dice (default 1)")
    render.add_argument("--flip", action="store_true", help="Black at the bottom")
    render.add_argument("--theme", choices=sorted(THEMES), default="classic")
    render.add_argument(
        "--size", type=int, default=800, help=f"image width in pixels ({MIN_SIZE}..{MAX_SIZE})"
    )
    _legend_flag(render)
    render.add_argument("-o", "--output", required=True, help="the PNG file to write")
    render.set_defaults(func=run_render)

    gif = subparsers.add_parser(
        "gif",
        help="replay a game record as an animated GIF",
        description="Replay a game record (the text of Game.record()) as an animated GIF.",
    )
    gif.add_argument("record", help="the record file ('-' reads standard input)")
    gif.add_argument("--flip", action="store_true", help="Black at the bottom")
    gif.add_argument("--theme", choices=sorted(THEMES), default="classic")
    gif.add_argument(
        "--size",
        type=int,
        default=480,
        help=f"image width in pixels ({MIN_SIZE}..{MAX_GIF_SIZE}); a game of at most "
        f"{MAX_FRAMES - 1} actions",
    )
    _legend_flag(gif)
    gif.add_argument("-o", "--output", required=True, help="the GIF file to write")
    gif.set_defaults(func=run_gif)


def _legend_flag(parser: Any) -> None:
    parser.add_argument(
        "--no-legend",
        dest="legend",
        action="store_false",
        help="leave out the strip under the board that names the pieces a newcomer will "
        "not know (Stone Garden's, the Guardener, the Tquarc)",
    )


def _fail(message: str) -> int:
    print(f"chessgarden: {message}", file=sys.stderr)
    return USAGE_ERROR


def _split_moves(args: list[str]) -> list[str]:
    return [m.strip() for arg in args for m in arg.split(",") if m.strip()]


def run_render(args: argparse.Namespace) -> int:
    try:
        game = variants.new_game(args.variant, seed=args.seed)
    except ValueError as e:  # unknown variant: the message names the variants
        return _fail(str(e))
    for n, text in enumerate(_split_moves(args.moves), start=1):
        try:
            game.play(text)
        except ValueError as e:  # IllegalMove and GameOver are ValueErrors
            legal = game.legal_moves()
            said = str(e)
            hint = "" if "legal" in said.lower() else f"; legal now: {', '.join(legal) or 'none'}"
            return _fail(f"move {n} {text!r} cannot be played: {said}{hint}")
    try:
        png = render_png(
            game,
            size=args.size,
            orientation="black" if args.flip else "white",
            theme=args.theme,
            legend=getattr(args, "legend", True),
        )
    except ValueError as e:
        return _fail(str(e))
    Path(args.output).write_bytes(png)
    print(args.output)
    return 0


def run_gif(args: argparse.Namespace) -> int:
    try:
        record = sys.stdin.read() if args.record == "-" else Path(args.record).read_text("utf-8")
    except OSError as e:
        return _fail(f"cannot read {args.record}: {e.strerror or e}")
    try:
        check_gif(record, args.size)
    except ValueError as e:  # too wide, or too long a game: say so, not "does not replay"
        return _fail(f"{args.record}: {e}")
    except KeyError as e:
        return _fail(f"{args.record} does not replay: {e}")
    try:
        data = render_gif(
            record,
            size=args.size,
            theme=args.theme,
            orientation="black" if args.flip else "white",
            legend=getattr(args, "legend", True),
        )
    except (ValueError, KeyError) as e:
        return _fail(f"{args.record} does not replay: {e}")
    Path(args.output).write_bytes(data)
    print(args.output)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="chessgarden", description="Chess Garden pictures")
    add_subcommands(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    result: int = args.func(args)
    return result


if __name__ == "__main__":
    raise SystemExit(main())
