"""Piece values, derived from how far each piece reaches on a partly filled board.

The derivation (every number below comes out of ``derive`` and a test holds the
table to it):

1. *Expected mobility.* Fill every other square of the variant's board at random,
   each occupied with probability ``OCCUPANCY``, the occupant a friend or an enemy
   with even odds. A piece's mobility from a square is the expected number of
   squares it can move or capture to: a square reached by a *move* needs it empty,
   one reached by a *capture* needs an enemy there, and every square of the route
   (a slider's ray before it, a lame leaper's path) must be empty. Routes to one
   square are combined exactly (inclusion-exclusion over their paths). The
   mobility is averaged over all squares of the board, with the piece facing
   forward.
2. *Colour-bound pieces* (every offset keeps the square colour: Bishop, Tquarc,
   Guardener) reach only half the board; their mobility is multiplied by
   ``COLOUR_BOUND``.
3. *Scale.* Values are mobility scaled so that the Knight is worth 3 on the same
   board. Pawns that move like FIDE pawns are worth 1 by definition (their
   worth is promotion, which mobility does not see).

``OCCUPANCY`` = 0.24 and ``COLOUR_BOUND`` = 0.89 were fitted once, by least
squares, so that the FIDE pieces come out at B 3.25, R 5, Q 9: they give
N 3.00, B 3.24, R 5.12, Q 8.76. The same two numbers then price the fairy pieces:

============  ======================================================  ======
variant       piece                                                   value
============  ======================================================  ======
Guardener     Guardener G (F + D, colour-bound) on the 80-square      3.54
              board, Q 6.54, R 4.75, B 3.34, N 3, pawn 1, with dice
              weighting (below)
Tquarchess    Tquarc T (FAD, colour-bound)                            4.23
King's Guard  Pawn (steps and, assisted, captures like a King)        3.75
              Q 8.76, R 5.12, B 3.24, N 3 (their reach is their
              assist)
Stone Garden  Horse H 0.75 (plus promotion, ``engine.evaluate``),
              Ox O 2.72, Index I 2.13, Policeman P 3.06, Raven R 3.45
Jepps Random  FIDE: Q 8.76, R 5.12, B 3.24, N 3, pawn 1
============  ======================================================  ======

Dice that choose which pieces act (Guardener, RULES.md section 1): a piece acts
only on a turn whose dice permit it. Half a piece's worth is its standing
presence (it blocks, it threatens, it will move later) and half is its activity,
scaled by the chance that the dice let it act (the variant's ``act_chance``; 1
where every piece acts on every turn). In Guardener: Knight, Bishop, Rook and
pawn captures 10/16 (their number on either die, or any double), the Queen 4/16
(doubles only), King and Guardener 1 (their plain moves are free). Values are
then rescaled so that the Knight is still 3: Queen 8.50 x 0.625 / 0.8125 = 6.54,
Guardener 2.88 / 0.8125 = 3.54.

A variant without a Knight (Stone Garden) is scaled by a FIDE Knight's mobility
on its own board.

Where pawns are the army (``SearchHints.pawn_army``: King's Guard) they are priced
by what they reach as capturers, like any piece, rather than at 1.

The same expected mobility, square by square, gives each piece's placement
bonus (``mobility_table``): a Knight in the corner reaches 2 squares, in the
centre 8.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from itertools import combinations

import variants
from variants.chess import KNIGHT
from variants.pieces import Lame, Leap, Mode, PieceType, Slide

OCCUPANCY = 0.24
COLOUR_BOUND = 0.89
KNIGHT_VALUE = 3.0
PAWN_VALUE = 1.0

_FACING = {"N": (0, 1), "E": (1, 0), "S": (0, -1), "W": (-1, 0)}


def orient(offset: tuple[int, int], facing: str) -> tuple[int, int]:
    """A (right, ahead) offset turned to the board for a piece facing that way."""
    x, y = offset
    fx, fy = _FACING[facing]
    return (x * fy + y * fx, -x * fx + y * fy)


def routes(
    rules: variants.Variant, kind: str, sq: int, facing: str, t: PieceType | None = None
) -> dict[int, list[tuple[frozenset[int], Mode]]]:
    """Every square the piece on ``sq`` may reach on its own, with the squares that
    must be empty on the way and how it may arrive (move, capture or both). ``t``:
    a piece type to use instead of the variant's ``kind``."""
    g = rules.geometry
    out: dict[int, list[tuple[frozenset[int], Mode]]] = {}
    for atom in (t or rules.types[kind]).atoms:
        if isinstance(atom, Leap):
            for off in atom.offsets:
                to = g.offset(sq, *orient(off, facing))
                if to is not None:
                    out.setdefault(to, []).append((frozenset(), atom.mode))
        elif isinstance(atom, Slide):
            for direction in atom.directions:
                dx, dy = orient(direction, facing)
                path: list[int] = []
                cur: int | None = sq
                while True:
                    assert cur is not None
                    cur = g.offset(cur, dx, dy)
                    if cur is None or (atom.limit and len(path) >= atom.limit):
                        break
                    out.setdefault(cur, []).append((frozenset(path), atom.mode))
                    path.append(cur)
        elif isinstance(atom, Lame):
            steps = [g.offset(sq, *orient(p, facing)) for p in atom.path]
            to = g.offset(sq, *orient(atom.dest, facing))
            if to is None or any(s is None for s in steps):
                continue
            out.setdefault(to, []).append((frozenset(s for s in steps if s is not None), atom.mode))
    return out


