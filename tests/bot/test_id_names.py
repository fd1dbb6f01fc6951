"""Every id the service checks is named by a catalogue entry (``ID_NAMES``), so that its
refusal ("the game id must be a whole number") is said whole in the reader's language."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from bot import i18n
from bot.service.core import ID_NAMES, check_id
from bot.service.errors import InvalidInput

ROOT = Path(__file__).resolve().parents[2]


def names_checked() -> list[tuple[str, int, object]]:
    """(file, line, the second argument) of every ``check_id`` call under ``bot/``."""
    found = []
    for path in sorted((ROOT / "bot").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id == "check_id"
            ):
                what = node.args[1] if len(node.args) > 1 else None
                value = what.value if isinstance(what, ast.Constant) else ast.dump(what or node)
                found.append((str(path.relative_to(ROOT)), node.lineno, value))
    return found


def test_every_check_names_an_id_of_the_table() -> None:
    calls = names_checked()
    assert len(calls) > 50  # the scan sees the calls
    strays = [(f, line, what) for f, line, what in calls if what not in ID_NAMES]
    assert not strays, f"check_id names something ID_NAMES lacks (add it there): {strays}"


@pytest.mark.parametrize("value", ["12", 2**63])
def test_a_refused_id_is_said_whole_in_german(value: object) -> None:
    with pytest.raises(InvalidInput) as refused:
        check_id(value, "the game id")
    english = i18n.render("en", refused.value.said or "")
    german = i18n.render("de", refused.value.said or "")
    assert english.startswith("the game id ")
    assert german.startswith("die Partie-ID ") and "game" not in german
