"""Time on Discord (issue 13): deadlines as Discord timestamps, which every reader's
client shows in their own time zone and keeps counting down (``<t:1767225600:R>`` reads
"in 2 days", then "in 5 hours", ...). Used by the embeds of ``bot.discord.adapter`` and by the
deadline posts of ``bot.discord.deadline_posts``.
"""

from __future__ import annotations

from datetime import datetime

from bot.discord.translate import _, colour_word, ngettext
from bot.service import GameSummary, GameView


def days_text(days: int | None) -> str:
    """The time control in words: ``3 days per move``, or ``no time limit``."""
    if not days:
        return _("no time limit")
    return ngettext("{n} day per move", "{n} days per move", days)


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
            return _("Time"), days_text(None)
        act = _(
            "{colour} must act {when}", colour=colour_word(view.turn), when=runs_out(view.deadline)
        )
        return _("Time"), f"{act}\n{days_text(view.time_days)}"
    if view.status == "challenge":
        lines = [days_text(view.time_days)]
        if view.deadline is not None:
            lines.append(_("the challenge expires {when}", when=stamp(view.deadline)))
        return _("Time"), "\n".join(lines)
    return None


def summary_clock(game: GameSummary) -> str:
    """`` · white to act <t:…:R>`` for a line of /games; ``''`` when there is no clock."""
    if game.deadline is None:
        return ""
    if game.status == "challenge":
        return " · " + _("expires {when}", when=stamp(game.deadline))
    if game.clock_side:
        side = colour_word(game.clock_side)
        return " · " + _("{colour} must act {when}", colour=side, when=stamp(game.deadline))
    return " · " + _("must act {when}", when=stamp(game.deadline))


def history_clock_lines(view: GameView) -> list[str]:
    """Plain lines for the attached record (a text file shows no Discord timestamps)."""
    lines = [_("time control: {control}", control=days_text(view.time_days))]
    if view.deadline is not None:
        when = view.deadline.strftime("%Y-%m-%d %H:%M UTC")
        if view.status == "challenge":
            lines.append(_("the challenge expires: {when}", when=when))
        else:
            lines.append(
                _("{colour} must act by: {when}", colour=colour_word(view.turn), when=when)
            )
    return lines
