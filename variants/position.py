"""Positions, pieces on squares, and moves."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from typing import Any, NamedTuple

from .geometry import BLACK, WHITE


@dataclass(frozen=True, slots=True)
class Piece:
    """A piece on the board. ``state`` carries per-piece state as a short string:
    a Tquarc's die value ('1'-'4'), a Raven's facing ('N', 'E', 'S', 'W'),
    a promoted King ('+'), a Guardener still on its double start ('2')."""

    kind: str
    color: int
    state: str = ""


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


@dataclass(slots=True)
class Position:
    """Everything that decides the legal actions from here.

    ``castling`` holds the squares of rooks that may still castle.
    ``extra`` holds variant state as plain values (ints, strings, tuples);
    ``copy`` copies it shallowly, so values stored there must be immutable.
    """

    board: list[Piece | None]
    turn: int = WHITE
    castling: frozenset[int] = frozenset()
    ep: int = -1
    halfmove: int = 0
    fullmove: int = 1
    kings: list[int] = field(default_factory=lambda: [-1, -1])
    dice: tuple[int, ...] | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def copy(self) -> Position:
        return Position(
            self.board[:],
            self.turn,
            self.castling,
            self.ep,
            self.halfmove,
            self.fullmove,
            self.kings[:],
            self.dice,
            dict(self.extra),
        )

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
        """What makes two positions the same for repetition."""
        return (
            tuple(self.board),
            self.turn,
            self.castling,
            self.ep,
            self.dice,
            tuple(sorted(self.extra.items())),
        )


def other(color: int) -> int:
    return BLACK if color == WHITE else WHITE


def with_side(pair: tuple[Any, Any], color: int, value: Any) -> tuple[Any, Any]:
    """A (white, black) pair with one side's entry replaced."""
    return (value, pair[1]) if color == WHITE else (pair[0], value)
