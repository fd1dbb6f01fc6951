"""Analyses of finished games: each player's errors and luck (issue 29). A component of
``GameService`` (see ``bot.service``), given the service's core as ``Deadlines`` is.

    report = await service.analyse(game_id=12, viewer=..., progress=fn)  # AnalysisReport

- **Off the loop.** The analysis (``engine.analysis.analyse``, seconds of search per
  game) runs in a worker PROCESS (``bot.service.workers``), as the computer's search
  does: the loop sends the record and gets back the analysis as JSON. The engine is
  imported only there and where a kept analysis is read, never when the service opens.
- **Once per game.** The result is kept in the store (``storage.analyses``, migration
  12) by the game's log head (``GameRow.log_head``, the digest of its whole log,
  ``storage.chain``) and the search depth, so it survives restarts; asking again reads
  it (``AnalysisReport.cached``). Two askers of the same game at once share one run.
- **At most ``max_running`` at once** (``DEFAULT_MAX_RUNNING``, one: an analysis takes a
  worker process for up to a minute, and the computer's moves and verifications need
  the others). The rest wait in order; each asker is told its place in the queue.
- **Progress.** ``progress(AnalysisProgress)`` is called (on the loop) when the job is
  queued, each time its place in the queue changes, as the worker reports the steps
  it has analysed (at most every ``PROGRESS_EVERY_S``, through a pipe), and once done.

The summary post (issue 24): with ``post_in`` (a channel id, the Discord bot's) the
asker is owed the summary in that channel, an ``analysis`` outbox row written in the
transaction that stores the analysis (or, for a kept one, in a transaction of its own
once it is read), one per game and request (``request_id``: a second ask with the same
id owes nothing new). It is held for ``hold_boards_ms`` while the asker's front end posts
it itself with the row's nonce (``AnalysisReport.owed``, settled by ``owed_posted``); if
that fails, or the process dies, the delivery worker posts it, built from the store
(``report_of``). A game outside a server owes no post.

Only a game that is over can be analysed: an analysis of a game in play would be an
engine's advice to its players.

Board messages: ``AnalysisReport.boards`` maps the number of actions played to the
board message posted then (``storage.outbox``'s delivered ``board`` rows, by log
length; a move taken back is skipped as the record skips it), so that a front end can
link a blunder or a joker to the board that showed it. Boards delivered long ago may
have been pruned from the outbox: the front end then links ``last_board`` or says so.
"""

from __future__ import annotations

import asyncio
import json
import logging
import multiprocessing
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from multiprocessing.connection import Connection
from typing import TYPE_CHECKING, Literal

from bot import i18n
from bot.i18n import said
from bot.service.access import Viewer
from bot.service.core import check_id, clean_request, in_background
from bot.service.errors import CorruptGame, InvalidInput, InvalidState
from bot.service.live import make_view
from bot.service.results import GameView, HistoryEntry
from storage import GameRow, WriteTx, nonce_of

if TYPE_CHECKING:
    from bot.service.looking import Looking
    from engine.analysis import Analysis

log = logging.getLogger(__name__)

DEFAULT_MAX_RUNNING = 1  # analyses at once (the setting's default)
PROGRESS_EVERY_S = 0.25  # the worker reports its progress at most this often
MAX_DEPTH = 6  # deeper than any variant's own analysis depth: minutes per game

State = Literal["queued", "running", "done"]
Listener = Callable[["AnalysisProgress"], None]


@dataclass(frozen=True)
class AnalysisProgress:
    """Where an analysis stands: ``queued`` at ``position`` (1: next to start), ``running``
    with ``done`` of ``total`` steps analysed, or ``done``."""

    game_id: int
    state: State
    position: int = 0
    done: int = 0
    total: int = 0


@dataclass(frozen=True)
class AnalysisReport:
    """A finished game's analysis, and where its boards were posted."""

    game: GameView
    analysis: Analysis
    digest: str  # the log head it analysed
    cached: bool  # read from the store (no search ran for this call)
    boards: dict[int, tuple[int, int]]  # actions played -> (channel id, message id)
    last_board: tuple[int, int] | None
    image: bytes | None = None  # the graph (renderers.graph), when asked for
    owed: int | None = None  # the outbox row owing the summary post (``post_in``)
    nonce: str | None = None  # that row's message nonce: a post with it is never doubled

    def board_after(self, actions: int) -> tuple[int, int] | None:
        """The board message posted after ``actions`` actions, if it is known."""
        return self.boards.get(actions)


@dataclass(eq=False)
class _Owe:
    """An asker's summary post: owed in ``channel_id`` by the transaction that stores the
    analysis, or after it (``owed``: the row, once written)."""

    channel_id: int
    request_id: str | None
    locale: str
    owed: int | None = None
    nonce: str | None = None


