"""Why the bot cannot post a game's messages, stored as a code and said in the reader's
language (issue 27).

The delivery worker (``bot.discord.delivery``) keeps a permanent refusal with its outbox
row; ``/games`` and ``/board`` show it to the server's people. It is stored as a code and
its values (``failure_record``: JSON such as ``{"code": "missing_permissions"}``), with
what Discord itself said (its message and error code) kept as data, as Discord wrote it.
``failure_words`` says a stored refusal as ``Said``, so that each reader sees it in their
language. Rows stored before this hold English text: they are shown as stored.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from bot.i18n import said
from variants.sentence import word

# Discord's error codes that no retry changes, and the code each is stored under.
DISCORD_CODES = {
    10003: "unknown_channel",
    50001: "missing_access",
    50013: "missing_permissions",
    50083: "thread_archived",
    10004: "unknown_guild",
}

Values = Mapping[str, Any]

# Each code's words; a value named in a sentence is the stored one.
FAILURE_WORDS: dict[str, Callable[[Values], str]] = {
    "unknown_channel": lambda v: said("the channel no longer exists (Unknown Channel)"),
    "missing_access": lambda v: said("the bot cannot see the channel (Missing Access)"),
    "missing_permissions": lambda v: said("the bot lacks a permission there (Missing Permissions)"),
    "thread_archived": lambda v: said("the thread is archived and cannot be reopened"),
    "unknown_guild": lambda v: said("the bot is no longer in that server (Unknown Guild)"),
    "refused_here": lambda v: said(
        "Discord refused it: {discord} (code {code})", discord=v["discord"], code=v["error"]
    ),
    "refused": lambda v: said(
        "Discord refused the message: {discord} (code {code})",
        discord=v["discord"],
        code=v["error"],
    ),
    "message_deleted": lambda v: said("the message to edit was deleted (Unknown Message)"),
    "unknown_kind": lambda v: said("unknown outbox row kind '{kind}'", kind=v["kind"]),
    "not_a_tournament_game": lambda v: said(
        "game {game} is not a tournament's game", game=v["game"]
    ),
    "thread_channel_gone": lambda v: said("cannot make the game's thread: the channel is gone"),
    "no_thread_no_channel": lambda v: said(
        "cannot make the game's thread ({refused}), and the tournament's channel already "
        "has a game",
        # the cause as the adapter said it in English: a catalogued sentence, said again
        refused=word(str(v["refused"])),
    ),
}


def failure_record(code: str, **values: str | int) -> str:
    """A refusal as the outbox row keeps it: its code and values, as JSON (Discord's own
    error code is the value ``error``)."""
    if code not in FAILURE_WORDS or "code" in values:
        raise ValueError(f"unknown delivery failure code {code!r}, or a value named code")
    return json.dumps({"code": code, **values}, sort_keys=True, ensure_ascii=False)


def failure_words(stored: str) -> str:
    """A stored refusal in words (``Said``: the reader's language at display); text
    stored before codes (English), or a record this version cannot read, as stored."""
    try:
        data = json.loads(stored)
    except ValueError:
        return stored
    if not isinstance(data, dict):
        return stored
    words = FAILURE_WORDS.get(str(data.get("code")))
    if words is None:
        return stored
    try:
        return words(data)
    except KeyError:  # a value missing from the record: say what is stored
        return stored
