"""The console's words (``bot.console.words``): hints that run as shown, the text board
cut into board, legend and lost pieces, statuses said of the computer, where undo works,
and the record's options written as players type them."""

from __future__ import annotations

import os
import shlex
import stat
from pathlib import Path

import pytest

import variants
from bot.console import words
from variants.record import options_header, read_options


def script(folder: Path) -> Path:
    """An executable named ``chessgarden`` in ``folder`` (made)."""
    folder.mkdir()
    path = folder / "chessgarden"
    path.write_text("#!/bin/sh\n", encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def test_the_hint_names_the_command_as_it_was_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    venv = script(tmp_path / "venv-bin")
    monkeypatch.setenv("PATH", "/usr/bin:/bin")  # the venv is not activated
    assert words.program(str(venv), "/py") == shlex.quote(str(venv))
    monkeypatch.setenv("PATH", f"{venv.parent}{os.pathsep}/usr/bin")  # it is
    assert words.program(str(venv), "/py") == "chessgarden"
    other = script(tmp_path / "elsewhere")  # another chessgarden first on the PATH: not this one
    monkeypatch.setenv("PATH", f"{other.parent}{os.pathsep}{venv.parent}")
    assert words.program(str(venv), "/py") == shlex.quote(str(venv))
    # python -m bot.cli (or bot.console.session): the interpreter's full path
    assert words.program("/src/bot/cli.py", "/opt/my python/bin/python3") == (
        "'/opt/my python/bin/python3' -m bot.cli"
    )
    assert words.db_words("my games.sqlite3") == " --db 'my games.sqlite3'"


def test_the_text_board_cut_in_three() -> None:
    game = variants.new_game("tquarchess", seed=1)
    for move in ("e4", "d5", "exd5"):
        game.play(move)
    parts = words.split_board(variants.text_board(game, orientation="black"))
    assert parts.board[0].split() == list("hgfedcba") and parts.board[-1] == parts.board[0]
    assert parts.legend[0].startswith("Pieces: ") and not any(
        line.startswith("Lost") for line in parts.legend
    )
    assert parts.lost == "Lost: Black p"
    assert words.lost_pieces(parts.lost) == {("black", "P"): 1}
    owners = {"white": "your", "black": "the computer's"}
    taken = words.taken_words(
        "tquarchess", words.lost_pieces(""), words.lost_pieces(parts.lost), owners
    )
    assert taken == ", taking the computer's Pawn"
    assert (
        words.taken_words(
            "tquarchess", words.lost_pieces(parts.lost), words.lost_pieces(parts.lost), owners
        )
        == ""
    )


def test_status_lines_said_of_the_computer() -> None:
    name, own = "the computer (level 2)", "the computer's"
    assert words.named_line("Black to move [2 4]: Knight", "black", name, own) == (
        "The computer (level 2) to move [2 4]: Knight"
    )
    assert words.named_line("Black's Tquarc stands on g8.", "black", name, own) == (
        "The computer's Tquarc stands on g8."
    )
    assert words.named_line("White's Tquarc waits.", "black", name, own) == "White's Tquarc waits."
    assert words.named_line("Blackmail", "black", name, own) == "Blackmail"


def test_where_undo_works_comes_from_each_variants_dice() -> None:
    sentence = words.undo_everywhere()
    for key in variants.names():
        rules = variants.rules(key)
        assert rules.title in sentence
        said = words.undo_here(key)
        if not rules.dice_rolled:
            assert said.startswith("Undo always works") and words.undo_refusal(key) is None
        elif rules.rolls_every_turn:
            assert said.startswith("Undo never works")
            refusal = words.undo_refusal(key)
            assert refusal is not None and rules.dice_rolled in refusal
        else:
            assert said.startswith("Undo works") and words.undo_refusal(key) is None


def test_player_tags_and_options_in_a_record() -> None:
    game = variants.new_game("jepps_random", seed=3, options={"free_play": True})
    game.play(game.legal_moves()[0])
    record = game.record()
    assert record.splitlines()[:2] == ['[Variant "jepps_random"]', '[Options "free_play"]']
    tagged = words.tagged(record, words.player_tags("black", 3))
    lines = tagged.splitlines()
    assert lines[2:4] == ['[White "console player"]', '[Black "the computer (level 3)"]']
    assert variants.replay(tagged).history == game.history
    assert words.player_tags(None, None) == []
    assert "[Options" not in variants.new_game("tquarchess", seed=1).record()  # none: no tag


@pytest.mark.parametrize(
    "options",
    [{"free_play": True}, {"free_play": False, "n": 3}, {"name": "two words"}, {"n": "3"}],
)
def test_options_round_trip(options: dict[str, object]) -> None:
    assert read_options(options_header(options)) == options
    assert read_options('{"free_play": true}') == {"free_play": True}  # older records
