"""Pieces are data: a piece type is a list of movement atoms.

Offsets are ``(file, rank)`` in the mover's own frame, where +rank is the way
the piece faces: forward for most pieces (toward rank 8 for White), the facing
for a Raven. ``orient`` turns a frame offset into a board offset.

Atoms:
- ``Leap``: jump to each offset, whatever stands between.
- ``Slide``: run along each direction until blocked (optionally at most ``limit`` steps).
- ``Lame``: reach ``dest`` only when every square of ``path`` is empty.

Each atom has a mode: it may move there, capture there, or both.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntFlag
from functools import cache

from .geometry import Geometry

Offset = tuple[int, int]


class Mode(IntFlag):
    MOVE = 1
    CAPTURE = 2
    BOTH = 3


@dataclass(frozen=True)
class Leap:
    offsets: tuple[Offset, ...]
    mode: Mode = Mode.BOTH


@dataclass(frozen=True)
class Slide:
    directions: tuple[Offset, ...]
    mode: Mode = Mode.BOTH
    limit: int = 0  # 0: unlimited


@dataclass(frozen=True)
class Lame:
    path: tuple[Offset, ...]
    dest: Offset
    mode: Mode = Mode.BOTH


Atom = Leap | Slide | Lame

# Facing letters, clockwise; N is toward the top rank.
FACINGS = "NESW"
_FACING_VECTORS = {"N": (0, 1), "E": (1, 0), "S": (0, -1), "W": (-1, 0)}


def facing_vector(facing: str) -> Offset:
    return _FACING_VECTORS[facing]


def orient(offset: Offset, facing: str) -> Offset:
    """A frame offset (right, ahead) turned to a board offset for this facing."""
    x, y = offset
    fx, fy = _FACING_VECTORS[facing]
    px, py = fy, -fx  # the right-hand side of the facing
    return (x * px + y * fx, x * py + y * fy)


def symmetric(*offsets: Offset) -> tuple[Offset, ...]:
    """Every reflection of the given offsets, in a stable order."""
    out: list[Offset] = []
    for dx, dy in offsets:
        for sx in (1, -1):
            for sy in (1, -1):
                for o in ((dx * sx, dy * sy), (dy * sx, dx * sy)):
                    if o not in out:
                        out.append(o)
    return tuple(out)


ORTHOGONAL: tuple[Offset, ...] = ((0, 1), (1, 0), (0, -1), (-1, 0))
DIAGONAL: tuple[Offset, ...] = ((1, 1), (1, -1), (-1, -1), (-1, 1))
ALL_DIRECTIONS = ORTHOGONAL + DIAGONAL

# Betza atoms.
W = Leap(ORTHOGONAL)
F = Leap(DIAGONAL)
K_STEP = Leap(ALL_DIRECTIONS)
D = Leap(symmetric((0, 2)))
A = Leap(symmetric((2, 2)))
N = Leap(symmetric((1, 2)))
R = Slide(ORTHOGONAL)
B = Slide(DIAGONAL)


@dataclass(frozen=True)
class PieceType:
    """A kind of piece. ``id`` is unique across variants; ``letter`` is its notation."""

    id: str
    letter: str
    name: str
    atoms: tuple[Atom, ...]
    is_pawn: bool = False
    is_royal: bool = False
    facing_relative: bool = field(default=False)  # rotates with its own facing (the Raven)
    words: str = ""  # how it moves, in the players' words: "The Knight <words>."
    # the same in a few words, for a picture's legend: "ahead or diagonally back, 1 or 2"
    brief: str = ""


@dataclass(frozen=True)
class Reach:
    """One piece type's moves from one square, for one facing, resolved to squares."""

    leaps: tuple[tuple[int, Mode], ...]
    rays: tuple[tuple[tuple[int, ...], Mode], ...]
    lames: tuple[tuple[tuple[int, ...], int, Mode], ...]
    # to-square -> the lists of squares that must be empty for a capture there
    captures: dict[int, tuple[tuple[int, ...], ...]]


@cache
def reach_table(geometry: Geometry, piece: PieceType, facing: str) -> tuple[Reach | None, ...]:
    """For every box square, the piece's resolved reach (None for holes)."""
    table: list[Reach | None] = []
    for sq in range(geometry.size):
        if not geometry.on_board[sq]:
            table.append(None)
            continue
        leaps: list[tuple[int, Mode]] = []
        rays: list[tuple[tuple[int, ...], Mode]] = []
        lames: list[tuple[tuple[int, ...], int, Mode]] = []
        captures: dict[int, list[tuple[int, ...]]] = {}
        for atom in piece.atoms:
            if isinstance(atom, Leap):
                for off in atom.offsets:
                    to = geometry.offset(sq, *orient(off, facing))
                    if to is not None:
                        leaps.append((to, atom.mode))
                        if atom.mode & Mode.CAPTURE:
                            captures.setdefault(to, []).append(())
            elif isinstance(atom, Slide):
                for direction in atom.directions:
                    dx, dy = orient(direction, facing)
                    ray: list[int] = []
                    cur: int | None = sq
                    while True:
                        assert cur is not None
                        cur = geometry.offset(cur, dx, dy)
                        if cur is None or (atom.limit and len(ray) >= atom.limit):
                            break
                        if atom.mode & Mode.CAPTURE:
                            captures.setdefault(cur, []).append(tuple(ray))
                        ray.append(cur)
                    if ray:
                        rays.append((tuple(ray), atom.mode))
            else:
                path = [geometry.offset(sq, *orient(p, facing)) for p in atom.path]
                to = geometry.offset(sq, *orient(atom.dest, facing))
                if to is None or any(p is None for p in path):
                    continue
                squares = tuple(p for p in path if p is not None)
                lames.append((squares, to, atom.mode))
                if atom.mode & Mode.CAPTURE:
                    captures.setdefault(to, []).append(squares)
        table.append(
            Reach(
                tuple(leaps),
                tuple(rays),
                tuple(lames),
                {to: tuple(paths) for to, paths in captures.items()},
            )
        )
    return tuple(table)
