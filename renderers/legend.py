"""The legend strip under the board: the pieces a newcomer will not know (issue 27).

The variant says which pieces those are (``Facts.legend_kinds``: every Stone Garden
piece but the King, Guardener's Guardener, the Tquarc); each is drawn as on the
board, White's, on a light square, beside its name and a few words of how it moves
(its piece type's ``brief``). A Raven is drawn facing up the board, so that her beak
shows which way she faces.

The strip is part of the empty board (``emptyboard.py``): drawn once per (variant,
theme, size), it costs a picture one static band, compressed once (``board.py``).
``render_png(..., legend=False)`` leaves it out.

Layout, in ``LEGEND_COLUMNS`` columns (``layout.py``), each entry::

    [sprite]  Name  a few words of how it
              moves, on up to two lines

The words shrink (down to ``MIN_WORDS`` px) to fit two lines, and are cut with '...'
only when even that is too long.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from PIL import Image, ImageDraw
from PIL.ImageFont import FreeTypeFont
from PIL.ImageFont import ImageFont as _BitmapFont

from variants.sentence import word as said_word

from .dice import flat_text
from .layout import LEGEND_COLUMNS, LEGEND_PAD, Box, Layout
from .palette import colours
from .panels import crisp_icon
from .speech import ENGLISH, Speech
from .themes import RGB, Theme
from .typeface import Face, bundled_font, drawable, face_for

SPRITE = 0.82  # the sprite's tile, in rows
NAME = 0.034  # the name's font, in image widths
WORDS = 0.029  # the words' font, in image widths
MIN_WORDS = 9  # the least font of the words, in pixels
LINES = 2  # lines of words at most
ELLIPSIS = "\u2026"

Font = FreeTypeFont | _BitmapFont


@dataclass(frozen=True)
class Entry:
    """One piece in the legend."""

    sprite: str  # the sprite key, as on a square ('RA:N': a Raven facing up)
    name: str
    brief: str  # a few words of how it moves ('' when the variant gives none)


def legend_entries(rules: Any, speech: Speech = ENGLISH) -> tuple[Entry, ...]:
    """The legend of a variant's rules object: its ``legend_kinds``, in order, each
    piece's name and brief said by ``speech`` (both are marked ``N_`` where written)."""
    out = []
    for kind in getattr(rules, "legend_kinds", ()):
        t = rules.types[kind]
        sprite = f"{kind}:N" if t.facing_relative else kind
        brief = speech(said_word(t.brief)) if t.brief else ""
        out.append(Entry(sprite, speech(said_word(t.name)), brief))
    return tuple(out)


