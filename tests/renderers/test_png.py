from __future__ import annotations

import io
import random
import zlib

import pytest
from PIL import Image

from renderers.png import (
    DEFLATE,
    RUNS,
    Packing,
    assemble,
    compress_band,
    compress_scanlines,
    filter_column,
    filtered,
    filtered_up,
    unfiltered,
    up_differences,
)


def _pixels(width: int, height: int, seed: int) -> bytes:
    """Flat runs with repeated rows and a few odd pixels, like a board band."""
    rng = random.Random(seed)
    rows: list[bytes] = []
    for _ in range(height):
        if rows and rng.random() < 0.5:
            rows.append(rows[-1])
            continue
        row = bytearray()
        while len(row) < width:
            row += bytes([rng.randrange(256)]) * rng.randrange(1, 30)
        rows.append(bytes(row[:width]))
    return b"".join(rows)


@pytest.mark.parametrize("filt", [filtered, filtered_up])
def test_filters_round_trip(filt: object) -> None:
    for seed in range(5):
        px = _pixels(37, 23, seed)
        lines = filt(px, 37)  # type: ignore[operator]
        assert len(lines) == 23 * 38
        assert lines[0] == 0  # a band's first row never refers to the row above
        assert unfiltered(lines, 37) == px


def test_up_filter_is_zero_where_a_row_repeats() -> None:
    px = bytes([5] * 10 + [5] * 10 + [7] * 10)
    lines = filtered_up(px, 10)
    assert lines[11:22] == b"\x02" + bytes(10)
    assert lines[22:] == b"\x02" + bytes([2] * 10)


@pytest.mark.parametrize("packings", [(DEFLATE,), (RUNS,), (DEFLATE, RUNS, DEFLATE)])
def test_bands_of_either_packing_make_one_valid_png(packings: tuple[Packing, ...]) -> None:
    width, heights = 41, (7, 13, 1)
    palette = bytes(range(256)) * 3
    bands, want = [], b""
    for i, packing in enumerate(packings):
        px = _pixels(width, heights[i], 10 + i)
        want += px
        bands.append(compress_band(px, width, packing))
    height = sum(heights[: len(packings)])
    png = assemble(width, height, palette, bands)
    im = Image.open(io.BytesIO(png))
    im.load()  # zlib checks the stream and its Adler-32
    assert im.mode == "P" and im.size == (width, height)
    assert im.tobytes() == want


def test_runs_really_uses_run_length_coding() -> None:
    assert RUNS.up and RUNS.strategy == zlib.Z_RLE
    assert not DEFLATE.up and DEFLATE.strategy == zlib.Z_DEFAULT_STRATEGY


def test_a_band_pasted_from_pieces_differences_is_the_band_filtered() -> None:
    """The Up differences of whole-height pieces, pasted side by side over a background's
    differences, are the scanlines of the band pasted from the pieces and then filtered:
    what board.py's rows of squares rely on. Checked on random pieces at random places,
    overlapping the background's own columns and each other's neighbours."""
    rng = random.Random(7)
    for seed in range(20):
        width, height = 53, 11
        back = Image.frombytes("L", (width, height), _pixels(width, height, 100 + seed))
        drawn = back.copy()
        lines = filter_column(width, height, up_differences(back))
        for _ in range(rng.randrange(1, 5)):
            w = rng.randrange(1, 12)
            piece = Image.frombytes("L", (w, height), _pixels(w, height, rng.randrange(10**6)))
            x = rng.randrange(0, width - w + 1)
            drawn.paste(piece, (x, 0))
            lines.paste(up_differences(piece), (x + 1, 0))
        want = filtered_up(drawn.tobytes(), width)
        assert lines.tobytes() == want
        assert compress_scanlines(want, RUNS) == compress_band(drawn.tobytes(), width, RUNS)


def test_up_differences_reads_palette_indices_not_colours() -> None:
    pal = Image.new("P", (3, 2))
    pal.putpalette([255, 255, 255, 0, 0, 0] + [0] * 762)
    pal.putdata([1, 0, 1, 0, 1, 1])
    assert up_differences(pal).tobytes() == bytes([1, 0, 1, 255, 1, 0])
