"""King's Guard Chess: pawns step like Kings and are the only pieces that
capture, and only with an assist. RULES.md section 3."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .base import ALL_SQUARES, Result, draw, win
from .chess import BISHOP, KING, KNIGHT, QUEEN, ROOK, ChessLike
from .facts import SearchHints
from .geometry import STANDARD
from .pieces import ALL_DIRECTIONS, Leap, Mode, PieceType
from .position import Move, Position, other
from .refusal import Blocked
from .sentence import N_, said, word
from .status import TurnFacts

# Pawns move one square in any direction; their captures come from ``pawn_captures``.
GUARD_PAWN = PieceType(
    "P",
    "P",
    N_("Pawn"),
    (Leap(ALL_DIRECTIONS, Mode.MOVE),),
    is_pawn=True,
    words=N_(
        "moves one square in any direction (never two), and captures an adjacent enemy "
        "in any direction, but only with an assist"
    ),
)


class KingsGuard(ChessLike):
    key = "kings_guard"
    notation_examples = N_("e3, de3 (a pawn leaving its file), dxe4, Nf3, e8=Q")
    title = N_("King's Guard Chess")
    summary = (
        "FIDE setup. Pawns move one square in any direction. Only pawns capture, an adjacent "
        "enemy in any direction, and only when a friendly non-pawn piece attacks that square. "
        "No check: lose when your King is taken, your pawns are gone, or you cannot move."
    )
    readings = (
        "Promotion offers the FIDE choices: Q, R, B or N.",
        "The 50-move rule (no capture, no pawn move) and threefold repetition draw the game.",
    )
    geometry = STANDARD
    piece_types = (KING, QUEEN, ROOK, BISHOP, KNIGHT, GUARD_PAWN)
    has_check = False
    castling = False
    double_step = False
    en_passant = False
    insufficient_material = False
    atoms_capture = False  # only pawns capture, with an assist (``pawn_captures``)
    # The search: pawns are the only capturers, and a side without them loses.
    search = SearchHints(pawn_army=True)

    # Per square, the squares one step away, in ``ALL_DIRECTIONS`` order (built once).
    _neighbours: tuple[tuple[int, ...], ...] | None = None

    def pseudo_moves(self, pos: Position, to_mask: int = ALL_SQUARES) -> list[Move]:
        # Non-pawn pieces never capture; pawns capture only with an assist.
        out = self.ordinary_moves(pos, pos.turn, False, to_mask)
        out.extend(self.pawn_captures(pos, to_mask))
        return out

    def pawn_captures(self, pos: Position, to_mask: int = ALL_SQUARES) -> list[Move]:
        """A pawn takes an adjacent enemy when a friendly non-pawn attacks it (the
        captures on ``to_mask``)."""
        color = pos.turn
        g = self.geometry
        bb = pos.bb
        shapes = self.lay.by_color[color]
        pawns = assist = 0
        for shape in shapes:
            if shape.kind == "P":
                pawns |= bb[shape.index]
        enemy = pos.occ[1 - color] & to_mask
        out: list[Move] = []
        neighbours = self._neighbours
        if neighbours is None:
            neighbours = self._neighbours = tuple(
                tuple(to for dx, dy in ALL_DIRECTIONS if (to := g.offset(sq, dx, dy)) is not None)
                for sq in range(g.size)
            )
        while pawns and enemy:
            b = pawns & -pawns
            pawns ^= b
            frm = b.bit_length() - 1
            for to in neighbours[frm]:
                if not enemy >> to & 1:
                    continue
                assist = self.attackers(pos, to, color) & ~self._pawns(pos, color)
                if assist:
                    plain = Move(frm, to)
                    if g.rank_label(to) == self.last_rank(color):
                        out.extend(
                            plain._replace(promo=k) for k in self.promotion_choices(pos, plain)
                        )
                    else:
                        out.append(plain)
        return out

    def _pawns(self, pos: Position, color: int) -> int:
        out = 0
        for shape in self.lay.by_color[color]:
            if shape.kind == "P":
                out |= pos.bb[shape.index]
        return out

    def relaxed_moves(self, pos: Position, to_mask: int = ALL_SQUARES) -> list[Blocked]:
        """Captures without an assist, and captures by pieces that are not pawns."""
        color = pos.turn
        board = pos.board
        g = self.geometry
        assisted = set(self.pawn_captures(pos))
        out: list[Blocked] = []
        for frm, p in enumerate(board):
            if p is None or p.color != color or p.kind != "P":
                continue
            for dx, dy in ALL_DIRECTIONS:
                to = g.offset(frm, dx, dy)
                t = board[to] if to is not None else None
                if to is None or t is None or t.color == color or Move(frm, to) in assisted:
                    continue
                out.append(
                    Blocked(
                        Move(frm, to),
                        "needs-assist",
                        said(
                            "a pawn captures only when a friendly non-pawn attacks the square; "
                            "none of yours attacks {square}",
                            square=self.name(to),
                        ),
                    )
                )
        for m in ChessLike.pseudo_moves(self, pos):
            p, t = board[m.frm], board[m.to]
            if p is not None and p.kind != "P" and t is not None and t.color != color:
                out.append(
                    Blocked(
                        m,
                        "pawns-only-capture",
                        said(
                            "only pawns capture in King's Guard Chess; the {piece} may assist a "
                            "pawn that captures on {square}",
                            piece=word(self.types[p.kind].name),
                            square=self.name(m.to),
                        ),
                    )
                )
        return out

    def turn_facts(self, pos: Position, legal: Sequence[Move]) -> TurnFacts:
        """Which assisted captures are on (RULES.md section 3)."""
        board = pos.board
        captures = [m for m in legal if board[m.to] is not None]
        lines: list[str] = [
            said(
                "Only pawns capture: an adjacent enemy in any direction, and only when a "
                "friendly non-pawn piece attacks that square."
            )
        ]
        allows: str = ""
        short = ""
        if captures:
            texts = ", ".join(self.san(pos, m, legal) for m in captures)
            allows = said("a pawn may capture")
            short = said("pawn capture possible")
            lines.append(said("Captures possible now: {moves}.", moves=texts))
        else:
            lines.append(said("No capture is possible now."))
        lines.append(
            said(
                "There is no check: you lose when your King is captured, your last pawn is "
                "gone, or you cannot move."
            )
        )
        return TurnFacts(allows=allows, short=short, lines=tuple(lines))

    def outcome(self, pos: Position, history: Sequence[Any]) -> Result | None:
        """Loss conditions are tested at the start of the player's turn."""
        color = pos.turn
        if pos.kings[color] < 0:
            return win(other(color), N_("king captured"))
        if not self._pawns(pos, color):
            return win(other(color), N_("no pawns left"))
        if not self.has_legal_move(pos):
            return win(other(color), N_("no legal move"))
        if pos.halfmove >= 100:
            return draw(N_("fifty-move rule"))
        if history and history.count(history[-1]) >= 3:
            return draw(N_("threefold repetition"))
        return None

    def can_still_win(self, pos: Position, color: int) -> bool:
        """Only with a pawn: a side without pawns loses at the start of its next turn,
        so its opponent's timeout is a draw (RULES.md section 7)."""
        return bool(self._pawns(pos, color))

    def is_terminal(self, pos: Position) -> bool:
        color = pos.turn
        return pos.kings[color] < 0 or not self._pawns(pos, color)
