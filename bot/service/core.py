"""Internals of ``GameService``: input checks, locks, the engine-state cache, lookups,
visibility, store faults, messages and drawing. The public commands are in
``bot.service.service`` and ``bot.service.looking``; work off the event loop (threads
and processes, and why) in ``bot.service.workers``.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import random
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from typing import Any, ParamSpec, Self, TypeVar

import variants
from bot import i18n
from bot.i18n import N_, said
from bot.service.access import Viewer, can_see, hidden
from bot.service.clock import DEFAULT_CHALLENGE_HOURS, Clock, store_clock
from bot.service.errors import (
    InvalidInput,
    InvalidState,
    LocationBusy,
    NotAllowed,
    NotFound,
    RequestConflict,
    ServiceError,
    StaleAction,
    UnknownVariant,
)
from bot.service.gcpolicy import GcPolicy
from bot.service.live import (
    DiceRenderer,
    Live,
    Renderer,
    board_picture,
    catch_up,
    dice_text,
    legal_actions,
    make_view,
    paint_board,
    rebuild,
    render_board,
    render_dice,
    result_text,
)
from bot.service.painter import Painter, warm_pictures
from bot.service.rating_log import rate_finished, rating_changes_of, rating_lines
from bot.service.results import GameView, Outcome, RatingChange
from bot.service.snapshots import SNAPSHOT_EVERY, NotThisTime, restore, take
from bot.service.stats import ActionStats
from bot.service.store_faults import Settling
from bot.service.timekeeping import Timekeeping
from bot.service.words import colour_name, colour_word, reason_word, status_word
from bot.service.workers import (
    Shown,
    Workers,
    board_failure,
    dice_or_none,
    paint_or_failure,
    show,
    warm_drawings,
)
from storage import (
    ActionKind,
    ActionRow,
    Colour,
    CommitUnknownError,
    ConflictError,
    GameChanges,
    GameQuery,
    GameRow,
    NewAction,
    NewPost,
    Repository,
    Shards,
    SnapshotRow,
    WriteTx,
    open_repository,
)
from storage.sqlite import CHECKPOINT_EVERY
from variants.dice import new_secret_seed
from variants.sentence import word

MAX_TEXT = 200
MAX_REQUEST_ID = 200
COLOURS: tuple[Colour, Colour] = ("white", "black")
CATCH_UP_INLINE = 4  # log entries replayed on the loop; more go to a worker thread
VERIFIED_KEPT = 512  # finished games whose verification is kept in memory
SNAPSHOT_FLUSH_DELAY = 0.5  # seconds: snapshots due meanwhile are written in one transaction
WARM_GAP_WAIT = 0.2  # seconds the warm-up waits, per game, for a moment when no one acts
WARM_GAP_POLL = 0.002
# Seconds without a player's action before the warm-up starts a game (the tail of a
# request, its answer sent after the game's lock is released, goes first too).
WARM_QUIET = 0.02
DRAWING_WAIT = 60.0  # seconds the bot waits at most for the warm-up's drawings
# True in the warm-up and in the tasks it starts (their snapshots): their work off the
# loop goes to the background thread, never to the threads that serve players.
_IN_BACKGROUND: ContextVar[bool] = ContextVar("chessgarden_in_background", default=False)


@contextmanager
def in_background() -> Iterator[None]:
    """Work inside is not a player's: what it computes off the loop goes to the background
    thread (``GameService._cpu``), and it does not hold the warm-up back as a player's
    request does (the warm-up, a web page reading a kept analysis)."""
    token = _IN_BACKGROUND.set(True)
    try:
        yield
    finally:
        _IN_BACKGROUND.reset(token)


log = logging.getLogger(__name__)
# The computer opponent's player id (issue 14): no platform user has it (Discord ids are
# snowflakes far above it; the console's players are 1 and 2).
COMPUTER_ID = 3
COMPUTER_NAME = said("the computer")  # a word: a front end says it in the reader's language
CONSOLE_IDS = (1, 2)  # the console's white and black players (bot.console.session)
# Ids that name no person on any platform: never mentioned, never pinged.
RESERVED_IDS = frozenset((*CONSOLE_IDS, COMPUTER_ID))


def is_person(user_id: int | None) -> bool:
    """Whether ``user_id`` is a platform user: not nobody, the computer or a console seat."""
    return user_id is not None and user_id not in RESERVED_IDS


P = ParamSpec("P")
T = TypeVar("T")


def _existing(row: GameRow | None, game_id: int) -> GameRow:
    """``row``, read inside a transaction; the game must exist."""
    if row is None:
        raise NotFound(said("there is no game {game}", game=game_id))
    return row


def other_colour(colour: str) -> str:
    return "black" if colour == "white" else "white"


# What ``check_id`` may name, marked for the catalogue here once (a call names one of them,
# as a literal: a test reads every call), so that its refusal is said whole in the
# reader's language.
ID_NAMES = frozenset(
    {
        N_("a channel id"),
        N_("a game id"),
        N_("the challenger id"),
        N_("the channel id"),
        N_("the expected ply"),
        N_("the game id"),
        N_("the guild id"),
        N_("the limit"),
        N_("the location id"),
        N_("the message id"),
        N_("the opponent id"),
        N_("the outbox row"),
        N_("the player id"),
        N_("the role id"),
        N_("the round"),
        N_("the server id"),
        N_("the tournament id"),
        N_("the user id"),
    }
)


def check_id(value: Any, what: str) -> int:
    """``value`` as an id (a whole number in 64 bits), else ``InvalidInput`` naming
    ``what`` (one of ``ID_NAMES``)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidInput(said("{what} must be a whole number", what=word(what)))
    if not -(2**63) <= value < 2**63:
        raise InvalidInput(said("{what} is out of range", what=word(what)))
    return value


def check_variant(variant: Any) -> str:
    """A variant key, or ``UnknownVariant`` naming the keys there are."""
    if variant not in variants.names():
        raise UnknownVariant(
            said(
                "unknown variant {variant}; choose one of: {variants}",
                variant=repr(str(variant)[:40]),
                variants=", ".join(variants.names()),
            )
        )
    return str(variant)


