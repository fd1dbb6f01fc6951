"""What a game page shows, read through ``GameService``'s public calls and kept per
stored state of the game: one reading serves every page, image and live event until the
game changes (its chain head or status moves on)."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from bot.links import Links
from bot.service import (
    COMPUTER_ID,
    GameService,
    GameView,
    LogTail,
    ServiceError,
    VerifyReport,
    is_person,
    render_board,
)
from bot.web.timeline import Builder, Rebuild, Step, Timeline, build, game_at

log = logging.getLogger(__name__)

KEPT_STATES = 512  # game states kept in memory
KEPT_IMAGES = 2048  # board images kept in memory (about 20 KB each)
NAMELESS_S = 300.0  # a player without a stored name is asked again after this
INLINE_ENTRIES = 2  # new log entries played on the loop itself; more go to a thread


@dataclass(frozen=True)
class Verdict:
    ok: bool
    lines: tuple[str, ...]


@dataclass(frozen=True)
class GameState:
    """One stored state of a game, as its page shows it."""

    view: GameView
    started: bool  # the game has dice and a record (not a challenge, declined or cancelled)
    timeline: Timeline | None  # None: a challenge, or a log that would not replay
    white: str
    black: str
    result_line: str
    clock_line: str
    verdict: Verdict | None  # the server's own check, once the game is over
    version: str  # changes whenever anything shown changes

    @property
    def status_line(self) -> str:
        if self.view.status == "challenge":
            return "A challenge: the game has not started yet."
        if self.view.is_over:
            return self.result_line
        if self.timeline is None:
            return ""
        return self.timeline.steps[-1].headline


def _name(view: GameView, user_id: int | None, side: str, stored: dict[int, str]) -> str:
    if user_id is None:
        return "nobody yet"
    if user_id == COMPUTER_ID:
        level = f" (level {view.computer_level})" if view.computer_level else ""
        return f"the computer{level}"
    if not is_person(user_id):
        return side.capitalize()
    return stored.get(user_id) or f"player {user_id}"


def result_line(view: GameView) -> str:
    reason = f" ({view.result_reason})" if view.result_reason else ""
    if view.status == "aborted":
        return f"Aborted{reason}."
    if view.status in ("declined", "cancelled"):
        return f"The challenge was {view.status}."
    if view.status != "finished":
        return ""
    if view.winner is None:
        return f"Drawn{reason}, {view.result or '1/2-1/2'}."
    return f"{view.winner.capitalize()} won{reason}, {view.result}."


def clock_line(view: GameView, now: datetime | None = None) -> str:
    if view.time_days is None:
        return "No time limit."
    per = f"{view.time_days} day{'s' if view.time_days != 1 else ''} per move"
    if view.deadline is None or view.is_over or view.turn is None:
        return per + "."
    when = view.deadline.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")
    return f"{per}; {view.turn} must act by {when}."


def step_image(links: Links, game_id: int, step: Step) -> str:
    return _image(links.game_path(game_id), step)


def _image(path: str, step: Step) -> str:
    return f"{path}/board/{step.index}.png?v={step.digest}"


def step_json(path: str, step: Step) -> str:
    """One step as the live event carries it (encoded once per step and kept)."""
    return json.dumps(
        {
            "i": step.index,
            "side": step.side,
            "dice": list(step.dice) if step.dice else None,
            "text": step.text,
            "head": step.headline,
            "img": _image(path, step),
        },
        separators=(",", ":"),
    )


def event_json(state: GameState, steps: Sequence[str], first: int | None = None) -> str:
    """The live update a page receives (server-sent events): the status and the steps
    given (already encoded, ``step_json``); with ``first``, they are the steps from
    ``first`` on, for a page that has the ones before."""
    last = state.timeline.last if state.timeline else -1
    head = {
        "v": state.version,
        "last": last,
        "over": state.view.is_over,
        "status": state.status_line,
        "clock": state.clock_line,
    }
    if first is not None:
        head["first"] = first
    text = json.dumps(head, separators=(",", ":"))
    return f'{text[:-1]},"steps":[{",".join(steps)}]}}'


class GameStates:
    """Reads games through the service and keeps what it read; draws board images in a
    worker thread and keeps them too."""

    def __init__(self, service: GameService) -> None:
        self.service = service
        self._states: OrderedDict[int, GameState] = OrderedDict()
        self._images: OrderedDict[tuple[int, int, str], bytes] = OrderedDict()
        self._loading: dict[int, asyncio.Future[GameState]] = {}  # the reading in flight
        self._queued: dict[int, asyncio.Future[GameState]] = {}  # the one to start after it
        self._names: dict[int, str] = {}
        self._nameless: OrderedDict[int, float] = OrderedDict()  # asked, had no name: when
        self._builders: OrderedDict[int, Builder] = OrderedDict()

    async def state(self, game_id: int) -> GameState:
        """The game as stored now: from a reading that began after this call (a call
        made while one is in flight, for example an image asked for because a live
        event told of a new move, waits for the next one). Calls at the same moment
        share one reading. Raises ``ServiceError`` (``NotFound``) as the service does."""
        running = self._loading.get(game_id)
        if running is None:
            reading = self._start(game_id)
        else:
            reading = self._queued.get(game_id) or self._queue(game_id, running)
        return await asyncio.shield(reading)

    def _start(self, game_id: int) -> asyncio.Future[GameState]:
        reading = asyncio.ensure_future(self._read(game_id))
        self._loading[game_id] = reading

        def done(_: object) -> None:
            if self._loading.get(game_id) is reading:
                del self._loading[game_id]

        reading.add_done_callback(done)
        return reading

    def _queue(self, game_id: int, running: asyncio.Future[GameState]) -> asyncio.Future[GameState]:
        """The reading that starts once ``running`` has ended, for the calls made meanwhile."""

        async def after() -> GameState:
            await asyncio.wait([running])  # its outcome is its own callers'
            if self._queued.get(game_id) is queued:
                del self._queued[game_id]
            return await self._start(game_id)

        queued = asyncio.ensure_future(after())
        self._queued[game_id] = queued
        return queued

    async def _read(self, game_id: int) -> GameState:
        builder = self._builders.pop(game_id, None)  # used by this reading alone
        # one entry before the new ones: its digest says the log is the one read before
        after = builder.seq - 1 if builder is not None else 0
        tail = await self.service.log_tail(game_id=game_id, after=max(0, after))
        view = tail.game
        seq = tail.entries[-1].seq if tail.entries else tail.after
        version = f"{view.chain_head or ''}:{view.status}:{seq}"
        kept = self._states.get(game_id)
        if kept is not None and (kept.version, kept.view.deadline) == (version, view.deadline):
            if builder is not None:
                self._keep_builder(game_id, builder)
            self._states.move_to_end(game_id)
            return kept
        timeline = None
        if tail.started:
            builder = await self._built(game_id, builder, tail)
            if builder is not None:
                timeline = builder.timeline()
                self._keep_builder(game_id, builder)
        verdict = None
        if view.is_over and view.seed is not None:
            verdict = await self._verdict(game_id)
        names = await self._player_names(view)
        state = GameState(
            view=view,
            started=tail.started,
            timeline=timeline,
            white=_name(view, view.white_id, "white", names),
            black=_name(view, view.black_id, "black", names),
            result_line=result_line(view),
            clock_line=clock_line(view),
            verdict=verdict,
            version=version,
        )
        self._states[game_id] = state
        self._states.move_to_end(game_id)
        while len(self._states) > KEPT_STATES:
            self._states.popitem(last=False)
        return state

    async def _built(self, game_id: int, builder: Builder | None, tail: LogTail) -> Builder | None:
        """``builder`` grown by the tail's new entries, or a build of the whole log when it
        cannot be (none kept, a take-back, a log that is not the one read before); None
        when the log does not replay."""
        entries = tail.entries
        if builder is not None and builder.seq > 0:
            first = entries[0] if entries else None
            if first is None or (first.seq, first.digest) != (builder.seq, builder.digest):
                builder = None  # not the log this builder read
            else:
                entries = entries[1:]
        if builder is not None:
            try:
                if len(entries) <= INLINE_ENTRIES:  # a move or two: no thread hop
                    builder.extend(entries)
                else:
                    await asyncio.to_thread(builder.extend, entries)
                return builder
            except (Rebuild, ValueError):
                pass  # spoiled: build anew from the whole log
        if tail.after > 0:
            tail = await self.service.log_tail(game_id=game_id, after=0)
        view = tail.game
        try:
            return await asyncio.to_thread(
                build, view.variant, view.options, tail.start_rolls, tail.entries
            )
        except ValueError:
            log.warning("game %s: its log does not replay for the web page", game_id)
            return None

    def _keep_builder(self, game_id: int, builder: Builder) -> None:
        self._builders[game_id] = builder
        while len(self._builders) > KEPT_STATES:
            self._builders.popitem(last=False)

    async def _verdict(self, game_id: int) -> Verdict:
        try:
            report: VerifyReport = await self.service.verify(game_id=game_id)
        except ServiceError as error:
            return Verdict(False, (str(error),))
        if report.ok:
            return Verdict(True, report.messages)
        return Verdict(False, report.problems or report.messages)

    async def _player_names(self, view: GameView) -> dict[int, str]:
        """The names the service stores for the players (``profile``), when it has one.
        A player with none is asked again only after ``NAMELESS_S`` (not at every move)."""
        now = time.monotonic()
        for user_id in (view.white_id, view.black_id):
            if user_id is None or not is_person(user_id) or user_id in self._names:
                continue
            asked = self._nameless.get(user_id)
            if asked is not None and now - asked < NAMELESS_S:
                continue
            try:
                name = (await self.service.profile(user_id=user_id)).name
            except ServiceError:
                name = None
            if name:
                self._names[user_id] = name
                self._nameless.pop(user_id, None)
            else:
                self._nameless[user_id] = now
                self._nameless.move_to_end(user_id)
                while len(self._nameless) > 2 * KEPT_STATES:
                    self._nameless.popitem(last=False)
        return self._names

    async def image(self, state: GameState, index: int) -> bytes:
        """The board after step ``index`` (PNG), drawn once per version of that step."""
        assert state.timeline is not None
        step = state.timeline.steps[index]
        key = (state.view.id, index, step.digest)
        kept = self._images.get(key)
        if kept is not None:
            self._images.move_to_end(key)
            return kept
        png = await asyncio.to_thread(_draw, state.timeline, index)
        self._images[key] = png
        while len(self._images) > KEPT_IMAGES:
            self._images.popitem(last=False)
        return png


def _draw(timeline: Timeline, index: int) -> bytes:
    return render_board(game_at(timeline, index), "white")
