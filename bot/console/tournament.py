"""``chessgarden tournament ...``: tournaments on the command line.

- ``tournament simulate --format swiss|round-robin --players N [--rounds R] --seed S
  [--bye-points 1|0.5] [--json]``: a whole tournament with seeded random results
  (draws, byes and a few withdrawals) through the real pairing code
  (``bot.tournament.simulate``); prints every round's boards (White first), results
  and byes, then the final standings with tiebreaks. A Swiss's ``--rounds`` defaults
  to log2(N) rounded up (8 players: 3); a round robin's is its single or double
  cycle's length (default: single).

- ``tournament show ID --db PATH`` and ``tournament check ID --db PATH``: a stored
  tournament (``bot.console.tournament_store``).

Exit codes: 0 done, 2 a bad argument. ``simulate`` loads neither the service nor the
database.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bot.tournament.simulate import Simulation

EXIT_OK = 0
EXIT_USAGE = 2


def add_subcommands(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "tournament", help="tournaments: simulate one, show or check a stored one"
    )
    sub = p.add_subparsers(dest="tournament_command", metavar="ACTION")
    sub.required = True
    s = sub.add_parser(
        "simulate",
        help="run a whole tournament with seeded random results",
        description="Run a Swiss or a round robin with seeded random results (draws, "
        "byes and a few withdrawals) through the real pairing code, and print every "
        "round and the final standings with tiebreaks.",
    )
    s.add_argument("--format", required=True, choices=("swiss", "round-robin"))
    s.add_argument("--players", type=int, required=True, metavar="N")
    s.add_argument(
        "--rounds",
        type=int,
        default=None,
        metavar="R",
        help="rounds (a Swiss: the base-2 logarithm of N rounded up, unless given; "
        "a round robin: its single or double length)",
    )
    s.add_argument("--seed", type=int, default=0, metavar="S", help="random seed (0)")
    s.add_argument(
        "--bye-points",
        type=float,
        default=1.0,
        choices=(1.0, 0.5),
        metavar="1|0.5",
        help="what a Swiss bye is worth (1)",
    )
    s.add_argument("--json", action="store_true", help="print JSON instead of text")
    s.set_defaults(func=main_simulate)
    from bot.console.tournament_store import add_store_subcommands

    add_store_subcommands(sub)  # show and check: a stored tournament (issue 30)


def main_simulate(args: argparse.Namespace) -> int:
    from bot.tournament.simulate import simulate

    try:
        sim = simulate(
            args.format, args.players, args.rounds, args.seed, bye_points=args.bye_points
        )
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if args.json:
        print(json.dumps(as_json(sim), indent=1))
    else:
        sys.stdout.write(as_text(sim))
    return EXIT_OK


def _points(value: float) -> str:
    whole, half = divmod(round(value * 2), 2)
    return f"{whole}½" if half and whole else ("½" if half else str(whole))


def _number(value: float) -> str:
    return f"{value:g}"


def as_text(sim: Simulation) -> str:
    from bot.tournament.standings import TIEBREAK_TITLES, TIEBREAKS

    by_id = {p.id: p for p in sim.players}

    def who(pid: int) -> str:
        p = by_id[pid]
        return f"{p.label} ({p.rating:g})"

    title = (
        "Swiss"
        if sim.format == "swiss"
        else ("Double round robin" if sim.double else "Round robin")
    )
    lines = [
        f"{title}: {len(sim.players)} players, {len(sim.rounds)} rounds, seed {sim.seed}"
        + (f", a bye is worth {_points(sim.bye_points)}" if sim.format == "swiss" else ""),
    ]
    for rnd in sim.rounds:
        lines.append("")
        lines.append(f"Round {rnd.pairings.round_no}")
        if rnd.withdrawn:
            lines.append("  withdrawn: " + ", ".join(who(pid) for pid in rnd.withdrawn))
        results = {(g.white, g.black): g for g in rnd.result.games}
        width = max((len(who(b.white)) for b in rnd.pairings.boards), default=0)
        for b in rnd.pairings.boards:
            game = results.get((b.white, b.black))
            outcome = (
                "not played" if game is None else game.result + (" forfeit" if game.forfeit else "")
            )
            lines.append(f"  {b.number:>3}. {who(b.white):<{width}}  -  {who(b.black)}   {outcome}")
        if rnd.pairings.bye is not None:
            worth = rnd.result.bye_points if rnd.result.bye is not None else 0.0
            lines.append(f"  bye: {who(rnd.pairings.bye)}  +{_points(worth)}")
        if rnd.pairings.compromises:
            lines.append(
                "  no pairing kept every rule; gave way on: " + ", ".join(rnd.pairings.compromises)
            )
    names = TIEBREAKS[sim.format]
    heads = [
        "#",
        "Player",
        "Rating",
        "Points",
        *(TIEBREAK_TITLES[n] for n in names),
        "W",
        "D",
        "L",
        "Unplayed",
    ]
    rows = [
        [
            str(row.rank),
            row.player.label,
            f"{row.player.rating:g}",
            _points(row.points),
            *(_number(x) for x in row.tiebreaks),
            str(row.wins),
            str(row.draws),
            str(row.losses),
            str(row.unplayed),
        ]
        for row in sim.standings
    ]
    widths = [max(len(r[i]) for r in [heads, *rows]) for i in range(len(heads))]
    lines += ["", "Final standings (White - Black above; tiebreaks in the order they count)"]
    for r in [heads, *rows]:
        cells = [
            c.ljust(w) if i == 1 else c.rjust(w)
            for i, (c, w) in enumerate(zip(r, widths, strict=True))
        ]
        lines.append("  ".join(cells).rstrip())
    winner = sim.standings[0]
    lines.append("")
    noun = "point" if winner.points == 1 else "points"
    lines.append(f"Winner: {winner.player.label} with {_points(winner.points)} {noun}.")
    return "\n".join(lines) + "\n"


def as_json(sim: Simulation) -> dict[str, Any]:
    from bot.tournament.standings import TIEBREAKS

    names = TIEBREAKS[sim.format]
    return {
        "format": str(sim.format),
        "seed": sim.seed,
        "double": sim.double,
        "bye_points": sim.bye_points,
        "players": [{"id": p.id, "name": p.name, "rating": p.rating} for p in sim.players],
        "rounds": [
            {
                "round": rnd.pairings.round_no,
                "withdrawn": list(rnd.withdrawn),
                "boards": [
                    {"board": b.number, "white": b.white, "black": b.black}
                    | _game_json(rnd, b.white, b.black)
                    for b in rnd.pairings.boards
                ],
                "bye": rnd.pairings.bye,
                "bye_points": rnd.result.bye_points if rnd.result.bye is not None else 0.0,
                "compromises": list(rnd.pairings.compromises),
            }
            for rnd in sim.rounds
        ],
        "standings": [
            {
                "rank": row.rank,
                "id": row.player.id,
                "name": row.player.name,
                "points": row.points,
                **dict(zip(names, row.tiebreaks, strict=True)),
                "wins": row.wins,
                "draws": row.draws,
                "losses": row.losses,
                "unplayed": row.unplayed,
            }
            for row in sim.standings
        ],
    }


def _game_json(rnd: Any, white: int, black: int) -> dict[str, Any]:
    for g in rnd.result.games:
        if (g.white, g.black) == (white, black):
            return {"result": g.result, "forfeit": g.forfeit}
    return {"result": None, "forfeit": False}
