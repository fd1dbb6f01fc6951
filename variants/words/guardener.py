"""Guardener: what it says about a position (status facts and refusals).

The hooks of ``Guardener`` delegate here, so that the rules module stays about the rules.
This module reads the rules only through the object handed in (``GuardenerRules``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, Protocol

from ..position import Move, Piece, Position
from ..refusal import Blocked
from ..sentence import said, word
from ..status import TurnFacts, clauses, dice_text, either
from . import RulesView

# The dice in words (status line and rules text), from the one table of which die value
# lets which kinds act (``Guardener.permission``).


def die_pieces(rules: GuardenerRules, value: int) -> str:
    """The kinds a die ``value`` lets act, in words: 'pawn, King or Guardener', 'Knight'."""
    return either(piece_name(rules, k) for k in rules.permission[value])


def die_short(rules: GuardenerRules, value: int) -> str:
    """The same in short: 'a capture by a pawn, King or Guardener' for kinds that move
    without a die anyway (the die only lets them capture), else the piece's name."""
    kinds = rules.permission[value]
    if all(k in rules.free_kinds + ("P",) for k in kinds):
        return said("a capture by a {pieces}", pieces=either(piece_name(rules, k) for k in kinds))
    return either(piece_name(rules, k) for k in kinds)


def piece_name(rules: GuardenerRules, kind: str) -> str:
    """A kind's name as a sentence says it: 'pawn', 'Knight' (``Said``)."""
    return said("pawn") if kind == "P" else word(rules.types[kind].name)


class GuardenerRules(RulesView, Protocol):
    """What these words read of ``Guardener`` (each documented there)."""

    castling_die: ClassVar[int]
    free_kinds: ClassVar[tuple[str, ...]]
    permission: ClassVar[dict[int, tuple[str, ...]]]
    guardener_start: ClassVar[dict[int, tuple[str, str]]]
    no_pawn_terrace: ClassVar[dict[int, int]]
    start_count: ClassVar[dict[str, int]]
    terraces: dict[int, tuple[int, ...]]
    start_squares: dict[int, tuple[int, int]]

    def is_double(self, pos: Position) -> bool: ...

    def is_double_x2(self, pos: Position) -> bool: ...

    def partner(self, pos: Position, sq: int) -> int: ...

    def has_guardener(self, pos: Position, color: int) -> bool: ...

    def is_plank(self, pos: Position, move: Move) -> bool: ...


def dice_allow(rules: GuardenerRules, pos: Position) -> str:
    """'a Knight or a Bishop': what the dice showing let move, in words."""
    dice = pos.dice or ()
    if rules.is_double(pos):
        return said("any piece")
    words = {
        1: said("a capture by a pawn, the King or the Guardener"),
        2: said("a Knight"),
        3: said("a Bishop"),
        4: said("a Rook"),
    }
    return either(words[v] for v in sorted(set(dice)))


def why_not_permitted(rules: GuardenerRules, pos: Position, move: Move) -> tuple[str, str]:
    """The dice table (RULES.md section 1): which die the move would need."""
    shown = dice_text(pos.dice)
    allowed = said("the dice {dice} allow {pieces}", dice=shown, pieces=dice_allow(rules, pos))
    if move.flag == "reroll":
        return "reroll", said(
            "you may re-roll only after a double; the dice show {dice}", dice=shown
        )
    if move.flag in ("teleport", "drop"):
        return (
            "dice",
            said(
                "a teleport needs a Double x2 (a double rolled by re-rolling a double); {allowed}",
                allowed=allowed,
            ),
        )
    p = pos.board[move.frm]
    assert p is not None
    if move.flag == "castle":
        return "dice", said("castling needs a 4 or a double; {allowed}", allowed=allowed)
    if p.kind == "Q":
        return "dice", said("the Queen moves only on a double; {allowed}", allowed=allowed)
    if p.kind in rules.free_kinds + ("P",) and rules.is_capture(pos, move):
        return "dice", said(
            "a {piece} captures only on a 1 or a double; {allowed}",
            piece=piece_name(rules, p.kind),
            allowed=allowed,
        )
    if p.kind == "P":
        return "dice", said(
            "a pawn moves past the centre line only on a 1 or a double; {allowed}",
            allowed=allowed,
        )
    return "dice", allowed


