"""The message catalogues' contents, from the code and the command tree (issue 27).

Two sources make the template (``bot/locale/chessgarden.pot``):

- the sentences marked in the code: ``_("...")``, ``N_("...")``, ``ngettext("...", "...",
  n)`` in the adapter, and ``said("...")`` where the service or the rules hand over a
  ``Said`` sentence (``variants/sentence.py``; Babel's Python extractor, with these
  keywords only);
- every string the command tree asks the translator for when the commands are synced
  (names, descriptions, option names and descriptions, choice names), recorded by calling
  discord.py's own ``get_translated_payload`` with a translator that writes them down, each
  with its place as the context (``command name``, ``choice name`` ...).

``python -m bot.discord.catalogue`` writes the template and brings every language's ``.po``
up to date with it (new entries empty, or fuzzy where Babel guesses; English copies the
message id); ``--check`` only reports what is missing. The tests use the same functions.
"""

from __future__ import annotations

import argparse
import asyncio
import io
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from discord import app_commands

import variants
from bot import i18n
from bot.discord.translate import VARIANT_EXTRA, context_name

ROOT = Path(__file__).resolve().parent.parent.parent
# The packages whose sentences are marked (the adapter, the service's and the rules' Said).
SOURCES = ("bot/discord", "bot/service", "bot/i18n.py", "variants", "renderers")
KEYWORDS: dict[str, Any] = {
    "_": None,
    "N_": None,
    "ngettext": (1, 2),
    "said": None,
    "said_n": (1, 2),
}
TEMPLATE = i18n.LOCALE_DIR / f"{i18n.DOMAIN}.pot"


@dataclass(frozen=True)
class Entry:
    """One message of the template: its id (and plural), its context, where it was seen."""

    msgid: str
    plural: str | None = None
    context: str | None = None
    where: str = ""


def source_files(root: Path = ROOT) -> list[Path]:
    files: list[Path] = []
    for name in SOURCES:
        path = root / name
        files += [path] if path.is_file() else sorted(path.rglob("*.py"))
    return files


def code_entries(root: Path = ROOT) -> list[Entry]:
    """The sentences marked in the code, in file order."""
    from babel.messages.extract import extract_from_file

    found: list[Entry] = []
    for path in source_files(root):
        where = path.relative_to(root).as_posix()
        for line, message, _comments, context in extract_from_file(
            "python", path, keywords=KEYWORDS
        ):
            if isinstance(message, tuple):
                singular, plural = message[0], message[1]
                if singular:
                    found.append(Entry(singular, plural or None, context, f"{where}:{line}"))
            elif message:
                found.append(Entry(message, None, context, f"{where}:{line}"))
    return found


class RecordingTranslator(app_commands.Translator):
    """Writes down every string the tree asks to translate (and translates none)."""

    def __init__(self) -> None:
        self.seen: list[Entry] = []

    async def translate(
        self,
        string: app_commands.locale_str,
        locale: Any,
        context: app_commands.TranslationContextTypes,
    ) -> str | None:
        if VARIANT_EXTRA in string.extras:  # a variant's name: the rules' own entry says it
            return None
        entry = Entry(string.message, None, context_name(context.location), "command tree")
        if entry not in self.seen:
            self.seen.append(entry)
        return None


async def tree_entries(tree: app_commands.CommandTree[Any]) -> list[Entry]:
    """Every string of the tree the translator is asked for when the commands are synced."""
    recorder = RecordingTranslator()
    for command in tree.get_commands():
        await command.get_translated_payload(tree, recorder)
    return recorder.seen


async def bot_tree() -> app_commands.CommandTree[Any]:
    """The bot's command tree, cogs loaded, nothing started (as ``chessgarden commands``)."""
    from bot.discord.app import ChessGardenBot, Settings

    bot = ChessGardenBot(cast(Any, None), Settings())
    await bot.load_cogs()
    return bot.tree


async def collect_tree() -> list[Entry]:
    return await tree_entries(await bot_tree())


def rulebook_entries() -> list[Entry]:
    """The rule pages' texts (``/rules``), each paragraph whole, as the rulebook writes it
    (``variants.rulebook.texts``): the facts a paragraph states (squares, ranks) are in its
    message id, so a changed fact shows as a missing translation."""
    from variants.rulebook import texts

    found: list[Entry] = []
    for key in variants.names():
        for text in texts(variants.rulebook(key)):
            found.append(Entry(text, None, None, f"rule page: {key}"))
    return found


