"""A tournament's life on the scheduler (issue 30): registration closes, rounds are
paired, their games opened, their results recorded, and the final standings posted,
with nobody touching it. Part of the ``Tournaments`` component (``bot.service.tournaments``);
driven by the deadline scheduler through ``GameService.run_due``/``next_due``.

Something of a tournament is due (``storage.tournaments``) when its start time has come
(registration closes: the players are seeded, round 1 is paired), or when its round in
play is over: every game of the round has ended, or the round's deadline has passed.
At the deadline, games still running end as the clock rules end a game whose side to act
runs out of time (``clock.timeout_end``, the same log entry as a timeout), one
transaction per game, before the round is closed.

Each step is one write transaction that first claims the tournament
(``WriteTx.claim_tournament``) and then changes it so that it is no longer due: the
round's results are recorded and the next round paired (its row, its boards, its games,
already accepted, each with its seed drawn and its first dice stored, and the posts it
owes), or the tournament started or finished. Two processes, a restart or a process
killed in the middle therefore pair a round once: the second claim finds nothing due,
a killed transaction leaves nothing, and the round's key refuses a second row whatever
happens.

Posts owed (outbox rows in the tournament's channel, delivered in order):
``tournament_round`` (the round's pairings), ``tournament_game`` per game (the front end
opens the game's thread there and posts its first board; until then the game waits at
a placeholder location, ``placeholder_location``), ``tournament_end`` (the final
standings, with the winner's name) and ``tournament_cancelled``.
"""

from __future__ import annotations

import logging
import random
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from bot.i18n import said
from bot.service.clock import (
    DAY_MS,
    from_ms,
    timeout_end,
    timeout_text,
    to_ms,
    turn_clock,
)
from bot.service.core import ServiceCore
from bot.service.errors import InvalidInput, ServiceError
from bot.service.live import Live, new_engine_game
from bot.service.rating_log import rate_finished
from bot.service.tournament_log import detail_record, detail_words
from bot.service.tournament_pairing import (
    UNRATED,
    board_end,
    field,
    pair_round,
    played_rounds,
    round_robin_rounds,
)
from bot.tournament import Format
from bot.tournament.standings import standings
from storage import GameChanges, GameRow, NewAction, NewGame, NewPost, WriteTx
from storage.tournaments import BoardRow, TournamentRow
from variants.dice import seed_commitment

log = logging.getLogger(__name__)

DUE_BATCH = 50
TIMEOUTS_OUT = 2  # games lost on time after which a player is withdrawn from the pairings
BOARDS_PER_ROUND = 1000  # placeholder locations: boards and rounds below this many


def placeholder_location(tournament_id: int, round_no: int, board: int) -> int:
    """Where a tournament game waits until its thread is made: a negative number, which
    no channel has, one per board."""
    return -(
        tournament_id * BOARDS_PER_ROUND * BOARDS_PER_ROUND + round_no * BOARDS_PER_ROUND + board
    )


def is_placeholder(location_id: int) -> bool:
    return location_id < 0


@dataclass(frozen=True)
class TournamentEvent:
    """What the scheduler did to a tournament: ``kind`` is ``started``, ``paired``,
    ``finished`` or ``cancelled``; ``line`` says it in words (for a log)."""

    kind: str
    tournament_id: int
    round_no: int
    line: str


