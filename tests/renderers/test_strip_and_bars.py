"""What the status strip and the player bars say and show (issue 11's image items).

Pixel checks work on the PNG the bot would send, at the bot's 800 px, with regions found
from colours rather than from the renderer's own layout code where they can be.
"""

from __future__ import annotations

import io
import random
from collections.abc import Callable

import pytest
from PIL import Image

import variants
from renderers import render_png
from renderers.board import board_art
from renderers.layout import BAR, MIN_BAND, STRIP
from renderers.palette import colours
from renderers.panels import draw_side, draw_status
from renderers.scene import Side, Status, scene
from renderers.themes import THEMES, get_theme

SIZE = 800


def decode(png: bytes) -> Image.Image:
    im = Image.open(io.BytesIO(png))
    im.load()
    return im.convert("RGB")


def strip_of(im: Image.Image) -> Image.Image:
    return im.crop((0, 0, im.width, max(MIN_BAND, round(STRIP * im.width))))


def bars_of(im: Image.Image, game: variants.Game) -> tuple[Image.Image, Image.Image]:
    """(top bar, bottom bar) of a picture, from the layout's documented sizes: the bottom
    bar under the board and its file letters (a legend strip may follow it)."""
    strip = max(MIN_BAND, round(STRIP * im.width))
    bar = max(MIN_BAND, round(BAR * im.width))
    top = im.crop((0, strip, im.width, strip + bar))
    g = game.rules.geometry
    sq = im.width // (g.width + 0.42 + 0.12)
    below = strip + bar + int(g.height * sq) + round(0.42 * sq)
    bottom = im.crop((0, below, im.width, below + bar))
    return top, bottom


def count(im: Image.Image, rgb: tuple[int, int, int]) -> int:
    return sum(n for n, c in (im.getcolors(1 << 16) or []) if c == rgb)


def find(key: str, pred: Callable[[variants.Game], bool], seeds: int = 300) -> variants.Game:
    """The first position of seeded random games that ``pred`` accepts."""
    for seed in range(seeds):
        rng = random.Random(seed)
        game = variants.new_game(key, seed=seed)
        for _ in range(250):
            if game.result is not None:
                break
            if pred(game):
                return game
            game.play(rng.choice(game.legal_moves()))
    raise LookupError(f"no {key} position found")


def status_of(game: variants.Game) -> Status:
    return scene(game, board_art(game.rules, "classic", SIZE, False).lay).status


# ----- dice as numerals ------------------------------------------------------------------


