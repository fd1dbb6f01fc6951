"""Internals of ``GameService``: input checks, locks, the engine-state cache, lookups,
messages and rendering. The public commands are in ``bot.service.service``."""

from __future__ import annotations

import asyncio
import json
import os
import random
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field, replace
from typing import Any, Self

import variants
from bot.service.errors import (
    InvalidInput,
    InvalidState,
    LocationBusy,
    NotAllowed,
    NotFound,
    RenderUnavailable,
    RequestConflict,
    ServiceError,
    StaleAction,
)
from bot.service.live import (
    Live,
    Renderer,
    catch_up,
    dice_text,
    make_view,
    rebuild,
    render_board,
    result_text,
)
from bot.service.results import GameView, Outcome
from storage import (
    ActionKind,
    Colour,
    ConflictError,
    GameChanges,
    GameQuery,
    GameRow,
    NewAction,
    Repository,
    SqliteRepository,
    WriteTx,
)
from variants.dice import new_secret_seed

MAX_TEXT = 200
MAX_REQUEST_ID = 200
COLOURS: tuple[Colour, Colour] = ("white", "black")


def other_colour(colour: str) -> str:
    return "black" if colour == "white" else "white"


def check_id(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidInput(f"{what} must be a whole number")
    if not -(2**63) <= value < 2**63:
        raise InvalidInput(f"{what} is out of range")
    return value


def clean_request(request_id: Any) -> str | None:
    if request_id is None:
        return None
    if not isinstance(request_id, str | int) or isinstance(request_id, bool):
        raise InvalidInput("a request id must be text or a number")
    text = str(request_id)
    if not text or len(text) > MAX_REQUEST_ID:
        raise InvalidInput(f"a request id must be 1 to {MAX_REQUEST_ID} characters")
    return text


def clean_text(text: Any) -> str:
    if not isinstance(text, str):
        raise InvalidInput("an action must be text in the variant's notation")
    cleaned = " ".join(text.split())
    if not cleaned:
        raise InvalidInput("type an action in notation, e.g. e4 or Nf3 (or reroll, pass, roll)")
    if len(cleaned) > MAX_TEXT:
        raise InvalidInput(
            f"that action is too long ({len(cleaned)} characters; at most {MAX_TEXT})"
        )
    if any(not ch.isprintable() for ch in cleaned):
        raise InvalidInput("an action may not contain control characters")
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


class ServiceCore:
    """State and internals shared by the commands: locks, cache, lookups, messages."""

    def __init__(
        self,
        repository: Repository,
        *,
        renderer: Renderer | None = render_board,
        label: Callable[[int], str] | None = None,
        rng: random.Random | None = None,
        seed_factory: Callable[[], str] = new_secret_seed,
        cache_size: int = 4096,
    ) -> None:
        self.repo = repository
        self._renderer = renderer
        self._label = label or (lambda uid: f"player {uid}")
        self._rng = rng or random.SystemRandom()
        self._seed_factory = seed_factory
        self._cache: OrderedDict[int, Live] = OrderedDict()
        self._cache_size = cache_size
        self._game_locks: dict[int, _Lock] = {}
        self._location_locks: dict[int, _Lock] = {}
        self._owns_repository = False

    @classmethod
    async def open(cls, db: str | os.PathLike[str] | None = None, **kwargs: Any) -> Self:
        """Open the SQLite store at ``db`` (or ``$CHESSGARDEN_DB`` / the default) and serve it."""
        service = cls(await SqliteRepository.open(db), **kwargs)
        service._owns_repository = True
        return service

    async def close(self) -> None:
        if self._owns_repository:
            await self.repo.close()

    # ----- creating games -------------------------------------------------

    @asynccontextmanager
    async def _write(self) -> AsyncIterator[WriteTx]:
        try:
            async with self.repo.write() as tx:
                yield tx
        except ConflictError as error:
            if error.what == "location":
                raise InvalidState("there is already a game or challenge here") from error
            raise StaleAction(
                "someone else acted on this game at the same moment; look again"
            ) from error

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

    async def _find(
        self, location_id: int | None, game_id: int | None, *, live_only: bool
    ) -> GameRow:
        if (location_id is None) == (game_id is None):
            raise InvalidInput("name one game: by its location or by its id")
        if game_id is not None:
            row = await self.repo.get_game(check_id(game_id, "the game id"))
            if row is None:
                raise NotFound(f"there is no game {game_id}")
            return row
        location = check_id(location_id, "the location id")
        row = await self.repo.live_game_at(location)
        if row is None and not live_only:
            recent = await self.repo.list_games(GameQuery(location_id=location, limit=1))
            row = recent[0] if recent else None
        if row is None:
            raise NotFound("there is no game or challenge here")
        return row

    async def _reload(self, tx: WriteTx, game_id: int) -> GameRow:
        row = await tx.get_game(game_id)
        if row is None:
            raise NotFound(f"there is no game {game_id}")
        return row

    async def _live_in(self, tx: WriteTx, row: GameRow) -> Live:
        """The engine state, checked against the log inside the transaction."""
        return await self._fresh(tx, row, remember=True)

    async def _live_read(self, row: GameRow) -> Live:
        return await self._fresh(self.repo, row, remember=row.is_live)

    async def _fresh(self, source: WriteTx | Repository, row: GameRow, *, remember: bool) -> Live:
        """The cached engine state if it matches the log, caught up or rebuilt if not.

        Another process sharing the file may have appended entries: those are
        replayed onto the cached game (whose dice continue from the same seed), and
        anything unexpected falls back to a full rebuild from the log.
        """
        seq = await source.last_seq(row.id)
        live = self._cache.get(row.id)
        if live is not None and live.seq < seq:
            try:
                catch_up(row, live, await source.actions(row.id, after=live.seq))
            except (ServiceError, ValueError):
                self._cache.pop(row.id, None)
                live = None
        if live is None or live.seq != seq:
            live = rebuild(row, await source.actions(row.id))
        if remember:
            self._remember(row.id, live)
        return live

    async def _active_live(self, tx: WriteTx, row: GameRow) -> Live:
        if row.status == "challenge":
            raise InvalidState(f"game {row.id} has not started: the challenge is waiting")
        if row.status != "active":
            raise InvalidState(f"game {row.id} is over ({row.status})")
        return await self._live_in(tx, row)

    def _remember(self, game_id: int, live: Live) -> None:
        self._cache[game_id] = live
        self._cache.move_to_end(game_id)
        while len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)

    def _check_mover(self, row: GameRow, user_id: int, colour: str) -> None:
        if user_id not in (row.white_id, row.black_id):
            raise NotAllowed("you are not playing in this game")
        mover = row.white_id if colour == "white" else row.black_id
        if user_id != mover:
            who = self._label(mover) if mover is not None else colour
            raise NotAllowed(f"it is {colour}'s turn ({who}), not yours")

    def _colour_of(self, row: GameRow, user_id: int, live: Live) -> str:
        if row.white_id == user_id and row.black_id == user_id:
            return str(live.game.turn)  # hot-seat with one user: the side to move
        if row.white_id == user_id:
            return "white"
        if row.black_id == user_id:
            return "black"
        raise NotAllowed("only the players of this game can do that")

    async def _player_command(
        self,
        user_id: int,
        location_id: int | None,
        game_id: int | None,
        request_id: str | None,
        kind: str,
        decide: Callable[[GameRow, str, Live], Step],
    ) -> Outcome:
        user_id = check_id(user_id, "the user id")
        request_id = clean_request(request_id)
        row = await self._find(location_id, game_id, live_only=True)
        async with self._lock(self._game_locks, row.id):
            dirty = False
            try:
                async with self._write() as tx:
                    row = await self._reload(tx, row.id)
                    # an offer that met the other side's offer was logged as an agreement
                    kinds = (kind, "draw_accept") if kind == "draw_offer" else (kind,)
                    repeated = await self._repeat_request(tx, row, request_id, kinds, False, None)
                    if repeated is not None:
                        return repeated
                    live = await self._active_live(tx, row)
                    colour = self._colour_of(row, user_id, live)
                    step = decide(row, colour, live)
                    await tx.append_action(
                        NewAction(
                            row.id, live.seq + 1, step.kind, user_id, step.text, (), request_id
                        )
                    )
                    row = await tx.update_game(row.id, step.changes)
                    if step.end is not None:
                        dirty = True
                        live.game.end(*step.end)
                live.seq += 1
            except BaseException:
                if dirty:
                    self._cache.pop(row.id, None)
                raise
            view = make_view(row, live)
        return Outcome(view, tuple(step.messages + self._status_lines(row, view)))

    def _agree(self, colour: str) -> Step:
        return Step(
            "draw_accept",
            f"{colour} accepts the draw",
            GameChanges(
                status="finished", result="1/2-1/2", result_reason="agreement", draw_offer=None
            ),
            [f"{colour.capitalize()} accepts the draw."],
            (None, "agreement"),
        )

    @staticmethod
    def _need_offer_from_other(row: GameRow, colour: str, verb: str) -> None:
        if row.draw_offer is None:
            raise InvalidState(f"there is no draw offer to {verb}")
        if row.draw_offer == colour:
            raise InvalidState(f"you cannot {verb} your own draw offer")

    async def _repeat_request(
        self,
        tx: WriteTx,
        row: GameRow,
        request_id: str | None,
        kinds: tuple[str, ...],
        render: bool,
        orientation: str | None,
    ) -> Outcome | None:
        """``None`` unless ``request_id`` already applied an action to this game; then the
        original result, recomputed from the log (``RequestConflict`` if that action was
        not of one of ``kinds``)."""
        if request_id is None:
            return None
        action = await tx.action_by_request(row.id, request_id)
        if action is None:
            return None
        if action.kind not in kinds:
            raise RequestConflict("this request id was used for another command")
        seq = action.seq
        live = await self._live_in(tx, row)
        if seq < live.seq:  # later entries exist: show the game as it was then
            live = rebuild(row, (await tx.actions(row.id))[:seq])
            result = live.game.result
            row = replace(
                row,
                status="finished" if result is not None else "active",
                result=result_text(result.winner) if result is not None else None,
                result_reason=result.reason if result is not None else None,
                draw_offer=None,
            )
        view = make_view(row, live)
        messages = ["(already done)", *self._status_lines(row, view)]
        image = (
            await self._maybe_render(live, orientation or view.turn or "white") if render else None
        )
        recorded = action.text if action.kind == "move" else None
        return Outcome(view, tuple(messages), image, recorded, action.rolls, repeated=True)

    def _status_lines(self, row: GameRow, view: GameView) -> list[str]:
        if view.status == "active":
            lines = [self._to_move_line(view)]
            if view.draw_offer is not None:
                lines.append(f"{view.draw_offer.capitalize()} has offered a draw.")
            return lines
        if view.status == "finished":
            outcome = "draw" if view.winner is None else f"{view.winner} wins"
            return [
                f"Game over: {outcome} ({view.result_reason}), {view.result}.",
                *self._reveal_lines(row),
            ]
        if view.status == "challenge":
            return [f"Game {row.id} is a challenge waiting to be accepted."]
        return [f"Game {row.id} is {view.status}."]

    def _to_move_line(self, view: GameView) -> str:
        dice = dice_text(view.dice)
        who = self._label(view.to_move_id) if view.to_move_id is not None else "?"
        return f"{str(view.turn).capitalize()} to move ({who})" + (f" {dice}" if dice else "") + "."

    @staticmethod
    def _reveal_lines(row: GameRow) -> list[str]:
        return [f"Dice seed revealed: {row.seed} (commitment {row.commitment}); anyone can verify."]

    def _busy(self, row: GameRow) -> LocationBusy:
        what = "a challenge" if row.status == "challenge" else "a game"
        return LocationBusy(
            f"there is already {what} here (game {row.id}); finish it first", row.id
        )

    @staticmethod
    def _check_options(variant: str, options: Any) -> dict[str, Any]:
        if options is None:
            return {}
        if not isinstance(options, dict) or not all(isinstance(k, str) for k in options):
            raise InvalidInput("options must be a mapping of names to values")
        try:
            json.dumps(options)
            return dict(variants.rules(variant).check_options(dict(options)))
        except (TypeError, ValueError) as error:
            raise InvalidInput(f"bad options for {variant}: {error}") from error

    @staticmethod
    def _check_orientation(orientation: str | None) -> None:
        if orientation is not None and orientation not in COLOURS:
            raise InvalidInput("the orientation must be white or black")

    async def _render(self, live: Live, orientation: str) -> bytes:
        if self._renderer is None:
            raise RenderUnavailable("this service draws no images")
        try:
            return await asyncio.to_thread(self._renderer, live.game, orientation)
        except ServiceError:
            raise
        except Exception as error:
            raise RenderUnavailable(f"the board could not be drawn: {error}") from error

    async def _maybe_render(self, live: Live, orientation: str) -> bytes | None:
        try:
            return await self._render(live, orientation)
        except RenderUnavailable:
            return None