def clean_request(request_id: Any) -> str | None:
    if request_id is None:
        return None
    if not isinstance(request_id, str | int) or isinstance(request_id, bool):
        raise InvalidInput(said("a request id must be text or a number"))
    text = str(request_id)
    if not text or len(text) > MAX_REQUEST_ID:
        raise InvalidInput(said("a request id must be 1 to {n} characters", n=MAX_REQUEST_ID))
    return text


def clean_text(text: Any) -> str:
    if not isinstance(text, str):
        raise InvalidInput(said("an action must be text in the variant's notation"))
    cleaned = " ".join(text.split())
    if not cleaned:
        raise InvalidInput(
            said("type an action in notation, e.g. e4 or Nf3 (or reroll, pass, roll)")
        )
    if len(cleaned) > MAX_TEXT:
        raise InvalidInput(
            said(
                "that action is too long ({length} characters; at most {n})",
                length=len(cleaned),
                n=MAX_TEXT,
            )
        )
    if any(not ch.isprintable() for ch in cleaned):
        raise InvalidInput(said("an action may not contain control characters"))
    return cleaned


@dataclass
class _Lock:
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    users: int = 0


@dataclass
class Step:
    """What a player command does to a game, decided inside the transaction."""

    kind: ActionKind
    text: str
    changes: GameChanges
    messages: list[str]
    end: tuple[str | None, str] | None = None  # engine result to set, if the game ends


