"""The rules text: one source (variants/rulebook.py and variants/rulebooks/), three
renderings, the docs/rules pages in step with it, and the issue's gaps covered."""

from __future__ import annotations

from pathlib import Path

import pytest

import variants
from variants.rulebook import FIELD_NAME_LIMIT, FIELD_VALUE_LIMIT, Section, Table, discord_fields

DOCS = Path(__file__).resolve().parents[2] / "docs" / "rules"
KEYS = variants.names()


def all_text(book: variants.Rulebook) -> str:
    """Every word of a rulebook, tables included."""
    parts = [book.summary]
    for section in book.sections:
        parts.append(section.title)
        for block in section.blocks:
            if isinstance(block, str):
                parts.append(block)
            elif isinstance(block, tuple):
                parts.extend(block)
            else:
                parts.extend(" ".join(row) for row in (block.header, *block.rows))
    return "\n".join(parts)


def section(book: variants.Rulebook, title: str) -> Section:
    return next(s for s in book.sections if s.title == title)


@pytest.mark.parametrize("key", KEYS)
def test_every_rulebook_has_the_parts_the_issue_asks_for(key: str) -> None:
    book = variants.rulebook(key)
    titles = [s.title for s in book.sections]
    assert titles[0] == "Board and setup" and titles[1] == "Pieces"
    assert "How the game ends" in titles and "Notation" in titles
    assert titles[-1] == "Readings in force"
    # Each piece's move in words, for every piece type of the variant.
    (table,) = [b for b in section(book, "Pieces").blocks if isinstance(b, Table)]
    rules = variants.rules(key)
    assert [row[0] for row in table.rows] == [t.name for t in rules.piece_types]
    assert all(len(row[2]) > 20 for row in table.rows)
    # The readings in force are the variant's own, word for word.
    readings = section(book, "Readings in force").blocks[1]
    assert readings == rules.readings


def test_guardener_has_the_die_to_piece_table() -> None:
    book = variants.rulebook("guardener")
    (table,) = [b for b in section(book, "Dice").blocks if isinstance(b, Table)]
    dice = {row[0]: row[1] for row in table.rows}
    assert dice["1"].startswith("a pawn, the King or the Guardener may capture")
    assert dice["2"] == "a Knight may move or capture"
    assert dice["3"] == "a Bishop may move or capture"
    assert dice["4"] == "a Rook may move or capture; the King may castle"
    assert "roll again" in dice["double"] and "teleport" in dice["Double x2"]
    text = all_text(book)
    for phrase in (
        "Free moves",
        "G@z4 {T3}",
        "Nfz4 {T3}",
        "Walking the plank",
        "T2",
        "w3, w4, w5, w6",
    ):
        assert phrase in text, phrase


def test_stone_garden_says_how_every_piece_moves() -> None:
    book = variants.rulebook("stone_garden")
    (table,) = [b for b in section(book, "Pieces").blocks if isinstance(b, Table)]
    moves = {row[0]: row[2] for row in table.rows}
    assert set(moves) == {"Horse", "Ox", "Index", "Policeman", "Raven", "King"}
    assert "two squares forward and one to the side" in moves["Horse"]
    assert (
        "(a T)" in moves["Ox"] and "captures, but never moves, on the first square" in moves["Ox"]
    )
    assert "Ox turned 45 degrees" in moves["Index"]
    assert "2 squares straight on" in moves["Policeman"]
    assert "one or two squares diagonally backward" in moves["Raven"]
    text = all_text(book)
    assert "xiangqi horse" in text and "Rd4^E" in text and "Re4^E" in text
    assert "two different Ravens of one side may turn on consecutive moves" in text


def test_tquarchess_defines_a_tquad_and_the_two_square_king() -> None:
    text = all_text(variants.rulebook("tquarchess"))
    assert "A Tquad is one of four 3x3 blocks" in text
    assert "T3 b-d, ranks 5-7 b5-d7" in text
    assert "Two-square King" in text and "slide two squares in a straight line" in text
    for typed, recorded in (
        ("Tb7%", "Tb7%4"),
        ("Bg5/T", "Bg5/T%3"),
        ("Na8/T", "Na8/T%2"),
        ("b8=T", "b8=T%1"),
    ):
        assert f"{typed} {recorded}" in text


def test_jepps_random_has_the_setup_dice_and_mediator_tables() -> None:
    text = all_text(variants.rulebook("jepps_random"))
    for row in ("1 King", "2 Knight", "3 Bishop", "4 Rook", "5 Queen", "6 free choice"):
        assert row in text
    assert "both even mirrors White file by file Mirror" in text
    assert "Kg1" in text and "There is no castling" in text


@pytest.mark.parametrize("key", KEYS)
def test_the_three_renderings(key: str) -> None:
    book = variants.rulebook(key)
    text = variants.rulebook_text(key)
    assert text.startswith(f"{book.title}\n")
    assert max(len(line) for line in text.splitlines()) <= 80
    for reading in book.sections[-1].blocks[1]:  # type: ignore[union-attr]
        assert reading.split()[0] in text
    markdown = variants.rulebook_markdown(key)
    assert markdown.startswith(f"# {book.title} (`{key}`)")
    assert "## Readings in force" in markdown and "| Piece | Letter | How it moves |" in markdown


@pytest.mark.parametrize("key", KEYS)
def test_discord_fields_never_overflow_and_lose_nothing(key: str) -> None:
    fields = variants.rulebook_fields(key)
    assert fields
    assert all(
        len(name) <= FIELD_NAME_LIMIT and 0 < len(value) <= FIELD_VALUE_LIMIT
        for name, value in fields
    )
    joined = "\n".join(value for _, value in fields)
    for reading in variants.rules(key).readings:
        assert reading in joined
    # Grouped into embeds, each under Discord's 6,000-character total with room to spare.
    pages = variants.rulebook_pages(key)
    assert [f for page in pages for f in page] == list(fields)
    assert all(sum(len(n) + len(v) for n, v in page) <= 5000 and len(page) <= 25 for page in pages)
    # A small limit splits sections into numbered fields, still within the limit.
    small = discord_fields(variants.rulebook(key), limit=200)
    assert all(len(value) <= 200 for _, value in small)
    assert any(name.endswith("(2)") for name, _ in small)


def test_committed_docs_match_the_generated_text() -> None:
    """docs/rules is generated by `chessgarden rules --write docs/rules`; regenerate
    it when this fails."""
    expected = variants.rulebook_docs()
    assert set(expected) == {f"{key}.md" for key in KEYS} | {"README.md"}
    committed = {p.name for p in DOCS.glob("*.md")}
    assert committed == set(expected)
    for name, text in expected.items():
        assert (DOCS / name).read_text(encoding="utf-8") == text, f"docs/rules/{name} is stale"


def test_the_rules_command_prints_and_writes_the_same_text(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from bot.cli import main

    assert main(["rules", "stone_garden"]) == 0
    assert capsys.readouterr().out == variants.rulebook_text("stone_garden")
    assert main(["rules", "tquarchess", "--markdown"]) == 0
    assert capsys.readouterr().out == variants.rulebook_markdown("tquarchess")
    assert main(["rules", "--write", str(tmp_path / "rules")]) == 0
    written = {p.name: p.read_text(encoding="utf-8") for p in (tmp_path / "rules").iterdir()}
    assert written == variants.rulebook_docs()
    assert main(["rules", "fischer"]) == 2
    assert "unknown variant" in capsys.readouterr().err
    assert main(["rules"]) == 2
