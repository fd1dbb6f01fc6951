"""The status strip and the player bars, drawn from a ``Status`` / ``Side``.

Each is drawn in RGB and mapped onto the theme palette; the board module caches
the result by content, so an unchanged strip or bar is a single paste.
"""

from __future__ import annotations

from functools import lru_cache

from PIL import Image, ImageDraw
from PIL.ImageFont import FreeTypeFont
from PIL.ImageFont import ImageFont as _BitmapFont

from variants.sentence import N_, word

from .dice import draw_die, flat_text, value_badge
from .palette import colours
from .prebuilt import kept
from .scene import Side, Status
from .speech import ENGLISH, Speech
from .sprites import PIECE_NAMES, piece_colours, piece_sprite, plain_sprite, raven_sprite
from .themes import RGB, Theme
from .typeface import Face, bundled_font, drawable, face_for, speech_face

COLOR_NAMES = (N_("White"), N_("Black"))
# the captions of a player's bar: pieces waiting off the board, still to place, lost
WAITING, TO_PLACE, LOST = N_("waiting"), N_("to place"), N_("lost")


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


@lru_cache(maxsize=512)
@kept("plain_icon")
def plain_icon(key: str, color: int, size: int, theme: Theme) -> Image.Image:
    """A sprite key as a plain silhouette (``sprites.plain_sprite``) in flat colours, for the
    player bars; a kind the art does not know is its lettered disc."""
    col = "white" if color == 0 else "black"
    kind, _, facing = key.partition(":")
    if kind in PIECE_NAMES and kind != "KP":
        im = plain_sprite(kind, col, size, theme, facing)
    else:
        im = icon(key, color, size, theme)
    return _flat(im, color, theme)


@lru_cache(maxsize=1024)
@kept("crisp_icon")
def crisp_icon(key: str, color: int, size: int, theme: Theme) -> Image.Image:
    """``icon`` in a few flat colours: every pixel is one of the piece's own colours
    (fill, outline, shade, accent, rim) and the edge alpha is one of three levels (0,
    half, full).

    The edges stay smooth at board sizes, and the palette PNG gets much smaller: the
    soft blends inside a sprite were most of its bytes.
    """
    return _flat(icon(key, color, size, theme), color, theme)


def _flat(im: Image.Image, color: int, theme: Theme) -> Image.Image:
    alpha = im.getchannel("A").point(_ALPHA3)
    flat = im.convert("RGB").quantize(
        palette=_sprite_palette(color, theme), dither=Image.Dither.NONE
    )
    out = flat.convert("RGBA")
    out.putalpha(alpha)
    return out


@lru_cache(maxsize=8)
def _sprite_palette(color: int, theme: Theme) -> Image.Image:
    return _palette_of(piece_colours(color, theme))


def _palette_of(cols: tuple[RGB, ...]) -> Image.Image:
    pal = Image.new("P", (1, 1))
    pal.putpalette([v for rgb in cols for v in rgb])
    return pal


@lru_cache(maxsize=64)
@kept("crisp_die")
def crisp_die(value: int, sides: int, size: int, theme: Theme) -> Image.Image:
    """``draw_die`` in the die's three flat colours with a hard edge, for the strip."""
    im = draw_die(value, sides, size, theme)
    alpha = im.getchannel("A").point(_ALPHA3)
    pal = _palette_of((theme.die_face, theme.die_edge, theme.die_pip))
    out = im.convert("RGB").quantize(palette=pal, dither=Image.Dither.NONE).convert("RGBA")
    out.putalpha(alpha)
    return out


_ALPHA3 = [0 if v < 128 else 255 for v in range(256)]


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


def _chip(
    d: ImageDraw.ImageDraw, x: float, y: float, px: int, fill: RGB, radius: float = 0.18
) -> None:
    """The small rounded square a bar draws a piece or a disc on, so that pieces of both
    colours read on the dark page."""
    d.rounded_rectangle([x, y, x + px - 1, y + px - 1], radius=round(px * radius), fill=fill)


def _disc(d: ImageDraw.ImageDraw, x: float, cy: float, r: float, color: int, theme: Theme) -> None:
    """A White or Black stone on a chip: ``x`` is the chip's left edge."""
    c = colours(theme)
    px = round(2.9 * r)
    _chip(d, x, cy - px / 2, px, c.chip, 0.3)
    fill = theme.piece_white_fill if color == 0 else theme.piece_black_fill
    line = theme.piece_white_outline if color == 0 else theme.piece_edge
    cx = x + px / 2
    d.ellipse([cx - r, cy - r, cx + r, cy + r], fill=fill, outline=line, width=max(1, round(r / 6)))


def disc_width(r: float) -> int:
    return round(2.9 * r)


def alert_colour(theme: Theme) -> RGB:
    return colours(theme).alert


