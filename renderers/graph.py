"""The evaluation and luck graph of an analysed game (issue 29), drawn with Pillow.

    png = graph_png(turns, title="Game 12 · Tquarchess", white="alice", black="bob")

``turns`` are the analysis's steps (``engine.analysis.Turn``; anything with the same
attributes will do, this package does not import the engine): for each, ``white`` is
White's expected score (0..1) after its roll, ``luck`` the luck of that roll for
``roller`` ('white', 'black' or ``None``: no dice), ``label`` the mark of the action
played there ('??', '?', '?!' or '') and ``luck_label`` 'joker', 'anti-joker' or ''.

The picture has two panels on one axis of plies:

- above, White's expected score as a line, the area between it and 50% filled in the
  colour of the side it favours (White's ivory above, Black's ink below), with a dot
  where an action was marked (red for a blunder, orange a mistake, yellow an
  inaccuracy), on the point after the action;
- below, a bar for each roll, in the roller's colour, upwards when it helped White and
  downwards when it helped Black; a joker or anti-joker has a gold tick over its bar.

It is laid out for being shown 400 pixels wide (an embed's image on Discord), drawn by
default at 800 (sharp on dense screens), at twice that and scaled down, so that lines
and text are smooth.
"""

from __future__ import annotations

import io
import math
from collections.abc import Sequence
from typing import Protocol

from PIL import Image, ImageDraw, ImageFont

from variants.sentence import N_, word

from .speech import ENGLISH, Speech
from .typeface import bundled_font, drawable, face_for, speech_face

Font = ImageFont.FreeTypeFont | ImageFont.ImageFont
Box = tuple[int, int, int, int]

SCALE = 2  # drawn at twice the size, then scaled down
WIDTH, HEIGHT = 800, 440
# Sizes below are in pixels of the graph shown 400 pixels wide (as Discord shows an
# embed's image): text stays readable there. They grow with the width.
SHOWN_WIDTH = 400

BACKGROUND = (244, 241, 234)
PLOT = (196, 201, 209)  # the panels' ground: between the two players' colours
GRID = (170, 175, 184)
FRAME = (120, 124, 132)
TEXT = (40, 40, 44)
SOFT_TEXT = (95, 98, 105)
WHITE_SIDE = (250, 247, 240)  # White's colour (ivory)
BLACK_SIDE = (46, 43, 40)  # Black's colour (ink)
LINE = (224, 118, 0)  # the equity line: orange, seen on both colours
MARKS = {"??": (214, 39, 40), "?": (255, 140, 20), "?!": (232, 197, 71)}
JOKER = (212, 160, 23)
NAME_CHARACTERS = 18  # a player's name is cut beyond this
LUCK_SCALE = 0.3  # the luck panel shows at least +-30% (the joker's threshold)
# The graph's own words, said by the caller's speech (issue 27).
WHITE, BLACK = N_("White"), N_("Black")
WHITE_SCORE, LUCK, PLY = N_("White's score"), N_("Luck"), N_("ply")


class GraphTurn(Protocol):
    """What the graph reads of an analysis step (``engine.analysis.Turn``)."""

    @property
    def white(self) -> float: ...

    @property
    def luck(self) -> float: ...

    @property
    def roller(self) -> str | None: ...

    @property
    def label(self) -> str: ...

    @property
    def luck_label(self) -> str: ...


def graph_image(
    turns: Sequence[GraphTurn],
    *,
    title: str = "",
    white: str | None = None,
    black: str | None = None,
    width: int = WIDTH,
    height: int = HEIGHT,
    speech: Speech = ENGLISH,
) -> Image.Image:
    """The graph as an RGB image of ``width`` x ``height``; its words (the panels' names,
    the axis's, the sides' when no player is named) said by ``speech``."""
    if width < 200 or height < 150:
        raise ValueError("the graph needs at least 200 x 150 pixels")
    u = SCALE * width / SHOWN_WIDTH  # one pixel of the graph shown 400 wide
    image = Image.new("RGB", (width * SCALE, height * SCALE), BACKGROUND)
    draw = ImageDraw.Draw(image)
    small = bundled_font(round(9.5 * u))
    body = bundled_font(round(11.5 * u))
    words = bundled_font(round(9.5 * u), speech_face(speech))  # the graph's own words
    if white is None:
        white = speech(word(WHITE))
    if black is None:
        black = speech(word(BLACK))

    left, right = round(44 * u), image.width - round(8 * u)
    top, bottom = round(24 * u), image.height - round(22 * u)
    split = top + round((bottom - top) * 0.66)
    equity_box: Box = (left, top, right, split - round(3 * u))
    luck_box: Box = (left, split + round(3 * u), right, bottom)

    # Title and the players' colours.
    title = drawable(title)
    draw.text((left, 6 * u), title, font=_face_of(body, title), fill=TEXT)
    x = float(right)
    for name, colour in ((_short(black), BLACK_SIDE), (_short(white), WHITE_SIDE)):
        font = _face_of(words, name)  # in the face of the graph's own words
        x -= _text_width(draw, name, font)
        draw.text((x, 8 * u), name, font=font, fill=TEXT)
        x -= 10 * u
        draw.rectangle((x, 8.5 * u, x + 7 * u, 15.5 * u), fill=colour, outline=FRAME, width=1)
        x -= 9 * u

    xs = _xs(len(turns), left, right)
    _equity_panel(image, draw, equity_box, turns, xs, small, u)
    _luck_panel(draw, luck_box, turns, xs, small, u)
    _ply_axis(draw, luck_box, xs, small, u, drawable(speech(word(PLY))), words)
    _vertical_label(image, drawable(speech(word(WHITE_SCORE))), equity_box, words, u)
    _vertical_label(image, drawable(speech(word(LUCK))), luck_box, words, u)
    return image.resize((width, height), Image.Resampling.LANCZOS)


