"""Positions, pieces on squares, and moves.

A position keeps two views of the board in step:

- ``board``: a list indexed by square, each entry a ``Piece`` or ``None`` (what
  renderers, explanations and the search read);
- bitboards: ``occ[color]`` (the squares each side occupies) and ``bb[shape]``
  (the squares of each piece shape of the variant, see ``tables.Layout``), plus
  ``zkey``, the Zobrist hash of every piece on its square.

Variant code changes the board only through ``put``, ``clear`` and ``lift``,
which keep all of them in step. A square ``sq`` is bit ``1 << sq``.
"""

from __future__ import annotations

import random
import threading
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Any, NamedTuple

from .geometry import BLACK, WHITE

if TYPE_CHECKING:
    from .tables import Layout

# ``Position.extra`` entries named with this prefix are notes for the words, not state.
NOTE = "note_"

# Squares a Zobrist row covers (the largest box: Guardener's 10x10 is 100).
ZOBRIST_SQUARES = 128

_CODES: dict[tuple[str, int, str], int] = {}
_CODES_LOCK = threading.Lock()
# Per piece code: one deterministic 64-bit number per square. Derived from the
# piece's value, not from the order pieces were first made, so that keys are the
# same in every process (a stored key stays valid after a restart).
ZOBRIST: list[list[int]] = []
_VALUES: list[tuple[str, int, str]] = []


def _code_of(kind: str, color: int, state: str) -> int:
    key = (kind, color, state)
    code = _CODES.get(key)
    if code is None:
        with _CODES_LOCK:
            code = _CODES.get(key)
            if code is None:
                rng = random.Random(f"zobrist:{kind}:{color}:{state}")
                ZOBRIST.append([rng.getrandbits(64) for _ in range(ZOBRIST_SQUARES)])
                _VALUES.append(key)
                code = _CODES[key] = len(ZOBRIST) - 1
    return code


def piece_values() -> int:
    """How many piece values have a code so far."""
    return len(_VALUES)


def piece_value(code: int) -> tuple[str, int, str]:
    """(kind, colour, state) of the piece with this code."""
    return _VALUES[code]


@dataclass(frozen=True, slots=True)
class Piece:
    """A piece on the board. ``state`` carries per-piece state as a short string:
    a Tquarc's die value ('1'-'4'), a Raven's facing ('N', 'E', 'S', 'W'),
    a promoted King ('+'), a Guardener still on its double start ('2').
    ``code`` is a small integer naming the value (kind, colour, state)."""

    kind: str
    color: int
    state: str = ""
    code: int = field(default=-1, init=False, compare=False, repr=False, hash=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "code", _code_of(self.kind, self.color, self.state))


@cache
def piece(kind: str, color: int, state: str = "") -> Piece:
    """The shared instance of this piece (pieces are values; share them)."""
    return Piece(kind, color, state)


class Move(NamedTuple):
    """One action. ``frm``/``to`` are squares (-1 where none applies).

    flag: '' ordinary; 'castle' (aux = rook square); 'ep' (aux = captured pawn);
    'double' (pawn double step); 'teleport'; 'drop' (promo = kind placed);
    'relocate'; 'turn' (facing only); 'pass'; 'reroll'; 'roll'; 'place'
    (promo = kind placed); 'mirror'; 'reverse'.
    promo: promotion kind. gate: square a Tquarc enters on, or the square of a
    Knight that becomes a Tquarc. facing: a Raven's facing after the move.
    """

    frm: int
    to: int
    flag: str = ""
    promo: str = ""
    aux: int = -1
    gate: int = -1
    facing: str = ""


