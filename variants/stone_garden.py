"""Stone Garden Chess (Lev Grigoriev): forward Horses, Ox, Index, Policeman,
a Raven that faces one way and turns, and a King that promotes in the enemy
half. RULES.md section 4.

FEN
---
Six fields as in FIDE, then three Stone Garden counters::

    or(S)ipkir(S)o/hhhhhhhh/8/8/8/8/HHHHHHHH/OR(N)IPKIR(N)O w - - 0 1 0/0 2/2 0/0

- Letters: H Horse, O Ox, I Index, P Policeman, R Raven, K King; upper case White.
- A Raven carries its facing in brackets: ``R(E)`` is a White Raven facing east
  (N is toward rank 8). A Raven written without a facing faces forward.
- A promoted King is ``K(+)`` (``k(+)`` for Black).
- Castling and en passant do not exist; their fields are always ``-``.
- The halfmove clock counts plies since the last capture or Horse promotion.
- Counter 1, ``moves``: how many moves White/Black have made (for "no Raven
  turns during a side's first five moves").
- Counter 2, ``rest``: how many moves White/Black have made since their Ravens
  last turned, counted up to 2 (2 also means "never turned").
- Counter 3, ``demotions``: how many times the White/Black King has demoted.

When the counters are left out, ``moves`` follows from the fullmove number,
``rest`` is 2/2 and ``demotions`` 0/0.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from .base import Result, Roller, draw, win
from .chess import KING, ChessLike
from .errors import BadNotation, NotLegalHere
from .geometry import BLACK, STANDARD, WHITE
from .pieces import (
    DIAGONAL,
    FACINGS,
    K_STEP,
    ORTHOGONAL,
    Atom,
    Lame,
    Leap,
    Mode,
    Offset,
    PieceType,
    Reach,
    facing_vector,
    reach_table,
)
from .position import Move, Piece, Position, other, piece
from .status import TurnFacts

# ----- readings and constants (RULES.md section 4) ---------------------------

# (reading) The setup: one constant. Black mirrors White across the middle, file for file.
START_FEN = "or(S)ipkir(S)o/hhhhhhhh/8/8/8/8/HHHHHHHH/OR(N)IPKIR(N)O w - - 0 1 0/0 2/2 0/0"

# The Policeman's middle leg: "two further steps of d" (seed); the current page says one.
POLICEMAN_MIDDLE_STEPS = 2

# Horses promote on the last rank to one of these, never to a King.
HORSE_PROMOTIONS = ("PO", "O", "I", "RA")

# (reading) Raven turning: at most once in this many of the player's consecutive moves...
TURN_WINDOW = 3
# ...or in this many while the opponent's King is promoted.
TURN_WINDOW_ENEMY_PROMOTED = 2
# (reading) No Raven may turn during its side's first five moves.
NO_TURN_MOVES = 5
# (reading) A sideways step with a turn is still her ordinary step, so it may capture.
TURN_STEP_MAY_CAPTURE = True
# (reading) A King demotes when it moves back into its own half; this many demotions draw.
DEMOTIONS_TO_DRAW = 3
# 50 moves by each side without a capture or a Horse promotion.
FIFTY_MOVE_PLIES = 100

TURN = "turn"  # Move.flag of a Raven move that turns her (in place, or stepping sideways)
PROMOTED = "+"  # Piece.state of a promoted King
_REST_CAP = max(TURN_WINDOW, TURN_WINDOW_ENEMY_PROMOTED) - 1

READINGS = (
    "Setup (reading): rank 1 O R I P K I R O, eight Horses on rank 2; Black mirrors it on "
    "ranks 8 and 7 file for file. Ravens start facing forward.",
    f"Policeman: the middle leg is {POLICEMAN_MIDDLE_STEPS} steps (the seed's version).",
    "Raven turning (reading): turn 90° in place as the whole move, or step sideways and turn "
    "to face the way she stepped (that step may capture).",
    f"Raven cooldown (reading): a player's Ravens turn at most once in any {TURN_WINDOW} of that "
    f"player's consecutive moves, once in {TURN_WINDOW_ENEMY_PROMOTED} while the opponent's King "
    "is promoted (judged when turning); none during the side's first "
    f"{NO_TURN_MOVES} moves. A Raven made by promotion faces forward.",
    "King (reading): promoted while in the enemy half, demoted on moving back into its own half; "
    f"demotion number {DEMOTIONS_TO_DRAW} of either King draws.",
    "Repetition (reading): a position is the board (facings and promoted Kings included), the "
    "side to move and, for a side with a Raven, what the turning rules allow. The third "
    "occurrence ends the game and the player who made it loses. Mate and stalemate are "
    "judged first, then repetition, then the draws.",
)

# ----- pieces ------------------------------------------------------------------


def _perpendiculars(d: Offset) -> tuple[Offset, Offset]:
    return (d[1], -d[0]), (-d[1], d[0])


def _scale(d: Offset, k: int) -> Offset:
    return (d[0] * k, d[1] * k)


def _add(*offsets: Offset) -> Offset:
    return (sum(o[0] for o in offsets), sum(o[1] for o in offsets))


def _ox_like(
    directions: Sequence[Offset], ends: Callable[[Offset], tuple[Offset, ...]]
) -> tuple[Atom, ...]:
    """Path d, 2d; moves or captures on the ends when both are empty; captures
    (never moves) on d, and on 2d when d is empty."""
    atoms: list[Atom] = []
    for d in directions:
        path = (d, _scale(d, 2))
        atoms.extend(Lame(path, end) for end in ends(d))
        atoms.append(Leap((d,), Mode.CAPTURE))
        atoms.append(Lame((d,), _scale(d, 2), Mode.CAPTURE))
    return tuple(atoms)


def _ox_ends(d: Offset) -> tuple[Offset, ...]:
    # The "T": 3d, 3d+p and 3d-p.
    three = _scale(d, 3)
    return (three,) + tuple(_add(three, p) for p in _perpendiculars(d))


def _index_ends(d: Offset) -> tuple[Offset, ...]:
    # 3d, 2d+(x, 0) and 2d+(0, y).
    two = _scale(d, 2)
    return (_scale(d, 3), _add(two, (d[0], 0)), _add(two, (0, d[1])))


def _policeman_atoms() -> tuple[Atom, ...]:
    """Path d, d+(d±p), then POLICEMAN_MIDDLE_STEPS more steps of d, all empty;
    then a last step straight (d) or diagonal (d±p) to move or capture. Also a
    move-only orthogonal step."""
    atoms: list[Atom] = [Leap(ORTHOGONAL, Mode.MOVE)]
    for d in ORTHOGONAL:
        for p in _perpendiculars(d):
            path = [d, _add(d, d, p)]
            for _ in range(POLICEMAN_MIDDLE_STEPS):
                path.append(_add(path[-1], d))
            last = path[-1]
            for q in _perpendiculars(d):
                atoms.append(Lame(tuple(path), _add(last, d, q)))
            atoms.append(Lame(tuple(path), _add(last, d)))
    return tuple(atoms)


def _xiangqi_horse() -> tuple[Lame, ...]:
    # An orthogonal step onto an empty square, then one diagonal step outwards.
    return tuple(Lame((d,), _add(d, d, p)) for d in ORTHOGONAL for p in _perpendiculars(d))


HORSE = PieceType("H", "H", "Horse", (Leap(((1, 2), (-1, 2))),))
OX = PieceType("O", "O", "Ox", _ox_like(ORTHOGONAL, _ox_ends))
INDEX = PieceType("I", "I", "Index", _ox_like(DIAGONAL, _index_ends))
POLICEMAN = PieceType("PO", "P", "Policeman", _policeman_atoms())
# Frame offsets are (right, ahead) of her facing: 1 or 2 ahead, 1 or 2 diagonally back, 1 aside.
RAVEN = PieceType(
    "RA",
    "R",
    "Raven",
    (Leap(((0, 1), (0, 2), (1, -1), (-1, -1), (2, -2), (-2, -2), (1, 0), (-1, 0))),),
    facing_relative=True,
)
# Not a piece type of its own: the King's moves while its state is '+'.
PROMOTED_KING = PieceType("K", "K", "Promoted King", (K_STEP, *_xiangqi_horse()), is_royal=True)

_FORWARD = {WHITE: "N", BLACK: "S"}
_TURN_SUFFIX = re.compile(r"\^([NESWnesw])$")
_TURN_MARK = re.compile(r"\^[NESW]")


class StoneGarden(ChessLike):
    key = "stone_garden"
    title = "Stone Garden Chess"
    summary = (
        "Forward-leaping Horses, the Ox and Index (T-shaped leapers that capture on their "
        "path), the long-armed Policeman, Ravens that face one way and may turn, and a King "
        "that promotes in the enemy half. Stalemate wins; a threefold repetition loses for "
        "the player who made it."
    )
    readings = READINGS
    geometry = STANDARD
    piece_types = (HORSE, OX, INDEX, POLICEMAN, RAVEN, KING)
    castling = False
    double_step = False
    en_passant = False
    promotion_kinds = HORSE_PROMOTIONS
    start_placement = START_FEN.split()[0]

    def __init__(self) -> None:
        super().__init__()
        self._promoted_reach = reach_table(self.geometry, PROMOTED_KING, "N")
        self._reach_by_piece: dict[Piece, tuple[Reach | None, ...]] = {}

    def initial_position(self, options: dict[str, Any], roll: Roller) -> Position:
        return self.from_fen(START_FEN)

    def reach(self, p: Piece) -> tuple[Reach | None, ...]:
        table = self._reach_by_piece.get(p)
        if table is None:
            promoted = p.kind == KING.id and p.state == PROMOTED
            table = self._promoted_reach if promoted else super().reach(p)
            self._reach_by_piece[p] = table
        return table

    # ----- halves and Raven turning ---------------------------------------------

    def in_enemy_half(self, sq: int, color: int) -> bool:
        """Ranks 5-8 are the enemy half for White, ranks 1-4 for Black."""
        upper = self.geometry.rank_of(sq) >= self.geometry.height // 2
        return upper if color == WHITE else not upper

    def is_promoted_king(self, pos: Position, color: int) -> bool:
        k = pos.kings[color]
        p = pos.board[k] if k >= 0 else None
        return p is not None and p.state == PROMOTED

    def may_turn(self, pos: Position, color: int) -> bool:
        """Not in the side's first five moves, and not within the cooldown window
        (RULES.md section 4, "Raven turning")."""
        if pos.extra["moves"][color] < NO_TURN_MOVES:
            return False
        return bool(pos.extra["rest"][color] >= self.turn_window(pos, color) - 1)

    def turn_wait(self, pos: Position, sq: int) -> tuple[int, str]:
        """How many more of her side's moves the Raven on ``sq`` must wait before
        she may turn (0: she may turn now), and why, in words."""
        p = pos.board[sq]
        assert p is not None
        color = p.color
        done = pos.extra["moves"][color]
        if done < NO_TURN_MOVES:
            return (
                NO_TURN_MOVES - done,
                f"no Raven may turn during her side's first {NO_TURN_MOVES} moves",
            )
        if self.may_turn(pos, color):
            return 0, ""
        window = self.turn_window(pos, color)
        rest = pos.extra["rest"][color]
        ago = "on the last move" if rest == 0 else f"{rest + 1} moves ago"
        return (
            window - 1 - rest,
            f"a Raven turned {ago}; a Raven may turn once in {window} moves",
        )

    def turn_window(self, pos: Position, color: int) -> int:
        """Once in three moves; once in two while the opponent's King is promoted."""
        if self.is_promoted_king(pos, other(color)):
            return TURN_WINDOW_ENEMY_PROMOTED
        return TURN_WINDOW

    # ----- in words ------------------------------------------------------------------

    def turn_facts(self, pos: Position, legal: Sequence[Move]) -> TurnFacts:
        """Raven turning and promoted Kings as they stand (RULES.md section 4)."""
        color = pos.turn
        lines: list[str] = []
        ready = []
        for sq, p in enumerate(pos.board):
            if p is None or p.color != color or p.kind != RAVEN.id:
                continue
            wait, why = self.turn_wait(pos, sq)
            where = f"Your Raven on {self.name(sq)} faces {p.state}"
            if wait == 0:
                ready.append(self.name(sq))
                lines.append(f"{where}; she may turn now (e.g. R{self.name(sq)}^E).")
            else:
                plural = "s" if wait > 1 else ""
                lines.append(f"{where}; she may turn in {wait} more move{plural} ({why}).")
        allows = short = ""
        if ready:
            allows = "a Raven may turn"
            short = "Raven may turn"
        if self.is_promoted_king(pos, color):
            lines.append(
                "Your King is promoted: it also moves as a xiangqi horse, and demotes when it "
                "moves back into your half."
            )
        if self.is_promoted_king(pos, other(color)):
            lines.append("The enemy King is promoted: your Ravens may turn once in two moves.")
        demotions = pos.extra["demotions"]
        if any(demotions):
            lines.append(
                f"Demotions so far: White {demotions[WHITE]}, Black {demotions[BLACK]}; the "
                f"demotion number {DEMOTIONS_TO_DRAW} of either King draws."
            )
        lines.append(
            "Checkmate wins; a player with no legal move wins; a threefold repetition loses "
            "for the player who makes it."
        )
        return TurnFacts(allows=allows, short=short, lines=tuple(lines))

    # ----- moves ---------------------------------------------------------------------

    def piece_moves(self, pos: Position, frm: int, p: Piece, out: list[Move]) -> None:
        if p.kind != POLICEMAN.id:
            super().piece_moves(pos, frm, p, out)
            return
        # Two paths (left and right) reach the square straight ahead: list it once.
        mine: list[Move] = []
        super().piece_moves(pos, frm, p, mine)
        out.extend(dict.fromkeys(mine))

    def expand(self, pos: Position, moves: list[Move]) -> list[Move]:
        """A Horse reaching the last rank must promote."""
        out: list[Move] = []
        for m in moves:
            p = pos.board[m.frm]
            if (
                p is not None
                and p.kind == HORSE.id
                and self.geometry.rank_label(m.to) == self.last_rank(p.color)
            ):
                out.extend(m._replace(promo=k) for k in HORSE_PROMOTIONS)
            else:
                out.append(m)
        return out

    def special_moves(self, pos: Position) -> list[Move]:
        """Raven turns: 90° in place, or a sideways step turning to face that way
        (RULES.md section 4, reading)."""
        color = pos.turn
        if not self.may_turn(pos, color):
            return []
        out: list[Move] = []
        for sq, p in enumerate(pos.board):
            if p is None or p.color != color or p.kind != RAVEN.id:
                continue
            i = FACINGS.index(p.state)
            sides = (FACINGS[(i + 1) % 4], FACINGS[(i - 1) % 4])
            out.extend(Move(sq, sq, TURN, facing=f) for f in sides)
            for f in sides:
                to = self.geometry.offset(sq, *facing_vector(f))
                if to is None:
                    continue
                t = pos.board[to]
                if t is None or (TURN_STEP_MAY_CAPTURE and t.color != color):
                    out.append(Move(sq, to, TURN, facing=f))
        return out

    def promoted_state(self, move: Move, p: Piece) -> str:
        # A Raven created by promotion faces forward.
        return _FORWARD[p.color] if move.promo == RAVEN.id else ""

    def make(self, pos: Position, move: Move, roll: Roller) -> Position:
        new = pos.copy()
        color = pos.turn
        board = new.board
        if move.frm != move.to:
            self.move_piece(new, move)
        if move.flag == TURN:
            board[move.to] = piece(RAVEN.id, color, move.facing)
        moved = board[move.to]
        assert moved is not None
        if moved.kind == KING.id:
            # Promoted in the enemy half; demoted on moving back into its own half.
            state = PROMOTED if self.in_enemy_half(move.to, color) else ""
            if moved.state == PROMOTED and not state:
                new.extra["demotions"] = _bump(new.extra["demotions"], color, 1)
            board[move.to] = piece(KING.id, color, state)
        new.extra["moves"] = _bump(new.extra["moves"], color, 1)
        rest = 0 if move.flag == TURN else min(pos.extra["rest"][color] + 1, _REST_CAP)
        new.extra["rest"] = _bump(new.extra["rest"], color, rest - pos.extra["rest"][color])
        self.finish(new, move, pos)
        return new

    def finish(self, new: Position, move: Move, old: Position) -> None:
        """The clock restarts on a capture or a Horse promotion."""
        if self.is_capture(old, move) or move.promo:
            new.halfmove = 0
        else:
            new.halfmove = old.halfmove + 1
        if old.turn == BLACK:
            new.fullmove += 1
        new.turn = other(old.turn)

    def has_legal_move(self, pos: Position) -> bool:
        """Stop at the first move that leaves the King safe (mate and stalemate tests)."""
        color = pos.turn
        for m in self.expand(pos, self.pseudo_moves(pos)) + self.special_moves(pos):
            new = self.make(pos, m, _no_dice)
            k = new.kings[color]
            if k < 0 or not self.is_attacked(new, k, other(color)):
                return True
        return False

    # ----- end of game -----------------------------------------------------------------

    def outcome(self, pos: Position, history: Sequence[Any]) -> Result | None:
        """RULES.md section 4, "End": the stalemated player wins, the repeater loses."""
        mover = other(pos.turn)  # who made the last move
        if not self.has_legal_move(pos):
            if self.in_check(pos):
                return win(mover, "checkmate")
            return win(pos.turn, "stalemate: no legal move wins")
        if history and history.count(history[-1]) >= 3:
            return win(pos.turn, "threefold repetition: the repeating player loses")
        if max(pos.extra["demotions"]) >= DEMOTIONS_TO_DRAW:
            return draw("third demotion of a King")
        if all(p is None or p.kind == KING.id for p in pos.board):
            return draw("bare Kings")
        if pos.halfmove >= FIFTY_MOVE_PLIES:
            return draw("50 moves without a capture or Horse promotion")
        return None

    def repetition_key(self, pos: Position) -> Any:
        # The turning counters only matter to a side that has a Raven.
        e = pos.extra
        ravens = {p.color for p in pos.board if p is not None and p.kind == RAVEN.id}
        turning = tuple(
            (min(e["moves"][c], NO_TURN_MOVES), e["rest"][c]) if c in ravens else None
            for c in (WHITE, BLACK)
        )
        return (tuple(pos.board), pos.turn, turning)

    # ----- notation ----------------------------------------------------------------------

    def san(self, pos: Position, move: Move, legal: Sequence[Move]) -> str:
        """``Hd8=P``; a turn adds ``^`` and the new facing: ``Re4^E``, in place ``Rd4^E``."""
        if move.flag != TURN:
            return super().san(pos, move, legal)
        if move.frm == move.to:
            return f"{RAVEN.letter}{self.name(move.frm)}^{move.facing}"
        plain = move._replace(flag="", facing="")
        return super().san(pos, plain, [m for m in legal if m.flag != TURN]) + f"^{move.facing}"

    def parse(self, pos: Position, text: str, legal: Sequence[Move], texts: Sequence[str]) -> Move:
        """Text ending ``^X`` names a turn to X; any other text names a move without one."""
        m = _TURN_SUFFIX.search(self.normalize(text)) if text and len(text) <= 64 else None
        if m:
            facing = m.group(1).upper()
            body = self.normalize(text)[: m.start()]
            keep = [i for i, mv in enumerate(legal) if mv.flag == TURN and mv.facing == facing]
        else:
            body = text
            keep = [i for i, mv in enumerate(legal) if mv.flag != TURN]
        try:
            return super().parse(
                pos, body, [legal[i] for i in keep], [_TURN_MARK.sub("", texts[i]) for i in keep]
            )
        except NotLegalHere:
            # Name what is legal among all actions, not only those of the same kind.
            head = f"{text.strip()!r} is not legal here"
            raise NotLegalHere(f"{head}; {self.legal_hint(texts)}") from None
        except BadNotation as err:
            msg = str(err)
            cut = max(msg.rfind("; legal now: "), msg.rfind("; there is no legal action now"))
            head = f"cannot read {text.strip()!r} as a move" if m or cut < 0 else msg[:cut]
            raise BadNotation(f"{head}; {self.legal_hint(texts)}") from None

    # ----- FEN -----------------------------------------------------------------------------

    def fen_extra(self, pos: Position) -> str:
        e = pos.extra
        return " ".join(f"{e[k][WHITE]}/{e[k][BLACK]}" for k in ("moves", "rest", "demotions"))

    def parse_fen_extra(self, pos: Position, text: str) -> None:
        for sq, p in enumerate(pos.board):
            if p is None:
                continue
            if p.kind == RAVEN.id and not p.state:
                pos.board[sq] = piece(RAVEN.id, p.color, _FORWARD[p.color])
            elif p.kind == RAVEN.id and p.state not in FACINGS:
                raise ValueError(f"a Raven faces N, E, S or W, not {p.state!r}")
            elif p.kind == KING.id and p.state not in ("", PROMOTED):
                raise ValueError(f"a King's state is '+' (promoted) or nothing, not {p.state!r}")
            elif p.kind not in (RAVEN.id, KING.id) and p.state:
                raise ValueError(f"the {self.types[p.kind].name} carries no state ({p.state!r})")
        if not text:
            done = pos.fullmove - 1
            pos.extra = {
                "moves": (done + (pos.turn == BLACK), done),
                "rest": (_REST_CAP, _REST_CAP),
                "demotions": (0, 0),
            }
            return
        fields = text.split()
        pairs = [f.split("/") for f in fields]
        if len(fields) != 3 or any(len(p) != 2 or not all(v.isdigit() for v in p) for p in pairs):
            raise ValueError("Stone Garden FEN counters: moves rest demotions, each as white/black")
        values = [(int(a), int(b)) for a, b in pairs]
        if max(values[1]) > _REST_CAP:
            raise ValueError(f"the Raven rest counter goes up to {_REST_CAP}")
        pos.extra = dict(zip(("moves", "rest", "demotions"), values, strict=True))


def _no_dice(sides: int) -> int:
    """Stone Garden rolls no dice; ``make`` takes a roller only to fit the core's hook."""
    return 1


def _bump(pair: tuple[int, int], color: int, by: int) -> tuple[int, int]:
    return (pair[0] + by, pair[1]) if color == WHITE else (pair[0], pair[1] + by)


__all__ = ["StoneGarden", "HORSE", "OX", "INDEX", "POLICEMAN", "RAVEN", "PROMOTED_KING"]