def relaxed_moves(
    rules: GuardenerRules, pos: Position, board_moves: Sequence[Move], to_mask: int = -1
) -> list[Blocked]:
    """Teleports and resurrections out of place, a pass or re-roll not allowed,
    promotion to a type not lost, the double step of a pawn that has moved.
    ``board_moves``: the pieces' moves before Guardener's own rules (the double
    steps of pawns that have moved among them). The teleports and resurrections are
    those to ``to_mask``'s squares only (every square: -1)."""
    out: list[Blocked] = []
    if pos.dice is None:
        return out
    color = pos.turn
    board = pos.board
    guarded = rules.start_squares[color][1]
    movers: list[tuple[int, bool]] = []
    sample: dict[bool, Piece] = {}  # a piece of each kind that matters: pawn or not
    for frm, p in enumerate(board):
        if p is None or p.color != color or (frm == guarded and rules.partner(pos, frm) >= 0):
            continue
        movers.append((frm, p.kind == "P"))
        sample.setdefault(p.kind == "P", p)
    for n, squares in rules.terraces.items():
        for to in squares:
            if not to_mask >> to & 1:
                continue
            # the refusal depends on the piece only through whether it is a pawn
            refusals = {pawn: teleport_refusal(rules, pos, p, n, to) for pawn, p in sample.items()}
            for frm, pawn in movers:
                why = refusals[pawn]
                if why is not None:
                    out.append(Blocked(Move(frm, to, "teleport"), *why))
            why = teleport_refusal(rules, pos, None, n, to)
            if why is not None:
                out.append(Blocked(Move(-1, to, "drop", promo="G"), *why))
    shown = dice_text(pos.dice)
    if pos.extra["passed"][color]:
        out.append(
            Blocked(
                Move(-1, -1, "pass"), "pass", said("you have passed already: one pass per game")
            )
        )
    else:
        out.append(
            Blocked(
                Move(-1, -1, "pass"),
                "pass",
                said(
                    "you may pass only when every move you have puts your King on an attacked "
                    "square, or you have none"
                ),
            )
        )
    out.append(
        Blocked(
            Move(-1, -1, "reroll"),
            "reroll",
            said("you may re-roll only after a double; the dice show {dice}", dice=shown),
        )
    )
    moved = pos.extra["moved"]
    last = rules.last_rank(color)
    lost = [
        rules.types[k].name
        for k in rules.promotion_kinds
        if pos.count(k, color) < rules.start_count[k]
    ]
    have_lost = (
        said(
            "a pawn may promote only to a piece type its side has lost; you have lost: {lost}",
            lost=either((word(n) for n in lost), "and"),
        )
        if lost
        else said("a pawn may promote only to a piece type its side has lost; you have lost none")
    )
    for m in board_moves:
        p = board[m.frm]
        assert p is not None
        if m.flag == "double" and m.frm in moved:
            out.append(
                Blocked(
                    m,
                    "double-step",
                    said(
                        "the pawn on {square} has moved before: only a pawn that has not yet "
                        "moved may step two squares",
                        square=rules.name(m.frm),
                    ),
                )
            )
        elif p.kind == "P" and rules.geometry.rank_label(m.to) == last:
            rule = have_lost
            if not lost:
                out.append(Blocked(m, "promotion-choice", rule))
            out.extend(
                Blocked(m._replace(promo=k), "promotion-choice", rule)
                for k in rules.promotion_kinds
                if rules.types[k].name not in lost
            )
    return out


def teleport_refusal(
    rules: GuardenerRules, pos: Position, p: Piece | None, n: int, to: int
) -> tuple[str, str] | None:
    """Why ``p`` may not teleport to ``to`` on terrace ``n`` now (``p`` None: the
    Guardener resurrecting there), or None."""
    shown = dice_text(pos.dice)
    color = pos.turn
    if p is None and rules.has_guardener(pos, color):
        return "resurrection", said(
            "only a captured Guardener resurrects, and yours is on the board"
        )
    if not rules.is_double_x2(pos):
        if p is None:
            return (
                "dice",
                said(
                    "a resurrection needs a Double x2 (a double rolled by re-rolling a double); "
                    "the dice show {dice}",
                    dice=shown,
                ),
            )
        return (
            "dice",
            said(
                "a teleport needs a Double x2 (a double rolled by re-rolling a double); "
                "the dice show {dice}",
                dice=shown,
            ),
        )
    value = pos.dice[0] if pos.dice else 0
    if n != value:
        squares = ", ".join(rules.name(s) for s in rules.terraces[value])
        return "terrace", said(
            "the Double x2 {dice} leads to T{terrace} ({squares}) only",
            dice=shown,
            terrace=value,
            squares=squares,
        )
    if pos.board[to] is not None:
        return "occupied", said(
            "a teleport lands on a vacant square; {square} is occupied", square=rules.name(to)
        )
    if p is not None and p.kind == "P" and n == rules.no_pawn_terrace[color]:
        return (
            "terrace",
            said(
                "a pawn may not teleport to the terrace behind its promotion rank (T{terrace})",
                terrace=n,
            ),
        )
    return None


