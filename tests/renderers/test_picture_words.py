"""The words a picture draws, in the reader's language (issue 27).

``render_png(..., speech=...)`` draws the strip's, the bars' and the legend's words as the
speech says them (``bot.i18n.Speech``: the catalogues); without one, or in English, the
picture is byte for byte the one drawn before pictures could speak another language.
The words are checked where they are drawn (``flat_text``), so a word that bypassed the
speech would be caught.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import variants
from bot import i18n
from bot.i18n import Speech
from renderers import board as board_module
from renderers import legend as legend_module
from renderers import panels as panels_module
from renderers import render_png
from renderers.panels import drawable

SIZE = 400


@pytest.fixture(autouse=True)
def _fresh(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """No render cache on disk, no cached layers: every word is drawn again."""
    monkeypatch.setenv("CHESSGARDEN_RENDER_CACHE", "off")
    board_module.clear_caches()
    yield
    board_module.clear_caches()


def drawn_words(monkeypatch: pytest.MonkeyPatch, game: variants.Game, locale: str) -> list[str]:
    """Every text the picture of ``game`` draws, in the order drawn."""
    seen: list[str] = []
    for module in (panels_module, legend_module):
        real = module.flat_text

        def record(im, xy, text, *args, _real=real, **kwargs):  # type: ignore[no-untyped-def]
            seen.append(text)
            return _real(im, xy, text, *args, **kwargs)

        monkeypatch.setattr(module, "flat_text", record)
    board_module.clear_caches()
    render_png(game, size=SIZE, speech=Speech(locale))
    return seen


def played(key: str, seed: int, plies: int) -> variants.Game:
    game = variants.new_game(key, seed=seed)
    for _ in range(plies):
        if game.result is not None:
            break
        moves = game.legal_moves()
        game.play(moves[(seed * 7 + len(game.moves)) % len(moves)])
    return game


def test_english_speech_draws_the_same_bytes() -> None:
    for key in variants.names():
        game = played(key, 1, 9)
        plain = render_png(game, size=SIZE)
        board_module.clear_caches()
        assert render_png(game, size=SIZE, speech=Speech("en")) == plain


@pytest.mark.parametrize("key", ["stone_garden", "guardener"])
def test_a_german_picture_has_german_words(monkeypatch: pytest.MonkeyPatch, key: str) -> None:
    game = variants.new_game(key, seed=3)
    english = " ".join(drawn_words(monkeypatch, game, "en"))
    german = " ".join(drawn_words(monkeypatch, game, "de"))
    assert "White" in english and "Weiss" in german and "White" not in german
    rules = variants.rules(key)
    for kind in rules.legend_kinds:
        t = rules.types[kind]
        assert t.name in english.split() and t.brief.split()[-1] in english
        # each name and brief as the German catalogue says it; no English name that
        # German says otherwise ('Guardener' and 'Index' are German too)
        name = i18n.gettext("de", t.name)
        assert drawable(name) in german.split(), name
        if name != t.name:
            assert t.name not in german.split(), t.name
        assert drawable(t.brief) not in german
        assert drawable(i18n.gettext("de", t.brief)).split()[0] in german
    board_module.clear_caches()
    de_png = render_png(game, size=SIZE, speech=Speech("de"))
    board_module.clear_caches()
    assert de_png != render_png(game, size=SIZE)


def test_guardener_caption_and_badge_in_german(monkeypatch: pytest.MonkeyPatch) -> None:
    plain = variants.new_game("guardener", rolls=[2, 3])
    caption = variants.describe(plain).short
    assert "Knight" in caption or "capture" in caption
    german = drawn_words(monkeypatch, plain, "de")
    assert any("Springer" in w or "Schlagen" in w for w in german), german
    assert not any("Knight" in w or "capture" in w for w in german), german
    x2 = None
    for seed in range(400):  # a Double x2 (a double re-rolled): its teleport badge
        game = variants.new_game("guardener", seed=seed)
        if "reroll" in game.legal_moves():
            game.play("reroll")
            if "x2" in variants.describe(game).pending:
                x2 = game
                break
    assert x2 is not None
    words = drawn_words(monkeypatch, x2, "de")
    assert any(w.startswith("TELEPORT T") for w in words), words
    assert any("Doppelpasch" in w for w in words), words


def test_umlauts_are_written_plainly() -> None:
    assert drawable("Weiß zieht, Läufer über Öl") == "Weiss zieht, Laeufer ueber Oel"
    assert drawable("café") == "cafe"
