"""StoneGarden: what it says about a position (status facts and refusals).

The hooks of ``StoneGarden`` delegate here, so that the rules module stays about the rules.
This module reads the rules only through the object handed in (``StoneGardenRules``)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import ClassVar, Protocol

from ..chess import KING
from ..geometry import BLACK, WHITE
from ..pieces import FACINGS, PieceType, facing_vector
from ..position import Move, Position, other
from ..refusal import Blocked
from ..sentence import said, word
from ..status import ORDINALS, TurnFacts
from . import RulesView


class StoneGardenRules(RulesView, Protocol):
    """What these words read of ``StoneGarden`` (each documented there)."""

    raven: ClassVar[PieceType]
    no_turn_moves: ClassVar[int]
    demotions_to_draw: ClassVar[int]
    turn_suffix: ClassVar[re.Pattern[str]]

    def turn_wait(self, pos: Position, sq: int) -> tuple[int, str]: ...

    def is_promoted_king(self, pos: Position, color: int) -> bool: ...


# A piece move written with its letter (the body of a text ending in a turn, ^E).
_PIECE_MOVE = re.compile(r"[A-Z][a-h]?[1-8]?x?[a-h][1-8](?:=?[A-Z])?")


def relaxed_moves(rules: StoneGardenRules, pos: Position) -> list[Blocked]:
    """Raven turns out of time or out of shape, and a Horse promoting to a King."""
    color = pos.turn
    board = pos.board
    out: list[Blocked] = []
    for sq, p in enumerate(board):
        if p is None or p.color != color or p.kind != rules.raven.id:
            continue
        i = FACINGS.index(p.state)
        sides = (FACINGS[(i + 1) % 4], FACINGS[(i - 1) % 4])
        wait, why = rules.turn_wait(pos, sq)
        early = pos.extra["moves"][color] < rules.no_turn_moves
        cause = "raven-early" if early else "raven-cooldown"
        shape = (
            "raven-turn",
            said(
                "a Raven turns 90 degrees, in place or with a sideways step that she then "
                "faces; facing {facing}, she may turn to {one} or {other}",
                facing=p.state,
                one=sides[0],
                other=sides[1],
            ),
        )
        steps = {f: rules.geometry.offset(sq, *facing_vector(f)) for f in sides}
        plain: list[Move] = []
        rules.piece_moves(pos, sq, p, plain)
        targets = {sq} | {m.to for m in plain}
        for to in sorted(targets):
            for f in FACINGS:
                m = Move(sq, to, "turn", facing=f)
                if (to == sq and f in sides) or (to != sq and steps.get(f) == to):
                    if wait:
                        out.append(Blocked(m, cause, why))
                else:
                    out.append(Blocked(m, *shape))
    for m in rules.candidate_moves(pos):
        if m.promo and board[m.frm] is not None:
            out.append(
                Blocked(
                    m._replace(promo=KING.id),
                    "promotion-choice",
                    said("a Horse promotes to a Policeman, Ox, Index or Raven, never to a King"),
                )
            )
    return out


def explain_text(
    rules: StoneGardenRules, pos: Position, text: str, legal: Sequence[Move]
) -> tuple[str, str] | None:
    """A turn written for a piece that is not a Raven; else None (``StoneGarden.explain_text``
    then reads the text as in chess)."""
    norm = rules.normalize(text)
    turn = rules.turn_suffix.search(norm)
    body = norm[: turn.start()] if turn else ""
    if turn and _PIECE_MOVE.fullmatch(body) and not body.startswith(rules.raven.letter):
        return "raven-turn", said("only a Raven turns (written like Re4^E, or Rd4^E in place)")
    return None


def turn_facts(rules: StoneGardenRules, pos: Position, legal: Sequence[Move]) -> TurnFacts:
    """Raven turning and promoted Kings as they stand (RULES.md section 4)."""
    color = pos.turn
    lines: list[str] = []
    ready = []
    for sq, p in enumerate(pos.board):
        if p is None or p.color != color or p.kind != rules.raven.id:
            continue
        wait, why = rules.turn_wait(pos, sq)
        where = {"square": rules.name(sq), "facing": p.state}
        if wait == 0 and not any(m.flag == "turn" and m.frm == sq for m in legal):
            lines.append(  # her time has come, but a turn would leave the King in check
                said(
                    "Your Raven on {square} faces {facing}; she could turn, but no turn of "
                    "hers leaves your King safe now.",
                    **where,
                )
            )
        elif wait == 0:
            ready.append(rules.name(sq))
            lines.append(
                said(
                    "Your Raven on {square} faces {facing}; she may turn now (e.g. {example}).",
                    example=f"R{rules.name(sq)}^E",
                    **where,
                )
            )
        elif wait == 1:
            lines.append(
                said(
                    "Your Raven on {square} faces {facing}; she may turn in 1 more move ({why}).",
                    why=why,
                    **where,
                )
            )
        else:
            lines.append(
                said(
                    "Your Raven on {square} faces {facing}; she may turn in {n} more moves "
                    "({why}).",
                    n=wait,
                    why=why,
                    **where,
                )
            )
    allows: str = ""
    short = ""
    if ready:
        allows = said("a Raven may turn")
        short = said("Raven may turn")
    if rules.is_promoted_king(pos, color):
        lines.append(
            said(
                "Your King is promoted: it also moves as a xiangqi horse, and demotes when it "
                "moves back into your half."
            )
        )
    if rules.is_promoted_king(pos, other(color)):
        lines.append(said("The enemy King is promoted: your Ravens may turn once in two moves."))
    demotions = pos.extra["demotions"]
    if any(demotions):
        lines.append(
            said(
                "Demotions so far: White {white}, Black {black}; the {ordinal} demotion of "
                "either King draws.",
                white=demotions[WHITE],
                black=demotions[BLACK],
                ordinal=word(ORDINALS[rules.demotions_to_draw]),
            )
        )
    lines.append(
        said(
            "Checkmate wins; a player with no legal move wins; a threefold repetition loses "
            "for the player who makes it."
        )
    )
    return TurnFacts(allows=allows, short=short, lines=tuple(lines))
