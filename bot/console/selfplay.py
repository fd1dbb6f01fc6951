"""``chessgarden selfplay VARIANT --white P --black P --games N --seed S [--json]``.

P is ``random``, ``greedy`` (the most valuable capture, otherwise random) or
``ai:LEVEL`` (1-3). Game i (from 0) uses dice seed ``S + i``. One line per game;
a game that reaches ``--max-plies`` actions is scored a draw and the line says
so. With ``--json`` a last line sums up::

    {"variant": ..., "games": N, "white_wins": ..., "black_wins": ..., "draws": ...,
     "max_plies": ..., "capped": ..., "move_ms": {"p50": ..., "p95": ..., "max": ...}}

where ``move_ms`` counts the AI's moves only (zeros when no AI played). Loads
the rules engine and the search only (no database, no discord).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any


def add_subcommands(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "selfplay",
        help="play games between random, greedy and AI players, for measurement",
        description=(
            "Play N games of a variant between two players (random, greedy or ai:LEVEL), "
            "one line per game; a game reaching --max-plies is a draw."
        ),
    )
    p.add_argument("variant", help="variant key, see `chessgarden variants`")
    p.add_argument("--white", required=True, metavar="P", help="random | greedy | ai:LEVEL")
    p.add_argument("--black", required=True, metavar="P", help="random | greedy | ai:LEVEL")
    p.add_argument("--games", type=int, default=1, metavar="N", help="number of games (1)")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="game i uses seed S+i (0)")
    p.add_argument(
        "--max-plies",
        type=int,
        default=None,
        metavar="N",
        help="actions before a game is scored a draw (default 400)",
    )
    p.add_argument(
        "--budget",
        type=float,
        default=2.0,
        metavar="SECONDS",
        help="the AI's time budget per move (default 2; level 1 and 2 use less)",
    )
    p.add_argument("--json", action="store_true", help="end with a JSON summary line")
    p.set_defaults(func=main_selfplay)


def main_selfplay(args: argparse.Namespace) -> int:
    import variants
    from engine import players

    max_plies = players.DEFAULT_MAX_PLIES if args.max_plies is None else args.max_plies
    try:
        variants.rules(args.variant)
        white = players.parse(args.white)
        black = players.parse(args.black)
        if args.games < 1:
            raise ValueError("--games must be at least 1")
        if max_plies < 1:
            raise ValueError("--max-plies must be at least 1")
        if not args.budget > 0:
            raise ValueError("--budget must be a positive number of seconds")
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    wins = {"white": 0, "black": 0, None: 0}
    capped = 0
    times: list[float] = []
    for i in range(args.games):
        seed = args.seed + i
        played = players.play_game(
            args.variant, white, black, seed=seed, max_plies=max_plies, budget_s=args.budget
        )
        wins[played.winner] += 1
        capped += played.capped
        times.extend(played.ai_move_ms)
        how = f"draw: ply cap {max_plies} reached" if played.capped else played.reason
        print(
            f"game {i + 1} seed {seed}: {white.name} (white) vs {black.name} (black): "
            f"{played.score} ({how}) in {played.plies} plies",
            flush=True,
        )
    if args.json:
        summary = {
            "variant": args.variant,
            "games": args.games,
            "white_wins": wins["white"],
            "black_wins": wins["black"],
            "draws": wins[None],
            "max_plies": max_plies,
            "capped": capped,
            "move_ms": {
                "p50": round(players.percentile(times, 0.5), 1),
                "p95": round(players.percentile(times, 0.95), 1),
                "max": round(max(times, default=0.0), 1),
            },
        }
        print(json.dumps(summary))
    return 0
