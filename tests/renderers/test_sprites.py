from __future__ import annotations

import itertools

import pytest
from PIL import Image, ImageChops

from renderers.sprites import piece_kinds, piece_sprite, raven_sprite, silhouette
from renderers.themes import CLASSIC, HIGH_CONTRAST, THEMES, Theme, get_theme

ALL_KINDS = {"K", "Q", "R", "B", "N", "P", "G", "T", "H", "O", "I", "PO", "RA", "KP"}

# Two silhouettes count as distinct when the pixels in which their 64 px masks differ
# make up more than this share of the pixels either covers (Jaccard distance). A piece
# covers about 630-1,200 of the 4,096 pixels, so the union of two is at least ~1,000
# and 15% of it is 150+ pixels: a region about 12 px across, a third of the piece's
# width - a whole crown, cross, head or base. For scale: shifting one silhouette by a
# single pixel scores 0.10-0.13 against itself, so 0.15 is more than "the same shape,
# nudged". The closest real pair (King/Guardener, which share the body by design) is
# about 0.19.
MIN_SILHOUETTE_DISTANCE = 0.15


def _at(im: Image.Image, x: int, y: int) -> int:
    """One pixel of a single-band image."""
    v = im.getpixel((x, y))
    assert isinstance(v, int)
    return v


def _count(mask: Image.Image) -> int:
    return sum(1 for v in mask.convert("L").tobytes() if v)


def _binary(kind: str, size: int) -> Image.Image:
    return silhouette(kind, size).point(lambda v: 255 if v >= 128 else 0).convert("1")


def test_piece_kinds_cover_every_piece() -> None:
    assert set(piece_kinds()) == ALL_KINDS
    assert len(piece_kinds()) == len(ALL_KINDS)


@pytest.mark.parametrize("theme", list(THEMES.values()), ids=list(THEMES))
@pytest.mark.parametrize("size", [50, 100])
@pytest.mark.parametrize("color", ["white", "black"])
@pytest.mark.parametrize("kind", sorted(ALL_KINDS))
def test_sprite_renders_with_alpha(kind: str, color: str, size: int, theme: Theme) -> None:
    im = piece_sprite(kind, color, size, theme)
    assert im.mode == "RGBA"
    assert im.size == (size, size)
    alpha = im.getchannel("A")
    opaque = _count(alpha.point(lambda v: 255 if v > 200 else 0))
    clear = _count(alpha.point(lambda v: 255 if v < 10 else 0))
    assert opaque > 0.15 * size * size  # a real piece, not a speck
    assert clear > 0.15 * size * size  # with transparent surroundings
    # nothing is clipped: the outermost ring of pixels is (almost) transparent
    border = [_at(alpha, x, y) for x in range(size) for y in (0, size - 1)]
    border += [_at(alpha, x, y) for y in range(size) for x in (0, size - 1)]
    assert max(border) <= 8


@pytest.mark.parametrize("kind", sorted(ALL_KINDS))
def test_colours_follow_the_theme(kind: str) -> None:
    """White pieces are mostly light, black pieces mostly dark, in both themes."""
    for theme in (CLASSIC, HIGH_CONTRAST):
        lum = {}
        for color in ("white", "black"):
            im = piece_sprite(kind, color, 64, theme)
            mask = silhouette(kind, 64).point(lambda v: 255 if v > 250 else 0)
            if kind == "G":  # the Guardener's dome is deliberately the opposite colour
                mask.paste(0, (0, 0, 64, 36))
            grey = im.convert("L")
            values = [g for g, m in zip(grey.tobytes(), mask.tobytes(), strict=True) if m]
            lum[color] = sum(values) / len(values)
        assert lum["white"] > 150 > lum["black"]


def test_silhouettes_are_pairwise_distinct() -> None:
    masks = {k: _binary(k, 64) for k in piece_kinds()}
    worst = (1.0, "", "")
    for a, b in itertools.combinations(masks, 2):
        differ = _count(ImageChops.logical_xor(masks[a], masks[b]))
        union = _count(ImageChops.logical_or(masks[a], masks[b]))
        worst = min(worst, (differ / union, a, b))
    distance, a, b = worst
    assert distance > MIN_SILHOUETTE_DISTANCE, f"{a} and {b} look alike ({distance:.3f})"


def test_sprites_are_cached_and_shared() -> None:
    a = piece_sprite("Q", "white", 50, CLASSIC)
    assert piece_sprite("Q", "w", 50, "classic") is a
    assert piece_sprite("Q", "white", 50, HIGH_CONTRAST) is not a
    assert piece_sprite("Q", "black", 50, CLASSIC) is not a


def test_bad_arguments() -> None:
    with pytest.raises(ValueError):
        piece_sprite("X", "white", 50, CLASSIC)
    with pytest.raises(ValueError):
        piece_sprite("K", "red", 50, CLASSIC)
    with pytest.raises(ValueError):
        raven_sprite("white", 50, CLASSIC, "NE")
    with pytest.raises(KeyError):
        get_theme("sepia")


def test_raven_facings_are_rotations() -> None:
    north = raven_sprite("white", 64, CLASSIC, "N").getchannel("A")
    assert piece_sprite("RA", "white", 64, CLASSIC) is raven_sprite("white", 64, CLASSIC, "N")
    assert piece_sprite("RA", "black", 64, CLASSIC) is raven_sprite("black", 64, CLASSIC, "S")
    for facing, turn in (
        ("E", Image.Transpose.ROTATE_270),
        ("S", Image.Transpose.ROTATE_180),
        ("W", Image.Transpose.ROTATE_90),
    ):
        turned = raven_sprite("white", 64, CLASSIC, facing).getchannel("A")
        diff = ImageChops.difference(turned, north.transpose(turn))
        assert _count(diff.point(lambda v: 255 if v > 40 else 0)) < 20
        # and it really differs from facing north
        assert (
            _count(ImageChops.difference(turned, north).point(lambda v: 255 if v > 128 else 0))
            > 200
        )


def test_raven_beak_points_the_facing_way() -> None:
    """More of the raven's mass sits behind it than ahead: the beak is the thin end."""
    for facing in "NESW":
        alpha = raven_sprite("black", 64, HIGH_CONTRAST, facing).getchannel("A")
        bbox = alpha.point(lambda v: 255 if v > 100 else 0).getbbox()
        assert bbox is not None
        x0, y0, x1, y1 = bbox
        # the tip of the beak is the single extreme pixel run on the facing side
        if facing == "N":
            row = [_at(alpha, x, y0 + 1) for x in range(64)]
        elif facing == "S":
            row = [_at(alpha, x, y1 - 2) for x in range(64)]
        elif facing == "E":
            row = [_at(alpha, x1 - 2, y) for y in range(64)]
        else:
            row = [_at(alpha, x0 + 1, y) for y in range(64)]
        covered = [i for i, v in enumerate(row) if v > 100]
        assert covered and max(covered) - min(covered) < 8
        assert abs((max(covered) + min(covered)) / 2 - 31.5) < 4  # centred
