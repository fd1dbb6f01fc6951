from __future__ import annotations

import io

import pytest
from PIL import Image

import variants
from renderers import render_image, render_png
from renderers.board import board_art
from renderers.layout import (
    BAR,
    COORD,
    LEGEND_COLUMNS,
    LEGEND_PAD,
    LEGEND_ROW,
    MIN_BAND,
    PAD,
    STRIP,
    layout,
    screen_cell,
)
from renderers.palette import over
from renderers.scene import CHECK, LAST, NEXT, scene, sprite_key
from renderers.themes import THEMES, get_theme
from variants.position import Piece

SIZE = 480
TOLERANCE = 6  # per channel: the palette keeps flat colours exact, allow a little


def playout(key: str, plies: int, seed: int) -> variants.Game:
    return variants.random_playout(key, plies, seed)


def decode(png: bytes) -> Image.Image:
    im = Image.open(io.BytesIO(png))
    im.load()
    return im


def rgb_at(im: Image.Image, x: int, y: int) -> tuple[int, int, int]:
    px = im.convert("RGB").getpixel((x, y))
    assert isinstance(px, tuple)
    return px[0], px[1], px[2]


def close(a: tuple[int, ...], b: tuple[int, ...]) -> bool:
    return all(abs(x - y) <= TOLERANCE for x, y in zip(a, b, strict=True))


