"""The empty board of a picture: squares, holes left as background, terraces shaded and
labelled, Tquads outlined and named in a tab (T1-T4), coordinates, and the legend strip
(``legend.py``); drawn once per (variant, theme, size, orientation, legend or not) by
``board.BoardArt``, and kept in the render cache on disk (``prebuilt.py``) so that a
restarted bot does not draw it again.

A variant's zones are terraces (squares of their own: shaded, the label beside them)
unless the variant says they are outlined (``Facts.zones_outlined``: areas of ordinary
squares, like the Tquads).
"""

from __future__ import annotations

from collections.abc import Hashable

from PIL import Image, ImageDraw

from . import prebuilt
from .dice import flat_text
from .layout import Layout
from .legend import Entry, draw_legend
from .palette import colours, over, to_palette
from .themes import RGB, Theme
from .typeface import Face, bundled_font, face_for


def base_key(
    lay: Layout,
    zones: dict[str, tuple[int, ...]],
    theme: Theme,
    outlined: bool = False,
    legend: tuple[Entry, ...] = (),
) -> Hashable:
    """What the empty board is drawn from, for the render cache's keys (the legend's
    words come from the variant, whose source the cache's fingerprint does not cover)."""
    g = lay.geometry
    return (
        g.files,
        g.height,
        g.first_rank,
        tuple(sorted(g.holes)),
        g.colour_base,
        g.names,
        g.dark,
        lay.size,
        lay.flipped,
        tuple(sorted(zones.items())),
        theme,
        outlined,
        tuple((e.sprite, e.name, e.brief) for e in legend),
        lay.legend,
    )


def board_base(
    lay: Layout,
    zones: dict[str, tuple[int, ...]],
    theme: Theme,
    palette: Image.Image,
    key: Hashable,
    outlined: bool = False,
    legend: tuple[Entry, ...] = (),
    face: Face = "pillow",
) -> tuple[Image.Image, list[int], list[Image.Image]]:
    """The empty board in palette mode, each square's background class, and each class's
    empty square in RGB: read from the render cache (``prebuilt.py``) when kept there.
    ``face``: the legend's font (``key`` must tell the faces apart: the locale does)."""
    found = prebuilt.load("board", key)
    if found is not None and len(found) >= 2:
        indices, classes, *backs = found
        cls = list(classes.tobytes())
        sq = lay.sq
        if (
            indices.mode == "L"
            and indices.size == (lay.width, lay.height)
            and len(cls) == len(lay.cells)
            and len(backs) == max(cls) + 1
            and all(b.mode == "RGB" and b.size == (sq, sq) for b in backs)
        ):
            p = Image.frombytes("P", indices.size, indices.tobytes())
            p.putpalette(palette.getpalette() or [])
            return p, cls, backs
    rgb = empty_board(lay, zones, theme, outlined, legend, face)
    p = to_palette(rgb, palette)
    looks: dict[bytes, int] = {}
    cls = [looks.setdefault(rgb.crop(box).tobytes(), len(looks)) for box in lay.cells]
    boxes = {c: lay.cells[s] for s, c in reversed(list(enumerate(cls)))}  # first square of each
    backs = [rgb.crop(boxes[c]) for c in range(len(looks))]
    if len(looks) <= 256:
        indices = Image.frombytes("L", p.size, p.tobytes())
        prebuilt.save(
            "board", key, [indices, Image.frombytes("L", (len(cls), 1), bytes(cls)), *backs]
        )
    return p, cls, backs


def empty_board(
    lay: Layout,
    zones: dict[str, tuple[int, ...]],
    theme: Theme,
    outlined: bool = False,
    legend: tuple[Entry, ...] = (),
    face: Face = "pillow",
) -> Image.Image:
    g, c = lay.geometry, colours(theme)
    im = Image.new("RGB", (lay.width, lay.height), c.page)
    d = ImageDraw.Draw(im)
    terraces = set() if outlined else {s for squares in zones.values() for s in squares}
    for s in g.squares:
        base = c.dark if g.dark[s] else c.light
        if s in terraces:
            base = over(base, c.terrace)
        x0, y0, x1, y1 = lay.cells[s]
        d.rectangle([x0, y0, x1 - 1, y1 - 1], fill=base)
    for label, squares in zones.items():
        if outlined:
            _outline_zone(im, lay, label, squares, zones, theme)
        else:
            _terrace_label(im, lay, label, squares, theme)
    _coordinates(im, lay, theme)
    if legend:
        draw_legend(im, lay, legend, theme, face)
    return im


