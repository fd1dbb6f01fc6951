"""Piece sprites: the project's own vector art, drawn with Pillow only.

Each piece is described in a 100 x 100 unit box (x right, y down) as a union of
polygons, ellipses and thick lines. It is drawn into greyscale masks at four
times the target size:

- ``body``: the silhouette, in the piece's fill colour;
- ``shade``: parts of the body in a slightly darker (white) or lighter (black) tone;
- ``accent``: parts in the *opposite* colour (the Guardener's dome);
- ``detail``: interior lines and dots, in the outline colour.

The outline is the body dilated by a blur-and-threshold. A black piece's outline is the
theme's ``piece_black_ring``: dark in the classic theme (a black silhouette with light
inner lines, one ring fewer to store), light in high contrast, where the dark squares
are nearly black; a light ring gets one more thin dark rim so that it still reads on
light squares. The
4x image is then downscaled with LANCZOS, which gives the anti-aliasing.

Sprites are cached per (kind, colour, size, theme, facing). The returned image is
shared: paste it, never draw on it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from functools import lru_cache

from PIL import Image, ImageChops, ImageDraw, ImageFilter

from .themes import RGB, Theme, get_theme

SUPERSAMPLE = 4

Point = tuple[float, float]

# Piece keys and their names. Letters follow the brief, not any one variant's notation.
PIECE_NAMES: dict[str, str] = {
    "K": "King",
    "Q": "Queen",
    "R": "Rook",
    "B": "Bishop",
    "N": "Knight",
    "P": "Pawn",
    "G": "Guardener",
    "T": "Tquarc",
    "H": "Horse",
    "O": "Ox",
    "I": "Index",
    "PO": "Policeman",
    "RA": "Raven",
    "KP": "promoted King",
}

FACINGS = "NESW"


def piece_kinds() -> tuple[str, ...]:
    """Every sprite key, in a stable order."""
    return tuple(PIECE_NAMES)


class _Pen:
    """Draws unit-box shapes into the four masks of one sprite at supersampled size."""

    def __init__(self, px: int, margin: float = 0.0) -> None:
        self.px = px
        self.margin = margin
        self.k = (px - 2 * margin) / 100.0
        self.masks = {
            name: Image.new("L", (px, px), 0) for name in ("body", "shade", "accent", "detail")
        }
        self.draws = {name: ImageDraw.Draw(m) for name, m in self.masks.items()}

    def _pts(self, pts: Sequence[Point]) -> list[tuple[float, float]]:
        m, k = self.margin, self.k
        return [(m + x * k, m + y * k) for x, y in pts]

    def _box(self, x0: float, y0: float, x1: float, y1: float) -> list[float]:
        m, k = self.margin, self.k
        return [m + x0 * k, m + y0 * k, m + x1 * k, m + y1 * k]

    def poly(self, pts: Sequence[Point], layer: str = "body", erase: bool = False) -> None:
        self.draws[layer].polygon(self._pts(pts), fill=0 if erase else 255)

    def ellipse(
        self, x0: float, y0: float, x1: float, y1: float, layer: str = "body", erase: bool = False
    ) -> None:
        self.draws[layer].ellipse(self._box(x0, y0, x1, y1), fill=0 if erase else 255)

    def circle(
        self, cx: float, cy: float, r: float, layer: str = "body", erase: bool = False
    ) -> None:
        self.ellipse(cx - r, cy - r, cx + r, cy + r, layer, erase)

    def rect(
        self,
        x0: float,
        y0: float,
        x1: float,
        y1: float,
        r: float = 0.0,
        layer: str = "body",
        erase: bool = False,
    ) -> None:
        box = self._box(x0, y0, x1, y1)
        fill = 0 if erase else 255
        if r > 0:
            self.draws[layer].rounded_rectangle(box, radius=r * self.k, fill=fill)
        else:
            self.draws[layer].rectangle(box, fill=fill)

    def line(
        self, pts: Sequence[Point], width: float = 3.5, layer: str = "detail", erase: bool = False
    ) -> None:
        """A thick polyline with round joints and round caps."""
        w = width * self.k
        fill = 0 if erase else 255
        scaled = self._pts(pts)
        self.draws[layer].line(scaled, fill=fill, width=max(1, round(w)), joint="curve")
        for x, y in (scaled[0], scaled[-1]):
            self.draws[layer].ellipse([x - w / 2, y - w / 2, x + w / 2, y + w / 2], fill=fill)

    def arc(
        self,
        box: tuple[float, float, float, float],
        start: float,
        end: float,
        width: float = 3.5,
        layer: str = "detail",
    ) -> None:
        self.draws[layer].arc(
            self._box(*box), start, end, fill=255, width=max(1, round(width * self.k))
        )


# --- shared parts ---------------------------------------------------------------------------


def _curve(p0: Point, p1: Point, p2: Point, steps: int = 12) -> list[Point]:
    """Points on a quadratic Bezier curve from p0 to p2 pulled toward p1."""
    out = []
    for i in range(steps + 1):
        t = i / steps
        a, b, c = (1 - t) ** 2, 2 * (1 - t) * t, t * t
        out.append((a * p0[0] + b * p1[0] + c * p2[0], a * p0[1] + b * p1[1] + c * p2[1]))
    return out


def _mirror(pts: Sequence[Point]) -> list[Point]:
    return [(100 - x, y) for x, y in pts]


def _base(p: _Pen, x0: float = 20, x1: float = 80, top: float = 80) -> None:
    """The round-edged foot shared by the chess pieces."""
    p.rect(x0, top, x1, 91, r=4)
    p.line([(x0 + 5, top + 1), (x1 - 5, top + 1)], width=3)


def _skirt(p: _Pen, top: float, half_top: float, half_bottom: float, bottom: float = 81) -> None:
    """A concave flared body from the waist at ``top`` down to the foot."""
    left = _curve((50 - half_top, top), (50 - half_top + 2, bottom - 8), (50 - half_bottom, bottom))
    p.poly(left + _mirror(left)[::-1])


# --- FIDE pieces --------------------------------------------------------------------------------


def _pawn(p: _Pen) -> None:
    _base(p, 23, 77)
    _skirt(p, 46, 8, 21)
    p.ellipse(34, 40, 66, 50)
    p.line([(38, 45), (62, 45)], width=2.5)
    p.circle(50, 27, 13)


def _rook(p: _Pen) -> None:
    _base(p, 19, 81)
    p.rect(25, 72, 75, 81, r=2)
    p.poly([(32, 36), (68, 36), (70, 73), (30, 73)])
    p.rect(24, 13, 76, 37, r=2)
    for x0, x1 in ((34, 43.5), (56.5, 66)):
        p.rect(x0, 12, x1, 22, erase=True)
    p.line([(29, 36), (71, 36)], width=3)
    p.line([(30, 72), (70, 72)], width=3)


def _bishop(p: _Pen) -> None:
    _base(p, 21, 79)
    _skirt(p, 58, 9, 22)
    p.ellipse(33, 53, 67, 63)
    p.line([(37, 58), (63, 58)], width=2.5)
    # the mitre: an egg with a pointed top
    p.ellipse(35, 24, 65, 58)
    p.poly([(36.5, 35), (50, 15), (63.5, 35)])
    p.circle(50, 12, 5.5)
    p.line([(56, 27), (47, 40)], width=3.5)


def _knight(p: _Pen) -> None:
    head: list[Point] = [
        (74, 81),
        (77, 62),
        (76, 46),
        (70, 31),
        (61, 21),
        (59, 9),
        (52, 16),
        (46, 10),
        (42, 19),
        (31, 26),
        (22, 38),
        (14, 50),
        (15, 57),
        (22, 61),
        (30, 58),
        (37, 55),
        (46, 51),
        (40, 62),
        (31, 73),
        (28, 81),
    ]
    p.poly(head)
    _base(p, 20, 80)
    p.circle(37, 33, 3.2, layer="detail")  # eye
    p.circle(20, 51, 2.2, layer="detail")  # nostril
    p.line([(64, 27), (71, 40), (73, 56), (71, 74)], width=3)  # mane


def _crown_body(p: _Pen, waist: float = 52) -> None:
    _base(p, 19, 81)
    _skirt(p, waist, 14, 24)
    p.line([(34, waist + 4), (66, waist + 4)], width=3)


def _queen(p: _Pen) -> None:
    _crown_body(p, 52)
    tips = [(15, 26), (32, 19), (50, 15), (68, 19), (85, 26)]
    pts: list[Point] = [(31, 56)]
    valleys = [(30, 42), (41, 39), (59, 39), (70, 42)]
    for i, tip in enumerate(tips):
        pts.append(tip)
        if i < len(valleys):
            pts.append(valleys[i])
    pts.append((69, 56))
    p.poly(pts)
    for tip in tips:
        p.circle(*tip, 5)
    p.line([(31, 50), (69, 50)], width=3)


def _king_crown(p: _Pen) -> None:
    # two lobes of the crown and the band below them
    p.ellipse(22, 30, 52, 56)
    p.ellipse(48, 30, 78, 56)
    p.rect(30, 40, 70, 56)
    p.line([(50, 36), (50, 52)], width=3)
    p.line([(31, 51), (69, 51)], width=3)


def _king(p: _Pen) -> None:
    _crown_body(p, 54)
    _king_crown(p)
    p.rect(45.5, 5, 54.5, 36, r=1.5)
    p.rect(38, 11.5, 62, 20, r=1.5)


def _promoted_king(p: _Pen) -> None:
    """A King with a wide spiked crown and a yen medallion in place of the cross."""
    _crown_body(p, 54)
    p.poly([(26, 57), (12, 27), (32, 42), (50, 28), (68, 42), (88, 27), (74, 57)])
    p.circle(12, 27, 5)
    p.circle(88, 27, 5)
    p.line([(31, 51), (69, 51)], width=3)
    # a medallion engraved with the yen sign instead of the cross
    p.rect(46, 30, 54, 40)
    p.circle(50, 20, 14)
    p.line([(43.5, 11), (50, 19), (56.5, 11)], width=3)
    p.line([(50, 19), (50, 30)], width=3)
    p.line([(43, 21), (57, 21)], width=2.6)
    p.line([(43, 26), (57, 26)], width=2.6)


# --- variant pieces -------------------------------------------------------------------------


def _guardener(p: _Pen) -> None:
    """A de-crowned King, shorter, with a half-sphere glued on top.

    The seed's set dyes the dome in the opposite colour; on a board image that
    made a Black Guardener read as White, so the dome keeps the piece's colour
    (shaded) and only a small knob is in the opposite colour."""
    _crown_body(p, 58)
    p.rect(27, 46, 73, 60, r=3)
    p.line([(31, 57), (69, 57)], width=3)
    p.draws["body"].pieslice(p._box(23, 18, 77, 74), 180, 360, fill=255)
    p.draws["shade"].pieslice(p._box(31, 26, 69, 66), 180, 360, fill=255)
    p.draws["accent"].ellipse(p._box(44, 13, 56, 25), fill=255)
    p.line([(27, 45.5), (73, 45.5)], width=3)


def _tquarc(p: _Pen) -> None:
    """A four-sided pyramid die with truncated points, two faces showing."""
    outer: list[Point] = [(46, 8), (54, 8), (91, 78), (87, 86), (13, 86), (9, 78)]
    p.poly(outer)
    front = (58, 86)
    p.poly([(50, 9), (92, 80), (87, 86), front], layer="shade")
    p.line([(50, 9), front], width=3.5)


def _horse(p: _Pen) -> None:
    """Stone Garden's Horse: a maned head facing the other way from the Knight, on a horseshoe."""
    head: list[Point] = [
        (31, 76),
        (30, 58),
        (34, 42),
        (40, 29),
        (45, 19),
        (46, 5),
        (53, 13),
        (61, 15),
        (72, 25),
        (82, 37),
        (89, 47),
        (88, 56),
        (81, 60),
        (71, 58),
        (62, 53),
        (58, 60),
        (63, 76),
    ]
    p.poly(head)
    # a flowing mane: locks swept back from the crest of the neck
    for root, tip, back in (
        ((47, 14), (30, 14), (42, 25)),
        ((43, 24), (22, 27), (37, 36)),
        ((37, 35), (15, 43), (32, 49)),
        ((33, 48), (13, 60), (31, 63)),
    ):
        p.poly(
            _curve(root, (root[0] - 6, root[1] - 2), tip, 6)
            + _curve(tip, (tip[0] + 8, back[1]), back, 6)
        )
    # the horseshoe, open side down
    p.ellipse(20, 66, 80, 120)
    p.ellipse(33, 79, 67, 120, erase=True)
    p.rect(-50, 93, 150, 200, erase=True)
    p.arc((26.5, 72.5, 73.5, 114), 190, 350, width=2.5)
    p.circle(67, 30, 3.4, layer="detail")
    p.circle(83, 51, 2.2, layer="detail")
    p.line([(58, 60), (66, 56)], width=2.5)


