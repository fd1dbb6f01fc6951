"""Time on Discord (issue 13): deadlines as Discord timestamps, which every reader's
client shows in their own time zone and keeps counting down (``<t:1767225600:R>`` reads
"in 2 days", then "in 5 hours", ...). Used by the embeds of ``bot.discord.adapter`` and by the
deadline posts of ``bot.discord.deadline_posts``.
"""

from __future__ import annotations

from datetime import datetime

from bot.service import GameSummary, GameView
from bot.service.clock import days_text


def stamp(when: datetime, style: str = "R") -> str:
    """``<t:UNIX:R>`` (relative: "in 3 hours"), ``f`` (date and time), ``F``, ``t``, ``d``."""
    return f"<t:{int(when.timestamp())}:{style}>"


def runs_out(when: datetime) -> str:
    """``<t:…:R> (<t:…:f>)``: "in 2 days (3 January 2030 12:00)"."""
    return f"{stamp(when, 'R')} ({stamp(when, 'f')})"


def clock_field(view: GameView) -> tuple[str, str] | None:
    """The embed field of a game's clock: whose time runs out when, and the time control.
    ``None`` for a game that is over or was never timed (games before time controls)."""
    if view.status == "active":
        if view.deadline is None:
            return "Time", days_text(None)
        return (
            "Time",
            f"{view.turn} must act {runs_out(view.deadline)}\n{days_text(view.time_days)}",
        )
    if view.status == "challenge":
        lines = [days_text(view.time_days)]
        if view.deadline is not None:
            lines.append(f"the challenge expires {stamp(view.deadline)}")
        return "Time", "\n".join(lines)
    return None


def summary_clock(game: GameSummary) -> str:
    """`` · white to act <t:…:R>`` for a line of /games; ``''`` when there is no clock."""
    if game.deadline is None:
        return ""
    if game.status == "challenge":
        return f" · expires {stamp(game.deadline)}"
    side = f"{game.clock_side} " if game.clock_side else ""
    return f" · {side}must act {stamp(game.deadline)}"


def history_clock_lines(view: GameView) -> list[str]:
    """Plain lines for the attached record (a text file shows no Discord timestamps)."""
    lines = [f"time control: {days_text(view.time_days)}"]
    if view.deadline is not None:
        when = view.deadline.strftime("%Y-%m-%d %H:%M UTC")
        what = "the challenge expires" if view.status == "challenge" else f"{view.turn} must act by"
        lines.append(f"{what}: {when}")
    return lines
