"""``chessgarden play --images DIR --no-legend`` (issue 27, item 5): the console's PNGs
without the legend strip under the board; without --images the flag is refused."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import variants


def run(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bot.console.session", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_images_without_the_legend(tmp_path: Path) -> None:
    from renderers import render_png

    out = tmp_path / "png"
    result = run(
        "play", "stone_garden", "--db", str(tmp_path / "l.sqlite3"), "--seed", "4",
        "--images", str(out), "--size", "400", "--no-legend", "--orientation", "white",
        stdin="Ha4\n",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    files = sorted(p.name for p in out.iterdir())
    assert files == ["game1-0000.png", "game1-0001.png"]
    game = variants.new_game("stone_garden", seed=4)
    assert (out / files[0]).read_bytes() == render_png(
        game, size=400, orientation="white", legend=False
    )
    assert (out / files[0]).read_bytes() != render_png(game, size=400, orientation="white")


def test_no_legend_needs_images(tmp_path: Path) -> None:
    result = run("play", "stone_garden", "--db", str(tmp_path / "n.sqlite3"), "--no-legend")
    assert result.returncode == 2
    assert (
        result.stderr.strip() == "error: --no-legend is about the --images PNGs: add --images DIR"
    )
