"""The errors the game service raises. Each message is one line, written for the user.

    ServiceError
    +-- InvalidInput         bad arguments: unknown variant, bad options or colour, empty or too long text
    |   +-- UnknownVariant
    +-- NotFound             no game with that id, or no game in this location
    +-- NotAllowed           authorization: not your turn, not a player, not the moderator, ...
    +-- InvalidState         the game is not in a state where that works
    |   +-- LocationBusy     one live game (challenge or active) per location
    |   +-- StaleAction      ``expected_ply`` no longer matches: someone acted first
    |   +-- SeedNotRevealed  verify asked for a game still in play
    |   +-- TooManyChallenges  the challenger has ``max_open_challenges`` open already
    |   +-- TimeUp           the side to act's time ran out (or the challenge expired);
    |                        the deadline scheduler ends it (``bot.service.deadlines``)
    +-- IllegalAction        the engine refused the notation; ``kind`` says why
    +-- RequestConflict      a request id reused for a different command
    +-- RenderUnavailable    the board image could not be drawn
    +-- CorruptGame          the stored log does not replay (an operator problem)
    +-- StoreUnavailable     the database could not do it now; retrying later works
    |   +-- StoreBusy        another process held the database past the busy timeout
    |   +-- StoreFull        the disk is full
    |   +-- StoreLost        the connection to the database was lost (or a disk read failed)
    +-- StoreDamaged         the database file is damaged, or its tables are not those its
    |                        version says: its operator must restore it
    +-- StoreFault           the database refused the change for another reason
    +-- OutcomeUnknown       the connection was lost while the change was being committed,
                             and the store could not be asked again: it may be saved

On any ``ServiceError`` but ``OutcomeUnknown`` nothing stored has changed. When a commit's
outcome is unknown, a command that has a request id (or, for a log entry, its place in the
log) asks the store again, on a new connection, and answers truthfully: the normal
``Outcome`` if it was stored, ``StoreLost`` ("... was not played ...") if it was not
(``bot.service.store_faults``). ``OutcomeUnknown`` is left only when the store stays out of
reach, or for a change that nothing identifies.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.i18n import Said, said

if TYPE_CHECKING:
    from variants import Refusal


class ServiceError(Exception):
    """Base class. ``str(error)`` is a one-line message fit to show the user."""

    def __init__(self, message: str) -> None:
        # a ``bot.i18n.Said`` message keeps its id and values: a front end may translate it
        self.said = message if isinstance(message, Said) else None
        message = " ".join(str(message).split())  # always one line
        super().__init__(message)
        self.message = message


class InvalidInput(ServiceError):
    pass


class UnknownVariant(InvalidInput):
    pass


class NotFound(ServiceError):
    pass


class NotAllowed(ServiceError):
    pass


class InvalidState(ServiceError):
    pass


class LocationBusy(InvalidState):
    def __init__(self, message: str, game_id: int) -> None:
        super().__init__(message)
        self.game_id = game_id


class StaleAction(InvalidState):
    pass


class SeedNotRevealed(InvalidState):
    pass


class TooManyChallenges(InvalidState):
    pass


class TimeUp(InvalidState):
    """The deadline has passed: the game ends on time (or the challenge has expired) as
    soon as the deadline scheduler gets to it; nothing else may change it meanwhile."""


class IllegalAction(ServiceError):
    """The engine refused the action. ``kind`` is 'syntax', 'illegal', 'ambiguous' or 'over'.

    ``refusal`` (contract C2) is the engine's ``variants.Refusal``: the cause code, the
    sentence naming the rule, and the closest legal actions. The message is the
    engine's, unchanged: the refusal, then what is legal now."""

    def __init__(self, message: str, kind: str = "illegal", refusal: Refusal | None = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.refusal = refusal


class RequestConflict(ServiceError):
    pass


class RenderUnavailable(ServiceError):
    pass


class CorruptGame(ServiceError):
    pass


class StoreUnavailable(ServiceError):
    """The database could not apply the command now; nothing was saved, and the same
    command can be sent again."""


class StoreBusy(StoreUnavailable):
    def __init__(self, message: str = said("The database is busy; try again in a moment.")) -> None:
        super().__init__(message)


class StoreFull(StoreUnavailable):
    def __init__(
        self,
        message: str = said("The database disk is full; nothing was saved. Try again later."),
    ) -> None:
        super().__init__(message)


class StoreLost(StoreUnavailable):
    def __init__(
        self,
        message: str = said(
            "The database could not be reached; nothing was saved. Try again in a moment."
        ),
    ) -> None:
        super().__init__(message)


class StoreDamaged(ServiceError):
    """The store's own line, e.g. "chessgarden.sqlite3 is damaged (database disk image is
    malformed): restore it from a backup". Retrying does not help."""


class StoreFault(ServiceError):
    """The database refused the change for a reason that is not the user's (a bug or a
    tampered store); nothing was saved."""


class OutcomeUnknown(ServiceError):
    def __init__(
        self,
        message: str = said(
            "The connection to the database was lost while this was being saved, and it "
            "could not be checked; look at the game before you try again."
        ),
    ) -> None:
        super().__init__(message)
