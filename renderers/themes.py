"""Colour themes for board images, piece sprites and dice.

A ``Theme`` is a frozen (hashable) dataclass, so it can key caches directly.
Colours are RGB tuples; overlays that are blended over squares are RGBA tuples
whose alpha says how strongly they tint the square below.

``CLASSIC`` is the familiar brown wood board. ``HIGH_CONTRAST`` uses near-white
and near-black squares and highlights from the Okabe-Ito palette (yellow,
vermillion, blue, orange), which stay distinct for the common kinds of colour
blindness.
"""

from __future__ import annotations

from dataclasses import dataclass

RGB = tuple[int, int, int]
RGBA = tuple[int, int, int, int]


@dataclass(frozen=True)
class Theme:
    name: str
    # board
    light_square: RGB
    dark_square: RGB
    coord_text: RGB
    last_move: RGBA  # overlay on the from- and to-squares of the last move
    check: RGBA  # overlay on a King in check
    terrace_shade: RGBA  # overlay on Guardener terrace squares
    quad_outline: RGB  # Tquarchess quad borders and their numbers
    # pieces
    piece_white_fill: RGB
    piece_white_outline: RGB
    piece_black_fill: RGB
    piece_black_outline: RGB
    # a thin outermost rim around black pieces, so their light outline reads on light squares
    piece_edge: RGB
    # the outline ring of a black piece: dark (no rim then) where the dark squares are light
    # enough for a black silhouette, light where they are not
    piece_black_ring: RGB
    # badges (Tquarc value, promoted King, counters)
    badge_fill: RGB
    badge_outline: RGB
    badge_text: RGB
    # dice
    die_face: RGB
    die_edge: RGB
    die_pip: RGB
    # page
    background: RGB
    text: RGB
    # the badge that says a teleport or resurrection is on offer
    accent: RGB
    accent_text: RGB


CLASSIC = Theme(
    name="classic",
    light_square=(240, 217, 181),
    dark_square=(181, 136, 99),
    coord_text=(222, 210, 190),
    last_move=(205, 210, 106, 150),
    check=(230, 40, 30, 150),
    terrace_shade=(110, 150, 90, 110),
    quad_outline=(60, 90, 150),
    piece_white_fill=(250, 247, 240),
    piece_white_outline=(38, 33, 30),
    piece_black_fill=(44, 40, 38),
    piece_black_outline=(232, 222, 204),
    piece_edge=(20, 18, 16),
    piece_black_ring=(20, 18, 16),
    badge_fill=(196, 48, 42),
    badge_outline=(255, 255, 255),
    badge_text=(255, 255, 255),
    die_face=(250, 247, 240),
    die_edge=(60, 50, 44),
    die_pip=(40, 34, 30),
    background=(48, 46, 43),
    text=(235, 230, 220),
    accent=(242, 188, 66),
    accent_text=(36, 28, 20),
)

HIGH_CONTRAST = Theme(
    name="high-contrast",
    light_square=(245, 245, 245),
    dark_square=(58, 58, 58),
    coord_text=(255, 255, 255),
    last_move=(240, 228, 66, 190),  # Okabe-Ito yellow
    check=(213, 94, 0, 210),  # Okabe-Ito vermillion
    terrace_shade=(0, 114, 178, 120),  # Okabe-Ito blue
    quad_outline=(230, 159, 0),  # Okabe-Ito orange
    piece_white_fill=(255, 255, 255),
    piece_white_outline=(0, 0, 0),
    piece_black_fill=(0, 0, 0),
    piece_black_outline=(255, 255, 255),
    piece_edge=(0, 0, 0),
    piece_black_ring=(255, 255, 255),
    badge_fill=(0, 114, 178),
    badge_outline=(255, 255, 255),
    badge_text=(255, 255, 255),
    die_face=(255, 255, 255),
    die_edge=(0, 0, 0),
    die_pip=(0, 0, 0),
    background=(0, 0, 0),
    text=(255, 255, 255),
    accent=(230, 159, 0),  # Okabe-Ito orange
    accent_text=(0, 0, 0),
)

THEMES: dict[str, Theme] = {CLASSIC.name: CLASSIC, HIGH_CONTRAST.name: HIGH_CONTRAST}


def get_theme(theme: Theme | str) -> Theme:
    """A Theme, or the theme registered under that name (KeyError lists the names)."""
    if isinstance(theme, Theme):
        return theme
    try:
        return THEMES[theme]
    except KeyError:
        raise KeyError(f"unknown theme {theme!r}; choose from {', '.join(THEMES)}") from None
