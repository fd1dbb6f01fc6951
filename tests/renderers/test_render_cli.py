from __future__ import annotations

import argparse
import io
from pathlib import Path

import pytest
from PIL import Image

import variants
from renderers import cli


def test_add_subcommands_registers_render_and_gif() -> None:
    parser = argparse.ArgumentParser()
    cli.add_subcommands(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["render", "tquarchess", "-o", "x.png"])
    assert args.func is cli.run_render
    assert args.flip is False and args.theme == "classic" and args.size == 800
    args = parser.parse_args(["gif", "game.txt", "-o", "x.gif"])
    assert args.func is cli.run_gif


def test_render_writes_a_png(tmp_path: Path) -> None:
    out = tmp_path / "board.png"
    rc = cli.main(
        [
            "render",
            "tquarchess",
            "--moves",
            "e4",
            "e5",
            "Nf3",
            "--seed",
            "3",
            "--size",
            "400",
            "-o",
            str(out),
        ]
    )
    assert rc == 0
    im = Image.open(out)
    assert im.format == "PNG" and im.mode == "P" and im.width == 400


def test_render_flip_and_theme(tmp_path: Path) -> None:
    a, b = tmp_path / "a.png", tmp_path / "b.png"
    assert cli.main(["render", "guardener", "--size", "400", "-o", str(a)]) == 0
    assert (
        cli.main(
            [
                "render",
                "guardener",
                "--size",
                "400",
                "--flip",
                "--theme",
                "high-contrast",
                "-o",
                str(b),
            ]
        )
        == 0
    )
    assert a.read_bytes() != b.read_bytes()


def test_moves_may_be_comma_separated(tmp_path: Path) -> None:
    out = tmp_path / "b.png"
    assert cli.main(["render", "tquarchess", "--moves", "e4,e5", "-o", str(out)]) == 0


def test_a_bad_move_names_what_is_legal_and_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "bad.png"
    rc = cli.main(["render", "tquarchess", "--moves", "e4", "e9", "-o", str(out)])
    assert rc == 2
    err = capsys.readouterr().err
    assert "move 2" in err and "'e9'" in err
    assert "legal" in err and "Nf6" in err
    assert not out.exists()


def test_an_unknown_variant_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc = cli.main(["render", "fairy", "-o", str(tmp_path / "x.png")])
    assert rc == 2
    assert "tquarchess" in capsys.readouterr().err


def test_gif_from_a_record_file(tmp_path: Path) -> None:
    game = variants.random_playout("jepps_random", 20, 8)
    record = tmp_path / "game.txt"
    record.write_text(game.record(), "utf-8")
    out = tmp_path / "game.gif"
    assert cli.main(["gif", str(record), "--size", "320", "-o", str(out)]) == 0
    im = Image.open(io.BytesIO(out.read_bytes()))
    _, actions, _ = variants.parse_record(game.record())
    assert im.format == "GIF" and im.n_frames == len(actions) + 1


def test_gif_from_a_broken_record_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = tmp_path / "broken.txt"
    record.write_text('[Variant "tquarchess"]\n\n1. e4 e4\n', "utf-8")
    assert cli.main(["gif", str(record), "-o", str(tmp_path / "x.gif")]) == 2
    assert "does not replay" in capsys.readouterr().err
    assert cli.main(["gif", str(tmp_path / "missing.txt"), "-o", str(tmp_path / "x.gif")]) == 2


def test_gif_size_is_bounded_with_a_clear_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = tmp_path / "game.txt"
    record.write_text(variants.random_playout("tquarchess", 6, 1).record(), "utf-8")
    out = tmp_path / "x.gif"
    assert cli.main(["gif", str(record), "--size", "5000", "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "GIF width must be 160..1024 px, not 5000" in err and "does not replay" not in err
    assert not out.exists()