def graph_png(
    turns: Sequence[GraphTurn],
    *,
    title: str = "",
    white: str | None = None,
    black: str | None = None,
    width: int = WIDTH,
    height: int = HEIGHT,
    speech: Speech = ENGLISH,
) -> bytes:
    """The graph as PNG bytes (a palette image: small, and quick to send)."""
    image = graph_image(
        turns, title=title, white=white, black=black, width=width, height=height, speech=speech
    )
    out = io.BytesIO()
    image.quantize(colors=128, method=Image.Quantize.MEDIANCUT).save(
        out, format="PNG", optimize=True
    )
    return out.getvalue()


# ----- the panels ------------------------------------------------------------------------


def _xs(n: int, left: int, right: int) -> list[float]:
    """The x of each step: evenly spread, the first on the left edge, the last on the
    right (one step alone: in the middle)."""
    if n <= 1:
        return [(left + right) / 2] * n
    return [left + (right - left) * i / (n - 1) for i in range(n)]


def _equity_panel(
    image: Image.Image,
    draw: ImageDraw.ImageDraw,
    box: Box,
    turns: Sequence[GraphTurn],
    xs: list[float],
    font: Font,
    u: float,
) -> None:
    x0, y0, x1, y1 = box
    line = max(1, round(u / 2))
    draw.rectangle(box, fill=PLOT)

    def y_of(score: float) -> float:
        return y1 - (y1 - y0) * min(1.0, max(0.0, score))

    mid = y_of(0.5)
    points = [(x, y_of(t.white)) for x, t in zip(xs, turns, strict=True)]
    if len(points) >= 2:
        # The area between the line and 50%: White's colour above, Black's below.
        mask = Image.new("L", image.size, 0)
        ImageDraw.Draw(mask).polygon([(xs[0], mid), *points, (xs[-1], mid)], fill=255)
        upper = mask.crop((0, 0, image.width, round(mid)))
        lower = mask.crop((0, round(mid), image.width, image.height))
        image.paste(WHITE_SIDE, (0, 0, image.width, round(mid)), upper)
        image.paste(BLACK_SIDE, (0, round(mid), image.width, image.height), lower)
    for score in (0.25, 0.75):
        draw.line((x0, y_of(score), x1, y_of(score)), fill=GRID, width=line)
    draw.line((x0, mid, x1, mid), fill=FRAME, width=line)
    if len(points) >= 2:
        draw.line(points, fill=LINE, width=round(1.5 * u), joint="curve")
    elif points:
        _dot(draw, points[0], 2 * u, LINE)
    # An action's mark, on the point after it (where its error has been given up).
    for i, turn in enumerate(turns):
        colour = MARKS.get(turn.label)
        if colour is not None:
            _dot(draw, points[min(i + 1, len(points) - 1)], 2.5 * u, colour)
    draw.rectangle(box, outline=FRAME, width=line)
    for score, text in ((1.0, "100%"), (0.75, "75%"), (0.5, "50%"), (0.25, "25%"), (0.0, "0%")):
        _right_text(draw, (x0 - 3 * u, y_of(score)), text, font)


