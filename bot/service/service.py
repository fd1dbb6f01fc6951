"""``GameService``: challenges, actions, draws, looking and verifying. See ``bot.service``.

Concurrency model:
- one ``asyncio.Lock`` per game (and one per location for creating challenges), so
  commands on one game run one at a time in this process;
- every command that changes a game runs in one ``BEGIN IMMEDIATE`` transaction that
  re-reads the game row and the log length first, so another process sharing the
  database file is noticed (the cached engine state is then rebuilt from the log);
- the log's primary key ``(game_id, seq)`` makes a second action for the same slot
  fail even if everything above were bypassed.

Rolls are drawn by the engine inside the transaction and stored with the action
before the transaction commits and before anything is returned.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any

import variants
from bot.service.core import (
    COLOURS,
    ServiceCore,
    Step,
    check_id,
    clean_request,
    clean_text,
    other_colour,
)
from bot.service.errors import (
    InvalidInput,
    InvalidState,
    NotAllowed,
    StaleAction,
    UnknownVariant,
)
from bot.service.live import (
    Live,
    dice_drawn,
    illegal,
    make_summary,
    make_view,
    new_engine_game,
    render_board,
    result_text,
    variant_title,
)
from bot.service.results import GameSummary, GameView, History, HistoryEntry, Outcome, VerifyReport
from bot.service.verify import verify_game
from storage import STATUSES, GameChanges, GameQuery, GameRow, NewAction, NewGame
from variants.dice import seed_commitment

__all__ = ["GameService", "render_board"]


class GameService(ServiceCore):
    """Game sessions over a repository. The API is documented in ``bot.service``."""

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
        seed: str | None = None,
        render: bool = False,
    ) -> Outcome:
        location_id = check_id(location_id, "the location id")
        challenger_id = check_id(challenger_id, "the challenger id")
        if opponent_id is not None:
            opponent_id = check_id(opponent_id, "the opponent id")
            if opponent_id == challenger_id:
                raise InvalidInput("you cannot challenge yourself")
        if guild_id is not None:
            guild_id = check_id(guild_id, "the guild id")
        request_id = clean_request(request_id)
        if variant not in variants.names():
            raise UnknownVariant(
                f"unknown variant {str(variant)[:40]!r}; choose one of: {', '.join(variants.names())}"
            )
        if colour not in ("white", "black", "random"):
            raise InvalidInput("the colour must be white, black or random")
        options = self._check_options(variant, options)
        if seed is not None and (not isinstance(seed, str) or not seed):
            raise InvalidInput("a seed must be non-empty text")
        async with self._lock(self._location_locks, location_id), self._write() as tx:
            if request_id is not None:
                earlier = await tx.game_by_request(request_id)
                if earlier is not None:
                    live = await self._live_in(tx, earlier)
                    return Outcome(make_view(earlier, live), ("(already done)",), repeated=True)
            busy = await tx.live_game_at(location_id)
            if busy is not None:
                raise self._busy(busy)
            await tx.upsert_player(challenger_id)
            if opponent_id is not None:
                await tx.upsert_player(opponent_id)
            secret = seed if seed is not None else self._seed_factory()
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
                    seed=secret,
                    commitment=seed_commitment(secret),
                    request_id=request_id,
                )
            )
            try:
                game = new_engine_game(variant, options, secret, row.id)
            except ValueError as error:
                raise InvalidInput(f"cannot set up {variant}: {error}") from error
            rolls = tuple(game.rolls)
            if rolls:
                await tx.set_start_rolls(row.id, rolls)
            row = replace(row, start_rolls=rolls)
        live = Live(game, 0, 0)
        self._remember(row.id, live)
        who = self._label(opponent_id) if opponent_id is not None else "anyone"
        messages = (
            f"Game {row.id}: {self._label(challenger_id)} challenges {who} to "
            f"{variant_title(variant)} (challenger plays {colour}).",
            f"Dice commitment: {row.commitment}",
        )
        image = await self._maybe_render(live, "white") if render else None
        return Outcome(make_view(row, live), messages, image)

    async def accept(
        self,
        *,
        user_id: int,
        location_id: int | None = None,
        game_id: int | None = None,
        render: bool = True,
    ) -> Outcome:
        user_id = check_id(user_id, "the user id")
        row = await self._find(location_id, game_id, live_only=True)
        async with self._lock(self._game_locks, row.id), self._write() as tx:
            row = await self._reload(tx, row.id)
            if row.status != "challenge":
                raise InvalidState(f"game {row.id} is not an open challenge (it is {row.status})")
            if user_id == row.challenger_id:
                raise NotAllowed("you cannot accept your own challenge; cancel it instead")
            if row.opponent_id is not None and user_id != row.opponent_id:
                raise NotAllowed(f"this challenge is for {self._label(row.opponent_id)}")
            colour = row.challenger_colour
            if colour == "random":
                colour = self._rng.choice(COLOURS)
            white, black = (
                (row.challenger_id, user_id) if colour == "white" else (user_id, row.challenger_id)
            )
            await tx.upsert_player(user_id)
            row = await tx.update_game(
                row.id,
                GameChanges(status="active", white_id=white, black_id=black, opponent_id=user_id),
            )
            live = await self._live_in(tx, row)
        view = make_view(row, live)
        messages = (
            f"Game {row.id} begins: {variant_title(row.variant)}, white {self._label(white)}, "
            f"black {self._label(black)}.",
            self._to_move_line(view),
        )
        image = await self._maybe_render(live, view.turn or "white") if render else None
        return Outcome(view, messages, image)

    async def decline(
        self, *, user_id: int, location_id: int | None = None, game_id: int | None = None
    ) -> Outcome:
        return await self._close_challenge(user_id, location_id, game_id, "declined")

    async def cancel(
        self, *, user_id: int, location_id: int | None = None, game_id: int | None = None
    ) -> Outcome:
        return await self._close_challenge(user_id, location_id, game_id, "cancelled")

    async def _close_challenge(
        self, user_id: int, location_id: int | None, game_id: int | None, status: str
    ) -> Outcome:
        user_id = check_id(user_id, "the user id")
        row = await self._find(location_id, game_id, live_only=True)
        async with self._lock(self._game_locks, row.id), self._write() as tx:
            row = await self._reload(tx, row.id)
            if row.status != "challenge":
                raise InvalidState(f"game {row.id} is not an open challenge (it is {row.status})")
            if status == "cancelled" and user_id != row.challenger_id:
                raise NotAllowed("only the challenger can cancel a challenge")
            if status == "declined" and user_id != row.opponent_id:
                if row.opponent_id is None:
                    raise NotAllowed("an open challenge cannot be declined; just leave it")
                raise NotAllowed("only the challenged player can decline")
            row = await tx.update_game(row.id, GameChanges(status=status))  # type: ignore[arg-type]
        self._cache.pop(row.id, None)
        return Outcome(make_view(row, None), (f"Game {row.id}: challenge {status}.",))

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
    ) -> Outcome:
        user_id = check_id(user_id, "the user id")
        request_id = clean_request(request_id)
        text = clean_text(text)  # a retry carries the same text, so this may come first
        if expected_ply is not None:
            expected_ply = check_id(expected_ply, "the expected ply")
        self._check_orientation(orientation)
        row = await self._find(location_id, game_id, live_only=True)
        async with self._lock(self._game_locks, row.id):
            dirty = False
            try:
                async with self._write() as tx:
                    row = await self._reload(tx, row.id)
                    repeated = await self._repeat_request(
                        tx, row, request_id, ("move",), render, orientation
                    )
                    if repeated is not None:
                        return repeated
                    live = await self._active_live(tx, row)
                    game = live.game
                    colour = game.turn
                    self._check_mover(row, user_id, colour)
                    if expected_ply is not None and expected_ply != live.ply:
                        raise StaleAction(
                            f"the game moved on (ply {live.ply}, you saw {expected_ply}); look again"
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
                    await tx.append_action(
                        NewAction(
                            row.id, live.seq + 1, "move", user_id, recorded, rolls, request_id
                        )
                    )
                    row = await tx.update_game(row.id, GameChanges(**changes))
                live.seq += 1
                live.ply += 1
            except BaseException:
                if dirty:
                    self._cache.pop(row.id, None)
                raise
            view = make_view(row, live)
            messages = [f"{colour.capitalize()} played {recorded}."]
            messages += self._status_lines(row, view)
            image = (
                await self._maybe_render(live, orientation or view.turn or "white")
                if render
                else None
            )
        return Outcome(view, tuple(messages), image, recorded, rolls)

    async def resign(
        self,
        *,
        user_id: int,
        location_id: int | None = None,
        game_id: int | None = None,
        request_id: str | None = None,
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
                [f"{colour.capitalize()} resigns."],
                (winner, "resignation"),
            )

        return await self._player_command(user_id, location_id, game_id, request_id, "resign", step)

    async def offer_draw(
        self,
        *,
        user_id: int,
        location_id: int | None = None,
        game_id: int | None = None,
        request_id: str | None = None,
    ) -> Outcome:
        def step(row: GameRow, colour: str, live: Live) -> Step:
            if row.draw_offer == colour:
                raise InvalidState("you have already offered a draw")
            if row.draw_offer == other_colour(colour):
                return self._agree(colour)
            return Step(
                "draw_offer",
                f"{colour} offers a draw",
                GameChanges(draw_offer=colour),  # type: ignore[arg-type]
                [f"{colour.capitalize()} offers a draw."],
            )

        return await self._player_command(
            user_id, location_id, game_id, request_id, "draw_offer", step
        )

    async def accept_draw(
        self,
        *,
        user_id: int,
        location_id: int | None = None,
        game_id: int | None = None,
        request_id: str | None = None,
    ) -> Outcome:
        def step(row: GameRow, colour: str, live: Live) -> Step:
            self._need_offer_from_other(row, colour, "accept")
            return self._agree(colour)

        return await self._player_command(
            user_id, location_id, game_id, request_id, "draw_accept", step
        )

    async def decline_draw(
        self,
        *,
        user_id: int,
        location_id: int | None = None,
        game_id: int | None = None,
        request_id: str | None = None,
    ) -> Outcome:
        def step(row: GameRow, colour: str, live: Live) -> Step:
            self._need_offer_from_other(row, colour, "decline")
            return Step(
                "draw_decline",
                f"{colour} declines the draw",
                GameChanges(draw_offer=None),
                [f"{colour.capitalize()} declines the draw."],
            )

        return await self._player_command(
            user_id, location_id, game_id, request_id, "draw_decline", step
        )

    async def abort(
        self,
        *,
        user_id: int,
        moderator: bool,
        location_id: int | None = None,
        game_id: int | None = None,
        reason: str | None = None,
    ) -> Outcome:
        user_id = check_id(user_id, "the user id")
        if moderator is not True:
            raise NotAllowed("only a moderator can abort a game")
        why = clean_text(reason) if reason else "aborted by a moderator"
        row = await self._find(location_id, game_id, live_only=True)
        async with self._lock(self._game_locks, row.id), self._write() as tx:
            row = await self._reload(tx, row.id)
            if not row.is_live:
                raise InvalidState(f"game {row.id} is already over ({row.status})")
            seq = await tx.last_seq(row.id)
            await tx.append_action(NewAction(row.id, seq + 1, "abort", user_id, why))
            row = await tx.update_game(
                row.id, GameChanges(status="aborted", result_reason=why, draw_offer=None)
            )
        self._cache.pop(row.id, None)
        view = make_view(row, None)
        return Outcome(view, (f"Game {row.id} aborted: {why}.", *self._reveal_lines(row)))

    # ----- looking ------------------------------------------------------------

    async def view(self, *, location_id: int | None = None, game_id: int | None = None) -> GameView:
        row = await self._find(location_id, game_id, live_only=False)
        async with self._lock(self._game_locks, row.id):
            return make_view(row, await self._live_read(row))

    async def board(
        self,
        *,
        location_id: int | None = None,
        game_id: int | None = None,
        orientation: str | None = None,
        user_id: int | None = None,
    ) -> Outcome:
        self._check_orientation(orientation)
        row = await self._find(location_id, game_id, live_only=False)
        async with self._lock(self._game_locks, row.id):
            live = await self._live_read(row)
            view = make_view(row, live)
            side = orientation
            if side is None and user_id is not None:
                side = view.colour_of(user_id)
            image = await self._render(live, side or view.turn or "white")
        return Outcome(view, tuple(self._status_lines(row, view)), image)

    async def legal_moves(
        self, *, location_id: int | None = None, game_id: int | None = None
    ) -> tuple[str, ...]:
        row = await self._find(location_id, game_id, live_only=False)
        if row.status != "active":
            return ()
        async with self._lock(self._game_locks, row.id):
            live = await self._live_read(row)
            return tuple(live.game.legal_moves())

    async def position(self, *, location_id: int | None = None, game_id: int | None = None) -> str:
        """The position as text (FEN-like; on 8x8 boards the first field is FEN placement)."""
        row = await self._find(location_id, game_id, live_only=False)
        async with self._lock(self._game_locks, row.id):
            live = await self._live_read(row)
            try:
                return str(live.game.fen())
            except (NotImplementedError, AttributeError, ValueError):
                return f"(no position text for {row.variant})"

    async def history(
        self, *, location_id: int | None = None, game_id: int | None = None
    ) -> History:
        row = await self._find(location_id, game_id, live_only=False)
        async with self._lock(self._game_locks, row.id):
            actions = await self.repo.actions(row.id)
            live = await self._live_read(row)
            entries = tuple(
                HistoryEntry(a.seq, a.kind, a.actor_id, a.text, a.rolls, a.created_at)
                for a in actions
            )
            return History(make_view(row, live), live.game.record(), entries, row.start_rolls)

    async def list_games(
        self,
        *,
        location_id: int | None = None,
        guild_id: int | None = None,
        player_id: int | None = None,
        statuses: Iterable[str] | None = None,
        limit: int = 25,
    ) -> tuple[GameSummary, ...]:
        chosen: tuple[Any, ...] | None = None
        if statuses is not None:
            chosen = tuple(statuses)
            bad = [s for s in chosen if s not in STATUSES]
            if bad:
                raise InvalidInput(f"unknown status {bad[0]!r}; use: {', '.join(STATUSES)}")
        limit = check_id(limit, "the limit")
        query = GameQuery(
            location_id=None if location_id is None else check_id(location_id, "the location id"),
            guild_id=None if guild_id is None else check_id(guild_id, "the guild id"),
            player_id=None if player_id is None else check_id(player_id, "the player id"),
            statuses=chosen,
            limit=max(1, min(limit, 100)),
        )
        return tuple(make_summary(r) for r in await self.repo.list_games(query))

    async def verify(
        self, *, location_id: int | None = None, game_id: int | None = None
    ) -> VerifyReport:
        row = await self._find(location_id, game_id, live_only=False)
        return verify_game(row, await self.repo.actions(row.id))

    # ----- internals ------------------------------------------------------------