def turn_facts(rules: GuardenerRules, pos: Position, legal: Sequence[Move]) -> TurnFacts:
    """What the dice showing allow (RULES.md section 1, "Dice")."""
    dice = pos.dice
    if dice is None:
        return TurnFacts()
    color = pos.turn
    lines: list[str] = []
    allows: list[str] = []
    pending = ""
    may_reroll = any(m.flag == "reroll" for m in legal)
    if rules.is_double(pos):
        v = dice[0]
        x2 = rules.is_double_x2(pos)
        allows.append(said("any piece may move or capture, the Queen too"))
        short: str = said("Double x2: any piece") if x2 else said("Double: any piece")
        if x2:
            lines.append(
                said(
                    "Double x2 {dice}: any piece may move or capture, the Queen too.",
                    dice=dice_text(dice),
                )
            )
        else:
            lines.append(
                said(
                    "Double {dice}: any piece may move or capture, the Queen too.",
                    dice=dice_text(dice),
                )
            )
        if x2:
            revive = not rules.has_guardener(pos, color)
            squares = ", ".join(rules.name(s) for s in rules.terraces[v])
            if revive:
                pending = said(
                    "Double x2: teleport to T{terrace} or resurrect the Guardener", terrace=v
                )
                allows.append(
                    said(
                        "or teleport one piece to T{terrace} or resurrect the Guardener there",
                        terrace=v,
                    )
                )
            else:
                pending = said("Double x2: teleport to T{terrace}", terrace=v)
                allows.append(said("or teleport one piece to T{terrace}", terrace=v))
            short = said("Double x2 · teleport T{terrace}", terrace=v)
            lines.append(
                said(
                    "Teleport: instead, any one piece may leap to a vacant square of T{terrace} "
                    "({squares}) without capturing, written like {example}.",
                    terrace=v,
                    squares=squares,
                    example=f"Nfz4 {{T{v}}}",
                )
            )
            if revive:
                lines.append(
                    said(
                        "Resurrection: or your captured Guardener comes back on a vacant "
                        "square of T{terrace}, written like {example}.",
                        terrace=v,
                        example=f"G@{rules.name(rules.terraces[v][0])} {{T{v}}}",
                    )
                )
        if may_reroll:
            allows.append(said("re-roll available"))
            short = said("{short} · re-roll", short=short)
            lines.append(
                said(
                    "Re-roll: instead of moving you may roll again (reroll); a double rolled "
                    "that way is a Double x2, which also allows a teleport."
                )
            )
    else:
        values = sorted(set(dice))
        movers = [die_pieces(rules, v) for v in values if v != 1]
        if movers:
            allows.append(said("{pieces} may move or capture", pieces=either(movers)))
        # In words, as the strip shows it: "Knight, or a capture by a pawn, King or
        # Guardener"; "Rook or castling".
        shorts = [die_short(rules, v) for v in values if v != 1]
        if 1 in values:
            allows.append(said("pawn, King or Guardener may capture, pawns may cross the centre"))
        if any(m.flag == "castle" for m in legal):
            allows.append(said("the King may castle"))
            shorts.append(said("castling"))
        short = either(shorts)
        if 1 in values:
            last = die_short(rules, 1)
            short = said("{first}, or {last}", first=short, last=last) if short else last
        meaning = clauses(
            said("{value} = {meaning}", value=v, meaning=die_meaning(rules, v)) for v in values
        )
        lines.append(
            said(
                "Dice {dice}: {meaning}. Use either die, for one move.",
                dice=dice_text(dice),
                meaning=meaning,
            )
        )
        if pos.extra["rerolled"]:
            lines.append(said("This roll came from a re-roll: only its two values apply."))
    lines.append(
        said(
            "Free moves, with or without a die: the King and the Guardener may move without "
            "capturing, and a pawn may step within its own half (ranks 0-4 for White, "
            "5-9 for Black)."
        )
    )
    if any(m.flag == "pass" for m in legal):
        allows.append(said("you may pass"))
        short = said("{short} · pass", short=short)
        lines.append(
            said(
                "Every move you have puts your King on an attacked square: you may pass "
                "instead (once per game)."
            )
        )
    elif (
        pos.extra["passed"][color]
        and legal
        and all(rules.is_plank(pos, m) for m in legal if m.flag != "reroll")
    ):
        allows.append(said("walk the plank"))
        lines.append(
            said(
                "Walk the plank: your pass is spent, so your King must step onto an attacked "
                "square."
            )
        )
    start = rules.start_squares[color][0]
    if rules.partner(pos, start) >= 0:
        a, b = rules.guardener_start[color]
        lines.append(
            said(
                "Your Guardener still stands on both {one} and {other}; its first move may "
                "leave from either square.",
                one=a,
                other=b,
            )
        )
    elif not rules.has_guardener(pos, color):
        lines.append(said("Your Guardener is captured: a Double x2 can resurrect it."))
    lines.append(said("There is no check in Guardener Chess: capturing the King wins."))
    return TurnFacts(allows=clauses(allows), short=short, pending=pending, lines=tuple(lines))


def die_meaning(rules: GuardenerRules, value: int) -> str:
    """One die value in words (RULES.md section 1, the dice table)."""
    if value == 1:
        return said(
            "a pawn, the King or the Guardener may capture, and a pawn may cross the centre"
        )
    if value == rules.castling_die:
        return said(
            "a {pieces} may move or capture, or the King may castle",
            pieces=die_pieces(rules, value),
        )
    return said("a {pieces} may move or capture", pieces=die_pieces(rules, value))