def _luck_panel(
    draw: ImageDraw.ImageDraw,
    box: Box,
    turns: Sequence[GraphTurn],
    xs: list[float],
    font: Font,
    u: float,
) -> None:
    x0, y0, x1, y1 = box
    line = max(1, round(u / 2))
    draw.rectangle(box, fill=PLOT)
    # For White: the roller's luck, or minus it for Black's rolls.
    signed = [
        (t.luck if t.roller == "white" else -t.luck) if t.roller is not None else 0.0 for t in turns
    ]
    biggest = max([abs(v) for v in signed] + [LUCK_SCALE])
    scale = math.ceil(biggest * 10 - 1e-9) / 10  # a whole number of tenths
    mid = (y0 + y1) / 2
    half = (y1 - y0) / 2 - 2 * u

    def y_of(value: float) -> float:
        return mid - half * value / scale

    step = (xs[1] - xs[0]) if len(xs) >= 2 else (x1 - x0) / 4
    bar = max(u / 2, min(8 * u, step * 0.7)) / 2
    for x, turn, value in zip(xs, turns, signed, strict=True):
        if turn.roller is None:
            continue
        colour = WHITE_SIDE if turn.roller == "white" else BLACK_SIDE
        top, bottom = sorted((mid, y_of(value)))
        if bottom - top < u / 2:  # a roll with (almost) no luck: a sliver, still seen
            top, bottom = mid - u / 4, mid + u / 4
        outline = FRAME if turn.roller == "white" else None
        draw.rectangle((x - bar, top, x + bar, bottom), fill=colour, outline=outline)
        if turn.luck_label:
            # a gold tick beyond the bar's end, pointing at it
            tip = top - 1.5 * u if value >= 0 else bottom + 1.5 * u
            tip = min(max(tip, y0 + 5 * u), y1 - 5 * u)  # inside the panel, over a long bar
            back = tip - 3.5 * u if value >= 0 else tip + 3.5 * u
            draw.polygon(
                [(x - 2.5 * u, back), (x + 2.5 * u, back), (x, tip)], fill=JOKER, outline=TEXT
            )
    draw.line((x0, mid, x1, mid), fill=FRAME, width=line)
    draw.rectangle(box, outline=FRAME, width=line)
    percent = round(scale * 100)
    _right_text(draw, (x0 - 3 * u, y_of(scale) + 3 * u), f"+{percent}%", font)
    _right_text(draw, (x0 - 3 * u, mid), "0", font)
    _right_text(draw, (x0 - 3 * u, y_of(-scale) - 3 * u), f"-{percent}%", font)


def _ply_axis(
    draw: ImageDraw.ImageDraw,
    box: Box,
    xs: list[float],
    font: Font,
    u: float,
    label: str = "ply",
    label_font: Font | None = None,
) -> None:
    """Ticks and numbers under the lower panel: the ply of each step (1 for the first),
    and the axis's name (``label``, in ``label_font``) at its right end."""
    x0, _, x1, y1 = box
    n = len(xs)
    if n == 0:
        return
    label_font = label_font or font
    room = x1 - _text_width(draw, label, label_font) - 4 * u  # numbers stop short of the name
    every = next((k for k in (1, 2, 5, 10, 20, 50, 100, 200, 500) if n / k <= 10), 1000)
    for i in range(0, n, every):
        text = str(i + 1)
        w = _text_width(draw, text, font)
        if xs[i] + w / 2 > room:
            break
        draw.line((xs[i], y1, xs[i], y1 + 2.5 * u), fill=FRAME, width=max(1, round(u / 2)))
        draw.text((xs[i] - w / 2, y1 + 4 * u), text, font=font, fill=SOFT_TEXT)
    at = (x1 - _text_width(draw, label, label_font), y1 + 4 * u)
    draw.text(at, label, font=label_font, fill=TEXT)


# ----- small helpers ---------------------------------------------------------------------


def _dot(
    draw: ImageDraw.ImageDraw, at: tuple[float, float], r: float, colour: tuple[int, ...]
) -> None:
    x, y = at
    width = max(1, round(r / 3))
    draw.ellipse((x - r, y - r, x + r, y + r), fill=colour, outline=BLACK_SIDE, width=width)


def _short(name: str) -> str:
    """A player's name as the picture shows it: drawable, and cut when long."""
    name = drawable(" ".join(name.split()))
    return name if len(name) <= NAME_CHARACTERS else name[: NAME_CHARACTERS - 3] + "..."


def _face_of(font: Font, text: str) -> Font:
    """``font``, or DejaVu Sans at its size when ``text`` has a letter it lacks (a name
    with an accent)."""
    if face_for(text) == "pillow":
        return font
    return bundled_font(round(getattr(font, "size", 11)), "dejavu")


def _text_width(draw: ImageDraw.ImageDraw, text: str, font: Font) -> float:
    return float(draw.textlength(text, font=font))


def _right_text(draw: ImageDraw.ImageDraw, at: tuple[float, float], text: str, font: Font) -> None:
    """``text`` ending at ``at``'s x, centred on its y."""
    x, y = at
    left, top, right, bottom = draw.textbbox((0, 0), text, font=font)
    draw.text((x - (right - left), y - (bottom + top) / 2), text, font=font, fill=SOFT_TEXT)


def _vertical_label(image: Image.Image, text: str, box: Box, font: Font, u: float) -> None:
    """``text`` turned a quarter to the left, in the margin beside ``box``."""
    probe = ImageDraw.Draw(image)
    left, top, right, bottom = probe.textbbox((0, 0), text, font=font)
    size = (round(right - left) + 4, round(bottom - top) + 4)
    label = Image.new("RGBA", size, (0, 0, 0, 0))
    ImageDraw.Draw(label).text((2 - left, 2 - top), text, font=font, fill=SOFT_TEXT)
    turned = label.rotate(90, expand=True)
    x0, y0, _, y1 = box
    if turned.height > y1 - y0:  # too long for the panel: left out rather than overlapping
        return
    at = (round(2 * u), round((y0 + y1 - turned.height) / 2))
    image.paste(turned, at, turned)


__all__ = ["GraphTurn", "Speech", "graph_image", "graph_png"]
