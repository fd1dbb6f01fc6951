"""Compiled move tables: a variant's pieces turned into bitboard lookups.

A square ``sq`` is bit ``1 << sq`` of a Python int, so one int holds a set of
squares on any board (the Guardener box has 100 squares and 20 holes). Each
*shape* (a piece type, its colour and the way it faces) gets, for every square:

- leap masks: squares it leaps to, split by mode (move and capture, move only,
  capture only);
- slide lines: each a ``Line`` whose reach (the squares up to and including the
  first piece in each direction) is looked up by the occupied squares on it;
- lame paths: a mask of squares that must be empty, and the destinations it opens.

Attacks are read outward from the target square: the squares a shape could
capture ``sq`` from (reverse leap masks, the same lines, reverse lame paths),
intersected with that shape's bitboard. Everything is built lazily, the first
time a variant is used (``Variant.lay``), never at import.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from .geometry import WHITE, Geometry
from .pieces import FACINGS, Lame, Leap, Mode, Offset, PieceType, Slide, orient
from .position import Move, Position

if TYPE_CHECKING:
    from .base import Variant

BOTH = int(Mode.BOTH)
EMIT_CACHE = 256  # target masks remembered per shape and square
MOVE_ONLY = int(Mode.MOVE)
CAPTURE_ONLY = int(Mode.CAPTURE)


class Line:
    """Rays from one square (one, two or more directions). ``reach(occ)`` is the
    set of squares a slider sees along them: each ray up to and including its
    first occupied square. Looked up by the occupied inner squares; the table
    holds at most 2**(inner squares) entries, filled as they are met."""

    __slots__ = ("dirs", "rays", "mask", "full", "tab")

    def __init__(self, dirs: tuple[Offset, ...], rays: Sequence[Sequence[int]]) -> None:
        self.dirs = dirs
        self.rays = tuple(tuple(r) for r in rays if r)
        self.full = 0
        self.mask = 0
        for ray in self.rays:
            for s in ray:
                self.full |= 1 << s
            for s in ray[:-1]:
                self.mask |= 1 << s
        self.tab: dict[int, int] = {}

    def reach(self, occ: int) -> int:
        k = occ & self.mask
        r = self.tab.get(k)
        if r is None:
            r = self.fill(k)
        return r

    def fill(self, k: int) -> int:
        r = 0
        for ray in self.rays:
            for s in ray:
                r |= 1 << s
                if k >> s & 1:
                    break
        self.tab[k] = r
        return r


# One square's compiled moves for one shape:
# (leap both, leap move-only, leap capture-only, lines, lames)
# lines: ((Line, mode), ...); lames: ((path mask, move dests, capture dests), ...)
SquareMoves = tuple[int, int, int, tuple[tuple[Line, int], ...], tuple[tuple[int, int, int], ...]]


class Shape:
    """A piece type as one colour sees it, facing one way, compiled per square."""

    __slots__ = (
        "index",
        "ptype",
        "kind",
        "color",
        "facing",
        "is_pawn",
        "is_royal",
        "gen",
        "order",
        "emit",
        "capture_lines",
        "promote",
        "span",
        "rspan",
    )

    def moves(self, frm: int, t: int) -> tuple[Move, ...]:
        """The plain moves from ``frm`` to the squares of ``t``, in atom order."""
        cache = self.emit[frm]
        ms = cache.get(t)
        if ms is None:
            row = move_row(frm)
            out = []
            for to in self.order[frm]:
                if t >> to & 1:
                    m = row[to]
                    if m is None:
                        m = row[to] = Move(frm, to)
                    out.append(m)
            ms = tuple(out)
            if len(cache) < EMIT_CACHE:
                cache[t] = ms
        return ms

    def __init__(self, index: int, ptype: PieceType, color: int, facing: str) -> None:
        self.index = index
        self.ptype = ptype
        self.kind = ptype.id
        self.color = color
        self.facing = facing
        self.is_pawn = ptype.is_pawn
        self.is_royal = ptype.is_royal
        self.gen: list[SquareMoves | None] = []
        # Per square, every square the atoms can reach, in the order the atoms list
        # them (leaps, then slides near to far, then lames): moves are listed so.
        self.order: list[tuple[int, ...]] = []
        # Per square, target mask -> the moves in that order (filled as met).
        self.emit: list[dict[int, tuple[Move, ...]]] = []
        # direction pairs / single directions it captures along by sliding
        self.capture_lines: list[tuple[Offset, ...]] = []
        self.promote = 0  # squares where it must promote (set by the variant)
        # Per square, every square its atoms could ever take it to (an empty board's
        # reach): generation for a few destinations skips pieces that cannot get there.
        self.span: list[int] = []
        # Per square, the squares it could ever come from (``span`` read backwards).
        self.rspan: list[int] = []


def _ray(g: Geometry, sq: int, d: Offset, limit: int = 0) -> list[int]:
    out: list[int] = []
    cur: int | None = sq
    while True:
        assert cur is not None
        cur = g.offset(cur, d[0], d[1])
        if cur is None or (limit and len(out) >= limit):
            return out
        out.append(cur)


def _line_groups(directions: Sequence[Offset]) -> list[tuple[Offset, ...]]:
    """Directions grouped into lines: a direction and its opposite together."""
    out: list[tuple[Offset, ...]] = []
    seen: set[Offset] = set()
    for d in directions:
        if d in seen:
            continue
        back = (-d[0], -d[1])
        if back in directions and back not in seen:
            out.append((d, back))
            seen.update((d, back))
        else:
            out.append((d,))
            seen.add(d)
    return out


_LINES_LOCK = threading.Lock()
_LINES: dict[tuple[Geometry, tuple[Offset, ...]], list[Line | None]] = {}


def lines_for(g: Geometry, dirs: tuple[Offset, ...]) -> list[Line | None]:
    """The ``Line`` of these directions from every square (shared per geometry)."""
    dirs = tuple(sorted(dirs))
    key = (g, dirs)
    table = _LINES.get(key)
    if table is None:
        with _LINES_LOCK:
            table = _LINES.get(key)
            if table is None:
                table = [
                    Line(dirs, [_ray(g, sq, d) for d in dirs]) if g.on_board[sq] else None
                    for sq in range(g.size)
                ]
                _LINES[key] = table
    return table


def compile_shape(shape: Shape, g: Geometry) -> None:
    """Fill ``shape.gen``: every square's leaps, lines and lames."""
    facing = shape.facing
    atoms = shape.ptype.atoms
    slides: list[tuple[tuple[Offset, ...], int]] = []
    for atom in atoms:
        if isinstance(atom, Slide) and not atom.limit:
            dirs = [orient(d, facing) for d in atom.directions]
            for group in _line_groups(dirs):
                group = tuple(sorted(group))
                slides.append((group, int(atom.mode)))
                if atom.mode & Mode.CAPTURE:
                    shape.capture_lines.append(group)
    line_tables = [(lines_for(g, group), mode) for group, mode in slides]
    for sq in range(g.size):
        shape.emit.append({})
        if not g.on_board[sq]:
            shape.gen.append(None)
            shape.order.append(())
            shape.span.append(0)
            continue
        both = move = capture = 0
        leap_order: list[int] = []
        ray_order: list[int] = []
        lame_order: list[int] = []
        lames: dict[int, list[int]] = {}

        def lame(
            path: list[int | None],
            to: int | None,
            mode: int,
            listed: bool = True,
            lames: dict[int, list[int]] = lames,
            lame_order: list[int] = lame_order,
        ) -> None:
            if to is None or any(p is None for p in path):
                return
            pm = 0
            for p in path:
                assert p is not None
                pm |= 1 << p
            if listed:
                lame_order.append(to)
            entry = lames.setdefault(pm, [0, 0])
            if mode & MOVE_ONLY:
                entry[0] |= 1 << to
            if mode & CAPTURE_ONLY:
                entry[1] |= 1 << to

        for atom in atoms:
            if isinstance(atom, Leap):
                for off in atom.offsets:
                    to = g.offset(sq, *orient(off, facing))
                    if to is None:
                        continue
                    leap_order.append(to)
                    if atom.mode == Mode.BOTH:
                        both |= 1 << to
                    elif atom.mode == Mode.MOVE:
                        move |= 1 << to
                    else:
                        capture |= 1 << to
            elif isinstance(atom, Slide):
                for d in atom.directions:
                    ray = _ray(g, sq, orient(d, facing), atom.limit)
                    ray_order.extend(ray)
                    if atom.limit:
                        # A limited slide is a set of lame leaps: each step needs the ones
                        # before it empty.
                        for i, to in enumerate(ray):
                            lame(list(ray[:i]), to, int(atom.mode), listed=False)
            elif isinstance(atom, Lame):
                path = [g.offset(sq, *orient(p, facing)) for p in atom.path]
                lame(path, g.offset(sq, *orient(atom.dest, facing)), int(atom.mode))
        lines = tuple(
            (line, mode)
            for table, mode in line_tables
            if (line := table[sq]) is not None and line.rays
        )
        shape.gen.append(
            (both, move, capture, lines, tuple((pm, q, c) for pm, (q, c) in lames.items()))
        )
        span = both | move | capture
        for line, _ in lines:
            span |= line.full
        for q, c in lames.values():
            span |= q | c
        shape.span.append(span)
        shape.order.append(tuple(dict.fromkeys(leap_order + ray_order + lame_order)))
    rspan = [0] * g.size
    for frm, span in enumerate(shape.span):
        while span:
            b = span & -span
            span ^= b
            rspan[b.bit_length() - 1] |= 1 << frm
    shape.rspan = rspan


