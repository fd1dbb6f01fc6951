"""Translations: gettext message catalogues, looked up per locale (issue 27).

Neutral ground (stdlib and Babel only, no discord; Babel is imported only when a
catalogue is compiled): the Discord adapter translates its sentences with these
functions, and the service may hand over a ``Said`` sentence where a front end should be
able to say it in the reader's language.

- The catalogues are ``bot/locale/<locale>/LC_MESSAGES/chessgarden.po``, one per language,
  shipped in the package as text. The first lookup in a language compiles its ``.po`` with
  Babel into a ``.mo`` in memory (a few milliseconds, once per process), so that a fresh
  ``pip install`` (or the editable checkout, or the Docker image) has working catalogues
  with no build step and nothing downloaded, and the ``.po`` in the repository is the only
  copy that can be edited.
- English is the source language: a message id is the English sentence, and the English
  catalogue copies it (so that English wording can be corrected in the catalogue too).
- The service and the rules say some of their sentences as ``Said`` (a ``str`` with its
  message id and values, ``variants/sentence.py``): the console prints the English; the
  Discord adapter renders them in the reader's language (``render``).
- Sentences take their values by name: ``gettext("de", "Game {game} is over.", game=7)``;
  the translation must use the same ``{names}`` (the completeness test checks it). A
  translation that cannot be filled in falls back to the English sentence.
- The locale to use is passed explicitly, or set for a piece of work with ``using``
  (a ``ContextVar``: each asyncio task keeps its own) and read with ``current``.
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import functools
import gettext as _gettext
import io
import logging
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

# The sentence itself (a ``str`` with its message id and values) is the rules' own, in the
# standard library only, so that ``variants`` can say its refusals and statuses as ``Said``
# too; it is re-exported here (``from bot.i18n import said``).
from variants.sentence import Said as Said
from variants.sentence import said as said
from variants.sentence import said_n as said_n

log = logging.getLogger(__name__)

DOMAIN = "chessgarden"
LOCALE_DIR = Path(__file__).resolve().parent / "locale"
DEFAULT = "en"  # the source language: message ids are English sentences

_current: contextvars.ContextVar[str] = contextvars.ContextVar("chessgarden_locale")
# The language of the pictures drawn for this piece of work: a board posted in a channel
# speaks the server's language, whoever asked for it (``pictures``, ``set_pictures``).
_pictures: contextvars.ContextVar[str] = contextvars.ContextVar("chessgarden_pictures")


# ----- which catalogue ------------------------------------------------------------------------


def po_path(locale: str, root: Path = LOCALE_DIR) -> Path:
    return root / locale / "LC_MESSAGES" / f"{DOMAIN}.po"


@functools.cache
def available() -> tuple[str, ...]:
    """The locales with a catalogue, e.g. ``('de', 'en')``."""
    if not LOCALE_DIR.is_dir():
        return ()
    return tuple(sorted(p.name for p in LOCALE_DIR.iterdir() if po_path(p.name).is_file()))


def normalize(tag: str | None) -> str | None:
    """A locale tag as gettext names it: ``en-US`` -> ``en_US``, ``de`` -> ``de``."""
    if not tag:
        return None
    text = str(tag).strip().replace("-", "_")
    if not text:
        return None
    language, _sep, region = text.partition("_")
    return f"{language.lower()}_{region.upper()}" if region else language.lower()


def negotiate(*tags: str | None) -> str:
    """The first of ``tags`` (most wanted first) with a catalogue, in full (``pt_BR``) or by
    its language (``de_AT`` -> ``de``); English when none has one."""
    have = available()
    for tag in tags:
        name = normalize(tag)
        if name is None:
            continue
        if name in have:
            return name
        language = name.split("_")[0]
        if language in have:
            return language
    return DEFAULT


# ----- the catalogues -------------------------------------------------------------------------


def compile_po(text: str, locale: str) -> bytes:
    """A ``.po`` file's text compiled to ``.mo`` bytes (Babel; fuzzy entries left out)."""
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    catalog = read_po(io.StringIO(text), locale=locale, domain=DOMAIN)
    out = io.BytesIO()
    write_mo(out, catalog)
    return out.getvalue()