def all_entries(tree_strings: Iterable[Entry], root: Path = ROOT) -> list[Entry]:
    """The template's entries: the code's, the rule pages', then the tree's; each message
    once."""
    out: dict[tuple[str, str | None], Entry] = {}
    for entry in [*code_entries(root), *rulebook_entries(), *tree_strings]:
        out.setdefault((entry.msgid, entry.context), entry)
    return list(out.values())


def template(entries: Iterable[Entry]) -> Any:
    from babel.messages.catalog import Catalog

    catalog = Catalog(domain=i18n.DOMAIN, project="Chess Garden", fuzzy=False)
    for entry in entries:
        msgid: Any = (entry.msgid, entry.plural) if entry.plural else entry.msgid
        path, _sep, line = entry.where.rpartition(":")
        locations = [(path, int(line))] if line.isdigit() else []
        comments = [] if locations else [entry.where]  # "command tree"
        flags = ["python-brace-format"] if "{" in entry.msgid else []
        catalog.add(
            msgid, context=entry.context, locations=locations, flags=flags, auto_comments=comments
        )
    return catalog


def read_catalog(locale: str, root: Path = i18n.LOCALE_DIR) -> Any:
    from babel.messages.pofile import read_po

    with i18n.po_path(locale, root).open(encoding="utf-8") as handle:
        return read_po(handle, locale=locale, domain=i18n.DOMAIN)


def write_catalog(catalog: Any, path: Path) -> None:
    from babel.messages.pofile import write_po

    out = io.BytesIO()
    # no line numbers: an edit elsewhere in a file does not touch every catalogue
    write_po(out, catalog, width=100, include_previous=False, include_lineno=False)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(out.getvalue())


def update(entries: list[Entry], locales: Iterable[str], root: Path = i18n.LOCALE_DIR) -> None:
    """Write the template and merge it into each language's catalogue."""
    from babel.messages.catalog import Catalog

    pot = template(entries)
    write_catalog(pot, root / f"{i18n.DOMAIN}.pot")
    for locale in locales:
        path = i18n.po_path(locale, root)
        if path.is_file():
            catalog = read_catalog(locale, root)
        else:
            catalog = Catalog(locale=locale, domain=i18n.DOMAIN, project="Chess Garden")
        catalog.update(pot, no_fuzzy_matching=locale == i18n.DEFAULT)
        if locale == i18n.DEFAULT:  # the source language: each sentence is its own id
            for message in catalog:
                if message.id and (not _complete(message) or message.fuzzy):
                    message.string = message.id
                    message.flags.discard("fuzzy")
        catalog.obsolete.clear()
        write_catalog(catalog, path)


def _complete(message: Any) -> bool:
    """Whether a catalogue message has every form translated (singular and plurals)."""
    text = message.string
    strings = text if isinstance(text, tuple | list) else (text,)
    return bool(strings) and all(strings)


def missing(entries: list[Entry], locale: str, root: Path = i18n.LOCALE_DIR) -> list[str]:
    """The entries ``locale``'s catalogue lacks, leaves empty or marks fuzzy."""
    catalog = read_catalog(locale, root)
    out: list[str] = []
    for entry in entries:
        key: Any = (entry.msgid, entry.plural) if entry.plural else entry.msgid
        message = catalog.get(entry.msgid, context=entry.context)
        if message is None or message.fuzzy or not _complete(message) or key != message.id:
            out.append(f"{entry.context or ''}|{entry.msgid} ({entry.where})")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bot.discord.catalogue")
    parser.add_argument("--check", action="store_true", help="report what is missing only")
    parser.add_argument("--add", metavar="LOCALE", help="start a catalogue for a new language")
    args = parser.parse_args(argv)
    entries = all_entries(asyncio.run(collect_tree()))
    locales = sorted({*i18n.available(), *([args.add] if args.add else [])})
    if not args.check:
        update(entries, locales)
    status = 0
    for locale in locales:
        gaps = missing(entries, locale)
        print(f"{locale}: {len(entries) - len(gaps)} of {len(entries)} translated")
        for gap in gaps[:20]:
            print(f"  missing: {gap}")
        status = status or (1 if gaps else 0)
    return status


if __name__ == "__main__":
    raise SystemExit(main())
