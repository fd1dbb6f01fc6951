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
    """The complete rules of a variant (plain text or markdown), or, with --write DIR,
    every docs/rules page generated from the same source (variants/rulebook.py)."""
    from pathlib import Path

    import variants

    if args.write:
        target = Path(args.write)
        try:
            target.mkdir(parents=True, exist_ok=True)
            for name, text in variants.rulebook_docs().items():
                (target / name).write_text(text, encoding="utf-8")
        except OSError as exc:
            print(f"error: cannot write the rules pages to {target}: {exc.strerror}", file=sys.stderr)
            return 2
        print(f"wrote {len(variants.names()) + 1} pages to {target}")
        return 0
    if args.variant is None:
        print("error: name a variant (see `chessgarden variants`), or --write DIR", file=sys.stderr)
        return 2
    try:
        variants.rules(args.variant)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    render = variants.rulebook_markdown if args.markdown else variants.rulebook_text
    sys.stdout.write(render(args.variant))
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

    p = sub.add_parser(
        "rules", help="a variant's complete rules: pieces, dice, actions, end, readings"
    )
    p.add_argument("variant", nargs="?", help="variant key, see `chessgarden variants`")
    p.add_argument("--markdown", action="store_true", help="print markdown instead of text")
    p.add_argument(
        "--write", metavar="DIR", help="write every variant's page and an index (docs/rules)"
    )
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
    from bot import discord_cli, sweep

    discord_cli.add_subcommands(sub)
    sweep.add_subcommands(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    code: int = args.func(args)
    return code


if __name__ == "__main__":
    raise SystemExit(main())
