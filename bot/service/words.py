"""Words the service puts into its sentences (issue 27): a colour, a game's status, the
reason a game ended. Each is ``said(...)`` where the word is known, so that a front end
says it in the reader's language with the sentence around it (``bot.i18n``); a word the
service does not know (a variant's own reason, from the rules) is left as it is.
"""

from __future__ import annotations

import re

import variants
from bot.i18n import said


def colour_word(colour: str | None) -> str:
    """``white`` / ``black`` as a word inside a sentence (lower case)."""
    if colour == "white":
        return said("white")
    if colour == "black":
        return said("black")
    return str(colour)


def colour_name(colour: str | None) -> str:
    """``White`` / ``Black``: a colour that begins a sentence."""
    if colour == "white":
        return said("White")
    if colour == "black":
        return said("Black")
    return str(colour).capitalize()


def status_word(status: str) -> str:
    """A game's status (``storage.STATUSES``) as a word."""
    words = {
        "challenge": said("challenge"),
        "active": said("active"),
        "finished": said("finished"),
        "aborted": said("aborted"),
        "declined": said("declined"),
        "cancelled": said("cancelled"),
    }
    return words.get(status, status)


def tournament_status_word(status: str) -> str:
    """A tournament's status as a word."""
    words = {
        "registration": said("registration"),
        "running": said("running"),
        "finished": said("finished"),
        "cancelled": said("cancelled"),
    }
    return words.get(status, status)


def reason_word(reason: str | None) -> str:
    """Why a game ended, where the service chose the word (the rules' own reasons, such
    as a checkmate, come from the variant and are left as they are)."""
    words = {
        "agreement": said("agreement"),
        "resignation": said("resignation"),
        "aborted by a moderator": said("aborted by a moderator"),
        "challenge cancelled": said("challenge cancelled"),
        "game aborted": said("game aborted"),
        "cancelled by a moderator": said("cancelled by a moderator"),
        "fewer than two players had joined when it was due to start": said(
            "fewer than two players had joined when it was due to start"
        ),
        "timeout": said("timeout"),
        "timeout vs insufficient material": said("timeout vs insufficient material"),
    }
    found = words.get(reason or "")
    if found is not None:
        return found
    return stored_reason(reason or "")


# The reasons the service writes with facts in them, stored as English text (older records
# have them too): read back into sentences where they are shown (issue 27).
_EXPIRED = re.compile(r"expired: not accepted within (?:(1) hour|(\d+(?:\.\d+)?) hours)")
_WITHDRAWN = re.compile(r"withdrawn: (.*)", re.DOTALL)


def stored_reason(reason: str) -> str:
    """A stored reason with facts in it ("expired: not accepted within 48 hours",
    "withdrawn: <what the player typed>") as a sentence a front end can translate (what
    the player typed stays as typed); any other text as it is."""
    expired = _EXPIRED.fullmatch(reason)
    if expired is not None:
        hours = said("1 hour") if expired.group(1) else said("{n} hours", n=expired.group(2))
        return said("expired: not accepted within {hours}", hours=hours)
    withdrawn = _WITHDRAWN.fullmatch(reason)
    if withdrawn is not None:
        return said("withdrawn: {reason}", reason=withdrawn.group(1))
    return reason


def played_line(who: str, variant: str, text: str) -> str:
    """ "White played e4.": ``who`` (``colour_name``) and the action's recorded ``text``;
    pieces the rules then placed by themselves (Jepps Random's setup) are said apart, not
    credited to the player (``Variant.split_recorded``)."""
    try:
        chosen, forced = variants.rules(variant).split_recorded(text)
    except ValueError:  # a variant no longer registered: the text as it is
        chosen, forced = text, ()
    if forced:
        return said(
            "{colour} played {move}; placed by themselves: {placed}.",
            colour=who,
            move=chosen,
            placed=", ".join(forced),
        )
    return said("{colour} played {move}.", colour=who, move=chosen)
