"""``GameService``: challenges, actions, draws and aborts. See ``bot.service``.

Concurrency model:
- one ``asyncio.Lock`` per game (and one per location for creating challenges), so
  commands on one game run one at a time in this process;
- every command that changes a game runs in one ``BEGIN IMMEDIATE`` transaction that
  re-reads the game row (with its log length) first, so another process sharing the
  database file is noticed (the cached engine state is then rebuilt from the log);
- the store takes log entries strictly in order (entry ``n + 1`` after ``n``), so a
  second action for the same slot fails even if everything above were bypassed.

Rolls are drawn by the engine inside the transaction and stored with the action
before the transaction commits and before anything is returned. No die exists before
a challenge is accepted: the seed is drawn, the engine game made and its first dice
stored by ``accept``.

Looking (view, board, history, verify, ...) is in ``bot.service.looking``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime
from typing import Any

from bot.i18n import said
from bot.service.access import Viewer
from bot.service.analysis import Analyses, AnalysisReport, Listener
from bot.service.clock import HOUR_MS, check_days, days_text, turn_clock
from bot.service.computer import Computer
from bot.service.computer_draw import ComputerDraw, DrawAnswer
from bot.service.core import (
    COLOURS,
    Step,
    check_id,
    check_variant,
    clean_request,
    clean_text,
    other_colour,
)
from bot.service.deadlines import DUE_BATCH, Deadlines
from bot.service.errors import (
    InvalidInput,
    InvalidState,
    NotAllowed,
    StaleAction,
    TooManyChallenges,
)
from bot.service.live import (
    Live,
    dice_drawn,
    illegal,
    make_view,
    new_engine_game,
    render_board,
    render_dice,
    result_text,
    variant_title,
)
from bot.service.outbox import Owing
from bot.service.rating_log import (
    LEADERBOARD_SIZE,
    Leaderboard,
    Profile,
    RebuildReport,
    rate_finished,
    rating_lines,
)
from bot.service.relocate import Relocation
from bot.service.results import DeadlineEvent, Outcome, RatingChange
from bot.service.settings import ServerSettings, SettingDefaults
from bot.service.standings import Standings
from bot.service.store_faults import translate_store_faults
from bot.service.takeback import TakeBack
from bot.service.tournaments import Tournaments
from bot.service.withdraw import Withdrawal
from bot.service.words import colour_name, colour_word, played_line, reason_word, status_word
from storage import (
    CommitUnknownError,
    GameChanges,
    GameQuery,
    GameRow,
    NewAction,
    NewGame,
    WriteTx,
)
from variants.dice import seed_commitment

__all__ = ["GameService", "render_board", "render_dice"]


def played(colour: str, variant: str, move: str) -> str:
    """The answer's headline, "White played e4.": ``Said``, so that a front end may say it
    in the reader's language (``bot.i18n``); the console prints it as it is."""
    return played_line(colour_name(colour), variant, move)


