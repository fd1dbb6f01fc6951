"""A palette PNG written from independently compressed horizontal bands.

A board picture is a stack of bands (the status strip, a player bar, one row of
squares, ...). A band that looks the same as in an earlier picture compresses to the
same bytes, so each band is compressed once and its bytes are kept (``Band``). A
picture is then the PNG header, the concatenated bands, and the zlib trailer: only
the bands that changed since any earlier picture are compressed again.

How the bands join into one zlib stream: each band is compressed on its own as raw
deflate ending in a sync flush (byte-aligned, not final). Back-references never reach
into another band because each band had its own compressor. The stream is the zlib
header, the bands in order, an empty final block, and the Adler-32 of all the raw bytes,
which is combined from the bands' own checksums (``adler_join``).

Each band is filtered and compressed one of two ways (``Packing``), chosen per kind of
band by the caller (board.py):

- ``DEFLATE``: a row equal to the row above it gets PNG filter 2 (Up), which makes it
  all zeros and nearly free; every other row filter 0 (None), which suits palette
  indices; then zlib's usual string matching, which finds the same piece drawn twice in
  a row of squares or the same letters in a line of words.
- ``RUNS``: every row but the first gets filter 2 (Up). A board is mostly flat squares,
  so nearly every byte becomes a zero, but where a piece's outline changes from the row
  above; zlib's run-length strategy (``Z_RLE``) then compresses it five to ten times
  faster than string matching, for about a fifth more bytes on a row with pieces and a
  tenth more on an empty one (benchmarks/render.py measured both).

The first row of a band is always filter 0, so a band never depends on its neighbours.
"""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass

from PIL import Image, ImageChops

SIGNATURE = b"\x89PNG\r\n\x1a\n"
_ADLER_MOD = 65521
_ZLIB_HEADER = b"\x78\x9c"
_FINAL_BLOCK = b"\x03\x00"  # an empty final block with fixed codes


@dataclass(frozen=True)
class Band:
    """One band's compressed bytes and what the zlib trailer needs to know of it."""

    data: bytes  # raw deflate, ending in a sync flush
    adler: int  # Adler-32 of the band's filtered rows
    length: int  # how many filtered bytes that is


@dataclass(frozen=True)
class Packing:
    """How a band is filtered and compressed (the module docstring says when to use which)."""

    up: bool  # filter Up on every row but the first; else None, and Up for a repeated row
    level: int  # zlib level (with Z_RLE every level from 1 up compresses alike)
    strategy: int = zlib.Z_DEFAULT_STRATEGY


DEFLATE = Packing(up=False, level=6)
RUNS = Packing(up=True, level=6, strategy=zlib.Z_RLE)


def filtered(pixels: bytes, width: int) -> bytes:
    """PNG scanlines (a filter byte, then the row) of 8-bit palette ``pixels``: filter 2
    (Up) for a row equal to the row above it, so that it is all zeros; else filter 0."""
    out = bytearray()
    zero_row = bytes(width)
    prev = None
    for i in range(0, len(pixels), width):
        row = pixels[i : i + width]
        if row == prev:
            out += b"\x02"
            out += zero_row
        else:
            out += b"\x00"
            out += row
        prev = row
    return bytes(out)


def filtered_up(pixels: bytes, width: int) -> bytes:
    """PNG scanlines of 8-bit palette ``pixels``: the first row with filter 0 (None), every
    other row with filter 2 (Up: each byte minus the byte above it, modulo 256), computed
    with Pillow's image arithmetic rather than a Python loop."""
    height = len(pixels) // width
    if height == 0:
        return b""
    return with_filter_bytes(up_differences(Image.frombytes("L", (width, height), pixels)))


def up_differences(rows: Image.Image) -> Image.Image:
    """``rows`` (8-bit: palette indices, read as they are) with every row but the first
    replaced by its difference from the row above (PNG filter 2, Up, modulo 256).

    Up looks only at the byte straight above, so the differences of a picture pasted
    together from whole-height pieces are the pieces' own differences pasted together:
    a row of squares is filtered by pasting its tiles' differences (``board.py``)."""
    if rows.mode != "L":
        rows = Image.frombytes("L", rows.size, rows.tobytes())
    width, height = rows.size
    above = Image.new("L", (width, height), 0)
    above.paste(rows.crop((0, 0, width, height - 1)), (0, 1))
    return ImageChops.subtract_modulo(rows, above)  # row 0 minus zeros: itself


