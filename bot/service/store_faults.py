"""Store faults in the service's words (issue 24).

``translate_store_faults`` wraps every public command: no storage or driver error reaches
a caller, only ``ServiceError``s with a plain sentence (``service_error``).

A commit whose outcome is unknown is settled by asking the store again.

When the connection to PostgreSQL dies while a COMMIT is in flight, the store raises
``storage.CommitUnknownError``: the server may have stored the transaction just before the
connection went, or not. Answering "busy, nothing was saved" would then be a lie for the
ones that were stored (the issue saw three such moves in one server crash), and a blind
retry could apply a move twice. So the command asks again:

- it reconnects, with a short bounded backoff (``SETTLE_DELAYS``: about 6 seconds in all,
  long enough for a server to restart after a crash);
- in a new transaction, it first locks what the lost transaction had locked (the game row,
  or the request id's advisory lock), so that a COMMIT still running on the server's side
  has finished either way before anything is read: the answer is then final;
- it looks the command up by its request id (``action_by_request``, ``game_by_request``);
  without one, a log entry is found by its place in the log and its content (the same
  player, kind and text at that ``seq``: only that command could have written it), and a
  new game or an accepted challenge by the secret seed drawn for it;
- it answers truthfully: the normal ``Outcome`` if the command was stored; ``StoreLost``
  ("... was not played: ... Send it again.") if it was not.

If the store stays out of reach, ``OutcomeUnknown`` says so, and claims nothing. SQLite
never raises ``CommitUnknownError`` (``storage.sqlite_faults``).
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

from bot.i18n import said
from bot.service.errors import (
    NotFound,
    OutcomeUnknown,
    ServiceError,
    StoreBusy,
    StoreDamaged,
    StoreFault,
    StoreFull,
    StoreLost,
)
from storage import (
    ActionRow,
    CommitUnknownError,
    GameRow,
    NewAction,
    NotFoundError,
    Repository,
    StorageError,
    StoreBusyError,
    StoreFullError,
    StoreOpenError,
    StoreUnavailableError,
    WriteTx,
    as_storage_error,
)

if TYPE_CHECKING:
    from bot.service.results import Outcome

log = logging.getLogger(__name__)
T = TypeVar("T")
P = ParamSpec("P")

# Seconds to wait before each look (the first at once): 6.35 s in all.
SETTLE_DELAYS: tuple[float, ...] = (0.0, 0.05, 0.1, 0.2, 0.4, 0.8, 1.6, 3.2)

NOT_SAVED = "the connection to the database was lost before it was saved"


def not_done(what: str) -> str:
    """The "not played" answer: ``what`` was not done, and may be sent again."""
    return said(
        "{what}: the connection to the database was lost before it was saved. Send it again.",
        what=what,
    )


def service_error(error: BaseException) -> BaseException:
    """A storage error (or a driver's, through ``storage.as_storage_error``) as the
    service's own, with a plain sentence; anything else as it is."""
    error = as_storage_error(error)
    if isinstance(error, StoreBusyError):
        return StoreBusy()
    if isinstance(error, StoreFullError):
        return StoreFull()
    if isinstance(error, StoreUnavailableError):
        return StoreLost()
    if isinstance(error, StoreOpenError):  # damaged, or the tables do not match
        return StoreDamaged(str(error))
    if isinstance(error, CommitUnknownError):
        return OutcomeUnknown()
    if isinstance(error, NotFoundError):
        return NotFound(str(error))
    if isinstance(error, StorageError):
        return StoreFault(
            said("the database refused this ({error}); nothing was saved", error=str(error))
        )
    return error


def translate_store_faults(cls: type[T]) -> type[T]:
    """Wrap every public coroutine method of ``cls`` (and of its bases) so that no store
    or driver error reaches the caller: a busy or full database, a lost connection, a
    damaged file become ``StoreBusy``, ``StoreFull``, ``StoreLost``, ``StoreDamaged``:
    service errors with a plain message, like every other refusal. The store has rolled
    the transaction back by then, so nothing is half-applied and the same call can simply
    be retried; the one exception, a connection lost during COMMIT, is settled by the
    commands themselves (``bot.service.store_faults``) and otherwise reaches the caller as
    ``OutcomeUnknown``, which claims nothing."""

    def wrap(method: Callable[P, Awaitable[T]]) -> Callable[P, Awaitable[T]]:
        @functools.wraps(method)
        async def translated(*args: P.args, **kwargs: P.kwargs) -> T:
            try:
                return await method(*args, **kwargs)
            except ServiceError:
                raise
            except Exception as error:
                mapped = service_error(error)
                if mapped is error:
                    raise
                raise mapped from error

        translated.__store_faults__ = True  # type: ignore[attr-defined]
        return translated

    for klass in cls.__mro__:
        for name, member in list(vars(klass).items()):
            if name.startswith("_") or not asyncio.iscoroutinefunction(member):
                continue
            if getattr(getattr(cls, name), "__store_faults__", False):
                continue
            setattr(cls, name, wrap(getattr(cls, name)))
    return cls


class Settling:
    """Mixed into ``ServiceCore``: ``_settle`` and ``_settle_entry``."""

    repo: Repository
    settle_delays: tuple[float, ...] = SETTLE_DELAYS

    async def _settle(self, check: Callable[[WriteTx], Awaitable[T]]) -> T:
        """Ask the store what became of a write whose commit's outcome is unknown:
        ``check`` runs in a new transaction (retried, on a new connection, while the store
        cannot be reached) and returns the answer, or raises ``StoreLost`` for "not
        stored". It must first lock what the lost write locked (see the module)."""
        last: BaseException | None = None
        for delay in self.settle_delays:
            if delay:
                await asyncio.sleep(delay)
            answers: list[T] = []
            try:
                async with self.repo.write() as tx:
                    answers.append(await check(tx))
            except (StoreUnavailableError, CommitUnknownError) as error:
                if answers:  # read in full; only this read-only transaction's end failed
                    return answers[0]
                last = error
                continue
            return answers[0]
        log.warning("a commit's outcome could not be checked: %s", last)
        raise OutcomeUnknown() from last

    async def _settle_entry(
        self,
        entry: NewAction,
        lead: tuple[str, ...],
        what: str,
        *,
        render: bool = False,
        orientation: str | None = None,
    ) -> Outcome:
        """Settle a command that appended the log entry ``entry``: its normal ``Outcome``
        (beginning with ``lead``) if the entry is stored, else ``StoreLost`` saying that
        ``what`` (e.g. "Your move was not played") may be sent again."""
        core: Any = self

        async def check(tx: WriteTx) -> tuple[GameRow, Outcome]:
            row: GameRow = await core._reload(tx, entry.game_id)  # waits for the lost one's lock
            action = await stored_entry(tx, entry)
            if action is None:
                raise StoreLost(not_done(what))
            outcome = await core._stored_outcome(
                tx, row, action, render, orientation, lead, repeated=False
            )
            return row, outcome

        row, outcome = await self._settle(check)
        core._announce_row(row)
        return outcome

    async def _settle_logged(self, entry: NewAction, what: str) -> GameRow:
        """Settle a command that appended ``entry`` and whose answer is made from the game
        row alone (an abort): the row if the entry is stored, else ``StoreLost``."""
        core: Any = self

        async def check(tx: WriteTx) -> GameRow:
            row: GameRow = await core._reload(tx, entry.game_id)  # waits for the lost one's lock
            if await stored_entry(tx, entry) is None:
                raise StoreLost(not_done(what))
            return row

        return await self._settle(check)

    async def _settle_state(
        self, game_id: int, stored: Callable[[GameRow], bool], what: str
    ) -> GameRow:
        """Settle a command that changed the game ``game_id`` without a log entry (accept,
        cancel, decline): its row if ``stored(row)`` says the change is there, else
        ``StoreLost`` saying that ``what`` may be sent again."""
        core: Any = self

        async def check(tx: WriteTx) -> GameRow:
            row: GameRow = await core._reload(tx, game_id)  # waits for the lost one's lock
            if not stored(row):
                raise StoreLost(not_done(what))
            return row

        return await self._settle(check)

    async def _settle_new_game(self, request_id: str, what: str) -> GameRow:
        """Settle a command that created a game under ``request_id``: that game, or
        ``StoreLost`` saying that ``what`` may be sent again."""

        async def check(tx: WriteTx) -> GameRow:
            row = await tx.game_by_request(request_id)  # PostgreSQL: the request's lock first
            if row is None:
                raise StoreLost(not_done(what))
            return row

        return await self._settle(check)


async def stored_entry(tx: WriteTx, entry: NewAction) -> ActionRow | None:
    """The stored log entry that ``entry`` became, if it was stored: by its request id;
    without one, by its place in the log and its content (the same kind, player and
    text at that ``seq``; another command there means ours was not stored)."""
    if entry.request_id is not None:
        return await tx.action_by_request(entry.game_id, entry.request_id)
    found = await tx.actions(entry.game_id, after=entry.seq - 1)
    if not found:
        return None
    action = found[0]
    same = (action.seq, action.kind, action.actor_id, action.text) == (
        entry.seq,
        entry.kind,
        entry.actor_id,
        entry.text,
    )
    return action if same else None
