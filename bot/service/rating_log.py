"""Ratings as a projection of the game log (issue 15): which games count, how a
finished game moves its players' ratings, and the values the service returns about
ratings. The commands (leaderboard, profile, rebuild) are in ``bot.service.standings``.

The transaction that finishes a game also rates it (``rate_finished``), and
``Standings.rebuild_ratings`` replays the finished games in the order they finished
(``games.finish_order``) through the very same ``apply_game``, so a rebuild gives
bit-for-bit the stored numbers (ARCHITECTURE.md: ratings are a projection of the log).

Which games count (``is_rateable``): finished (an aborted game has no result), chosen as
rated with the challenge, between two different people (not a hot-seat game against
oneself) and not against the computer. Each counts in the server it was played in and
in the global rating of its variant; a game in a DM counts globally only.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta

from bot.i18n import said
from bot.service.ratings import NEW_RATING, PROVISIONAL_RD, Rating, rate_game, rd_after_idle
from bot.service.results import GameSummary, RatingChange
from bot.service.words import colour_word
from storage import GLOBAL_SCOPE, GameRow, RatingChangeRow, RatingRow, WriteTx

LEADERBOARD_SIZE = 10
RECENT_RESULTS = 5
REBUILD_BATCH = 1000
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_SCORES = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}
RATING_LINE = "Rating changes"  # how the rating line of a finished game's messages begins


# ----- values ------------------------------------------------------------------------


@dataclass(frozen=True)
class Standing:
    """A player's place on a leaderboard. ``rank`` counts from 1."""

    rank: int
    player_id: int
    name: str | None
    rating: float
    rd: float
    games: int
    wins: int
    draws: int
    losses: int

    @property
    def is_provisional(self) -> bool:
        return self.rd > PROVISIONAL_RD


@dataclass(frozen=True)
class Leaderboard:
    """The top of a variant's ratings in a scope (``scope`` None: global), and the
    asking player's own standing when they are rated but not in the top (``own``)."""

    variant: str
    variant_title: str
    scope: int | None
    top: tuple[Standing, ...]
    own: Standing | None = None


@dataclass(frozen=True)
class RecentResult:
    """One of a player's last rated games: ``score`` 1 won, 0.5 drawn, 0 lost."""

    game_id: int
    opponent_id: int
    score: float
    before: float
    after: float


@dataclass(frozen=True)
class VariantRecord:
    """A player's rating in one variant, with their record and last rated results."""

    variant: str
    variant_title: str
    standing: Standing
    recent: tuple[RecentResult, ...]


@dataclass(frozen=True)
class Profile:
    """A player's ratings in a scope (``scope`` None: global), one per variant they have
    played rated, and their games going on now (``current``; with the game's latest
    board message, when known, as (channel id, message id) in ``boards``)."""

    user_id: int
    name: str | None
    scope: int | None
    records: tuple[VariantRecord, ...]
    current: tuple[GameSummary, ...]
    boards: tuple[tuple[int, int] | None, ...]


@dataclass(frozen=True)
class RebuildReport:
    """``ratings rebuild``: how many games were rated, how many ratings there are, and
    whether the stored ratings and changes were exactly those (``matched``;
    ``differences`` counts the rows that were not). ``written``: the stored ones were
    replaced (not with ``check``)."""

    games: int
    ratings: int
    matched: bool
    differences: int
    written: bool

    @property
    def line(self) -> str:
        state = (
            "the stored ratings matched exactly"
            if self.matched
            else f"{self.differences} stored rows differed"
        )
        done = "; replaced" if self.written and not self.matched else ""
        return f"{self.games} rated games, {self.ratings} ratings: {state}{done}."


# ----- the rules -----------------------------------------------------------------------


def is_rateable(row: GameRow) -> bool:
    """Whether a game counts for ratings: finished with a result, chosen as rated, two
    different people, no computer (``computer``: the side the computer plays)."""
    return (
        row.status == "finished"
        and row.rated
        and row.result in _SCORES
        and row.white_id is not None
        and row.black_id is not None
        and row.white_id != row.black_id
        and row.computer is None
    )


def instant_ms(stamp: str) -> int:
    """A stored ``created_at`` (ISO 8601, UTC) as whole milliseconds since the epoch."""
    moment = datetime.fromisoformat(stamp)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return (moment - _EPOCH) // timedelta(milliseconds=1)


def scopes_of(row: GameRow) -> tuple[int, ...]:
    """The server's ratings (if any) and the global ones."""
    return (GLOBAL_SCOPE,) if not row.guild_id else (row.guild_id, GLOBAL_SCOPE)


def apply_game(
    row: GameRow,
    scope: int,
    order: int,
    at_ms: int,
    white: RatingRow | None,
    black: RatingRow | None,
) -> tuple[RatingRow, RatingRow, RatingChangeRow, RatingChangeRow]:
    """One rated game in one scope: both players' new rows and their change rows. Each
    rating first widens its RD for the time since the player's last game there."""
    assert row.white_id is not None and row.black_id is not None and row.result is not None
    score = _SCORES[row.result]
    before_w = _standing_before(white, at_ms)
    before_b = _standing_before(black, at_ms)
    after_w, after_b = rate_game(before_w, before_b, score)
    rows = (
        _next_row(white, scope, row, row.white_id, after_w, score, at_ms),
        _next_row(black, scope, row, row.black_id, after_b, 1.0 - score, at_ms),
    )
    changes = (
        _change(row, scope, order, row.white_id, row.black_id, score, before_w, after_w),
        _change(row, scope, order, row.black_id, row.white_id, 1.0 - score, before_b, after_b),
    )
    return rows[0], rows[1], changes[0], changes[1]


