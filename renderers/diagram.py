"""The piece diagram of ``/rules``: every piece of a variant, white and black, with its
name and notation letter. Composed from ``renderers.piece_sprite``; Pillow only.

"""

from __future__ import annotations

import io
from functools import lru_cache

from PIL import Image, ImageDraw

import variants
from variants.sentence import word

from .speech import ENGLISH, Speech
from .sprites import piece_kinds, piece_sprite
from .themes import get_theme
from .typeface import bundled_font, drawable, face_for, speech_face

SPRITE = 72
CELL_W = 2 * SPRITE + 24
CELL_H = SPRITE + 44
COLUMNS = 4
MARGIN = 12


def variant_pieces(key: str) -> list[tuple[str, str, str]]:
    """``(sprite kind, name, letter)`` for each piece type of the variant, in its order."""
    rules = variants.rules(key)
    kinds = set(piece_kinds())
    seen: set[str] = set()
    out: list[tuple[str, str, str]] = []
    for piece in rules.piece_types:
        kind = piece.id
        if "promoted" in piece.name.lower() and "KP" in kinds:
            kind = "KP"
        if kind in seen or kind not in kinds:
            continue
        seen.add(kind)
        out.append((kind, piece.name, piece.letter))
    return out


@lru_cache(maxsize=16)
def piece_diagram_png(key: str, theme: str = "classic", speech: Speech = ENGLISH) -> bytes:
    """A PNG grid of the variant's pieces, each as a white and a black sprite over its name
    (said by ``speech``: the reader's language, issue 27)."""
    pieces = variant_pieces(key)
    palette = get_theme(theme)
    rows = max(1, -(-len(pieces) // COLUMNS))
    columns = min(COLUMNS, max(1, len(pieces)))
    width = 2 * MARGIN + columns * CELL_W
    height = 2 * MARGIN + rows * CELL_H
    image = Image.new("RGB", (width, height), palette.light_square)
    draw = ImageDraw.Draw(image)
    face = speech_face(speech)
    for index, (kind, name, letter) in enumerate(pieces):
        x = MARGIN + (index % COLUMNS) * CELL_W
        y = MARGIN + (index // COLUMNS) * CELL_H
        draw.rounded_rectangle(
            (x + 2, y + 2, x + CELL_W - 4, y + CELL_H - 4), radius=8, fill=palette.dark_square
        )
        for side, colour in enumerate(("white", "black")):
            sprite = piece_sprite(kind, colour, SPRITE, palette)
            image.paste(sprite, (x + 8 + side * (SPRITE + 4), y + 6), sprite)
        label = f"{drawable(speech(word(name)))} ({letter})"
        font = bundled_font(15, face_for(label, face))
        left, top, right, bottom = draw.textbbox((0, 0), label, font=font)
        draw.text(
            (x + (CELL_W - (right - left)) / 2, y + SPRITE + 14),
            label,
            font=font,
            fill=palette.coord_text,
        )
    pal = image.convert("P", palette=Image.Palette.ADAPTIVE, colors=128)
    out = io.BytesIO()
    pal.save(out, format="PNG", optimize=True)
    return out.getvalue()
