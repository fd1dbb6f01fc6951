"""JeppsRandom: what it says about a position (status facts and refusals).

The hooks of ``JeppsRandom`` delegate here, so that the rules module stays about the rules.
This module reads the rules only through the object handed in (``JeppsRules``)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import ClassVar, Protocol

from ..geometry import WHITE
from ..position import Move, Position, other
from ..refusal import Blocked
from ..sentence import said, word
from ..status import TurnFacts, clauses, dice_text, either
from . import RulesView


class JeppsRules(RulesView, Protocol):
    """What these words read of ``JeppsRandom`` (each documented there)."""

    army: ClassVar[str]
    face_kinds: ClassVar[dict[int, str]]
    face_names: ClassVar[dict[int, str]]
    free_face: ClassVar[int]
    mediator_answers: ClassVar[tuple[str, str]]
    mediator_roll: ClassVar[str]
    placement_text: ClassVar[re.Pattern[str]]

    def order(self, pos: Position, color: int) -> tuple[int, ...]: ...

    def next_square(self, pos: Position, color: int) -> int: ...

    def feasible(self, pos: Position, color: int, kind: str, sq: int) -> bool: ...

    def offered(self, dice: tuple[int, ...]) -> set[str]: ...

    def relocation_block(self, pos: Position) -> str: ...


def turn_facts(rules: JeppsRules, pos: Position, legal: Sequence[Move]) -> TurnFacts:
    """The setup step and the mediator result, or the King's relocation (RULES.md section 5)."""
    e = pos.extra
    color = pos.turn
    if e["phase"] != "setup":
        return play_facts(rules, pos, legal)
    dice = pos.dice
    assert dice is not None and len(dice) == 2
    may_reroll = any(m.flag == "reroll" for m in legal)
    lines: list[str] = []
    allows: list[str] = []
    if e["mediator"] == "pending":
        a, b = dice
        mirror, reverse = rules.mediator_answers
        answer = mirror if a % 2 == 0 else reverse
        if a % 2 == 0:
            allows.append(said("both even: Black mirrors White file by file"))
            lines.append(
                said(
                    "Mediator roll {dice}: both even, so Black mirrors White file by file "
                    "({answer}).",
                    dice=dice_text(dice),
                    answer=answer,
                )
            )
        else:
            allows.append(said("both odd: Black reverses White's order (a<->h)"))
            lines.append(
                said(
                    "Mediator roll {dice}: both odd, so Black reverses White's order (a<->h) "
                    "({answer}).",
                    dice=dice_text(dice),
                    answer=answer,
                )
            )
        short: str = word(answer)
        if may_reroll:
            allows.append(said("a double: Black may re-roll"))
            short = said("{short} · re-roll", short=short)
            lines.append(
                said(
                    "A double: Black may accept it ({answer}) or roll again (reroll).",
                    answer=answer,
                )
            )
        lines.append(
            said(
                "The mediator table: both even Mirror, both odd Reverse, one odd and one even "
                "Black sets up with the dice."
            )
        )
        return TurnFacts(
            phase="setup",
            verb=said("answer the mediator roll"),
            allows=clauses(allows),
            short=short,
            lines=tuple(lines),
        )
    sq = rules.next_square(pos, color)
    where = rules.name(sq)
    placeable = {m.promo for m in legal if m.flag == "place"}
    in_dice_order = "".join(
        rules.army if v == rules.free_face else rules.face_kinds[v] for v in dice
    )
    kinds = [k for k in dict.fromkeys(in_dice_order) if k in placeable]
    names = [word(rules.types[k].name) for k in kinds]
    allows.append(said("{pieces} on {square}", pieces=either(names), square=where))
    short = said("{pieces} on {square}", pieces=either(names), square=where)
    faces = clauses(
        said("{value} = {meaning}", value=v, meaning=word(rules.face_names[v]))
        for v in sorted(set(dice))
    )
    lines.append(said("Setup dice {dice}: {faces}.", dice=dice_text(dice), faces=faces))
    if rules.free_face in dice:
        lines.append(said("A 6 is a free choice of any piece still to place."))
    stock = e["stock"][color]
    offered = rules.offered(dice)
    for k in "KQRBN":
        if k in offered and k not in stock and rules.free_face not in dice:
            lines.append(
                said(
                    "The dice also offer a {piece}, but none is left to place.",
                    piece=word(rules.types[k].name),
                )
            )
    if "B" in offered and "B" in stock and "B" not in kinds:
        lines.append(
            said(
                "A Bishop may not go on {square}: {why}.",
                square=where,
                why=bishop_reason(rules, pos, color, sq),
            )
        )
    if may_reroll:
        allows.append(said("re-roll available"))
        short = said("{short} · re-roll", short=short)
        lines.append(said("A double: take an offered piece, or roll again (reroll)."))
    lines.append(said("Still to place: {stock}.", stock=", ".join(stock)))
    order = rules.order(pos, color)
    lines.append(
        said(
            "{side} fills {first} to {last} in order, one roll per square; a piece that is "
            "the only choice left is placed by itself, and dice that offer nothing placeable "
            "are rolled again by themselves.",
            side=word("White" if color == WHITE else "Black"),
            first=rules.name(order[0]),
            last=rules.name(order[-1]),
        )
    )
    if e["auto"]:
        lines.append(
            said(
                "Placed by itself (forced): {placed}.",
                placed=e["auto"].replace("(", "").replace(")", ""),
            )
        )
    if e["free"]:
        lines.append(
            said("Free Play: White fills a1 to h1 and Black h8 to a8, one square each in turn.")
        )
    elif e["mediator"] == "random":
        lines.append(mixed_mediator(rules, pos))
    return TurnFacts(
        phase="setup",
        verb=said("place a piece on {square}", square=where),
        allows=clauses(allows),
        short=short,
        lines=tuple(lines),
    )


