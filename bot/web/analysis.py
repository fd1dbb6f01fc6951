"""A finished game's errors and luck on its page (issue 29), from the analysis the store
keeps (``GameService.analyses.kept``): each player's figures, the biggest error and the
luckiest roll linked to their steps, and the graph. A page never runs an analysis (that
is `/analyse` on Discord, or ``chessgarden analyse`` in a console): it says how to get
one when none is kept."""

from __future__ import annotations

from dataclasses import dataclass

from bot.service import AnalysisReport

NAMES = {"??": "a blunder", "?": "a mistake", "?!": "an inaccuracy"}
RESULTS = {1.0: "won", 0.5: "drew", 0.0: "lost"}


def pct(x: float, sign: bool = False) -> str:
    return f"{100 * x:+.1f}%" if sign else f"{100 * x:.1f}%"


@dataclass(frozen=True)
class PlayerLine:
    side: str  # 'White' | 'Black'
    name: str
    error_rate: str
    labels: str  # "1 ??, 0 ?, 2 ?!" (no-break spaces)
    luck_rate: str
    jokers: str
    adjusted: str


@dataclass(frozen=True)
class Moment:
    """The biggest error or the luckiest roll: its words and the step that shows it."""

    text: str
    step: int | None  # None: no such moment


@dataclass(frozen=True)
class Summary:
    depth: int
    digest: str  # the log head analysed: the graph's version
    players: tuple[PlayerLine, ...]
    error: Moment
    roll: Moment


def summary(report: AnalysisReport, names: tuple[str, str], last_step: int) -> Summary:
    """The page's words for ``report``; ``names``: White's and Black's; steps beyond
    ``last_step`` are not linked."""
    a = report.analysis
    lines = []
    for p, name in zip(a.players, names, strict=True):
        adjusted = "-"
        if p.luck_adjusted is not None and p.result is not None:
            word = RESULTS.get(p.result, "scored")
            adjusted = (
                f"{p.luck_adjusted:.2f} ({word} {p.result:g}, net luck {pct(p.net_luck, True)})"
            )
        lines.append(
            PlayerLine(
                side=p.side.capitalize(),
                name=name,
                error_rate=pct(p.error_rate),
                # no-break spaces: a count stays with its mark when a phone wraps the line
                labels=f"{p.blunders}\u00a0??, {p.mistakes}\u00a0?, {p.inaccuracies}\u00a0?!",
                luck_rate=pct(p.luck_rate, sign=True),
                jokers=f"{p.jokers}\u00a0jokers, {p.anti_jokers}\u00a0anti\u2011jokers",
                adjusted=adjusted,
            )
        )

    def linked(step: int) -> int | None:
        return step if 0 <= step <= last_step else None

    worst = a.biggest_error()
    if worst is None:
        error = Moment("Nobody had a choice to make.", None)
    elif worst.error <= 0:
        error = Moment("None: every action was as good as the search's best.", None)
    else:
        kind = f" ({NAMES[worst.label]})" if worst.label in NAMES else ""
        best = f", best was {worst.best}" if worst.best else ""
        error = Moment(
            f"Ply {worst.ply}, {worst.side}: {worst.action}{worst.label} gave up "
            f"{pct(worst.error)}{kind}{best}.",
            linked(worst.ply),
        )
    luckiest = a.luckiest_roll()
    if luckiest is None:
        roll = Moment("No roll in this game could go more than one way: its luck is 0.", None)
    else:
        dice = " ".join(str(v) for v in luckiest.rolled) or "-"
        joker = " (a joker)" if luckiest.luck_label == "joker" else ""
        # the roll before decision ``ply`` is on the board after ``ply - 1`` actions
        roll = Moment(
            f"Ply {luckiest.ply}, {luckiest.roller} rolled {dice}: "
            f"{pct(luckiest.luck, sign=True)}{joker}.",
            linked(luckiest.ply - 1),
        )
    return Summary(a.depth, report.digest, tuple(lines), error, roll)


__all__ = ["Moment", "PlayerLine", "Summary", "summary"]