@functools.cache
def translations(locale: str) -> _gettext.NullTranslations:
    """The compiled catalogue of ``locale`` (cached); no catalogue: identity."""
    path = po_path(locale)
    if locale not in available() or not path.is_file():
        return _gettext.NullTranslations()
    data = compile_po(path.read_text(encoding="utf-8"), locale)
    return _gettext.GNUTranslations(io.BytesIO(data))


def _fill(text: str, source: str, params: Mapping[str, Any]) -> str:
    if not params:
        return text
    try:
        return text.format_map(params)
    except (KeyError, IndexError, ValueError) as error:  # a broken translation: say it in English
        log.warning("translation of %r cannot be filled in: %r", source, error)
        return source.format_map(params)


def gettext(locale: str | None, msgid: str, /, **params: Any) -> str:
    """``msgid`` in ``locale`` (``None``: the current one), with ``params`` filled in."""
    found = translations(locale or current()).gettext(msgid)
    return _fill(found, msgid, _words(locale, params))


def ngettext(locale: str | None, singular: str, plural: str, n: int, /, **params: Any) -> str:
    """The singular or plural sentence for ``n`` (the language's own rule); ``{n}`` is ``n``."""
    found = translations(locale or current()).ngettext(singular, plural, n)
    source = singular if n == 1 else plural
    return _fill(found, source, {"n": n, **_words(locale, params)})


def pgettext(locale: str | None, context: str, msgid: str, /, **params: Any) -> str:
    """``msgid`` in a context (``msgctxt``): the same English word may need two translations
    (a command's name and a word in a sentence)."""
    found = translations(locale or current()).pgettext(context, msgid)
    return _fill(found, msgid, _words(locale, params))


# ----- the current locale ---------------------------------------------------------------------


def current() -> str:
    """The locale set for this piece of work (``using``), else English."""
    return _current.get(DEFAULT)


def set_current(locale: str) -> contextvars.Token[str]:
    """Set the locale for the rest of this task (an interaction's handler)."""
    return _current.set(locale)


def pictures() -> str:
    """The locale of the pictures drawn for this piece of work (``set_pictures``), else
    English."""
    return _pictures.get(DEFAULT)


def set_pictures(locale: str) -> contextvars.Token[str]:
    """Draw this task's public pictures in ``locale`` (the server's language)."""
    return _pictures.set(locale)


@contextlib.contextmanager
def using(locale: str) -> Iterator[str]:
    """``with using("de"): ...``: the current locale for the block."""
    token = _current.set(locale)
    try:
        yield locale
    finally:
        _current.reset(token)


# ----- sentences handed over by the service --------------------------------------------------


def _words(locale: str | None, params: Mapping[str, Any]) -> dict[str, Any]:
    """Values that are ``Said``, translated into ``locale``."""
    return {k: render(locale, v) if isinstance(v, Said) else v for k, v in params.items()}


def render(locale: str | None, text: str) -> str:
    """``text`` in ``locale`` if it is ``Said``, else as it is (English from the service)."""
    if not isinstance(text, Said):
        return text
    if text.plural is not None:  # a count's sentence (``said_n``): the language's plural rule
        values = {k: v for k, v in text.params.items() if k != "n"}
        return ngettext(locale, text.msgid, text.plural, text.params["n"], **values)
    return gettext(locale, text.msgid, **text.params)


def render_all(locale: str | None, lines: Iterable[str]) -> list[str]:
    return [render(locale, line) for line in lines]


# ----- marking --------------------------------------------------------------------------------


def N_(msgid: str) -> str:  # noqa: N802 (the usual gettext name for "mark, translate later")
    """Mark ``msgid`` for the catalogue without translating it now (a module constant)."""
    return msgid


# ----- pictures -------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Speech:
    """The words of a picture in ``locale`` (``renderers.speech``: the renderers draw what
    it says, and keep their caches per ``locale``). It pickles (worker processes)."""

    locale: str = DEFAULT

    def __call__(self, text: str, /) -> str:
        return render(self.locale, text) if isinstance(text, Said) else str(text)