def mixed_mediator(rules: JeppsRules, pos: Position) -> str:
    """What the mediator roll decided when its dice were one odd and one even: Black
    sets up with the dice (RULES.md section 5), in words with the dice it showed."""
    order = rules.order(pos, pos.turn)
    rank = {"first": rules.name(order[0]), "last": rules.name(order[-1])}
    roll = pos.extra.get(rules.mediator_roll)  # absent in a snapshot older than the note
    if roll:
        return said(
            "Mediator roll {dice}: one odd and one even, so Black sets up with the dice, "
            "from {first} to {last}, instead of copying White's rank.",
            dice=dice_text(roll),
            **rank,
        )
    return said(
        "Mediator roll: one odd and one even, so Black sets up with the dice, from {first} "
        "to {last}, instead of copying White's rank.",
        **rank,
    )


def play_facts(rules: JeppsRules, pos: Position, legal: Sequence[Move]) -> TurnFacts:
    color = pos.turn
    lines: list[str] = [said("There is no castling in Jepps Random Chess.")]
    relocations = [rules.name(m.to) for m in legal if m.flag == "relocate"]
    allows: str = ""
    short = ""
    if relocations:
        targets = ", ".join(f"K{r}" for r in relocations)
        allows = said("the King may relocate ({moves})", moves=targets)
        short = said("King may relocate")
        lines.append(
            said(
                "Once per game a King that has never moved may relocate to a vacant home-rank "
                "square of its own colour: {moves} now.",
                moves=targets,
            )
        )
    elif pos.extra["relocate"][color]:
        block = rules.relocation_block(pos)
        if block == "check":
            lines.append(said("Your King may still relocate once, but not out of check."))
        elif block == "vacant":
            lines.append(
                said(
                    "Your King may still relocate once, but no home-rank square of its colour "
                    "is vacant now."
                )
            )
        else:
            lines.append(
                said(
                    "Your King may still relocate once, but not now: each vacant home-rank "
                    "square of its colour is attacked, or an empty square on the way is."
                )
            )
    return TurnFacts(allows=allows, short=short, lines=tuple(lines))


