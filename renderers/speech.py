"""The words a picture draws, in the reader's language (issue 27).

The rules say their words as ``Said`` (``variants/sentence.py``): an English ``str`` that
carries its message id and values. A picture draws the words it is given through a
``Speech``: an object with the ``locale`` it speaks (the render caches are kept per
locale) that turns a ``Said`` (or a word marked with ``N_``, made ``Said`` with
``word``) into that language. The catalogues are the front end's (``bot.i18n.Speech``);
the renderers, which know only the rules, take one from the caller and draw English
without one (``ENGLISH``), exactly as before.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


class Speech(Protocol):
    """Says a ``Said`` sentence (or a plain English ``str``) in ``locale``."""

    @property
    def locale(self) -> str: ...

    def __call__(self, text: str, /) -> str: ...


@dataclass(frozen=True)
class English:
    """The rules' own words, as they are."""

    locale: str = "en"

    def __call__(self, text: str, /) -> str:
        return str(text)


ENGLISH = English()


def is_english(speech: Speech) -> bool:
    return speech.locale == ENGLISH.locale
