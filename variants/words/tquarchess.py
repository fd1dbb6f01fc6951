"""Tquarchess: what it says about a position (status facts and refusals).

The hooks of ``Tquarchess`` delegate here, so that the rules module stays about the rules.
This module reads the rules only through the object handed in (``TquarchessRules``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, Protocol

from ..geometry import BLACK, WHITE
from ..position import Move, Position, other
from ..refusal import Blocked
from ..sentence import said, word
from ..status import TurnFacts, clauses, joined
from . import RulesView


class TquarchessRules(RulesView, Protocol):
    """What these words read of ``Tquarchess`` (each documented there)."""

    knight_resurrection_squares: ClassVar[dict[int, tuple[str, ...]]]
    quads: dict[int, frozenset[int]]
    home: dict[int, frozenset[int]]
    knight_targets: dict[int, frozenset[int]]

    def quad_text(self, n: int) -> str: ...

    def tquarc_square(self, pos: Position, color: int) -> int: ...

    def can_enter(self, pos: Position, color: int) -> bool: ...

    def tquarc_lost(self, pos: Position, color: int) -> bool: ...


def turn_facts(rules: TquarchessRules, pos: Position, legal: Sequence[Move]) -> TurnFacts:
    """Entry, teleport, two-square King and resurrection as they stand (RULES.md section 2)."""
    color = pos.turn
    allows: list[str] = []
    shorts: list[str] = []
    pending = ""
    lines: list[str] = []
    rolled = pos.extra["rolled"]
    entries = sorted({rules.name(m.gate) for m in legal if m.gate >= 0})
    if rolled:
        allows.append(
            said("enter the Tquarc with value {value}, or make any other move", value=rolled)
        )
        shorts.append(said("enter with it, or move"))
        pending = said(
            "Tquarc entry with value {value}: it would teleport to {quad}",
            value=rolled,
            quad=rules.quad_text(rolled),
        )
        gates = ", ".join(entries) if entries else said("none")
        lines.append(
            said(
                "You rolled the Tquarc die: {value}. Enter now as a back-rank piece first "
                "leaves (gating squares: {squares}), e.g. {example}; or make any other move "
                "and the value is lost.",
                value=rolled,
                squares=gates,
                example=entry_example(rules, pos, legal),
            )
        )
    elif entries:
        allows.append(said("the Tquarc may enter (or roll first)"))
        shorts.append(said("entry · roll"))
        lines.append(
            said(
                "Your Tquarc waits to enter: when a back-rank piece first leaves its square, "
                "the Tquarc may take it in the same move ({squares}), e.g. {example}. You may "
                "roll its die first (roll), then decide.",
                squares=", ".join(entries),
                example=entry_example(rules, pos, legal),
            )
        )
    elif pos.extra["hand"][color]:
        lines.append(said("Your Tquarc can no longer enter: every back-rank square has been left."))
    teleports = [m for m in legal if m.flag == "teleport"]
    if teleports:
        t_sq = teleports[0].frm
        p = pos.board[t_sq]
        assert p is not None
        value = int(p.state)
        allows.append(said("the Tquarc may teleport to Tquad {value}", value=value))
        shorts.append(said("teleport to Tquad {value}", value=value))
        pending = pending or said(
            "Teleport: the enemy Tquarc just moved, so yours may leap to {quad}",
            quad=rules.quad_text(value),
        )
        lines.append(
            said(
                "Teleport: the enemy Tquarc just moved, so your Tquarc on {square} "
                "(value {value}) may leap to an empty square of its colour in "
                "{quad} without capturing, e.g. {example}; the die is rolled again.",
                square=rules.name(t_sq),
                value=value,
                quad=rules.quad_text(value),
                example=f"T{rules.name(teleports[0].to)}%",
            )
        )
    if any(m.flag == "king2" for m in legal):
        allows.append(said("the King may slide two squares (once)"))
        shorts.append(said("2-square King"))
        lines.append(
            said(
                "Two-square King: your Tquarc is lost, so once per game your King may slide "
                "two squares in a straight line (the middle square empty)."
            )
        )
    if rules.tquarc_lost(pos, color):
        revive = sorted({rules.name(m.to) for m in legal if m.flag == "kres" or m.promo == "T"})
        targets = ", ".join(rules.knight_resurrection_squares[color])
        if revive:
            lines.append(
                said(
                    "Your Tquarc is captured: a pawn may promote to it ({promote}), or a Knight "
                    "reaching {squares} may become it ({become}); possible now on {now}.",
                    promote="=T",
                    become="/T",
                    squares=targets,
                    now=", ".join(revive),
                )
            )
            allows.append(said("the Tquarc may be resurrected"))
            shorts.append(said("resurrect"))
        else:
            lines.append(
                said(
                    "Your Tquarc is captured: a pawn may promote to it ({promote}), or a Knight "
                    "reaching {squares} may become it ({become}).",
                    promote="=T",
                    become="/T",
                    squares=targets,
                )
            )
    lines.extend(tquarc_lines(rules, pos))
    return TurnFacts(
        allows=clauses(allows),
        short=joined(shorts),
        pending=pending,
        lines=tuple(lines),
    )


def entry_example(rules: TquarchessRules, pos: Position, legal: Sequence[Move]) -> str:
    """An entry as it is typed, e.g. ``Nf3/T``."""
    for m in legal:
        if m.gate >= 0:
            return rules.san(pos, m, legal).replace("%", "")
    return "Bg5/T"


def tquarc_lines(rules: TquarchessRules, pos: Position) -> list[str]:
    """Where each side's Tquarc is and the value it shows."""
    out: list[str] = []
    for c in (WHITE, BLACK):
        side = word("White" if c == WHITE else "Black")
        sq = rules.tquarc_square(pos, c)
        if sq >= 0:
            p = pos.board[sq]
            assert p is not None
            out.append(
                said(
                    "{side}'s Tquarc stands on {square} showing {value} (it would teleport to "
                    "Tquad {value}).",
                    side=side,
                    square=rules.name(sq),
                    value=p.state,
                )
            )
        elif pos.extra["hand"][c]:
            if rules.can_enter(pos, c):
                out.append(said("{side}'s Tquarc waits to enter.", side=side))
            else:
                out.append(said("{side}'s Tquarc can no longer enter.", side=side))
        else:
            out.append(said("{side}'s Tquarc is captured.", side=side))
    return out


