"""Dice images: single die faces and a small palette PNG of a whole roll.

- Every die shows its value as a numeral, large and heavy, so that it reads on a phone:
  the Discord embed's thumbnail is shown about 80 px wide and the board's status strip
  about 44 px tall, where pips blur into a grey dot.
- A d4 is a triangle, a d6 and any other die a rounded square; a die other than d4 and
  d6 also carries a small "d20" tag when it is large enough.
- Pips (``pips=True``) remain for a d4 and a d6, for pictures meant to be seen large.
- Dice are laid out side by side and wrap into rows of ``PER_ROW``.

``value_badge`` draws the small round number badge used for a Tquarc's die value.

``render_dice_png`` keeps the PNG of each roll it drew (``KEPT_ROLLS`` of them, for rolls
of at most ``KEPT_DICE`` dice of at most ``KEPT_SIDES`` sides: a game shows a few dozen
rolls at most), in memory and in the render cache on disk (``prebuilt.py``): quantising
and encoding a roll took 2-6 ms, each time the dice changed.
"""

from __future__ import annotations

import io
import math
from collections.abc import Sequence
from functools import lru_cache

from PIL import Image, ImageDraw, ImageFilter, ImageFont

from .prebuilt import kept, load_bytes, save_bytes
from .themes import Theme, get_theme
from .typeface import bundled_font

SUPERSAMPLE = 4
MAX_PIP_DICE = 12  # beyond this many dice, faces show numbers
PER_ROW = 10
MAX_DICE = 200
MAX_SIDES = 1_000_000
KEPT_ROLLS = 256  # roll PNGs kept in memory (``render_dice_png``)
KEPT_DICE = 4  # larger rolls (a /roll of many dice) are drawn afresh and not kept
KEPT_SIDES = 20
_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"

# Pip centres on a d6 face, in units of the face (0..1).
_D6_PIPS: dict[int, tuple[tuple[float, float], ...]] = {
    1: ((0.5, 0.5),),
    2: ((0.27, 0.73), (0.73, 0.27)),
    3: ((0.27, 0.73), (0.5, 0.5), (0.73, 0.27)),
    4: ((0.27, 0.27), (0.73, 0.27), (0.27, 0.73), (0.73, 0.73)),
    5: ((0.27, 0.27), (0.73, 0.27), (0.5, 0.5), (0.27, 0.73), (0.73, 0.73)),
    6: ((0.27, 0.25), (0.73, 0.25), (0.27, 0.5), (0.73, 0.5), (0.27, 0.75), (0.73, 0.75)),
}

# The d4 face: an upward triangle in units of the image; pips as barycentric-ish points.
_D4_TRIANGLE = ((0.5, 0.03), (0.98, 0.93), (0.02, 0.93))
_D4_PIPS: dict[int, tuple[tuple[float, float], ...]] = {
    1: ((0.5, 0.62),),
    2: ((0.37, 0.7), (0.63, 0.7)),
    3: ((0.5, 0.45), (0.34, 0.72), (0.66, 0.72)),
    4: ((0.5, 0.4), (0.5, 0.63), (0.3, 0.74), (0.7, 0.74)),
}


_LEVELS3 = [0 if v < 64 else 255 if v > 191 else 128 for v in range(256)]
_LEVELS2 = [0 if v < 128 else 255 for v in range(256)]


def flat_text(
    im: Image.Image,
    xy: tuple[float, float],
    text: str,
    *,
    font: ImageFont.FreeTypeFont | ImageFont.ImageFont,
    fill: tuple[int, int, int],
    anchor: str | None = None,
    crisp: bool = False,
) -> None:
    """Text on ``im`` with its edge softened to one half-tone only (three levels: none,
    half, full). It reads as smooth at board sizes, and a palette picture stores far fewer
    colours than with full anti-aliasing: the strip's words take a third fewer bytes.
    ``crisp``: no half-tone at all (two levels), for small words that repeat on every
    picture: the coordinates beside the squares (each row of squares carries its rank's
    label, which costs a row of an endgame a third more bytes with the half-tone) and the
    bars' captions and counts."""
    drawn = _text_mask(text, font, anchor, xy[0], xy[1], crisp)
    if drawn is not None:
        x0, y0, mask = drawn
        im.paste(fill, (x0, y0), mask)


