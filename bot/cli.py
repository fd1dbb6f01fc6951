"""The ``chessgarden`` command line.

Each front end registers its own subcommands; this module only gathers them, and
imports a front end only when one of its commands runs (``FRONT_ENDS``). So
``chessgarden variants``, ``rules`` and ``moves`` load the rules engine alone, and
``play``, ``games``, ``record`` and ``roll`` add the service and the database, but
none of them loads discord.py (and none loads Pillow unless it draws). ``--help``,
or a command nobody registered, loads every front end to list them all.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Callable, Sequence

# The module that registers each group of subcommands (with ``add_subcommands``). A
# test checks this table against what the modules really register.
FRONT_ENDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("bot.console.session", ("play", "games", "record", "roll")),
    ("renderers.cli", ("render", "gif")),
    ("bot.discord.run", ("run", "commands")),
    ("bot.console.sweep", ("sweep",)),
    ("bot.console.selfplay", ("selfplay",)),
    ("bot.console.analyse", ("analyse",)),
    ("bot.console.ratings", ("leaderboard", "profile", "ratings")),
    ("bot.console.migrate_store", ("migrate-store",)),
    ("bot.console.backup", ("backup",)),
    ("bot.discord.doctor", ("doctor",)),
    ("bot.web.cli", ("web", "link", "verify-record")),
    ("bot.console.tournament", ("tournament",)),
)
CORE_COMMANDS = ("variants", "rules", "moves")


def _moves(args: argparse.Namespace) -> int:
    import variants
    from bot.options import OptionsError, parse_option_args

    try:
        options = parse_option_args(args.option)
        game = variants.new_game(args.variant, seed=args.seed, options=options)
        for text in args.moves:
            game.play(text)
    except (ValueError, OptionsError) as exc:
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
            print(
                f"error: cannot write the rules pages to {target}: {exc.strerror}", file=sys.stderr
            )
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


def _add_core(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
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

    p = sub.add_parser(
        "moves",
        help="print the legal actions after some moves",
        description="Play the moves from the start (options may come before, between or "
        "after them), then print the dice and the legal actions.",
    )
    p.add_argument("variant", help="variant key, see `chessgarden variants`")
    p.add_argument("moves", nargs="*", help="actions to play first, in notation")
    p.add_argument("--seed", type=int, default=None, help="dice seed (default: random)")
    p.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="NAME[=VALUE]",
        help="a variant option, e.g. free_play (repeatable; see `chessgarden rules`)",
    )
    p.set_defaults(func=_moves, more_words="moves")


def _owner(command: str | None) -> str | None:
    for module, commands in FRONT_ENDS:
        if command in commands:
            return module
    return None


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The command line. With ``command``, only the front end that owns it is loaded
    (the parser then knows the core commands and that front end's); without, all."""
    parser = argparse.ArgumentParser(
        prog="chessgarden",
        description="Chess Garden: dice chess variants on Discord and in your terminal.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    _add_core(sub)
    if command in CORE_COMMANDS:
        return parser
    owner = _owner(command)
    for module, _ in FRONT_ENDS:
        if owner is None or module == owner:
            importlib.import_module(module).add_subcommands(sub)
    return parser


def _command_of(argv: Sequence[str]) -> str | None:
    """The subcommand named in ``argv`` (the first word that is not an option)."""
    for word in argv:
        if word in ("-h", "--help"):
            return None
        if not word.startswith("-"):
            return word
    return None


def main(argv: Sequence[str] | None = None) -> int:
    """The ``chessgarden`` script (``pyproject.toml``): the command ``argv`` names, ending
    quietly if the output's reader goes away (``quiet_pipe``)."""
    return quiet_pipe(lambda: _main(argv))


def _main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(_command_of(argv))
    args, extra = parser.parse_known_args(argv)
    # A command whose last positional takes many words (``moves``) also takes words
    # after its options: ``moves VARIANT e4 --seed 3 e5``.
    more = getattr(args, "more_words", None)
    if more and extra and not any(word.startswith("-") for word in extra):
        getattr(args, more).extend(extra)
    elif extra:
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    code: int = args.func(args)
    return code


def quiet_pipe(run: Callable[[], int]) -> int:
    """``run()``, ending quietly when whoever reads the output stops reading
    (``chessgarden variants | head -3``): no ``BrokenPipeError`` traceback, and exit
    status 141 as a program killed by SIGPIPE would have."""
    try:
        code = run()
        sys.stdout.flush()  # what is still buffered fails here, not at exit
        return code
    except BrokenPipeError:
        # Python flushes standard output again at exit: point it at nothing first.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        return 141


if __name__ == "__main__":
    raise SystemExit(main())