class Layout:
    """A variant's compiled tables: its shapes and how to find attacks."""

    def __init__(self, rules: Variant) -> None:
        from .position import ZOBRIST_SQUARES

        self.rules = rules
        g = rules.geometry
        if g.size > ZOBRIST_SQUARES:
            raise ValueError(f"boards of more than {ZOBRIST_SQUARES} squares are not supported")
        self.geometry = g
        self.size = g.size
        self.full = sum(1 << sq for sq in g.squares)
        self.shapes: list[Shape] = []
        self._index: dict[tuple[PieceType, int, str], int] = {}
        for ptype, color, facing in rules.shape_keys():
            shape = Shape(len(self.shapes), ptype, color, facing)
            compile_shape(shape, g)
            self._index[(ptype, color, facing)] = shape.index
            self.shapes.append(shape)
        self.by_color: tuple[tuple[Shape, ...], tuple[Shape, ...]] = (
            tuple(s for s in self.shapes if s.color == WHITE),
            tuple(s for s in self.shapes if s.color != WHITE),
        )
        self.shape_of: list[int] = []  # piece code -> shape index
        # (colour, kind) -> the indexes of its shapes (a facing-relative kind has several)
        self.kind_shapes: dict[tuple[int, str], tuple[int, ...]] = {}
        for shape in self.shapes:
            key = (shape.color, shape.kind)
            self.kind_shapes[key] = self.kind_shapes.get(key, ()) + (shape.index,)
        self._lock = threading.Lock()
        self.attack_plans = (self._attack_plan(WHITE), self._attack_plan(1 - WHITE))
        # Per colour and square: (shape index, shape, the squares it could come from), for
        # each shape that can reach the square at all (``Variant.ordinary_moves`` to one).
        self.sources: tuple[list[tuple[tuple[int, Shape, int], ...]], ...] = tuple(
            [
                tuple((s.index, s, s.rspan[sq]) for s in side if s.rspan[sq])
                for sq in range(self.size)
            ]
            for side in self.by_color
        )
        rules.prepare_layout(self)

    def grow(self, code: int) -> int:
        """The shape of the piece with this code: the table is filled for every
        piece value known so far (-1 for kinds this variant does not have)."""
        from .position import piece_value, piece_values

        with self._lock:
            table = list(self.shape_of)
            for c in range(len(table), piece_values()):
                kind, color, state = piece_value(c)
                if kind in self.rules.types:
                    table.append(self._index[self.rules.shape_for(kind, color, state)])
                else:
                    table.append(-1)
            self.shape_of = table
        s = table[code]
        if s < 0:
            raise ValueError(f"{piece_value(code)} is not a piece of {self.rules.key}")
        return s

    def attach(self, pos: Position) -> Position:
        """Build the bitboards and key of ``pos`` from its board."""
        pos.lay = self
        pos.bb = [0] * len(self.shapes)
        pos.occ = [0, 0]
        pos.zkey = 0
        board = pos.board
        for sq, p in enumerate(board):
            if p is not None:
                board[sq] = None
                pos.put(sq, p)
        return pos

    # ----- attacks -----------------------------------------------------------

    def _attack_plan(self, color: int) -> AttackPlan:
        leaps: list[tuple[int, list[int]]] = []
        lames: list[tuple[int, list[tuple[tuple[int, int], ...]], list[int]]] = []
        groups: dict[tuple[Offset, ...], list[int]] = {}
        for shape in self.by_color[color]:
            rev = [0] * self.size
            rev_lame: list[list[tuple[int, int]]] = [[] for _ in range(self.size)]
            for frm, entry in enumerate(shape.gen):
                if entry is None:
                    continue
                both, _, capture, _, lame_list = entry
                targets = both | capture
                while targets:
                    b = targets & -targets
                    rev[b.bit_length() - 1] |= 1 << frm
                    targets ^= b
                for pm, _, cd in lame_list:
                    while cd:
                        b = cd & -cd
                        rev_lame[b.bit_length() - 1].append((1 << frm, pm))
                        cd ^= b
            if any(rev):
                leaps.append((shape.index, rev))
            if any(rev_lame):
                lames.append(
                    (
                        shape.index,
                        [tuple(e) for e in rev_lame],
                        [_union(f for f, _ in e) for e in rev_lame],
                    )
                )
            for group in shape.capture_lines:
                # Seen from the target, an attacker sliding along d stands in direction -d.
                back = tuple(sorted((-d[0], -d[1]) for d in group))
                groups.setdefault(back, []).append(shape.index)
        slides = [
            (lines_for(self.geometry, dirs), tuple(shapes)) for dirs, shapes in groups.items()
        ]
        sets: dict[tuple[int, ...], list[list[Line | None]]] = {}
        for lines, shapes in slides:
            sets.setdefault(shapes, []).append(lines)
        spans = {
            k: [_union(_full(t[sq]) for t in v) for sq in range(self.size)] for k, v in sets.items()
        }
        return AttackPlan(leaps, slides, lames, [(k, tuple(v), spans[k]) for k, v in sets.items()])


