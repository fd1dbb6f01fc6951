"""Sentences a front end may say in another language (issue 27): ``Said``.

The rules speak English: every refusal, status line and result is an English sentence,
and the console, the records and the tests read them as such. A sentence built with
``said("a {piece} on {square} cannot reach {dest}", piece=..., square=..., dest=...)`` is
that English ``str`` too, and also carries its message id (the English with its
``{names}``) and its values, so that a front end with message catalogues
(``bot/i18n.py``) can say it in the reader's language. A value that is itself ``Said``
(a piece's name, a colour, a clause) is translated there too.

Standard library only (the rules' layer): the catalogues and the translating are in
``bot/i18n.py``, which re-exports ``Said`` and ``said``.

- ``said("...", name=value)``: a whole sentence (or clause) with named values. The
  catalogue tool (``python -m bot.discord.catalogue``) extracts its literal first argument.
- ``N_("Knight")``: marks a word written as data (a piece's name, a variant's title) for
  the catalogue, and returns it unchanged; ``word(name)`` then makes it ``Said`` where a
  sentence uses it.

Sentences are built only where they are said (a refusal, a status), never while moves
are generated.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any


class Said(str):
    """An English sentence (the ``str`` itself) that also carries its message id and
    values, so that it can be said in another language."""

    msgid: str
    params: dict[str, Any]
    plural: str | None = None  # a count's sentence (``said_n``): the plural's message id

    def __new__(cls, msgid: str, params: Mapping[str, Any] | None = None) -> Said:
        values = dict(params) if params else {}
        # each value as ``format`` writes it: a str (a Said too) as it is, a number as str()
        made = super().__new__(cls, msgid.format_map(values) if values else msgid)
        made.msgid = msgid
        made.params = values
        return made

    def __reduce__(self) -> tuple[Any, ...]:  # pickled as itself (worker processes)
        if self.plural is not None:
            n = self.params["n"]
            rest = {k: v for k, v in self.params.items() if k != "n"}
            return (_said_n_again, (self.msgid, self.plural, n, rest))
        return (Said, (self.msgid, self.params))


def said(msgid: str, /, **params: Any) -> Said:
    """Mark a sentence for the catalogue and keep its values."""
    # as ``Said(msgid, params)``, without copying the fresh ``params`` (a status builds a
    # dozen of these for every position it describes)
    made = str.__new__(Said, msgid.format_map(params) if params else msgid)
    made.msgid = msgid
    made.params = params
    return made


def said_n(singular: str, plural: str, n: int, /, **params: Any) -> Said:
    """A sentence about ``n`` things ("{n} boards"): the English singular for 1 and the
    plural otherwise, and in another language that language's own plural rule (the
    catalogue's ``msgid_plural``). ``{n}`` is ``n``."""
    values = {"n": n, **params}
    made = str.__new__(Said, (singular if n == 1 else plural).format_map(values))
    made.msgid = singular
    made.plural = plural
    made.params = values
    return made


def _said_n_again(singular: str, plural: str, n: int, params: dict[str, Any]) -> Said:
    return said_n(singular, plural, n, **params)


def N_(msgid: str) -> str:  # noqa: N802 (the usual gettext name for "mark, translate later")
    """Mark ``msgid`` (a word written as data) for the catalogue; it is returned as is."""
    return msgid


def word(text: str) -> Said:
    """A word marked where it was written (``N_``), as ``Said``: 'Knight', 'White'."""
    if isinstance(text, Said):
        return text
    found = _WORDS.get(text)
    if found is None:
        found = _WORDS[text] = Said(text)
    return found


# The words made so far (a handful: pieces, sides, titles), each made once: a word has no
# values, so one ``Said`` serves every sentence that uses it.
_WORDS: dict[str, Said] = {}


def sentences(text: object) -> Iterable[Said]:
    """``text`` and every ``Said`` value inside it, depth first (for tests and tools)."""
    if isinstance(text, Said):
        yield text
        for value in text.params.values():
            yield from sentences(value)
