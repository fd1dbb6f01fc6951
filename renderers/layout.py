"""Where everything goes in a board image, computed once per (geometry, size, orientation).

The picture, top to bottom:

- the status strip: whose turn it is (or the result), what the dice allow, a badge for a
  teleport or resurrection on offer, and the dice showing as numerals;
- the far player's bar: their name, pieces waiting or still to place, pieces lost;
- the board, with rank labels in a band on its left and file labels in a band below it;
- the near player's bar;
- the legend strip, when the picture has one (``legend.py``): the pieces a newcomer will
  not know, in ``LEGEND_COLUMNS`` columns of rows ``LEGEND_ROW`` image widths tall.

The image is exactly ``size`` pixels wide; the square is the largest whole number of
pixels for which the board plus the rank-label band plus a small right-hand pad fit in
that width::

    sq     = size // (files + COORD + PAD)     (COORD, PAD below; rounded down to int)
    height = strip + 2 * bar + ranks * sq + coord + legend + pad

with ``coord = round(COORD * sq)`` and ``pad = round(PAD * sq)``. The strip and the bars
are measured in image widths, not squares, so that their words read the same on a
10-file board as on an 8-file one: ``strip = max(MIN_BAND, round(STRIP * size))`` and
``bar = max(MIN_BAND, round(BAR * size))``. At 800 px the strip is 88 px, which Discord
shows on a phone (about 400 px wide) as 44 px: two lines of words and dice whose
numerals stand 20 px tall. The legend, too, is measured in image widths:
``legend = rows * round(LEGEND_ROW * size) + 2 * round(LEGEND_PAD * size)`` (0 without one).

Orientation lives here and only here: ``screen_cell`` maps a square to its
(column, row) on screen, and ``screen_facing`` turns a board facing into a picture one.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from variants.geometry import Geometry

COORD = 0.42  # the rank-label band (left) and the file-label band (below), in squares
PAD = 0.12  # the margin right of the board and below the bottom bar
STRIP = 0.11  # the status strip, in image widths
BAR = 0.072  # each player's bar, in image widths
MIN_BAND = 28  # the least height in pixels of the strip and the bars
LEGEND_ROW = 0.08  # one row of the legend strip, in image widths
LEGEND_PAD = 0.014  # the legend's margin above and below its rows, in image widths
LEGEND_COLUMNS = 2

MIN_SIZE = 160
MAX_SIZE = 4000

Box = tuple[int, int, int, int]


def screen_cell(geometry: Geometry, sq: int, flipped: bool) -> tuple[int, int]:
    """The (column, row) on screen of box square ``sq``; row 0 is the top.

    Unflipped, White sits at the bottom: the first file is on the left and the
    first rank at the bottom. Flipped turns the board half way round.
    """
    f, r = sq % geometry.width, sq // geometry.width
    if flipped:
        return geometry.width - 1 - f, r
    return f, geometry.height - 1 - r


_OPPOSITE = {"N": "S", "S": "N", "E": "W", "W": "E"}


def screen_facing(facing: str, flipped: bool) -> str:
    """A board facing (N toward the last rank) as a picture facing (N is up)."""
    return _OPPOSITE.get(facing, facing) if flipped else facing


@dataclass(frozen=True)
class Layout:
    """Pixel positions of every part of one board picture."""

    geometry: Geometry
    size: int
    flipped: bool
    sq: int
    width: int
    height: int
    strip: Box  # the status strip
    top_bar: Box  # the far player's bar
    bottom_bar: Box  # the near player's bar
    legend: Box  # the legend strip below it (no height when the picture has none)
    board: Box  # the box of squares (holes included)
    rank_band: Box  # left of the board
    file_band: Box  # below the board
    cells: tuple[Box, ...]  # box square -> its pixel box, holes included

    @property
    def top_color(self) -> int:
        """The colour (0 White, 1 Black) whose bar is at the top."""
        return 0 if self.flipped else 1

    def cell_at(self, col: int, row: int) -> Box:
        x0, y0 = self.board[0] + col * self.sq, self.board[1] + row * self.sq
        return x0, y0, x0 + self.sq, y0 + self.sq

    def square_centre(self, sq: int) -> tuple[int, int]:
        x0, y0, x1, y1 = self.cells[sq]
        return (x0 + x1) // 2, (y0 + y1) // 2


def square_px(geometry: Geometry, size: int) -> int:
    """The side of one square in pixels for an image ``size`` pixels wide."""
    return int(size // (geometry.width + COORD + PAD))


def legend_rows(entries: int) -> int:
    """How many rows a legend of ``entries`` pieces takes."""
    return -(-entries // LEGEND_COLUMNS)


def legend_px(size: int, rows: int) -> int:
    """The height of a legend of ``rows`` rows in a ``size``-pixel-wide picture."""
    if rows <= 0:
        return 0
    return rows * round(LEGEND_ROW * size) + 2 * round(LEGEND_PAD * size)


@lru_cache(maxsize=64)
def layout(geometry: Geometry, size: int, flipped: bool, legend_rows: int = 0) -> Layout:
    """The layout of a ``size``-pixel-wide picture of ``geometry``, with a legend strip of
    ``legend_rows`` rows (0: none)."""
    if not MIN_SIZE <= size <= MAX_SIZE:
        raise ValueError(f"image size must be {MIN_SIZE}..{MAX_SIZE} px, not {size}")
    sq = square_px(geometry, size)
    strip_h, bar_h = max(MIN_BAND, round(STRIP * size)), max(MIN_BAND, round(BAR * size))
    coord, pad = round(COORD * sq), round(PAD * sq)
    legend_h = legend_px(size, legend_rows)
    bw, bh = geometry.width * sq, geometry.height * sq
    x0 = coord
    y0 = strip_h + bar_h
    board = (x0, y0, x0 + bw, y0 + bh)
    height = strip_h + 2 * bar_h + bh + coord + legend_h + pad
    bar_end = board[3] + coord + bar_h
    cells: list[Box] = []
    for s in range(geometry.size):
        col, row = screen_cell(geometry, s, flipped)
        cx, cy = x0 + col * sq, y0 + row * sq
        cells.append((cx, cy, cx + sq, cy + sq))
    return Layout(
        geometry=geometry,
        size=size,
        flipped=flipped,
        sq=sq,
        width=size,
        height=height,
        strip=(0, 0, size, strip_h),
        top_bar=(0, strip_h, size, strip_h + bar_h),
        bottom_bar=(0, board[3] + coord, size, bar_end),
        legend=(0, bar_end, size, bar_end + legend_h),
        board=board,
        rank_band=(0, y0, x0, board[3]),
        file_band=(x0, board[3], board[2], board[3] + coord),
        cells=tuple(cells),
    )