def _ox(p: _Pen) -> None:
    """A bull's head seen from the front, with wide upswept horns."""
    horn: list[Point] = _curve((40, 30), (16, 32), (9, 6), 10) + _curve(
        (14, 9), (22, 22), (42, 22), 10
    )
    p.poly(horn)
    p.poly(_mirror(horn))
    p.ellipse(29, 20, 71, 52)
    p.poly([(30, 38), (70, 38), (64, 72), (36, 72)])
    p.ellipse(33, 62, 67, 91)
    ear: list[Point] = [(32, 38), (12, 38), (17, 48), (34, 48)]
    p.poly(ear)
    p.poly(_mirror(ear))
    p.ellipse(36, 64, 64, 90, layer="shade")
    p.circle(43, 78, 3, layer="detail")
    p.circle(57, 78, 3, layer="detail")
    p.circle(41, 47, 3.2, layer="detail")
    p.circle(59, 47, 3.2, layer="detail")
    p.line([(44, 27), (50, 33), (56, 27)], width=3)


def _index(p: _Pen) -> None:
    """A pointing hand; the whole drawing is then turned 45 degrees (the Ox turned 45)."""
    p.rect(36, 5, 50, 55, r=7)  # index finger
    p.rect(30, 44, 74, 82, r=11)  # fist
    p.circle(70, 59, 10)
    p.rect(38, 80, 68, 94, r=2)  # cuff
    p.line([(38, 83), (68, 83)], width=3)
    # curled fingers and thumb
    p.line([(50, 50), (50, 56), (60, 56)], width=3)
    p.line([(50, 62), (64, 62)], width=3)
    p.line([(50, 69), (62, 69)], width=3)
    p.line([(30, 66), (46, 62), (50, 50)], width=3)
    p.line([(40, 13), (46, 13)], width=2.5)  # a fingernail