class Position:
    """Everything that decides the legal actions from here.

    ``castling`` holds the squares of rooks that may still castle.
    ``extra`` holds variant state as plain values (ints, strings, tuples);
    ``copy`` copies it shallowly, so values stored there must be immutable. An
    entry whose name starts with ``NOTE`` is a note for the words (the dice that
    decided something earlier), not state: it decides nothing, and ``key`` leaves
    it out.
    The bitboards (``occ``, ``bb``, ``zkey``) exist once a variant's layout is
    attached (``Layout.attach``); every position a variant returns has them.
    """

    __slots__ = (
        "board",
        "turn",
        "castling",
        "ep",
        "halfmove",
        "fullmove",
        "kings",
        "dice",
        "extra",
        "occ",
        "bb",
        "zkey",
        "lay",
        "danger",
    )

    def __init__(
        self,
        board: list[Piece | None],
        turn: int = WHITE,
        castling: frozenset[int] = frozenset(),
        ep: int = -1,
        halfmove: int = 0,
        fullmove: int = 1,
        kings: list[int] | None = None,
        dice: tuple[int, ...] | None = None,
        extra: dict[str, Any] | None = None,
    ) -> None:
        self.board = board
        self.turn = turn
        self.castling = castling
        self.ep = ep
        self.halfmove = halfmove
        self.fullmove = fullmove
        self.kings = kings if kings is not None else [-1, -1]
        self.dice = dice
        self.extra = extra if extra is not None else {}
        self.occ = [0, 0]
        self.bb: list[int] = []
        self.zkey = 0
        self.lay: Layout | None = None
        # (zkey, turn, checkers, pinned) once ``Variant.danger`` has read them: valid
        # while the pieces and the side to move are the same.
        self.danger: tuple[int, int, int, int] | None = None

    def __repr__(self) -> str:
        return (
            f"Position(turn={self.turn}, castling={sorted(self.castling)}, ep={self.ep}, "
            f"halfmove={self.halfmove}, fullmove={self.fullmove}, kings={self.kings}, "
            f"dice={self.dice}, extra={self.extra})"
        )

    def copy(self) -> Position:
        new = Position.__new__(Position)
        new.board = self.board[:]
        new.turn = self.turn
        new.castling = self.castling
        new.ep = self.ep
        new.halfmove = self.halfmove
        new.fullmove = self.fullmove
        new.kings = self.kings[:]
        new.dice = self.dice
        new.extra = dict(self.extra)
        new.occ = self.occ[:]
        new.bb = self.bb[:]
        new.zkey = self.zkey
        new.lay = self.lay
        new.danger = self.danger
        return new

    # ----- changing the board (keeps board, bitboards and key in step) -----

    def put(self, sq: int, p: Piece) -> None:
        """Place ``p`` on the empty square ``sq``."""
        self.board[sq] = p
        bit = 1 << sq
        lay = self.lay
        assert lay is not None
        code = p.code
        shapes = lay.shape_of
        s = shapes[code] if code < len(shapes) else lay.grow(code)
        self.bb[s] |= bit
        self.occ[p.color] |= bit
        self.zkey ^= ZOBRIST[code][sq]

    def clear(self, sq: int) -> Piece | None:
        """Empty ``sq``; return what stood there."""
        p = self.board[sq]
        if p is None:
            return None
        self.board[sq] = None
        bit = 1 << sq
        lay = self.lay
        assert lay is not None
        code = p.code
        shapes = lay.shape_of
        s = shapes[code] if code < len(shapes) else lay.grow(code)
        self.bb[s] ^= bit
        self.occ[p.color] ^= bit
        self.zkey ^= ZOBRIST[code][sq]
        return p

    def shift(self, frm: int, to: int) -> Piece:
        """Move the piece on ``frm`` to the empty square ``to`` as it is; return it."""
        board = self.board
        p = board[frm]
        assert p is not None and board[to] is None
        board[frm] = None
        board[to] = p
        lay = self.lay
        assert lay is not None
        code = p.code
        shapes = lay.shape_of
        s = shapes[code] if code < len(shapes) else lay.grow(code)
        bits = (1 << frm) | (1 << to)
        self.bb[s] ^= bits
        self.occ[p.color] ^= bits
        z = ZOBRIST[code]
        self.zkey ^= z[frm] ^ z[to]
        return p

    def lift(self, frm: int, to: int) -> Piece | None:
        """Move the piece on ``frm`` to ``to`` as it is; return any piece captured there."""
        captured = self.clear(to) if self.board[to] is not None else None
        self.shift(frm, to)
        return captured

    # ----- reading -----------------------------------------------------------

    def find_kings(self, king_kind: str = "K") -> None:
        self.kings = [-1, -1]
        for sq, p in enumerate(self.board):
            if p is not None and p.kind == king_kind:
                self.kings[p.color] = sq

    def pieces_of(self, color: int) -> list[tuple[int, Piece]]:
        return [(sq, p) for sq, p in enumerate(self.board) if p is not None and p.color == color]

    def count(self, kind: str, color: int) -> int:
        return sum(1 for p in self.board if p is not None and p.kind == kind and p.color == color)

    def key(self) -> tuple[Any, ...]:
        """What makes two positions the same for repetition, as plain values (the
        variants' ``repetition_key`` hashes the same facts into one number)."""
        return (
            tuple(self.board),
            self.turn,
            self.castling,
            self.ep,
            self.dice,
            tuple(sorted(item for item in self.extra.items() if not item[0].startswith(NOTE))),
        )


def other(color: int) -> int:
    return BLACK if color == WHITE else WHITE


def with_side(pair: tuple[Any, Any], color: int, value: Any) -> tuple[Any, Any]:
    """A (white, black) pair with one side's entry replaced."""
    return (value, pair[1]) if color == WHITE else (pair[0], value)