@dataclass(eq=False)
class _Job:
    key: tuple[str, int]
    game_id: int
    record: str
    depth: int
    future: asyncio.Future[str]
    listeners: list[Listener] = field(default_factory=list)
    owes: list[_Owe] = field(default_factory=list)
    state: State = "queued"
    position: int = 0
    done: int = 0
    total: int = 0

    def tell(self) -> None:
        news = AnalysisProgress(self.game_id, self.state, self.position, self.done, self.total)
        for listener in list(self.listeners):
            try:
                listener(news)
            except Exception:  # one asker's failing callback stops no one else's news
                log.exception("an analysis progress listener failed (game %s)", self.game_id)


class Analyses:
    """The analyses of ``GameService`` (``analyse``) as a component: it is given the
    service's core (its store, its lookups and its worker pool) and keeps the queue."""

    def __init__(self, core: Looking, *, max_running: int = DEFAULT_MAX_RUNNING) -> None:
        self.core = core
        self.max_running = max_running
        self.depth: int | None = None  # None: each variant's own analysis depth
        self.runs = 0  # analyses run (not read from the store), for /metrics and tests
        self._jobs: dict[tuple[str, int], _Job] = {}
        self._waiting: deque[_Job] = deque()
        self._running = 0

    @property
    def queued(self) -> int:
        """Analyses waiting for their turn."""
        return len(self._waiting)

    @property
    def running(self) -> int:
        return self._running

    async def analyse(
        self,
        *,
        location_id: int | None = None,
        game_id: int | None = None,
        viewer: Viewer | None = None,
        depth: int | None = None,
        progress: Listener | None = None,
        render: bool = True,
        names: tuple[str, str] | None = None,
        locale: str | None = None,
        post_in: int | None = None,
        request_id: str | None = None,
    ) -> AnalysisReport:
        """The analysis of a game that is over (kept, or run now; see the module).
        ``post_in``: owe the summary post in that channel (see the module).
        ``depth``: the search's (default: the service's ``depth``, else the variant's own);
        ``render``: draw the graph, naming the players ``names`` (White's, Black's), its
        words in ``locale`` (default: ``bot.i18n.pictures``, the one set for this piece of
        work). The graph is drawn for each call, never kept: nothing to key by locale."""
        if depth is not None and (
            isinstance(depth, bool) or not isinstance(depth, int) or not 1 <= depth <= MAX_DEPTH
        ):
            raise InvalidInput(
                said("the analysis depth must be a whole number from 1 to {n}", n=MAX_DEPTH)
            )
        row = await self.core._find(location_id, game_id, live_only=False, viewer=viewer)
        if row.status == "active":
            raise InvalidState(
                said(
                    "game {game} is still being played; it can be analysed once it is over",
                    game=row.id,
                )
            )
        if row.seed is None or row.log_head is None or row.status in ("challenge", "declined"):
            raise InvalidState(said("game {game} has no moves to analyse", game=row.id))
        depth = depth or self.depth or _variant_depth(row.variant)
        digest = row.log_head
        locale = locale if locale is not None else i18n.pictures()
        owe = None
        if post_in is not None and row.guild_id is not None:
            owe = _Owe(check_id(post_in, "the channel id"), clean_request(request_id), locale)
        stored = await self.core.repo.stored_analysis(digest, depth)
        cached = stored is not None
        if stored is None:
            history = await self.core.history(game_id=row.id)
            if not history.record or not _has_actions(history.entries):
                raise InvalidState(said("game {game} has no moves to analyse", game=row.id))
            stored = await self._wait(row.id, digest, depth, history.record, progress, owe)
        elif progress is not None:
            progress(AnalysisProgress(row.id, "done"))
        if owe is not None and owe.nonce is None:  # kept, or stored before this asker came
            async with self.core._write(durable=False) as tx:
                await self._owe(tx, row.id, digest, depth, owe)
        report = await self._report(row, stored, digest, depth, cached, render, names, locale)
        if owe is None:
            return report
        return replace(report, owed=owe.owed, nonce=owe.nonce)

    async def kept(
        self,
        game_id: int,
        *,
        render: bool = True,
        names: tuple[str, str] | None = None,
        locale: str | None = None,
    ) -> AnalysisReport | None:
        """The analysis of a game that is over, if one is kept at the depth ``analyse``
        would use; ``None`` otherwise (a game in play, one never analysed, or one whose
        log has changed since). Never runs one: a reader (a web page) only reads, and
        what it draws goes to the background thread, not the ones serving players."""
        row = await self.core.repo.get_game(game_id)
        if row is None or row.status == "active" or row.log_head is None:
            return None
        depth = self.depth or _variant_depth(row.variant)
        stored = await self.core.repo.stored_analysis(row.log_head, depth)
        if stored is None:
            return None
        locale = locale if locale is not None else i18n.pictures()
        with in_background():
            return await self._report(row, stored, row.log_head, depth, True, render, names, locale)

    async def report_of(
        self, game_id: int, payload: dict[str, object], *, render: bool = True
    ) -> AnalysisReport | None:
        """The report an ``analysis`` outbox row owes (its ``payload``), from the store;
        ``None`` when the analysis is no longer kept."""
        row = await self.core.repo.get_game(game_id)
        digest, depth = payload.get("digest"), payload.get("depth")
        if row is None or not isinstance(digest, str) or not isinstance(depth, int):
            return None
        stored = await self.core.repo.stored_analysis(digest, depth)
        if stored is None:
            return None
        locale = payload.get("locale")
        locale = locale if isinstance(locale, str) else i18n.pictures()
        return await self._report(row, stored, digest, depth, True, render, None, locale)

    async def _owe(self, tx: WriteTx, game_id: int, digest: str, depth: int, owe: _Owe) -> None:
        """Write ``owe``'s row in ``tx`` (not a second one for the same game and request)."""
        row = await tx.get_game(game_id)
        if row is None:
            return
        if owe.request_id is not None:
            for known in await tx.outbox_of_game(game_id):
                if known.kind == "analysis" and known.payload.get("request") == owe.request_id:
                    owe.owed, owe.nonce = known.id, known.nonce
                    return
        payload: dict[str, object] = {"digest": digest, "depth": depth, "locale": owe.locale}
        if owe.request_id is not None:
            payload["request"] = owe.request_id
        owed = await self.core._owe(
            tx,
            replace(row, location_id=owe.channel_id),
            "analysis",
            payload=dict(payload),
            delay_ms=self.core.hold_boards_ms or 0,
        )
        if owed is not None:
            owe.owed, owe.nonce = owed, nonce_of(owed)

    async def _report(
        self,
        row: GameRow,
        stored: str,
        digest: str,
        depth: int,
        cached: bool,
        render: bool,
        names: tuple[str, str] | None,
        locale: str,
    ) -> AnalysisReport:
        """The report of ``row``'s analysis ``stored`` (its JSON), with the graph."""
        analysis = await self.core._cpu(_load, stored)
        actions = await self.core.repo.actions(row.id)
        boards = await self._boards(row.id, [(a.seq, a.kind) for a in actions])
        last = (
            (row.board_channel_id, row.board_message_id)
            if row.board_channel_id is not None and row.board_message_id is not None
            else None
        )
        image = None
        if render:
            speech = i18n.Speech(locale)
            white, black = names or (None, None)  # the graph says "White" and "Black"
            title = speech(
                said(
                    "Game {game} · {variant}",
                    game=row.id,
                    variant=make_view(row, None).variant_title,
                )
            )
            try:
                image = await self.core._cpu(_graph, analysis, title, white, black, speech)
            except Exception as error:  # a missing picture never loses the analysis
                log.warning("game %s: the analysis graph could not be drawn: %s", row.id, error)
        return AnalysisReport(
            game=make_view(row, None),
            analysis=analysis,
            digest=digest,
            cached=cached,
            boards=boards,
            last_board=last,
            image=image,
        )

    # ----- the queue --------------------------------------------------------------------

    async def _wait(
        self,
        game_id: int,
        digest: str,
        depth: int,
        record: str,
        progress: Listener | None,
        owe: _Owe | None = None,
    ) -> str:
        """The analysis's JSON, from a job of its own or one already under way."""
        key = (digest, depth)
        job = self._jobs.get(key)
        joined = job is not None  # an analysis of the same log under way: shared
        if job is None:
            future: asyncio.Future[str] = asyncio.get_running_loop().create_future()
            # a failure nobody waits for any more is not "never retrieved"
            future.add_done_callback(lambda f: f.cancelled() or f.exception())
            job = self._jobs[key] = _Job(key, game_id, record, depth, future)
            self._waiting.append(job)
        if progress is not None:
            job.listeners.append(progress)
        if owe is not None:  # owed with the analysis, when it is stored
            job.owes.append(owe)
        self._start_next()
        if job.state == "queued":
            job.position = self._waiting.index(job) + 1
            if progress is not None:
                progress(AnalysisProgress(game_id, "queued", job.position))
        elif joined and progress is not None:  # a new job that started was told already
            progress(AnalysisProgress(game_id, job.state, 0, job.done, job.total))
        try:
            return await asyncio.shield(job.future)
        finally:
            if progress is not None and progress in job.listeners:
                job.listeners.remove(progress)

    def _start_next(self) -> None:
        """Start waiting jobs while fewer than ``max_running`` run; tell the rest their
        new places."""
        moved = False
        while self._waiting and self._running < max(1, self.max_running):
            job = self._waiting.popleft()
            job.state, job.position = "running", 0
            self._running += 1
            moved = True
            self.core._spawn(self._run(job))
            job.tell()
        if moved:
            for place, waiting in enumerate(self._waiting, 1):
                if waiting.position != place:
                    waiting.position = place
                    waiting.tell()

    async def _run(self, job: _Job) -> None:
        loop = asyncio.get_running_loop()
        reader, writer = multiprocessing.Pipe(duplex=False)

        def readable() -> None:
            try:
                while reader.poll():
                    done, total = (int(v) for v in reader.recv_bytes().split())
                    if done > job.done:
                        job.done, job.total = done, total
                        job.tell()
            except (EOFError, OSError, ValueError):
                loop.remove_reader(reader.fileno())

        loop.add_reader(reader.fileno(), readable)
        try:
            self.runs += 1
            try:
                text = await self.core._in_process(analyse_record, job.record, job.depth, writer)
            except ValueError as error:
                raise CorruptGame(
                    said(
                        "game {game}'s record does not replay, so it cannot be analysed: {error}",
                        game=job.game_id,
                        error=str(error),
                    )
                ) from error
            readable()  # the last report, if it came with the answer
            cpu_ms = round(1000 * float(json.loads(text).get("cpu_s", 0.0)))
            # a cache (a power cut loses no game), with the summary posts it owes
            async with self.core._write(durable=False) as tx:
                await tx.save_analysis(job.game_id, job.key[0], job.depth, text, cpu_ms)
                for owe in job.owes:
                    await self._owe(tx, job.game_id, job.key[0], job.depth, owe)
            job.state = "done"
            job.future.set_result(text)
            job.tell()
            log.info(
                "game %s analysed at depth %s (%.1f s of a worker)",
                job.game_id,
                job.depth,
                cpu_ms / 1000,
            )
        except BaseException as error:
            if not job.future.done():
                if isinstance(error, asyncio.CancelledError):
                    job.future.cancel()
                else:
                    job.future.set_exception(error)
            if isinstance(error, asyncio.CancelledError):
                raise
            log.info("game %s: the analysis failed: %s", job.game_id, error)
        finally:
            loop.remove_reader(reader.fileno())
            reader.close()
            writer.close()
            self._jobs.pop(job.key, None)
            self._running -= 1
            self._start_next()

    async def _boards(
        self, game_id: int, entries: Sequence[tuple[int, str]]
    ) -> dict[int, tuple[int, int]]:
        """Actions played -> the board message posted then (see the module), from the
        log's ``(seq, kind)``."""
        played: dict[int, int] = {0: 0}  # log length -> actions in the record then
        moves: list[int] = []
        for seq, kind in entries:
            if kind == "move":
                moves.append(seq)
            elif kind == "undo" and moves:
                moves.pop()
            played[seq] = len(moves)
        boards: dict[int, tuple[int, int]] = {}
        for row in await self.core.repo.outbox_of_game(game_id):
            if row.kind != "board" or row.state != "sent" or row.message_id is None:
                continue
            if row.seq is None or row.seq not in played:
                continue
            boards[played[row.seq]] = (row.channel_id, row.message_id)  # the latest wins
        return boards


