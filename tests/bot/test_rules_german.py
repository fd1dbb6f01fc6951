"""/rules in the reader's language (issue 27), through the payload harness.

The rule pages are built from the variants' facts (``variants/rulebook.py``); each text of
a page (``rulebook.texts``: paragraphs, list items, section titles, table words) is a
message of the catalogue, and a German reader's /rules shows every one in German, in the
same pages Discord accepts. ``chessgarden rules`` and ``docs/rules`` stay English (their
own tests compare them with the committed pages).
"""

from __future__ import annotations

import functools
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # the harness lives beside this file
from harness import World  # noqa: E402

import variants  # noqa: E402
from bot import i18n  # noqa: E402
from variants.rulebook import Rulebook, discord_pages, texts, translated  # noqa: E402


def embed_size(embed: dict[str, Any]) -> int:
    fields = embed.get("fields", [])
    return (
        len(embed.get("title", ""))
        + len(embed.get("description", ""))
        + len(embed.get("footer", {}).get("text", ""))
        + sum(len(f["name"]) + len(f["value"]) for f in fields)
    )


def paragraphs(book: Rulebook) -> list[str]:
    out: list[str] = []
    for section in book.sections:
        for block in section.blocks:
            if isinstance(block, str):
                out.append(block)
            elif isinstance(block, tuple):
                out.extend(block)
    return out


def german(text: str) -> str:
    return i18n.gettext("de", text)


@pytest.mark.parametrize("key", variants.names())
async def test_a_german_reader_gets_german_rule_pages(tmp_path: Path, key: str) -> None:
    world = await World.open(tmp_path)
    try:
        hans = world.user("hans", locale="de")
        shown = await world.command(hans, "rules", variant=key)
        book = variants.rulebook(key)
        pages = discord_pages(translated(book, german))
        assert len(shown.public) == len(pages)
        for message, page in zip(shown.public, pages, strict=True):
            (embed,) = message.embeds
            assert [(f["name"], f["value"]) for f in embed["fields"]] == list(page)
            assert embed_size(embed) <= 6000 and len(embed["fields"]) <= 25
        everything = " ".join(" ".join(m.text for m in shown.public).split())
        assert german(book.summary)[:60] in everything and book.summary[:60] not in everything
        assert german("Readings in force") in everything
        # every paragraph and list item of more than a few words is German, and its
        # English is gone (the tables' notation, "Nf3", stays as it is written)
        said = [t for t in paragraphs(book) if len(t.split()) > 6]
        assert len(said) >= 5 and set(said) <= set(texts(book))
        for text in said:
            assert german(text) != text, text
            assert " ".join(text.split()) not in everything, text
        # every reading in force, whole, in German: nothing cut off between the pages
        for reading in variants.rules(key).readings:
            assert " ".join(german(reading).split()) in everything
        # an English reader beside him keeps the English pages
        eve = world.user("eve")
        english = await world.command(eve, "rules", variant=key)
        assert book.summary[:60] in english.public[0].text
    finally:
        await world.close()


def test_the_english_rulebook_is_untouched_by_translating() -> None:
    for key in variants.names():
        book = variants.rulebook(key)
        assert translated(book, functools.partial(i18n.gettext, "en")) == book
        assert translated(book, german) != book