def _by_cell(lay: Layout) -> dict[tuple[int, int], int]:
    """Box square at each (column, row) on screen."""
    x0, y0, sq = lay.board[0], lay.board[1], lay.sq
    return {((b[0] - x0) // sq, (b[1] - y0) // sq): s for s, b in enumerate(lay.cells)}


def _cell(lay: Layout, s: int) -> tuple[int, int]:
    b = lay.cells[s]
    return (b[0] - lay.board[0]) // lay.sq, (b[1] - lay.board[1]) // lay.sq


def _terrace_label(
    im: Image.Image, lay: Layout, label: str, squares: tuple[int, ...], theme: Theme
) -> None:
    """The label goes in a hole at one end of the terrace, or else in its first square."""
    d = ImageDraw.Draw(im)
    g, sq, c = lay.geometry, lay.sq, colours(theme)
    cells = sorted(_cell(lay, s) for s in squares)
    cols = {col for col, _ in cells}
    rows = {row for _, row in cells}
    ends: list[tuple[int, int]] = []
    if len(rows) == 1:
        row = cells[0][1]
        ends = [(min(cols) - 1, row), (max(cols) + 1, row)]
    elif len(cols) == 1:
        col = cells[0][0]
        ends = [(col, min(rows) - 1), (col, max(rows) + 1)]
    where = _by_cell(lay)
    spot = next((e for e in ends if e in where and not g.on_board[where[e]]), None)
    if spot is None:
        box = lay.cells[squares[0]]
        t = max(8, round(sq * 0.34))
        d.rounded_rectangle(
            [box[0], box[1], box[0] + t * 2, box[1] + t], radius=t // 3, fill=c.zone_line
        )
        flat_text(
            im,
            (box[0] + t, box[1] + t / 2),
            label,
            fill=_ink(c.zone_line),
            font=bundled_font(t - 2, face_for(label)),
            anchor="mm",
        )
        return
    box = lay.cell_at(*spot)
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    pill = c.label
    hw, hh = sq * 0.36, sq * 0.24
    d.rounded_rectangle([cx - hw, cy - hh, cx + hw, cy + hh], radius=round(hh * 0.6), fill=pill)
    font = bundled_font(max(7, round(sq * 0.3)), face_for(label))
    flat_text(im, (cx, cy), label, fill=_ink(pill), font=font, anchor="mm")


def _ink(bg: RGB) -> RGB:
    """Black or white, whichever reads on ``bg``."""
    lum = 0.299 * bg[0] + 0.587 * bg[1] + 0.114 * bg[2]
    return (0, 0, 0) if lum > 150 else (255, 255, 255)


def _outline_zone(
    im: Image.Image,
    lay: Layout,
    label: str,
    squares: tuple[int, ...],
    zones: dict[str, tuple[int, ...]],
    theme: Theme,
) -> None:
    """A line round the zone's edge, and its label (T1) in a tab at its outermost corner."""
    d = ImageDraw.Draw(im)
    sq, c = lay.sq, colours(theme)
    lw = max(2, round(sq * 0.05))
    h = lw // 2
    inside = {_cell(lay, s) for s in squares}
    for col, row in inside:
        x0, y0, x1, y1 = lay.cell_at(col, row)
        if (col, row - 1) not in inside:
            d.rectangle([x0 - h, y0 - h, x1 + h - 1, y0 - h + lw - 1], fill=c.zone_line)
        if (col, row + 1) not in inside:
            d.rectangle([x0 - h, y1 - h, x1 + h - 1, y1 - h + lw - 1], fill=c.zone_line)
        if (col - 1, row) not in inside:
            d.rectangle([x0 - h, y0 - h, x0 - h + lw - 1, y1 + h - 1], fill=c.zone_line)
        if (col + 1, row) not in inside:
            d.rectangle([x1 - h, y0 - h, x1 - h + lw - 1, y1 + h - 1], fill=c.zone_line)
    # the corner farthest from the middle of all the zones
    every = [_cell(lay, s) for group in zones.values() for s in group]
    mx = sum(col for col, _ in every) / len(every)
    my = sum(row for _, row in every) / len(every)
    col, row = max(inside, key=lambda cr: (cr[0] - mx) ** 2 + (cr[1] - my) ** 2)
    x0, y0, x1, y1 = lay.cell_at(col, row)
    t = max(9, round(sq * 0.3))
    font = bundled_font(max(7, round(t * 0.8)), face_for(label))
    tw = max(t, round(font.getlength(label) + t * 0.4))
    left = col < mx
    top = row < my
    tx = x0 if left else x1 - tw
    ty = y0 if top else y1 - t
    d.rectangle([tx, ty, tx + tw - 1, ty + t - 1], fill=c.zone_line)
    flat_text(
        im,
        (tx + tw / 2, ty + t / 2),
        label,
        fill=_ink(c.zone_line),
        font=font,
        anchor="mm",
    )


def _coordinates(im: Image.Image, lay: Layout, theme: Theme) -> None:
    g, c = lay.geometry, colours(theme)
    font = bundled_font(max(7, round(lay.sq * 0.3)))
    files: dict[int, str] = {}
    ranks: dict[int, str] = {}
    for s in range(g.size):
        col, row = _cell(lay, s)
        files[col] = g.files[g.file_of(s)]
        ranks[row] = str(g.rank_label(s))
    fx0, fy0, _, fy1 = lay.file_band
    for col, letter in files.items():
        x0, _, x1, _ = lay.cell_at(col, 0)
        flat_text(
            im,
            ((x0 + x1) / 2, (fy0 + fy1) / 2),
            letter,
            fill=c.coord,
            font=font,
            anchor="mm",
            crisp=True,
        )
    rx0, _, rx1, _ = lay.rank_band
    for row, label in ranks.items():
        _, y0, _, y1 = lay.cell_at(0, row)
        mid = ((rx0 + rx1) / 2, (y0 + y1) / 2)
        flat_text(im, mid, label, fill=c.coord, font=font, anchor="mm", crisp=True)
