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
        +-- StoreBusy        another process held the database past the busy timeout
        +-- StoreFull        the disk is full

On any ``ServiceError`` nothing stored has changed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from variants import Refusal


class ServiceError(Exception):
    """Base class. ``str(error)`` is a one-line message fit to show the user."""

    def __init__(self, message: str) -> None:
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
    def __init__(self, message: str = "The database is busy; try again in a moment.") -> None:
        super().__init__(message)


class StoreFull(StoreUnavailable):
    def __init__(
        self, message: str = "The database disk is full; nothing was saved. Try again later."
    ) -> None:
        super().__init__(message)
