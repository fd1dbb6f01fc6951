"""The analysis graph's and the standings picture's words, in the reader's language
(issue 27).

Both pictures take a ``speech`` (``bot.i18n.Speech``) and draw their words through it: a
German picture draws German words, and an English one is byte for byte the picture drawn
without a speech. The words are recorded where they are drawn (``ImageDraw.text``), so a
word that bypassed the speech would be caught.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from drawn_words import record_drawn_text

from bot.i18n import Speech, said
from renderers.graph import graph_png
from renderers.tournament import Cell, StandingsTable, TableRow, render_standings
from variants.sentence import word


@dataclass(frozen=True)
class Turn:
    white: float
    luck: float
    roller: str | None
    label: str
    luck_label: str


TURNS = [
    Turn(
        0.5 + 0.04 * ((i * 7) % 9 - 4),
        0.1 * ((i * 3) % 7 - 3),
        ("white", "black", None)[i % 3],
        ("", "?", "??", "?!")[i % 4],
        "joker" if i % 5 == 0 else "",
    )
    for i in range(24)
]


def table() -> StandingsTable:
    """A Swiss after two rounds, its words ``Said`` as the service hands them."""
    return StandingsTable(
        title="Spring Cup",
        subtitle=said("Swiss, after round {round}", round=2),
        kind="swiss",
        columns=("1", "2"),
        tiebreaks=(word("Buch"), word("DE")),
        rows=(
            TableRow("1", "alice", "1½", ("2", "1"), (Cell("1", "w", "2"), Cell("½", "b", "3"))),
            TableRow("2", "bob", "1", ("1", "0"), (Cell("0", "b", "1"), Cell("1", "w", "3"))),
        ),
    )


def drawn(monkeypatch: pytest.MonkeyPatch, draw_picture: Any) -> list[str]:
    """Every text ``draw_picture()`` draws, in the order drawn."""
    seen = record_drawn_text(monkeypatch)
    draw_picture()
    return seen


def test_english_speech_draws_the_same_bytes() -> None:
    assert graph_png(TURNS, title="Game 3 · X", speech=Speech("en")) == graph_png(
        TURNS, title="Game 3 · X"
    )
    assert render_standings(table(), Speech("en")) == render_standings(table())


def test_an_english_graph_draws_its_english_words(monkeypatch: pytest.MonkeyPatch) -> None:
    words = drawn(monkeypatch, lambda: graph_png(TURNS, speech=Speech("en")))
    for expected in ("White", "Black", "White's score", "Luck", "ply"):
        assert expected in words


def test_a_german_graph_draws_german_words(monkeypatch: pytest.MonkeyPatch) -> None:
    words = drawn(monkeypatch, lambda: graph_png(TURNS, speech=Speech("de")))
    for expected in ("Weiß", "Schwarz", "Erwartung Weiß", "Glück", "Halbzug"):
        assert expected in words
    for english in ("White", "Black", "White's score", "Luck", "ply"):
        assert english not in words
    assert graph_png(TURNS, speech=Speech("de")) != graph_png(TURNS)


def test_a_graph_names_its_players_as_given(monkeypatch: pytest.MonkeyPatch) -> None:
    words = drawn(
        monkeypatch, lambda: graph_png(TURNS, white="alice", black="bob", speech=Speech("de"))
    )
    assert "alice" in words and "bob" in words and "Weiß" not in words


def test_a_german_standings_picture_draws_german_words(monkeypatch: pytest.MonkeyPatch) -> None:
    words = drawn(monkeypatch, lambda: render_standings(table(), Speech("de")))
    for expected in ("Spieler", "Pkt.", "Buch", "DV", "Schweizer System, nach Runde 2"):
        assert expected in words
    for english in ("Player", "Pts", "DE", "Swiss, after round 2"):
        assert english not in words
    english = drawn(monkeypatch, lambda: render_standings(table(), Speech("en")))
    for expected in ("Player", "Pts", "Buch", "DE", "Swiss, after round 2"):
        assert expected in english