def _has_actions(entries: Sequence[HistoryEntry]) -> bool:
    return any(e.kind == "move" for e in entries)


def _variant_depth(variant: str) -> int:
    from engine.equity import fit_for

    return fit_for(variant).depth


def _load(text: str) -> Analysis:
    from engine.analysis import Analysis

    return Analysis.loads(text)


def _graph(
    analysis: Analysis, title: str, white: str | None, black: str | None, speech: i18n.Speech
) -> bytes:
    from renderers.graph import graph_png

    return graph_png(analysis.turns, title=title, white=white, black=black, speech=speech)


def analyse_record(record: str, depth: int, progress: Connection | None = None) -> str:
    """Runs in a worker process: the analysis of ``record`` as JSON (``Analysis.dumps``).
    Its progress goes to ``progress`` as ``b"done total"``, at most every
    ``PROGRESS_EVERY_S`` (and the last step always)."""
    from engine.analysis import analyse

    last = [0.0]

    def report(done: int, total: int) -> None:
        if progress is None:
            return
        now = time.monotonic()
        if done < total and now - last[0] < PROGRESS_EVERY_S:
            return
        last[0] = now
        try:
            progress.send_bytes(f"{done} {total}".encode())
        except OSError:  # nobody listens any more: the analysis goes on
            pass

    return analyse(record, depth, report).dumps()


__all__ = [
    "DEFAULT_MAX_RUNNING",
    "AnalysisProgress",
    "AnalysisReport",
    "Analyses",
    "analyse_record",
]
