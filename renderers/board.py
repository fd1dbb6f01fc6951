"""Board pictures of any variant, composed from cached palette-mode layers.

    render_png(game, *, size=800, orientation=None, theme="classic", legend=True,
               speech=ENGLISH) -> bytes
    warm(variant_key, *, size=800, themes=("classic",), legend=True) -> int

Layers, each drawn once and cached:

- the empty board per (variant, theme, size, orientation, legend or not): squares, holes
  left as background, terraces shaded and labelled, Tquads outlined and named,
  coordinates (``emptyboard.py``), and the legend strip of the pieces a newcomer will
  not know (``legend.py``; ``legend=False`` leaves it out);
- piece sprites per (piece, colour, size) (``sprites.py``, flattened in ``panels.py``);
- square tiles: one square's background with its highlight and its piece. Squares
  whose empty background looks the same (every light square of a plain board) share a
  background class, and a tile is keyed by (class, highlight, piece, colour, badge,
  offset), so drawing a square is one lookup and one paste. ``warm`` draws every tile a
  variant can show before the first picture is asked for;
- the status strip and the player bars, keyed by what they say;
- compressed bands (``png.py``): the strip, each bar, each screen row of squares and
  the static rows (the file letters, the legend, the padding), keyed by what they show. ``render_png`` compresses only the bands no
  earlier picture had, and never composes the whole picture. A new row of squares is not
  drawn either: its Up-filtered scanlines are the empty row's with each tile's Up
  differences pasted over its square (``png.up_differences``, cached beside the tiles),
  the same bytes as drawing the row and filtering it.

Every layer is mapped onto the theme's palette (``palette.py``), so the picture is
composed and saved in palette mode. Layout and orientation come from ``layout.py``;
what the picture shows comes from ``scene.py``.

The render cache on disk (``prebuilt.py``) keeps the empty boards, the piece icons and
dice, and the bands of start positions between runs, so that a restarted bot draws its
first pictures (every new game's, and the warm-up's) without drawing them again.
"""

from __future__ import annotations

import dataclasses
import functools
import io
import struct
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable

from PIL import Image, ImageDraw

import variants
from variants import Game, Variant
from variants.geometry import Geometry

from . import prebuilt
from .dice import value_badge
from .emptyboard import base_key, board_base
from .layout import Box, Layout, layout, legend_rows
from .legend import Entry, legend_entries
from .palette import colours, palette_image, to_palette
from .panels import crisp_icon, draw_side, draw_status, warm_pieces
from .png import (
    RUNS,
    Band,
    Packing,
    assemble,
    compress_scanlines,
    filter_column,
    filtered,
    filtered_up,
    up_differences,
)
from .scene import CHECK, LAST, NEXT, NONE, CellKey, Scene, Side, Status, last_board_move, scene
from .speech import ENGLISH, Speech, is_english
from .themes import Theme, get_theme
from .typeface import speech_face

__all__ = ["board_art", "clear_caches", "drop_position_caches", "last_board_move", "warm"]

TILE_CACHE = 4096  # tiles drawn on demand, beyond the ones ``warm`` drew
PANEL_CACHE = 256
BAND_CACHE = 2048
ART_CACHE = 32
# How each band is compressed (png.py; the choice was measured with benchmarks/render.py
# on 300 positions). A row of squares with at most SPARSE_ROW pieces: RUNS (run-length
# coding of the Up-filtered rows), five to ten times faster than string matching, for a
# tenth more bytes on an empty row and a fifth more on a row with pieces. A busier row
# (openings, middlegames): PACK_BUSY_ROW, string matching at level 5 over the Up-filtered rows,
# which finds the same piece drawn again along the row (a row of pawns takes under half
# the bytes of RUNS) in three fifths of the time of level 6 over unfiltered rows, for a
# tenth more bytes. The strip is words: DEFLATE at level 5, since in a dice variant it
# changes every turn (the bars, below: level 7). Against the old levels
# (8 for sparse rows and bars, 9 for the static bands), the median bytes ratio to the
# baseline went from 0.184 to 0.205 and the worst from 0.239 to 0.262, and compressing
# a whole picture from 8 to 2.2 ms.
SPARSE_ROW = 4  # pieces in a row of squares
PACK_SPARSE_ROW = RUNS
PACK_BUSY_ROW = Packing(up=True, level=5)
PACK_STRIP = Packing(up=False, level=5)  # a third less time than 6 for 5 % more bytes
# A bar changes only when its side loses a piece or the turn passes: level 7 (3 % fewer
# bytes than level 6 for a third more time; level 8 takes 12 % fewer but three times as
# long, which the pictures that redraw both bars at once, a game's last, cannot afford).
PACK_BAR = Packing(up=False, level=7)
# The static bands (the file letters, the padding) are drawn once per board: at level 9.
PACK_STATIC = Packing(up=False, level=9)
BADGE = 0.4  # a Tquarc's value badge, in squares
PIECE = 0.88  # a piece sprite, in squares

