"""The complete rules of each variant, from one source, in three renderings.

The text of a variant lives in ``variants/rulebooks/<key>.py`` (its board,
dice, special actions, the end and the notation, built from the variant
module's own constants), or wherever the variant's ``rule_text`` says; the pieces come from each ``PieceType.words`` and the
readings in force from ``Variant.readings``. This module assembles them:

- ``rulebook(key)``: the structured ``Rulebook`` (sections of blocks);
- ``as_text(book)``: plain text within 80 columns (``chessgarden rules VARIANT``);
- ``as_markdown(book)``: ``docs/rules/<key>.md``; ``docs_files()`` gives every page
  plus the index, so a test can tell when the committed pages drift;
- ``discord_fields(book)``: (name, value) pairs within Discord's embed field
  limits (256 and 1,024 characters), for ``/rules``; ``discord_pages(book)``
  groups them into embeds that keep under the 6,000-character embed total.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .base import Variant

FIELD_NAME_LIMIT = 256  # Discord embed field name
FIELD_VALUE_LIMIT = 1024  # Discord embed field value
TEXT_WIDTH = 78


@dataclass(frozen=True)
class Table:
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]


# A block is a paragraph (str), a bulleted list (tuple of str) or a table.
Block = str | tuple[str, ...] | Table


@dataclass(frozen=True)
class Section:
    title: str
    blocks: tuple[Block, ...]


@dataclass(frozen=True)
class Rulebook:
    key: str
    title: str
    inventor: str
    source: str  # the rule page it follows
    tagline: str  # the variant in one line
    summary: str
    sections: tuple[Section, ...]


def build(rules: Variant) -> Rulebook:
    """The rulebook of one variant: its own sections with the pieces and the readings."""
    data = rules.rule_text()
    own: tuple[Section, ...] = data.sections(rules)
    pieces = Section(
        "Pieces",
        (
            Table(
                ("Piece", "Letter", "How it moves"),
                tuple((t.name, t.letter, _sentence(t.words)) for t in rules.piece_types if t.words),
            ),
            *data.piece_notes(rules),
        ),
    )
    readings = Section(
        "Readings in force",
        (
            "Where the rule page is unclear or silent, this project settles the point once; "
            "these are our interpretations, not the inventor's words.",
            tuple(rules.readings),
        ),
    )
    first, rest = own[0], own[1:]
    return Rulebook(
        key=rules.key,
        title=rules.title,
        inventor=data.INVENTOR,
        source=data.SOURCE,
        tagline=data.TAGLINE,
        summary=rules.summary,
        sections=(first, pieces, *rest, readings),
    )


def _sentence(words: str) -> str:
    text = words[0].upper() + words[1:]
    return text if text.endswith(".") else text + "."


# ----- plain text -----------------------------------------------------------------------------


def as_text(book: Rulebook, width: int = TEXT_WIDTH) -> str:
    lines = [book.title, "=" * len(book.title), ""]
    lines.extend(_wrap(f"By {book.inventor}. Rule page: {book.source}.", width))
    lines.append("")
    lines.extend(_wrap(book.summary, width))
    for section in book.sections:
        lines.extend(["", section.title, "-" * len(section.title)])
        for block in section.blocks:
            lines.append("")
            lines.extend(_text_block(block, width))
    return "\n".join(lines).rstrip() + "\n"


def _wrap(text: str, width: int, indent: str = "", first: str = "") -> list[str]:
    return textwrap.wrap(text, width, initial_indent=first or indent, subsequent_indent=indent) or [
        first.rstrip()
    ]


def _text_block(block: Block, width: int) -> list[str]:
    if isinstance(block, str):
        return _wrap(block, width)
    if isinstance(block, tuple):
        return [line for item in block for line in _wrap(item, width, "    ", "  - ")]
    return _text_table(block, width)


def _text_table(table: Table, width: int) -> list[str]:
    """Columns padded to their widest cell; the last column wraps."""
    columns = len(table.header)
    sizes = [max(len(row[i]) for row in (table.header, *table.rows)) for i in range(columns - 1)]
    lead = sum(sizes) + 2 * (columns - 1)
    if lead > width // 2:  # too wide for columns: one paragraph per row
        out = []
        for row in table.rows:
            rest = ". ".join(
                f"{h}: {c}" for h, c in zip(table.header[1:], row[1:], strict=True) if c
            )
            out.extend(_wrap(f"{row[0]}. {rest}.", width, "    ", "  - "))
        return out
    out = []
    for row in (table.header, *table.rows):
        cells = "".join(cell.ljust(size + 2) for cell, size in zip(row, sizes, strict=False))
        out.extend(_wrap(row[-1], width, " " * lead, cells))
        if row is table.header:
            out.append("-" * min(width, lead + max(len(r[-1]) for r in table.rows)))
    return out


# ----- markdown -------------------------------------------------------------------------------


def as_markdown(book: Rulebook) -> str:
    lines = [
        f"# {book.title} (`{book.key}`)",
        "",
        f"By {book.inventor}. Rule page: {book.source}.",
        "",
        book.summary,
    ]
    for section in book.sections:
        lines.extend(["", f"## {section.title}"])
        for block in section.blocks:
            lines.append("")
            lines.extend(_md_block(block))
    lines.extend(["", GENERATED])
    return "\n".join(lines) + "\n"


GENERATED = (
    "<!-- Generated from variants/ by `chessgarden rules --write docs/rules`; "
    "do not edit by hand. -->"
)


def _md_block(block: Block) -> list[str]:
    if isinstance(block, str):
        return [block]
    if isinstance(block, tuple):
        return [f"- {item}" for item in block]
    out = ["| " + " | ".join(block.header) + " |", "|" + "---|" * len(block.header)]
    out.extend(
        "| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in block.rows
    )
    return out


def docs_files(books: Iterable[Rulebook]) -> dict[str, str]:
    """``docs/rules``: one page per variant and a README index."""
    books = list(books)
    index = [
        "# Rules of the Chess Garden variants",
        "",
        "Each page is the complete rules of one variant as Chess Garden plays it: the pieces, "
        "the dice, every special action with its notation, how the game ends, and the "
        "readings in force where the rule page is unclear. The same text is printed by "
        "`chessgarden rules VARIANT` and shown by the bot's `/rules` command.",
        "",
        "| Variant | Key | In one line |",
        "|---|---|---|",
    ]
    files = {}
    for book in books:
        files[f"{book.key}.md"] = as_markdown(book)
        index.append(f"| [{book.title}]({book.key}.md) | `{book.key}` | {book.tagline} |")
    index.extend(["", GENERATED])
    files["README.md"] = "\n".join(index) + "\n"
    return files


# ----- Discord fields -------------------------------------------------------------------------


def discord_fields(book: Rulebook, limit: int = FIELD_VALUE_LIMIT) -> tuple[tuple[str, str], ...]:
    """(name, value) pairs, each value at most ``limit`` characters (Discord's embed
    field limit is 1,024) and each name at most 256: a long section continues in
    the next field, named ``Pieces (2)``. Tables become one line per row."""
    out: list[tuple[str, str]] = []
    for section in book.sections:
        lines = [line for block in section.blocks for line in _discord_block(block)]
        for n, chunk in enumerate(_chunks(lines, limit), 1):
            name = section.title if n == 1 else f"{section.title} ({n})"
            out.append((name[:FIELD_NAME_LIMIT], chunk))
    return tuple(out)


EMBED_TOTAL_LIMIT = 6000  # Discord: all of one embed's text together
EMBED_FIELDS_LIMIT = 25  # Discord: fields per embed


def discord_pages(
    book: Rulebook, budget: int = EMBED_TOTAL_LIMIT - 1000
) -> tuple[tuple[tuple[str, str], ...], ...]:
    """``discord_fields`` grouped into embeds: each group at most ``budget``
    characters of names and values (leaving room for a title, description and
    footer under Discord's 6,000-character embed total) and at most 25 fields."""
    pages: list[list[tuple[str, str]]] = [[]]
    size = 0
    for name, value in discord_fields(book):
        cost = len(name) + len(value)
        if pages[-1] and (size + cost > budget or len(pages[-1]) >= EMBED_FIELDS_LIMIT):
            pages.append([])
            size = 0
        pages[-1].append((name, value))
        size += cost
    return tuple(tuple(page) for page in pages)


def _discord_block(block: Block) -> list[str]:
    if isinstance(block, str):
        return [block]
    if isinstance(block, tuple):
        return [f"• {item}" for item in block]
    return [f"**{' · '.join(row[:-1])}**: {row[-1]}" for row in block.rows]


def _chunks(lines: list[str], limit: int) -> Iterator[str]:
    """Lines joined up to ``limit`` characters; a longer line is cut at word breaks."""
    current = ""
    for line in lines:
        for piece in _split_long(line, limit):
            joined = f"{current}\n{piece}" if current else piece
            if len(joined) <= limit:
                current = joined
            else:
                yield current
                current = piece
    if current:
        yield current


def _split_long(line: str, limit: int) -> list[str]:
    if len(line) <= limit:
        return [line]
    return textwrap.wrap(line, limit, break_long_words=True, break_on_hyphens=False)


# ----- in another language (issue 27) -----------------------------------------------------------

# A table cell is words to translate when it has a word of three small letters ("a pawn
# capture"); notation ("Nf3, Qd3", "e8=Q", "G@z4 {T3}") and letters ("N") stay as written.
_WORDY = re.compile(r"[a-z]{3,}")


def texts(book: Rulebook) -> Iterator[str]:
    """Every text of ``book`` a reader in another language needs translated, as it stands
    in the book (the message ids of ``python -m bot.discord.catalogue``): the title, the
    tagline and the summary, each section's title, every paragraph and list item, and the
    table headers and cells that are words. The inventor and the rule page's name stay."""
    yield book.title
    yield book.tagline
    yield book.summary
    for section in book.sections:
        yield section.title
        for block in section.blocks:
            if isinstance(block, str):
                yield block
            elif isinstance(block, tuple):
                yield from block
            else:
                yield from block.header
                yield from (cell for row in block.rows for cell in row if _WORDY.search(cell))


def translated(book: Rulebook, say: Callable[[str], str]) -> Rulebook:
    """``book`` with every text of ``texts`` said by ``say`` (a catalogue lookup of the
    English text); the English book is ``book`` itself."""

    def block(b: Block) -> Block:
        if isinstance(b, str):
            return say(b)
        if isinstance(b, tuple):
            return tuple(say(item) for item in b)
        rows = tuple(
            tuple(say(cell) if _WORDY.search(cell) else cell for cell in row) for row in b.rows
        )
        return Table(tuple(say(h) for h in b.header), rows)

    return Rulebook(
        key=book.key,
        title=say(book.title),
        inventor=book.inventor,
        source=book.source,
        tagline=say(book.tagline),
        summary=say(book.summary),
        sections=tuple(
            Section(say(s.title), tuple(block(b) for b in s.blocks)) for s in book.sections
        ),
    )