@lru_cache(maxsize=1024)
def _fit(
    text: str, px: int, room: float, face: Face = "pillow", least: int = 9
) -> tuple[str, FreeTypeFont | _BitmapFont]:
    """The font of ``face`` (shrunk down to ``least`` px) at which ``text`` fits in
    ``room``; cut with '...' when even that is too wide. Kept: a strip says the same few
    things."""
    text = drawable(text)
    face = face_for(text, face)
    font = bundled_font(px, face)
    while px > least and font.getlength(text) > room:
        px -= 1
        font = bundled_font(px, face)
    while len(text) > 1 and font.getlength(text) > room:
        text = text[:-2].rstrip() + "\u2026"
    return text, font


def strip_icon_px(h: int) -> int:
    """The side of a die or a piece in a status strip ``h`` pixels tall."""
    return max(10, round(h * 0.78))


def bar_icon_px(h: int) -> int:
    """The side of a piece in a player's bar ``h`` pixels tall."""
    return max(10, round(h * 0.7))


def bar_badge_px(icon_px: int) -> int:
    """The side of the value badge on a piece in a player's bar."""
    return max(8, round(icon_px * 0.5))


def warm_pieces(kinds: list[str], strip_h: int, bar_h: int, theme: Theme) -> int:
    """Draw ahead what a strip ``strip_h`` tall and bars ``bar_h`` tall can show of pieces
    and dice: the dice faces (d4 and d6), ``kinds`` in both colours as the strip offers them
    and as the bars list them, and the bars' value badges. Returns how many pictures."""
    n = 0
    die_px, bar_px = strip_icon_px(strip_h), bar_icon_px(bar_h)
    for sides in (4, 6):
        for value in range(1, sides + 1):
            crisp_die(value, sides, die_px, theme)
            n += 1
    for key in kinds:
        for color in (0, 1):
            crisp_icon(key, color, die_px, theme)
            plain_icon(key, color, bar_px, theme)
            n += 2
    for value in range(1, 7):
        value_badge(str(value), bar_badge_px(bar_px), theme)
        n += 1
    return n


def draw_status(st: Status, w: int, h: int, theme: Theme, speech: Speech = ENGLISH) -> Image.Image:
    """Whose turn (or the result) and what the dice allow on the left, in two lines, with a
    badge when a teleport or resurrection is on offer; the dice as numerals on the right,
    then the pieces a Jepps setup roll offers. The words are said by ``speech``."""
    c = colours(theme)
    im = Image.new("RGB", (w, h), c.page)
    d = ImageDraw.Draw(im)
    pad = max(3, round(h * 0.14))
    gap = max(2, round(h * 0.1))
    # right: the dice, then the pieces they offer
    die_px = icon_px = strip_icon_px(h)
    right = [("die", v) for v in st.dice] + [("icon", k) for k in st.offered]
    right_w = sum(die_px if kind == "die" else icon_px for kind, _ in right) + gap * max(
        0, len(right) - 1
    )
    x = w - pad - right_w
    for kind, payload in right:
        top = round((h - die_px) / 2)
        if kind == "die":
            assert isinstance(payload, int)
            face = crisp_die(payload, st.sides, die_px, theme)
            im.paste(face, (x, top), face)
            x += die_px + gap
        else:
            assert isinstance(payload, str)
            _chip(d, x, top, icon_px, c.offered)
            spr = crisp_icon(payload, st.offered_color, icon_px, theme)
            im.paste(spr, (x, top), spr)
            x += icon_px + gap
    # left: the stone of the side to act, then one or two lines of words
    end = w - pad - right_w - (pad if right else 0)
    x = pad
    two = bool(st.detail or st.badge)
    line1 = h * (0.3 if two else 0.5)
    line2 = h * 0.73
    if st.disc >= 0:
        r = h * (0.13 if two else 0.18)
        _disc(d, x, line1, r, st.disc, theme)
        x += disc_width(r) + gap
    words = speech_face(speech)
    text, font = _fit(speech(st.text), max(10, round(h * 0.34)), end - x, words)
    flat_text(
        im,
        (x, line1),
        text,
        fill=alert_colour(theme) if st.alert else c.text,
        font=font,
        anchor="lm",
    )
    if not two:
        return im
    x2 = pad
    if st.badge:
        badge = speech(st.badge).upper()
        x2 = _badge_pill(im, x2, line2, badge, h, end, theme, words) + gap
    if st.detail and x2 < end:
        said = speech(st.detail)
        said = said[:1].upper() + said[1:]  # the first letter, after translating
        detail, font = _fit(said, max(9, round(h * 0.27)), end - x2, words)
        flat_text(im, (x2, line2), detail, fill=c.text, font=font, anchor="lm")
    return im