def _policeman(p: _Pen) -> None:
    """A custodian helmet seen from the side: tall dome, top knob, badge, peaked brim."""
    p.ellipse(27, 19, 71, 114)
    p.rect(-50, 74, 150, 200, erase=True)
    p.rect(45, 10, 53, 24, r=2)
    p.circle(49, 12, 6)
    # the brim: short behind, a long drooping peak in front
    top = _curve((14, 80), (18, 72), (30, 72), 6) + _curve((66, 72), (84, 72), (92, 86), 6)
    bottom = _curve((90, 90), (80, 84), (64, 83), 6) + _curve((34, 83), (22, 83), (15, 85), 6)
    p.poly(top + bottom)
    p.line([(28, 74), (70, 74)], width=3)
    # a Brunswick star badge
    star: list[Point] = []
    for i in range(16):
        r = 12 if i % 2 == 0 else 6
        a = math.pi * i / 8 - math.pi / 2
        star.append((50 + r * math.cos(a), 52 + r * math.sin(a)))
    p.poly(star, layer="detail")
    p.circle(50, 52, 3.5, layer="detail", erase=True)
    p.line([(35, 29), (43, 22)], width=2.5)


def _raven(p: _Pen) -> None:
    """A raven seen from above, flying the way she faces (up): a big head with a long
    beak in the opposite colour at the front, wings swept back into an arrowhead, a short
    tail. The outline is a chevron pointing her way, so that her facing reads at a glance
    even where the piece is small (at 400 px the old bird, head and tail alike, read as a
    four-armed cross)."""
    wing: list[Point] = [
        (45, 29),
        (3, 82),
        (12, 80),
        (15, 87),
        (22, 76),
        (27, 82),
        (33, 70),
        (46, 56),
    ]
    p.poly(wing)
    p.poly(_mirror(wing))
    p.ellipse(39, 26, 61, 76)
    p.circle(50, 25, 12.5)
    p.poly([(41, 20), (59, 20), (50, 1)])
    p.poly([(44.5, 70), (55.5, 70), (61, 94), (50, 89), (39, 94)])
    # the beak in the opposite colour: the front of the bird at a glance
    p.poly([(43.5, 17), (56.5, 17), (50, 2.5)], layer="accent")
    p.circle(44, 25, 2.8, layer="detail")
    p.circle(56, 25, 2.8, layer="detail")
    p.line([(41, 39), (14, 74)], width=2.5)
    p.line([(59, 39), (86, 74)], width=2.5)


