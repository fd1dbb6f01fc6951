"""The board as text, for the console: ``text_board(game, orientation='white')``.

Plain ASCII, well inside 80 columns. Every square is two characters: a piece
letter (White upper case, Black lower case) followed by its state, or '.' for
an empty light square and ':' for an empty dark one; holes are blank. States:
a Tquarc's value (``T3``), a Raven's facing (``RE``: facing east), a promoted
King (``K+``), a Guardener on its double start (``G2``, shown on both squares).
File letters run along the top and bottom, rank numbers down both sides, and
the variant's special squares (terraces, Tquads) are labelled. A legend follows.
Everything comes from the geometry and the pieces: nothing here is per variant.
"""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING

from .geometry import BLACK, WHITE

if TYPE_CHECKING:
    from .game import Game

WIDTH = 78  # legend lines wrap here
ORIENTATIONS = ("white", "black")
_FACING_WORDS = {"N": "north (toward rank 8)", "E": "east", "S": "south", "W": "west"}


def text_board(game: Game, *, orientation: str = "white") -> str:
    """``game``'s position as ASCII text, seen from White's side or Black's."""
    if orientation not in ORIENTATIONS:
        raise ValueError(f"orientation is 'white' or 'black', not {orientation!r}")
    rules = game.rules
    g = rules.geometry
    files = list(range(g.width))
    ranks = list(range(g.height - 1, -1, -1))
    if orientation == "black":
        files.reverse()
        ranks.reverse()
    rows_of, columns_of, blocks = _zones(game)
    label_width = max(len(str(g.rank_label(r * g.width))) for r in range(g.height))
    margin = " " * (label_width + 1)
    header = margin + " ".join(f"{g.files[f]} " for f in files).rstrip()
    lines = [header]
    for r in ranks:
        label = str(g.rank_label(r * g.width)).rjust(label_width)
        cells = []
        for f in files:
            sq = f + r * g.width
            cells.append(_cell(game, sq) if g.on_board[sq] else "  ")
        row = f"{label} " + " ".join(cells) + f" {label.strip()}"
        if r in rows_of:
            row += f"   {rows_of[r]}"
        lines.append(row.rstrip())
    lines.append(header)
    if columns_of:
        marks = margin + " ".join(columns_of.get(f, "").ljust(2) for f in files)
        lines.append(marks.rstrip())
    lines.append("")
    lines.extend(_legend(game, rows_of, columns_of, blocks))
    lost = _lost(game)
    if lost:
        lines.append(lost)
    return "\n".join(lines) + "\n"


def _cell(game: Game, sq: int) -> str:
    rules = game.rules
    p = game.pos.board[sq]
    if p is None:
        return ": " if rules.geometry.dark[sq] else ". "
    letter = rules.types[p.kind].letter
    code = letter if p.color == WHITE else letter.lower()
    return (code + p.state[:1]).ljust(2)


def _zones(game: Game) -> tuple[dict[int, str], dict[int, str], list[str]]:
    """Special squares: zones along one rank (labelled at the row's end), along one
    file (labelled under the column), and blocks (named in the legend)."""
    g = game.rules.geometry
    rows: dict[int, str] = {}
    columns: dict[int, str] = {}
    blocks: list[str] = []
    for label, squares in game.rules.zones().items():
        if not squares:
            continue
        ranks = {g.rank_of(s) for s in squares}
        files = {g.file_of(s) for s in squares}
        first, last = min(squares), max(squares)
        span = f"{g.square_name(first)}-{g.square_name(last)}"
        if len(ranks) == 1:
            rows[ranks.pop()] = f"{label} ({span})"
        elif len(files) == 1:
            columns[files.pop()] = label
            blocks.append(f"{label} is the {g.file_letter(first)}-file ({span})")
        else:
            blocks.append(f"{label} {span}")
    return rows, columns, blocks


def _legend(
    game: Game, rows: dict[int, str], columns: dict[int, str], blocks: list[str]
) -> list[str]:
    rules = game.rules
    names = ", ".join(f"{t.letter} {t.name}" for t in rules.piece_types)
    out = [
        f"Pieces: {names}. White upper case, Black lower case.",
        "Empty squares: '.' light, ':' dark.",
    ]
    states = set()
    for p in game.pos.board:
        if p is not None and p.state:
            states.add((p.kind, p.state))
    kinds = {k for k, _ in states}
    for kind in sorted(kinds):
        t = rules.types[kind]
        shown = sorted({s for k, s in states if k == kind})
        if kind == "T":
            v = shown[0]
            out.append(
                f"{t.letter}{v}: a Tquarc and the die value it shows ({v}: it would teleport "
                f"to Tquad T{v})."
            )
        elif t.facing_relative:
            faces = ", ".join(f"{t.letter}{s} facing {_FACING_WORDS.get(s, s)}" for s in shown)
            out.append(f"A {t.name} shows her facing: {faces}.")
        elif t.is_royal:
            out.append(f"{t.letter}+: a promoted King.")
        else:
            out.append(
                f"{t.letter}{shown[0]}: the {t.name} still on its double start, shown on both "
                "of its squares."
            )
    if rows or blocks:
        zones = [f"{label}" for label in rows.values()] + blocks
        heading = rules.zone_names or "Special squares"
        out.append(f"{heading}: " + "; ".join(zones) + ".")
    return [w for line in out for w in textwrap.wrap(line, WIDTH, subsequent_indent="  ")]


def _lost(game: Game) -> str:
    """'Lost: White N P, Black q' from the lost-pieces list."""
    rules = game.rules
    parts = []
    for color, side in ((WHITE, "White"), (BLACK, "Black")):
        letters = [rules.types[k].letter for c, k in game.captured if c == color]
        if letters:
            shown = " ".join(x if color == WHITE else x.lower() for x in letters)
            parts.append(f"{side} {shown}")
    return "Lost: " + ", ".join(parts) if parts else ""