class ServiceCore(Settling, Timekeeping):
    """State and internals shared by the commands: locks, cache, lookups, messages."""

    # The Discord bot sets it (issue 24): a person's board is an outbox row held this
    # long while their interaction's answer carries it (``Outcome.owed``).
    hold_boards_ms: int | None = None
    # The theme of a game's boards, from its challenger's preferences (issue 27; set by
    # ``GameService``); ``None``: every board is drawn in the classic theme.
    board_theme: Callable[[int | None], Awaitable[str | None]] | None = None
    # The side at the bottom of a game's public boards, from its challenger's preferences
    # (issue 27: "white", or None for the side to act); ``None``: the side to act.
    board_orientation: Callable[[int | None], Awaitable[str | None]] | None = None

    def __init__(
        self,
        repository: Repository,
        *,
        renderer: Renderer | None = render_board,
        dice_renderer: DiceRenderer | None = render_dice,
        label: Callable[[int], str] | None = None,
        rng: random.Random | None = None,
        seed_factory: Callable[[], str] = new_secret_seed,
        cache_size: int = 4096,
        max_open_challenges: int = 3,
        cpu_workers: int = 2,
        clock: Clock | None = None,
        challenge_hours: float = DEFAULT_CHALLENGE_HOURS,
        snapshots: bool = True,
        shards: Shards | None = None,
    ) -> None:
        if isinstance(max_open_challenges, bool) or not isinstance(max_open_challenges, int):
            raise ValueError("max_open_challenges must be a whole number")
        if max_open_challenges < 1:
            raise ValueError("max_open_challenges must be at least 1")
        self.repo = repository
        self._renderer = renderer
        self._dice_renderer = dice_renderer
        named = label or (lambda uid: f"player {uid}")
        self._label: Callable[[int], str] = lambda uid: (
            COMPUTER_NAME if uid == COMPUTER_ID else named(uid)
        )
        self._rng = rng or random.SystemRandom()
        self._seed_factory = seed_factory
        self._cache: OrderedDict[int, Live] = OrderedDict()
        self._cache_size = cache_size
        self._game_locks: dict[int, _Lock] = {}
        self._location_locks: dict[int, _Lock] = {}
        self._owns_repository = False
        self.max_open_challenges = max_open_challenges
        # Discord shards this process runs (issue 16): its deadline scheduler handles only
        # the games of their guilds; None: every game (one process, or the CLI).
        self.shards = shards
        self._workers = Workers(cpu_workers)
        # Players' boards and dice, once the warm-up has started it (issue 26; see
        # ``bot.service.painter``): only for the service's own renderers.
        self._painter = Painter()
        self._paints = renderer is render_board and dice_renderer in (render_dice, None)
        self.stats = ActionStats()  # moves and their durations (bot.discord.metrics reads them)
        self._init_time(clock, challenge_hours)
        # Snapshots (issue 12): a rebuild replays only the log after the latest one.
        self.snapshots = snapshots
        self._snapshotting: set[int] = set()
        self._unwritten: dict[int, SnapshotRow] = {}
        self._flusher: asyncio.Task[None] | None = None
        self._background: set[asyncio.Task[Any]] = set()
        self.gc_policy: GcPolicy | None = None
        self.warming: asyncio.Task[list[int]] | None = None
        self._drawn: asyncio.Event | None = None  # set once the warm-up's drawings are done
        self._served_at = float("-inf")  # (loop time) when a player's lock was last released
        # The outbox (issue 24, bot.service.outbox): transactions that owed a post, and
        # who is told once they commit.
        self._owed_in: set[int] = set()
        self._outbox_listeners: list[Callable[[], None]] = []
        # Components told of each game row a command committed (the computer, issue 25).
        self._row_listeners: list[Callable[[GameRow], None]] = []

    @classmethod
    async def open(
        cls,
        db: str | os.PathLike[str] | None = None,
        *,
        busy_timeout_ms: int | None = None,
        checkpoint_every: float | None = CHECKPOINT_EVERY,
        **kwargs: Any,
    ) -> Self:
        """Open the store ``db`` names (or ``$CHESSGARDEN_DB`` / the default) and serve it:
        a ``postgresql://`` URL opens PostgreSQL, a path SQLite.

        Raises ``storage.StoreOpenError`` (one line: the file and the cause) if it cannot.
        ``checkpoint_every``: seconds between the store's background checkpoints
        (``None``: SQLite's own, inside commits; see ``storage.sqlite``)."""
        store: dict[str, Any] = {"checkpoint_every": checkpoint_every}
        if busy_timeout_ms is not None:
            store["busy_timeout_ms"] = busy_timeout_ms
        if kwargs.get("clock") is not None:  # log entries are stamped on the same clock
            store["clock"] = store_clock(kwargs["clock"])
        repository = await open_repository(db, **store)
        try:
            service = cls(repository, **kwargs)
        except BaseException:
            await repository.close()
            raise
        service._owns_repository = True
        return service

    async def close(self) -> None:
        for task in list(self._background):
            task.cancel()
        if self._background:
            await asyncio.gather(*self._background, return_exceptions=True)
        await self._flush_snapshots()
        if self.gc_policy is not None:
            await self.gc_policy.stop()
        await self._painter.close()
        self._workers.close()
        if self._owns_repository:
            await self.repo.close()

    def _spawn(self, work: Awaitable[T]) -> asyncio.Task[T]:
        """A background task the service waits for (or cancels) when it closes."""
        task: asyncio.Task[T] = asyncio.ensure_future(work)
        self._background.add(task)
        task.add_done_callback(self._background.discard)
        return task

    async def _cpu(self, function: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """Rebuilds, legal lists, images: in a worker thread (see ``bot.service.workers``);
        the warm-up's on the background thread, so that players never wait behind it."""
        if _IN_BACKGROUND.get():
            return await self._workers.background(function, *args, **kwargs)
        return await self._workers.thread(function, *args, **kwargs)

    async def _in_process(self, function: Callable[..., T], *args: Any) -> T:
        """Verification: in a worker process (see ``bot.service.workers``)."""
        return await self._workers.process(function, *args)

    # ----- transactions and locks -------------------------------------------

    @asynccontextmanager
    async def _write(self, *, durable: bool = True) -> AsyncIterator[WriteTx]:
        if self.gc_policy is not None:
            self.gc_policy.note_activity()
        written: int | None = None  # the transaction, to know whether it owed a post
        try:
            async with self.repo.write(durable=durable) as tx:
                written = id(tx)
                yield tx
        except ConflictError as error:
            if error.what == "location":
                raise InvalidState(said("there is already a game or challenge here")) from error
            raise StaleAction(
                said("someone else acted on this game at the same moment; look again")
            ) from error
        finally:
            owed = written in self._owed_in
            self._owed_in.discard(written or 0)
        if owed:  # committed: the delivery worker may take it now
            self._owed_committed()

    # ----- the outbox (issue 24; delivery in bot.service.outbox) -------------

    async def _owe(
        self,
        tx: WriteTx,
        row: GameRow,
        kind: str,
        *,
        payload: dict[str, Any] | None = None,
        delay_ms: int = 0,
    ) -> int | None:
        """Owe the post ``kind`` about ``row`` (as it stands in ``tx``: its log length is
        the moment the post describes) in the game's channel, in ``tx``: it is owed if and
        only if the action commits. Its outbox row id; ``None`` for a game outside a server
        (the console's): there is no channel to post in."""
        if row.guild_id is None:
            return None
        post = NewPost(
            channel_id=row.location_id,
            kind=kind,
            game_id=row.id,
            guild_id=row.guild_id,
            seq=row.log_count,
            payload=payload or {},
            delay_ms=delay_ms,
        )
        owed = await tx.owe(post, self._now_ms())
        if delay_ms <= 0:
            self._owed_in.add(id(tx))
        return owed

    async def _owe_board(
        self, tx: WriteTx, row: GameRow, actor_id: int, kind: str = "move"
    ) -> int | None:
        """The board after ``actor_id``'s entry, owed to the game's channel. The computer's
        (a move, a draw it accepted) is delivered at once: no interaction of the player
        carries it. A person's is held for ``hold_boards_ms`` while their interaction's
        answer carries it (see ``Outcome.owed``); without a hold (the console), none."""
        if actor_id == COMPUTER_ID:
            if kind in ("move", "draw_accept"):
                await self._owe(tx, row, "board", payload={"actor": actor_id})
            return None
        if self.hold_boards_ms is None:
            return None
        return await self._owe(
            tx, row, "board", payload={"actor": actor_id}, delay_ms=self.hold_boards_ms
        )

    def add_outbox_listener(self, listener: Callable[[], None]) -> None:
        """``listener()`` runs after each commit that owed a post (a delivery worker wakes)."""
        self._outbox_listeners.append(listener)

    def remove_outbox_listener(self, listener: Callable[[], None]) -> None:
        if listener in self._outbox_listeners:
            self._outbox_listeners.remove(listener)

    def _owed_committed(self) -> None:
        for listener in list(self._outbox_listeners):
            try:
                listener()
            except Exception:
                log.exception("an outbox listener failed")

    def add_row_listener(self, listener: Callable[[GameRow], None]) -> None:
        """``listener(row)`` after each commit that changed a game (a component's hook:
        the computer wakes when it is to act)."""
        self._row_listeners.append(listener)

    def _announce_row(self, row: GameRow) -> None:
        super()._announce_row(row)  # when the game is next due
        for listener in list(self._row_listeners):
            listener(row)

    @asynccontextmanager
    async def _lock(self, table: dict[int, _Lock], key: int) -> AsyncIterator[None]:
        """Hold the lock for ``key``; the entry is dropped when nobody holds or awaits it."""
        entry = table.get(key)
        if entry is None:
            entry = table[key] = _Lock()
        entry.users += 1
        try:
            async with entry.lock:
                yield
        finally:
            entry.users -= 1
            if entry.users == 0 and table.get(key) is entry:
                del table[key]
            if not _IN_BACKGROUND.get():  # a player was served: the warm-up waits
                self._served_at = asyncio.get_running_loop().time()

    # ----- finding a game ---------------------------------------------------

    async def _find(
        self,
        location_id: int | None,
        game_id: int | None,
        *,
        live_only: bool,
        viewer: Viewer | None = None,
        request_id: str | None = None,
    ) -> GameRow:
        """The game named by id or by location, if ``viewer`` may see it (C3).

        With a viewer, a game that exists but is not visible gets the same ``NotFound``
        as one that does not exist: "there is no game N here". ``live_only`` with a
        ``request_id``: also the location's last game if that request is its last entry
        (the action ended it: a retry gets the answer it had, not "no game here")."""
        if viewer is not None and not isinstance(viewer, Viewer):
            raise InvalidInput(said("viewer must be a bot.service.Viewer"))
        if (location_id is None) == (game_id is None):
            raise InvalidInput(said("name one game: by its location or by its id"))
        if game_id is not None:
            wanted = check_id(game_id, "the game id")
            row = await self.repo.get_game(wanted)
            if row is not None and can_see(row, viewer):
                return row
            raise (
                hidden(wanted)
                if viewer is not None
                else NotFound(said("there is no game {game}", game=wanted))
            )
        location = check_id(location_id, "the location id")
        row = await self.repo.live_game_at(location)
        if row is None and (not live_only or request_id is not None):
            recent = await self.repo.list_games(GameQuery(location_id=location, limit=1))
            row = recent[0] if recent else None
            if row is not None and live_only and not await self._ended_by(row, request_id):
                row = None
        if row is None or not can_see(row, viewer):
            raise hidden(None)
        return row

    async def _ended_by(self, row: GameRow, request_id: str | None) -> bool:
        """``request_id`` is the last entry of the ended game ``row``."""
        if request_id is None or row.log_count < 1:
            return False
        last = await self.repo.actions(row.id, after=row.log_count - 1)
        return any(entry.request_id == request_id for entry in last)

    async def _reload(self, tx: WriteTx, game_id: int) -> GameRow:
        return _existing(await tx.get_game(game_id), game_id)

    # ----- the engine state -------------------------------------------------

    async def _live_in(self, tx: WriteTx, row: GameRow) -> Live:
        """The engine state of a started game, checked against the log inside the transaction."""
        live = await self._fresh(tx, row, remember=True)
        if live is None:
            raise self._not_started(row)
        return live

    async def _preload(self, row: GameRow) -> None:
        """Before an action's write transaction, under the game's lock: a game that is not
        in the cache is rebuilt now, from the reader, so that the store's single writer is
        never held while a game is rebuilt (issue 12: with more live games than the cache
        holds, every miss used to stall every other game's action). Inside the transaction
        the cached state is then checked against the log as always; a failure here is left
        for that check to report."""
        if row.seed is None or row.status != "active" or row.id in self._cache:
            return
        try:
            current = await self.repo.get_game(row.id)
            if current is not None and current.status == "active":
                await self._fresh(self.repo, current, remember=True)
        except Exception as error:  # the transaction rebuilds it, or says what is wrong
            log.debug("game %s not preloaded: %s", row.id, error)

    async def _live_read(self, row: GameRow) -> Live | None:
        """The engine state for looking; ``None`` for a game that never started."""
        return await self._fresh(self.repo, row, remember=row.is_live)

    @staticmethod
    def _not_started(row: GameRow) -> InvalidState:
        if row.status == "challenge":
            return InvalidState(
                said(
                    "game {game} has not started: the challenge is waiting, and its dice "
                    "are drawn when it is accepted",
                    game=row.id,
                )
            )
        return InvalidState(
            said(
                "game {game} never started ({status}): it has no board",
                game=row.id,
                status=status_word(row.status),
            )
        )

    async def _fresh(
        self, source: WriteTx | Repository, row: GameRow, *, remember: bool
    ) -> Live | None:
        """The cached engine state if it matches the log, caught up or rebuilt if not;
        ``None`` for a game without a seed (a challenge: no engine game exists yet).

        Another process sharing the file may have appended entries: those are
        replayed onto the cached game (whose dice continue from the same seed), and
        anything unexpected falls back to a full rebuild from the log. Replays of more
        than a few entries run in a worker thread; the cached state is taken out of the
        cache while a thread works on it, so a cancelled call cannot leave it half done.
        """
        if row.seed is None:
            return None
        seq = row.log_count  # the row was read with (or just before) the log
        live = self._cache.get(row.id)
        if live is not None and live.seq < seq:
            try:
                missing = await source.actions(row.id, after=live.seq)
                if len(missing) <= CATCH_UP_INLINE:
                    catch_up(row, live, missing)
                else:
                    self._cache.pop(row.id, None)
                    await self._cpu(catch_up, row, live, missing)
            except (ServiceError, ValueError):
                self._cache.pop(row.id, None)
                live = None
        if live is None or live.seq != seq:
            self._cache.pop(row.id, None)
            live = await self._rebuild(source, row)
            self._snapshot_soon(row, live)
        if remember:
            self._remember(row.id, live)
        return live

    async def _rebuild(self, source: WriteTx | Repository, row: GameRow) -> Live:
        """The game from its latest snapshot and the entries after it, or from the
        whole log when there is no usable snapshot; in a worker thread either way."""
        if self.snapshots:
            snapshot, after = await source.snapshot_and_actions(row.id)
            if snapshot is None:  # ``after`` is the whole log
                return await self._cpu(rebuild, row, after)
            try:
                return await self._cpu(restore, row, snapshot, after)
            except NotThisTime as error:  # a take-back after it: expected, not a fault
                log.debug("game %s: snapshot %s not used: %s", row.id, snapshot.seq, error)
            except Exception as error:  # a cache, never the truth: replay the log
                log.warning("game %s: snapshot %s not used: %s", row.id, snapshot.seq, error)
        return await self._cpu(rebuild, row, await source.actions(row.id))

    async def _whole(
        self,
        source: WriteTx | Repository,
        row: GameRow,
        live: Live,
        actions: Sequence[ActionRow] | None = None,
    ) -> Live:
        """``live`` with its whole history: a game restored from a snapshot holds only
        the actions since it (``Live.partial``), so its record would start there. Such a
        game is replayed from its log (``actions``, else read from ``source``), in a worker
        thread, and the replay takes its place in the cache: a later record costs nothing.
        Call with the game's lock held."""
        if not live.partial:
            return live
        if actions is None:
            actions = await source.actions(row.id)
        whole = await self._cpu(rebuild, row, actions)
        whole.snapshot_seq = live.snapshot_seq  # the snapshots taken stay taken
        if self._cache.get(row.id) is live:
            self._remember(row.id, whole)
        return whole

    async def _whole_record(self, source: WriteTx | Repository, row: GameRow, live: Live) -> str:
        """The game's whole record (``_whole``), made in a worker thread."""
        whole = await self._whole(source, row, live)
        return str(await self._cpu(whole.game.record))

    # ----- snapshots (issue 12) -------------------------------------------------

    def _snapshot_soon(self, row: GameRow, live: Live) -> None:
        """Take a snapshot of a live game after the answer, if one is due: every
        ``SNAPSHOT_EVERY`` log entries. Off the hot path: a background task, the
        pickling in a worker thread, the writing batched with others."""
        if (
            not self.snapshots
            or row.status != "active"
            or live.seq - live.snapshot_seq < SNAPSHOT_EVERY
            or row.id in self._snapshotting
        ):
            return
        self._snapshotting.add(row.id)
        self._spawn(self._take_snapshot(row))

    async def _take_snapshot(self, row: GameRow) -> None:
        try:
            async with self._lock(self._game_locks, row.id):
                live = self._cache.get(row.id)
                if live is None or live.seq - live.snapshot_seq < SNAPSHOT_EVERY:
                    return
                snapshot = await self._cpu(take, row, live)
                live.snapshot_seq = snapshot.seq
            self._unwritten[row.id] = snapshot
            if self._flusher is None or self._flusher.done():
                self._flusher = self._spawn(self._flush_later())
        except Exception as error:  # a snapshot is an optimisation: never an error
            log.warning("game %s: no snapshot taken: %s", row.id, error)
        finally:
            self._snapshotting.discard(row.id)

    async def idle(self) -> None:
        """Wait for the background work started so far (the warm-up, snapshots being
        taken), then write the snapshots still pending."""
        while True:
            tasks = [t for t in self._background if t is not self._flusher and not t.done()]
            if not tasks:
                break
            await asyncio.gather(*tasks, return_exceptions=True)
        await self._flush_snapshots()

    async def _flush_later(self) -> None:
        await asyncio.sleep(SNAPSHOT_FLUSH_DELAY)
        await self._flush_snapshots()

    async def _flush_snapshots(self) -> None:
        """Write the snapshots taken meanwhile, in one transaction."""
        batch, self._unwritten = self._unwritten, {}
        if not batch:
            return
        try:
            async with self.repo.write(durable=False) as tx:  # a cache: see Repository.write
                for snapshot in batch.values():
                    await tx.save_snapshot(snapshot)
        except Exception as error:
            log.warning("%d snapshots not written: %s", len(batch), error)
            for game_id in batch:  # due again: taken again with a later move
                live = self._cache.get(game_id)
                if live is not None:
                    live.snapshot_seq = 0

    # ----- warming up after a restart (issues 12 and 26) -------------------------------
    #
    # Players first: everything the warm-up computes runs on the background thread
    # (``_IN_BACKGROUND``), never on the threads that draw players' boards; it starts
    # each game only in a quiet moment (no player served for ``WARM_QUIET``, waiting up
    # to ``WARM_GAP_WAIT``), and rests after each game as long as it took; it reads the
    # games' ids, then each row as it comes to it (no thousands of rows built on the
    # loop at once). A player whose game is not warm yet is served at once, on the
    # players' threads: one snapshot restore, as at any other time.

    async def warm_up(self, limit: int | None = None) -> list[int]:
        """Rebuild live games into the cache, the most recently played first, until
        ``limit`` (default: the cache's size) or the cache is full; returns their ids in
        the order warmed. Games that players reach first are already there (or being
        built for them, under their lock) and are skipped. Rebuilds run on the background
        thread from snapshots; a game without one gets its first snapshot."""
        with in_background():
            return await self._warm_games(limit)

    async def _warm_games(self, limit: int | None) -> list[int]:
        wanted = self._cache_size if limit is None else max(0, min(limit, self._cache_size))
        ids = await self.repo.recent_live_game_ids(wanted)
        warmed: list[int] = []
        loop = asyncio.get_running_loop()
        took = 0.0
        for game_id in ids:
            if len(self._cache) >= self._cache_size:
                break
            if game_id in self._cache:
                continue
            # At most half the time: after each game, a rest as long as it took.
            await asyncio.sleep(took)
            await self._players_first()
            began = loop.time()
            async with self._lock(self._game_locks, game_id):
                if game_id in self._cache:
                    continue
                try:
                    row = await self.repo.get_game(game_id)
                    if row is None or row.status != "active":
                        continue  # ended (or gone) since the ids were read
                    live = await self._fresh(self.repo, row, remember=False)
                except Exception as error:  # a game that cannot be rebuilt stays cold
                    log.warning("game %s not warmed up: %s", game_id, error)
                    continue
                if live is None or game_id in self._cache:
                    continue
                self._cache[game_id] = live
                # Behind the games players have touched meanwhile, and behind the more
                # recent ones warmed before it: it is the first to go if space runs out.
                self._cache.move_to_end(game_id, last=False)
                warmed.append(game_id)
            took = loop.time() - began
        return warmed

    def acting_on_a_game(self) -> bool:
        """A command holds a game's lock now (a player's move, the computer's, a
        rebuild): work that can wait a little, the live pages' fan-out, yields to it."""
        return bool(self._game_locks)

    async def _players_first(self) -> None:
        """Wait (at most ``WARM_GAP_WAIT``) until no game is being acted on and none was
        for ``WARM_QUIET`` seconds: the warm-up's rebuilds share the interpreter lock
        with players' requests (and the answers sent after them), which come first.
        Under a steady stream the warm-up still goes on, more slowly."""
        loop = asyncio.get_running_loop()
        until = loop.time() + WARM_GAP_WAIT
        while loop.time() < until:
            if not self._game_locks and loop.time() - self._served_at >= WARM_QUIET:
                return
            await asyncio.sleep(WARM_GAP_POLL)

    async def _warm_drawing(self) -> None:
        """On the background thread: every tile, empty board and start position the
        renderer can show for each variant (``renderers.board.warm``, for the service's
        own renderer), and one board and one set of dice per variant (the renderer's
        modules imported, its fonts loaded). The bot waits for it before it accepts
        interactions (``drawings_ready``): after a restart, no player's first board
        draws tiles."""
        renderer, dice_renderer = self._renderer, self._dice_renderer
        if renderer is None and dice_renderer is None:
            return
        if self._paints:  # the painter process draws them, and boards from then on
            self._painter.start()
            try:  # meanwhile, what makes a picture here: imported, its layouts made
                await self._workers.background(warm_pictures)
            except Exception as error:  # the first real board will say what is wrong
                log.warning("could not warm up the pictures: %s", error)
            if await self._painter.wait_ready():
                return
            log.warning("the painter process could not start: boards are drawn in threads")

        try:
            await self._workers.background(warm_drawings, renderer, dice_renderer)
        except Exception as error:  # the first real board will say what is wrong
            log.warning("could not warm up the renderer: %s", error)

    async def drawings_ready(self, timeout: float = DRAWING_WAIT) -> None:
        """Wait until the warm-up's drawings are done, if a warm-up was started (the
        bot calls it before it accepts interactions); at most ``timeout`` seconds, after
        which the bot goes on (its first boards then draw what is missing)."""
        if self._drawn is None:
            return
        try:
            await asyncio.wait_for(self._drawn.wait(), timeout)
        except TimeoutError:
            log.warning("the renderer's warm-up took over %.0f s; going on without it", timeout)

    def start_warm_up(self, *, gc_policy: bool = True) -> asyncio.Task[list[int]]:
        """The warm-up in the background (after a restart): the drawings
        (``drawings_ready`` says when they are done), then ``warm_up``; then, if
        ``gc_policy``, freeze what is warm and keep full collections off the loop
        (``GcPolicy``)."""

        if gc_policy:
            self.gc_policy = self.gc_policy or GcPolicy()
            self.gc_policy.hold()
        drawn = self._drawn = asyncio.Event()

        async def warm() -> list[int]:
            _IN_BACKGROUND.set(True)  # this task's own context, and that of its snapshots
            try:
                try:
                    await self._warm_drawing()
                finally:
                    drawn.set()
                warmed = await self.warm_up()
            except Exception as error:  # the games then warm up as players reach them
                log.warning("the warm-up stopped: %s", error)
                warmed = []
            log.info("warmed up %d live games", len(warmed))
            if self.gc_policy is not None:
                self.gc_policy.settle()
                self.gc_policy.start()
            return warmed

        self.warming = self._spawn(warm())
        return self.warming

    async def _active_live(self, tx: WriteTx, row: GameRow) -> Live:
        if row.status == "challenge":
            raise self._not_started(row)
        if row.status != "active":
            raise InvalidState(
                said("game {game} is over ({status})", game=row.id, status=status_word(row.status))
            )
        return await self._live_in(tx, row)

    def _remember(self, game_id: int, live: Live) -> None:
        self._cache[game_id] = live
        self._cache.move_to_end(game_id)
        while len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)

    # ----- who acts -----------------------------------------------------------

    def _check_mover(self, row: GameRow, user_id: int, colour: str) -> None:
        if user_id not in (row.white_id, row.black_id):
            raise NotAllowed(said("you are not playing in this game"))
        mover = row.white_id if colour == "white" else row.black_id
        if user_id != mover:
            who = self._label(mover) if mover is not None else colour
            # (Said: a front end may say it in the reader's language, bot.i18n)
            if colour == "white":
                raise NotAllowed(said("it is white's turn ({player}), not yours", player=who))
            raise NotAllowed(said("it is black's turn ({player}), not yours", player=who))

    def _colour_of(self, row: GameRow, user_id: int, live: Live) -> str:
        if row.white_id == user_id and row.black_id == user_id:
            return str(live.game.turn)  # hot-seat with one user: the side to move
        if row.white_id == user_id:
            return "white"
        if row.black_id == user_id:
            return "black"
        raise NotAllowed(said("only the players of this game can do that"))

    async def _player_command(
        self,
        user_id: int,
        location_id: int | None,
        game_id: int | None,
        request_id: str | None,
        kind: str,
        decide: Callable[[GameRow, str, Live], Step],
        *,
        viewer: Viewer | None = None,
        render: bool = False,
        kinds: tuple[str, ...] | None = None,
    ) -> Outcome:
        """One log entry by a player (resign, draw offers and answers), in one transaction.
        ``kinds``: the entry kinds a retried ``request_id`` may have logged (default ``kind``)."""
        user_id = check_id(user_id, "the user id")
        request_id = clean_request(request_id)
        row = await self._find(
            location_id, game_id, live_only=True, viewer=viewer, request_id=request_id
        )
        rated: tuple[RatingChange, ...] = ()
        owed: int | None = None
        async with self._lock(self._game_locks, row.id):
            await self._preload(row)
            dirty = False
            entry: NewAction | None = None
            try:
                async with self._write() as tx:
                    row, repeated = await self._reload_repeat(
                        tx, row.id, request_id, kinds or (kind,), render, None
                    )
                    if repeated is not None:
                        return repeated
                    self._check_time(row, self._now_ms())
                    live = await self._active_live(tx, row)
                    colour = self._colour_of(row, user_id, live)
                    step = decide(row, colour, live)
                    entry = NewAction(
                        row.id, live.seq + 1, step.kind, user_id, step.text, (), request_id
                    )
                    await tx.append_action(entry)
                    changes = step.changes
                    if step.end is not None:  # no clock once the game is over
                        changes = replace(changes, deadline_ms=None, reminder_ms=None)
                    row = await tx.update_game(row.id, changes)
                    if step.end is not None:
                        dirty = True
                        live.game.end(*step.end)
                        rated = await rate_finished(tx, row)
                    owed = await self._owe_board(tx, row, user_id, step.kind)
                live.seq += 1
            except CommitUnknownError:
                self._cache.pop(row.id, None)
                if entry is None:
                    raise
                settled = await self._settle_entry(
                    entry, tuple(step.messages), said("That was not done"), render=render
                )
                return replace(settled, owed=owed)  # stored: so is the board it owes
            except BaseException:
                if dirty:
                    self._cache.pop(row.id, None)
                raise
            self._announce_row(row)  # e.g. a draw offer the computer answers (issue 14)
            view = make_view(row, live)
            shown = await self._present(live, view, render=render)
        return Outcome(
            view,
            tuple(step.messages + self._status_lines(row, view) + rating_lines(rated, self._label)),
            shown.image,
            legal=shown.legal,
            dice_image=shown.dice_image,
            orientation=shown.side,
            status=shown.status,
            ratings=rated,
            owed=owed,
        )

    async def _log_abort(
        self, tx: WriteTx, row: GameRow, user_id: int, why: str
    ) -> tuple[NewAction, GameRow]:
        """Log an ``abort`` entry and end the game with no result: no clock, no offer, no
        claim of the computer's on its turn (``abort``, ``withdraw``)."""
        entry = NewAction(row.id, row.log_count + 1, "abort", user_id, why)
        await tx.append_action(entry)
        row = await tx.update_game(
            row.id,
            GameChanges(
                status="aborted",
                result_reason=why,
                draw_offer=None,
                deadline_ms=None,
                reminder_ms=None,
                thinking_seq=None,
                thinking_until_ms=None,
            ),
        )
        return entry, row

    def _agree(self, colour: str, text: str | None = None) -> Step:
        return Step(
            "draw_accept",
            text or f"{colour} accepts the draw",
            GameChanges(
                status="finished", result="1/2-1/2", result_reason="agreement", draw_offer=None
            ),
            [said("{colour} accepts the draw.", colour=colour_name(colour))],
            (None, "agreement"),
        )

    @staticmethod
    def _need_offer_from_other(row: GameRow, colour: str, verb: str) -> None:
        if row.draw_offer is None:
            if verb == "accept":
                raise InvalidState(said("there is no draw offer to accept"))
            raise InvalidState(said("there is no draw offer to decline"))
        if row.draw_offer == colour:
            if verb == "accept":
                raise InvalidState(said("you cannot accept your own draw offer"))
            raise InvalidState(said("you cannot decline your own draw offer"))

    async def _reload_repeat(
        self,
        tx: WriteTx,
        game_id: int,
        request_id: str | None,
        kinds: tuple[str, ...],
        render: bool,
        orientation: str | None,
    ) -> tuple[GameRow, Outcome | None]:
        """How an action's transaction starts: the game as the transaction sees it
        (``_reload``), and ``None`` unless ``request_id`` already applied an action to
        it; then the original result, recomputed from the log (``RequestConflict`` if that
        action was not of one of ``kinds``). Both read together (``game_and_request``: one
        call on SQLite, while every other write waits)."""
        found, action = await tx.game_and_request(game_id, request_id)
        row = _existing(found, game_id)
        if action is None:
            return row, None
        if action.kind not in kinds:
            raise RequestConflict(said("this request id was used for another command"))
        return row, await self._stored_outcome(tx, row, action, render, orientation)

    async def _stored_outcome(
        self,
        tx: WriteTx,
        row: GameRow,
        action: ActionRow,
        render: bool,
        orientation: str | None,
        lead: tuple[str, ...] = (said("(already done)"),),
        *,
        repeated: bool = True,
    ) -> Outcome:
        """The result of the stored log entry ``action``, recomputed from the log: for a
        retried request (``repeated``, "(already done)"), or for a command whose commit's
        outcome was unknown and turned out stored (``lead``: the lines it would have
        begun with)."""
        seq = action.seq
        live = await self._live_in(tx, row)
        if seq < live.seq:  # later entries exist: show the game as it was then
            earlier = (await tx.actions(row.id))[:seq]
            live = await self._cpu(rebuild, row, earlier)
            result = live.game.result
            row = replace(
                row,
                log_count=seq,
                log_head=earlier[-1].digest,
                status="finished" if result is not None else "active",
                result=result_text(result.winner) if result is not None else None,
                result_reason=result.reason if result is not None else None,
                draw_offer=None,
            )
        view = make_view(row, live)
        rated: tuple[RatingChange, ...] = ()
        if view.status == "finished" and seq == live.seq:  # the retried action ended it
            rated = rating_changes_of(row, await tx.game_rating_changes(row.id))
        messages = [
            *lead,
            *self._status_lines(row, view),
            *rating_lines(rated, self._label),
        ]
        shown = await self._present(live, view, render=render, orientation=orientation)
        recorded = action.text if action.kind == "move" else None
        return Outcome(
            view,
            tuple(messages),
            shown.image,
            recorded,
            action.rolls,
            repeated=repeated,
            legal=shown.legal,
            dice_image=shown.dice_image,
            orientation=shown.side,
            status=shown.status,
            ratings=rated,
        )

    # ----- messages -----------------------------------------------------------

    def _status_lines(self, row: GameRow, view: GameView) -> list[str]:
        if view.status == "active":
            lines = [self._to_move_line(view)]
            if view.draw_offer is not None:
                lines.append(
                    said("{colour} has offered a draw.", colour=colour_name(view.draw_offer))
                )
            return lines
        if view.status == "finished":
            outcome = (
                said("draw")
                if view.winner is None
                else said("{colour} wins", colour=colour_word(view.winner))
            )
            return [
                said(
                    "Game over: {outcome} ({reason}), {result}.",
                    outcome=outcome,
                    reason=reason_word(view.result_reason),
                    result=view.result,
                ),
                *self._reveal_lines(row),
            ]
        if view.status == "challenge":
            return [said("Game {game} is a challenge waiting to be accepted.", game=row.id)]
        return [said("Game {game} is {status}.", game=row.id, status=status_word(view.status))]

    def _to_move_line(self, view: GameView) -> str:
        dice = dice_text(view.dice)
        who = self._label(view.to_move_id) if view.to_move_id is not None else "?"
        if dice:
            return said(
                "{colour} to move ({player}) {dice}.",
                colour=colour_name(view.turn),
                player=who,
                dice=dice,
            )
        return said("{colour} to move ({player}).", colour=colour_name(view.turn), player=who)

    @staticmethod
    def _reveal_lines(row: GameRow) -> list[str]:
        if row.seed is None:  # never started: no die was ever drawn
            return []
        return [
            said(
                "Dice seed revealed: {seed} (commitment {commitment}); anyone can verify.",
                seed=row.seed,
                commitment=row.commitment,
            )
        ]

    async def _game_by_request_or_free(
        self, tx: WriteTx, request_id: str | None, location_id: int
    ) -> Outcome | None:
        """Before a new game at ``location_id``: the game this request already made (a
        retry), or ``None`` once the location is known to be free (else ``LocationBusy``).
        The earlier game is shown without engine state: reading it here could race a
        command on that game, which holds the game's lock, not this one."""
        if request_id is not None:
            earlier = await tx.game_by_request(request_id)
            if earlier is not None:
                return Outcome(make_view(earlier, None), (said("(already done)"),), repeated=True)
        busy = await tx.live_game_at(location_id)
        if busy is not None:
            raise self._busy(busy)
        return None

    def _busy(self, row: GameRow) -> LocationBusy:
        if row.status == "challenge":
            message = said(
                "there is already a challenge here (game {game}); finish it first", game=row.id
            )
        else:
            message = said(
                "there is already a game here (game {game}); finish it first", game=row.id
            )
        return LocationBusy(message, row.id)

    @staticmethod
    def _check_options(variant: str, options: Any) -> dict[str, Any]:
        if options is None:
            return {}
        if not isinstance(options, dict) or not all(isinstance(k, str) for k in options):
            raise InvalidInput(said("options must be a mapping of names to values"))
        try:
            json.dumps(options)
            return dict(variants.rules(variant).check_options(dict(options)))
        except (TypeError, ValueError) as error:
            raise InvalidInput(
                said("bad options for {variant}: {error}", variant=variant, error=str(error))
            ) from error

    @staticmethod
    def _check_orientation(orientation: str | None) -> None:
        if orientation is not None and orientation not in COLOURS:
            raise InvalidInput(said("the orientation must be white or black"))

    # ----- drawing (contract C9) ------------------------------------------------

    async def _present(
        self,
        live: Live,
        view: GameView,
        *,
        render: bool,
        orientation: str | None = None,
        theme: str | None = None,
        locale: str | None = None,
    ) -> Shown:
        """The legal actions and, if ``render``, the board and dice images: one hop to a
        worker thread. Call with the game's lock held (the thread reads the engine game).
        ``theme``: the board's; by default the theme of the player who made the game
        (``board_theme``, issue 27). ``orientation``: the side at the bottom; by default
        the one the player who made the game chose (``board_orientation``: White, or the
        side to act), else the side to act. ``locale``: the language of the picture's words; by
        default the one set for this piece of work (``bot.i18n.pictures``: the front end
        sets the server's for what it posts in a channel)."""
        active = view.status == "active"
        if not active and not render:  # an ended game: its status is one line, no moves
            return Shown(status=variants.describe(live.game))
        if orientation is None and render and self.board_orientation is not None:
            orientation = await self.board_orientation(view.challenger_id)
        side = orientation or view.turn or "white"
        if theme is None and render and self.board_theme is not None:
            theme = await self.board_theme(view.challenger_id)
        if theme == "classic":
            theme = None
        if locale is None:
            locale = i18n.pictures()
        if render and self._paints and self._painter.ready:
            return await self._painted(live.game, active, view, side, theme, locale)
        return await self._cpu(
            show,
            live.game,
            active,
            view.variant,
            view.dice if active else None,
            side,
            self._renderer if render else None,
            self._dice_renderer if render else None,
            render,
            theme,
            None if locale == i18n.DEFAULT else locale,
        )

    async def _painted(
        self, game: Any, active: bool, view: GameView, side: str, theme: str | None, locale: str
    ) -> Shown:
        """``_present`` with the painter (issue 26): the legal list, the status and the
        picture are made here, on the loop (a fraction of a millisecond, the game read
        where it is, no thread involved), and the painter process draws the board and
        the dice. What it cannot draw (not ready, ended, failed) is drawn in a thread."""
        legal = legal_actions(game) if active else ()
        status = variants.describe(game)
        picture: Any = None
        failure: ServiceError | None = None
        try:
            picture = board_picture(game, side, theme or "classic", locale=locale)
        except Exception as error:
            failure = board_failure(error)
        painter = self._painter
        board = painter.send_board(picture) if picture is not None else None
        dice = view.dice if active and self._dice_renderer is not None else None
        thrown = painter.send_dice(view.variant, dice) if dice else None
        image = await painter.receive(board) if board is not None else None
        if image is None and picture is not None:
            drawn = await self._cpu(paint_or_failure, paint_board, picture)
            if isinstance(drawn, ServiceError):
                failure = drawn
            else:
                image = drawn
        dice_image = await painter.receive(thrown) if thrown is not None else None
        if dice_image is None and dice and self._dice_renderer is not None:
            dice_image = await self._cpu(dice_or_none, self._dice_renderer, view.variant, dice)
        return Shown(legal, image, dice_image, failure, status, side if image is not None else None)