class TournamentLife:
    """The scheduler's half of ``Tournaments``; see the module."""

    core: ServiceCore
    _rng: random.Random

    # ----- the scheduler's calls ---------------------------------------------------

    async def next_due(self) -> datetime | None:
        """When something of a tournament is next due (now, if a round is over)."""
        now_ms = self.core._now_ms()
        repo = self.core.repo
        if await repo.due_tournaments(now_ms, 1, self.core.shards):
            return from_ms(now_ms)
        upcoming = await repo.next_tournament_time(self.core.shards)
        return None if upcoming is None else from_ms(upcoming)

    async def run_due(self, *, now: datetime | None = None) -> tuple[TournamentEvent, ...]:
        """Handle every tournament with something due at ``now`` (default: the clock's),
        each step once across processes (see the module)."""
        now_ms = to_ms(now or self.core.clock.now())
        events: list[TournamentEvent] = []
        tried: set[int] = set()
        while True:
            due = await self.core.repo.due_tournaments(now_ms, DUE_BATCH, self.core.shards)
            fresh = [t for t in due if t not in tried]
            for tournament_id in fresh:
                tried.add(tournament_id)
                try:
                    events += await self._handle_due(tournament_id, now_ms)
                except ServiceError as error:
                    log.error("tournament %s: could not be moved on: %s", tournament_id, error)
            if not fresh or len(due) < DUE_BATCH:
                return tuple(events)

    async def _handle_due(self, tournament_id: int, now_ms: int) -> list[TournamentEvent]:
        tournament = await self.core.repo.tournament(tournament_id)
        if tournament is None:
            return []
        if tournament.status == "running":
            await self._end_at_round_deadline(tournament, now_ms)
        return await self._advance(tournament_id, now_ms, actor=None)

    # ----- the round's deadline ----------------------------------------------------

    async def _end_at_round_deadline(self, tournament: TournamentRow, now_ms: int) -> None:
        """Past the round's deadline, end each game still running as a timeout of its side
        to act, in a transaction of its own."""
        rounds = await self.core.repo.tournament_rounds(tournament.id)
        current = next((r for r in rounds if r.number == tournament.current_round), None)
        if current is None or current.status != "playing" or now_ms < current.deadline_ms:
            return
        boards = await self.core.repo.tournament_boards(tournament.id)
        for board in boards:
            if board.round == current.number and board.game_id is not None:
                try:
                    await self._end_game_at_deadline(board, now_ms)
                except ServiceError as error:
                    log.error(
                        "game %s: could not end at its round's deadline: %s", board.game_id, error
                    )

    async def _end_game_at_deadline(self, board: BoardRow, now_ms: int) -> None:
        core = self.core
        assert board.game_id is not None
        game_id = board.game_id
        async with core._lock(core._game_locks, game_id):
            dirty = False
            try:
                async with core._write() as tx:
                    row = await core._reload(tx, game_id)
                    if not row.is_live:
                        return
                    live = await core._live_in(tx, row)
                    colour = str(live.game.turn)
                    end = timeout_end(live.game, live.turns)
                    await tx.append_action(
                        NewAction(row.id, live.seq + 1, "timeout", None, timeout_text(colour))
                    )
                    row = await tx.update_game(
                        row.id,
                        GameChanges(
                            status=end.status,  # type: ignore[arg-type]
                            result=end.result,
                            result_reason=end.reason,
                            draw_offer=None,
                            deadline_ms=None,
                            reminder_ms=None,
                        ),
                    )
                    dirty = True
                    if end.status == "finished":
                        live.game.end(end.winner, end.reason)
                        await rate_finished(tx, row)
                        result, forfeit = end.result, False
                    else:  # nobody moved in the whole round: the side to act forfeits
                        result, forfeit = ("0-1" if colour == "white" else "1-0"), True
                    await tx.set_board_result(
                        board.tournament_id,
                        board.round,
                        board.board,
                        result,
                        forfeit,
                        "round deadline",
                    )
                    await core._owe(tx, row, "timeout", payload={"colour": colour})
                live.seq += 1
            except BaseException:
                if dirty:
                    core._cache.pop(game_id, None)
                raise
            if row.status == "aborted":
                core._cache.pop(row.id, None)

    # ----- one step: claimed, done, committed ----------------------------------------

    async def _advance(
        self, tournament_id: int, now_ms: int, *, actor: int | None
    ) -> list[TournamentEvent]:
        """Claim the tournament and take its next step, in one transaction."""
        opened: list[tuple[GameRow, Live]] = []
        events: list[TournamentEvent] = []
        async with self.core._write() as tx:
            tournament = await tx.claim_tournament(tournament_id, now_ms)
            if tournament is None:
                return []  # not due any more: handled elsewhere, or changed meanwhile
            if tournament.status == "registration":
                await self._start_in(tx, tournament, now_ms, actor, opened, events)
            else:
                await self._close_round_in(tx, tournament, now_ms, opened, events)
        for row, live in opened:  # committed: the games are live
            self.core._remember(row.id, live)
            self.core._announce_row(row)
        for event in events:
            log.info("tournament %s: %s", event.tournament_id, event.line)
        return events

    async def _start_in(
        self,
        tx: WriteTx,
        tournament: TournamentRow,
        now_ms: int,
        actor: int | None,
        opened: list[tuple[GameRow, Live]],
        events: list[TournamentEvent],
    ) -> None:
        """Close the registration: seed the players and pair round 1 (or cancel, with
        fewer than two players)."""
        players = [p for p in await tx.tournament_players(tournament.id) if p.status == "joined"]
        if len(players) < 2:
            await tx.update_tournament(tournament.id, status="cancelled")
            why = "fewer than two players had joined when it was due to start"
            await tx.log_tournament(
                tournament.id, "cancel", actor_id=actor, detail=detail_record("too_few")
            )
            await self._owe(tx, tournament, "tournament_cancelled", {"reason": why})
            events.append(TournamentEvent("cancelled", tournament.id, 0, f"cancelled: {why}"))
            return
        ratings: dict[int, float] = {}
        for p in players:
            rated = await tx.rating_of(tournament.guild_id, tournament.variant, p.player_id)
            ratings[p.player_id] = UNRATED if rated is None else float(rated.rating)
        if Format(tournament.format) is Format.ROUND_ROBIN:
            order = sorted(players, key=lambda p: p.player_id)
            self._rng.shuffle(order)  # the drawing of lots for Berger numbers
            rounds = round_robin_rounds(len(order), bool(tournament.settings.get("double")))
        else:
            order = sorted(players, key=lambda p: (-ratings[p.player_id], p.player_id))
            rounds = tournament.rounds
        for number, p in enumerate(order, start=1):
            await tx.update_tournament_player(
                tournament.id, p.player_id, seed_no=number, rating=ratings[p.player_id]
            )
        tournament = await tx.update_tournament(tournament.id, status="running", rounds=rounds)
        await tx.log_tournament(
            tournament.id,
            "start",
            actor_id=actor,
            detail=detail_record("start", players=len(order), rounds=rounds),
        )
        events.append(
            TournamentEvent("started", tournament.id, 0, f"started with {len(order)} players")
        )
        await self._pair_in(tx, tournament, 1, now_ms, opened, events)

    async def _close_round_in(
        self,
        tx: WriteTx,
        tournament: TournamentRow,
        now_ms: int,
        opened: list[tuple[GameRow, Live]],
        events: list[TournamentEvent],
    ) -> None:
        """Record the results of the round in play, withdraw players who lost two games on
        time, then pair the next round or finish."""
        number = tournament.current_round
        boards = [b for b in await tx.tournament_boards(tournament.id) if b.round == number]
        timeouts: dict[int, int] = {}
        for board in boards:
            if board.game_id is None or board.ending is not None:
                continue  # a forfeit without a game, or decided at the round's deadline
            game = await tx.get_game(board.game_id)
            if game is None:
                continue
            last = await tx.actions(game.id, after=max(0, game.log_count - 1))
            end = board_end(game, last[-1] if last else None)
            if end is None:  # still played: the round is not over (never, once claimed)
                raise ServiceError(
                    said(
                        "game {game} of round {round} is still being played",
                        game=game.id,
                        round=number,
                    )
                )
            await tx.set_board_result(
                tournament.id, number, board.board, end.result, end.forfeit, end.ending
            )
            if end.timed_out is not None:
                timeouts[end.timed_out] = timeouts.get(end.timed_out, 0) + 1
        await tx.close_round(tournament.id, number, now_ms)
        for player in await tx.tournament_players(tournament.id):
            added = timeouts.get(player.player_id, 0)
            if not added:
                continue
            total = player.timeouts + added
            await tx.update_tournament_player(tournament.id, player.player_id, timeouts=total)
            if total >= TIMEOUTS_OUT and player.status == "joined":
                await tx.update_tournament_player(
                    tournament.id, player.player_id, status="withdrawn", out_from=number + 1
                )
                await tx.log_tournament(
                    tournament.id,
                    "withdraw",
                    player_id=player.player_id,
                    detail=detail_record("timeouts", n=total),
                )
        players = await tx.tournament_players(tournament.id)
        left = [p for p in players if p.seed_no is not None and p.plays_in(number + 1)]
        swiss = Format(tournament.format) is Format.SWISS
        if number >= tournament.rounds or (swiss and len(left) < 2):
            await self._finish_in(tx, tournament, events)
            return
        await self._pair_in(tx, tournament, number + 1, now_ms, opened, events)

    async def _pair_in(
        self,
        tx: WriteTx,
        tournament: TournamentRow,
        number: int,
        now_ms: int,
        opened: list[tuple[GameRow, Live]],
        events: list[TournamentEvent],
    ) -> None:
        """Pair round ``number`` from the stored results, and open its games."""
        players = await tx.tournament_players(tournament.id)
        rounds = await tx.tournament_rounds(tournament.id)
        boards = await tx.tournament_boards(tournament.id)
        pairing = pair_round(tournament, players, rounds, boards, number)
        swiss = Format(tournament.format) is Format.SWISS
        out = {p.player_id for p in players if not p.plays_in(number)}
        bye = pairing.bye if pairing.bye not in out else None
        round_days = int(tournament.settings.get("round_days", tournament.days))
        await tx.insert_round(
            tournament.id,
            number,
            bye_id=bye,
            bye_points=float(tournament.settings.get("bye_points", 1.0)) if swiss else 0.0,
            compromises=pairing.compromises,
            started_ms=now_ms,
            deadline_ms=now_ms + round_days * DAY_MS,
        )
        tournament = await tx.update_tournament(tournament.id, current_round=number)
        games: list[GameRow] = []
        for b in pairing.boards:
            white_out, black_out = b.white in out, b.black in out
            if white_out or black_out:  # a round robin's game against a withdrawn player
                result = None if white_out and black_out else ("0-1" if white_out else "1-0")
                ending = "not played" if result is None else "forfeit"
                await tx.insert_board(
                    BoardRow(
                        tournament.id,
                        number,
                        b.number,
                        b.white,
                        b.black,
                        None,
                        result,
                        result is not None,
                        ending,
                    )
                )
                continue
            row, live = await self._open_game(tx, tournament, number, b.number, b.white, b.black)
            await tx.insert_board(
                BoardRow(
                    tournament.id, number, b.number, b.white, b.black, row.id, None, False, None
                )
            )
            opened.append((row, live))
            games.append(row)
        await self._owe(tx, tournament, "tournament_round", {"round": number})
        for row in games:
            await self._owe(tx, tournament, "tournament_game", {"round": number}, game=row)
        detail = detail_record(
            "pair",
            round=number,
            boards=len(pairing.boards),
            bye=bye,
            gave_way=list(pairing.compromises),
        )
        await tx.log_tournament(tournament.id, "pair", detail=detail)
        events.append(TournamentEvent("paired", tournament.id, number, str(detail_words(detail))))

    async def _open_game(
        self,
        tx: WriteTx,
        tournament: TournamentRow,
        round_no: int,
        board: int,
        white: int,
        black: int,
    ) -> tuple[GameRow, Live]:
        """A round's game, already accepted: its seed drawn, its first dice stored, its
        clock running with the tournament's days per move (as ``accept`` starts a game)."""
        core = self.core
        options = dict(tournament.settings.get("options") or {})
        secret = core._seed_factory()
        await tx.upsert_player(white)
        await tx.upsert_player(black)
        row = await tx.insert_game(
            NewGame(
                variant=tournament.variant,
                options=options,
                status="active",
                location_id=placeholder_location(tournament.id, round_no, board),
                guild_id=tournament.guild_id,
                challenger_id=white,
                opponent_id=black,
                challenger_colour="white",
                seed=secret,
                commitment=seed_commitment(secret),
                white_id=white,
                black_id=black,
                time_days=tournament.days,
                rated=tournament.rated,
            )
        )
        try:
            game = await core._cpu(new_engine_game, tournament.variant, options, secret, row.id)
        except ValueError as error:
            raise InvalidInput(
                said(
                    "cannot set up {variant}: {error}", variant=tournament.variant, error=str(error)
                )
            ) from error
        row = await tx.update_game(
            row.id, GameChanges(**turn_clock(tournament.days, game.turn, core._now_ms()))
        )
        rolls = tuple(game.rolls)
        if rolls:
            await tx.set_start_rolls(row.id, rolls)
            row = await core._reload(tx, row.id)
        return row, Live(game, 0, 0)

    async def _finish_in(
        self, tx: WriteTx, tournament: TournamentRow, events: list[TournamentEvent]
    ) -> None:
        players = await tx.tournament_players(tournament.id)
        rounds = await tx.tournament_rounds(tournament.id)
        boards = await tx.tournament_boards(tournament.id)
        table = standings(tournament.format, field(players), played_rounds(rounds, boards))
        winner = table[0] if table else None
        winner_id = winner.player.id if winner is not None else None
        await tx.update_tournament(tournament.id, status="finished", winner_id=winner_id)
        name = self._name_of(winner_id, players) if winner_id is not None else "nobody"
        points = winner.points if winner is not None else 0.0
        await tx.log_tournament(
            tournament.id,
            "finish",
            player_id=winner_id,
            detail=detail_record(
                "finish", player=name if winner_id is not None else None, points=points
            ),
        )
        await self._owe(
            tx,
            tournament,
            "tournament_end",
            {"winner": winner_id, "winner_name": name, "points": points},
        )
        events.append(
            TournamentEvent("finished", tournament.id, tournament.current_round, f"won by {name}")
        )

    # ----- helpers -----------------------------------------------------------------

    def _name_of(self, player_id: int, players: Any) -> str:
        for p in players:
            if p.player_id == player_id and p.name:
                return str(p.name)
        return self.core._label(player_id)

    async def _owe(
        self,
        tx: WriteTx,
        tournament: TournamentRow,
        kind: str,
        payload: dict[str, Any],
        *,
        game: GameRow | None = None,
    ) -> int:
        """A post owed to the tournament's channel, in ``tx``."""
        post = NewPost(
            channel_id=tournament.channel_id,
            kind=kind,
            game_id=None if game is None else game.id,
            guild_id=tournament.guild_id,
            seq=None if game is None else game.log_count,
            payload={"tournament": tournament.id, **payload},
        )
        owed = await tx.owe(post, self.core._now_ms())
        self.core._owed_in.add(id(tx))
        return owed
