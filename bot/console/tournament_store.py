"""``chessgarden tournament show|check ID --db PATH``: a stored tournament (issue 30).

- ``show``: the tournament (format, variant, status, players), every round's boards
  with their games and results and its bye, the standings with tiebreaks, and its log;
- ``check``: every stored round re-paired with the pairing core from the stored results
  before it, and every recorded result read again from its game; prints each difference.
  Exit 0 when every round agrees, 1 when one does not.

Exit codes: 0 done (or agreeing), 1 differences or a store that cannot be opened, 2 a bad
argument (no such tournament, no database file).
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bot.service import GameService

EXIT_OK = 0
EXIT_FAILED = 1


def add_store_subcommands(sub: Any) -> None:
    from bot.console.ratings import _db_option

    s = sub.add_parser(
        "show",
        help="a stored tournament: rounds, results, standings and log",
        description="Print a stored tournament: its players, every round's boards and "
        "results, the standings with tiebreaks, and its log.",
    )
    s.add_argument("tournament_id", type=int, metavar="ID", help="the tournament's id")
    _db_option(s)
    s.set_defaults(func=lambda args: _run(args, _show))
    c = sub.add_parser(
        "check",
        help="re-pair every stored round from the stored results and report differences",
        description="Re-pair every stored round with the pairing code from the results "
        "stored before it, and read every result again from its game. Exit 1 on any "
        "difference.",
    )
    c.add_argument("tournament_id", type=int, metavar="ID", help="the tournament's id")
    _db_option(c)
    c.set_defaults(func=lambda args: _run(args, _check))


def _run(args: argparse.Namespace, work: Any) -> int:
    import asyncio

    from bot.console.ratings import _open_and

    async def go(service: GameService) -> int:
        result: int = await work(service, args.tournament_id)
        return result

    return asyncio.run(_open_and(args.db, go))


async def _check(service: GameService, tournament_id: int) -> int:
    row = await service.tournaments.tournament(tournament_id=tournament_id)
    problems = await service.tournaments.check(tournament_id=tournament_id)
    rounds = await service.repo.tournament_rounds(row.id)
    if problems:
        for line in problems:
            print(line)
        print(
            f"tournament {row.id}: {len(problems)} difference(s) in {len(rounds)} stored round(s)"
        )
        return EXIT_FAILED
    print(
        f"tournament {row.id}: all {len(rounds)} stored round(s) follow from the results "
        "before them"
    )
    return EXIT_OK


async def _show(service: GameService, tournament_id: int) -> int:
    sys.stdout.write(await show_text(service, tournament_id))
    return EXIT_OK


async def show_text(service: GameService, tournament_id: int) -> str:
    from bot.service.clock import from_ms, iso
    from bot.service.tournament_log import detail_words
    from bot.service.tournaments import points_text

    tours = service.tournaments
    row = await tours.tournament(tournament_id=tournament_id)
    info = await tours.info(guild_id=row.guild_id, tournament_id=row.id)
    lines = [
        f"Tournament {row.id}: {row.name} (server {row.guild_id}, channel {row.channel_id})",
        *info.lines,
        f"Status: {row.status}; starts {iso(from_ms(row.starts_ms))}; created by {row.created_by}",
        "",
        "Players:",
    ]
    for p in info.players:
        extra = f", seed {p.seed_no}" if p.seed_no is not None else ""
        extra += f", rating {p.rating:g}" if p.rating is not None else ""
        extra += f", not paired from round {p.out_from}" if p.out_from is not None else ""
        extra += f", {p.timeouts} timeout(s)" if p.timeouts else ""
        lines.append(f"  {p.name or p.player_id} ({p.player_id}): {p.status}{extra}")
    for rnd in info.rounds:
        pairs = await tours.round_pairings(row, rnd.number)
        lines += ["", f"Round {rnd.number} ({'done' if pairs.done else 'playing'}, "
                  f"until {iso(pairs.deadline)})"]  # fmt: skip
        for b in pairs.boards:
            game = f"game {b.game_id}" if b.game_id is not None else "no game"
            result = b.result or ("-" if pairs.done else "playing")
            how = f" ({b.ending})" if b.ending and b.ending != "played" else ""
            lines.append(f"  {b.board:>3}. {b.white} - {b.black}   {result}{how}   {game}")
        if pairs.bye is not None:
            lines.append(f"  bye: {pairs.bye} +{points_text(pairs.bye_points)}")
        if rnd.compromises:
            lines.append("  no pairing kept every rule; gave way on: " + ", ".join(rnd.compromises))
    table = await tours.standings_of(row)
    if table.rows:
        lines += ["", "Final standings:" if table.final else "Standings:"]
        heads = ["#", "Player", "Points", *table.tiebreaks]
        body = [
            [str(s.rank), s.player.label, points_text(s.points), *(f"{x:g}" for x in s.tiebreaks)]
            for s in table.rows
        ]
        widths = [max(len(r[i]) for r in [heads, *body]) for i in range(len(heads))]
        for r in [heads, *body]:
            lines.append(
                "  "
                + "  ".join(
                    c.ljust(w) if i == 1 else c.rjust(w)
                    for i, (c, w) in enumerate(zip(r, widths, strict=True))
                ).rstrip()
            )
    lines += ["", "Log:"]
    for entry in await service.repo.tournament_log(row.id):
        who = "the bot" if entry.actor_id is None else str(entry.actor_id)
        player = f" {entry.player_id}" if entry.player_id is not None else ""
        words = detail_words(entry.detail)  # English (the service's codes, said)
        detail = f": {words}" if words else ""
        lines.append(f"  {entry.created_at[:19]}  {who}  {entry.action}{player}{detail}")
    return "\n".join(lines) + "\n"
