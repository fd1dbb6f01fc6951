"""The fonts the pictures draw their words with.

- Pillow's own font (Aileron, ``ImageFont.load_default``) draws English: it has ASCII and
  a few signs (the degree, the middle dot, curly quotes) but no accented letter.
- DejaVu Sans, bundled in ``renderers/fonts/`` with its licence, draws every other
  language (German's umlauts and sharp s, and most Latin, Greek and Cyrillic letters).

A picture in a language other than English draws all its words in DejaVu Sans
(``speech_face``), so that a strip does not change font from one word to the next; an
English picture keeps Pillow's font, byte for byte as before, and switches to DejaVu
Sans only for a text Pillow's font cannot draw (``face_for``: a player's name with an
accent on the analysis graph or the standings).
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache
from pathlib import Path
from typing import Literal

from PIL import ImageFont

from .speech import Speech, is_english

Face = Literal["pillow", "dejavu"]
Font = ImageFont.FreeTypeFont | ImageFont.ImageFont

FONTS = Path(__file__).with_name("fonts")
DEJAVU_SANS = FONTS / "DejaVuSans.ttf"
# A character no font here has: its mask is the missing-glyph box.
_NO_GLYPH = "\U0010fffd"

# Stand-ins for signs the pictures write plainly in every language.
_PLAIN = {
    "\u00d7": "x",
    "\u2014": "-",
    "\u2013": "-",
    "\u2192": "->",
    "\u00a5": "Y",
    "\u201e": '"',
    "\u201c": '"',
}


@lru_cache(maxsize=64)
def _pillow_font(px: int) -> Font:
    try:
        return ImageFont.load_default(size=px)
    except (ImportError, OSError, TypeError):  # Pillow built without FreeType
        return ImageFont.load_default()


@lru_cache(maxsize=64)
def _dejavu_font(px: int) -> Font:
    try:
        return ImageFont.truetype(str(DEJAVU_SANS), px)
    except (ImportError, OSError):  # no FreeType: the bitmap font, without umlauts
        return _pillow_font(px)


def bundled_font(px: int, face: Face = "pillow") -> Font:
    """The font ``face`` at ``px`` pixels: Pillow's own (a bitmap one when Pillow has no
    FreeType) or DejaVu Sans."""
    return _dejavu_font(px) if face == "dejavu" else _pillow_font(px)


@lru_cache(maxsize=4096)
def has_glyph(face: Face, ch: str) -> bool:
    """Whether ``face`` draws ``ch`` (a space always counts as drawn)."""
    if ch.isspace():
        return True
    font = bundled_font(16, face)
    return bytes(font.getmask(ch)) != bytes(font.getmask(_NO_GLYPH))


def speech_face(speech: Speech) -> Face:
    """The face a picture said by ``speech`` draws its words in."""
    return "pillow" if is_english(speech) else "dejavu"


def face_for(text: str, face: Face = "pillow") -> Face:
    """``face`` when it draws every character of ``text``, else DejaVu Sans."""
    if face == "pillow" and not all(ch.isascii() or has_glyph("pillow", ch) for ch in text):
        return "dejavu"
    return face


def _bare(ch: str) -> str:
    """A letter without its accents ('e' for 'e acute'), or '?' when it has no plain form."""
    base = "".join(c for c in unicodedata.normalize("NFKD", ch) if c.isascii())
    return base or "?"


def drawable(text: str) -> str:
    """``text`` as a picture can write it: the signs of ``_PLAIN`` written plainly, and a
    character that neither font has without its accents (or as '?')."""
    out = []
    for ch in text:
        if ch in _PLAIN:
            out.append(_PLAIN[ch])
        elif ch.isascii() or has_glyph("pillow", ch) or has_glyph("dejavu", ch):
            out.append(ch)
        else:
            out.append(_bare(ch))
    return "".join(out)