def _faces(strip: Image.Image, face: tuple[int, int, int]) -> list[tuple[int, int, int, int]]:
    """Boxes of the die faces in the right half of a strip: columns runs of face colour at
    least half the strip tall (the words of a long caption, which may reach into the right
    half in the same colour, stand lower)."""
    w, h = strip.size
    cols = [
        x
        for x in range(w // 2, w)
        if sum(1 for y in range(h) if strip.getpixel((x, y)) == face) >= 2
    ]
    boxes: list[list[int]] = []
    for x in cols:
        if boxes and x <= boxes[-1][1] + 2:
            boxes[-1][1] = x
        else:
            boxes.append([x, x])
    out = []
    for x0, x1 in boxes:
        rows = [
            y for y in range(h) if any(strip.getpixel((x, y)) == face for x in range(x0, x1 + 1))
        ]
        if max(rows) + 1 - min(rows) >= h / 2:
            out.append((x0, min(rows), x1 + 1, max(rows) + 1))
    return out


def _numeral_height(
    strip: Image.Image, box: tuple[int, int, int, int], pip: tuple[int, int, int]
) -> int:
    """How tall the numeral in a die face stands: rows holding the pip colour well inside
    the face."""
    x0, y0, x1, y1 = box
    inner = strip.crop((x0 + (x1 - x0) // 5, y0, x1 - (x1 - x0) // 5, y1))
    rows = [
        y
        for y in range(inner.height)
        if any(inner.getpixel((x, y)) == pip for x in range(inner.width))
    ]
    return max(rows) - min(rows) + 1 if rows else 0


@pytest.mark.parametrize("theme", sorted(THEMES))
def test_strip_dice_are_numerals_that_differ_per_value_and_read_at_400_px(theme: str) -> None:
    th = get_theme(theme)
    crops = []
    for v in (1, 2, 3, 4):
        game = variants.new_game("guardener", rolls=[v, 1 if v != 1 else 2])
        assert game.dice is not None and game.dice[0] == v
        strip = strip_of(decode(render_png(game, size=SIZE, theme=theme)))
        faces = _faces(strip, th.die_face)
        assert len(faces) == 2, faces
        first = faces[0]
        crops.append(strip.crop(first).tobytes())
        # the numeral stands at least 18 px tall at 800 px: 9 px or more on a phone
        assert _numeral_height(strip, first, th.die_pip) >= 36
    assert len(set(crops)) == 4  # each value draws a different glyph


def test_thumbnail_and_strip_dice_follow_the_game_dice() -> None:
    game = variants.new_game("guardener", rolls=[2, 4])
    st = status_of(game)
    assert st.dice == (2, 4) and st.sides == 4


# ----- words -------------------------------------------------------------------------------


def test_strip_says_whose_turn_and_what_the_dice_allow() -> None:
    game = variants.new_game("guardener", rolls=[2, 3, 1, 4])
    st = status_of(game)
    described = variants.describe(game)
    assert st.text == "White to move"
    assert st.detail.lower() == described.short.lower()
    assert "Knight" in st.detail and st.badge == ""
    game.play(next(t for t in game.legal_moves() if t.startswith("N")))
    st = status_of(game)
    assert st.text == "Black to move" and st.disc == 1


def test_strip_words_are_drawn() -> None:
    """Two positions that differ only in what the dice allow draw different words."""
    base = Status("White to move", "", "", 0, False, (2, 3), 4, (), 0)
    words = Status("White to move", "Knight or Bishop", "", 0, False, (2, 3), 4, (), 0)
    th = get_theme("classic")
    a, b = draw_status(base, SIZE, 88, th), draw_status(words, SIZE, 88, th)
    diff = [
        x
        for x in range(SIZE)
        if a.crop((x, 0, x + 1, 88)).tobytes() != b.crop((x, 0, x + 1, 88)).tobytes()
    ]
    assert diff and max(diff) < SIZE // 2  # the words are on the left, the dice unmoved


def test_check_and_the_end_are_said() -> None:
    game = variants.new_game("tquarchess", seed=1)
    for move in ("e4", "f5", "Qh5"):
        game.play(move)
    st = status_of(game)
    assert st.text == "Black to move: check" and st.alert
    game = variants.new_game("tquarchess", seed=1)
    for move in ("f3", "e5", "g4", "Qh4#"):
        game.play(move)
    st = status_of(game)
    assert st.text.startswith("Black wins") and "checkmate" in st.text and st.dice == ()


# ----- the badge -----------------------------------------------------------------------------


def _has_badge(game: variants.Game, theme: str = "classic") -> bool:
    strip = strip_of(decode(render_png(game, size=SIZE, theme=theme)))
    return count(strip, get_theme(theme).accent) > 200


@pytest.mark.parametrize("theme", sorted(THEMES))
def test_guardener_double_x2_shows_the_teleport_badge_only_then(theme: str) -> None:
    x2 = find("guardener", lambda g: "x2" in variants.describe(g).pending)
    assert x2.dice is not None
    st = status_of(x2)
    assert st.badge.startswith("TELEPORT") and f"T{x2.dice[0]}" in st.badge
    assert _has_badge(x2, theme)
    plain = variants.new_game("guardener", rolls=[2, 3])
    assert status_of(plain).badge == "" and not _has_badge(plain, theme)
    double = variants.new_game("guardener", rolls=[3, 3])  # a first double: no teleport yet
    assert variants.describe(double).pending == ""
    assert status_of(double).badge == "" and not _has_badge(double, theme)


def test_guardener_resurrection_is_in_the_badge_when_it_is_on_offer() -> None:
    game = find(
        "guardener",
        lambda g: any(m.flag == "drop" for m, _ in g.legal_actions()),
        seeds=400,
    )
    assert "RESURRECT" in status_of(game).badge


def test_tquarchess_teleport_badge_right_after_the_enemy_tquarc_moved() -> None:
    game = find("tquarchess", lambda g: variants.describe(g).pending.startswith("Teleport"))
    assert any(m.flag == "teleport" for m, _ in game.legal_actions())
    st = status_of(game)
    assert st.badge.startswith("TELEPORT TQUAD")
    assert _has_badge(game)
    # one move later the power is gone, and so is the badge
    rng = random.Random(1)
    game.play(rng.choice([t for m, t in game.legal_actions() if m.flag == ""]))
    if not variants.describe(game).pending:
        assert status_of(game).badge == "" and not _has_badge(game)


def test_tquarchess_pending_entry_value_badge() -> None:
    game = variants.new_game("tquarchess", seed=3)
    game.play("e4")
    game.play("roll")
    assert game.dice is not None
    st = status_of(game)
    assert st.badge == f"ENTRY VALUE {game.dice[0]}"
    assert st.dice == game.dice
    assert _has_badge(game)


# ----- the player bars -------------------------------------------------------------------------


def _lost_lightness(bar: Image.Image, chip: tuple[int, int, int]) -> float:
    """Mean lightness of the piece pixels on the chips right of the player's name (the
    chips are the only places of chip colour there)."""
    right = bar.crop((bar.width // 4, 0, bar.width, bar.height))
    cols = [
        x
        for x in range(right.width)
        if any(right.getpixel((x, y)) == chip for y in range(right.height))
    ]
    assert cols, "no chip right of the name"
    runs: list[list[int]] = []
    for x in cols:
        if runs and x <= runs[-1][1] + 2:
            runs[-1][1] = x
        else:
            runs.append([x, x])
    piece: list[tuple[int, int, int]] = []
    for x0, x1 in runs:
        col = right.crop((x0, 0, x1 + 1, right.height))
        rows = [
            y
            for y in range(col.height)
            if any(col.getpixel((x, y)) == chip for x in range(col.width))
        ]
        inner = col.crop((2, min(rows) + 2, col.width - 2, max(rows) - 1))
        raw = inner.tobytes()
        pixels = [tuple(raw[i : i + 3]) for i in range(0, len(raw), 3)]
        piece += [(p[0], p[1], p[2]) for p in pixels if p != chip]
    assert len(piece) > 100
    return sum(0.299 * r + 0.587 * g + 0.114 * b for r, g, b in piece) / len(piece)


@pytest.mark.parametrize("theme", sorted(THEMES))
def test_lost_pieces_are_drawn_in_their_own_side_colour(theme: str) -> None:
    game = variants.new_game("tquarchess", seed=1)
    for move in ("e4", "d5", "exd5", "Qxd5"):  # each side has lost a pawn
        game.play(move)
    th = get_theme(theme)
    chip = colours(th).chip
    im = decode(render_png(game, size=SIZE, orientation="white", theme=theme))
    top, bottom = bars_of(im, game)  # Black's bar on top, White's below
    assert _lost_lightness(top, chip) < 110  # a black pawn, on a chip
    assert _lost_lightness(bottom, chip) > 150  # a white pawn


def test_lost_pieces_are_grouped_with_a_count() -> None:
    side = Side(0, True, (), "", (), frozenset(), ("P", "P", "P", "N"))
    few = Side(0, True, (), "", (), frozenset(), ("P", "N"))
    th = get_theme("classic")
    a, b = draw_side(side, SIZE, 58, th), draw_side(few, SIZE, 58, th)
    # each kind is drawn once: as much white piece in both; the count adds words only
    fill = th.piece_white_fill
    assert count(a, fill) == count(b, fill) > 100
    assert a.tobytes() != b.tobytes()


def test_a_resurrected_piece_leaves_the_lost_bar() -> None:
    """Guardener: a captured Guardener placed back by a resurrection is no longer lost."""
    game = find(
        "guardener",
        lambda g: any(m.flag == "drop" for m, _ in g.legal_actions()),
        seeds=400,
    )
    color = game.pos.turn
    art = board_art(game.rules, "classic", SIZE, False)
    bar = scene(game, art.lay).bottom if color == 0 else scene(game, art.lay).top
    assert "G" in bar.lost
    game.play(next(t for m, t in game.legal_actions() if m.flag == "drop"))
    bar = scene(game, art.lay).bottom if color == 0 else scene(game, art.lay).top
    assert "G" not in bar.lost


def test_tquarchess_resurrected_tquarc_leaves_the_lost_bar() -> None:
    game = find(
        "tquarchess",
        lambda g: any(m.flag == "kres" for m, _ in g.legal_actions()),
        seeds=400,
    )
    color = game.pos.turn
    art = board_art(game.rules, "classic", SIZE, False)
    side = scene(game, art.lay).bottom if color == 0 else scene(game, art.lay).top
    assert "T" in side.lost
    game.play(next(t for m, t in game.legal_actions() if m.flag == "kres"))
    side = scene(game, art.lay).bottom if color == 0 else scene(game, art.lay).top
    assert "T" not in side.lost
