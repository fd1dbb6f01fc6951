"""``chessgarden analyse ID [--db PATH] [--depth N] [--json]``: what decided a game.

Reads the stored game's record, analyses it (``engine.analysis``: each action's
error and each roll's luck, in expected score), showing a progress bar on standard
error, then prints the annotated record (``?!``, ``?``, ``??`` after an action, the
luck of each roll, jokers marked) and each player's summary. ``--json`` prints,
instead, one JSON object: for each decision the ply, the side, the equity before and
after the roll, the luck, the error and the label, then the initial and final
equity and each player's totals.

A finished game's analysis is kept in the store, as `/analyse` keeps it on Discord
(``GameService.analyse``): a second run reads it back, and the game's web page shows
it. A game still being played is analysed as it stands, and nothing is kept.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import Any, TextIO

from engine.analysis import Analysis, PlayerTotals, analyse

BAR = 30


def add_subcommands(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "analyse",
        help="a stored game's errors and luck, move by move",
        description="Analyse a stored game: the equity each action gave up and each roll "
        "gave or took, with a summary per player.",
    )
    p.add_argument("id", type=int, help="the game id")
    p.add_argument(
        "--db",
        default=None,
        metavar="PATH",
        help="SQLite file or postgresql:// URL (default: $CHESSGARDEN_DB or ./chessgarden.sqlite3)",
    )
    p.add_argument(
        "--depth", type=int, default=None, metavar="N", help="search depth (the variant's own)"
    )
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.set_defaults(func=main_analyse)


def main_analyse(args: argparse.Namespace) -> int:
    from bot.service.analysis import MAX_DEPTH

    if args.depth is not None and not 1 <= args.depth <= MAX_DEPTH:
        print(f"error: --depth must be a whole number from 1 to {MAX_DEPTH}", file=sys.stderr)
        return 2
    bar = ProgressBar(sys.stderr)
    try:
        found = asyncio.run(_kept_or_record(args.db, args.id, args.depth, bar))
        if found is None:
            return 1
        a = found if isinstance(found, Analysis) else analyse(found, args.depth, bar)
    except ValueError as error:
        bar.done()
        print(f"error: the game's record does not replay: {error}", file=sys.stderr)
        return 1
    bar.done()
    if args.json:
        print(json.dumps(as_json(a)))
    else:
        sys.stdout.write(annotated(a))
    return 0


async def _kept_or_record(
    db: str | None, game_id: int, depth: int | None, bar: ProgressBar
) -> Analysis | str | None:
    """A finished game's analysis through the service (run and kept, or read back); the
    record of a game still being played; None (said why) for an error."""
    from bot.console.session import _open
    from bot.service import AnalysisProgress, ServiceError

    def shown(progress: AnalysisProgress) -> None:
        if progress.state == "running" and progress.total:
            bar(progress.done, progress.total)

    service = await _open(db, existing=True)
    if service is None:
        return None
    try:
        view = await service.view(game_id=game_id)
        if not view.is_over:
            return (await service.history(game_id=game_id)).record
        report = await service.analyse(game_id=game_id, depth=depth, progress=shown, render=False)
    except ServiceError as error:
        bar.done()
        print(f"error: {error}", file=sys.stderr)
        return None
    finally:
        await service.close()
    if report.cached:
        print("(read back: this game was analysed before)", file=sys.stderr)
    return report.analysis


class ProgressBar:
    """``[#####.....] 12/80`` on one line of ``out``, redrawn in place."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.drawn = False

    def __call__(self, done: int, total: int) -> None:
        filled = BAR * done // max(total, 1)
        self.out.write(f"\ranalysing [{'#' * filled}{'.' * (BAR - filled)}] {done}/{total}")
        self.out.flush()
        self.drawn = True

    def done(self) -> None:
        if self.drawn:
            self.out.write("\n")
            self.out.flush()
            self.drawn = False


def as_json(a: Analysis) -> dict[str, Any]:
    decisions = [
        {
            "ply": t.ply,
            "side": t.side,
            "action": t.action,
            "best": t.best,
            "roller": t.roller,
            "rolled": list(t.rolled),
            "before": round(t.before, 6),
            "after": round(t.after, 6),
            "luck": round(t.luck, 6),
            "luck_label": t.luck_label,
            "error": round(t.error, 6),
            "label": t.label,
            "white_equity": round(t.white, 6),
        }
        for t in a.turns
    ]
    return {
        "variant": a.variant,
        "depth": a.depth,
        "decisions": decisions,
        "initial": a.initial,
        "final": a.final,
        "winner": a.winner,
        "reason": a.reason,
        "players": {p.side: _totals(p) for p in a.players},
        "cpu_s": round(a.cpu_s, 2),
    }


def _totals(p: PlayerTotals) -> dict[str, Any]:
    return {
        "decisions": p.decisions,
        "error": p.error,
        "error_rate": p.error_rate,
        "rolls": p.rolls,
        "luck": p.luck,
        "luck_rate": p.luck_rate,
        "net_luck": p.net_luck,
        "net_skill": p.net_skill,
        "inaccuracies": p.inaccuracies,
        "mistakes": p.mistakes,
        "blunders": p.blunders,
        "jokers": p.jokers,
        "anti_jokers": p.anti_jokers,
        "initial": p.initial,
        "final": p.final,
        "result": p.result,
        "luck_adjusted": p.luck_adjusted,
    }


def _pct(x: float) -> str:
    return f"{100 * x:+.1f}%"


def annotated(a: Analysis) -> str:
    """The record, one action a line, with its roll's luck and its label."""
    lines = [f"{a.variant}, searched {a.depth} deep; equity is the expected score (0-100%)."]
    for t in a.turns:
        roll = ""
        if t.roller is not None:
            dice = " ".join(str(v) for v in t.rolled)
            mark = f" {t.luck_label}" if t.luck_label else ""
            roll = f"[{dice}] {t.roller} luck {_pct(t.luck)}{mark}"
        if t.action is None:
            end = f"end: White {100 * t.white:.0f}%"
            lines.append(f"{t.ply:4}. {end}" + (f"   {roll}" if roll else ""))
            continue
        text = f"{t.action}{t.label}"
        note = f"  (best {t.best}, {_pct(-t.error)})" if t.label and t.best else ""
        lines.append(
            f"{t.ply:4}. {t.side:5} {text:18} White {100 * t.white:3.0f}%"
            + (f"   {roll}" if roll else "")
            + note
        )
    lines.append("")
    result = {"white": "White won", "black": "Black won", None: "a draw"}[a.winner]
    lines.append(f"Result: {result if a.reason is not None else 'not finished'}.")
    for p in a.players:
        adjusted = "" if p.luck_adjusted is None else f", luck-adjusted {p.luck_adjusted:.2f}"
        lines.append(
            f"{p.side.capitalize():5}: error rate {100 * p.error_rate:.1f}% per decision "
            f"({p.inaccuracies} ?!, {p.mistakes} ?, {p.blunders} ??), "
            f"luck rate {_pct(p.luck_rate)} per roll ({p.jokers} jokers, "
            f"{p.anti_jokers} anti-jokers), net luck {_pct(p.net_luck)}{adjusted}"
        )
    return "\n".join(lines) + "\n"


__all__ = ["add_subcommands", "annotated", "as_json", "main_analyse"]