def relaxed_moves(rules: TquarchessRules, pos: Position, plain: Sequence[Move]) -> list[Blocked]:
    """Tquarc actions out of place: a teleport out of turn or to the wrong square,
    an entry where none may be, a resurrection while the Tquarc lives, the
    two-square King out of turn, a roll with nothing to roll for. ``plain``: the
    candidates as in chess, without the Tquarc's entries and resurrections."""
    color = pos.turn
    board = pos.board
    g = rules.geometry
    out: list[Blocked] = []
    t_sq = rules.tquarc_square(pos, color)
    if t_sq >= 0:
        p = board[t_sq]
        assert p is not None
        value = int(p.state)
        in_turn = pos.extra["last_tq"] == other(color)
        timing = (
            "teleport-timing",
            said(
                "a Tquarc teleports only on the move right after the enemy Tquarc "
                "moved (an ordinary move, a teleport, an entry or a resurrection)"
            ),
        )
        wrong_square = (
            "teleport-square",
            said(
                "a Tquarc showing {value} teleports only to an empty square of its own "
                "colour in {quad}, without capturing",
                value=value,
                quad=rules.quad_text(value),
            ),
        )
        for to in g.squares:
            if to == t_sq:
                continue
            if not in_turn:
                rule = timing
            elif (
                board[to] is not None or g.dark[to] != g.dark[t_sq] or to not in rules.quads[value]
            ):
                rule = wrong_square
            else:
                continue
            out.append(Blocked(Move(t_sq, to, "teleport"), *rule))
    gates = pos.extra["gates"][color]
    home = rules.home[color]
    base = [m for m in plain if m.frm in home]
    for m in base:
        if m.flag == "castle":
            squares: tuple[int, ...] = (m.frm, m.aux)
        elif m.flag in ("", "double"):
            squares = (m.frm,)
        else:
            continue
        for gate in squares:
            if rules.can_enter(pos, color) and gate in gates:
                continue
            out.append(Blocked(m._replace(gate=gate), "entry", entry_refusal(rules, pos, gate)))
    lost = rules.tquarc_lost(pos, color)
    knights = rules.knight_targets[color]
    last = rules.last_rank(color)
    for m in plain:
        p = board[m.frm] if m.frm >= 0 else None
        if p is None:
            continue
        if p.kind == "N" and g.rank_label(m.to) == last and not (lost and m.to in knights):
            if lost:
                where = ", ".join(rules.knight_resurrection_squares[color])
                why = said(
                    "a Knight becomes a Tquarc only on a square of its own side's colour: "
                    "{squares}",
                    squares=where,
                )
            else:
                why = said("a Knight becomes a Tquarc only while your Tquarc is captured")
            out.append(Blocked(m._replace(flag="kres", promo="T"), "resurrection", why))
        elif m.promo == "Q" and not lost:
            out.append(
                Blocked(
                    m._replace(promo="T"),
                    "resurrection",
                    said("a pawn promotes to a Tquarc only while your Tquarc is captured"),
                )
            )
    king = pos.kings[color]
    if king >= 0 and (pos.extra["king2"][color] or not lost):
        if pos.extra["king2"][color]:
            why = said("your King has used its two-square move already (once per game)")
        else:
            why = said(
                "the King slides two squares only while your Tquarc is captured (once per game)"
            )
        for dx, dy in ((0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1)):
            mid = g.offset(king, dx, dy)
            far = g.offset(king, 2 * dx, 2 * dy)
            if mid is None or far is None or board[mid] is not None:
                continue
            t = board[far]
            if t is None or t.color != color:
                out.append(Blocked(Move(king, far, "king2"), "king2", why))
    if pos.extra["rolled"]:
        why = said("you have rolled the Tquarc die this turn already")
    elif pos.extra["hand"][color] and rules.can_enter(pos, color):
        why = said("no entry is possible this turn, so there is nothing to roll for")
    else:
        why = said("your Tquarc can no longer enter, so there is nothing to roll for")
    out.append(Blocked(Move(-1, -1, "roll"), "roll", why))
    return out