def with_filter_bytes(differences: Image.Image) -> bytes:
    """The PNG scanlines of ``up_differences``' image: filter 0 for the first row, 2 for
    the others."""
    return filter_column(differences.width, differences.height, differences).tobytes()


def filter_column(width: int, height: int, differences: Image.Image | None = None) -> Image.Image:
    """An 'L' image one column wider than ``width``: column 0 holds each scanline's filter
    byte (0 for the first row, 2, Up, for the others), the rest ``differences`` if given."""
    out = Image.new("L", (width + 1, height), 2)
    if differences is not None:
        out.paste(differences, (1, 0))
    out.putpixel((0, 0), 0)
    return out


def unfiltered(scanlines: bytes, width: int) -> bytes:
    """The palette pixels of PNG scanlines filtered None or Up (the two written here)."""
    out = bytearray()
    prev = bytes(width)
    for i in range(0, len(scanlines), width + 1):
        kind, row = scanlines[i], scanlines[i + 1 : i + 1 + width]
        if kind == 2:
            row = bytes((a + b) & 0xFF for a, b in zip(row, prev, strict=True))
        elif kind != 0:
            raise ValueError(f"filter {kind} is not one written here")
        out += row
        prev = row
    return bytes(out)


def compress_band(pixels: bytes, width: int, packing: Packing = DEFLATE) -> Band:
    """One band of 8-bit palette pixels (rows of ``width`` bytes), compressed."""
    return compress_scanlines((filtered_up if packing.up else filtered)(pixels, width), packing)


def compress_scanlines(raw: bytes, packing: Packing = DEFLATE) -> Band:
    """One band given as its PNG scanlines (each a filter byte and a row), compressed
    (``packing.up`` is how the caller filtered them)."""
    c = zlib.compressobj(packing.level, zlib.DEFLATED, -15, 9, packing.strategy)
    data = c.compress(raw) + c.flush(zlib.Z_SYNC_FLUSH)
    return Band(data, zlib.adler32(raw), len(raw))


def adler_join(a: int, b: int, b_length: int) -> int:
    """The Adler-32 of X + Y from adler(X) = ``a``, adler(Y) = ``b`` and len(Y).

    With (s1, s2) the two halves: s1 = a1 + b1 - 1 and s2 = a2 + b2 + len(Y) * (a1 - 1),
    both modulo 65521.
    """
    a1, a2 = a & 0xFFFF, a >> 16
    b1, b2 = b & 0xFFFF, b >> 16
    s1 = (a1 + b1 - 1) % _ADLER_MOD
    s2 = (a2 + b2 + b_length * (a1 - 1)) % _ADLER_MOD
    return (s2 << 16) | s1


def _chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def assemble(width: int, height: int, palette: bytes, bands: list[Band]) -> bytes:
    """The PNG file of 8-bit palette rows given as ``bands``, top to bottom.

    ``palette`` is the RGB triples of the PLTE chunk (at most 256).
    """
    if len(palette) % 3 or not 3 <= len(palette) <= 768:
        raise ValueError(f"a PNG palette has 1..256 RGB entries, not {len(palette) / 3:g}")
    if sum(b.length for b in bands) != height * (width + 1):
        raise ValueError("the bands do not add up to the picture")
    adler = 1
    for b in bands:
        adler = adler_join(adler, b.adler, b.length)
    stream = b"".join([_ZLIB_HEADER, *(b.data for b in bands), _FINAL_BLOCK])
    stream += struct.pack(">I", adler)
    header = struct.pack(">IIBBBBB", width, height, 8, 3, 0, 0, 0)  # 8-bit, palette
    return b"".join(
        [
            SIGNATURE,
            _chunk(b"IHDR", header),
            _chunk(b"PLTE", palette),
            _chunk(b"IDAT", stream),
            _chunk(b"IEND", b""),
        ]
    )