_DRAW: dict[str, Callable[[_Pen], None]] = {
    "K": _king,
    "Q": _queen,
    "R": _rook,
    "B": _bishop,
    "N": _knight,
    "P": _pawn,
    "G": _guardener,
    "T": _tquarc,
    "H": _horse,
    "O": _ox,
    "I": _index,
    "PO": _policeman,
    "RA": _raven,
    "KP": _promoted_king,
}

# Whole-drawing rotation in degrees, counter-clockwise.
_ROTATE = {"I": -45.0}
_FACING_TURN = {
    "N": None,
    "E": Image.Transpose.ROTATE_270,
    "S": Image.Transpose.ROTATE_180,
    "W": Image.Transpose.ROTATE_90,
}


# --- composing --------------------------------------------------------------------------------


def _dilate(mask: Image.Image, radius: float) -> Image.Image:
    """The mask grown by about ``radius`` pixels, with rounded corners."""
    if radius <= 0:
        return mask
    blurred = mask.filter(ImageFilter.GaussianBlur(radius / 2.0))
    # a Gaussian of sigma r/2 is about 2.3% of its peak at distance r from a straight edge
    return blurred.point(lambda v: 255 if v > 5 else 0)


def _mix(a: RGB, b: RGB, t: float) -> RGB:
    return (
        round(a[0] + (b[0] - a[0]) * t),
        round(a[1] + (b[1] - a[1]) * t),
        round(a[2] + (b[2] - a[2]) * t),
    )


