"""Board pictures of any variant, composed from cached palette-mode layers.

    render_png(game, *, size=800, orientation=None, theme="classic") -> bytes
    warm(variant_key, *, size=800, themes=("classic",)) -> int

Layers, each drawn once and cached:

- the empty board per (variant, theme, size, orientation): squares, holes left as
  background, terraces shaded and labelled, Tquads outlined and numbered, coordinates;
- piece sprites per (piece, colour, size) (``sprites.py``);
- square tiles: one square's background with its highlight and its piece. Squares
  whose empty background looks the same (every light square of a plain board) share a
  background class, and a tile is keyed by (class, highlight, piece, colour, badge,
  offset), so drawing a square is one lookup and one paste. ``warm`` draws every tile a
  variant can show before the first picture is asked for;
- the status strip and the player bars, keyed by what they say;
- compressed bands (``png.py``): the strip, each bar, each screen row of squares and
  the static rows, keyed by what they show. ``render_png`` compresses only the bands no
  earlier picture had, and never composes the whole picture.

Every layer is mapped onto the theme's palette (``palette.py``), so the picture is
composed and saved in palette mode. Layout and orientation come from ``layout.py``;
what the picture shows comes from ``scene.py``.
"""

from __future__ import annotations

import dataclasses
import functools
import io
import struct
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable

from PIL import Image, ImageDraw

import variants
from variants import Game, Variant
from variants.geometry import Geometry

from . import prebuilt
from .dice import bundled_font, flat_text, value_badge
from .layout import Box, Layout, layout
from .palette import colours, over, palette_image, to_palette
from .panels import crisp_icon, draw_side, draw_status, warm_pieces
from .png import DEFLATE, RUNS, Band, Packing, assemble, compress_band
from .scene import CHECK, LAST, NEXT, NONE, CellKey, Scene, Side, Status, last_board_move, scene
from .themes import RGB, Theme, get_theme

__all__ = ["board_art", "clear_caches", "drop_position_caches", "last_board_move", "warm"]

TILE_CACHE = 4096  # tiles drawn on demand, beyond the ones ``warm`` drew
PANEL_CACHE = 256
BAND_CACHE = 2048
ART_CACHE = 32
# How each band is compressed (png.py; the choice was measured with benchmarks/render.py
# on 300 positions). A row of squares with at most SPARSE_ROW pieces: RUNS (run-length
# coding of the Up-filtered rows), five to ten times faster than string matching, for a
# tenth more bytes on an empty row and a fifth more on a row with pieces. A busier row
# (openings, middlegames): BUSY, string matching at level 5 over the Up-filtered rows,
# which finds the same piece drawn again along the row (a row of pawns takes under half
# the bytes of RUNS) in three fifths of the time of level 6 over unfiltered rows, for a
# tenth more bytes. The strip and the bars are words: DEFLATE. Against the old levels
# (8 for sparse rows and bars, 9 for the static bands), the median bytes ratio to the
# baseline went from 0.184 to 0.205 and the worst from 0.239 to 0.262, and compressing
# a whole picture from 8 to 2.2 ms.
SPARSE_ROW = 4  # pieces in a row of squares
PACK_SPARSE_ROW = RUNS
PACK_BUSY_ROW = Packing(up=True, level=5)
PACK_STRIP = DEFLATE
PACK_BAR = DEFLATE
PACK_STATIC = DEFLATE
BADGE = 0.4  # a Tquarc's value badge, in squares
PIECE = 0.88  # a piece sprite, in squares

# Sprites a variant shows besides its piece types' own: Stone Garden's promoted King.
_EXTRA_SPRITES: dict[str, tuple[str, ...]] = {"stone_garden": ("KP",)}
# Value badges a kind can carry: a Tquarc shows its die value.
_BADGES: dict[str, tuple[str, ...]] = {"T": ("1", "2", "3", "4")}


