"""Board geometry as data: named squares, holes, colour and "forward".

A square is an ``int`` index ``file_index + rank_index * width`` into a box of
``width * height``; holes are box squares that are not on the board. Every
other module reads squares through this one: naming, parsing, colour,
orientation and forward direction live here and nowhere else.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

WHITE = 0
BLACK = 1
COLOR_NAMES = ("white", "black")


def color_name(color: int) -> str:
    return COLOR_NAMES[color]


def parse_color(name: str) -> int:
    try:
        return COLOR_NAMES.index(name.lower())
    except ValueError:
        raise ValueError(f"unknown colour {name!r}: say 'white' or 'black'") from None


def forward(color: int) -> int:
    """Forward, in ranks: toward the top rank for White, the bottom for Black."""
    return 1 if color == WHITE else -1


@dataclass(frozen=True)
class Geometry:
    """A rectangular box of files x ranks, less the holes.

    ``files`` are the file letters left to right; ``first_rank`` is the label of
    the bottom rank. ``colour_base`` is the number RULES.md gives the leftmost
    file (a=1 on 8x8, w=0 on the Guardener board); a square is dark when
    file number + rank label is even, so a1 is dark.
    """

    files: str
    height: int
    first_rank: int = 1
    holes: frozenset[str] = field(default_factory=frozenset)
    colour_base: int = 1

    @cached_property
    def width(self) -> int:
        return len(self.files)

    @cached_property
    def size(self) -> int:
        return self.width * self.height

    @cached_property
    def _hole_indexes(self) -> frozenset[int]:
        return frozenset(self._parse_box(name) for name in self.holes)

    @cached_property
    def squares(self) -> tuple[int, ...]:
        """Every square on the board, bottom rank first, left to right."""
        return tuple(sq for sq in range(self.size) if sq not in self._hole_indexes)

    @cached_property
    def on_board(self) -> tuple[bool, ...]:
        holes = self._hole_indexes
        return tuple(sq not in holes for sq in range(self.size))

    @cached_property
    def names(self) -> tuple[str, ...]:
        return tuple(
            f"{self.files[sq % self.width]}{sq // self.width + self.first_rank}"
            for sq in range(self.size)
        )

    @cached_property
    def name_index(self) -> dict[str, int]:
        """Every square of the box (holes too) by name (``Notation.named_squares``)."""
        return {name: sq for sq, name in enumerate(self.names)}

    @cached_property
    def name_lengths(self) -> tuple[int, ...]:
        return tuple(sorted({len(name) for name in self.names}))

    @cached_property
    def _by_name(self) -> dict[str, int]:
        return {self.names[sq]: sq for sq in self.squares}

    def _parse_box(self, name: str) -> int:
        f = self.files.index(name[0])
        r = int(name[1:]) - self.first_rank
        return f + r * self.width

    def square_name(self, sq: int) -> str:
        return self.names[sq]

    def parse_square(self, name: str) -> int:
        """The square called ``name``; ValueError if there is no such square."""
        try:
            return self._by_name[name]
        except KeyError:
            raise ValueError(f"{name!r} is not a square of this board") from None

    def is_square_name(self, name: str) -> bool:
        return name in self._by_name

    def file_of(self, sq: int) -> int:
        return sq % self.width

    def rank_of(self, sq: int) -> int:
        """The rank index, 0 for the bottom rank."""
        return sq // self.width

    def rank_label(self, sq: int) -> int:
        return sq // self.width + self.first_rank

    def file_letter(self, sq: int) -> str:
        return self.files[sq % self.width]

    def square_at(self, file: int, rank: int) -> int | None:
        """The square at box coordinates, or None when off the board or a hole."""
        if 0 <= file < self.width and 0 <= rank < self.height:
            sq = file + rank * self.width
            if self.on_board[sq]:
                return sq
        return None

    def offset(self, sq: int, df: int, dr: int) -> int | None:
        return self.square_at(sq % self.width + df, sq // self.width + dr)

    def is_dark(self, sq: int) -> bool:
        """a1 is dark: file number + rank label even (RULES.md, common terms)."""
        return (self.file_of(sq) + self.colour_base + self.rank_label(sq)) % 2 == 0

    @cached_property
    def dark(self) -> tuple[bool, ...]:
        return tuple(self.is_dark(sq) for sq in range(self.size))

    def rank_squares(self, label: int) -> tuple[int, ...]:
        """The squares on the rank with this label, left to right."""
        known = self._ranks.get(label)
        if known is None:
            r = label - self.first_rank
            known = self._ranks[label] = tuple(sq for sq in self.squares if sq // self.width == r)
        return known

    @cached_property
    def _ranks(self) -> dict[int, tuple[int, ...]]:
        return {}

    @property
    def last_rank_label(self) -> int:
        return self.first_rank + self.height - 1


STANDARD = Geometry(files="abcdefgh", height=8)
