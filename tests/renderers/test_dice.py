from __future__ import annotations

import io
from pathlib import Path

import pytest
from PIL import Image

from renderers import dice, prebuilt
from renderers.dice import (
    MAX_PIP_DICE,
    PER_ROW,
    draw_die,
    render_dice,
    render_dice_png,
    to_png,
    value_badge,
)
from renderers.themes import CLASSIC, HIGH_CONTRAST, THEMES, Theme


def _at(im: Image.Image, x: int, y: int) -> int:
    """One pixel of a single-band image."""
    v = im.getpixel((x, y))
    assert isinstance(v, int)
    return v


def _blobs(image: Image.Image, dark: int = 100, max_area: int = 400) -> int:
    """Connected (4-neighbour) regions of dark, opaque pixels, smaller than ``max_area``.

    On a 96 px face a pip is about 100-150 pixels; the die's edge is one long blob of
    many hundreds, so it is not counted.
    """
    rgba = image.convert("RGBA")
    w, h = rgba.size
    data = rgba.tobytes()
    ink = set()
    for y in range(h):
        for x in range(w):
            r, g, b, a = data[4 * (y * w + x) : 4 * (y * w + x) + 4]
            if a > 200 and (r + g + b) / 3 < dark:
                ink.add((x, y))
    seen: set[tuple[int, int]] = set()
    count = 0
    for start in ink:
        if start in seen:
            continue
        area = 0
        stack = [start]
        seen.add(start)
        while stack:
            x, y = stack.pop()
            area += 1
            for n in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
                if n in ink and n not in seen:
                    seen.add(n)
                    stack.append(n)
        count += 1 if area < max_area else 0
    return count


@pytest.mark.parametrize("theme", [CLASSIC, HIGH_CONTRAST], ids=["classic", "high-contrast"])
@pytest.mark.parametrize("value", range(1, 7))
def test_d6_shows_its_pips_when_asked(value: int, theme: Theme) -> None:
    face = draw_die(value, 6, 96, theme, pips=True)
    assert face.mode == "RGBA" and face.size == (96, 96)
    assert _blobs(face) == value


@pytest.mark.parametrize("value", range(1, 5))
def test_d4_is_a_triangle_with_pips_when_asked(value: int) -> None:
    face = draw_die(value, 4, 96, CLASSIC, pips=True)
    alpha = face.getchannel("A")
    # a triangle: narrow near the top, wide near the bottom, clear in the top corners
    assert _at(alpha, 2, 2) == 0 and _at(alpha, 93, 2) == 0
    top = sum(1 for x in range(96) if _at(alpha, x, 20) > 128)
    bottom = sum(1 for x in range(96) if _at(alpha, x, 75) > 128)
    assert top < bottom / 2
    assert _blobs(face) == value


def test_numbers_for_big_dice() -> None:
    face = draw_die(1000, 1000, 96, CLASSIC)
    assert face.size == (96, 96)
    # four digits (the 0s have holes but are one blob each) and the small "d1000" tag
    assert _blobs(face) >= 4
    assert draw_die(20, 20, 96, CLASSIC) is draw_die(20, 20, 96, "classic")


def _decode(data: bytes) -> Image.Image:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    im = Image.open(io.BytesIO(data))
    im.load()
    return im


