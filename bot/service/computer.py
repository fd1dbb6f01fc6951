"""The computer opponent in the service (issue 14, contract C13).

``play_computer`` starts a game at once against the computer (no challenge: nobody
has to accept). The row records the computer's side and level (``GameView.computer``,
``computer_level``); the computer plays as the reserved player ``COMPUTER_ID``.

``computer_move(game_id=...)`` makes one move for the computer when it is its turn:

1. in one write transaction it *claims* the turn in the database (``thinking_seq`` =
   the log length, ``thinking_until_ms`` = now + ``think_lease_s``) unless another
   claim on the same log length still holds (another process, or a second task here,
   is thinking: ``ComputerBusy``), and reads the game's record;
2. the search (``engine.choose``) runs in a worker PROCESS (``bot.service.workers``):
   the event loop only sends the record and receives a small ``Thought``. A move's
   ``budget_s`` (2 s) is the player's whole wait, from their action to the computer's
   board: the search gets what is left of it (see ``AFTER_SEARCH_S``);
3. the action is played through ``act``, the same call as a human's, as
   ``COMPUTER_ID`` with ``expected_ply``: logged, replayable and verifiable like any
   move, and refused (``StaleAction``) if the game moved on while it thought (a
   resignation, an abort, another process that was faster).

A process that dies while thinking leaves a claim that runs out after the lease; a
claim is tied to the log length, so the move that follows it makes it void.

Draw offers: the computer answers a player's offer through ``accept_draw`` or
``decline_draw``, the calls a person uses (logged as the computer's entries). It
accepts when its own evaluation says it is not better: its expected score (the
search's value, -1 a loss .. 1 a win, a draw 0) at most ``DRAW_ACCEPT_AT`` = 0.05.
Why 0.05: the value is ``0.95 tanh(pawns / 6)``, so 0.05 is a third of a pawn, the
size of the placement and King-safety terms and of level 1's scoring noise: within
it the evaluation cannot say who is better, and accepting gives up at most that much
expected score. On the computer's turn the offer is answered with the move's own
search, before moving (a decline is logged, then the move); on the player's turn
(``computer_move`` finds no turn to play but an offer standing) a search of the
position for the player to move judges it (the computer's score is minus the
player's).

``ComputerRunner`` drives it: it listens to the service (every committed change of a
game where the computer is to act wakes it), thinks in the background and tells a
``ComputerNotifier`` of each move (the Discord layer posts it). On ``start`` it resumes
every game whose turn is the computer's (after a restart): the claim makes each turn
thought about once, however many processes start at once.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Protocol

from bot.i18n import said
from bot.service.clock import days_text, turn_clock
from bot.service.core import (
    COLOURS,
    COMPUTER_ID,
    ServiceCore,
    check_id,
    check_variant,
    clean_request,
)
from bot.service.errors import (
    InvalidInput,
    InvalidState,
    ServiceError,
    StaleAction,
)
from bot.service.live import Live, make_view, new_engine_game, variant_title
from bot.service.results import GameView, History, Outcome
from bot.service.words import colour_word
from storage import CommitUnknownError, GameChanges, GameQuery, GameRow, NewGame
from variants.dice import seed_commitment

if TYPE_CHECKING:
    from bot.service.service import GameService  # the runner's service (types only)

log = logging.getLogger(__name__)

# engine is imported only where the search runs (a worker process), so that opening the
# service (every command-line start, every restart) does not pay for it.
#
# The computer's promise (issue 26): from the player's action to the computer's board, at
# most ``budget_s`` of wall time (DEFAULT_BUDGET_S, engine.DEFAULT_BUDGET_S). The search
# gets what is left of it once the work around it is paid for: everything before it (the
# claim's transaction, the wait for a free worker process, the worker's import of the
# engine, the replay of the record) is measured as it happens, since the search's end is
# a deadline on the machine's monotonic clock, which the worker process shares; what
# follows it is kept back as AFTER_SEARCH_S.
DEFAULT_BUDGET_S = 2.0
# Kept back for the work after the search: the choice's way back from the worker process,
# the look at a draw offer, the move's ``act`` (its transaction and commit) and its board
# drawn. Measured with ``benchmarks/ai.py --wait`` ("from the search's end to the board
# told": the worker stamps its end on the monotonic clock, the notifier the board's):
# 300 level-3 moves, 5 variants x 3 runs of 20, on the shared 2-core machine at a load
# average of 7-10: p50 36 ms, p95 124 ms (Guardener's, the largest board, 169 ms), max
# 545 ms. 0.15 s covers that p95; Guardener's is covered with the engine's own RESERVE
# (4 % of the search's budget, about 70 ms) on top. A quiet machine needs far less.
AFTER_SEARCH_S = 0.15
# The least time the search gets, however late it starts (every worker busy, a slow
# claim): level 3 still looks a ply or two ahead. A smaller ``budget_s`` (tests) is given
# to the search whole.
MIN_SEARCH_S = 0.25
LEVEL_NUMBERS = (1, 2, 3)  # engine.LEVELS (a test holds them equal)
THINK_LEASE_S = 30.0  # a claim on a turn holds this long (a dead process's runs out)
DRAW_ACCEPT_AT = 0.05  # the computer accepts a draw at or below this expected score
RESUME_BATCH = 500


class ComputerBusy(InvalidState):
    """Someone else is thinking about this turn (``until_ms``: when that claim runs out)."""

    def __init__(self, message: str, until_ms: int) -> None:
        super().__init__(message)
        self.until_ms = until_ms


def check_level(level: Any) -> int:
    if isinstance(level, bool) or not isinstance(level, int) or level not in LEVEL_NUMBERS:
        raise InvalidInput(said("the computer's level must be 1, 2 or 3"))
    return level


def search_budget(budget_s: float, spent_s: float = 0.0) -> float:
    """The search's share of a move's ``budget_s`` of which ``spent_s`` has gone: what is
    left after ``AFTER_SEARCH_S``, at least ``MIN_SEARCH_S`` (all of a smaller budget)."""
    return max(min(MIN_SEARCH_S, budget_s), budget_s - AFTER_SEARCH_S - spent_s)


@dataclass(frozen=True)
class Thought:
    """The computer's choice as the worker process hands it back: ``engine.Choice``'s
    fields in a class of this module, so that the service need not import the engine to
    read it (the first move after a start would pay for the import on its way back)."""

    action: str  # canonical, one of the legal actions
    score: float  # the search's expected result for the side to act, -1 .. 1
    depth: int
    nodes: int
    time_s: float  # the search's, the replay included
    ended: float  # time.monotonic() when the worker finished (what follows is overhead)


def think(
    record: str, level: int, budget_s: float, seed: int, began: float | None = None
) -> Thought:
    """Runs in a worker process: the computer's choice. ``budget_s`` is the move's whole
    time (the promise), ``began`` when the move began on ``time.monotonic`` (``None``:
    now), a clock the worker shares: the search gets ``search_budget`` of what is left
    once the engine is imported here."""
    import engine

    spent = 0.0 if began is None else max(0.0, time.monotonic() - began)
    choice = engine.choose(record, level, search_budget(budget_s, spent), seed)
    return Thought(
        choice.action, choice.score, choice.depth, choice.nodes, choice.time_s, time.monotonic()
    )


@dataclass(frozen=True)
class _Claim:
    level: int
    record: str
    ply: int
    seq: int
    colour: str


class Playing(Protocol):
    """What the computer does through the service, as a player does (the narrow interface
    ``Computer`` is given: ``GameService`` itself)."""

    async def act(
        self,
        *,
        user_id: int,
        text: str,
        game_id: int | None = None,
        request_id: str | None = None,
        expected_ply: int | None = None,
        render: bool = True,
    ) -> Outcome: ...

    async def view(self, *, game_id: int | None = None) -> GameView: ...

    async def history(self, *, game_id: int | None = None) -> History: ...

    async def accept_draw(
        self, *, user_id: int, game_id: int | None = None, render: bool = False
    ) -> Outcome: ...

    async def decline_draw(
        self, *, user_id: int, game_id: int | None = None, render: bool = False
    ) -> Outcome: ...


class Computer:
    """The computer opponent as a component of ``GameService``: ``play``, ``move``,
    ``turns`` and the listeners ``ComputerRunner`` uses (see the module). It is given
    the service's core (store, locks, engine-state cache, sentences) and the narrow
    ``Playing`` interface its moves and draw answers go through, as a person's do; its
    own state is its settings and listeners. ``GameService`` hands its calls on to it."""

    def __init__(self, core: ServiceCore, playing: Playing) -> None:
        self.core = core
        self.playing = playing
        self.budget_s = DEFAULT_BUDGET_S  # a move's wall time, the search's and all around it
        self.think_lease_s = THINK_LEASE_S
        self._listeners: list[Callable[[int], None]] = []
        core.add_row_listener(self._row_committed)

    def add_listener(self, listener: Callable[[int], None]) -> None:
        """``listener(game_id)`` after each commit that leaves the computer to act: its
        turn, or a draw offer to answer."""
        self._listeners.append(listener)

    def remove_listener(self, listener: Callable[[int], None]) -> None:
        with suppress(ValueError):
            self._listeners.remove(listener)

    def _row_committed(self, row: GameRow) -> None:
        if (
            row.computer is not None
            and row.status == "active"
            and (
                row.clock_side == row.computer
                or (row.draw_offer is not None and row.draw_offer != row.computer)
            )
        ):
            for listener in list(self._listeners):
                try:
                    listener(row.id)
                except Exception:  # a listener must never fail a command
                    log.exception("computer listener failed for game %s", row.id)

    # ----- starting a game -----------------------------------------------------

    async def play(
        self,
        *,
        user_id: int,
        location_id: int,
        variant: str,
        level: int,
        colour: str = "random",
        options: dict[str, Any] | None = None,
        guild_id: int | None = None,
        request_id: str | None = None,
        seed: str | None = None,
        render: bool = True,
        hold: bool = False,
    ) -> Outcome:
        """A game against the computer, started at once: ``colour`` is the player's
        (white, black or random). Untimed, and (C14) unrated: ``GameView.computer`` is
        set. If the computer plays White, it is its turn: a ``ComputerRunner`` moves.
        ``hold``: not before ``release_computer`` (``bot.service.withdraw``)."""
        user_id = check_id(user_id, "the user id")
        location_id = check_id(location_id, "the location id")
        if guild_id is not None:
            guild_id = check_id(guild_id, "the guild id")
        if user_id == COMPUTER_ID:
            raise InvalidInput(said("the computer cannot play itself here"))
        level = check_level(level)
        request_id = clean_request(request_id)
        check_variant(variant)
        if colour not in ("white", "black", "random"):
            raise InvalidInput(said("the colour must be white, black or random"))
        if seed is not None and (not isinstance(seed, str) or not seed):
            raise InvalidInput(said("a seed must be non-empty text"))
        options = self.core._check_options(variant, options)
        mine = colour if colour != "random" else self.core._rng.choice(COLOURS)
        computer = "black" if mine == "white" else "white"
        white, black = (user_id, COMPUTER_ID) if mine == "white" else (COMPUTER_ID, user_id)
        secret = seed if seed is not None else self.core._seed_factory()
        now_ms = self.core._now_ms()
        try:
            async with (
                self.core._lock(self.core._location_locks, location_id),
                self.core._write() as tx,
            ):
                repeated = await self.core._game_by_request_or_free(tx, request_id, location_id)
                if repeated is not None:
                    return repeated
                await tx.upsert_player(user_id)
                await tx.upsert_player(COMPUTER_ID, "computer")
                row = await tx.insert_game(
                    NewGame(
                        variant=variant,
                        options=options,
                        status="active",
                        location_id=location_id,
                        guild_id=guild_id,
                        challenger_id=user_id,
                        opponent_id=COMPUTER_ID,
                        challenger_colour=colour,  # type: ignore[arg-type]
                        seed=secret,
                        commitment=seed_commitment(secret),
                        white_id=white,
                        black_id=black,
                        request_id=request_id,
                        computer=computer,  # type: ignore[arg-type]
                        computer_level=level,
                    )
                )
                try:
                    game = await self.core._cpu(new_engine_game, variant, options, secret, row.id)
                except ValueError as error:
                    raise InvalidInput(
                        said("cannot set up {variant}: {error}", variant=variant, error=str(error))
                    ) from error
                row = await tx.update_game(
                    row.id, GameChanges(**turn_clock(None, game.turn, now_ms))
                )
                rolls = tuple(game.rolls)
                if rolls:
                    await tx.set_start_rolls(row.id, rolls)
                    row = await self.core._reload(tx, row.id)
        except CommitUnknownError:
            if request_id is None:
                raise
            row = await self.core._settle_new_game(request_id, said("The game was not started"))
        live = Live(game, 0, 0)
        async with self.core._lock(self.core._game_locks, row.id):
            self.core._remember(row.id, live)
            view = make_view(row, live)
            shown = await self.core._present(live, view, render=render)
        if not hold:
            self.core._announce_row(row)
        you = self.core._label(user_id)
        messages = (
            said(
                "Game {game} begins: {variant}, {player} ({colour}) against the computer "
                "(level {level}, {computer}); {time}, unrated.",
                game=row.id,
                variant=variant_title(variant),
                player=you,
                colour=colour_word(mine),
                level=level,
                computer=colour_word(computer),
                time=days_text(None),
            ),
            said("Dice commitment: {commitment}", commitment=row.commitment),
            self.core._to_move_line(view),
        )
        return Outcome(
            view,
            messages,
            shown.image,
            legal=shown.legal,
            dice_image=shown.dice_image,
            orientation=shown.side,
            status=shown.status,
        )

    # ----- the computer's move ---------------------------------------------------

    async def turns(self) -> tuple[int, ...]:
        """Active games where the computer is to act (indexed): what to resume. With
        ``shards`` (issue 16), only the games of this process's guilds, whose boards it
        can post (as the deadline scheduler)."""
        rows = await self.core.repo.list_games(
            GameQuery(computer_only=True, statuses=("active",), limit=RESUME_BATCH)
        )
        return tuple(
            sorted(
                r.id
                for r in rows
                if r.computer is not None
                and r.clock_side == r.computer
                and (self.core.shards is None or self.core.shards.owns(r.guild_id))
            )
        )

    async def _claim_turn(self, game_id: int) -> _Claim | None:
        """Claim the computer's turn in the database; ``None`` if it is not its turn."""
        async with self.core._lock(self.core._game_locks, game_id), self.core._write() as tx:
            row = await self.core._reload(tx, game_id)
            if row.status != "active" or row.computer is None or row.computer_level is None:
                return None
            live = await self.core._active_live(tx, row)
            if live.game.turn != row.computer or live.game.result is not None:
                return None
            now_ms = self.core._now_ms()
            if (
                row.thinking_seq == row.log_count
                and row.thinking_until_ms is not None
                and row.thinking_until_ms > now_ms
            ):
                raise ComputerBusy(
                    said("game {game}: the computer is already thinking", game=row.id),
                    row.thinking_until_ms,
                )
            await tx.update_game(
                row.id,
                GameChanges(
                    thinking_seq=row.log_count,
                    thinking_until_ms=now_ms + round(self.think_lease_s * 1000),
                ),
            )
            record = await self.core._whole_record(tx, row, live)
            return _Claim(row.computer_level, record, live.ply, row.log_count, row.computer)

    async def _release_turn(self, game_id: int, seq: int) -> None:
        """Give a claim back (the search failed): another try may claim at once."""
        with suppress(ServiceError):
            async with self.core._lock(self.core._game_locks, game_id), self.core._write() as tx:
                row = await self.core._reload(tx, game_id)
                if row.thinking_seq == seq:
                    await tx.update_game(
                        game_id, GameChanges(thinking_seq=None, thinking_until_ms=None)
                    )

    async def move(
        self, *, game_id: int, render: bool = False, budget_s: float | None = None
    ) -> Outcome | None:
        """Think and play the computer's move in ``game_id``, answering first any draw
        offer standing; off its turn, answer a standing draw offer. ``None`` if there
        is nothing to do (or the game moved on while it thought). ``ComputerBusy`` if
        another claim on this turn holds."""
        began = time.monotonic()  # the promise's clock (``think``): the claim counts
        game_id = check_id(game_id, "the game id")
        claim = await self._claim_turn(game_id)
        budget = self.budget_s if budget_s is None else budget_s
        if claim is None:
            return await self._answer_offer_off_turn(game_id, budget, render, began)
        try:
            choice = await self.core._in_process(
                think, claim.record, claim.level, budget, game_id * 1_000_003 + claim.seq, began
            )
        except BaseException:
            await asyncio.shield(self._release_turn(game_id, claim.seq))
            raise
        answer = await self._answer_offer(game_id, claim.colour, claim.level, choice.score, render)
        if answer is not None and answer.game.is_over:
            return answer  # the computer accepted the draw
        try:
            moved = await self.playing.act(
                user_id=COMPUTER_ID,
                text=choice.action,
                game_id=game_id,
                expected_ply=claim.ply,
                request_id=f"computer:{game_id}:{claim.seq + 1}",
                render=render,
            )
        except (StaleAction, InvalidState) as error:
            log.info("game %s: the computer's move %s was not played: %s", game_id, choice, error)
            return None
        if answer is not None:  # it declined before moving: both are news
            moved = replace(moved, messages=answer.messages[:1] + moved.messages)
        return moved

    async def _answer_offer(
        self, game_id: int, colour: str, level: int, score: float, render: bool
    ) -> Outcome | None:
        """Accept or decline the other side's standing draw offer, if there is one, on
        the computer's expected ``score`` (see the module); ``None`` if none stands."""
        service = self.playing
        view = await service.view(game_id=game_id)
        if view.is_over or view.draw_offer is None or view.draw_offer == colour:
            return None
        accept = score <= DRAW_ACCEPT_AT
        log.info(
            "game %s: the computer (level %s, %s) %s the draw offer: its evaluation %+.3f "
            "(it accepts at or below %+.2f)",
            game_id, level, colour, "accepts" if accept else "declines", score, DRAW_ACCEPT_AT,
        )  # fmt: skip
        answer = service.accept_draw if accept else service.decline_draw
        try:
            return await answer(user_id=COMPUTER_ID, game_id=game_id, render=render)
        except InvalidState as error:  # answered meanwhile (another process), or over
            log.info("game %s: the computer's answer to the draw offer: %s", game_id, error)
            return None

    async def _answer_offer_off_turn(
        self, game_id: int, budget_s: float, render: bool, began: float
    ) -> Outcome | None:
        """Off its turn: judge a standing draw offer by a search of the position for the
        player to move (the computer's score is minus theirs) and answer it."""
        service = self.playing
        view = await service.view(game_id=game_id)
        colour = view.computer
        if (
            view.is_over
            or colour is None
            or view.computer_level is None
            or view.draw_offer is None
            or view.draw_offer == colour
        ):
            return None
        history = await service.history(game_id=game_id)
        choice = await self.core._in_process(
            think,
            history.record,
            view.computer_level,
            budget_s,
            game_id * 1_000_003 + view.ply,
            began,
        )
        score = choice.score if view.turn == colour else -choice.score
        return await self._answer_offer(game_id, colour, view.computer_level, score, render)