class _Lru(OrderedDict[Hashable, object]):
    """A small least-recently-used cache."""

    def __init__(self, limit: int) -> None:
        super().__init__()
        self.limit = limit

    def fetch(self, key: Hashable, make: Callable[[], object]) -> object:
        value = self.get(key)
        if value is None:
            value = make()
            self[key] = value
            if len(self) > self.limit:
                self.popitem(last=False)
        else:
            self.move_to_end(key)
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
    ) -> None:
        self.theme = theme
        self.lay: Layout = layout(geometry, size, flipped)
        self.palette = palette_image(theme, any(_is_terrace(z) for z in zones))
        self.plte = bytes(self.palette.getpalette() or [])  # PLTE: exactly the entries
        # squares whose empty background is the same share tiles (``cls``), drawn on
        # their class's empty square in RGB (``class_back``)
        self.base_key = prebuilt.digest(_base_key(self.lay, zones, theme))
        self.p, self.cls, self.class_back = _board_base(
            self.lay, zones, theme, self.palette, self.base_key
        )
        lay = self.lay
        self.class_box: list[Box] = [(0, 0, 0, 0)] * len(self.class_back)
        for s, c in enumerate(self.cls):
            if self.class_box[c] == (0, 0, 0, 0):
                self.class_box[c] = lay.cells[s]
        self.warm_tiles: dict[tuple[int, CellKey | None], Image.Image] = {}
        self.tiles = _Lru(TILE_CACHE)
        self.panels = _Lru(PANEL_CACHE)
        self.bands = _Lru(BAND_CACHE)
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
            "pad": (lay.bottom_bar[3], lay.height),
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
            ("status", st), lambda: self.quantize(draw_status(st, x1 - x0, y1 - y0, self.theme))
        )
        assert isinstance(im, Image.Image)
        return im

    def side_bar(self, side: Side) -> Image.Image:
        x0, y0, x1, y1 = self.lay.top_bar
        im = self.panels.fetch(
            ("side", side), lambda: self.quantize(draw_side(side, x1 - x0, y1 - y0, self.theme))
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
        draw: Callable[[], Image.Image],
        packing: Packing,
        keep: bool = False,
    ) -> Band:
        """The band ``key``: from memory, else (``keep``) from the render cache on disk,
        else drawn and compressed (and, with ``keep``, written to the cache)."""
        warm = self.warm_bands.get(key)
        if warm is not None:
            return warm

        def make() -> Band:
            disk_key = (self.base_key, key, packing)
            if keep:
                found = _band_from_bytes(prebuilt.load_bytes("band", disk_key))
                if found is not None and found.length == self._rows(key) * (self.lay.width + 1):
                    return found
            im = draw()
            band = compress_band(im.tobytes(), im.width, packing)
            if keep:
                prebuilt.save_bytes("band", disk_key, _band_bytes(band))
            return band

        band = self.bands.fetch(key, make)
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
    ) -> tuple[Hashable, Callable[[], Image.Image], Packing]:
        look = tuple(cells.get(s) for s in squares)
        pieces = sum(1 for key in look if key is not None and key[1])

        def draw() -> Image.Image:
            lay = self.lay
            im = self.p.crop((0, y, lay.width, y + lay.sq))
            for s, key in zip(squares, look, strict=True):
                if key is not None:
                    im.paste(self.tile(s, key), (lay.cells[s][0], 0))
            return im

        packing = PACK_SPARSE_ROW if pieces <= SPARSE_ROW else PACK_BUSY_ROW
        return ("row", y, look), draw, packing

    def _specs(self, sc: Scene) -> list[tuple[Hashable, Callable[[], Image.Image], Packing]]:
        """Each band of the picture of ``sc``, top to bottom: (key, how to draw it, packing)."""
        w = self.lay.width
        y0, y1 = self.static["files"]
        p0, p1 = self.static["pad"]
        specs: list[tuple[Hashable, Callable[[], Image.Image], Packing]] = [
            (("status", sc.status), lambda: self.status_strip(sc.status), PACK_STRIP),
            (("side", sc.top), lambda: self.side_bar(sc.top), PACK_BAR),
        ]
        specs += [self._row_spec(y, squares, sc.cells) for y, squares in self.rows]
        specs.append((("files",), lambda: self.p.crop((0, y0, w, y1)), PACK_STATIC))
        specs.append((("side", sc.bottom), lambda: self.side_bar(sc.bottom), PACK_BAR))
        if p1 > p0:
            specs.append((("pad",), lambda: self.p.crop((0, p0, w, p1)), PACK_STATIC))
        return specs

    def encode(self, sc: Scene, keep: bool = False) -> bytes:
        """The PNG of ``sc``, from cached bands where the picture has shown them before.

        ``keep``: the bands are also read from and written to the render cache on disk
        (``prebuilt.py``): for start positions, which every game and every restart draws.
        """
        bands = [self._band(key, draw, packing, keep) for key, draw, packing in self._specs(sc)]
        return assemble(self.lay.width, self.lay.height, self.plte, bands)

    def warm_start(self, game: Game) -> int:
        """Encode the bands of ``game``'s picture (a start position), but for its status
        strip, and keep them for good: every game begins there. Returns how many bands."""
        sc = scene(game, self.lay)
        specs = [spec for spec in self._specs(sc) if spec[0] != ("status", sc.status)]
        for side in (sc.top, sc.bottom):  # the bars with the turn on the other side too
            flipped = dataclasses.replace(side, to_move=not side.to_move)
            specs.append((("side", flipped), functools.partial(self.side_bar, flipped), PACK_BAR))
        for key, draw, packing in specs:
            self.warm_bands[key] = self._band(key, draw, packing)
        return len(specs)

    def drop_position_caches(self) -> None:
        """Forget everything drawn for particular positions; keep the warm tiles."""
        self.tiles.clear()
        self.panels.clear()
        self.bands.clear()


