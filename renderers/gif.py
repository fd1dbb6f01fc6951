"""An animated GIF replay of a whole game, from its record.

    render_gif(record, *, size=480, theme="classic") -> bytes

One frame for the start and one after every action (so frames = actions + 1).
A single working frame is kept: for each action only the squares whose look
changed (a piece, a highlight) and the strip or bars whose text changed are
repainted, then the frame is snapshotted. All frames share the theme's palette,
which the GIF stores once.
"""

from __future__ import annotations

import io
import json

from PIL import Image, ImageChops

import variants

from .board import board_art
from .scene import Scene, scene
from .themes import Theme

FRAME_MS = 900
LAST_FRAME_MS = 3000


def replay_frames(record: str) -> list[variants.Game]:
    """The game after 0, 1, 2 ... n actions of ``record`` (independent copies)."""
    headers, actions, rolls = variants.parse_record(record)
    key = headers["Variant"]
    options = json.loads(headers.get("Options", "{}"))
    fen = headers.get("FEN")
    if fen is None:
        game = variants.new_game(key, rolls=rolls, options=options)
    else:
        game = variants.from_fen(key, fen, rolls=rolls, options=options)
    games = [game.copy()]
    for text in actions:
        game.play(text)
        games.append(game.copy())
    if "Ended" in headers and game.result is None:
        winner = headers["Ended"]
        game.end(None if winner == "draw" else winner, headers.get("Termination", "agreed"))
        games[-1] = game.copy()
    return games


def render_frames(
    record: str,
    *,
    size: int = 480,
    theme: Theme | str = "classic",
    orientation: str = "white",
) -> tuple[list[Image.Image], list[int]]:
    """The frames of the replay (palette mode) and how many squares each one repainted."""
    games = replay_frames(record)
    if orientation not in ("white", "black"):
        raise ValueError(f"orientation must be 'white' or 'black', not {orientation!r}")
    art = board_art(games[0].rules, theme, size, orientation == "black")
    frame = art.new_frame()
    frames: list[Image.Image] = []
    painted: list[int] = []
    prev: Scene | None = None
    for game in games:
        sc = scene(game, art.lay)
        painted.append(art.paint(frame, sc, prev))
        frames.append(frame.copy())
        prev = sc
    return frames, painted


def render_gif(
    record: str,
    *,
    size: int = 480,
    theme: Theme | str = "classic",
    orientation: str = "white",
    frame_ms: int = FRAME_MS,
) -> bytes:
    """An animated GIF replaying the game ``record`` describes, ``size`` pixels wide.

    Raises ValueError (or a ``variants`` error) for a record that does not replay.
    """
    frames, _ = render_frames(record, size=size, theme=theme, orientation=orientation)
    durations = [frame_ms] * len(frames)
    durations[-1] = max(frame_ms, LAST_FRAME_MS)
    deltas, clear = _deltas(frames)
    buf = io.BytesIO()
    deltas[0].save(
        buf,
        format="GIF",
        save_all=True,
        append_images=deltas[1:],
        duration=durations,
        loop=0,
        optimize=False,
        disposal=1,  # keep each frame; the next one paints only what changed over it
        transparency=clear,
    )
    return buf.getvalue()


def _deltas(frames: list[Image.Image]) -> tuple[list[Image.Image], int]:
    """Each frame with the pixels that did not change since the one before made
    transparent, so the GIF stores little more than the repainted squares and strips.

    Returns the frames and the transparent palette index (one past the palette).
    """
    flat = frames[0].getpalette() or []
    clear = len(flat) // 3
    if clear >= 256:
        raise ValueError("the board palette leaves no index free for transparency")
    palette = flat + [255, 0, 255]
    out = [_with_palette(frames[0], palette)]
    size = frames[0].size
    for before, after in zip(frames, frames[1:], strict=False):
        a = Image.frombytes("L", size, before.tobytes())
        b = Image.frombytes("L", size, after.tobytes())
        changed = ImageChops.difference(a, b).point(_ANY)
        delta = Image.new("P", size, clear)
        delta.putpalette(palette)
        delta.paste(after, (0, 0), changed)
        out.append(delta)
    return out, clear


_ANY = [0] + [255] * 255


def _with_palette(im: Image.Image, palette: list[int]) -> Image.Image:
    im = im.copy()
    im.putpalette(palette)
    return im