def _expected(n: int, size: int) -> tuple[int, int]:
    gap = max(2, size // 8)
    cols = min(n, PER_ROW)
    rows = -(-n // PER_ROW)
    return cols * size + (cols + 1) * gap, rows * size + (rows + 1) * gap


@pytest.mark.parametrize("theme", list(THEMES))
def test_dice_png_decodes_with_expected_size(theme: str) -> None:
    im = _decode(render_dice_png([3, 5], theme=theme))
    assert im.mode == "P"
    assert im.size == _expected(2, 96)
    im = _decode(render_dice_png([1, 4], 4, size=48, theme=theme))
    assert im.size == _expected(2, 48)


def test_mixed_dice_and_wrapping() -> None:
    im = _decode(render_dice_png([4, 17, 250], [6, 20, 1000], size=64))
    assert im.size == _expected(3, 64)
    many = list(range(1, 7)) * 5  # 30 dice: numbers, three rows
    im = _decode(render_dice_png(many, size=40))
    assert im.size == _expected(30, 40)
    assert len(many) > MAX_PIP_DICE


def test_more_than_twelve_dice_show_numbers_even_when_pips_are_asked() -> None:
    """A 1 on a d6 is one pip; among more than 12 dice it is the numeral instead."""
    few = render_dice([1], 6, size=96, pips=True)
    many = render_dice([1] * 13, 6, size=96, pips=True)
    gap = 96 // 8
    first_few = few.crop((gap, gap, gap + 96, gap + 96))
    first_many = many.crop((gap, gap, gap + 96, gap + 96))
    assert first_few.tobytes() != first_many.tobytes()
    assert _blobs(first_few) == 1


def test_png_is_small() -> None:
    assert len(render_dice_png([6, 6])) < 6000


def test_bad_rolls() -> None:
    with pytest.raises(ValueError):
        render_dice_png([7])
    with pytest.raises(ValueError):
        render_dice_png([0])
    with pytest.raises(ValueError):
        render_dice_png([1, 2], [6])
    with pytest.raises(ValueError):
        render_dice_png([])
    with pytest.raises(ValueError):
        render_dice_png([1] * 1000)
    with pytest.raises(ValueError):
        draw_die(5, 4, 96, CLASSIC)


@pytest.mark.parametrize("theme", list(THEMES))
def test_value_badge(theme: str) -> None:
    badge = value_badge(3, 20, theme)
    assert badge.mode == "RGBA" and badge.size == (20, 20)
    alpha = badge.getchannel("A")
    assert _at(alpha, 10, 10) == 255 and _at(alpha, 0, 0) == 0  # a disc
    assert value_badge("3", 20, theme) is badge
    # the label is drawn: the middle is not a flat fill
    assert len(set(badge.crop((5, 5, 15, 15)).convert("RGB").getcolors(256) or [])) > 1


# ----- numerals -------------------------------------------------------------------------


def _ink_box(face: Image.Image, dark: int = 110) -> tuple[int, int, int, int] | None:
    """The box of the numeral: the dark, opaque regions of the face other than its edge
    (the edge is the one region spanning most of the face's width)."""
    rgba = face.convert("RGBA")
    w, h = rgba.size
    data = rgba.tobytes()
    ink = {
        (x, y)
        for y in range(h)
        for x in range(w)
        if data[4 * (y * w + x) + 3] > 200
        and sum(data[4 * (y * w + x) : 4 * (y * w + x) + 3]) / 3 < dark
    }
    seen: set[tuple[int, int]] = set()
    boxes = []
    for start in ink:
        if start in seen:
            continue
        stack, region = [start], []
        seen.add(start)
        while stack:
            x, y = stack.pop()
            region.append((x, y))
            for n in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
                if n in ink and n not in seen:
                    seen.add(n)
                    stack.append(n)
        xs, ys = [p[0] for p in region], [p[1] for p in region]
        if max(xs) - min(xs) < 0.75 * w:
            boxes.append((min(xs), min(ys), max(xs) + 1, max(ys) + 1))
    if not boxes:
        return None
    return (
        min(b[0] for b in boxes),
        min(b[1] for b in boxes),
        max(b[2] for b in boxes),
        max(b[3] for b in boxes),
    )


@pytest.mark.parametrize("theme", [CLASSIC, HIGH_CONTRAST], ids=["classic", "high-contrast"])
@pytest.mark.parametrize("sides", [4, 6])
def test_dice_show_large_numerals_by_default(sides: int, theme: Theme) -> None:
    faces = [draw_die(v, sides, 96, theme) for v in range(1, sides + 1)]
    for face in faces:
        box = _ink_box(face)
        assert box is not None
        # a numeral, not pips: a glyph at least 38 % (d4: inside the triangle) or 50 % (d6)
        # of the face tall, and taller than wide
        assert box[3] - box[1] >= (0.38 if sides == 4 else 0.5) * 96
        assert box[3] - box[1] > box[2] - box[0]
    # every value looks different
    assert len({f.tobytes() for f in faces}) == sides
    # and unlike the pips the same value shows with pips=True
    assert faces[0].tobytes() != draw_die(1, sides, 96, theme, pips=True).tobytes()


@pytest.mark.parametrize("sides", [4, 6])
def test_thumbnail_numerals_read_at_discord_thumbnail_width(sides: int) -> None:
    """Discord shows the embed's thumbnail at most 80 px wide: the numerals of a two-dice
    roll must still stand at least 12 px tall there (pips were a grey dot)."""
    png = render_dice_png([1, sides], sides)
    im = _decode(png).convert("RGB")
    scale = 80 / im.width
    small = im.resize((80, round(im.height * scale)), Image.Resampling.LANCZOS)
    size = round(96 * scale)
    gap = round(96 // 8 * scale)
    for i in range(2):
        x0 = gap + i * (size + gap)
        face = small.crop((x0, gap, x0 + size, gap + size)).convert("RGBA")
        box = _ink_box(face, dark=120)
        assert box is not None and box[3] - box[1] >= 12


# ----- the roll PNGs kept (issue 26) ------------------------------------------------


ROLLS: list[tuple[tuple[int, ...], int | tuple[int, ...]]] = [
    ((1, 2), 4),
    ((2, 1), 4),  # the same faces the other way round: another picture
    ((4, 4), 4),
    ((3,), 4),
    ((3,), 6),
    ((6, 5), 6),
    ((2, 7), (6, 8)),
]


@pytest.mark.parametrize("theme", [CLASSIC, HIGH_CONTRAST], ids=["classic", "high-contrast"])
def test_a_kept_roll_is_the_png_drawn_afresh(theme: Theme) -> None:
    """Every roll, from memory, from the render cache on disk and drawn anew, is the
    same PNG, byte for byte, as quantising and encoding its picture now."""
    fresh = {roll: to_png(render_dice(*roll, theme=theme)) for roll in ROLLS}
    assert len(set(fresh.values())) == len(ROLLS)  # every roll looks different
    dice._kept_dice_png.cache_clear()
    first = {roll: render_dice_png(*roll, theme=theme) for roll in ROLLS}
    misses = dice._kept_dice_png.cache_info().misses
    again = {roll: render_dice_png(*roll, theme=theme) for roll in ROLLS}
    assert dice._kept_dice_png.cache_info().misses == misses  # all from memory
    dice._kept_dice_png.cache_clear()
    from_disk = {roll: render_dice_png(*roll, theme=theme) for roll in ROLLS}
    assert first == again == from_disk == fresh


def test_a_damaged_kept_roll_is_drawn_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(prebuilt.ENV, str(tmp_path))
    prebuilt.reset()
    dice._kept_dice_png.cache_clear()
    want = to_png(render_dice((2, 3), 4))
    assert render_dice_png((2, 3), 4) == want
    (path,) = [p for p in tmp_path.glob("render-*/dice_png-*.bin")]
    key = ((2, 3), 4, 96, CLASSIC)
    assert prebuilt.load_bytes("dice_png", key) == want  # the file read back below
    for damaged in (b"not a png", path.read_bytes()[:-4]):
        if damaged == b"not a png":
            prebuilt.save_bytes("dice_png", key, damaged)  # whole, but no PNG
            assert prebuilt.load_bytes("dice_png", key) == damaged
        else:
            path.write_bytes(damaged)
        dice._kept_dice_png.cache_clear()
        assert render_dice_png((2, 3), 4) == want
    prebuilt.reset()


def test_wrong_rolls_are_refused_every_time_and_big_rolls_are_not_kept() -> None:
    dice._kept_dice_png.cache_clear()
    for _ in range(2):
        with pytest.raises(ValueError, match="shows 1..4"):
            render_dice_png((2, 5), 4)
        with pytest.raises(ValueError, match="side counts"):
            render_dice_png((2, 3), (4,))
    big = tuple(range(1, 7)) * 2
    assert render_dice_png(big, 6) == to_png(render_dice(big, 6))
    assert dice._kept_dice_png.cache_info().currsize == 0