@lru_cache(maxsize=1024)
def _text_mask(
    text: str,
    font: ImageFont.FreeTypeFont | ImageFont.ImageFont,
    anchor: str | None,
    x: float,
    y: float,
    crisp: bool = False,
) -> tuple[int, int, Image.Image] | None:
    """``flat_text``'s mask and where it goes, drawn once per text, font and place: the
    bars and strips write the same few words at the same few places picture after
    picture. None for text with no extent."""
    probe = ImageDraw.Draw(Image.new("L", (1, 1)))
    x0, y0, x1, y1 = probe.textbbox((x, y), text, font=font, anchor=anchor)
    x0, y0 = int(x0) - 1, int(y0) - 1
    w, h = int(x1) + 2 - x0, int(y1) + 2 - y0
    if w <= 0 or h <= 0:
        return None
    mask = Image.new("L", (w, h), 0)
    ImageDraw.Draw(mask).text((x - x0, y - y0), text, font=font, fill=255, anchor=anchor)
    return x0, y0, mask.point(_LEVELS2 if crisp else _LEVELS3)


def fit_font(text: str, max_w: float, max_h: float) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """The largest bundled-font size at which ``text`` fits in max_w x max_h pixels."""

    def fits(px: int) -> bool:
        x0, y0, x1, y1 = bundled_font(px).getbbox(text)
        return x1 - x0 <= max_w and y1 - y0 <= max_h

    lo, hi = 6, max(6, int(max_h * 2))  # glyphs stand less tall than the font size
    if not fits(lo):
        return bundled_font(lo)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if fits(mid):
            lo = mid
        else:
            hi = mid - 1
    return bundled_font(lo)


def _centred_text(
    im: Image.Image,
    text: str,
    cx: float,
    cy: float,
    max_w: float,
    max_h: float,
    fill: tuple[int, int, int],
    weight: float = 0.0,
) -> None:
    """``text`` as large as fits in max_w x max_h, centred on (cx, cy).

    ``weight`` thickens the strokes by that share of the height on each side (a heavier
    numeral): the glyphs are drawn as a mask and dilated, which keeps corners clean.
    """
    grow = round(max_h * weight)
    font = fit_font(text, max_w - 2 * grow, max_h - 2 * grow)
    x0, y0, x1, y1 = font.getbbox(text)
    at = (cx - (x0 + x1) / 2, cy - (y0 + y1) / 2)
    if grow <= 0:
        ImageDraw.Draw(im).text(at, text, font=font, fill=fill)
        return
    # the glyphs' mask, grown by ``grow`` (blur, then threshold), over their box only
    m = 2 * grow
    left, top = int(at[0] + x0) - m, int(at[1] + y0) - m
    mask = Image.new("L", (int(x1 - x0) + 2 * m + 1, int(y1 - y0) + 2 * m + 1), 0)
    ImageDraw.Draw(mask).text((at[0] - left, at[1] - top), text, font=font, fill=255)
    mask = mask.filter(ImageFilter.GaussianBlur(grow / 2)).point(_GROWN)
    im.paste(fill + (255,) if im.mode == "RGBA" else fill, (left, top), mask)


# a Gaussian of sigma r/2 is about 2.3% of its peak at distance r from a straight edge
_GROWN = [255 if v > 5 else 0 for v in range(256)]


NUMERAL_WEIGHT = 0.035  # how much heavier a die's numeral is drawn, as a share of its height