def _open(paths: Iterable[frozenset[int]], empty: float) -> float:
    """Probability that at least one of the paths is all empty."""
    unique = list(set(paths))
    total = 0.0
    for k in range(1, len(unique) + 1):
        for group in combinations(unique, k):
            squares = frozenset().union(*group)
            total += (-1) ** (k + 1) * empty ** len(squares)
    return total


def square_mobility(
    rules: variants.Variant,
    kind: str,
    sq: int,
    facing: str,
    as_capturer: bool = False,
    t: PieceType | None = None,
) -> float:
    """Expected number of squares reached from ``sq`` at ``OCCUPANCY``.
    ``as_capturer`` counts move-only atoms as moving and capturing alike."""
    rho = OCCUPANCY
    total = 0.0
    for rs in routes(rules, kind, sq, facing, t).values():
        moves = [p for p, m in rs if m & Mode.MOVE]
        takes = [p for p, m in rs if m & Mode.CAPTURE or as_capturer]
        total += (1 - rho) * _open(moves, 1 - rho) + rho / 2 * _open(takes, 1 - rho)
    return total


def is_colour_bound(t: PieceType) -> bool:
    offsets: list[tuple[int, int]] = []
    for atom in t.atoms:
        if isinstance(atom, Leap):
            offsets.extend(atom.offsets)
        elif isinstance(atom, Slide):
            offsets.extend(atom.directions)
        elif isinstance(atom, Lame):
            offsets.append(atom.dest)
    return bool(offsets) and all((x + y) % 2 == 0 for x, y in offsets)


@cache
def mobility_table(key: str, kind: str, facing: str) -> tuple[float, ...]:
    """Expected mobility of a piece from every square of the box (0 on holes)."""
    rules = variants.rules(key)
    capturer = rules.search.pawn_army and rules.types[kind].is_pawn
    on = rules.geometry.on_board
    return tuple(
        square_mobility(rules, kind, sq, facing, capturer) if on[sq] else 0.0
        for sq in range(rules.geometry.size)
    )


def mean_mobility(key: str, kind: str) -> float:
    rules = variants.rules(key)
    table = mobility_table(key, kind, "N")
    return sum(table[sq] for sq in rules.geometry.squares) / len(rules.geometry.squares)


def knight_mobility(key: str) -> float:
    """The mean mobility of a FIDE Knight on the variant's board (its own Knight's, if
    it has one), the yardstick of every value."""
    rules = variants.rules(key)
    if "N" in rules.types:
        return mean_mobility(key, "N")
    squares = rules.geometry.squares
    return sum(square_mobility(rules, "N", sq, "N", t=KNIGHT) for sq in squares) / len(squares)


@cache
def derive(key: str) -> dict[str, float]:
    """Every piece's value in pawns, royal pieces left out."""
    rules = variants.rules(key)
    knight = knight_mobility(key)
    army = rules.search.pawn_army
    act = rules.act_chance
    out: dict[str, float] = {}
    for kind, t in rules.types.items():
        if t.is_royal:
            continue
        if t.is_pawn and not army:
            out[kind] = PAWN_VALUE
            continue
        m = mean_mobility(key, kind) * (COLOUR_BOUND if is_colour_bound(t) else 1.0)
        value = KNIGHT_VALUE * m / knight
        # Half a piece's worth is its activity, scaled by how often the dice let it act.
        value *= (0.5 + 0.5 * act(kind)) / (0.5 + 0.5 * act("N"))
        out[kind] = round(value, 2)
    return out


__all__ = ["COLOUR_BOUND", "OCCUPANCY", "derive", "mobility_table", "orient"]