def _colours(color: str, theme: Theme) -> tuple[RGB, RGB, RGB, RGB, RGB | None]:
    """(fill, inner lines, shade, accent fill, outer ring) for one side; the outer ring is
    None where the inner-line colour is the ring too (White)."""
    if color == "white":
        fill, line = theme.piece_white_fill, theme.piece_white_outline
        return fill, line, _mix(fill, line, 0.16), theme.piece_black_fill, None
    fill, line = theme.piece_black_fill, theme.piece_black_outline
    return fill, line, _mix(fill, line, 0.22), theme.piece_white_fill, theme.piece_black_ring


def piece_colours(color: int, theme: Theme) -> tuple[RGB, ...]:
    """Every flat colour a sprite of ``color`` (0 White, 1 Black) is drawn in."""
    fill, line, shade, accent, ring = _colours("white" if color == 0 else "black", theme)
    if ring is None:
        return fill, line, shade, accent
    rim = (theme.piece_edge,) if ring != theme.piece_edge else ()
    return (fill, line, shade, accent, ring, *rim)


def _normalise_color(color: str) -> str:
    c = color.lower()
    if c in ("w", "white"):
        return "white"
    if c in ("b", "black"):
        return "black"
    raise ValueError(f"colour must be 'white' or 'black', not {color!r}")


def _outline_widths(size: int) -> tuple[float, float]:
    """(outline, outer rim) widths in final pixels for a sprite of ``size``."""
    return max(1.1, size * 0.038), max(0.9, size * 0.018)


def _compose(pen: _Pen, color: str, size: int, theme: Theme) -> Image.Image:
    fill, line, shade, accent, ring_colour = _colours(color, theme)
    px = pen.px
    body = pen.masks["body"]
    outline_r, edge_r = _outline_widths(size)
    ring = _dilate(body, outline_r * SUPERSAMPLE)
    out = Image.new("RGBA", (px, px), (0, 0, 0, 0))
    if ring_colour is not None and ring_colour != theme.piece_edge:  # a light ring: rim it
        _paint(out, theme.piece_edge, _dilate(ring, edge_r * SUPERSAMPLE))
    _paint(out, ring_colour or line, ring)
    _paint(out, fill, body)
    for layer, colour in (("shade", shade), ("accent", accent), ("detail", line)):
        _paint(out, colour, ImageChops.multiply(pen.masks[layer], body))
    return out.resize((size, size), Image.Resampling.LANCZOS)


def _paint(out: Image.Image, colour: RGB, mask: Image.Image) -> None:
    """``colour`` pasted through ``mask``, over the mask's bounding box only: where the
    mask is 0 a paste changes nothing, so this is the same picture, made faster (most
    layers cover a small part of the sprite, and some none)."""
    box = mask.getbbox()
    if box is not None:
        out.paste(colour + (255,), box, mask.crop(box))