def _full(line: Line | None) -> int:
    return 0 if line is None else line.full


def _union(bits: Iterable[int]) -> int:
    """The squares of several bitboards together (a square may be in more than one)."""
    out = 0
    for b in bits:
        out |= b
    return out


class AttackPlan:
    """How to find one side's attackers of a square (see ``Variant.attackers``)."""

    __slots__ = ("leaps", "slides", "lames", "slide_sets")

    def __init__(
        self,
        leaps: list[tuple[int, list[int]]],
        slides: list[tuple[list[Line | None], tuple[int, ...]]],
        lames: list[tuple[int, list[tuple[tuple[int, int], ...]], list[int]]],
        slide_sets: list[tuple[tuple[int, ...], tuple[list[Line | None], ...], list[int]]],
    ) -> None:
        self.leaps = tuple(leaps)
        # (lines by square, the shapes sliding along them): one entry per direction group
        self.slides = tuple(slides)
        self.lames = tuple(lames)
        # The same, by the set of shapes: (shapes, their groups' lines by square, and by
        # square every line's squares together: no slider there, no line to read)
        self.slide_sets = tuple(slide_sets)


# ----- moves as shared values ------------------------------------------------------

_ROWS: list[list[Move | None]] = []
_ROWS_LOCK = threading.Lock()


