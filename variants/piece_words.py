"""A refusal's words about pieces: how a message names a piece or a side, why a piece
cannot go where a text sends it (its movement, a blocker, capturing), and why a move
would leave the King in check. Used by ``explain.py`` (and ``Variant.reach_refusal``);
every sentence is ``Said`` (``sentence.py``), built only when a text is refused."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .geometry import color_name
from .pieces import Mode
from .position import Move, Position
from .sentence import N_, said, word

if TYPE_CHECKING:
    from .base import Variant


def reach_refusal(rules: Variant, pos: Position, frm: int, to: int) -> tuple[str, str] | None:
    """Why the piece on ``frm`` cannot go to ``to`` by its movement (its atoms), or None."""
    p = pos.board[frm]
    assert p is not None
    reach = rules.reach(p)[frm]
    assert reach is not None
    ways: list[tuple[tuple[int, ...], Mode]] = []
    ways.extend(((), mode) for sq, mode in reach.leaps if sq == to)
    for ray, mode in reach.rays:
        if to in ray:
            ways.append((ray[: ray.index(to)], mode))
    ways.extend((path, mode) for path, dest, mode in reach.lames if dest == to)
    name = piece_name(rules, pos, frm)
    where, dest = rules.name(frm), rules.name(to)
    if not ways:
        how = rules.types[p.kind].words
        if how:
            return "unreachable", said(
                CANNOT_REACH_HOW, piece=name, square=where, dest=dest, how=word(how)
            )
        return "unreachable", said(
            "a {piece} on {square} cannot reach {dest}", piece=name, square=where, dest=dest
        )
    target = pos.board[to]
    if target is not None and target.color == p.color:
        return "occupied", said(
            "your own {piece} stands on {square}", piece=piece_name(rules, pos, to), square=dest
        )
    need = Mode.MOVE if target is None else Mode.CAPTURE
    usable = [(path, mode) for path, mode in ways if mode & need]
    if not usable:
        if target is None:
            return "capture-only", said(
                "a {piece} goes from {square} to {dest} only to capture",
                piece=name,
                square=where,
                dest=dest,
            )
        return (
            "no-capture",
            said(
                "a {piece} does not capture from {square} to {dest}, it only moves there",
                piece=name,
                square=where,
                dest=dest,
            ),
        )
    for path, _ in usable:
        if all(pos.board[s] is None for s in path):
            return None
    path = usable[0][0]
    blocker = next(s for s in path if pos.board[s] is not None)
    return (
        "blocked",
        said(
            "the {piece} on {square} is blocked by the {blocker} on {blocker_square}",
            piece=name,
            square=where,
            blocker=piece_name(rules, pos, blocker),
            blocker_square=rules.name(blocker),
        ),
    )


# The message of a piece that cannot reach a square, with how it moves (``PieceType.words``).
CANNOT_REACH_HOW = N_("a {piece} on {square} cannot reach {dest}: the {piece} {how}")


def piece_name(rules: Variant, pos: Position, sq: int) -> str:
    """The piece on ``sq`` as a message names it: 'Knight', 'pawn' (``Said``)."""
    p = pos.board[sq]
    return noun(rules.types[p.kind].name) if p is not None else word(N_("square"))


def noun(name: str) -> str:
    """Piece names are capitalised, except the humble pawn (``Said``: a word a front end
    may translate)."""
    return word(N_("pawn")) if name == "Pawn" else word(name)


def side_name(color: int) -> str:
    """'White' or 'Black', as a message names the side (``Said``)."""
    return word(N_("White") if color_name(color) == "white" else N_("Black"))


def self_check_message(rules: Variant, pos: Position, move: Move) -> str:
    """'your King would be in check', naming the attacker and any pin."""
    from .base import _no_roll

    color = pos.turn
    new = rules.make(pos, move, _no_roll)
    king = new.kings[color]
    by: dict[str, str] = {}
    if king >= 0:
        for sq, p in enumerate(new.board):
            if p is not None and p.color != color and rules.attacks(new, sq, king):
                by = {"attacker": piece_name(rules, new, sq), "attacker_square": rules.name(sq)}
                break
    mover = pos.board[move.frm] if move.frm >= 0 else None
    if rules.in_check(pos):
        if mover is not None and move.frm == pos.kings[color]:
            if by:
                return said(
                    "your King would still be in check from the {attacker} on {attacker_square}",
                    **by,
                )
            return said("your King would still be in check")
        if by:
            return said(
                "your King is in check and would still be in check from the {attacker} on "
                "{attacker_square}: the move must end the check",
                **by,
            )
        return said(
            "your King is in check and would still be in check: the move must end the check"
        )
    if mover is None or move.frm == pos.kings[color]:
        if by:
            return said(
                "your King would be in check from the {attacker} on {attacker_square}", **by
            )
        return said("your King would be in check")
    pinned = {"piece": piece_name(rules, pos, move.frm), "square": rules.name(move.frm)}
    if by:
        return said(
            "the {piece} on {square} is pinned: moving it would put your King in check "
            "from the {attacker} on {attacker_square}",
            **pinned,
            **by,
        )
    return said(
        "the {piece} on {square} is pinned: moving it would put your King in check", **pinned
    )
