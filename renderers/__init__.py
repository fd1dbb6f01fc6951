"""Board images, piece sprites and dice, drawn with Pillow only."""

from __future__ import annotations

from .board import render_image, render_png
from .dice import draw_die, render_dice, render_dice_png, value_badge
from .gif import render_gif
from .sprites import piece_kinds, piece_sprite, raven_sprite
from .themes import CLASSIC, HIGH_CONTRAST, THEMES, Theme, get_theme

__all__ = [
    "CLASSIC",
    "HIGH_CONTRAST",
    "THEMES",
    "Theme",
    "draw_die",
    "get_theme",
    "piece_kinds",
    "piece_sprite",
    "raven_sprite",
    "render_dice",
    "render_dice_png",
    "render_gif",
    "render_image",
    "render_png",
    "value_badge",
]