def move_row(frm: int) -> list[Move | None]:
    """Shared ``Move(frm, to)`` values from ``frm`` (filled as they are needed)."""
    if frm >= len(_ROWS):
        with _ROWS_LOCK:
            while frm >= len(_ROWS):
                _ROWS.append([None] * 128)
    return _ROWS[frm]


def plain_move(frm: int, to: int) -> Move:
    row = move_row(frm)
    m = row[to]
    if m is None:
        m = row[to] = Move(frm, to)
    return m


# ----- stable hashing of state for repetition keys ----------------------------------

_STABLE: dict[Any, int] = {}


def stable_hash(value: Any) -> int:
    """A 64-bit hash of a plain value (ints, strings, tuples, frozensets, None) that is
    the same in every process (``hash`` of a string is not)."""
    h = _STABLE.get(value)
    if h is None:
        digest = hashlib.blake2b(_canon(value).encode(), digest_size=8).digest()
        h = int.from_bytes(digest, "big")
        if len(_STABLE) > 100_000:
            _STABLE.clear()
        _STABLE[value] = h
    return h


def _canon(value: Any) -> str:
    # Values that compare equal must write the same: True == 1, so bools write as ints.
    if isinstance(value, bool | int):
        return f"i{int(value)}"
    if isinstance(value, str):
        return "s" + repr(value)
    if value is None:
        return "n"
    if isinstance(value, tuple | list):
        return "(" + ",".join(_canon(v) for v in value) + ")"
    if isinstance(value, frozenset | set):
        return "{" + ",".join(sorted(_canon(v) for v in value)) + "}"
    if isinstance(value, dict):
        return "<" + ",".join(sorted(_canon(k) + ":" + _canon(v) for k, v in value.items())) + ">"
    return type(value).__name__ + repr(value)


FACING_LETTERS = FACINGS
