"""The evaluation and luck graph (``renderers.graph``, issue 29): White's expected score
as a line over the area of the side it favours, and a bar per roll in the roller's
colour, upwards when it helped White."""

from __future__ import annotations

import io
from dataclasses import dataclass

import pytest
from PIL import Image

from renderers.graph import BLACK_SIDE, HEIGHT, WHITE_SIDE, WIDTH, graph_image, graph_png


@dataclass(frozen=True)
class Step:
    white: float
    luck: float = 0.0
    roller: str | None = None
    label: str = ""
    luck_label: str = ""


def near(pixel: tuple[int, ...], colour: tuple[int, int, int], tolerance: int = 12) -> bool:
    return all(abs(a - b) <= tolerance for a, b in zip(pixel, colour, strict=False))


def count(image: Image.Image, box: tuple[int, int, int, int], colour: tuple[int, int, int]) -> int:
    region = image.crop(box).convert("RGB")
    data = region.tobytes()
    pixels = (tuple(data[i : i + 3]) for i in range(0, len(data), 3))
    return sum(1 for p in pixels if near(p, colour))


# At the default 800 x 440: the score panel spans about y 48-272, the luck panel 284-396.
SCORE = (100, 60, 780, 265)
LUCK_UP = (100, 290, 780, 336)
LUCK_DOWN = (100, 344, 780, 392)


def test_the_side_that_leads_colours_the_score_panel() -> None:
    white_leads = graph_image([Step(0.5 + 0.04 * i) for i in range(11)])
    black_leads = graph_image([Step(0.5 - 0.04 * i) for i in range(11)])
    assert white_leads.size == (WIDTH, HEIGHT)
    assert count(white_leads, SCORE, WHITE_SIDE) > 2000
    assert count(white_leads, SCORE, BLACK_SIDE) < 50
    assert count(black_leads, SCORE, BLACK_SIDE) > 2000
    assert count(black_leads, SCORE, WHITE_SIDE) < 50


def test_a_roll_is_a_bar_in_the_rollers_colour_on_the_side_it_helped() -> None:
    steps = [Step(0.5) for _ in range(10)]
    steps[3] = Step(0.3, luck=0.5, roller="black", luck_label="joker")  # helped Black: down
    steps[6] = Step(0.7, luck=0.4, roller="white", luck_label="joker")  # helped White: up
    image = graph_image(steps)
    assert count(image, LUCK_DOWN, BLACK_SIDE) > 100 and count(image, LUCK_UP, BLACK_SIDE) == 0
    assert count(image, LUCK_UP, WHITE_SIDE) > 100 and count(image, LUCK_DOWN, WHITE_SIDE) == 0
    no_dice = graph_image([Step(0.5) for _ in range(10)])
    assert count(no_dice, LUCK_UP, BLACK_SIDE) + count(no_dice, LUCK_DOWN, BLACK_SIDE) == 0


def test_png_sizes_and_edge_cases() -> None:
    png = graph_png([Step(0.5), Step(0.9, label="??")], title="Game 1 · Test", white="a" * 40)
    image = Image.open(io.BytesIO(png))
    assert image.format == "PNG" and image.size == (WIDTH, HEIGHT) and image.mode == "P"
    small = Image.open(io.BytesIO(graph_png([Step(0.5)] * 300, width=400, height=220)))
    assert small.size == (400, 220)
    assert Image.open(io.BytesIO(graph_png([]))).size == (WIDTH, HEIGHT)  # nothing to plot
    with pytest.raises(ValueError, match="at least"):
        graph_png([Step(0.5)], width=100, height=100)


def test_a_name_with_an_accent_keeps_it() -> None:
    """A player's name and a title Pillow's font cannot draw are drawn in DejaVu Sans with
    their letters ('José' was drawn 'Jose'); a plain name keeps Pillow's font."""
    steps = [Step(0.5), Step(0.6), Step(0.4)]

    def drawn(white: str, title: str = "") -> bytes:
        return graph_image(steps, white=white, title=title).tobytes()

    assert drawn("José") != drawn("Jose")
    assert drawn("Jo", "Partie 3 · Jägerspiel") != drawn("Jo", "Partie 3 · Jagerspiel")
