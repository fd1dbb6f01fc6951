"""The status strip and the player bars, drawn from a ``Status`` / ``Side``.

Each is drawn in RGB and mapped onto the theme palette; the board module caches
the result by content, so an unchanged strip or bar is a single paste.
"""

from __future__ import annotations

from functools import lru_cache

from PIL import Image, ImageDraw

from .dice import bundled_font, draw_die, value_badge
from .palette import Colours, colours, mix
from .scene import Side, Status
from .sprites import PIECE_NAMES, piece_sprite, raven_sprite
from .themes import RGB, Theme

COLOR_NAMES = ("White", "Black")


def icon(key: str, color: int, size: int, theme: Theme) -> Image.Image:
    """The sprite for a sprite key ('RA:E' is a Raven facing east on screen).

    A kind the art does not know is drawn as a disc with its letters.
    """
    col = "white" if color == 0 else "black"
    if key.startswith("RA:"):
        return raven_sprite(col, size, theme, key[3:])
    if key in PIECE_NAMES:
        return piece_sprite(key, col, size, theme)
    return _letter_icon(key, color, size, theme)


@lru_cache(maxsize=1024)
def crisp_icon(key: str, color: int, size: int, theme: Theme) -> Image.Image:
    """``icon`` with its edge alpha rounded to three levels (0, half, full).

    The edges stay smooth at board sizes, and the palette PNG gets much smaller.
    """
    im = icon(key, color, size, theme).copy()
    im.putalpha(im.getchannel("A").point(_ALPHA3))
    return im


_ALPHA3 = [0 if v < 64 else 255 if v > 191 else 128 for v in range(256)]