_ARTS: OrderedDict[tuple[object, ...], BoardArt] = OrderedDict()


def board_art(rules: Variant, theme: Theme | str, size: int, flipped: bool) -> BoardArt:
    """The cached layers for a variant's rules object."""
    th = get_theme(theme)
    key = (rules.key, th, size, flipped)
    art = _ARTS.get(key)
    if art is None:
        zones = {str(k): tuple(v) for k, v in rules.zones().items()}
        art = BoardArt(rules.geometry, zones, th, size, flipped)
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
    kinds += _EXTRA_SPRITES.get(rules.key, ())
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
            art = board_art(rules, theme, size, orientation == "black")
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


# ----- the empty board ------------------------------------------------------------------


def _base_key(lay: Layout, zones: dict[str, tuple[int, ...]], theme: Theme) -> Hashable:
    """What the empty board is drawn from, for the render cache's keys."""
    g = lay.geometry
    return (
        g.files,
        g.height,
        g.first_rank,
        tuple(sorted(g.holes)),
        g.colour_base,
        g.names,
        g.dark,
        lay.size,
        lay.flipped,
        tuple(sorted(zones.items())),
        theme,
    )


def _board_base(
    lay: Layout,
    zones: dict[str, tuple[int, ...]],
    theme: Theme,
    palette: Image.Image,
    key: Hashable,
) -> tuple[Image.Image, list[int], list[Image.Image]]:
    """The empty board in palette mode, each square's background class, and each class's
    empty square in RGB: read from the render cache (``prebuilt.py``) when kept there."""
    found = prebuilt.load("board", key)
    if found is not None and len(found) >= 2:
        indices, classes, *backs = found
        cls = list(classes.tobytes())
        sq = lay.sq
        if (
            indices.mode == "L"
            and indices.size == (lay.width, lay.height)
            and len(cls) == len(lay.cells)
            and len(backs) == max(cls) + 1
            and all(b.mode == "RGB" and b.size == (sq, sq) for b in backs)
        ):
            p = Image.frombytes("P", indices.size, indices.tobytes())
            p.putpalette(palette.getpalette() or [])
            return p, cls, backs
    rgb = _empty_board(lay, zones, theme)
    p = to_palette(rgb, palette)
    looks: dict[bytes, int] = {}
    cls = [looks.setdefault(rgb.crop(box).tobytes(), len(looks)) for box in lay.cells]
    boxes = {c: lay.cells[s] for s, c in reversed(list(enumerate(cls)))}  # first square of each
    backs = [rgb.crop(boxes[c]) for c in range(len(looks))]
    if len(looks) <= 256:
        indices = Image.frombytes("L", p.size, p.tobytes())
        prebuilt.save("board", key, [indices, Image.frombytes("L", (len(cls), 1), bytes(cls)), *backs])
    return p, cls, backs