def _badge_pill(
    im: Image.Image,
    x: int,
    cy: float,
    text: str,
    h: int,
    end: float,
    theme: Theme,
    face: Face = "pillow",
) -> int:
    """The accent-coloured pill that says a teleport or resurrection is on offer; returns
    where it ends."""
    label, font = _fit(text, max(9, round(h * 0.25)), end - x - h * 0.3, face)
    ph = round(h * 0.36)
    pw = round(font.getlength(label) + h * 0.28)
    ImageDraw.Draw(im).rounded_rectangle(
        [x, cy - ph / 2, x + pw, cy + ph / 2], radius=ph // 2, fill=theme.accent
    )
    flat_text(im, (x + pw / 2, cy), label, fill=theme.accent_text, font=font, anchor="mm")
    return x + pw


def _grouped(keys: tuple[str, ...]) -> list[tuple[str, int]]:
    """Equal keys together, in the given order, with how many there are."""
    out: dict[str, int] = {}
    for k in keys:
        out[k] = out.get(k, 0) + 1
    return list(out.items())


def draw_side(side: Side, w: int, h: int, theme: Theme, speech: Speech = ENGLISH) -> Image.Image:
    """A player's bar: their stone and name, then the pieces waiting off the board, still to
    place, and lost: each kind once, with its count, as a plain silhouette in the player's
    own colour on a light tray (so that black pieces show on the dark page)."""
    c = colours(theme)
    bg = c.bar_turn if side.to_move else c.page
    im = Image.new("RGB", (w, h), bg)
    d = ImageDraw.Draw(im)
    pad = max(3, round(h * 0.2))
    cy = h / 2
    x = pad
    r = h * 0.22
    _disc(d, x, cy, r, side.color, theme)
    x += disc_width(r) + round(pad * 0.6)
    face = speech_face(speech)
    name = drawable(speech(word(COLOR_NAMES[side.color])))
    font = bundled_font(max(10, round(h * 0.42)), face_for(name, face))
    flat_text(im, (x, cy), name, fill=c.text, font=font, anchor="lm")
    x += round(font.getlength(name)) + 2 * pad
    sections: list[tuple[str, list[tuple[str, int]], frozenset[str], str]] = []
    if side.waiting:
        sections.append(
            (
                drawable(speech(word(WAITING))),
                _grouped(side.waiting),
                frozenset(),
                side.waiting_badge,
            )
        )
    if side.stock:
        sections.append((drawable(speech(word(TO_PLACE))), _grouped(side.stock), side.offered, ""))
    if side.lost:
        sections.append((drawable(speech(word(LOST))), _grouped(side.lost), frozenset(), ""))
    icon_px = bar_icon_px(h)
    captions = "".join(caption for caption, *_ in sections)
    cap_font = bundled_font(max(9, round(h * 0.3)), face_for(captions, face))
    count_font = bundled_font(max(9, round(h * 0.34)), face)
    ink = theme.piece_white_outline  # the counts, dark on the tray
    inset = max(2, icon_px // 10)
    top = round(cy - icon_px / 2)
    for caption, groups, offered, badge in sections:
        flat_text(im, (x, cy), caption, fill=c.dim_text, font=cap_font, anchor="lm", crisp=True)
        x += round(cap_font.getlength(caption)) + max(3, h // 8)
        tags = [f"x{n}" if n > 1 else "" for _, n in groups]
        widths = [icon_px + (round(count_font.getlength(t)) + inset if t else 0) for t in tags]
        shown = 0
        while shown < len(groups) and x + sum(widths[: shown + 1]) + 2 * inset <= w - pad:
            shown += 1
        if shown:
            tray_w = sum(widths[:shown]) + 2 * inset
            d.rounded_rectangle(
                [x, top - inset, x + tray_w - 1, top + icon_px + inset - 1],
                radius=round(icon_px * 0.2),
                fill=c.chip,
            )
            x += inset
        for (key, _), tag, wd in zip(groups[:shown], tags, widths, strict=False):
            if key in offered:
                d.rounded_rectangle(
                    [x, top, x + icon_px - 1, top + icon_px - 1],
                    radius=round(icon_px * 0.2),
                    fill=c.offered,
                )
            spr = plain_icon(key, side.color, icon_px, theme)
            im.paste(spr, (x, top), spr)
            if badge:
                b = value_badge(badge, bar_badge_px(icon_px), theme)
                im.paste(b, (x + icon_px - b.width, top + icon_px - b.height), b)
            if tag:
                flat_text(
                    im, (x + icon_px, cy), tag, fill=ink, font=count_font, anchor="lm", crisp=True
                )
            x += wd
        if shown < len(groups):
            flat_text(im, (x + inset, cy), "...", fill=c.dim_text, font=count_font, anchor="lm")
            return im
        x += inset + max(4, h // 3)
    return im