def _check(value: int, sides: int) -> None:
    if not 2 <= sides <= MAX_SIDES:
        raise ValueError(f"a die has 2..{MAX_SIDES} sides, not {sides}")
    if not 1 <= value <= sides:
        raise ValueError(f"a d{sides} shows 1..{sides}, not {value}")


@lru_cache(maxsize=512)
@kept("die")
def _die(value: int, sides: int, size: int, theme: Theme, pips: bool) -> Image.Image:
    s = size * SUPERSAMPLE
    im = Image.new("RGBA", (s, s), (0, 0, 0, 0))
    d = ImageDraw.Draw(im)
    edge = max(2, round(s * 0.035))
    if sides == 4:
        tri = [(x * s, y * s) for x, y in _D4_TRIANGLE]
        d.polygon(tri, fill=theme.die_face + (255,))
        d.line(tri + [tri[0]], fill=theme.die_edge + (255,), width=edge, joint="curve")
        for x, y in tri:
            d.ellipse(
                [x - edge / 2, y - edge / 2, x + edge / 2, y + edge / 2],
                fill=theme.die_edge + (255,),
            )
        if pips:
            r = s * 0.065
            for x, y in _D4_PIPS[value]:
                d.ellipse([x * s - r, y * s - r, x * s + r, y * s + r], fill=theme.die_pip + (255,))
        else:
            _centred_text(
                im, str(value), 0.5 * s, 0.64 * s, 0.5 * s, 0.52 * s, theme.die_pip, NUMERAL_WEIGHT
            )
    else:
        m = s * 0.06
        d.rounded_rectangle(
            [m, m, s - m, s - m],
            radius=s * 0.16,
            fill=theme.die_face + (255,),
            outline=theme.die_edge + (255,),
            width=edge,
        )
        if pips and sides == 6:
            inner = s - 2 * m
            r = s * 0.075
            for x, y in _D6_PIPS[value]:
                cx, cy = m + x * inner, m + y * inner
                d.ellipse([cx - r, cy - r, cx + r, cy + r], fill=theme.die_pip + (255,))
        else:
            text = str(value)
            tag = sides not in (4, 6) and size >= 40  # a small "d20" tag: which die it was
            cy, h = (0.44, 0.5) if tag else (0.5, 0.62)
            _centred_text(im, text, s / 2, s * cy, s * 0.74, s * h, theme.die_pip, NUMERAL_WEIGHT)
            if tag:
                _centred_text(im, f"d{sides}", s * 0.5, s * 0.83, s * 0.4, s * 0.11, theme.die_edge)
    return im.resize((size, size), Image.Resampling.LANCZOS)


def draw_die(
    value: int, sides: int, size: int, theme: Theme | str, *, pips: bool = False
) -> Image.Image:
    """One die face as an RGBA ``size`` x ``size`` image (shared and cached: do not draw on it).

    The face shows its value as a numeral; with ``pips`` a d6 or a d4 shows pips instead.
    """
    _check(value, sides)
    if size < 8:
        raise ValueError(f"die size must be at least 8 px, not {size}")
    return _die(value, sides, size, get_theme(theme), pips and sides in (4, 6))


@lru_cache(maxsize=256)
@kept("badge")
def _badge(text: str, size: int, theme: Theme) -> Image.Image:
    s = size * SUPERSAMPLE
    im = Image.new("RGBA", (s, s), (0, 0, 0, 0))
    d = ImageDraw.Draw(im)
    ring = max(2, round(s * 0.09))
    d.ellipse([0, 0, s - 1, s - 1], fill=theme.badge_outline + (255,))
    d.ellipse([ring, ring, s - 1 - ring, s - 1 - ring], fill=theme.badge_fill + (255,))
    inner = s - 2 * ring
    _centred_text(im, text, s / 2, s / 2, inner * 0.72, inner * 0.62, theme.badge_text)
    return im.resize((size, size), Image.Resampling.LANCZOS)


