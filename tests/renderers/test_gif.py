from __future__ import annotations

import io

import pytest
from PIL import Image, ImageChops

import variants
from renderers import render_gif, render_image
from renderers.board import board_art
from renderers.gif import MAX_FRAMES, MAX_GIF_SIZE, render_frames
from renderers.scene import scene

SIZE = 320


def played(key: str, plies: int, seed: int) -> variants.Game:
    return variants.random_playout(key, plies, seed)


@pytest.mark.parametrize("key", variants.names())
def test_frame_count_is_actions_plus_one_and_the_gif_decodes(key: str) -> None:
    game = played(key, 24, 11)
    record = game.record()
    _, actions, _ = variants.parse_record(record)
    data = render_gif(record, size=SIZE)
    assert data[:6] == b"GIF89a"
    im = Image.open(io.BytesIO(data))
    assert im.n_frames == len(actions) + 1
    assert im.size[0] == SIZE
    # the last frame shows the final position, exactly as render_image draws it
    im.seek(im.n_frames - 1)
    final = render_image(variants.replay(record), size=SIZE, orientation="white")
    assert ImageChops.difference(im.convert("RGB"), final.convert("RGB")).getbbox() is None


def test_every_frame_matches_a_fresh_render() -> None:
    game = played("tquarchess", 16, 3)
    record = game.record()
    frames = [frame.copy() for frame, _ in render_frames(record, size=SIZE)]
    im = Image.open(io.BytesIO(render_gif(record, size=SIZE)))
    _, actions, _ = variants.parse_record(record)
    replayed = variants.replay(_record_prefix(record, 0))
    assert frames[0].tobytes() == render_image(replayed, size=SIZE, orientation="white").tobytes()
    for i, frame in enumerate(frames):
        im.seek(i)
        assert ImageChops.difference(im.convert("RGB"), frame.convert("RGB")).getbbox() is None


def _record_prefix(record: str, n: int) -> str:
    """The record's headers with no actions: the start position."""
    headers = [line for line in record.splitlines() if line.startswith("[") and '"' in line]
    headers = [h for h in headers if not h.startswith(("[Result", "[Termination", "[Ended"))]
    return "\n".join(headers) + "\n\n"


def test_only_changed_squares_are_repainted() -> None:
    game = played("kings_guard", 20, 5)
    painted = [n for _, n in render_frames(game.record(), size=SIZE)]
    start = variants.new_game("kings_guard", seed=5)
    assert painted[0] == sum(1 for p in start.pos.board if p is not None)
    # a move changes its two squares, and un-highlights the two before: at most four
    assert max(painted[1:]) <= 4
    _, actions, _ = variants.parse_record(game.record())
    assert len(painted) == len(actions) + 1


def test_a_game_ended_by_the_players_shows_the_result() -> None:
    game = played("tquarchess", 6, 2)
    game.end("black", "resignation")
    frames = [frame.copy() for frame, _ in render_frames(game.record(), size=SIZE)]
    assert len(frames) == 7
    gif = Image.open(io.BytesIO(render_gif(game.record(), size=SIZE)))
    assert gif.n_frames == 7
    gif.seek(6)
    assert ImageChops.difference(gif.convert("RGB"), frames[6].convert("RGB")).getbbox() is None
    sc = scene(variants.replay(game.record()), board_art(game.rules, "classic", SIZE, False).lay)
    assert sc.status.text.startswith("Black wins")


def test_a_record_that_does_not_replay_is_refused() -> None:
    record = variants.new_game("tquarchess", seed=1).record().rstrip() + " e4 e4\n"
    with pytest.raises(ValueError):
        render_gif(record, size=SIZE)


# ----- bounds (issue 9) -------------------------------------------------------------------


@pytest.mark.parametrize("size", [MAX_GIF_SIZE + 1, 4000, 100, 0])
def test_gif_width_is_bounded(size: int) -> None:
    record = played("tquarchess", 4, 1).record()
    with pytest.raises(
        ValueError, match=rf"GIF width must be 160\.\.{MAX_GIF_SIZE} px, not {size}"
    ):
        render_gif(record, size=size)


def test_gif_frame_count_is_bounded_before_any_replay() -> None:
    """A record of MAX_FRAMES actions is refused at once, from its length alone (these
    actions would not even replay), naming the limit and the count."""
    start = variants.new_game("kings_guard", seed=1).record().strip()
    pairs = [("Nf3", "Nf6"), ("Ng1", "Ng8")] * (MAX_FRAMES // 4 + 1)
    body = " ".join(f"{n}. {w} {b}" for n, (w, b) in enumerate(pairs, start=1))
    too_long = start + "\n\n" + body
    _, actions, _ = variants.parse_record(too_long)
    assert len(actions) >= MAX_FRAMES
    with pytest.raises(ValueError, match=f"at most {MAX_FRAMES - 1} actions; this game has"):
        render_gif(too_long)


def test_the_longest_gif_allowed_renders(monkeypatch: pytest.MonkeyPatch) -> None:
    """With the limit lowered to 30 actions, a 30-action game renders, 31 are refused."""
    import renderers.gif as gif_module

    monkeypatch.setattr(gif_module, "MAX_FRAMES", 31)
    game = played("kings_guard", 31, 10)
    record = game.record()
    _, actions, _ = variants.parse_record(record)
    assert len(actions) == 31
    with pytest.raises(ValueError, match="at most 30 actions; this game has 31"):
        render_gif(record, size=160)
    shorter = played("kings_guard", 30, 10).record()
    assert Image.open(io.BytesIO(render_gif(shorter, size=160))).n_frames == 31


_PEAK = """
import variants
from renderers import render_gif


def peak_mib():
    # VmHWM: the peak resident size of this process image (getrusage's ru_maxrss would
    # also count the parent's peak from before the exec)
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) // 1024
    raise SystemExit("no VmHWM in /proc/self/status")


record = variants.random_playout("kings_guard", 1000, 10).record()
_, actions, _ = variants.parse_record(record)
assert len(actions) == 1000, len(actions)
before = peak_mib()
data = render_gif(record)
print(before, peak_mib(), len(data))
"""


def test_a_1000_ply_gif_stays_under_200_mib() -> None:
    """Issue 9: a 1,000-ply GIF at the default size peaked at 895 MiB; it must stay under
    200 MiB. Measured as the peak resident size of a fresh interpreter (Pillow's pixel
    buffers are not Python objects, so tracemalloc would not see them). Linux only."""
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-c", _PEAK], capture_output=True, text=True, check=True, timeout=600
    )
    before, peak, size = (int(v) for v in out.stdout.split())
    print(f"peak RSS {peak} MiB (before rendering {before} MiB), GIF {size} bytes")
    assert peak < 200
    assert size > 0