@translate_store_faults
class GameService(Owing, TakeBack, Withdrawal, Relocation):
    """Game sessions over a repository. The API is documented in ``bot.service``.

    The commands that share one game's lock and transaction are written here and in the
    small command groups it is made of (``Owing``, ``TakeBack``, ``Withdrawal``,
    ``Relocation``, over ``ServiceCore``). The parts with their own state or worker are
    components, each given what it needs, and the service hands their calls on:
    ``standings`` (ratings), ``deadlines`` (timeouts, reminders, expiries), ``computer``
    (the opponent; it plays through this service's own commands), ``computer_draw`` and
    ``analyses`` (errors and luck of finished games)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.standings = Standings(self.repo, self._write)  # ratings (issue 15)
        self.deadlines = Deadlines(self)  # timeouts, reminders, expiries (issue 13)
        self.computer = Computer(self, self)  # the computer opponent (issue 14)
        self.computer_draw = ComputerDraw(self.computer)
        # per-server settings and per-user board preferences (issue 27)
        self.server_settings = ServerSettings(
            self.repo, self._write, SettingDefaults(max_challenges=self.max_open_challenges)
        )
        self.board_theme = self.server_settings.board_theme  # a game's boards (issue 27)
        self.board_orientation = self.server_settings.board_orientation
        self.analyses = Analyses(self)  # errors and luck of finished games (issue 29)
        self.tournaments = Tournaments(self, self.server_settings)  # tournaments (issue 30)

    # ----- the computer: the computer component's -------------------------------

    @property
    def computer_budget_s(self) -> float:
        """The computer's time per move as the player waits for it, from claiming its
        turn to its board (the search gets the rest: ``bot.service.computer``)."""
        return self.computer.budget_s

    @computer_budget_s.setter
    def computer_budget_s(self, seconds: float) -> None:
        self.computer.budget_s = seconds

    @property
    def think_lease_s(self) -> float:
        """How long a claim on the computer's turn holds (a dead thinker's runs out)."""
        return self.computer.think_lease_s

    @think_lease_s.setter
    def think_lease_s(self, seconds: float) -> None:
        self.computer.think_lease_s = seconds

    def add_computer_listener(self, listener: Callable[[int], None]) -> None:
        self.computer.add_listener(listener)

    def remove_computer_listener(self, listener: Callable[[int], None]) -> None:
        self.computer.remove_listener(listener)

    async def play_computer(
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
        return await self.computer.play(
            user_id=user_id,
            location_id=location_id,
            variant=variant,
            level=level,
            colour=colour,
            options=options,
            guild_id=guild_id,
            request_id=request_id,
            seed=seed,
            render=render,
            hold=hold,
        )

    async def computer_turns(self) -> tuple[int, ...]:
        return await self.computer.turns()

    async def computer_move(
        self, *, game_id: int, render: bool = False, budget_s: float | None = None
    ) -> Outcome | None:
        return await self.computer.move(game_id=game_id, render=render, budget_s=budget_s)

    async def offer_draw_to_computer(
        self,
        *,
        user_id: int,
        location_id: int | None = None,
        game_id: int | None = None,
        request_id: str | None = None,
        render: bool = False,
        viewer: Viewer | None = None,
    ) -> DrawAnswer:
        return await self.computer_draw.offer(
            user_id=user_id,
            location_id=location_id,
            game_id=game_id,
            request_id=request_id,
            render=render,
            viewer=viewer,
        )

    # ----- analyses: the analysis component's ----------------------------------

    @property
    def max_analyses(self) -> int:
        """Analyses run at once; the rest wait in order (``bot.service.analysis``)."""
        return self.analyses.max_running

    @max_analyses.setter
    def max_analyses(self, count: int) -> None:
        self.analyses.max_running = count

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
        return await self.analyses.analyse(
            location_id=location_id,
            game_id=game_id,
            viewer=viewer,
            depth=depth,
            progress=progress,
            render=render,
            names=names,
            locale=locale,
            post_in=post_in,
            request_id=request_id,
        )

    # ----- deadlines: the deadline component's ---------------------------------

    async def next_due(self) -> datetime | None:
        """The games' next deadline, or a tournament's next step (issue 30)."""
        times = [await self.deadlines.next_due(), await self.tournaments.next_due()]
        return min((t for t in times if t is not None), default=None)

    async def run_due(
        self, *, now: datetime | None = None, render: bool = False, limit: int = DUE_BATCH
    ) -> tuple[DeadlineEvent, ...]:
        """The games' deadlines, then the tournaments' steps (a round whose last game has
        just ended on time is paired in the same pass)."""
        events = await self.deadlines.run_due(now=now, render=render, limit=limit)
        await self.tournaments.run_due(now=now)
        return events

    async def extend(
        self,
        *,
        user_id: int,
        moderator: bool,
        days: int,
        location_id: int | None = None,
        game_id: int | None = None,
        reason: str | None = None,
        viewer: Viewer | None = None,
    ) -> Outcome:
        return await self.deadlines.extend(
            user_id=user_id,
            moderator=moderator,
            days=days,
            location_id=location_id,
            game_id=game_id,
            reason=reason,
            viewer=viewer,
        )

    # ----- ratings: the standings component's ----------------------------------

    async def leaderboard(
        self,
        *,
        variant: str,
        guild_id: int | None = None,
        user_id: int | None = None,
        limit: int = LEADERBOARD_SIZE,
    ) -> Leaderboard:
        return await self.standings.leaderboard(
            variant=variant, guild_id=guild_id, user_id=user_id, limit=limit
        )

    async def profile(
        self, *, user_id: int, guild_id: int | None = None, viewer_id: int | None = None
    ) -> Profile:
        return await self.standings.profile(user_id=user_id, guild_id=guild_id, viewer_id=viewer_id)

    async def game_ratings(self, *, game_id: int) -> tuple[RatingChange, ...]:
        return await self.standings.game_ratings(game_id=game_id)

    async def rebuild_ratings(self, *, check: bool = False) -> RebuildReport:
        return await self.standings.rebuild_ratings(check=check)

    async def challenge(
        self,
        *,
        location_id: int,
        challenger_id: int,
        variant: str,
        opponent_id: int | None = None,
        colour: str = "random",
        options: dict[str, Any] | None = None,
        guild_id: int | None = None,
        request_id: str | None = None,
        days: int | None = None,
        rated: bool = False,
    ) -> Outcome:
        """A challenge: no engine game, no seed and no die until it is accepted (C4).
        At most ``max_open_challenges`` open challenges per challenger (C7).
        ``days``: the time control, days per move (1 to 14), or ``None`` for no time
        limit. The challenge itself expires after ``challenge_hours``. ``rated``: the
        game counts for ratings once finished (issue 15; Discord's /play asks for it by
        default; local and hot-seat games are unrated)."""
        location_id = check_id(location_id, "the location id")
        challenger_id = check_id(challenger_id, "the challenger id")
        if opponent_id is not None:
            opponent_id = check_id(opponent_id, "the opponent id")
            if opponent_id == challenger_id:
                raise InvalidInput(said("you cannot challenge yourself"))
        if guild_id is not None:
            guild_id = check_id(guild_id, "the guild id")
        request_id = clean_request(request_id)
        check_variant(variant)
        if colour not in ("white", "black", "random"):
            raise InvalidInput(said("the colour must be white, black or random"))
        options = self._check_options(variant, options)
        if days is not None:
            days = check_days(days)
        if not isinstance(rated, bool):
            raise InvalidInput(said("rated must be true or false"))
        now_ms = self._now_ms()
        limit = await self.server_settings.chosen(guild_id, "max_challenges")  # issue 27
        try:
            async with self._lock(self._location_locks, location_id), self._write() as tx:
                repeated = await self._game_by_request_or_free(tx, request_id, location_id)
                if repeated is not None:
                    return repeated
                await self._check_challenge_limit(tx, challenger_id, limit)
                await tx.upsert_player(challenger_id)
                if opponent_id is not None:
                    await tx.upsert_player(opponent_id)
                row = await tx.insert_game(
                    NewGame(
                        variant=variant,
                        options=options,
                        status="challenge",
                        location_id=location_id,
                        guild_id=guild_id,
                        challenger_id=challenger_id,
                        opponent_id=opponent_id,
                        challenger_colour=colour,  # type: ignore[arg-type]
                        request_id=request_id,
                        time_days=days,
                        deadline_ms=now_ms + round(self.challenge_hours * HOUR_MS),
                        rated=rated,
                    )
                )
        except CommitUnknownError:
            if request_id is None:
                raise
            row = await self._settle_new_game(request_id, said("The challenge was not made"))
        self._announce_row(row)
        values = {
            "game": row.id,
            "challenger": self._label(challenger_id),
            "variant": variant_title(variant),
            "colour": said("random") if colour == "random" else colour_word(colour),
            "time": days_text(days),
            "rated": said("rated") if rated else said("unrated"),
        }
        if opponent_id is None:
            made = said(
                "Game {game}: {challenger} challenges anyone to {variant} "
                "(challenger plays {colour}; {time}; {rated}).",
                **values,
            )
        else:
            made = said(
                "Game {game}: {challenger} challenges {opponent} to {variant} "
                "(challenger plays {colour}; {time}; {rated}).",
                opponent=self._label(opponent_id),
                **values,
            )
        messages = (made, said("The dice are drawn when the challenge is accepted."))
        return Outcome(make_view(row, None), messages)

    async def _check_challenge_limit(
        self, tx: WriteTx, challenger_id: int, limit: int | None = None
    ) -> None:
        """Inside the transaction, so racing challenges (even from two processes) count.
        ``limit``: the server's (``server_settings``), else ``max_open_challenges``."""
        limit = self.max_open_challenges if limit is None else limit
        open_ones = await tx.list_games(
            GameQuery(challenger_id=challenger_id, statuses=("challenge",), limit=limit)
        )
        if len(open_ones) >= limit:
            ids = ", ".join(str(g.id) for g in sorted(open_ones, key=lambda g: g.id))
            if len(open_ones) == 1:
                raise TooManyChallenges(
                    said(
                        "you already have 1 open challenge (game {games}); at most {limit} "
                        "may wait at once: cancel one or wait for an answer",
                        games=ids,
                        limit=limit,
                    )
                )
            raise TooManyChallenges(
                said(
                    "you already have {n} open challenges (games {games}); at most {limit} "
                    "may wait at once: cancel one or wait for an answer",
                    n=len(open_ones),
                    games=ids,
                    limit=limit,
                )
            )

    async def accept(
        self,
        *,
        user_id: int,
        location_id: int | None = None,
        game_id: int | None = None,
        render: bool = True,
        seed: str | None = None,
        viewer: Viewer | None = None,
    ) -> Outcome:
        """Start the game: the seed is drawn now, the engine game made and its first
        dice rolled and stored, all in one transaction. The commitment is in the
        messages before the first dice (C4). ``seed``: only for local/demo play."""
        user_id = check_id(user_id, "the user id")
        if seed is not None and (not isinstance(seed, str) or not seed):
            raise InvalidInput(said("a seed must be non-empty text"))
        row = await self._find(location_id, game_id, live_only=True, viewer=viewer)
        async with self._lock(self._game_locks, row.id):
            secret: str | None = None
            owed: int | None = None  # (a commit whose outcome was unknown: the hold runs out)
            try:
                async with self._write() as tx:
                    row = await self._reload(tx, row.id)
                    if row.status != "challenge":
                        raise InvalidState(
                            said(
                                "game {game} is not an open challenge (it is {status})",
                                game=row.id,
                                status=status_word(row.status),
                            )
                        )
                    now_ms = self._now_ms()
                    self._check_time(row, now_ms)  # an expired challenge cannot be accepted
                    if user_id == row.challenger_id:
                        raise NotAllowed(
                            said("you cannot accept your own challenge; cancel it instead")
                        )
                    if row.opponent_id is not None and user_id != row.opponent_id:
                        raise NotAllowed(
                            said(
                                "this challenge is for {player}",
                                player=self._label(row.opponent_id),
                            )
                        )
                    colour = row.challenger_colour
                    if colour == "random":
                        colour = self._rng.choice(COLOURS)
                    white, black = (
                        (row.challenger_id, user_id)
                        if colour == "white"
                        else (user_id, row.challenger_id)
                    )
                    drawn = seed if seed is not None else self._seed_factory()
                    try:  # off the loop: a variant's first game in a process builds its tables
                        game = await self._cpu(
                            new_engine_game, row.variant, row.options, drawn, row.id
                        )
                    except ValueError as error:
                        raise InvalidInput(
                            said(
                                "cannot set up {variant}: {error}",
                                variant=row.variant,
                                error=str(error),
                            )
                        ) from error
                    await tx.upsert_player(user_id)
                    secret = drawn
                    row = await tx.update_game(
                        row.id,
                        GameChanges(
                            status="active",
                            white_id=white,
                            black_id=black,
                            opponent_id=user_id,
                            seed=secret,
                            commitment=seed_commitment(secret),
                            **turn_clock(row.time_days, game.turn, now_ms),
                        ),
                    )
                    rolls = tuple(game.rolls)
                    if rolls:
                        await tx.set_start_rolls(row.id, rolls)
                        row = replace(row, start_rolls=rolls, roll_count=len(rolls))
                    owed = await self._owe_board(tx, row, user_id)
            except CommitUnknownError:
                if secret is None:
                    raise
                mine = secret  # the seed drawn here is in the store only if this accept is
                row = await self._settle_state(
                    row.id,
                    lambda stored: stored.seed == mine and stored.status != "challenge",
                    said("The challenge was not accepted"),
                )
            live = Live(game, 0, 0) if row.log_count == 0 else await self._live_read(row)
            if live is None:  # (settled as accepted, so it has its seed: never)
                raise self._not_started(row)
            self._remember(row.id, live)
            view = make_view(row, live)
            shown = await self._present(live, view, render=render)
        self._announce_row(row)
        messages = (
            said(
                "Game {game} begins: {variant}, white {white}, black {black}.",
                game=row.id,
                variant=variant_title(row.variant),
                white=self._label(white),
                black=self._label(black),
            ),
            said("Dice commitment: {commitment}", commitment=row.commitment),
            self._to_move_line(view),
        )
        return Outcome(
            view,
            messages,
            shown.image,
            legal=shown.legal,
            dice_image=shown.dice_image,
            orientation=shown.side,
            status=shown.status,
            owed=owed,
        )

    async def decline(
        self,
        *,
        user_id: int,
        location_id: int | None = None,
        game_id: int | None = None,
        viewer: Viewer | None = None,
    ) -> Outcome:
        return await self._close_challenge(user_id, location_id, game_id, "declined", viewer)

    async def cancel(
        self,
        *,
        user_id: int,
        location_id: int | None = None,
        game_id: int | None = None,
        viewer: Viewer | None = None,
    ) -> Outcome:
        return await self._close_challenge(user_id, location_id, game_id, "cancelled", viewer)

    async def _close_challenge(
        self,
        user_id: int,
        location_id: int | None,
        game_id: int | None,
        status: str,
        viewer: Viewer | None,
    ) -> Outcome:
        user_id = check_id(user_id, "the user id")
        row = await self._find(location_id, game_id, live_only=True, viewer=viewer)
        game_id = row.id
        try:
            async with self._lock(self._game_locks, row.id), self._write() as tx:
                row = await self._reload(tx, row.id)
                if row.status != "challenge":
                    raise InvalidState(
                        said(
                            "game {game} is not an open challenge (it is {status})",
                            game=row.id,
                            status=status_word(row.status),
                        )
                    )
                if status == "cancelled" and user_id != row.challenger_id:
                    raise NotAllowed(said("only the challenger can cancel a challenge"))
                if status == "declined" and user_id != row.opponent_id:
                    if row.opponent_id is None:
                        raise NotAllowed(
                            said("an open challenge cannot be declined; just leave it")
                        )
                    raise NotAllowed(said("only the challenged player can decline"))
                row = await tx.update_game(
                    row.id,
                    GameChanges(status=status, deadline_ms=None),  # type: ignore[arg-type]
                )
        except CommitUnknownError:  # only this command ends a challenge that way
            row = await self._settle_state(
                game_id,
                lambda stored: stored.status == status,
                said("The challenge was not cancelled")
                if status == "cancelled"
                else said("The challenge was not declined"),
            )
        self._cache.pop(row.id, None)
        if status == "cancelled":
            closed = said("Game {game}: challenge cancelled.", game=row.id)
        else:
            closed = said("Game {game}: challenge declined.", game=row.id)
        return Outcome(make_view(row, None), (closed,))

    # ----- playing ----------------------------------------------------------

    async def act(
        self,
        *,
        user_id: int,
        text: str,
        location_id: int | None = None,
        game_id: int | None = None,
        request_id: str | None = None,
        expected_ply: int | None = None,
        render: bool = True,
        orientation: str | None = None,
        viewer: Viewer | None = None,
    ) -> Outcome:
        started = time.perf_counter()
        user_id = check_id(user_id, "the user id")
        request_id = clean_request(request_id)
        text = clean_text(text)  # a retry carries the same text, so this may come first
        if expected_ply is not None:
            expected_ply = check_id(expected_ply, "the expected ply")
        self._check_orientation(orientation)
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
                        tx, row.id, request_id, ("move",), render, orientation
                    )
                    if repeated is not None:
                        return repeated
                    now_ms = self._now_ms()
                    self._check_time(row, now_ms)
                    live = await self._active_live(tx, row)
                    game = live.game
                    colour = game.turn
                    self._check_mover(row, user_id, colour)
                    if expected_ply is not None and expected_ply != live.ply:
                        raise StaleAction(
                            said(
                                "the game moved on (ply {ply}, you saw {seen}); look again",
                                ply=live.ply,
                                seen=expected_ply,
                            )
                        )
                    before = len(game.rolls)
                    drawn = dice_drawn(game)
                    try:
                        recorded = game.play(text)
                    except ValueError as error:
                        # The engine leaves the game unchanged; if it ever did not, the
                        # cached state is dropped and rebuilt from the log next time.
                        dirty = len(game.rolls) != before or dice_drawn(game) != drawn
                        raise illegal(error) from error
                    except BaseException:
                        dirty = True
                        raise
                    dirty = True
                    rolls = tuple(game.rolls[before:])
                    changes: dict[str, Any] = {}
                    if row.draw_offer is not None and row.draw_offer != colour:
                        changes["draw_offer"] = None  # moving instead of answering declines
                    if game.result is not None:
                        changes.update(
                            status="finished",
                            result=result_text(game.result.winner),
                            result_reason=game.result.reason,
                            draw_offer=None,
                        )
                    turned = self._clock_after(row, colour, game, changes, now_ms)
                    entry = NewAction(
                        row.id, live.seq + 1, "move", user_id, recorded, rolls, request_id
                    )
                    await tx.append_action(entry)
                    row = await tx.update_game(row.id, GameChanges(**changes))
                    if row.status == "finished":
                        rated = await rate_finished(tx, row)
                    owed = await self._owe_board(tx, row, user_id)
                live.seq += 1
                live.ply += 1
                live.turns += turned
            except CommitUnknownError:
                self._cache.pop(row.id, None)
                if entry is None:
                    raise
                settled = await self._settle_entry(
                    entry,
                    (played(colour, row.variant, entry.text),),
                    said("Your move was not played"),
                    render=render,
                    orientation=orientation,
                )
                return replace(settled, owed=owed)  # stored: so is the board it owes
            except BaseException:
                if dirty:
                    self._cache.pop(row.id, None)
                raise
            self._announce_row(row)
            self._snapshot_soon(row, live)
            view = make_view(row, live)
            messages = [played(colour, row.variant, recorded)]
            messages += self._status_lines(row, view)
            messages += rating_lines(rated, self._label)
            shown = await self._present(live, view, render=render, orientation=orientation)
        self.stats.moved(time.perf_counter() - started)
        return Outcome(
            view,
            tuple(messages),
            shown.image,
            recorded,
            rolls,
            legal=shown.legal,
            dice_image=shown.dice_image,
            orientation=shown.side,
            status=shown.status,
            ratings=rated,
            owed=owed,
        )

    async def resign(
        self,
        *,
        user_id: int,
        location_id: int | None = None,
        game_id: int | None = None,
        request_id: str | None = None,
        render: bool = False,
        viewer: Viewer | None = None,
    ) -> Outcome:
        def step(row: GameRow, colour: str, live: Live) -> Step:
            winner = other_colour(colour)
            return Step(
                "resign",
                f"{colour} resigns",
                GameChanges(
                    status="finished",
                    result=result_text(winner),
                    result_reason="resignation",
                    draw_offer=None,
                ),
                [said("{colour} resigns.", colour=colour_name(colour))],
                (winner, "resignation"),
            )

        return await self._player_command(
            user_id, location_id, game_id, request_id, "resign", step, viewer=viewer, render=render
        )

    async def offer_draw(
        self,
        *,
        user_id: int,
        location_id: int | None = None,
        game_id: int | None = None,
        request_id: str | None = None,
        render: bool = False,
        viewer: Viewer | None = None,
    ) -> Outcome:
        def step(row: GameRow, colour: str, live: Live) -> Step:
            if row.draw_offer == colour:
                raise InvalidState(said("you have already offered a draw"))
            if row.draw_offer == other_colour(colour):
                return self._agree(colour)
            return Step(
                "draw_offer",
                f"{colour} offers a draw",
                GameChanges(draw_offer=colour),  # type: ignore[arg-type]
                [said("{colour} offers a draw.", colour=colour_name(colour))],
            )

        # an offer that met the other side's offer was logged as an agreement
        return await self._player_command(
            user_id,
            location_id,
            game_id,
            request_id,
            "draw_offer",
            step,
            viewer=viewer,
            render=render,
            kinds=("draw_offer", "draw_accept"),
        )

    async def accept_draw(
        self,
        *,
        user_id: int,
        location_id: int | None = None,
        game_id: int | None = None,
        request_id: str | None = None,
        render: bool = False,
        viewer: Viewer | None = None,
    ) -> Outcome:
        def step(row: GameRow, colour: str, live: Live) -> Step:
            self._need_offer_from_other(row, colour, "accept")
            return self._agree(colour)

        return await self._player_command(
            user_id,
            location_id,
            game_id,
            request_id,
            "draw_accept",
            step,
            viewer=viewer,
            render=render,
        )

    async def decline_draw(
        self,
        *,
        user_id: int,
        location_id: int | None = None,
        game_id: int | None = None,
        request_id: str | None = None,
        render: bool = False,
        viewer: Viewer | None = None,
    ) -> Outcome:
        def step(row: GameRow, colour: str, live: Live) -> Step:
            self._need_offer_from_other(row, colour, "decline")
            return Step(
                "draw_decline",
                f"{colour} declines the draw",
                GameChanges(draw_offer=None),
                [said("{colour} declines the draw.", colour=colour_name(colour))],
            )

        return await self._player_command(
            user_id,
            location_id,
            game_id,
            request_id,
            "draw_decline",
            step,
            viewer=viewer,
            render=render,
        )

    async def agree_draw(
        self,
        *,
        user_id: int,
        location_id: int | None = None,
        game_id: int | None = None,
        request_id: str | None = None,
        render: bool = False,
    ) -> Outcome:
        """Both players agree to a draw at once, in ONE transaction: for hot-seat play,
        where both sit at one keyboard (the console). ``user_id`` is the player who
        typed it. Any standing offer does not matter. A trusted local caller only:
        there is no ``viewer``, and no Discord command should call this."""

        def step(row: GameRow, colour: str, live: Live) -> Step:
            return self._agree(colour, f"{colour} and {other_colour(colour)} agree to a draw")

        return await self._player_command(
            user_id, location_id, game_id, request_id, "draw_accept", step, render=render
        )

    async def abort(
        self,
        *,
        user_id: int,
        moderator: bool,
        location_id: int | None = None,
        game_id: int | None = None,
        reason: str | None = None,
        viewer: Viewer | None = None,
    ) -> Outcome:
        """A moderator ends a challenge or a game with no result (C5).

        A moderator who plays in a started game may not abort it (a result they do
        not like would vanish, and the next game gets fresh dice): they may resign.
        Every abort is a log entry: who did it (``actor_id``) and why (its text)."""
        user_id = check_id(user_id, "the user id")
        if moderator is not True:
            raise NotAllowed(said("only a moderator can abort a game"))
        why = clean_text(reason) if reason else "aborted by a moderator"
        row = await self._find(location_id, game_id, live_only=True, viewer=viewer)
        entry: NewAction | None = None
        try:
            async with self._lock(self._game_locks, row.id), self._write() as tx:
                row = await self._reload(tx, row.id)
                if not row.is_live:
                    raise InvalidState(
                        said(
                            "game {game} is already over ({status})",
                            game=row.id,
                            status=status_word(row.status),
                        )
                    )
                if row.status == "active" and user_id in (row.white_id, row.black_id):
                    raise NotAllowed(said("you play in this game; resign instead"))
                entry, row = await self._log_abort(tx, row, user_id, why)
        except CommitUnknownError:
            if entry is None:
                raise
            row = await self._settle_logged(entry, said("The game was not aborted"))
        self._cache.pop(row.id, None)
        view = make_view(row, None)
        return Outcome(
            view,
            (
                said(
                    "Game {game} aborted by {player}: {reason}.",
                    game=row.id,
                    player=self._label(user_id),
                    reason=reason_word(why),
                ),
                *self._reveal_lines(row),
            ),
        )
