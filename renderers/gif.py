"""An animated GIF replay of a whole game, from its record.

    render_gif(record, *, size=480, theme="classic") -> bytes

One frame for the start and one after every action (so frames = actions + 1).

Bounded and streamed:

- the width is at most ``MAX_GIF_SIZE`` px and a game at most ``MAX_FRAMES`` frames;
  anything larger is refused with a ValueError before any work is done;
- frames are never all held at once. One working frame is repainted in place (only the
  squares whose look changed, and the strip or bars whose words changed), compared with
  the frame before it, and the changed box is LZW-encoded and written out at once,
  with the unchanged pixels inside it transparent. Memory stays at a few frames
  whatever the game's length: a 1,000-ply game at the default size peaks near the
  interpreter's own footprint instead of hundreds of MiB (see tests/renderers/test_gif.py).

All frames share the board's palette, stored once as the GIF's global colour table, with
one more entry for transparency.
"""

from __future__ import annotations

import io
import json
import struct
from collections.abc import Iterator

from PIL import GifImagePlugin, Image, ImageChops

import variants

from .board import BoardArt, board_art
from .layout import MIN_SIZE
from .scene import Scene, scene
from .themes import Theme

FRAME_MS = 900
LAST_FRAME_MS = 3000
MAX_GIF_SIZE = 1024  # px wide
MAX_FRAMES = 2001  # the start and 2,000 actions


def _header_game(record: str) -> tuple[variants.Game, dict[str, str], list[str]]:
    headers, actions, rolls = variants.parse_record(record)
    key = headers["Variant"]
    options = json.loads(headers.get("Options", "{}"))
    fen = headers.get("FEN")
    if fen is None:
        game = variants.new_game(key, rolls=rolls, options=options)
    else:
        game = variants.from_fen(key, fen, rolls=rolls, options=options)
    return game, headers, actions


def check_gif(record: str, size: int) -> int:
    """Refuse a GIF that would be too large; return how many frames it will have."""
    if not MIN_SIZE <= size <= MAX_GIF_SIZE:
        raise ValueError(f"GIF width must be {MIN_SIZE}..{MAX_GIF_SIZE} px, not {size}")
    _, actions, _ = variants.parse_record(record)
    frames = len(actions) + 1
    if frames > MAX_FRAMES:
        raise ValueError(
            f"a GIF replays at most {MAX_FRAMES - 1} actions; this game has {len(actions)}"
        )
    return frames


def replay_games(record: str) -> Iterator[variants.Game]:
    """The game at its start and after each action of ``record``.

    The same Game object is yielded each time, advanced in place: read it before asking
    for the next one.
    """
    game, headers, actions = _header_game(record)

    def finish() -> None:  # a game the players ended: the last frame shows the result
        if "Ended" in headers and game.result is None:
            winner = headers["Ended"]
            game.end(None if winner == "draw" else winner, headers.get("Termination", "agreed"))

    if not actions:
        finish()
    yield game
    for i, text in enumerate(actions):
        game.play(text)
        if i == len(actions) - 1:
            finish()
        yield game


def _art(
    record: str, size: int, theme: Theme | str, orientation: str, legend: bool = True
) -> BoardArt:
    if orientation not in ("white", "black"):
        raise ValueError(f"orientation must be 'white' or 'black', not {orientation!r}")
    headers, _, _ = variants.parse_record(record)
    rules = variants.rules(headers["Variant"])
    return board_art(rules, theme, size, orientation == "black", legend)


def render_frames(
    record: str,
    *,
    size: int = 480,
    theme: Theme | str = "classic",
    orientation: str = "white",
    legend: bool = True,
) -> Iterator[tuple[Image.Image, int]]:
    """Each frame of the replay (palette mode) and how many squares it repainted.

    The frame is one working image repainted in place: copy it to keep it. ``legend``
    as for ``render_png``.
    """
    art = _art(record, size, theme, orientation, legend)
    frame = art.new_frame()
    prev: Scene | None = None
    for game in replay_games(record):
        sc = scene(game, art.lay)
        painted = art.paint(frame, sc, prev)
        prev = sc
        yield frame, painted


def render_gif(
    record: str,
    *,
    size: int = 480,
    theme: Theme | str = "classic",
    orientation: str = "white",
    frame_ms: int = FRAME_MS,
    legend: bool = True,
) -> bytes:
    """An animated GIF replaying the game ``record`` describes, ``size`` pixels wide
    (``legend`` as for ``render_png``).

    Raises ValueError for a width outside ``MIN_SIZE``..``MAX_GIF_SIZE``, a game longer
    than ``MAX_FRAMES`` - 1 actions, or a record that does not replay (a ``variants``
    error).
    """
    n = check_gif(record, size)
    if not 20 <= frame_ms <= 60_000:
        raise ValueError(f"frame time must be 20..60000 ms, not {frame_ms}")
    art = _art(record, size, theme, orientation, legend)
    flat = list(art.palette.getpalette() or [])
    clear = len(flat) // 3  # one past the board's palette: transparent
    if clear >= 256:
        raise ValueError("the board palette leaves no index free for transparency")
    out = io.BytesIO()
    out.write(_gif_header(art.lay.width, art.lay.height, flat + [255, 0, 255]))
    before: bytes | None = None
    frames = render_frames(record, size=size, theme=theme, orientation=orientation, legend=legend)
    for i, (frame, _) in enumerate(frames):
        ms = max(frame_ms, LAST_FRAME_MS) if i == n - 1 else frame_ms
        now = frame.tobytes()
        if before is None:
            delta, at = frame, (0, 0)
        else:
            delta, at = _delta(frame, now, before, clear)
        for part in GifImagePlugin.getdata(
            delta, offset=at, duration=ms, disposal=1, transparency=clear
        ):
            out.write(part)
        before = now
    out.write(b";")  # trailer
    return out.getvalue()


def _delta(
    after: Image.Image, now: bytes, before: bytes, clear: int
) -> tuple[Image.Image, tuple[int, int]]:
    """The box of ``after`` (whose pixels are ``now``) that differs from ``before``,
    unchanged pixels made ``clear``, and where the box goes. Nothing changed: one
    transparent pixel."""
    size = after.size
    a = Image.frombytes("L", size, before)
    b = Image.frombytes("L", size, now)
    changed = ImageChops.difference(a, b).point(_ANY)
    box = changed.getbbox()
    if box is None:
        return Image.new("P", (1, 1), clear), (0, 0)
    delta = Image.new("P", (box[2] - box[0], box[3] - box[1]), clear)
    delta.paste(after.crop(box), (0, 0), changed.crop(box))
    return delta, (box[0], box[1])


_ANY = [0] + [255] * 255


def _gif_header(width: int, height: int, palette: list[int]) -> bytes:
    """GIF89a, the logical screen with the global colour table, and endless looping."""
    entries = len(palette) // 3
    bits = max(1, (entries - 1).bit_length())
    table = bytes(palette) + bytes(3 * ((1 << bits) - entries))
    screen = struct.pack("<HHBBB", width, height, 0x80 | 0x70 | (bits - 1), 0, 0)
    loop = b"!\xff\x0bNETSCAPE2.0\x03\x01" + struct.pack("<H", 0) + b"\x00"
    return b"GIF89a" + screen + table + loop
