"""Records: the text of a game, written and read back.

A record is headers (``[Variant "..."]``, ``[Options "..."]``, ...) then a body:
numbered moves (``1. e4 e5 2. Nf3``) with every roll in brackets (``[2 3]``) or
after a ``%`` (``Tb7%4``). A variant with a setup phase may write the setup as
lines before the first move number (Jepps Random: ``Na1, Bb1, ...`` with
``Mirror`` below). Reading it back:

- Brackets and ``%`` values are the rolls, in order; move numbers (``1.``,
  ``1...``, and ``i.`` ... ``viii.`` for a setup) and results are skipped, as
  are notes in parentheses (``(Rh1)``: placed by the rules themselves).
- In setup lines, items are separated by commas, and an item with no roll in
  front of it was placed by the rules themselves (a forced placement): it is
  part of the line, but not an action to replay.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any, NamedTuple

from .geometry import WHITE

ROMAN = ("i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix", "x", "xi", "xii")


class Token(NamedTuple):
    """One piece of the record body, in the order it happened (an immutable value; a
    tuple, which a game makes once per action)."""

    actor: int  # colour of the side that acted or rolled
    text: str  # '[2 3]' for a turn's roll; otherwise an action as recorded
    setup: bool = False  # made during a setup phase (Jepps Random)

    @property
    def is_roll(self) -> bool:
        return self.text.startswith("[")


def numbered(tokens: Sequence[Token], first: int = 1, labels: Sequence[str] = ()) -> list[str]:
    """Tokens with move numbers: White's action opens a number (``3.``), a first
    action by Black gets ``3...``. ``labels`` (e.g. roman numerals) replace the
    numbers while they last."""
    body: list[str] = []
    number = first - 1
    prev: int | None = None
    for tok in tokens:
        if (tok.actor == WHITE and prev != WHITE) or (tok.actor != WHITE and prev is None):
            number += 1
            index = number - first
            label = labels[index] if index < len(labels) else str(number)
            body.append(f"{label}." if tok.actor == WHITE else f"{label}...")
        body.append(tok.text)
        prev = tok.actor
    return body


_HEADER = re.compile(r'^\[(\w+)\s+"((?:[^"\\]|\\.)*)"\]\s*$')
_TOKEN = re.compile(r"\[\d+(?:\s+\d+)*\]|\d+\.(?:\.\.)?(?=\s|$)|\S+(?:\s+\{T\d\})?")
_NUMBER = re.compile(r"(?:\d+|[ivx]+)\.(?:\.\.)?")
_RESULTS = {"1-0", "0-1", "1/2-1/2", "*"}
_ROLLED = re.compile(r"%(\d+)")


_OPTION_WORD = re.compile(r"[a-z][a-z0-9_]*(?:=[A-Za-z0-9_.-]+)?")


def options_header(options: dict[str, Any]) -> str:
    """The options as players type them, for the record's ``[Options "..."]`` tag:
    ``{"free_play": True, "n": 3}`` -> ``free_play, n=3``. Options that words cannot
    carry (a value with a space, say) are written as JSON, which ``read_options`` also
    reads."""
    words = []
    for name, value in sorted(options.items()):
        if value is True:
            words.append(name)
        else:
            text = str(value).lower() if isinstance(value, bool) else str(value)
            words.append(f"{name}={text}")
    text = ", ".join(words)
    if all(_OPTION_WORD.fullmatch(w) for w in words) and read_options(text) == options:
        return text
    return json.dumps(options, sort_keys=True)


def read_options(text: str) -> dict[str, Any]:
    """The options an ``[Options "..."]`` tag holds: words (``free_play, n=3``; a bare
    name is true) or JSON (older records: ``{"free_play": true}``)."""
    text = text.strip()
    if not text or text.startswith("{"):
        loaded = json.loads(text or "{}")
        if not isinstance(loaded, dict):
            raise ValueError(f"cannot read the options {text!r}")
        return loaded
    options: dict[str, Any] = {}
    for word in text.replace(",", " ").split():
        name, sep, raw = word.partition("=")
        if not _OPTION_WORD.fullmatch(word):
            raise ValueError(f"cannot read the option {word!r}")
        options[name] = True if not sep else _option_value(raw)
    return options


def _option_value(raw: str) -> Any:
    if raw in ("true", "false"):
        return raw == "true"
    try:
        return int(raw)
    except ValueError:
        return raw


def parse_record(record: str) -> tuple[dict[str, str], list[str], list[int]]:
    """Headers, action texts, and every roll value in order."""
    if not isinstance(record, str):
        raise ValueError("a record is text")
    headers: dict[str, str] = {}
    body_lines = []
    for line in record.strip().splitlines():
        m = _HEADER.match(line.strip())
        if m:
            headers[m.group(1)] = json.loads(f'"{m.group(2)}"')
        elif line.strip():
            body_lines.append(line)
    if "Variant" not in headers:
        raise ValueError('a record starts with a [Variant "..."] header')
    if "Options" in headers:  # handed on as JSON, whichever way the record wrote them
        headers["Options"] = json.dumps(read_options(headers["Options"]), sort_keys=True)
    actions: list[str] = []
    rolls: list[int] = []
    in_setup_lines = True  # until the first move number
    rolled = False  # a roll came right before this token
    for raw in _TOKEN.findall(" ".join(body_lines)):
        tok = raw.rstrip(",")
        if tok.startswith("["):
            rolls += map(int, tok[1:-1].split())
            rolled = True
            continue
        if tok.endswith(".") and _NUMBER.fullmatch(tok):  # a move number ends with a dot
            in_setup_lines = False
        elif tok in _RESULTS or tok.startswith("(") or not tok:
            pass
        elif in_setup_lines and not rolled:
            pass  # a forced placement, made by the rules when the game replays
        else:
            if "%" in tok:
                rolls.extend(int(v) for v in _ROLLED.findall(tok))
            actions.append(tok)
        rolled = False
    return headers, actions, rolls


def squash(text: str) -> str:
    """An action as a replay compares it: automatic notes, rolls and the '%' marks
    dropped (the values are checked by the dice), spaces folded."""
    text = re.sub(r"\(\S*\)|\[[\d\s]*\]|%\d*", "", text)
    return re.sub(r"\s+", " ", text.strip())