def entry_refusal(rules: TquarchessRules, pos: Position, gate: int) -> str:
    color = pos.turn
    if not pos.extra["hand"][color]:
        if rules.tquarc_square(pos, color) >= 0:
            return said("your Tquarc has entered already")
        return said("your Tquarc is captured: it comes back only by resurrection, not by entry")
    if not pos.extra["gates"][color]:
        return said("the right to enter has lapsed: every back-rank square has been left once")
    return said(
        "the Tquarc enters only on a back-rank square its original piece is leaving for "
        "the first time; {square} has been left before",
        square=rules.name(gate),
    )


def explain_text(
    rules: TquarchessRules, pos: Position, text: str, legal: Sequence[Move]
) -> tuple[str, str] | None:
    """A Tquarc move while the Tquarc waits to enter or is captured; else None
    (``Tquarchess.explain_text`` then reads the text as in chess)."""
    norm = rules.normalize(text)
    color = pos.turn
    if norm.startswith("T") and rules.tquarc_square(pos, color) < 0:
        if rules.can_enter(pos, color):
            return (
                "no-piece",
                said(
                    "your Tquarc has not entered yet: it enters as a back-rank piece first "
                    "leaves its square (e.g. Nf3/T)"
                ),
            )
        if rules.tquarc_lost(pos, color):
            return "no-piece", said("your Tquarc is captured (a pawn or a Knight may resurrect it)")
    return None
