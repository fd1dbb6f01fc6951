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
    filtered,
    filtered_up,
    unfiltered,
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
