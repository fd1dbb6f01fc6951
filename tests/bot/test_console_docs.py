"""The README's console section matches the code: every subcommand, every console
command, every option of ``play``, and links that resolve in a clone."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from bot import cli
from bot.console import session as console

ROOT = Path(__file__).resolve().parent.parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def section(title: str) -> str:
    start = README.index(f"## {title}")
    end = README.find("\n## ", start + 1)
    return README[start : end if end >= 0 else None]


def test_every_subcommand_is_listed() -> None:
    listed = set(re.findall(r"^chessgarden ([\w-]+)", section("The console"), re.M))
    commands = {*cli.CORE_COMMANDS, *(c for _, group in cli.FRONT_ENDS for c in group)}
    assert listed == commands


def test_every_console_command_and_play_option_is_documented() -> None:
    text = section("The console")
    table = set(re.findall(r"^\| `(\w+)` \|", text, re.M))
    assert table == set(console.COMMANDS)
    parser = argparse.ArgumentParser()
    console.add_subcommands(parser.add_subparsers())
    play = parser._subparsers._group_actions[0].choices["play"]  # type: ignore[union-attr]
    flags = {f for action in play._actions for f in action.option_strings if f.startswith("--")}
    flags -= {"--help"}
    for flag in flags:
        assert flag in text, f"README does not mention {flag}"
    for choice in console.ORIENTATIONS:
        assert choice in text


def test_rules_links_resolve_in_a_clone() -> None:
    assert "RULES.md" not in README  # a clone does not have ../shared/RULES.md
    for target in re.findall(r"\]\(([^)#]+)\)", README):
        if not target.startswith("http"):
            assert (ROOT / target).exists(), target
    assert "chessgarden rules VARIANT [--markdown]" in README