def _draw_pen(kind: str, size: int, facing: str | None) -> _Pen:
    try:
        draw = _DRAW[kind]
    except KeyError:
        raise ValueError(f"unknown piece kind {kind!r}; choose from {', '.join(_DRAW)}") from None
    # the unit box is inset so that the outline and rim never touch the sprite's edge
    outline_r, edge_r = _outline_widths(size)
    pen = _Pen(size * SUPERSAMPLE, (outline_r + edge_r + 0.6) * SUPERSAMPLE)
    draw(pen)
    angle = _ROTATE.get(kind)
    turn = _FACING_TURN[facing] if facing else None
    for name, mask in list(pen.masks.items()):
        if angle is not None:
            mask = mask.rotate(angle, resample=Image.Resampling.BICUBIC)
        if turn is not None:
            mask = mask.transpose(turn)
        pen.masks[name] = mask
    return pen


@lru_cache(maxsize=1024)
def _sprite(kind: str, color: str, size: int, theme: Theme, facing: str | None) -> Image.Image:
    pen = _draw_pen(kind, size, facing)
    return _compose(pen, color, size, theme)


def piece_sprite(kind: str, color: str, size: int, theme: Theme | str) -> Image.Image:
    """The RGBA sprite, ``size`` x ``size``, of one piece kind in one colour.

    ``color`` is 'white' or 'black' ('w'/'b' also work). The Raven ('RA') faces its
    side's forward direction with White at the bottom: up for White, down for Black;
    use ``raven_sprite`` for any other facing. The image is cached and shared: do
    not draw on it.
    """
    if size < 8:
        raise ValueError(f"sprite size must be at least 8 px, not {size}")
    col = _normalise_color(color)
    facing = ("N" if col == "white" else "S") if kind == "RA" else None
    return _sprite(kind, col, size, get_theme(theme), facing)


def raven_sprite(color: str, size: int, theme: Theme | str, facing: str) -> Image.Image:
    """The Raven facing 'N', 'E', 'S' or 'W' on the image (N is up).

    Facing is in picture terms: when the board is drawn from Black's side, the
    caller turns board facings around (N <-> S, E <-> W) before asking.
    """
    if facing not in FACINGS or len(facing) != 1:
        raise ValueError(f"facing must be one of N, E, S, W, not {facing!r}")
    if size < 8:
        raise ValueError(f"sprite size must be at least 8 px, not {size}")
    return _sprite("RA", _normalise_color(color), size, get_theme(theme), facing)


@lru_cache(maxsize=512)
def _plain(kind: str, color: str, size: int, theme: Theme, facing: str | None) -> Image.Image:
    pen = _draw_pen(kind, size, facing)
    fill, line, _, _, ring_colour = _colours(color, theme)
    px = pen.px
    body = pen.masks["body"]
    outline_r, _ = _outline_widths(size)
    out = Image.new("RGBA", (px, px), (0, 0, 0, 0))
    _paint(out, ring_colour or line, _dilate(body, outline_r * SUPERSAMPLE))
    _paint(out, fill, body)
    return out.resize((size, size), Image.Resampling.LANCZOS)


def plain_sprite(
    kind: str, color: str, size: int, theme: Theme | str, facing: str = ""
) -> Image.Image:
    """The piece's silhouette in its fill colour with its outline, without inner lines or
    shading: for small pictures of pieces (a player's lost pieces), where the inner lines
    would blur and cost most of the bytes. ``facing`` as for ``raven_sprite`` ('' is
    forward). Shared and cached: do not draw on it."""
    if size < 8:
        raise ValueError(f"sprite size must be at least 8 px, not {size}")
    col = _normalise_color(color)
    if kind == "RA":
        facing = facing or ("N" if col == "white" else "S")
    elif facing:
        raise ValueError(f"only a Raven has a facing, not {kind!r}")
    return _plain(kind, col, size, get_theme(theme), facing or None)


def silhouette(kind: str, size: int) -> Image.Image:
    """The bare body mask (mode 'L') of a kind at ``size``, for tests and layout."""
    pen = _draw_pen(kind, size, None)
    return pen.masks["body"].resize((size, size), Image.Resampling.LANCZOS)


def clear_cache() -> None:
    _sprite.cache_clear()
    _plain.cache_clear()
