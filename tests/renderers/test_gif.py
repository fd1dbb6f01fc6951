from __future__ import annotations

import io

import pytest
from PIL import Image, ImageChops

import variants
from renderers import render_gif, render_image
from renderers.gif import render_frames

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
    frames, _ = render_frames(record, size=SIZE)
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
    frames, painted = render_frames(game.record(), size=SIZE)
    start = variants.new_game("kings_guard", seed=5)
    assert painted[0] == sum(1 for p in start.pos.board if p is not None)
    # a move changes its two squares, and un-highlights the two before: at most four
    assert max(painted[1:]) <= 4
    assert len(frames) == len(painted)


def test_a_game_ended_by_the_players_shows_the_result() -> None:
    game = played("tquarchess", 6, 2)
    game.end("black", "resignation")
    frames, _ = render_frames(game.record(), size=SIZE)
    assert len(frames) == 7
    gif = render_gif(game.record(), size=SIZE)
    assert Image.open(io.BytesIO(gif)).n_frames == 7


def test_a_record_that_does_not_replay_is_refused() -> None:
    record = variants.new_game("tquarchess", seed=1).record().rstrip() + " e4 e4\n"
    with pytest.raises(ValueError):
        render_gif(record, size=SIZE)