def bishop_reason(rules: JeppsRules, pos: Position, color: int, sq: int) -> str:
    """Why a Bishop on ``sq`` would break 'Bishops on opposite colours', in words."""
    dark = rules.geometry.dark
    board = pos.board
    placed = [s for s in rules.order(pos, color) if (p := board[s]) is not None and p.kind == "B"]
    if placed:
        where = {"square": rules.name(sq), "other": rules.name(placed[0])}
        if dark[sq]:
            return said(
                "the Bishops must stand on opposite colours, and {square} is dark like the "
                "Bishop on {other}",
                **where,
            )
        return said(
            "the Bishops must stand on opposite colours, and {square} is light like the "
            "Bishop on {other}",
            **where,
        )
    if dark[sq]:
        return said(
            "the Bishops must stand on opposite colours, and with one on {square} no light "
            "square would be left for the other",
            square=rules.name(sq),
        )
    return said(
        "the Bishops must stand on opposite colours, and with one on {square} no dark "
        "square would be left for the other",
        square=rules.name(sq),
    )


def relaxed_moves(rules: JeppsRules, pos: Position) -> list[Blocked]:
    if pos.extra["phase"] == "setup":
        return setup_refusals(rules, pos)
    return relocation_refusals(rules, pos)


def setup_refusals(rules: JeppsRules, pos: Position) -> list[Blocked]:
    """Placements out of order, not offered, not in stock or breaking the bishops'
    colours; the mediator's answers; a re-roll without a double."""
    e = pos.extra
    color = pos.turn
    dice = pos.dice or ()
    shown = dice_text(dice)
    side = word("White" if color == WHITE else "Black")
    out: list[Blocked] = []
    reroll = Move(-1, -1, "reroll")
    out.append(
        Blocked(
            reroll,
            "reroll",
            said("you may re-roll only on a double; the dice show {dice}", dice=shown),
        )
    )
    if e["mediator"] == "pending":
        answer = "Mirror" if dice and dice[0] % 2 == 0 else "Reverse"
        if answer == "Mirror":
            mediator = said(
                "the mediator dice {dice} are both even, so Black answers {answer}",
                dice=shown,
                answer=answer,
            )
        else:
            mediator = said(
                "the mediator dice {dice} are both odd, so Black answers {answer}",
                dice=shown,
                answer=answer,
            )
        for flag in ("mirror", "reverse"):
            out.append(Blocked(Move(-1, -1, flag), "mediator", mediator))
        first = said("Black answers the mediator roll first ({answer})", answer=answer)
        for sq in rules.geometry.rank_squares(8):
            for k in "KQRBN":
                out.append(Blocked(Move(-1, sq, "place", promo=k), "setup-phase", first))
        return out
    why = (
        said("there is no mediator roll in Free Play")
        if e["free"]
        else said("Mirror and Reverse answer the mediator roll, once White's rank is set up")
    )
    out.extend(Blocked(Move(-1, -1, flag), "setup-phase", why) for flag in ("mirror", "reverse"))
    nxt = rules.next_square(pos, color)
    order = rules.order(pos, color)
    stock = e["stock"][color]
    offered = rules.offered(dice)
    names = either(
        said("a {piece}", piece=word(rules.types[k].name))
        for k in dict.fromkeys(
            "".join(rules.army if v == rules.free_face else rules.face_kinds[v] for v in dice)
        )
    )
    mine = set(order)
    # the sentences that do not depend on the square, each made once (when needed)
    in_order: tuple[str, str] | None = None
    offer: tuple[str, str] | None = None
    for sq in rules.geometry.rank_squares(1) + rules.geometry.rank_squares(8):
        if pos.board[sq] is not None:
            continue
        for k in "KQRBN":
            move = Move(-1, sq, "place", promo=k)
            rule: tuple[str, str]
            if sq not in mine:
                rule = (
                    "setup-square",
                    said(
                        "{side} sets up rank {rank}; {square} is the other side's",
                        side=side,
                        rank=rules.geometry.rank_label(order[0]),
                        square=rules.name(sq),
                    ),
                )
            elif sq != nxt:
                in_order = in_order or (
                    "setup-square",
                    said(
                        "the next square to fill is {square}: {side} fills {first} to {last} "
                        "in order",
                        square=rules.name(nxt),
                        side=side,
                        first=rules.name(order[0]),
                        last=rules.name(order[-1]),
                    ),
                )
                rule = in_order
            elif k not in stock:
                rule = (
                    "setup-stock",
                    said(
                        "no {piece} is left to place (still to place: {stock})",
                        piece=word(rules.types[k].name),
                        stock=", ".join(stock),
                    ),
                )
            elif k not in offered:
                offer = offer or (
                    "dice",
                    said("the dice {dice} offer {pieces}", dice=shown, pieces=names),
                )
                rule = offer
            elif not rules.feasible(pos, color, k, sq):
                rule = ("bishop-colour", bishop_reason(rules, pos, color, sq))
            else:
                continue
            out.append(Blocked(move, *rule))
    return out


