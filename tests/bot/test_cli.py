"""The ``chessgarden`` command line: lazy front ends (issue 12) and the ``moves`` command."""

from __future__ import annotations

import argparse
import importlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from bot import cli

ROOT = Path(__file__).resolve().parent.parent.parent

PROBE = """
import json, sys
from bot.cli import main
code = main({argv!r})
sys.stdout.flush()
loaded = sorted({{m.split('.')[0] for m in sys.modules}} & {{'discord', 'PIL', 'aiosqlite'}})
print()
print(json.dumps({{"code": code, "loaded": loaded}}))
"""


def probe(*argv: str) -> dict[str, object]:
    """Run ``chessgarden ARGV`` in a fresh interpreter; say which heavy packages it loaded."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE.format(argv=list(argv))],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


@pytest.fixture(scope="module")
def stored_game(tmp_path_factory: pytest.TempPathFactory) -> str:
    db = str(tmp_path_factory.mktemp("cli") / "cli.sqlite3")
    done = subprocess.run(
        [sys.executable, "-m", "bot.cli", "play", "tquarchess", "--db", db, "--no-board"],
        cwd=ROOT,
        input="e4\nquit\n",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return db


@pytest.mark.parametrize(
    "argv",
    [
        ("variants",),
        ("rules", "kings_guard"),
        ("rules", "guardener", "--markdown"),
        ("moves", "tquarchess", "e4", "--seed", "3", "e5"),
        ("roll", "2d6+1"),
    ],
)
def test_commands_without_discord_or_pillow(argv: tuple[str, ...]) -> None:
    result = probe(*argv)
    assert result["code"] == 0
    assert "discord" not in result["loaded"]  # type: ignore[operator]
    assert "PIL" not in result["loaded"]  # type: ignore[operator]
    if argv[0] in ("variants", "rules", "moves"):  # the engine alone: not even the database
        assert result["loaded"] == []


@pytest.mark.parametrize("command", ["games", "record"])
def test_database_commands_without_discord_or_pillow(stored_game: str, command: str) -> None:
    argv = (
        ("games", "--db", stored_game)
        if command == "games"
        else ("record", "--db", stored_game, "1")
    )
    result = probe(*argv)
    assert result["code"] == 0
    assert result["loaded"] == ["aiosqlite"]  # the store, and nothing for Discord or drawing


def test_the_probe_sees_discord_when_it_is_loaded() -> None:
    result = probe("commands", "--json")  # lists the slash commands: needs discord.py
    assert "discord" in result["loaded"]  # type: ignore[operator]


def test_the_front_end_table_matches_what_each_module_registers() -> None:
    for module, commands in cli.FRONT_ENDS:
        parser = argparse.ArgumentParser()
        sub = parser.add_subparsers()
        importlib.import_module(module).add_subcommands(sub)
        assert tuple(sorted(sub.choices)) == tuple(sorted(commands)), module
    everything = cli.build_parser()._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    registered = [c for _, commands in cli.FRONT_ENDS for c in commands]
    assert sorted(everything) == sorted([*cli.CORE_COMMANDS, *registered])


def test_help_lists_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        cli.main(["--help"])
    assert stop.value.code == 0
    out = capsys.readouterr().out
    for _, commands in cli.FRONT_ENDS:
        for command in commands:
            assert command in out
    with pytest.raises(SystemExit) as stop:
        cli.main(["fly"])
    assert stop.value.code == 2
    assert "invalid choice: 'fly'" in capsys.readouterr().err


def test_moves_takes_options_before_between_and_after(capsys: pytest.CaptureFixture[str]) -> None:
    outputs = []
    for argv in (
        ["moves", "tquarchess", "e4", "e5", "--seed", "3"],
        ["moves", "tquarchess", "--seed", "3", "e4", "e5"],
        ["moves", "tquarchess", "e4", "--seed", "3", "e5"],
        ["moves", "--seed", "3", "tquarchess", "e4", "e5"],
    ):
        assert cli.main(argv) == 0
        outputs.append(capsys.readouterr().out)
    assert len(set(outputs)) == 1 and "white to act:" in outputs[0]
    assert "Nf3" in outputs[0].split()  # e4 e5 were both played: White moves again
    with pytest.raises(SystemExit):
        cli.main(["moves", "tquarchess", "e4", "--sed", "3"])
    assert "unrecognized arguments: --sed" in capsys.readouterr().err


def test_moves_takes_variant_options(capsys: pytest.CaptureFixture[str]) -> None:
    # Free Play: the players alternate placements, so Black places second.
    assert cli.main(["moves", "jepps_random", "Qa1", "--seed", "1", "--option", "free_play"]) == 0
    assert "black to act:" in capsys.readouterr().out
    assert cli.main(["moves", "jepps_random", "Qa1", "--seed", "1"]) == 0
    assert "white to act:" in capsys.readouterr().out
    assert cli.main(["moves", "jepps_random", "--option", "nonsense=3"]) == 2
    assert "nonsense" in capsys.readouterr().err
    assert cli.main(["moves", "jepps_random", "--option", "=3"]) == 2
    assert "cannot read the option" in capsys.readouterr().err