class ComputerNotifier(Protocol):
    """Told of each move the computer made (the Discord layer posts it)."""

    async def computer_moved(self, outcome: Outcome) -> None: ...


class ComputerRunner:
    """Moves for the computer in the background; see the module."""

    def __init__(
        self,
        service: GameService,
        notifier: ComputerNotifier | None = None,
        *,
        render: bool = False,
    ) -> None:
        self.service = service
        self.notifier = notifier
        self.render = render
        self.moves = 0  # moves made here (tests, logs)
        self._tasks: dict[int, asyncio.Task[None]] = {}
        self._again: set[int] = set()
        self._timers: dict[int, asyncio.TimerHandle] = {}
        self._started = False

    async def start(self) -> None:
        """Listen for the computer's turns and resume the games waiting for it."""
        if not self._started:
            self._started = True
            self.service.add_computer_listener(self.wake)
        for game_id in await self.service.computer_turns():
            self.wake(game_id)

    def wake(self, game_id: int) -> None:
        """It may be the computer's turn in ``game_id``: think (once at a time per game)."""
        if not self._started:
            return
        if game_id in self._tasks:
            self._again.add(game_id)  # a second move by the same side: after this one
            return
        task = asyncio.get_running_loop().create_task(
            self._run(game_id), name=f"chessgarden-computer-{game_id}"
        )
        self._tasks[game_id] = task

    async def _run(self, game_id: int) -> None:
        try:
            while True:
                self._again.discard(game_id)
                try:
                    outcome = await self.service.computer_move(game_id=game_id, render=self.render)
                except ComputerBusy as busy:
                    self._retry_at(game_id, busy.until_ms)
                    return
                except Exception:
                    log.exception("game %s: the computer could not move", game_id)
                    return
                if outcome is not None:
                    self.moves += 1
                    if self.notifier is not None:
                        try:
                            await self.notifier.computer_moved(outcome)
                        except Exception:
                            log.exception("game %s: could not post the computer's move", game_id)
                    if not self._started:
                        return  # stopping: the next action is resumed after a restart
                    if outcome.game.turn == outcome.game.computer and not outcome.game.is_over:
                        continue  # the computer acts again (a re-roll, the Tquarc's roll)
                if game_id not in self._again or not self._started:
                    return
        finally:
            self._tasks.pop(game_id, None)

    def _retry_at(self, game_id: int, until_ms: int) -> None:
        """Another claim holds: look again when it runs out (its thinker may have died)."""
        delay = max(0.05, (until_ms - self.service._now_ms()) / 1000 + 0.05)
        old = self._timers.pop(game_id, None)
        if old is not None:
            old.cancel()
        self._timers[game_id] = asyncio.get_running_loop().call_later(
            delay, self._timer_fired, game_id
        )

    def _timer_fired(self, game_id: int) -> None:
        self._timers.pop(game_id, None)
        self.wake(game_id)

    async def idle(self) -> None:
        """Wait until no move is being thought about here (tests)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks.values()), return_exceptions=True)

    @property
    def thinking(self) -> tuple[int, ...]:
        return tuple(sorted(self._tasks))

    async def stop(self, grace: float = 0.0) -> int:
        """Stop thinking. No new turn is taken up; a move being thought about may finish
        (played, committed and posted) for up to ``grace`` seconds, then it is cancelled:
        its claim on the turn is given back, and the move is made after a restart. The
        number of games whose work was cut short."""
        if self._started:
            self.service.remove_computer_listener(self.wake)
        self._started = False
        for timer in self._timers.values():
            timer.cancel()
        self._timers.clear()
        tasks = list(self._tasks.values())
        if grace > 0 and tasks:
            await asyncio.wait(tasks, timeout=grace)
        cut = 0
        for task in tasks:
            cut += not task.done()
            task.cancel()
        for task in tasks:
            with suppress(asyncio.CancelledError):
                await task
        return cut