def relocation_refusals(rules: JeppsRules, pos: Position) -> list[Blocked]:
    """King relocations the rules forbid, each with its condition."""
    color = pos.turn
    king = pos.kings[color]
    out: list[Blocked] = []
    g = rules.geometry
    home = g.rank_squares(1 if color == WHITE else 8)
    if king < 0:
        return out
    enemy = other(color)
    dark = g.dark[king]
    for to in home:
        if to == king or abs(g.file_of(to) - g.file_of(king)) < 2:
            continue
        move = Move(king, to, "relocate")
        t = pos.board[to]
        if not pos.extra["relocate"][color] or king not in home:
            rule = (
                "relocation",
                said("a King may relocate only once per game, and only if it has never moved"),
            )
        elif t is not None:
            rule = (
                "relocation",
                said(
                    "a King relocates only to a vacant home-rank square; {square} is occupied",
                    square=rules.name(to),
                ),
            )
        elif g.dark[to] != g.dark[king]:
            if dark:
                own = said(
                    "a King relocates only to a square of its own colour (dark); {square} is not",
                    square=rules.name(to),
                )
            else:
                own = said(
                    "a King relocates only to a square of its own colour (light); {square} is not",
                    square=rules.name(to),
                )
            rule = ("relocation", own)
        elif rules.is_attacked(pos, king, enemy):
            rule = ("relocation", said("the King may not relocate out of check"))
        elif rules.is_attacked(pos, to, enemy):
            rule = (
                "relocation",
                said(
                    "the King may not relocate onto an attacked square ({square})",
                    square=rules.name(to),
                ),
            )
        else:
            lo, hi = min(king, to), max(king, to)
            crossed = [
                s
                for s in home
                if lo < s < hi and pos.board[s] is None and rules.is_attacked(pos, s, enemy)
            ]
            if not crossed:
                continue
            rule = (
                "relocation",
                said(
                    "the King may not relocate across an attacked square ({square})",
                    square=rules.name(crossed[0]),
                ),
            )
        out.append(Blocked(move, *rule))
    return out


def explain_text(
    rules: JeppsRules, pos: Position, text: str, legal: Sequence[Move]
) -> tuple[str, str] | None:
    """A setup word in play, or a text that is no placement in the setup; else None
    (``JeppsRandom.explain_text`` then reads it as in chess)."""
    typed = rules.normalize(text)
    setup = pos.extra["phase"] == "setup"
    if not setup and typed.lower() in ("mirror", "reverse", "reroll"):
        return "setup-over", said("the setup is over: the game is in play")
    if (
        setup
        and not rules.placement_text.fullmatch(typed)
        and typed.lower() not in ("mirror", "reverse", "reroll")
    ):
        where = rules.next_square(pos, pos.turn)
        side = word("White" if pos.turn == WHITE else "Black")
        if pos.extra["mediator"] == "pending":
            return "setup-phase", said("the setup comes first: Black answers the mediator roll")
        return (
            "setup-phase",
            said(
                "the setup comes first: {side} places a piece on {square} (written like Na1)",
                side=side,
                square=rules.name(where),
            ),
        )
    return None


def castling_refusal(rules: JeppsRules, pos: Position, kingside: bool) -> tuple[str, str] | None:
    return (
        "no-castling",
        said(
            "there is no castling in Jepps Random Chess; instead, once per game, a King that "
            "has never moved may relocate to a vacant home-rank square of its own colour "
            "(e.g. Kg1)"
        ),
    )