def entry_boxes(lay: Layout, n: int) -> list[Box]:
    """The box of each of ``n`` entries in ``lay``'s legend strip, row by row."""
    x0, y0, x1, y1 = lay.legend
    if n <= 0 or y1 <= y0:
        return []
    pad_y = round(LEGEND_PAD * lay.size)
    pad_x = lay.rank_band[2]  # the columns line up with the board's left edge
    columns = min(n, LEGEND_COLUMNS)  # a single piece has the whole width
    rows = -(-n // columns)
    row_h = (y1 - y0 - 2 * pad_y) // rows
    col_w = (x1 - x0 - 2 * pad_x) // columns
    boxes = []
    for i in range(n):
        r, c = divmod(i, columns)
        bx, by = x0 + pad_x + c * col_w, y0 + pad_y + r * row_h
        boxes.append((bx, by, bx + col_w, by + row_h))
    return boxes


def sprite_box(box: Box) -> Box:
    """Where an entry's sprite tile goes in its box: a square at the left, centred."""
    x0, y0, _, y1 = box
    side = round((y1 - y0) * SPRITE)
    top = y0 + (y1 - y0 - side) // 2
    return x0, top, x0 + side, top + side


def draw_legend(
    im: Image.Image,
    lay: Layout,
    entries: tuple[Entry, ...],
    theme: Theme,
    face: Face = "pillow",
) -> None:
    """Draw ``entries`` into ``lay.legend`` on ``im`` (RGB), in the font ``face`` (DejaVu
    Sans for all of them when one needs a letter that ``face`` lacks)."""
    c = colours(theme)
    d = ImageDraw.Draw(im)
    face = face_for(drawable("".join(e.name + e.brief for e in entries)), face)
    name_font = bundled_font(max(MIN_WORDS + 1, round(NAME * lay.size)), face)
    words_px = max(MIN_WORDS, round(WORDS * lay.size))
    for entry, box in zip(entries, entry_boxes(lay, len(entries)), strict=True):
        tx0, ty0, tx1, ty1 = sprite_box(box)
        side = tx1 - tx0
        d.rounded_rectangle(
            [tx0, ty0, tx1 - 1, ty1 - 1], radius=max(2, side // 6), fill=theme.light_square
        )
        icon = round(side * 0.9)
        spr = crisp_icon(entry.sprite, 0, icon, theme)
        inset = (side - icon) // 2
        im.paste(spr, (tx0 + inset, ty0 + inset), spr)
        gap = max(3, side // 5)
        left = tx1 + gap
        room = box[2] - gap - left
        lines, font = _flow(entry, name_font, words_px, room, face)
        _draw_lines(im, lines, name_font, font, left, (ty0 + ty1) / 2, c.text, c.dim_text)


Line = list[tuple[str, bool]]  # (word, is part of the name)


def _flow(
    entry: Entry, name_font: Font, words_px: int, room: float, face: Face
) -> tuple[list[Line], Font]:
    """The name, then the words, flowed into at most ``LINES`` lines of ``room`` pixels;
    the words' font shrinks to fit, and the words are cut with '...' when even the
    smallest is too wide."""
    name = drawable(entry.name)
    words = drawable(entry.brief).split()
    px = words_px
    while True:
        font = bundled_font(px, face)
        lines = _wrap(name, words, name_font, font, room)
        if len(lines) <= LINES or px <= MIN_WORDS:
            break
        px -= 1
    if len(lines) > LINES:
        lines = lines[:LINES]
        last = lines[-1]
        while last and _width(last + [(ELLIPSIS, False)], name_font, font) > room:
            last.pop()
        last.append((ELLIPSIS, False))
    return lines, font


def _wrap(name: str, words: list[str], name_font: Font, font: Font, room: float) -> list[Line]:
    lines: list[Line] = [[(name, True)]]
    for word in words:
        trial = lines[-1] + [(word, False)]
        if _width(trial, name_font, font) <= room:
            lines[-1] = trial
        else:
            lines.append([(word, False)])
    return lines


def _width(line: Line, name_font: Font, font: Font) -> float:
    total = 0.0
    for i, (word, is_name) in enumerate(line):
        f = name_font if is_name else font
        if i:
            total += font.getlength(" ") * (2 if line[i - 1][1] else 1)
        total += f.getlength(word)
    return total


def _draw_lines(
    im: Image.Image,
    lines: list[Line],
    name_font: Font,
    font: Font,
    left: float,
    middle: float,
    name_ink: RGB,
    words_ink: RGB,
) -> None:
    """The lines, their baselines spread evenly about ``middle``."""
    step = _size(name_font) * 1.2
    first = middle - step * (len(lines) - 1) / 2 + _size(name_font) * 0.35
    for n, line in enumerate(lines):
        x = left
        y = first + n * step
        for i, (word, is_name) in enumerate(line):
            f = name_font if is_name else font
            if i:
                x += font.getlength(" ") * (2 if line[i - 1][1] else 1)
            flat_text(
                im, (x, y), word, fill=name_ink if is_name else words_ink, font=f, anchor="ls"
            )
            x += f.getlength(word)


def _size(font: Font) -> float:
    return float(getattr(font, "size", 11))
