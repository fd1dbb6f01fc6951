"""Tournaments on a server (issue 30): a component of ``GameService``, given its core
(as ``Deadlines`` is) and the server settings. ``GameService.tournaments`` is it.

Commands (keyword-only; a refusal is a ``ServiceError`` whose ``str()`` is one plain
sentence, and nothing is changed)::

    create(guild_id, channel_id, user_id, may_run, variant, format, rounds, days, rated,
           starts, name=None)            # may_run: a moderator, or the server's tournament role
    join(guild_id, user_id, name=None, tournament_id=None)
    leave(...)  withdraw(...)            # leave before the start, withdraw after it
    start(guild_id, user_id, may_run, tournament_id=None)    # now, instead of at its time
    remove(guild_id, user_id, may_run, player_id, tournament_id=None, reason=None)
    cancel(guild_id, user_id, may_run, tournament_id=None, reason=None)
    info(...)  pairings(..., round_no=None)  standings(...)  standings_image(..., locale=None)
    check(tournament_id) -> list[str]    # every stored round re-paired: the differences
    place_game(game_id, location_id)     # a round's game moves into its thread

A command names its tournament by id, or, without one, the server's only live
tournament. Every change is logged (``tournament_log``): who did what, and when.
Registration closes at the start time: from then on nobody joins, even before the
scheduler has paired round 1. The limits are the server's settings (``max_tournaments``
live at once, ``tournament_players`` per tournament; a round robin takes at most 16).

The tournament's life on the scheduler (rounds paired, results recorded, the end) is in
``bot.service.tournament_life``; the rows in ``storage.tournaments``; the pairing in
``bot.tournament``, from the stored results (``bot.service.tournament_pairing``).
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from bot.i18n import said
from bot.service.clock import check_days, from_ms, iso, to_ms
from bot.service.core import ServiceCore, check_id, check_variant, clean_text
from bot.service.errors import InvalidInput, InvalidState, NotAllowed, NotFound
from bot.service.live import variant_title
from bot.service.settings import ServerSettings
from bot.service.store_faults import translate_store_faults
from bot.service.tournament_life import TournamentLife, is_placeholder
from bot.service.tournament_log import detail_record
from bot.service.tournament_views import (
    BoardLine,
    RoundPairings,
    TournamentInfo,
    TournamentStandings,
    TournamentViews,
    points_text,
)
from bot.service.words import reason_word, tournament_status_word
from bot.tournament.roundrobin import MAX_PLAYERS as ROUND_ROBIN_MAX
from storage import GameChanges, WriteTx
from storage.tournaments import (
    LIVE_TOURNAMENT,
    BoardRow,
    NewTournament,
    TournamentRow,
)

MAX_SWISS_ROUNDS = 30
MAX_START_DAYS = 90  # a tournament starts within this many days
ROUND_DAYS_PER_DAY = 10  # a round lasts this many times the days per move (a setting)
MAX_NAME = 80
FORMATS = ("swiss", "round-robin")
_DELAY = re.compile(r"(\d+)\s*(d|days?|h|hours?|m|mins?|minutes?)", re.IGNORECASE)
_STAMP = re.compile(r"^<t:(-?\d+)(?::[a-zA-Z])?>$")


def parse_start(text: str, now: datetime) -> datetime:
    """A start time: a delay (``2h``, ``3d``, ``1d 12h``, ``90m``), a UTC time
    (``2030-05-01 18:00``, or ISO 8601 with an offset) or a Discord timestamp
    (``<t:1893456000:F>``)."""
    typed = " ".join(str(text).split())
    words = typed.lower().removeprefix("in ").strip()
    if words and _DELAY.sub("", words).strip(" ,and") == "":
        delta = timedelta()
        for amount, unit in _DELAY.findall(words):
            n = int(amount)
            if unit[0] == "d":
                delta += timedelta(days=n)
            elif unit[0] == "h":
                delta += timedelta(hours=n)
            else:
                delta += timedelta(minutes=n)
        return now + delta
    stamp = _STAMP.match(typed)
    if stamp:
        return datetime.fromtimestamp(int(stamp[1]), UTC)
    try:
        when = datetime.fromisoformat(typed.replace("Z", "+00:00"))
    except ValueError:
        raise InvalidInput(
            said(
                "I can't read the start {start}: give a time like 2030-05-01 18:00 (UTC) "
                "or a delay like 2h or 3d",
                start=repr(typed[:40]),
            )
        ) from None
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)


@dataclass(frozen=True)
class TournamentNews:
    """What a command did: the tournament after it, and one sentence."""

    tournament: TournamentRow
    message: str
    players: int = 0


def default_name(variant: str, format: str) -> str:
    """A tournament's name when its organiser gives none (``Said``): the variant and the
    format. A front end may say it in the server's language and pass it as ``name``;
    without one it is stored in English."""
    kind = said("Swiss") if format == "swiss" else said("round robin")
    return said("{variant} {format}", variant=variant_title(variant), format=kind)


@translate_store_faults
class Tournaments(TournamentLife, TournamentViews):
    """See the module. Keeps no state of its own beyond a random source for the drawing
    of lots (the service's)."""

    def __init__(self, core: ServiceCore, settings: ServerSettings) -> None:
        self.core = core
        self.settings = settings
        self._rng: random.Random = core._rng

    # ----- moderators ---------------------------------------------------------------

    async def create(
        self,
        *,
        guild_id: int,
        channel_id: int,
        user_id: int,
        may_run: bool,
        variant: str,
        format: str,
        rounds: int,
        days: int,
        rated: bool,
        starts: str | datetime,
        name: str | None = None,
    ) -> TournamentNews:
        """A tournament in registration until ``starts``. For a round robin ``rounds`` is
        1 (everyone meets once) or 2 (twice, colours swapped); the rounds follow from the
        players at the start."""
        guild_id = check_id(guild_id, "the server id")
        channel_id = check_id(channel_id, "the channel id")
        user_id = check_id(user_id, "the user id")
        if may_run is not True:
            raise NotAllowed(
                said(
                    "only moderators and members with the server's tournament role can create "
                    "a tournament"
                )
            )
        check_variant(variant)
        if format not in FORMATS:
            raise InvalidInput(said("the format must be swiss or round-robin"))
        if isinstance(rounds, bool) or not isinstance(rounds, int):
            raise InvalidInput(said("the rounds must be a whole number"))
        if format == "swiss" and not 1 <= rounds <= MAX_SWISS_ROUNDS:
            raise InvalidInput(said("a Swiss has 1 to {n} rounds", n=MAX_SWISS_ROUNDS))
        if format == "round-robin" and rounds not in (1, 2):
            raise InvalidInput(
                said(
                    "a round robin is played once (rounds 1) or twice with colours swapped "
                    "(rounds 2)"
                )
            )
        days = check_days(days)
        if not isinstance(rated, bool):
            raise InvalidInput(said("rated must be true or false"))
        now = self.core.clock.now()
        when = starts if isinstance(starts, datetime) else parse_start(starts, now)
        if when <= now:
            raise InvalidInput(
                said(
                    "the start {start} has passed; choose a later time (or a delay like 2h)",
                    start=iso(when),
                )
            )
        if when > now + timedelta(days=MAX_START_DAYS):
            raise InvalidInput(said("a tournament must start within {n} days", n=MAX_START_DAYS))
        title = clean_text(name)[:MAX_NAME] if name else str(default_name(variant, format))
        server = await self.settings.of_guild(guild_id)
        most_players = server.tournament_players
        if format == "round-robin":
            most_players = min(most_players, ROUND_ROBIN_MAX)
        settings = {
            "bye_points": 1.0,
            "round_days": min(days * ROUND_DAYS_PER_DAY, 60),
            "max_players": most_players,
            "double": format == "round-robin" and rounds == 2,
            "options": {},
        }
        async with self.core._write() as tx:
            await tx.lock_guild_tournaments(guild_id)
            live = await tx.tournaments_of_guild(guild_id, LIVE_TOURNAMENT, 100)
            if len(live) >= server.max_tournaments:
                ids = ", ".join(str(t.id) for t in sorted(live, key=lambda t: t.id))
                raise InvalidState(
                    said(
                        "this server already has {n} tournaments under way ({ids}); "
                        "at most {most} may run at once",
                        n=len(live),
                        ids=ids,
                        most=server.max_tournaments,
                    )
                )
            row = await tx.insert_tournament(
                NewTournament(
                    guild_id=guild_id,
                    channel_id=channel_id,
                    name=title,
                    variant=variant,
                    format=format,
                    rounds=rounds,
                    days=days,
                    rated=rated,
                    starts_ms=to_ms(when),
                    created_by=user_id,
                    settings=settings,
                )
            )
            await tx.log_tournament(
                row.id,
                "create",
                actor_id=user_id,
                detail=detail_record(
                    "create",
                    variant=variant,
                    format=format,
                    rounds=rounds,
                    days=days,
                    rated=rated,
                    start=iso(when),
                ),
            )
        self.core._announce_due(row.starts_ms)  # the scheduler wakes for the start
        return TournamentNews(
            row,
            said(
                "Tournament {tournament} ({name}) is open for registration until {end}: "
                "join with /tournament join.",
                tournament=row.id,
                name=row.name,
                end=iso(when),
            ),
        )

    async def start(
        self, *, guild_id: int, user_id: int, may_run: bool, tournament_id: int | None = None
    ) -> TournamentNews:
        """Close the registration now and pair round 1 (at least two players)."""
        user_id = check_id(user_id, "the user id")
        if may_run is not True:
            raise NotAllowed(said("only moderators and the tournament role can start a tournament"))
        row = await self.find(guild_id, tournament_id)
        if row.status != "registration":
            raise InvalidState(
                said("tournament {tournament} has already started", tournament=row.id)
            )
        now_ms = self.core._now_ms()
        async with self.core._write() as tx:
            row = await self._locked(tx, row.id)
            if row.status != "registration":
                raise InvalidState(
                    said("tournament {tournament} has already started", tournament=row.id)
                )
            if await tx.count_joined(row.id) < 2:
                raise InvalidState(
                    said(
                        "tournament {tournament} needs at least two players to start",
                        tournament=row.id,
                    )
                )
            await tx.update_tournament(row.id, starts_ms=now_ms)  # due now: claimed below
        await self._advance(row.id, now_ms, actor=user_id)
        row = await self._reread(row.id)
        return TournamentNews(
            row, said("Tournament {tournament} has started: round 1 is paired.", tournament=row.id)
        )

    async def remove(
        self,
        *,
        guild_id: int,
        user_id: int,
        may_run: bool,
        player_id: int,
        tournament_id: int | None = None,
        reason: str | None = None,
    ) -> TournamentNews:
        """A moderator takes a player out (logged with the reason): no longer paired."""
        user_id = check_id(user_id, "the user id")
        player_id = check_id(player_id, "the player id")
        if may_run is not True:
            raise NotAllowed(said("only moderators and the tournament role can remove a player"))
        why = clean_text(reason) if reason else ""
        row = await self.find(guild_id, tournament_id)
        async with self.core._write() as tx:
            row = await self._locked(tx, row.id)
            if not row.is_live:
                raise InvalidState(
                    said(
                        "tournament {tournament} is over ({status})",
                        tournament=row.id,
                        status=tournament_status_word(row.status),
                    )
                )
            player = await tx.tournament_player(row.id, player_id)
            if player is None or player.status not in ("joined",):
                raise InvalidState(
                    said(
                        "{player} is not playing in tournament {tournament}",
                        player=self.core._label(player_id),
                        tournament=row.id,
                    )
                )
            out_from = 1 if row.status == "registration" else row.current_round + 1
            await tx.update_tournament_player(
                row.id, player_id, status="removed", out_from=out_from
            )
            await tx.log_tournament(
                row.id, "remove", actor_id=user_id, player_id=player_id, detail=why
            )
        name = self._name(player)
        return TournamentNews(
            row,
            said(
                "{player} is removed from tournament {tournament} ({reason}).",
                player=name,
                tournament=row.id,
                reason=why,
            )
            if why
            else said(
                "{player} is removed from tournament {tournament}.", player=name, tournament=row.id
            ),
        )

    async def cancel(
        self,
        *,
        guild_id: int,
        user_id: int,
        may_run: bool,
        tournament_id: int | None = None,
        reason: str | None = None,
    ) -> TournamentNews:
        """A moderator cancels the tournament (logged): its games still running are
        aborted with no result."""
        user_id = check_id(user_id, "the user id")
        if may_run is not True:
            raise NotAllowed(
                said("only moderators and the tournament role can cancel a tournament")
            )
        why = clean_text(reason) if reason else "cancelled by a moderator"
        row = await self.find(guild_id, tournament_id)
        async with self.core._write() as tx:
            row = await self._locked(tx, row.id)
            if not row.is_live:
                raise InvalidState(
                    said(
                        "tournament {tournament} is over ({status})",
                        tournament=row.id,
                        status=tournament_status_word(row.status),
                    )
                )
            row = await tx.update_tournament(row.id, status="cancelled")
            # the moderator's words as typed; the service's own reason as a code
            detail = why if reason else detail_record("moderator")
            await tx.log_tournament(row.id, "cancel", actor_id=user_id, detail=detail)
            await self._owe(tx, row, "tournament_cancelled", {"reason": why})
            games = [b.game_id for b in await tx.tournament_boards(row.id) if b.game_id]
        for game_id in games:
            await self._abort_game(game_id, user_id, f"the tournament was cancelled: {why}")
        return TournamentNews(
            row,
            said(
                "Tournament {tournament} is cancelled: {reason}.",
                tournament=row.id,
                reason=reason_word(why),
            ),
        )

    async def _abort_game(self, game_id: int, user_id: int, why: str) -> None:
        core = self.core
        async with core._lock(core._game_locks, game_id), core._write() as tx:
            game = await tx.get_game(game_id)
            if game is None or not game.is_live:
                return
            await core._log_abort(tx, game, user_id, why)
        core._cache.pop(game_id, None)

    # ----- players --------------------------------------------------------------------

    async def join(
        self,
        *,
        guild_id: int,
        user_id: int,
        name: str | None = None,
        tournament_id: int | None = None,
    ) -> TournamentNews:
        user_id = check_id(user_id, "the user id")
        row = await self.find(guild_id, tournament_id)
        now_ms = self.core._now_ms()
        async with self.core._write() as tx:
            row = await self._locked(tx, row.id)
            if row.status != "registration" or now_ms >= row.starts_ms:
                raise InvalidState(
                    said(
                        "the registration for tournament {tournament} has closed", tournament=row.id
                    )
                )
            player = await tx.tournament_player(row.id, user_id)
            if player is not None and player.status == "joined":
                raise InvalidState(
                    said("you have already joined tournament {tournament}", tournament=row.id)
                )
            if player is not None and player.status == "removed":
                raise NotAllowed(
                    said("a moderator removed you from tournament {tournament}", tournament=row.id)
                )
            most = int(row.settings.get("max_players", ROUND_ROBIN_MAX))
            count = await tx.count_joined(row.id)
            if count >= most:
                raise InvalidState(
                    said(
                        "tournament {tournament} is full: it takes {n} players",
                        tournament=row.id,
                        n=most,
                    )
                )
            await tx.upsert_player(user_id, name)
            await tx.join_tournament(row.id, user_id, name)
            await tx.log_tournament(row.id, "join", actor_id=user_id, player_id=user_id)
        return TournamentNews(
            row,
            said(
                "You have joined tournament {tournament} ({name}); it starts at {start}.",
                tournament=row.id,
                name=row.name,
                start=iso(from_ms(row.starts_ms)),
            ),
            count + 1,
        )

    async def leave(
        self, *, guild_id: int, user_id: int, tournament_id: int | None = None
    ) -> TournamentNews:
        user_id = check_id(user_id, "the user id")
        row = await self.find(guild_id, tournament_id)
        now_ms = self.core._now_ms()
        async with self.core._write() as tx:
            row = await self._locked(tx, row.id)
            player = await tx.tournament_player(row.id, user_id)
            if player is None or player.status != "joined":
                raise InvalidState(
                    said("you have not joined tournament {tournament}", tournament=row.id)
                )
            if row.status != "registration" or now_ms >= row.starts_ms:
                raise InvalidState(
                    said(
                        "tournament {tournament} has started: you can no longer leave it, only "
                        "withdraw (/tournament withdraw)",
                        tournament=row.id,
                    )
                )
            await tx.update_tournament_player(row.id, user_id, status="left")
            await tx.log_tournament(row.id, "leave", actor_id=user_id, player_id=user_id)
        return TournamentNews(
            row, said("You have left tournament {tournament}.", tournament=row.id)
        )

    async def withdraw(
        self, *, guild_id: int, user_id: int, tournament_id: int | None = None
    ) -> TournamentNews:
        """Stop playing in a running tournament: no longer paired (a game in progress
        goes on; resign it to end it)."""
        user_id = check_id(user_id, "the user id")
        row = await self.find(guild_id, tournament_id)
        async with self.core._write() as tx:
            row = await self._locked(tx, row.id)
            player = await tx.tournament_player(row.id, user_id)
            if player is None or player.status != "joined":
                raise InvalidState(
                    said("you are not playing in tournament {tournament}", tournament=row.id)
                )
            if row.status != "running":
                raise InvalidState(
                    said(
                        "tournament {tournament} has not started: leave it instead "
                        "(/tournament leave)",
                        tournament=row.id,
                    )
                )
            await tx.update_tournament_player(
                row.id, user_id, status="withdrawn", out_from=row.current_round + 1
            )
            await tx.log_tournament(row.id, "withdraw", actor_id=user_id, player_id=user_id)
        return TournamentNews(
            row,
            said(
                "You have withdrawn from tournament {tournament}: you will not be paired again "
                "(a game you are playing goes on; resign it to end it).",
                tournament=row.id,
            )
            if row.current_round
            else said(
                "You have withdrawn from tournament {tournament}: you will not be paired again.",
                tournament=row.id,
            ),
        )

    # ----- the front end's: a round's game moves into its thread ------------------------

    async def place_game(self, *, game_id: int, location_id: int) -> int:
        """Move a round's game from its placeholder into ``location_id`` (its new thread,
        or the tournament's channel when Discord refused the thread), with the posts it
        owes there; where the game is now (another process may have placed it first: then
        that thread, and the caller's is not needed). A place that already holds another
        live game is not taken: the game stays where it was (still a placeholder)."""
        game_id = check_id(game_id, "the game id")
        location_id = check_id(location_id, "the location id")
        core = self.core
        async with core._lock(core._game_locks, game_id), core._write() as tx:
            row = await core._reload(tx, game_id)
            if not is_placeholder(row.location_id):
                return row.location_id
            there = await tx.live_game_at(location_id)
            if there is not None and there.id != game_id:
                return row.location_id
            await tx.update_game(game_id, GameChanges(location_id=location_id))
            await tx.move_game_posts(game_id, row.location_id, location_id)
        core._owed_committed()
        return location_id

    async def tournament_of_game(self, *, game_id: int) -> BoardRow | None:
        return await self.core.repo.board_of_game(check_id(game_id, "the game id"))

    # ----- helpers -------------------------------------------------------------------

    async def _locked(self, tx: WriteTx, tournament_id: int) -> TournamentRow:
        row = await tx.tournament_for_update(tournament_id)
        if row is None:
            raise NotFound(said("there is no tournament {tournament}", tournament=tournament_id))
        return row


__all__ = [
    "BoardLine",
    "RoundPairings",
    "TournamentInfo",
    "TournamentNews",
    "TournamentStandings",
    "Tournaments",
    "parse_start",
    "points_text",
]