def _empty_board(lay: Layout, zones: dict[str, tuple[int, ...]], theme: Theme) -> Image.Image:
    g, c = lay.geometry, colours(theme)
    im = Image.new("RGB", (lay.width, lay.height), c.page)
    d = ImageDraw.Draw(im)
    terraces = {s for label, squares in zones.items() if _is_terrace(label) for s in squares}
    for s in g.squares:
        base = c.dark if g.dark[s] else c.light
        if s in terraces:
            base = over(base, c.terrace)
        x0, y0, x1, y1 = lay.cells[s]
        d.rectangle([x0, y0, x1 - 1, y1 - 1], fill=base)
    for label, squares in zones.items():
        if _is_terrace(label):
            _terrace_label(im, lay, label, squares, theme)
        else:
            _outline_zone(im, lay, label, squares, zones, theme)
    _coordinates(im, lay, theme)
    return im


def _is_terrace(label: str) -> bool:
    return label.startswith("T")


def _by_cell(lay: Layout) -> dict[tuple[int, int], int]:
    """Box square at each (column, row) on screen."""
    x0, y0, sq = lay.board[0], lay.board[1], lay.sq
    return {((b[0] - x0) // sq, (b[1] - y0) // sq): s for s, b in enumerate(lay.cells)}


def _cell(lay: Layout, s: int) -> tuple[int, int]:
    b = lay.cells[s]
    return (b[0] - lay.board[0]) // lay.sq, (b[1] - lay.board[1]) // lay.sq


def _terrace_label(
    im: Image.Image, lay: Layout, label: str, squares: tuple[int, ...], theme: Theme
) -> None:
    """The label goes in a hole at one end of the terrace, or else in its first square."""
    d = ImageDraw.Draw(im)
    g, sq, c = lay.geometry, lay.sq, colours(theme)
    cells = sorted(_cell(lay, s) for s in squares)
    cols = {col for col, _ in cells}
    rows = {row for _, row in cells}
    ends: list[tuple[int, int]] = []
    if len(rows) == 1:
        row = cells[0][1]
        ends = [(min(cols) - 1, row), (max(cols) + 1, row)]
    elif len(cols) == 1:
        col = cells[0][0]
        ends = [(col, min(rows) - 1), (col, max(rows) + 1)]
    where = _by_cell(lay)
    spot = next((e for e in ends if e in where and not g.on_board[where[e]]), None)
    if spot is None:
        box = lay.cells[squares[0]]
        t = max(8, round(sq * 0.34))
        d.rounded_rectangle(
            [box[0], box[1], box[0] + t * 2, box[1] + t], radius=t // 3, fill=c.zone_line
        )
        flat_text(
            im,
            (box[0] + t, box[1] + t / 2),
            label,
            fill=_ink(c.zone_line),
            font=bundled_font(t - 2),
            anchor="mm",
        )
        return
    box = lay.cell_at(*spot)
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    pill = c.label
    hw, hh = sq * 0.36, sq * 0.24
    d.rounded_rectangle([cx - hw, cy - hh, cx + hw, cy + hh], radius=round(hh * 0.6), fill=pill)
    font = bundled_font(max(7, round(sq * 0.3)))
    flat_text(im, (cx, cy), label, fill=_ink(pill), font=font, anchor="mm")


def _ink(bg: RGB) -> RGB:
    """Black or white, whichever reads on ``bg``."""
    lum = 0.299 * bg[0] + 0.587 * bg[1] + 0.114 * bg[2]
    return (0, 0, 0) if lum > 150 else (255, 255, 255)


def _outline_zone(
    im: Image.Image,
    lay: Layout,
    label: str,
    squares: tuple[int, ...],
    zones: dict[str, tuple[int, ...]],
    theme: Theme,
) -> None:
    """A line round the zone's edge, and its number in a tab at its outermost corner."""
    d = ImageDraw.Draw(im)
    sq, c = lay.sq, colours(theme)
    lw = max(2, round(sq * 0.05))
    h = lw // 2
    inside = {_cell(lay, s) for s in squares}
    for col, row in inside:
        x0, y0, x1, y1 = lay.cell_at(col, row)
        if (col, row - 1) not in inside:
            d.rectangle([x0 - h, y0 - h, x1 + h - 1, y0 - h + lw - 1], fill=c.zone_line)
        if (col, row + 1) not in inside:
            d.rectangle([x0 - h, y1 - h, x1 + h - 1, y1 - h + lw - 1], fill=c.zone_line)
        if (col - 1, row) not in inside:
            d.rectangle([x0 - h, y0 - h, x0 - h + lw - 1, y1 + h - 1], fill=c.zone_line)
        if (col + 1, row) not in inside:
            d.rectangle([x1 - h, y0 - h, x1 - h + lw - 1, y1 + h - 1], fill=c.zone_line)
    # the corner farthest from the middle of all the zones
    every = [_cell(lay, s) for group in zones.values() for s in group]
    mx = sum(col for col, _ in every) / len(every)
    my = sum(row for _, row in every) / len(every)
    col, row = max(inside, key=lambda cr: (cr[0] - mx) ** 2 + (cr[1] - my) ** 2)
    x0, y0, x1, y1 = lay.cell_at(col, row)
    t = max(9, round(sq * 0.3))
    left = col < mx
    top = row < my
    tx = x0 if left else x1 - t
    ty = y0 if top else y1 - t
    d.rectangle([tx, ty, tx + t - 1, ty + t - 1], fill=c.zone_line)
    number = "".join(ch for ch in label if ch.isdigit()) or label[:2]
    flat_text(
        im,
        (tx + t / 2, ty + t / 2),
        number,
        fill=_ink(c.zone_line),
        font=bundled_font(max(7, round(t * 0.8))),
        anchor="mm",
    )


def _coordinates(im: Image.Image, lay: Layout, theme: Theme) -> None:
    g, c = lay.geometry, colours(theme)
    font = bundled_font(max(7, round(lay.sq * 0.3)))
    files: dict[int, str] = {}
    ranks: dict[int, str] = {}
    for s in range(g.size):
        col, row = _cell(lay, s)
        files[col] = g.files[g.file_of(s)]
        ranks[row] = str(g.rank_label(s))
    fx0, fy0, _, fy1 = lay.file_band
    for col, letter in files.items():
        x0, _, x1, _ = lay.cell_at(col, 0)
        flat_text(im, ((x0 + x1) / 2, (fy0 + fy1) / 2), letter, fill=c.coord, font=font, anchor="mm")
    rx0, _, rx1, _ = lay.rank_band
    for row, label in ranks.items():
        _, y0, _, y1 = lay.cell_at(0, row)
        flat_text(im, ((rx0 + rx1) / 2, (y0 + y1) / 2), label, fill=c.coord, font=font, anchor="mm")


# ----- public ---------------------------------------------------------------------------


def is_flipped(game: Game, orientation: str | None) -> bool:
    """Black at the bottom? ``orientation`` None means the side to move."""
    if orientation is None:
        return bool(game.pos.turn == 1)
    if orientation not in ("white", "black"):
        raise ValueError(f"orientation must be 'white', 'black' or None, not {orientation!r}")
    return orientation == "black"


def render_image(
    game: Game, *, size: int = 800, orientation: str | None = None, theme: Theme | str = "classic"
) -> Image.Image:
    """The picture of ``game`` as a palette-mode ('P') image."""
    art = board_art(game.rules, theme, size, is_flipped(game, orientation))
    frame = art.new_frame()
    art.paint(frame, scene(game, art.lay))
    return frame


def encode_png(image: Image.Image) -> bytes:
    """A palette image as PNG through Pillow (the board itself uses ``BoardArt.encode``)."""
    buf = io.BytesIO()
    image.save(buf, format="PNG")
    return buf.getvalue()


def render_png(
    game: Game, *, size: int = 800, orientation: str | None = None, theme: Theme | str = "classic"
) -> bytes:
    """A palette-mode PNG of ``game``, ``size`` pixels wide.

    ``orientation`` is 'white' (White at the bottom), 'black', or None for the side
    to move. ``theme`` is 'classic', 'high-contrast' or a ``Theme``.
    """
    art = board_art(game.rules, theme, size, is_flipped(game, orientation))
    return art.encode(scene(game, art.lay), keep=not game.moves)
