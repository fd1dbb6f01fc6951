"""The standings image (issue 30): a Swiss table with each round's result on a square of
the colour played, a round robin's crosstable with its diagonal shaded, the winner's row
marked, and a size that stays legible at 400 px wide."""

from __future__ import annotations

import io

from PIL import Image

from renderers.tournament import (
    BLACK_SQUARE,
    DIAGONAL,
    PAD,
    ROW_H,
    WHITE_SQUARE,
    WINNER,
    Cell,
    StandingsTable,
    TableRow,
    render_standings,
    render_standings_image,
)


def swiss(rounds: int, players: int) -> StandingsTable:
    rows = []
    for p in range(players):
        cells = tuple(
            Cell("1", "w", str((p + r) % players + 1)) if (p + r) % 2 else Cell("½", "b", "2")
            for r in range(rounds)
        )
        rows.append(TableRow(str(p + 1), f"Player {p + 1}", "2½", ("7.5", "6", "0"), cells, p == 0))
    return StandingsTable(
        "A Swiss",
        "Swiss, final standings",
        "swiss",
        tuple(str(r + 1) for r in range(rounds)),
        ("Buch", "Cut1", "DE"),
        tuple(rows),
    )


def colours_on_row(image: Image.Image, table: StandingsTable, row: int) -> set[tuple[int, ...]]:
    top = image.height - PAD - ROW_H * (len(table.rows) + 1)
    y = top + ROW_H * (row + 1) + 6  # inside the cells' squares, above their text
    rgb = image.convert("RGB")
    return {rgb.getpixel((x, y)) for x in range(image.width)}  # type: ignore[misc]


def test_a_swiss_shows_colours_results_and_the_winner() -> None:
    table = swiss(5, 6)
    image = render_standings_image(table)
    first, second = colours_on_row(image, table, 0), colours_on_row(image, table, 1)
    assert WINNER in first and WINNER not in second  # the winner's row only
    assert WHITE_SQUARE in first and BLACK_SQUARE in first  # squares of both colours
    data = render_standings(table)
    assert data.startswith(b"\x89PNG") and Image.open(io.BytesIO(data)).size == image.size


def test_more_rounds_widen_the_table_but_it_stays_legible_at_400_px() -> None:
    narrow = render_standings_image(swiss(3, 8))
    wide = render_standings_image(swiss(9, 8))
    assert wide.width > narrow.width and wide.height == narrow.height
    # Shown 400 px wide, a row is still about 14 px high or more (text at ~9 px and up).
    for image in (narrow, wide):
        assert image.width <= 1000
        assert ROW_H * 400 / image.width >= 13.5


def test_a_crosstable_shades_its_diagonal() -> None:
    names = ["Ann", "Bob", "Cleo", "Dan"]
    rows = tuple(
        TableRow(
            str(i + 1),
            name,
            "2",
            ("3.5", "0"),
            tuple(Cell("" if j == i else "1 ½") for j in range(4)),
            i == 0,
        )
        for i, name in enumerate(names)
    )
    table = StandingsTable(
        "A round robin", "", "crosstable", ("1", "2", "3", "4"), ("S-B", "DE"), rows
    )
    image = render_standings_image(table)
    for row in range(4):
        assert DIAGONAL in colours_on_row(image, table, row)
    # a double round robin's cell is wider than a single one's
    single = StandingsTable(
        "A round robin",
        "",
        "crosstable",
        ("1", "2", "3", "4"),
        ("S-B", "DE"),
        tuple(
            TableRow(
                r.rank, r.name, r.points, r.tiebreaks, tuple(Cell(c.text[:1]) for c in r.cells)
            )
            for r in rows
        ),
    )
    assert render_standings_image(single).width < image.width
