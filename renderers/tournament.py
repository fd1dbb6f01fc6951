"""A tournament's standings as an image (issue 30), drawn with Pillow only.

- **Swiss**: one row per player in ranking order: rank, name, then one cell per round
  (the result, on a square of the colour played, with the opponent's rank in the
  corner; ``B`` a bye, ``+``/``-`` a forfeit won or lost, empty a round missed), then
  points and the tiebreaks.
- **Round robin**: a crosstable: row *i*, column *j* holds what player *i* scored
  against player *j* (two results in a double round robin), the diagonal shaded.

The caller hands plain values (``StandingsTable``): this module knows nothing of
tournaments, only of a table to draw. Sized for Discord: legible at 400 px wide (the
width of an embedded image on a phone): text is drawn at 2x and the image stays under
about 1000 px wide for up to 16 columns of results.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, replace
from typing import Literal

from PIL import Image, ImageDraw

from renderers.speech import ENGLISH, Speech
from renderers.typeface import Font, bundled_font, drawable, face_for
from variants.sentence import N_, word

BACKGROUND = (250, 248, 243)
INK = (34, 34, 34)
FAINT = (120, 116, 108)
RULE = (214, 208, 196)
HEADER = (236, 230, 218)
WHITE_SQUARE = (255, 255, 255)
BLACK_SQUARE = (60, 60, 64)
NEUTRAL = (228, 224, 214)
DIAGONAL = (190, 184, 172)
WINNER = (252, 236, 180)

ROW_H = 34
PAD = 14
TEXT_PX = 22
SMALL_PX = 12
TITLE_PX = 26
MAX_NAME_W = 180
# The header's words, said by the caller's speech (issue 27).
PLAYER, POINTS = N_("Player"), N_("Pts")


@dataclass(frozen=True)
class Cell:
    """One result: ``text`` (``1``, ``½``, ``0``, ``+``, ``-``, ``B``, or empty),
    ``colour`` played (``w``/``b``/``None``) and a small ``note`` (the opponent's rank)."""

    text: str = ""
    colour: str | None = None
    note: str = ""


@dataclass(frozen=True)
class TableRow:
    rank: str
    name: str
    points: str
    tiebreaks: tuple[str, ...]
    cells: tuple[Cell, ...]
    highlight: bool = False  # the winner's row


@dataclass(frozen=True)
class StandingsTable:
    """The table to draw. ``subtitle`` and ``tiebreaks`` may be ``Said`` (the caller's
    words): the picture draws them as its ``speech`` says them."""

    title: str
    subtitle: str
    kind: Literal["swiss", "crosstable"]
    columns: tuple[str, ...]  # round numbers, or the players' numbers (crosstable)
    tiebreaks: tuple[str, ...]  # short titles, in the order they count
    rows: tuple[TableRow, ...]


def _width(text: str, px: int) -> float:
    return float(_font(px, text).getlength(_plain(text)))


def _font(px: int, text: str) -> Font:
    """The font that draws ``text`` (``½`` is drawn apart, as a fraction)."""
    return bundled_font(px, face_for(drawable(text.replace("½", ""))))


def _plain(text: str) -> str:
    return drawable(text.replace("½", "\x00")).replace("\x00", "½")


def _draw_text(
    draw: ImageDraw.ImageDraw,
    x: float,
    y: float,
    text: str,
    px: int,
    fill: tuple[int, int, int],
    anchor: str = "lm",
) -> None:
    """Text with ``½`` drawn as a small fraction (the bundled font has no such glyph)."""
    font = _font(px, text)
    if "½" not in text:
        draw.text((x, y), _plain(text), font=font, fill=fill, anchor=anchor)
        return
    whole = text.replace("½", "")
    small = bundled_font(max(8, int(px * 0.62)))
    half_w = small.getlength("1") + small.getlength("2") * 0.9
    total = font.getlength(_plain(whole)) + half_w
    left = x - total / 2 if anchor[0] == "m" else (x - total if anchor[0] == "r" else x)
    if whole:
        draw.text((left, y), _plain(whole), font=font, fill=fill, anchor="lm")
        left += font.getlength(_plain(whole))
    draw.text((left, y - px * 0.22), "1", font=small, fill=fill, anchor="lm")
    draw.line(
        [(left + half_w * 0.05, y + px * 0.35), (left + half_w * 0.95, y - px * 0.35)],
        fill=fill,
        width=1,
    )
    draw.text((left + half_w * 0.5, y + px * 0.2), "2", font=small, fill=fill, anchor="lm")


def _fit_name(name: str, room: float) -> str:
    text = _plain(name)
    while len(text) > 1 and _width(text, TEXT_PX) > room:
        text = text[:-2].rstrip() + "…"
    return text


def render_standings(table: StandingsTable, speech: Speech = ENGLISH) -> bytes:
    """The table as a PNG (see the module), its words said by ``speech``."""
    return _png(render_standings_image(table, speech))


def spoken(table: StandingsTable, speech: Speech) -> StandingsTable:
    """``table`` with its words (the subtitle, the tiebreaks' titles) said by ``speech``."""
    return replace(
        table,
        subtitle=speech(table.subtitle),
        tiebreaks=tuple(speech(t) for t in table.tiebreaks),
    )


def render_standings_image(table: StandingsTable, speech: Speech = ENGLISH) -> Image.Image:
    table = spoken(table, speech)
    columns = len(table.columns)
    cell_w = 38 if table.kind == "swiss" else 36
    if table.kind == "crosstable" and any(len(c.text) > 2 for r in table.rows for c in r.cells):
        cell_w = 56  # a double round robin: two results a cell
    rank_w = 34
    name_w = min(MAX_NAME_W, max([_width(r.name, TEXT_PX) for r in table.rows] + [80.0]) + 12)
    points_w = 50
    tb_w = [max(50.0, _width(t, SMALL_PX) + 12) for t in table.tiebreaks]
    width = int(PAD * 2 + rank_w + name_w + columns * cell_w + points_w + sum(tb_w))
    width = max(width, int(_width(table.title, TITLE_PX)) + 2 * PAD, 360)
    top = PAD + TITLE_PX + 10 + (SMALL_PX + 10 if table.subtitle else 0)
    height = top + ROW_H * (len(table.rows) + 1) + PAD
    image = Image.new("RGB", (width, height), BACKGROUND)
    draw = ImageDraw.Draw(image)
    draw.text(
        (PAD, PAD + TITLE_PX / 2),
        _plain(table.title),
        font=_font(TITLE_PX, table.title),
        fill=INK,
        anchor="lm",
    )
    if table.subtitle:
        draw.text(
            (PAD, PAD + TITLE_PX + 6 + SMALL_PX / 2),
            _plain(table.subtitle),
            font=_font(SMALL_PX + 2, table.subtitle),
            fill=FAINT,
            anchor="lm",
        )
    # The header row.
    y = top
    draw.rectangle([PAD, y, width - PAD, y + ROW_H], fill=HEADER)
    mid = y + ROW_H / 2
    x: float = PAD
    _draw_text(draw, x + rank_w / 2, mid, "#", SMALL_PX + 2, FAINT, "mm")
    x += rank_w
    _draw_text(draw, x + 6, mid, speech(word(PLAYER)), SMALL_PX + 2, FAINT)
    x += name_w
    for title in table.columns:
        _draw_text(draw, x + cell_w / 2, mid, title, SMALL_PX + 2, FAINT, "mm")
        x += cell_w
    _draw_text(draw, x + points_w / 2, mid, speech(word(POINTS)), SMALL_PX + 2, FAINT, "mm")
    x += points_w
    for title, w in zip(table.tiebreaks, tb_w, strict=True):
        _draw_text(draw, x + w / 2, mid, title, SMALL_PX, FAINT, "mm")
        x += w
    # The players.
    for index, row in enumerate(table.rows):
        y = top + ROW_H * (index + 1)
        mid = y + ROW_H / 2
        x = PAD
        if row.highlight:
            draw.rectangle([PAD, y, width - PAD, y + ROW_H], fill=WINNER)
        draw.line([(PAD, y + ROW_H), (width - PAD, y + ROW_H)], fill=RULE, width=1)
        _draw_text(draw, x + rank_w / 2, mid, row.rank, TEXT_PX, INK, "mm")
        x += rank_w
        _draw_text(draw, x + 6, mid, _fit_name(row.name, name_w - 12), TEXT_PX, INK)
        x += name_w
        for column, cell in enumerate(row.cells[:columns]):
            box = [x + 3, y + 4, x + cell_w - 3, y + ROW_H - 4]
            if table.kind == "crosstable" and column == index:
                draw.rectangle(box, fill=DIAGONAL)
            elif cell.colour == "w":
                draw.rectangle(box, fill=WHITE_SQUARE, outline=RULE)
            elif cell.colour == "b":
                draw.rectangle(box, fill=BLACK_SQUARE)
            elif cell.text:
                draw.rectangle(box, fill=NEUTRAL)
            ink = WHITE_SQUARE if cell.colour == "b" else INK
            parts = cell.text.split()
            if len(parts) == 2:  # a double round robin: both games, a rule between
                draw.line([(x + cell_w / 2, y + 8), (x + cell_w / 2, y + ROW_H - 8)], fill=RULE)
                for k, part in enumerate(parts):
                    _draw_text(
                        draw, x + cell_w * (1 + 2 * k) / 4, mid + 1, part, TEXT_PX - 2, ink, "mm"
                    )
            else:
                _draw_text(draw, x + cell_w / 2, mid + 1, cell.text, TEXT_PX - 2, ink, "mm")
            if cell.note:
                note_ink = (200, 200, 204) if cell.colour == "b" else FAINT
                draw.text(
                    (x + cell_w - 5, y + 6),
                    _plain(cell.note),
                    font=_font(SMALL_PX - 2, cell.note),
                    fill=note_ink,
                    anchor="ra",
                )
            x += cell_w
        _draw_text(draw, x + points_w / 2, mid, row.points, TEXT_PX, INK, "mm")
        x += points_w
        for value, w in zip(row.tiebreaks, tb_w, strict=True):
            _draw_text(draw, x + w / 2, mid, value, TEXT_PX - 4, INK, "mm")
            x += w
    return image


def _png(image: Image.Image) -> bytes:
    out = io.BytesIO()
    image.quantize(colors=64).save(out, format="PNG", optimize=True)
    return out.getvalue()