def value_badge(text: str | int, size: int, theme: Theme | str) -> Image.Image:
    """A round RGBA badge with a short label (a Tquarc's die value, a count, "¥").

    The badge colours come from the theme. Shared and cached: do not draw on it.
    """
    if size < 8:
        raise ValueError(f"badge size must be at least 8 px, not {size}")
    return _badge(str(text), size, get_theme(theme))


def render_dice(
    values: Sequence[int],
    sides: int | Sequence[int] = 6,
    *,
    size: int = 96,
    theme: Theme | str = "classic",
    pips: bool = False,
) -> Image.Image:
    """The dice of one roll side by side (RGB), wrapped into rows of ``PER_ROW``.

    Numerals unless ``pips`` (pips only for up to ``MAX_PIP_DICE`` d4s and d6s).
    """
    th = get_theme(theme)
    vals = [int(v) for v in values]
    if not vals:
        raise ValueError("no dice to draw")
    if len(vals) > MAX_DICE:
        raise ValueError(f"at most {MAX_DICE} dice in one image, not {len(vals)}")
    per_die = [int(sides)] * len(vals) if isinstance(sides, int) else [int(s) for s in sides]
    if len(per_die) != len(vals):
        raise ValueError(f"{len(vals)} values but {len(per_die)} side counts")
    for v, n in zip(vals, per_die, strict=True):
        _check(v, n)
    pips = pips and len(vals) <= MAX_PIP_DICE
    gap = max(2, size // 8)
    cols = min(len(vals), PER_ROW)
    rows = math.ceil(len(vals) / PER_ROW)
    w = cols * size + (cols + 1) * gap
    h = rows * size + (rows + 1) * gap
    out = Image.new("RGB", (w, h), th.background)
    for i, (v, n) in enumerate(zip(vals, per_die, strict=True)):
        r, c = divmod(i, PER_ROW)
        face = draw_die(v, n, size, th, pips=pips)
        out.paste(face, (gap + c * (size + gap), gap + r * (size + gap)), face)
    return out


def to_png(image: Image.Image, colors: int = 64) -> bytes:
    """Encode as a small adaptive-palette PNG."""
    pal = image.convert("RGB").convert("P", palette=Image.Palette.ADAPTIVE, colors=colors)
    buf = io.BytesIO()
    pal.save(buf, format="PNG", optimize=True)
    return buf.getvalue()


def render_dice_png(
    values: Sequence[int],
    sides: int | Sequence[int] = 6,
    *,
    size: int = 96,
    theme: Theme | str = "classic",
) -> bytes:
    """A palette-mode PNG of a roll: one face per value, ``sides`` for all or per die.

    Raises ValueError for a value outside 1..sides, mismatched lengths, or more than
    ``MAX_DICE`` dice. A small roll's PNG is made once and kept (module docstring).
    """
    vals = tuple(int(v) for v in values)
    per_die = int(sides) if isinstance(sides, int) else tuple(int(n) for n in sides)
    counts = (per_die,) if isinstance(per_die, int) else per_die
    if len(vals) <= KEPT_DICE and all(2 <= n <= KEPT_SIDES for n in counts):
        return _kept_dice_png(vals, per_die, size, get_theme(theme))
    return to_png(render_dice(vals, per_die, size=size, theme=theme))


@lru_cache(maxsize=KEPT_ROLLS)
def _kept_dice_png(
    values: tuple[int, ...], sides: int | tuple[int, ...], size: int, theme: Theme
) -> bytes:
    """``render_dice_png`` of a small roll: from the render cache on disk when kept there,
    else drawn and kept. An invalid roll raises, and nothing is kept."""
    key = (values, sides, size, theme)
    found = load_bytes("dice_png", key)
    if found is not None and found.startswith(_PNG_SIGNATURE):
        return found
    png = to_png(render_dice(values, sides, size=size, theme=theme))
    save_bytes("dice_png", key, png)
    return png