def _standing_before(current: RatingRow | None, at_ms: int) -> Rating:
    if current is None:
        return NEW_RATING
    rating = Rating(current.rating, current.rd, current.volatility)
    return rd_after_idle(rating, at_ms - current.last_ms)


def _next_row(
    current: RatingRow | None,
    scope: int,
    row: GameRow,
    player: int,
    after: Rating,
    score: float,
    at_ms: int,
) -> RatingRow:
    games, wins, draws, losses = (
        (current.games, current.wins, current.draws, current.losses) if current else (0, 0, 0, 0)
    )
    return RatingRow(
        scope=scope,
        variant=row.variant,
        player_id=player,
        rating=after.rating,
        rd=after.rd,
        volatility=after.volatility,
        games=games + 1,
        wins=wins + (score == 1.0),
        draws=draws + (score == 0.5),
        losses=losses + (score == 0.0),
        last_ms=at_ms,
        last_game_id=row.id,
        name=current.name if current else None,
    )


def _change(
    row: GameRow,
    scope: int,
    order: int,
    player: int,
    opponent: int,
    score: float,
    before: Rating,
    after: Rating,
) -> RatingChangeRow:
    return RatingChangeRow(
        game_id=row.id,
        scope=scope,
        player_id=player,
        variant=row.variant,
        finish_order=order,
        opponent_id=opponent,
        score=score,
        rating_before=before.rating,
        rd_before=before.rd,
        volatility_before=before.volatility,
        rating_after=after.rating,
        rd_after=after.rd,
        volatility_after=after.volatility,
    )


def rating_changes_of(row: GameRow, changes: Iterable[RatingChangeRow]) -> tuple[RatingChange, ...]:
    """The stored changes of a game as values: the server's first, white before black."""
    out = [
        RatingChange(
            player_id=c.player_id,
            colour="white" if c.player_id == row.white_id else "black",
            scope=None if c.scope == GLOBAL_SCOPE else c.scope,
            before=c.rating_before,
            after=c.rating_after,
            rd=c.rd_after,
        )
        for c in changes
    ]
    out.sort(key=lambda c: (c.scope is None, c.colour != "white"))
    return tuple(out)


async def rate_finished(tx: WriteTx, row: GameRow) -> tuple[RatingChange, ...]:
    """Inside the transaction that has just finished ``row`` (its ending log entry
    appended, its status and result set): number it among finished games and, if it is
    rated, update both players' ratings in every scope it counts in."""
    order, finished_at = await tx.mark_finished(row.id)
    row = replace(row, finish_order=order)
    if not is_rateable(row):
        return ()
    assert row.white_id is not None and row.black_id is not None
    at_ms = instant_ms(finished_at)
    ratings: list[RatingRow] = []
    changes: list[RatingChangeRow] = []
    for scope in scopes_of(row):
        white = await tx.rating_of(scope, row.variant, row.white_id)
        black = await tx.rating_of(scope, row.variant, row.black_id)
        new_w, new_b, change_w, change_b = apply_game(row, scope, order, at_ms, white, black)
        ratings += [new_w, new_b]
        changes += [change_w, change_b]
    await tx.save_ratings(ratings, changes)
    return rating_changes_of(row, changes)


def count_differences(
    built: list[RatingRow],
    stored: list[RatingRow],
    built_changes: list[RatingChangeRow],
    stored_changes: list[RatingChangeRow],
) -> int:
    def key(r: RatingRow) -> tuple[int, str, int]:
        return (r.scope, r.variant, r.player_id)

    mine = {key(r): replace(r, name=None) for r in built}
    theirs = {key(r): replace(r, name=None) for r in stored}
    count = sum(1 for k in mine.keys() | theirs.keys() if mine.get(k) != theirs.get(k))
    mine_c = {(c.game_id, c.scope, c.player_id): c for c in built_changes}
    theirs_c = {(c.game_id, c.scope, c.player_id): c for c in stored_changes}
    return count + sum(
        1 for k in mine_c.keys() | theirs_c.keys() if mine_c.get(k) != theirs_c.get(k)
    )


def shown_rating(rating: float, rd: float) -> str:
    """A rating as players read it: whole points, "?" when provisional (RD above 110)."""
    return f"{round(rating)}{'?' if rd > PROVISIONAL_RD else ''}"


def signed(delta: float) -> str:
    points = round(delta)
    return f"+{points}" if points > 0 else ("±0" if points == 0 else f"−{-points}")


def rating_lines(changes: tuple[RatingChange, ...], label: Callable[[int], str]) -> list[str]:
    """One line for a finished rated game: each player's rating change in the game's
    own scope (the server's ratings; the global ones for a game in a DM)."""
    if not changes:
        return []
    scope = changes[0].scope
    parts = [
        said(
            "{colour} {player} {rating} ({change})",
            colour=colour_word(c.colour),
            player=label(c.player_id),
            rating=shown_rating(c.after, c.rd),
            change=signed(c.delta),
        )
        for c in changes
        if c.scope == scope
    ]
    joined = parts[0]
    for part in parts[1:]:
        joined = said("{first}; {then}", first=joined, then=part)
    # (English, it begins with RATING_LINE: the Discord board shows ratings in a field)
    if scope is not None:
        return [said("Rating changes (server): {changes}.", changes=joined)]
    return [said("Rating changes (global): {changes}.", changes=joined)]
