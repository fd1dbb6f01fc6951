"""Words the service puts into its sentences (issue 27): a colour, a game's status, the
reason a game ended. Each is ``said(...)`` where the word is known, so that a front end
says it in the reader's language with the sentence around it (``bot.i18n``); a word the
service does not know (a variant's own reason, from the rules) is left as it is.
"""

from __future__ import annotations

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
    return words.get(reason or "", reason or "")
