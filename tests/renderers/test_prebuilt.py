"""The render cache on disk (renderers/prebuilt.py): what it keeps is read back exactly,
anything damaged or out of reach counts as missing, and pictures are the same with it,
without it and from it."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from PIL import Image

import variants
from renderers import board, dice, panels, prebuilt, render_dice_png, render_png, sprites
from renderers.scene import Side
from renderers.themes import CLASSIC

ROOT = Path(__file__).resolve().parents[2]


def forget_drawings() -> None:
    """Empty every in-memory cache, as in a fresh process."""
    board.clear_caches()
    sprites.clear_cache()
    for fn in (panels.crisp_icon, panels.plain_icon, panels.crisp_die, dice._die, dice._badge):
        fn.cache_clear()
    dice._kept_dice_png.cache_clear()
    prebuilt.reset()


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv(prebuilt.ENV, str(tmp_path / "cache"))
    forget_drawings()
    yield tmp_path / "cache"
    forget_drawings()


def files(where: Path) -> list[Path]:
    return sorted(where.glob("render-*/*.bin"))


def test_images_and_bytes_come_back_exactly(cache: Path) -> None:
    ims = [
        Image.frombytes("L", (3, 2), bytes(range(6))),
        Image.frombytes("RGB", (2, 1), bytes(range(6))),
        Image.frombytes("RGBA", (1, 2), bytes(range(8))),
    ]
    key = ("k", 1, CLASSIC)
    assert prebuilt.load("test", key) is None
    prebuilt.save("test", key, ims)
    back = prebuilt.load("test", key)
    assert back is not None
    assert [(im.mode, im.size, im.tobytes()) for im in back] == [
        (im.mode, im.size, im.tobytes()) for im in ims
    ]
    assert prebuilt.load("test", ("k", 2, CLASSIC)) is None  # another key: nothing
    prebuilt.save_bytes("blob", 7, b"some bytes")
    assert prebuilt.load_bytes("blob", 7) == b"some bytes"
    assert len(files(cache)) == 2


def test_a_damaged_file_counts_as_missing(cache: Path) -> None:
    prebuilt.save("test", "a", [Image.new("RGB", (4, 4), (1, 2, 3))])
    (path,) = files(cache)
    whole = path.read_bytes()
    for damaged in (whole[:-3], whole[:20], b"", whole[:-1] + bytes([whole[-1] ^ 1])):
        path.write_bytes(damaged)
        assert prebuilt.load("test", "a") is None
    # a whole file written under another key's name is not taken for this key
    prebuilt.save("test", "b", [Image.new("RGB", (4, 4), (9, 9, 9))])
    other = next(p for p in files(cache) if p != path)
    path.write_bytes(other.read_bytes())
    assert prebuilt.load("test", "a") is None


def test_a_damaged_cache_still_gives_the_right_pictures(cache: Path) -> None:
    game = variants.new_game("guardener", seed=3)
    want = render_png(game, size=400)
    assert files(cache)  # the first drawing kept its parts
    for path in files(cache):
        path.write_bytes(path.read_bytes()[:-5])  # every file cut short
    forget_drawings()
    assert render_png(game, size=400) == want
    forget_drawings()
    assert render_png(game, size=400) == want  # from the files written again


def test_an_unwritable_place_is_left_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    monkeypatch.setenv(prebuilt.ENV, str(blocker / "cache"))
    forget_drawings()
    try:
        game = variants.new_game("tquarchess", seed=1)
        png = render_png(game, size=400)
        assert png.startswith(b"\x89PNG")
        assert prebuilt.load("test", "x") is None
    finally:
        forget_drawings()


def test_off_keeps_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(prebuilt.ENV, "off")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    forget_drawings()
    try:
        assert prebuilt.directory() is None
        render_png(variants.new_game("kings_guard", seed=1), size=400)
        assert not list(tmp_path.rglob("*.bin"))
    finally:
        forget_drawings()


def test_the_default_place_is_the_user_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(prebuilt.ENV, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", "/somewhere")
    where = prebuilt.directory()
    assert where is not None
    assert where.parent == Path("/somewhere/chessgarden/render")
    assert where.name == f"render-{prebuilt.fingerprint()[:16]}"


@pytest.mark.parametrize("key", variants.names())
def test_pictures_are_the_same_without_the_cache_and_from_it(
    key: str, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = variants.new_game(key, seed=4)
    later = variants.random_playout(key, 12, 4)
    shots = [(g, o) for g in (game, later) for o in ("white", "black")]
    monkeypatch.setenv(prebuilt.ENV, "off")
    forget_drawings()
    plain = [render_png(g, size=480, orientation=o) for g, o in shots]
    dice_plain = render_dice_png((2, 4), 4)
    monkeypatch.setenv(prebuilt.ENV, str(cache))
    for _ in ("drawn and kept", "read back"):
        forget_drawings()
        assert [render_png(g, size=480, orientation=o) for g, o in shots] == plain
        assert render_dice_png((2, 4), 4) == dice_plain
    assert files(cache)


def test_keys_are_the_same_in_every_process() -> None:
    """A set's order changes with the string hash seed; the file name must not."""
    code = textwrap.dedent(
        """
        from renderers import prebuilt
        from renderers.scene import Side
        side = Side(1, True, (), "", ("Q", "R", "B", "N"), frozenset("QRBN"), ())
        print(prebuilt._entry("band", (side, frozenset({"x", "y", "z"})))[0])
        """
    )
    names = set()
    for seed in ("1", "2", "3"):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        out = subprocess.run(
            [sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True, text=True
        )
        assert out.returncode == 0, out.stderr
        names.add(out.stdout.strip())
    assert len(names) == 1
    side = Side(1, True, (), "", ("Q",), frozenset({"Q", "R"}), ())
    assert prebuilt.canonical(side) == prebuilt.canonical(
        Side(1, True, (), "", ("Q",), frozenset({"R", "Q"}), ())
    )


def test_the_fingerprint_follows_pillow(monkeypatch: pytest.MonkeyPatch) -> None:
    import PIL

    prebuilt.fingerprint.cache_clear()
    before = prebuilt.fingerprint()
    prebuilt.fingerprint.cache_clear()
    monkeypatch.setattr(PIL, "__version__", "0.0.0-other")
    try:
        assert prebuilt.fingerprint() != before
    finally:
        prebuilt.fingerprint.cache_clear()
        monkeypatch.undo()
        assert prebuilt.fingerprint() == before


def test_old_fingerprints_are_pruned_and_other_things_left_alone(cache: Path) -> None:
    cache.mkdir(parents=True)
    old = cache / "render-0123456789abcdef"
    recent = cache / "render-fedcba9876543210"
    mine = cache / "notes"
    for d in (old, recent, mine):
        d.mkdir()
        (d / "x.bin").write_bytes(b"x")
    long_ago = time.time() - (prebuilt.STALE_DAYS + 1) * 86400
    os.utime(old, (long_ago, long_ago))
    os.utime(mine, (long_ago, long_ago))
    prebuilt.save("test", "k", [Image.new("L", (1, 1))])
    assert not old.exists()
    assert (recent / "x.bin").exists() and (mine / "x.bin").exists()


def test_at_most_max_entries_are_written(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(prebuilt, "MAX_ENTRIES", 3)
    for i in range(6):
        prebuilt.save("test", i, [Image.new("L", (1, 1))])
    assert len(files(cache)) == 3


def test_a_fresh_process_with_the_cache_draws_no_sprite_or_board(cache: Path) -> None:
    """What the bot draws after a restart (one board per orientation and the dice, per
    variant): the second fresh process finds every sprite, empty board and band kept."""
    code = textwrap.dedent(
        """
        import variants
        from renderers import board, dice, emptyboard, png, render_dice_png, render_png, sprites
        calls = {"compose": 0, "empty board": 0, "compress": 0, "die": 0}
        def counting(mod, name, label):
            fn = getattr(mod, name)
            def wrapped(*a, **k):
                calls[label] += 1
                return fn(*a, **k)
            setattr(mod, name, wrapped)
        counting(sprites, "_compose", "compose")
        counting(emptyboard, "empty_board", "empty board")
        counting(board, "compress_scanlines", "compress")
        counting(dice, "_centred_text", "die")
        for key in variants.names():
            game = variants.new_game(key, seed=0)
            render_png(game, orientation="white")
            render_png(game, orientation="black")
            if game.dice:
                render_dice_png(tuple(game.dice), game.rules.dice_sides or 6)
        print(sorted(calls.items()))
        """
    )
    env = dict(os.environ, **{prebuilt.ENV: str(cache)})
    runs = []
    for _ in range(2):
        out = subprocess.run(
            [sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True, text=True
        )
        assert out.returncode == 0, out.stderr
        runs.append(dict(eval(out.stdout)))  # noqa: S307 - our own subprocess's output
    first, second = runs
    assert first["compose"] > 0 and first["empty board"] > 0 and first["compress"] > 0
    assert second == {"compose": 0, "empty board": 0, "compress": 0, "die": 0}


def test_without_readable_sources_nothing_is_kept(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    prebuilt.fingerprint.cache_clear()
    monkeypatch.setattr(prebuilt, "__file__", str(cache / "nowhere" / "prebuilt.pyc"))
    try:
        assert prebuilt.fingerprint() == ""
        assert prebuilt.directory() is None
        prebuilt.save("test", "k", [Image.new("L", (1, 1))])
        assert prebuilt.load("test", "k") is None
    finally:
        monkeypatch.undo()
        prebuilt.fingerprint.cache_clear()
    assert prebuilt.fingerprint()