# Value badges a kind can carry: a Tquarc shows its die value.
_BADGES: dict[str, tuple[str, ...]] = {"T": ("1", "2", "3", "4")}


class _Lru(OrderedDict[Hashable, object]):
    """A small least-recently-used cache, safe to share between the service's render
    threads (a lookup and its move to the end, or an insertion and an eviction, happen
    under one lock; ``make`` runs outside it, so two threads may both draw a missing entry)."""

    def __init__(self, limit: int) -> None:
        super().__init__()
        self.limit = limit
        self.lock = threading.Lock()

    def fetch(self, key: Hashable, make: Callable[[], object]) -> object:
        with self.lock:
            value = self.get(key)
            if value is not None:
                self.move_to_end(key)
                return value
        value = make()
        with self.lock:
            self[key] = value
            if len(self) > self.limit:
                self.popitem(last=False)
        return value


class BoardArt:
    """The cached layers of one (variant, theme, size, orientation)."""

    def __init__(
        self,
        geometry: Geometry,
        zones: dict[str, tuple[int, ...]],
        theme: Theme,
        size: int,
        flipped: bool,
        outlined: bool = False,
        legend: tuple[Entry, ...] = (),
        speech: Speech = ENGLISH,
    ) -> None:
        self.theme = theme
        self.speech = speech  # says the strip's and the bars' words (issue 27)
        self.lay: Layout = layout(geometry, size, flipped, legend_rows(len(legend)))
        self.palette = palette_image(theme, bool(zones) and not outlined)
        self.plte = bytes(self.palette.getpalette() or [])  # PLTE: exactly the entries
        # squares whose empty background is the same share tiles (``cls``), drawn on
        # their class's empty square in RGB (``class_back``)
        key = base_key(self.lay, zones, theme, outlined, legend)
        if not is_english(speech):  # the kept strips and bars are in this language
            key = (key, speech.locale)
        self.base_key = prebuilt.digest(key)
        face = speech_face(speech)  # the legend's font
        self.p, self.cls, self.class_back = board_base(
            self.lay, zones, theme, self.palette, self.base_key, outlined, legend, face
        )
        lay = self.lay
        self.class_box: list[Box] = [(0, 0, 0, 0)] * len(self.class_back)
        for s, c in enumerate(self.cls):
            if self.class_box[c] == (0, 0, 0, 0):
                self.class_box[c] = lay.cells[s]
        self.warm_tiles: dict[tuple[int, CellKey | None], Image.Image] = {}
        self.tiles = _Lru(TILE_CACHE)
        # Each tile's Up differences (``png.up_differences``), and each screen row's
        # scanlines of its empty squares: a row band's scanlines are pasted from them.
        self.tile_ups = _Lru(TILE_CACHE)
        self.row_backs: dict[int, Image.Image] = {}
        self.panels = _Lru(PANEL_CACHE)
        self.bands = _Lru(BAND_CACHE)
        # The strip's and the bars' bands, shared with the other orientation's art of the
        # same board (``board_art``): they look the same from either side.
        self.words = _Lru(BAND_CACHE)
        self.warm_bands: dict[Hashable, Band] = {}
        # screen rows of squares: (top y, the box squares in the row, left to right)
        rows: dict[int, list[int]] = {}
        for s, box in enumerate(lay.cells):
            rows.setdefault(box[1], []).append(s)
        self.rows = [
            (y, tuple(sorted(squares, key=lambda s: lay.cells[s][0])))
            for y, squares in sorted(rows.items())
        ]
        _, _, _, y_files = lay.file_band
        self.static = {
            "files": (lay.board[3], y_files),
            "legend": (lay.legend[1], lay.legend[3]),
            "pad": (lay.legend[3], lay.height),
        }

    def quantize(self, im: Image.Image) -> Image.Image:
        return to_palette(im, self.palette)

    # ----- layers ------------------------------------------------------------

    def tile(self, sq: int, key: CellKey | None) -> Image.Image:
        """Square ``sq`` showing ``key`` (None: the empty square), in palette mode."""
        ck = (self.cls[sq], key)
        im = self.warm_tiles.get(ck)
        if im is None:
            im = self.tiles.fetch(ck, lambda: self._draw_tile(ck[0], key))  # type: ignore[assignment]
        assert isinstance(im, Image.Image)
        return im

    def tile_up(self, sq: int, key: CellKey) -> Image.Image:
        """``tile(sq, key)``'s Up differences ('L')."""
        ck = (self.cls[sq], key)
        im = self.tile_ups.fetch(ck, lambda: up_differences(self.tile(sq, key)))
        assert isinstance(im, Image.Image)
        return im

    def _draw_tile(self, cls: int, key: CellKey | None) -> Image.Image:
        box = self.class_box[cls]
        if key is None:
            return self.p.crop(box)
        hl, sprite, color, badge, shift = key
        th, c, sq = self.theme, colours(self.theme), self.lay.sq
        im = self.class_back[cls].copy()
        if hl in (LAST, CHECK):
            tint = c.last_move if hl == LAST else c.check
            im.paste(tint[:3], (0, 0, sq, sq), Image.new("L", (sq, sq), tint[3]))
        elif hl == NEXT:
            w = max(2, round(sq * 0.08))
            ImageDraw.Draw(im).rectangle([0, 0, sq - 1, sq - 1], outline=c.next_ring, width=w)
        if sprite:
            spr = crisp_icon(sprite, color, round(sq * PIECE), th)
            inset = (sq - spr.width) // 2
            im.paste(spr, (shift + inset, inset), spr)
            if badge:
                b = value_badge(badge, max(8, round(sq * BADGE)), th)
                inset = max(1, sq // 40)
                im.paste(b, (sq - b.width - inset, sq - b.height - inset), b)
        return self.quantize(im)

    def warm(self, keys: Iterable[CellKey]) -> int:
        """Draw the tiles of ``keys`` on every background class; return how many."""
        n = 0
        for cls in range(len(self.class_box)):
            for key in (None, *keys):
                ck = (cls, key)
                if ck not in self.warm_tiles:
                    self.warm_tiles[ck] = self._draw_tile(cls, key)
                    n += 1
        return n

    def status_strip(self, st: Status) -> Image.Image:
        x0, y0, x1, y1 = self.lay.strip
        im = self.panels.fetch(
            ("status", st),
            lambda: self.quantize(draw_status(st, x1 - x0, y1 - y0, self.theme, self.speech)),
        )
        assert isinstance(im, Image.Image)
        return im

    def side_bar(self, side: Side) -> Image.Image:
        x0, y0, x1, y1 = self.lay.top_bar
        im = self.panels.fetch(
            ("side", side),
            lambda: self.quantize(draw_side(side, x1 - x0, y1 - y0, self.theme, self.speech)),
        )
        assert isinstance(im, Image.Image)
        return im

    # ----- composing ---------------------------------------------------------------

    def new_frame(self) -> Image.Image:
        return self.p.copy()

    def paint(self, frame: Image.Image, sc: Scene, prev: Scene | None = None) -> int:
        """Bring ``frame`` from showing ``prev`` (None: the empty board) to showing ``sc``.

        Only squares whose look changed are repainted; returns how many were.
        """
        cells = self.lay.cells
        before = prev.cells if prev is not None else {}
        painted = 0
        for sq, key in sc.cells.items():
            if before.get(sq) != key:
                x0, y0, _, _ = cells[sq]
                frame.paste(self.tile(sq, key), (x0, y0))
                painted += 1
        for sq in before:
            if sq not in sc.cells:
                x0, y0, _, _ = cells[sq]
                frame.paste(self.tile(sq, None), (x0, y0))
                painted += 1
        lay = self.lay
        if prev is None or prev.status != sc.status:
            frame.paste(self.status_strip(sc.status), lay.strip[:2])
        if prev is None or prev.top != sc.top:
            frame.paste(self.side_bar(sc.top), lay.top_bar[:2])
        if prev is None or prev.bottom != sc.bottom:
            frame.paste(self.side_bar(sc.bottom), lay.bottom_bar[:2])
        return painted

    # ----- encoding ------------------------------------------------------------------

    def _band(
        self,
        key: Hashable,
        scanlines: Callable[[], bytes],
        packing: Packing,
        keep: bool = False,
    ) -> Band:
        """The band ``key``: from memory, else (``keep``) from the render cache on disk,
        else filtered (``scanlines``) and compressed (and, with ``keep``, written to the
        cache)."""
        warm = self.warm_bands.get(key)
        if warm is not None:
            return warm

        def make() -> Band:
            disk_key = (self.base_key, key, packing)
            if keep:
                found = _band_from_bytes(prebuilt.load_bytes("band", disk_key))
                if found is not None and found.length == self._rows(key) * (self.lay.width + 1):
                    return found
            band = compress_scanlines(scanlines(), packing)
            if keep:
                prebuilt.save_bytes("band", disk_key, _band_bytes(band))
            return band

        kind = key[0] if isinstance(key, tuple) else key
        band = (self.words if kind in ("status", "side") else self.bands).fetch(key, make)
        assert isinstance(band, Band)
        return band

    def _rows(self, key: Hashable) -> int:
        """How many pixel rows the band ``key`` has."""
        kind = key[0] if isinstance(key, tuple) else key
        lay = self.lay
        if kind == "status":
            return lay.strip[3] - lay.strip[1]
        if kind == "side":
            return lay.top_bar[3] - lay.top_bar[1]
        if kind == "row":
            return lay.sq
        y0, y1 = self.static[str(kind)]
        return y1 - y0

    def _row_spec(
        self, y: int, squares: tuple[int, ...], cells: dict[int, CellKey]
    ) -> tuple[Hashable, Callable[[], bytes], Packing]:
        """A row of squares' band: its scanlines are the empty row's, with the Up
        differences of each square's tile pasted over its square (``png.up_differences``:
        the same bytes as filtering the drawn row, without drawing it)."""
        look = tuple(cells.get(s) for s in squares)
        pieces = sum(1 for key in look if key is not None and key[1])

        def scanlines() -> bytes:
            cells_ = self.lay.cells
            im = self._row_back(y).copy()
            for s, key in zip(squares, look, strict=True):
                if key is not None:
                    im.paste(self.tile_up(s, key), (cells_[s][0] + 1, 0))
            return im.tobytes()

        packing = PACK_SPARSE_ROW if pieces <= SPARSE_ROW else PACK_BUSY_ROW
        return ("row", y, look), scanlines, packing

    def _row_back(self, y: int) -> Image.Image:
        """The scanlines of the empty row of squares at ``y``, Up-filtered, as an 'L'
        image whose column 0 holds the filter bytes."""
        back = self.row_backs.get(y)
        if back is None:
            lay = self.lay
            empty = up_differences(self.p.crop((0, y, lay.width, y + lay.sq)))
            back = self.row_backs[y] = filter_column(lay.width, lay.sq, empty)
        return back

    def _specs(self, sc: Scene) -> list[tuple[Hashable, Callable[[], bytes], Packing]]:
        """Each band of the picture of ``sc``, top to bottom: (key, how to make its
        scanlines, packing)."""
        w = self.lay.width
        y0, y1 = self.static["files"]
        l0, l1 = self.static["legend"]
        p0, p1 = self.static["pad"]
        specs: list[tuple[Hashable, Callable[[], bytes], Packing]] = [
            (
                ("status", sc.status),
                _lines(lambda: self.status_strip(sc.status), PACK_STRIP),
                PACK_STRIP,
            ),
            (("side", sc.top), _lines(lambda: self.side_bar(sc.top), PACK_BAR), PACK_BAR),
        ]
        specs += [self._row_spec(y, squares, sc.cells) for y, squares in self.rows]
        files = _lines(lambda: self.p.crop((0, y0, w, y1)), PACK_STATIC)
        specs.append((("files",), files, PACK_STATIC))
        specs.append(
            (("side", sc.bottom), _lines(lambda: self.side_bar(sc.bottom), PACK_BAR), PACK_BAR)
        )
        if l1 > l0:  # the legend strip: drawn with the empty board, compressed once
            legend = _lines(lambda: self.p.crop((0, l0, w, l1)), PACK_STATIC)
            specs.append((("legend",), legend, PACK_STATIC))
        if p1 > p0:
            pad = _lines(lambda: self.p.crop((0, p0, w, p1)), PACK_STATIC)
            specs.append((("pad",), pad, PACK_STATIC))
        return specs

    def encode(self, sc: Scene, keep: bool = False) -> bytes:
        """The PNG of ``sc``, from cached bands where the picture has shown them before.

        ``keep``: the bands are also read from and written to the render cache on disk
        (``prebuilt.py``): for start positions, which every game and every restart draws.
        """
        bands = [self._band(key, lines, packing, keep) for key, lines, packing in self._specs(sc)]
        return assemble(self.lay.width, self.lay.height, self.plte, bands)

    def warm_start(self, game: Game) -> int:
        """Encode the bands of ``game``'s picture (a start position), but for its status
        strip, and keep them for good: every game begins there. Returns how many bands."""
        sc = scene(game, self.lay)
        specs = [spec for spec in self._specs(sc) if spec[0] != ("status", sc.status)]
        for side in (sc.top, sc.bottom):  # the bars with the turn on the other side too
            flipped = dataclasses.replace(side, to_move=not side.to_move)
            bar = _lines(functools.partial(self.side_bar, flipped), PACK_BAR)
            specs.append((("side", flipped), bar, PACK_BAR))
        for key, lines, packing in specs:
            self.warm_bands[key] = self._band(key, lines, packing)
        return len(specs)

    def drop_position_caches(self) -> None:
        """Forget everything drawn for particular positions; keep the warm tiles."""
        self.tiles.clear()
        self.tile_ups.clear()
        self.panels.clear()
        self.bands.clear()
        self.words.clear()


def _lines(draw: Callable[[], Image.Image], packing: Packing) -> Callable[[], bytes]:
    """How to make the scanlines of the band ``draw`` draws (8-bit palette), filtered as
    ``packing`` says."""

    def scanlines() -> bytes:
        im = draw()
        return (filtered_up if packing.up else filtered)(im.tobytes(), im.width)

    return scanlines


_ARTS: OrderedDict[tuple[object, ...], BoardArt] = OrderedDict()


def board_art(
    rules: Variant,
    theme: Theme | str,
    size: int,
    flipped: bool,
    legend: bool = True,
    speech: Speech = ENGLISH,
) -> BoardArt:
    """The cached layers for a variant's rules object (``legend``: with the legend strip
    of the pieces a newcomer will not know, when the variant has any), with the words
    said by ``speech`` (kept per locale)."""
    th = get_theme(theme)
    key = (rules.key, th, size, flipped, legend, speech.locale)
    art = _ARTS.get(key)
    if art is None:
        zones = {str(k): tuple(v) for k, v in rules.zones().items()}
        entries = legend_entries(rules, speech) if legend else ()
        art = BoardArt(
            rules.geometry, zones, th, size, flipped, rules.zones_outlined, entries, speech
        )
        twin = _ARTS.get((rules.key, th, size, not flipped, legend, speech.locale))
        if twin is not None and (twin.lay.width, twin.plte) == (art.lay.width, art.plte):
            art.words = twin.words  # the same strip and bars, whichever way the board faces
        _ARTS[key] = art
        if len(_ARTS) > ART_CACHE:
            _ARTS.popitem(last=False)
    else:
        _ARTS.move_to_end(key)
    return art


def clear_caches() -> None:
    """Forget every cached board layer (sprites and palettes stay)."""
    _ARTS.clear()


def drop_position_caches() -> None:
    """Forget every tile, strip, bar and band drawn for particular positions; keep
    the empty boards and the tiles ``warm`` drew."""
    for art in _ARTS.values():
        art.drop_position_caches()


def tile_keys(rules: Variant) -> list[CellKey]:
    """Every square look a variant can show, but for the Guardener's double start."""
    kinds: list[str] = []
    for t in rules.piece_types:
        kinds += [f"RA:{f}" for f in "NESW"] if t.facing_relative else [t.id]
    kinds += rules.extra_sprites  # sprites besides its piece types' own (a promoted King)
    royal = {t.id for t in rules.piece_types if t.is_royal} | {"KP"}
    keys: list[CellKey] = [(LAST, "", 0, "", 0), (NEXT, "", 0, "", 0)]
    for kind in kinds:
        for color in (0, 1):
            for badge in _BADGES.get(kind, ("",)):
                for hl in (NONE, LAST):
                    keys.append((hl, kind, color, badge, 0))
                if rules.has_check and kind in royal:
                    keys.append((CHECK, kind, color, badge, 0))
    return keys


def warm(
    variant_key: str,
    *,
    size: int = 800,
    themes: Iterable[Theme | str] = ("classic",),
    orientations: Iterable[str] = ("white", "black"),
    legend: bool = True,
    speech: Speech = ENGLISH,
) -> int:
    """Draw every tile ``variant_key`` can show at ``size``, and the dice and pieces its
    status strip and player bars can show, and encode the rows and bars of its start
    position, ahead of the first picture.

    After it, a picture never waits for a piece to be drawn, and a new game's first
    picture compresses only its status strip. (benchmarks/render.py calls it before
    timing: a bot that has run a while has these in its caches. The bot's own start-up,
    ``bot/service/core.py`` ``_warm_drawing``, draws only the start positions, which the
    render cache on disk, ``prebuilt.py``, makes cheap.) Returns how many tiles, bands
    and pictures were made.
    """
    rules = variants.rules(variant_key)
    keys = tile_keys(rules)
    start = variants.new_game(variant_key, seed=0)  # dice change the strip only
    n = 0
    for theme in themes:
        for orientation in orientations:
            if orientation not in ("white", "black"):
                raise ValueError(f"orientation must be 'white' or 'black', not {orientation!r}")
            art = board_art(rules, theme, size, orientation == "black", legend, speech)
            n += art.warm(keys) + art.warm_start(start)
            lay = art.lay
            n += warm_pieces(
                sorted({key[1] for key in keys if key[1]}),
                lay.strip[3] - lay.strip[1],
                lay.top_bar[3] - lay.top_bar[1],
                art.theme,
            )
    return n


_BAND_HEAD = struct.Struct(">II")  # a kept band: Adler-32 and length, then its data


def _band_bytes(band: Band) -> bytes:
    return _BAND_HEAD.pack(band.adler, band.length) + band.data


def _band_from_bytes(body: bytes | None) -> Band | None:
    if body is None or len(body) < _BAND_HEAD.size:
        return None
    adler, length = _BAND_HEAD.unpack_from(body)
    return Band(body[_BAND_HEAD.size :], adler, length)


# ----- public ---------------------------------------------------------------------------


def is_flipped(game: Game, orientation: str | None) -> bool:
    """Black at the bottom? ``orientation`` None means the side to move."""
    if orientation is None:
        return bool(game.pos.turn == 1)
    if orientation not in ("white", "black"):
        raise ValueError(f"orientation must be 'white', 'black' or None, not {orientation!r}")
    return orientation == "black"


@dataclasses.dataclass(frozen=True)
class Picture:
    """What one board picture shows, as plain values: made where the game is
    (``picture``), painted anywhere the variant is known (``paint``), a worker process
    included (``bot.service.painter``). ``theme`` is a theme's name or a ``Theme``;
    ``locale`` the language of its words; ``keep``: a start position (see ``encode``)."""

    variant: str
    theme: Theme | str
    size: int
    flipped: bool
    legend: bool
    locale: str
    scene: Scene
    keep: bool


def picture_layout(rules: Variant, size: int, flipped: bool, legend: bool) -> Layout:
    """The layout a picture of ``rules`` has (the one its ``BoardArt`` draws on), without
    drawing anything."""
    rows = legend_rows(len(getattr(rules, "legend_kinds", ()))) if legend else 0
    return layout(rules.geometry, size, flipped, rows)


def picture(
    game: Game,
    *,
    size: int = 800,
    orientation: str | None = None,
    theme: Theme | str = "classic",
    legend: bool = True,
    speech: Speech = ENGLISH,
) -> Picture:
    """What ``render_png`` with these arguments would show, to ``paint`` later (cheap:
    the game is read, nothing is drawn)."""
    flipped = is_flipped(game, orientation)
    lay = picture_layout(game.rules, size, flipped, legend)
    return Picture(
        game.rules.key,
        theme,
        size,
        flipped,
        legend,
        speech.locale,
        scene(game, lay),
        not game.moves,
    )


def paint(pic: Picture, speech: Speech = ENGLISH) -> bytes:
    """The PNG of ``pic``, its words said by ``speech`` (whose locale is ``pic.locale``)."""
    if speech.locale != pic.locale:
        raise ValueError(f"a picture in {pic.locale!r} cannot be painted in {speech.locale!r}")
    art = board_art(
        variants.rules(pic.variant), pic.theme, pic.size, pic.flipped, pic.legend, speech
    )
    return art.encode(pic.scene, keep=pic.keep)


def render_image(
    game: Game,
    *,
    size: int = 800,
    orientation: str | None = None,
    theme: Theme | str = "classic",
    legend: bool = True,
    speech: Speech = ENGLISH,
) -> Image.Image:
    """The picture of ``game`` as a palette-mode ('P') image (``legend`` and ``speech`` as
    for ``render_png``)."""
    art = board_art(game.rules, theme, size, is_flipped(game, orientation), legend, speech)
    frame = art.new_frame()
    art.paint(frame, scene(game, art.lay))
    return frame


def encode_png(image: Image.Image) -> bytes:
    """A palette image as PNG through Pillow (the board itself uses ``BoardArt.encode``)."""
    buf = io.BytesIO()
    image.save(buf, format="PNG")
    return buf.getvalue()


def render_png(
    game: Game,
    *,
    size: int = 800,
    orientation: str | None = None,
    theme: Theme | str = "classic",
    legend: bool = True,
    speech: Speech = ENGLISH,
) -> bytes:
    """A palette-mode PNG of ``game``, ``size`` pixels wide.

    ``orientation`` is 'white' (White at the bottom), 'black', or None for the side
    to move. ``theme`` is 'classic', 'high-contrast' or a ``Theme``. ``legend``: a strip
    under the board names the pieces a newcomer will not know (the variant's
    ``legend_kinds``: Stone Garden's, the Guardener, the Tquarc), each with its sprite
    and a few words of how it moves; False leaves it out (a player who knows them).
    ``speech`` says the picture's words (the strip, the bars, the legend) in its locale
    (``renderers.speech``; ``bot.i18n.Speech`` has the catalogues); English by default.
    """
    return paint(
        picture(
            game, size=size, orientation=orientation, theme=theme, legend=legend, speech=speech
        ),
        speech,
    )
