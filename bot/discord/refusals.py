"""What a failed request to Discord means for a message the bot owes (issue 24): a
``Transient`` failure is tried again later, a ``Permanent`` refusal is kept with its
reason. The outbox worker (``bot.discord.delivery``) and the commands that post an owed
message themselves (``bot.discord.analysis``) classify errors here, with ``classify``.
"""

from __future__ import annotations

import asyncio
from contextlib import suppress
from typing import Any

import aiohttp
import discord

from bot.service.failure_words import DISCORD_CODES, failure_record, failure_words

# Discord's refusals that no retry changes, and the codes they are stored under (said in
# the reader's language where they are shown: ``bot.service.failure_words``).
PERMANENT = DISCORD_CODES


class Transient(Exception):
    """A try that may work later: ``after_s`` at the earliest. ``label``: its kind, for
    the metrics (``429``, ``5xx``, ``timeout``, ``connection``, ``other``)."""

    def __init__(self, reason: str, after_s: float | None = None, label: str = "other") -> None:
        super().__init__(reason)
        self.after_s = after_s
        self.label = label


class Permanent(Exception):
    """A refusal no retry changes: the row is kept as failed with this reason, stored as
    its ``code`` and values (``stored``; ``bot.service.failure_words``) and said in each
    reader's language where it is shown; ``str()`` is its English, for the log."""

    label = "refused"

    def __init__(self, code: str, /, **values: str | int) -> None:
        self.code = code
        self.values = values
        self.stored = failure_record(code, **values)
        super().__init__(str(failure_words(self.stored)))


def classify(error: BaseException) -> Transient | Permanent:
    """What a failed request means for its row (see the module)."""
    if isinstance(error, discord.RateLimited):
        return Transient("rate limited (429)", error.retry_after, "429")
    if isinstance(error, discord.HTTPException):
        status, code = error.status, error.code
        # Discord's own words, kept as data (short: the stored record stays whole)
        said = f"{error.status} {error.text or error.response.reason}".strip()[:300]
        if status == 429:
            retry = _retry_after(error)
            return Transient(f"rate limited (429): {said}", retry, "429")
        if status >= 500:
            return Transient(f"Discord failed ({said})", label="5xx")
        if code in PERMANENT:
            return Permanent(PERMANENT[code])
        if status in (403, 404):
            return Permanent("refused_here", discord=said, error=code)
        return Permanent("refused", discord=said, error=code)
    if isinstance(error, asyncio.TimeoutError | TimeoutError):
        return Transient("no answer from Discord in time", label="timeout")
    if isinstance(error, aiohttp.ClientError | OSError):
        return Transient(f"connection failed ({type(error).__name__}: {error})", label="connection")
    return Transient(f"{type(error).__name__}: {error}")


def _retry_after(error: discord.HTTPException) -> float | None:
    response: Any = error.response
    for header in ("Retry-After", "X-RateLimit-Reset-After"):
        value = getattr(response, "headers", {}).get(header) if response is not None else None
        if value:
            with suppress(ValueError):
                return float(value)
    return None