def box_of(game: variants.Game, name: str, size: int, white_bottom: bool) -> tuple[int, int, int]:
    """(x0, y0, side) of a square, computed here from the geometry, not by the renderer."""
    g = game.rules.geometry
    sq = int(size // (g.width + COORD + PAD))
    s = g.parse_square(name)
    f, r = g.file_of(s), g.rank_of(s)
    col, row = (f, g.height - 1 - r) if white_bottom else (g.width - 1 - f, r)
    top = max(MIN_BAND, round(STRIP * size)) + max(MIN_BAND, round(BAR * size))
    return round(COORD * sq) + col * sq, top + row * sq, sq


def square_colour(game: variants.Game, name: str, theme: str = "classic") -> tuple[int, int, int]:
    th = get_theme(theme)
    g = game.rules.geometry
    return th.dark_square if g.is_dark(g.parse_square(name)) else th.light_square


# ----- size and layout ---------------------------------------------------------------


@pytest.mark.parametrize("key", variants.names())
@pytest.mark.parametrize("size", [400, 800])
def test_image_size_follows_the_geometry(key: str, size: int) -> None:
    game = variants.new_game(key, seed=1)
    g = game.rules.geometry
    sq = int(size // (g.width + COORD + PAD))
    height = (
        max(MIN_BAND, round(STRIP * size))
        + 2 * max(MIN_BAND, round(BAR * size))
        + g.height * sq
        + round(COORD * sq)
        + round(PAD * sq)
    )
    # the legend strip: a row per LEGEND_COLUMNS pieces a newcomer will not know
    pieces = len(game.rules.legend_kinds)
    rows = -(-pieces // LEGEND_COLUMNS)
    legend = rows * round(LEGEND_ROW * size) + 2 * round(LEGEND_PAD * size) if rows else 0
    im = decode(render_png(game, size=size))
    assert im.size == (size, height + legend)
    assert im.mode == "P"
    bare = decode(render_png(game, size=size, legend=False))
    assert bare.size == (size, height)


def test_flip_puts_a1_in_the_other_corner() -> None:
    g = variants.new_game("tquarchess", seed=1).rules.geometry
    a1, h8 = g.parse_square("a1"), g.parse_square("h8")
    assert screen_cell(g, a1, False) == (0, 7)  # bottom left
    assert screen_cell(g, a1, True) == (7, 0)  # top right
    assert screen_cell(g, h8, True) == (0, 7)
    white, black = layout(g, SIZE, False), layout(g, SIZE, True)
    assert white.cells[a1] == black.cells[h8]
    assert white.cells[a1][0] < SIZE // 2 < black.cells[a1][0]
    assert white.cells[a1][1] > black.cells[a1][1]


def test_flip_moves_the_highlight_to_the_other_corner() -> None:
    game = variants.new_game("tquarchess", seed=1)
    game.play("a4")  # a2 is now an empty last-move square
    want = over(square_colour(game, "a2"), get_theme("classic").last_move)
    for white_bottom in (True, False):
        im = decode(render_png(game, size=SIZE, orientation="white" if white_bottom else "black"))
        x0, y0, sq = box_of(game, "a2", SIZE, white_bottom)
        assert close(rgb_at(im, x0 + sq // 2, y0 + sq // 2), want)
        assert (x0 < SIZE // 2) == white_bottom


def test_default_orientation_is_the_side_to_move() -> None:
    game = variants.new_game("kings_guard", seed=1)
    assert render_png(game, size=SIZE) == render_png(game, size=SIZE, orientation="white")
    game.play(game.legal_moves()[0])
    assert render_png(game, size=SIZE) == render_png(game, size=SIZE, orientation="black")


def test_bad_arguments_are_refused() -> None:
    game = variants.new_game("tquarchess", seed=1)
    with pytest.raises(ValueError, match="orientation"):
        render_png(game, orientation="sideways")
    with pytest.raises(ValueError, match="size"):
        render_png(game, size=50)
    with pytest.raises(KeyError, match="theme"):
        render_png(game, theme="neon")


# ----- highlights -----------------------------------------------------------------------


@pytest.mark.parametrize("theme", sorted(THEMES))
def test_last_move_highlights_from_and_to_squares(theme: str) -> None:
    game = variants.new_game("tquarchess", seed=1)
    game.play("Nf3")
    im = decode(render_png(game, size=SIZE, orientation="white", theme=theme))
    tint = get_theme(theme).last_move
    for name in ("g1", "f3"):
        x0, y0, sq = box_of(game, name, SIZE, True)
        # near the top-left corner: clear of the piece on f3
        assert close(rgb_at(im, x0 + 2, y0 + 2), over(square_colour(game, name, theme), tint))
    x0, y0, sq = box_of(game, "e2", SIZE, True)
    assert close(rgb_at(im, x0 + 2, y0 + 2), square_colour(game, "e2", theme))


@pytest.mark.parametrize("theme", sorted(THEMES))
def test_check_highlights_the_king_square(theme: str) -> None:
    game = variants.new_game("tquarchess", seed=1)
    for move in ("e4", "f5", "Qh5"):
        game.play(move)
    assert game.checked_king() == game.rules.geometry.parse_square("e8")
    im = decode(render_png(game, size=SIZE, orientation="white", theme=theme))
    x0, y0, sq = box_of(game, "e8", SIZE, True)
    want = over(square_colour(game, "e8", theme), get_theme(theme).check)
    assert close(rgb_at(im, x0 + 2, y0 + 2), want)
    assert close(rgb_at(im, x0 + sq - 3, y0 + 2), want)


def test_checkmate_keeps_the_king_marked_and_shows_the_result() -> None:
    game = variants.new_game("tquarchess", seed=1)
    for move in ("f3", "e5", "g4", "Qh4#"):
        game.play(move)
    assert game.result is not None
    art = board_art(game.rules, "classic", SIZE, False)
    sc = scene(game, art.lay)
    e1 = game.rules.geometry.parse_square("e1")
    assert sc.cells[e1][0] == CHECK
    assert sc.status.text.startswith("Black wins")
    assert sc.status.dice == ()


def test_roll_keeps_the_previous_move_highlighted() -> None:
    game = variants.new_game("tquarchess", seed=3)
    game.play("e4")
    game.play("roll")
    art = board_art(game.rules, "classic", SIZE, False)
    sc = scene(game, art.lay)
    g = game.rules.geometry
    assert sc.cells[g.parse_square("e2")][0] == LAST
    assert sc.cells[g.parse_square("e4")][0] == LAST
    assert sc.status.dice == game.dice
    assert sc.top.waiting == ("T",) and sc.top.waiting_badge == str(game.dice[0])


# ----- what each variant shows ----------------------------------------------------------


@pytest.mark.parametrize("theme", sorted(THEMES))
@pytest.mark.parametrize("orientation", ["white", "black"])
@pytest.mark.parametrize("moment", ["start", "midgame"])
@pytest.mark.parametrize("key", variants.names())
def test_every_variant_renders(key: str, moment: str, orientation: str, theme: str) -> None:
    game = variants.new_game(key, seed=5) if moment == "start" else playout(key, 60, 5)
    png = render_png(game, size=SIZE, orientation=orientation, theme=theme)
    im = decode(png)
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert im.mode == "P" and im.width == SIZE
    # more than the empty board: pieces were drawn
    empty = board_art(game.rules, theme, SIZE, orientation == "black").p
    assert im.tobytes() != empty.tobytes()


def test_guardener_on_its_double_start_is_drawn_once_between_its_squares() -> None:
    game = variants.new_game("guardener", seed=1)
    g = game.rules.geometry
    art = board_art(game.rules, "classic", SIZE, False)
    sc = scene(game, art.lay)
    sq = art.lay.sq
    for left, right in (("d0", "e0"), ("d9", "e9")):
        a, b = sc.cells[g.parse_square(left)], sc.cells[g.parse_square(right)]
        assert a[1] == b[1] == "G"
        assert (a[4], b[4]) == (sq // 2, -(sq - sq // 2)) or (a[4], b[4]) == (sq // 2, -sq // 2)
    flipped = scene(game, board_art(game.rules, "classic", SIZE, True).lay)
    d0 = flipped.cells[g.parse_square("d0")]
    assert d0[4] < 0  # from Black's side d0 is the right-hand square of the pair


def test_guardener_terraces_are_shaded_and_holes_are_background() -> None:
    game = variants.new_game("guardener", seed=1)
    assert set(game.rules.zones()) == {"T1", "T2", "T3", "T4"}
    th = get_theme("classic")
    im = decode(render_png(game, size=SIZE, orientation="white"))
    x0, y0, sq = box_of(game, "z4", SIZE, True)
    base = square_colour(game, "z4")
    assert close(rgb_at(im, x0 + 2, y0 + 2), over(base, th.terrace_shade))
    # w1 is a hole: page background
    g = game.rules.geometry
    hole = g.files.index("w") + (1 - g.first_rank) * g.width
    assert not g.on_board[hole]
    x0, y0, x1, y1 = layout(g, SIZE, False).cells[hole]
    assert rgb_at(im, x0 + 2, y0 + 2) == th.background


def test_guardener_shows_the_dice() -> None:
    game = variants.new_game("guardener", seed=1)
    assert game.dice is not None and len(game.dice) == 2
    sc = scene(game, board_art(game.rules, "classic", SIZE, False).lay)
    assert sc.status.dice == game.dice and sc.status.sides == 4


def test_tquarchess_quads_are_outlined() -> None:
    game = variants.new_game("tquarchess", seed=1)
    th = get_theme("classic")
    im = decode(render_png(game, size=SIZE, orientation="white"))
    x0, y0, sq = box_of(game, "d4", SIZE, True)  # d4 is in Q2; its right edge borders Q1
    assert close(rgb_at(im, x0 + sq - 1, y0 + sq // 2), th.quad_outline)


def test_tquarc_value_badge_and_waiting_tquarcs() -> None:
    game = variants.new_game("tquarchess", seed=2)
    art = board_art(game.rules, "classic", SIZE, False)
    sc = scene(game, art.lay)
    assert sc.top.waiting == ("T",) and sc.bottom.waiting == ("T",)
    for move in ("e4", "e5", "Nf3/T"):
        game.play(move)
    g1 = game.rules.geometry.parse_square("g1")
    tq = game.pos.board[g1]
    assert tq is not None and tq.kind == "T"
    sc = scene(game, art.lay)
    assert sc.cells[g1][1] == "T" and sc.cells[g1][3] == tq.state
    assert sc.bottom.waiting == () and sc.top.waiting == ("T",)
    im = decode(render_png(game, size=SIZE, orientation="white"))
    x0, y0, sq = box_of(game, "g1", SIZE, True)
    corner = [rgb_at(im, x0 + sq - 1 - d, y0 + sq - 1 - d) for d in range(sq // 10, sq // 5)]
    assert any(close(px, get_theme("classic").badge_fill) for px in corner)


def test_jepps_setup_shows_stock_offered_pieces_and_the_next_square() -> None:
    game = variants.new_game("jepps_random", seed=4)
    for _ in range(3):
        game.play(game.legal_moves()[0])
    assert game.pos.extra["phase"] == "setup"
    sc = scene(game, board_art(game.rules, "classic", SIZE, False).lay)
    places = [m for m, _ in game.legal_actions() if m.flag == "place"]
    assert places
    assert sc.cells[places[0].to][0] == NEXT
    placer = sc.bottom if game.pos.turn == 0 else sc.top
    assert "".join(sorted(placer.stock)) == "".join(sorted(game.pos.extra["stock"][game.pos.turn]))
    assert placer.offered == {m.promo for m in places}
    assert set(sc.status.offered) == placer.offered
    assert sc.status.text == f"{game.turn.capitalize()} to place"
    assert sc.status.detail == variants.describe(game).short
    assert sc.status.dice == game.dice and sc.status.sides == 6


def test_stone_garden_ravens_turn_with_the_board_and_kings_promote() -> None:
    raven = Piece("RA", 0, "E")
    assert sprite_key(raven, False) == "RA:E"
    assert sprite_key(raven, True) == "RA:W"
    assert sprite_key(Piece("RA", 1, "S"), True) == "RA:N"
    assert sprite_key(Piece("K", 1, "+"), False) == "KP"
    assert sprite_key(Piece("K", 1, ""), False) == "K"
    game = variants.new_game("stone_garden", seed=1)
    sc = scene(game, board_art(game.rules, "classic", SIZE, False).lay)
    ravens = {key[1] for key in sc.cells.values() if key[1].startswith("RA")}
    assert ravens == {"RA:N", "RA:S"}  # each side's Ravens face forward


def test_captured_pieces_go_to_their_side_tray() -> None:
    game = variants.new_game("tquarchess", seed=1)
    for move in ("e4", "d5", "exd5"):
        game.play(move)
    sc = scene(game, board_art(game.rules, "classic", SIZE, False).lay)
    assert sc.top.lost == ("P",) and sc.bottom.lost == ()


# ----- caching ----------------------------------------------------------------------------


def test_layers_are_cached_and_a_square_is_one_lookup() -> None:
    game = playout("tquarchess", 20, 9)
    art = board_art(game.rules, "classic", SIZE, False)
    first = render_image(game, size=SIZE, orientation="white")
    tiles = len(art.tiles)
    second = render_image(game, size=SIZE, orientation="white")
    assert len(art.tiles) == tiles
    assert first.tobytes() == second.tobytes()
    assert board_art(game.rules, "classic", SIZE, False) is art


# ----- the banded PNG and warm tiles ------------------------------------------------------


def _idat(png: bytes) -> bytes:
    import struct

    pos, out = 8, b""
    while pos < len(png):
        (n,) = struct.unpack(">I", png[pos : pos + 4])
        if png[pos + 4 : pos + 8] == b"IDAT":
            out += png[pos + 8 : pos + 8 + n]
        pos += 12 + n
    return out


@pytest.mark.parametrize("key", variants.names())
def test_banded_png_is_exactly_the_composed_picture(key: str) -> None:
    """render_png joins cached, separately compressed bands: the stream must still be one
    valid zlib stream (its Adler-32 checked by zlib) holding exactly the picture that
    render_image composes, position after position."""
    import zlib

    game = variants.new_game(key, seed=8)
    rng = __import__("random").Random(8)
    for ply in range(40):
        if game.result is not None:
            break
        if ply % 5 == 0:
            for orientation in ("white", "black"):
                png = render_png(game, size=SIZE, orientation=orientation)
                raw = zlib.decompress(_idat(png))  # raises on a bad Adler-32 or stream
                im = decode(png)
                assert len(raw) == im.height * (im.width + 1)
                want = render_image(game, size=SIZE, orientation=orientation)
                assert im.tobytes() == want.tobytes()
        game.play(rng.choice(game.legal_moves()))


@pytest.mark.parametrize("key", variants.names())
def test_reused_bands_make_the_same_picture_as_a_fresh_render(
    key: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A played game drawn ply after ply as the bot draws it (facing the side to act, so
    the board turns every turn), each picture from the bands earlier pictures left: the
    same bytes as drawing it with nothing reused, and the same pixels as composing it
    (render_image). And most bands were reused, not compressed again."""
    import random

    from renderers import board

    compressed = [0]
    compress = board.compress_scanlines

    def counting(raw: bytes, packing: object) -> object:
        compressed[0] += 1
        return compress(raw, packing)  # type: ignore[arg-type]

    board.clear_caches()
    monkeypatch.setattr(board, "compress_scanlines", counting)
    game = variants.new_game(key, seed=26)
    rng = random.Random(26)
    shots: list[tuple[variants.Game, str, bytes]] = []
    bands = 0
    for _ in range(24):
        if game.result is not None:
            break
        game.play(rng.choice(game.legal_moves()))
        side = game.turn
        shots.append((game.copy(), side, render_png(game, size=SIZE, orientation=side)))
        art = board_art(game.rules, "classic", SIZE, side == "black")
        bands += len(art._specs(scene(game, art.lay)))
    assert len(shots) >= 10
    assert compressed[0] < 0.6 * bands  # the rest were the bands of earlier pictures
    for shot, side, png in shots:
        board.clear_caches()  # nothing reused: every band compressed afresh
        assert render_png(shot, size=SIZE, orientation=side) == png
        assert decode(png).tobytes() == render_image(shot, size=SIZE, orientation=side).tobytes()


def test_warm_draws_every_tile_a_game_needs() -> None:
    from renderers.board import warm

    warm("tquarchess", size=SIZE)
    art = board_art(variants.rules("tquarchess"), "classic", SIZE, False)
    art.tiles.clear()
    game = variants.new_game("tquarchess", seed=3)
    rng = __import__("random").Random(3)
    for _ in range(60):
        if game.result is not None:
            break
        render_png(game, size=SIZE, orientation="white")
        game.play(rng.choice(game.legal_moves()))
    assert len(art.tiles) == 0  # every square came from the warm tiles
    assert art.warm_tiles and art.warm_bands


def test_warm_refuses_a_bad_orientation_and_an_unknown_variant() -> None:
    from renderers.board import warm

    with pytest.raises(ValueError, match="orientation"):
        warm("tquarchess", size=SIZE, orientations=("sideways",))
    with pytest.raises(ValueError):
        warm("no_such_variant", size=SIZE)
