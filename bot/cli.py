"""The ``chessgarden`` command line.

Each front end registers its own subcommands; this module only gathers them.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence


def _moves(args: argparse.Namespace) -> int:
    import variants

    try:
        game = variants.new_game(args.variant, seed=args.seed)
        for text in args.moves:
            game.play(text)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if game.dice:
        print("dice: [" + " ".join(str(d) for d in game.dice) + "]")
    print(f"{game.turn} to act:")
    print(" ".join(game.legal_moves()))
    return 0


def _variants(args: argparse.Namespace) -> int:
    import variants

    for key in variants.names():
        rules = variants.rules(key)
        print(f"{key:14} {rules.title}")
    return 0


def _rules(args: argparse.Namespace) -> int:
    import variants

    try:
        rules = variants.rules(args.variant)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(rules.title)
    print()
    print(rules.summary)
    if rules.readings:
        print()
        print("Readings in force (our interpretation where the rule page is unclear):")
        for reading in rules.readings:
            print(f"  - {reading}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="chessgarden",
        description="Chess Garden: dice chess variants on Discord and in your terminal.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    p = sub.add_parser("variants", help="list the variants")
    p.set_defaults(func=_variants)

    p = sub.add_parser("rules", help="a variant's summary and the readings in force")
    p.add_argument("variant", help="variant key, see `chessgarden variants`")
    p.set_defaults(func=_rules)

    p = sub.add_parser("moves", help="print the legal actions after some moves")
    p.add_argument("variant", help="variant key, see `chessgarden variants`")
    p.add_argument("moves", nargs="*", help="actions to play first, in notation")
    p.add_argument("--seed", type=int, default=None, help="dice seed (default: random)")
    p.set_defaults(func=_moves)

    from bot import console
    from renderers import cli as render_cli

    console.add_subcommands(sub)
    render_cli.add_subcommands(sub)
    from bot import discord_cli

    discord_cli.add_subcommands(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    code: int = args.func(args)
    return code


if __name__ == "__main__":
    raise SystemExit(main())
