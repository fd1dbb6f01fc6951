"""Variant options as players type them, for every front end (no discord here).

``/play options:free_play, other=3`` and ``chessgarden play --option free_play
--option other=3`` read the same way. Whether a name is allowed is the variant's
business (``variants.rules(key).check_options``), not this module's.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


class OptionsError(ValueError):
    """The options text cannot be read. One line, for the user."""


_TRUE = {"true", "yes", "on", "1"}
_FALSE = {"false", "no", "off", "0"}


def parse_options(text: str | None) -> dict[str, Any]:
    """``"free_play"`` or ``"free_play=true, other=3"`` -> ``{"free_play": True, "other": 3}``.

    A bare name means true. Values are read as booleans, then whole numbers, then text.
    Items are separated by commas or spaces.
    """
    if not text or not text.strip():
        return {}
    return parse_option_args(text.replace(",", " ").replace(";", " ").split())


def parse_option_args(items: Iterable[str]) -> dict[str, Any]:
    """One option per item, ``name`` or ``name=value`` (``--option``, repeatable)."""
    options: dict[str, Any] = {}
    for item in items:
        name, sep, raw = item.strip().partition("=")
        name = name.strip().lower().replace("-", "_")
        if not name or not name.replace("_", "").isalnum():
            raise OptionsError(f"cannot read the option {item!r}; write name or name=value")
        if name in options:
            raise OptionsError(f"the option {name} is given twice")
        if not sep:
            options[name] = True
            continue
        options[name] = _value(name, raw.strip())
    return options


def _value(name: str, value: str) -> Any:
    if not value:
        raise OptionsError(f"the option {name} needs a value after '='")
    lowered = value.lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    try:
        return int(value)
    except ValueError:
        return value


def options_text(options: dict[str, Any]) -> str:
    """``{"free_play": True, "n": 3}`` -> ``free_play, n=3``; ``none`` when empty."""
    if not options:
        return "none"
    return ", ".join(
        name
        if value is True
        else f"{name}={str(value).lower() if isinstance(value, bool) else value}"
        for name, value in sorted(options.items())
    )