def _letter_icon(key: str, color: int, size: int, theme: Theme) -> Image.Image:
    fill = theme.piece_white_fill if color == 0 else theme.piece_black_fill
    line = theme.piece_white_outline if color == 0 else theme.piece_black_outline
    im = Image.new("RGBA", (size, size), (0, 0, 0, 0))
    d = ImageDraw.Draw(im)
    m = max(1, size // 8)
    d.ellipse(
        [m, m, size - m, size - m], fill=fill + (255,), outline=line + (255,), width=m // 2 + 1
    )
    d.text(
        (size / 2, size / 2),
        key[:2],
        fill=line + (255,),
        font=bundled_font(max(6, round(size * 0.42))),
        anchor="mm",
    )
    return im


def _disc(d: ImageDraw.ImageDraw, x: float, cy: float, r: float, color: int, theme: Theme) -> None:
    fill = theme.piece_white_fill if color == 0 else theme.piece_black_fill
    line = theme.piece_white_outline if color == 0 else theme.piece_black_outline
    d.ellipse([x, cy - r, x + 2 * r, cy + r], fill=fill, outline=line, width=max(1, round(r / 5)))


def alert_colour(theme: Theme) -> RGB:
    return mix(theme.check[:3], theme.text, 0.2)


def draw_status(st: Status, w: int, h: int, theme: Theme) -> Image.Image:
    c = colours(theme)
    im = Image.new("RGB", (w, h), c.page)
    d = ImageDraw.Draw(im)
    pad = max(2, round(h * 0.22))
    cy = h / 2
    # right: caption, dice, then the pieces they offer
    die_px = max(8, round(h * 0.86))
    icon_px = max(8, round(h * 0.95))
    cap_font = bundled_font(max(10, round(h * 0.36)))
    right: list[tuple[str, object, int]] = []  # (kind, payload, width)
    if st.dice:
        if st.dice_caption:
            right.append(("text", st.dice_caption, round(cap_font.getlength(st.dice_caption))))
        for v in st.dice:
            right.append(("die", v, die_px))
    if st.offered:
        right.append(("text", "pick", round(cap_font.getlength("pick"))))
        for k in st.offered:
            right.append(("icon", k, icon_px))
    gap = max(2, round(h * 0.12))
    right_w = sum(wd for _, _, wd in right) + gap * len(right)
    x = w - pad - right_w
    for kind, payload, wd in right:
        x += gap
        if kind == "text":
            d.text((x, cy), str(payload), fill=c.dim_text, font=cap_font, anchor="lm")
        elif kind == "die":
            assert isinstance(payload, int)
            face = draw_die(payload, st.sides, die_px, theme)
            im.paste(face, (x, round(cy - die_px / 2)), face)
        else:
            assert isinstance(payload, str)
            spr = crisp_icon(payload, st.offered_color, icon_px, theme)
            im.paste(spr, (x, round(cy - icon_px / 2)), spr)
        x += wd
    # left: whose turn, or the result
    x = pad
    if st.disc >= 0:
        r = h * 0.25
        _disc(d, x, cy, r, st.disc, theme)
        x += round(2 * r + pad)
    room = w - pad - right_w - x - pad
    px = max(12, round(h * 0.5))
    font = bundled_font(px)
    while px > 8 and font.getlength(st.text) > room:
        px -= 1
        font = bundled_font(px)
    fill = alert_colour(theme) if st.alert else c.text
    d.text((x, cy), st.text, fill=fill, font=font, anchor="lm")
    return im


def _section(
    im: Image.Image,
    d: ImageDraw.ImageDraw,
    x: int,
    h: int,
    caption: str,
    keys: tuple[str, ...],
    color: int,
    step: int,
    icon_px: int,
    theme: Theme,
    c: Colours,
    *,
    offered: frozenset[str] = frozenset(),
    badge: str = "",
) -> int:
    """Draw a caption and a row of icons from ``x``; return where the next one starts."""
    font = bundled_font(max(10, round(h * 0.3)))
    d.text((x, h / 2), caption, fill=c.dim_text, font=font, anchor="lm")
    x += round(font.getlength(caption)) + max(2, h // 12)
    y = (h - icon_px) // 2
    for k in keys:
        if k in offered:
            m = max(1, icon_px // 14)
            d.rounded_rectangle(
                [x + m, y + m, x + icon_px - m, y + icon_px - m],
                radius=icon_px // 5,
                fill=c.offered,
            )
        spr = crisp_icon(k, color, icon_px, theme)
        im.paste(spr, (x, y), spr)
        if badge:
            b = value_badge(badge, max(8, round(icon_px * 0.42)), theme)
            im.paste(b, (x + icon_px - b.width, y + icon_px - b.height), b)
        x += step
    return x + (icon_px - step) + max(4, h // 3)


def draw_side(side: Side, w: int, h: int, theme: Theme) -> Image.Image:
    c = colours(theme)
    im = Image.new("RGB", (w, h), c.bar_turn if side.to_move else c.page)
    d = ImageDraw.Draw(im)
    pad = max(2, round(h * 0.2))
    cy = h / 2
    x = pad
    r = h * 0.22
    _disc(d, x, cy, r, side.color, theme)
    x += round(2 * r + pad * 0.7)
    name = COLOR_NAMES[side.color]
    font = bundled_font(max(12, round(h * 0.42)))
    d.text((x, cy), name, fill=c.text, font=font, anchor="lm")
    x += round(font.getlength(name)) + 2 * pad
    icon_px = max(8, round(h * 0.9))
    sections: list[tuple[str, tuple[str, ...]]] = []
    if side.waiting:
        sections.append(("waiting", side.waiting))
    if side.stock:
        sections.append(("to place", side.stock))
    if side.lost:
        sections.append(("lost", side.lost))
    if not sections:
        return im
    cap_font = bundled_font(max(10, round(h * 0.3)))
    fixed = sum(
        round(cap_font.getlength(cap)) + max(2, h // 12) + max(4, h // 3) for cap, _ in sections
    )
    n = sum(len(keys) for _, keys in sections)
    room = w - pad - x - fixed - icon_px * len(sections)
    # icons overlap when there is not room for them all side by side
    step = max(2, min(icon_px, room // max(1, n - len(sections)))) if n > len(sections) else icon_px
    for cap, keys in sections:
        x = _section(
            im,
            d,
            x,
            h,
            cap,
            keys,
            side.color,
            step,
            icon_px,
            theme,
            c,
            offered=side.offered if cap == "to place" else frozenset(),
            badge=side.waiting_badge if cap == "waiting" else "",
        )
    return im
