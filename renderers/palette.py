"""One fixed palette per theme, so board pictures are composed and encoded in palette mode.

Every layer (the empty board, square tiles, the status strip, the player bars) is
drawn in RGB once, then mapped onto the theme's palette. Because all layers share one
palette, composing a picture is plain pasting of palette indices, and the GIF replay
needs a single global palette.

The palette is adaptive: the theme's flat colours (squares, highlights, page, text)
are put in exactly, and the rest is a median-cut of a sample of everything the
renderer draws: every sprite in both colours on every kind of square, dice, badges
and text.

Drawing that sample and cutting it takes about 100 ms per palette, which a restarted bot
used to pay before its first picture. So the palettes of the registered themes are
computed once, here, and kept in ``palette_data.py`` (``python -m renderers.regenerate``
writes it); ``palette_image`` reads them from there, and computes only the palette of a
theme that is not registered. A test recomputes every stored palette and fails when the
drawing changed and the file was not written again.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from PIL import Image, ImageDraw

from .dice import draw_die, value_badge
from .palette_data import PALETTES
from .sprites import piece_colours, piece_kinds, piece_sprite
from .themes import RGB, RGBA, THEMES, Theme
from .typeface import bundled_font

CUT_COLORS = 12  # median-cut colours besides the exact ones: few keep the PNG small
NEAR = 8  # a cut colour this close (per channel) to an exact one is left out


def mix(a: RGB, b: RGB, t: float) -> RGB:
    """``a`` moved a share ``t`` of the way toward ``b``."""
    return (
        round(a[0] + (b[0] - a[0]) * t),
        round(a[1] + (b[1] - a[1]) * t),
        round(a[2] + (b[2] - a[2]) * t),
    )


def over(base: RGB, overlay: RGBA) -> RGB:
    """``overlay`` blended over ``base`` by its alpha."""
    return mix(base, overlay[:3], overlay[3] / 255)


@dataclass(frozen=True)
class Colours:
    """The flat colours of a picture, derived from a theme."""

    page: RGB  # background, holes, bars
    bar_turn: RGB  # the bar of the side to move
    text: RGB
    dim_text: RGB  # captions
    coord: RGB
    light: RGB
    dark: RGB
    last_move: RGBA
    check: RGBA
    terrace: RGBA
    zone_line: RGB
    next_ring: RGB  # the square a Jepps setup fills next
    offered: RGB  # backdrop of a piece the dice offer
    label: RGB  # the pill behind a terrace's label
    chip: RGB  # the square behind a piece in a player's bar
    alert: RGB  # words that must stand out: check, the result

    def square_bases(self, terraces: bool = False) -> list[RGB]:
        """Every flat colour a square can have: plain (or terrace), and with each highlight."""
        out = []
        for sq in (self.light, self.dark):
            for base in (sq, over(sq, self.terrace)) if terraces else (sq,):
                out += [base, over(base, self.last_move), over(base, self.check)]
        return out


@lru_cache(maxsize=8)
def colours(theme: Theme) -> Colours:
    return Colours(
        page=theme.background,
        bar_turn=mix(theme.background, theme.text, 0.16),
        text=theme.text,
        dim_text=mix(theme.background, theme.text, 0.7),
        coord=theme.coord_text,
        light=theme.light_square,
        dark=theme.dark_square,
        last_move=theme.last_move,
        check=theme.check,
        terrace=theme.terrace_shade,
        zone_line=theme.quad_outline,
        next_ring=theme.last_move[:3],
        offered=mix(theme.background, theme.last_move[:3], 0.55),
        label=over(theme.background, theme.terrace_shade[:3] + (200,)),
        chip=mix(theme.light_square, theme.dark_square, 0.35),
        alert=mix(theme.check[:3], theme.text, 0.2),
    )


def _sample(theme: Theme, terraces: bool) -> Image.Image:
    """Everything the renderer draws, small, for the median cut."""
    c = colours(theme)
    bases = c.square_bases(terraces) + [c.page, c.bar_turn, c.offered]
    kinds = piece_kinds()
    cell = 44
    w = cell * len(kinds) * 2
    im = Image.new("RGB", (w, cell * len(bases) + 120), c.page)
    for row, base in enumerate(bases):
        y = row * cell
        im.paste(base, (0, y, w, y + cell))
        for i, kind in enumerate(kinds):
            for j, color in enumerate(("white", "black")):
                spr = piece_sprite(kind, color, cell, theme)
                im.paste(spr, ((2 * i + j) * cell, y), spr)
    y = cell * len(bases)
    x = 0
    for v in (1, 2, 3, 4):
        for sides in (4, 6):
            die = draw_die(v, sides, 40, theme)
            im.paste(die, (x, y), die)
            x += 42
        badge = value_badge(v, 24, theme)
        im.paste(badge, (x, y), badge)
        x += 26
    d = ImageDraw.Draw(im)
    for i, (text, fill) in enumerate(
        (("White to move abcdefgh 0123456789", c.text), ("lost waiting T1 Q2", c.dim_text))
    ):
        d.text((4, y + 44 + 18 * i), text, fill=fill, font=bundled_font(14))
        d.text((400, y + 44 + 18 * i), text, fill=c.coord, font=bundled_font(14))
    return im


@lru_cache(maxsize=8)
def palette_image(theme: Theme, terraces: bool = False) -> Image.Image:
    """A 'P' image holding the palette of boards in ``theme`` (with terrace colours or
    not), for ``Image.quantize(palette=...)``: the stored one for a registered theme."""
    stored = PALETTES.get((theme.name, terraces)) if THEMES.get(theme.name) == theme else None
    entries = list(stored) if stored is not None else palette_entries(theme, terraces)
    pal = Image.new("P", (1, 1))
    pal.putpalette(entries)
    return pal


def palette_entries(theme: Theme, terraces: bool = False) -> list[int]:
    """The palette of boards in ``theme`` computed afresh: the flat RGB triples."""
    c = colours(theme)
    exact: list[RGB] = []
    for col in [
        c.page,
        c.bar_turn,
        c.text,
        c.dim_text,
        c.coord,
        c.zone_line,
        c.next_ring,
        c.chip,
        c.offered,
        theme.badge_fill,
        theme.badge_outline,
        theme.accent,
        theme.accent_text,
        theme.die_face,
        theme.die_pip,
        theme.piece_white_fill,
        theme.piece_white_outline,
        theme.piece_black_fill,
        theme.piece_black_outline,
        *piece_colours(0, theme),
        *piece_colours(1, theme),
        *c.square_bases(terraces),
        *([c.label] if terraces else []),
        # the one half-tone at the edge of words (``dice.flat_text``) on what they are written on
        *(
            mix(bg, ink, 0.5)
            for bg in (c.page, c.bar_turn, theme.accent, c.zone_line, c.label)
            for ink in (
                c.text,
                c.dim_text,
                c.coord,
                c.alert,
                theme.accent_text,
                (0, 0, 0),
                (255, 255, 255),
            )
        ),
        # a sprite's half-transparent rim over everything a piece is drawn on
        *(
            mix(base, ink, 0.5)
            for base in c.square_bases(terraces) + [c.page, c.bar_turn, c.offered, c.chip]
            for ink in (theme.piece_white_outline, theme.piece_edge)
        ),
    ]:
        if col not in exact:
            exact.append(col)
    cut = _sample(theme, terraces).quantize(
        CUT_COLORS, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE
    )
    flat = cut.getpalette() or []
    rest: list[RGB] = [(flat[i], flat[i + 1], flat[i + 2]) for i in range(0, 3 * CUT_COLORS, 3)]
    entries: list[int] = []
    # Cut colours next to an exact one would steal its pixels: Pillow maps colours to a
    # palette through a coarse colour cache, so near-twins are dropped.
    rest = [
        r
        for r in rest
        if all(max(abs(a - b) for a, b in zip(r, e, strict=True)) > NEAR for e in exact)
    ]
    for col in exact + rest:
        entries.extend(col)
    return entries


def to_palette(image: Image.Image, palette: Image.Image) -> Image.Image:
    """``image`` (RGB) mapped onto ``palette``, without dithering (crisp)."""
    return image.quantize(palette=palette, dither=Image.Dither.NONE)


def palette_data_source() -> str:
    """The text of ``palette_data.py`` for the registered themes' palettes as drawn now."""
    lines = [
        '"""The board palettes of the registered themes, as ``palette.palette_entries`` computes',
        "them: written by ``python -m renderers.regenerate``, checked by",
        "tests/renderers/test_palette_data.py. Do not edit by hand.",
        '"""',
        "",
        "from __future__ import annotations",
        "",
        "PALETTES: dict[tuple[str, bool], bytes] = {",
    ]
    for name, theme in THEMES.items():
        for terraces in (False, True):
            hexed = bytes(palette_entries(theme, terraces)).hex()
            lines.append(f'    ("{name}", {terraces}): bytes.fromhex(')
            lines += [f'        "{hexed[i : i + 80]}"' for i in range(0, len(hexed), 80)]
            lines.append("    ),")
    lines.append("}")
    return "\n".join(lines) + "\n"
