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
from renderers.typeface import DEJAVU_SANS, Font, bundled_font, drawable, has_glyph

SIZE = 400


@pytest.fixture(autouse=True)
def _fresh(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """No render cache on disk, no cached layers: every word is drawn again."""
    monkeypatch.setenv("CHESSGARDEN_RENDER_CACHE", "off")
    board_module.clear_caches()
    yield
    board_module.clear_caches()


def drawn_texts(
    monkeypatch: pytest.MonkeyPatch, game: variants.Game, locale: str
) -> list[tuple[str, Font]]:
    """Every text the picture of ``game`` draws, with its font, in the order drawn."""
    seen: list[tuple[str, Font]] = []
    for module in (panels_module, legend_module):
        real = module.flat_text

        def record(im, xy, text, *args, _real=real, **kwargs):  # type: ignore[no-untyped-def]
            seen.append((text, kwargs["font"]))
            return _real(im, xy, text, *args, **kwargs)

        monkeypatch.setattr(module, "flat_text", record)
    board_module.clear_caches()
    render_png(game, size=SIZE, speech=Speech(locale))
    return seen


def drawn_words(monkeypatch: pytest.MonkeyPatch, game: variants.Game, locale: str) -> list[str]:
    """Every text the picture of ``game`` draws, in the order drawn."""
    return [text for text, _ in drawn_texts(monkeypatch, game, locale)]


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
    assert "White" in english and "Weiß" in german and "White" not in german
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


def test_umlauts_are_drawn_as_they_are() -> None:
    assert drawable("Weiß zieht, Läufer über Öl") == "Weiß zieht, Läufer über Öl"
    assert drawable("café \u00d7 3") == "café x 3"  # the times sign is written plainly
    assert drawable("\u6f22") == "?"  # neither font has it, and it has no plain form


def test_pillows_font_lacks_the_umlauts_and_dejavu_has_them() -> None:
    """Why DejaVu Sans is bundled: the mask of a letter the font lacks is its missing-glyph
    box, the same for every such letter."""
    for ch in "äöüÄÖÜß":
        assert not has_glyph("pillow", ch), ch
        assert has_glyph("dejavu", ch), ch
        umlaut = bundled_font(20, "dejavu").getmask(ch).getbbox()
        assert umlaut != bundled_font(20, "dejavu").getmask("\U0010fffd").getbbox(), ch
    assert has_glyph("pillow", "a") and not has_glyph("pillow", "\U0010fffd")
    # bundled with its licence beside it, inside the package
    assert DEJAVU_SANS.parent.parent.name == "renderers" and DEJAVU_SANS.is_file()
    assert "Bitstream" in (DEJAVU_SANS.parent / "LICENSE-DejaVu.txt").read_text()
    font = bundled_font(20, "dejavu")
    assert getattr(font, "path", None) == str(DEJAVU_SANS)


def drawn_in(font: Font, text: str) -> bool:
    """Whether ``font`` has a glyph for every letter of ``text``."""
    missing = bytes(font.getmask("\U0010fffd"))
    return all(ch.isspace() or bytes(font.getmask(ch)) != missing for ch in text)


def test_german_words_are_drawn_with_their_umlauts(monkeypatch: pytest.MonkeyPatch) -> None:
    """'Weiß' on the strip and the bar, 'König' in Guardener's caption on a [1 2] roll,
    the legend's 'vorwärts': each drawn as written, in a font that has its letters, and
    every word of a German picture in DejaVu Sans (one font for the whole picture)."""
    guardener = drawn_texts(monkeypatch, variants.new_game("guardener", rolls=[1, 2]), "de")
    garden = drawn_texts(monkeypatch, variants.new_game("stone_garden", seed=3), "de")
    jepps = drawn_texts(monkeypatch, variants.new_game("jepps_random", seed=4), "de")
    texts = guardener + garden + jepps
    words = [w.strip(",.;") for text, _ in texts for w in text.split()]
    for wanted in ("Weiß", "König", "vorwärts", "zurück", "Läufer"):
        assert wanted in words, (wanted, words)
    assert not any(w in words for w in ("Weiss", "Koenig", "vorwaerts", "Laeufer"))
    for text, font in texts:
        assert drawn_in(font, text), text
        if not text.isdigit() and not text.startswith("x"):  # counts and dice stay
            assert getattr(font, "path", None) == str(DEJAVU_SANS), text


def test_english_words_keep_pillows_font(monkeypatch: pytest.MonkeyPatch) -> None:
    for key in variants.names():
        for text, font in drawn_texts(monkeypatch, played(key, 2, 5), "en"):
            assert getattr(font, "path", None) != str(DEJAVU_SANS), text
