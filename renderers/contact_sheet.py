"""A contact sheet of every sprite and some dice, for looking at the art.

    python -m renderers.contact_sheet OUT.png

For each theme: every piece kind in both colours on a light and a dark square at
50 px and 100 px, the Raven in all four facings, and a few dice rolls.
"""

from __future__ import annotations

import sys

from PIL import Image, ImageDraw

from .dice import render_dice, value_badge
from .sprites import FACINGS, PIECE_NAMES, piece_kinds, piece_sprite, raven_sprite
from .themes import THEMES, Theme
from .typeface import bundled_font


def _theme_block(theme: Theme) -> Image.Image:
    kinds = piece_kinds()
    label_h = 16
    per_line = 7
    rows: list[Image.Image] = []
    for sq in (50, 100):
        for start in range(0, len(kinds), per_line):
            chunk = kinds[start : start + per_line]
            w = per_line * 2 * sq + (per_line - 1) * 6
            row = Image.new("RGB", (w, label_h + 2 * sq), theme.background)
            d = ImageDraw.Draw(row)
            for i, kind in enumerate(chunk):
                x = i * (2 * sq + 6)
                label = f"{kind} {PIECE_NAMES[kind]}"[: 2 * sq // 6]
                d.text((x + 2, 2), label, fill=theme.text, font=bundled_font(11))
                for j, color in enumerate(("white", "black")):
                    for k, sq_col in enumerate((theme.light_square, theme.dark_square)):
                        ox, oy = x + k * sq, label_h + j * sq
                        d.rectangle([ox, oy, ox + sq - 1, oy + sq - 1], fill=sq_col)
                        spr = piece_sprite(kind, color, sq, theme)
                        row.paste(spr, (ox, oy), spr)
                        if kind == "T":  # how a renderer might show the Tquarc's value
                            b = value_badge(1 + k + 2 * j, sq * 2 // 5, theme)
                            row.paste(b, (ox + sq - b.width, oy + sq - b.height), b)
            rows.append(row)
    # ravens in every facing, and dice
    extra_h = 100 + 2 * 96 + 40
    extra = Image.new("RGB", (max(r.width for r in rows), extra_h), theme.background)
    x = 0
    for color in ("white", "black"):
        for f_i, facing in enumerate(FACINGS):
            sq_col = (theme.light_square, theme.dark_square)[f_i % 2]
            ImageDraw.Draw(extra).rectangle([x, 0, x + 59, 59], fill=sq_col)
            spr = raven_sprite(color, 60, theme, facing)
            extra.paste(spr, (x, 0), spr)
            ImageDraw.Draw(extra).text((x + 24, 62), facing, fill=theme.text, font=bundled_font(12))
            x += 62
    x += 20
    for dice, sides in (
        ([1, 2, 3, 4, 5, 6], 6),
        ([1, 2, 3, 4], 4),
        ([20, 7, 100, 1000], [20, 8, 100, 1000]),
    ):
        im = render_dice(dice, sides, size=48, theme=theme)
        extra.paste(im, (x, 0))
        x += im.width + 10
    big = render_dice(list(range(1, 7)) * 3, 6, size=32, theme=theme)
    extra.paste(big, (0, 82))
    d6 = render_dice([3, 5], 6, size=96, theme=theme)
    extra.paste(d6, (big.width + 10, 82))
    d4 = render_dice([2, 4], 4, size=96, theme=theme)
    extra.paste(d4, (big.width + d6.width + 20, 82))
    rows.append(extra)
    out = Image.new(
        "RGB",
        (max(r.width for r in rows), sum(r.height for r in rows) + 10 * len(rows)),
        theme.background,
    )
    y = 0
    for r in rows:
        out.paste(r, (0, y))
        y += r.height + 10
    return out


def contact_sheet() -> Image.Image:
    blocks = [_theme_block(t) for t in THEMES.values()]
    out = Image.new(
        "RGB", (max(b.width for b in blocks), sum(b.height for b in blocks) + 20), (128, 128, 128)
    )
    y = 0
    for b in blocks:
        out.paste(b, (0, y))
        y += b.height + 20
    return out


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m renderers.contact_sheet OUT.png", file=sys.stderr)
        return 2
    contact_sheet().save(args[0])
    print(args[0])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
