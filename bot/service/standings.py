"""The rating commands of ``GameService`` (issue 15): the leaderboard, a player's
profile, a game's rating changes, and ``rebuild_ratings`` (``chessgarden ratings
rebuild``). How a game is rated, and the values returned: ``bot.service.rating_log``.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractAsyncContextManager

from bot.i18n import said
from bot.service.core import check_id, check_variant
from bot.service.errors import InvalidInput
from bot.service.live import make_summary, variant_title
from bot.service.rating_log import (
    LEADERBOARD_SIZE,
    REBUILD_BATCH,
    RECENT_RESULTS,
    Leaderboard,
    Profile,
    RebuildReport,
    RecentResult,
    Standing,
    VariantRecord,
    apply_game,
    count_differences,
    instant_ms,
    is_rateable,
    rating_changes_of,
    scopes_of,
)
from bot.service.results import RatingChange
from storage import GLOBAL_SCOPE, GameRow, RatingChangeRow, RatingRow, Repository, WriteTx
from storage.repository import RatingReadsProtocol


def _scope_of(guild_id: int | None) -> int:
    return GLOBAL_SCOPE if guild_id is None else guild_id


def _standing(rank: int, row: RatingRow) -> Standing:
    return Standing(
        rank,
        row.player_id,
        row.name,
        row.rating,
        row.rd,
        row.games,
        row.wins,
        row.draws,
        row.losses,
    )


Writing = Callable[[], AbstractAsyncContextManager[WriteTx]]


class Standings:
    """The ratings part of ``GameService`` (leaderboard, profile, a game's changes,
    rebuild): a component given what it needs, the store's reads (``repo``) and a way to
    open a write transaction (``write``: the service's, which turns a conflict into its
    own error); ``GameService`` hands its calls on to it."""

    def __init__(self, repo: Repository, write: Writing) -> None:
        self.repo = repo
        self._write = write

    async def leaderboard(
        self,
        *,
        variant: str,
        guild_id: int | None = None,
        user_id: int | None = None,
        limit: int = LEADERBOARD_SIZE,
    ) -> Leaderboard:
        """The best ``limit`` ratings of ``variant`` in a server (``guild_id``) or
        globally (``None``), and ``user_id``'s own standing if they are rated but not
        among them."""
        check_variant(variant)
        if guild_id is not None:
            guild_id = check_id(guild_id, "the server id")
        if user_id is not None:
            user_id = check_id(user_id, "the user id")
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= 100:
            raise InvalidInput(said("a leaderboard shows 1 to 100 players"))
        scope = _scope_of(guild_id)
        rows = await self.repo.leaderboard(scope, variant, limit)
        top = tuple(_standing(n, r) for n, r in enumerate(rows, 1))
        own = None
        if user_id is not None and all(s.player_id != user_id for s in top):
            mine = await self.repo.rating_of(scope, variant, user_id)
            if mine is not None:
                own = _standing(await self.repo.rating_rank(mine), mine)
        title = variant_title(variant)
        return Leaderboard(variant, title, guild_id, top, own)

    async def profile(
        self,
        *,
        user_id: int,
        guild_id: int | None = None,
        viewer_id: int | None = None,
    ) -> Profile:
        """``user_id``'s ratings in a server (``guild_id``) or globally (``None``), per
        variant with their record and last rated results, and their games going on now:
        in that server; without a server, only when ``viewer_id`` is the player
        themself (a DM shows nobody else's games)."""
        user_id = check_id(user_id, "the user id")
        if guild_id is not None:
            guild_id = check_id(guild_id, "the server id")
        scope = _scope_of(guild_id)
        records = []
        for row in await self.repo.player_ratings(user_id, scope):
            recent = await self.repo.recent_rating_changes(
                scope, user_id, row.variant, RECENT_RESULTS
            )
            records.append(
                VariantRecord(
                    row.variant,
                    variant_title(row.variant),
                    _standing(await self.repo.rating_rank(row), row),
                    tuple(
                        RecentResult(
                            c.game_id, c.opponent_id, c.score, c.rating_before, c.rating_after
                        )
                        for c in recent
                    ),
                )
            )
        current: list[GameRow] = []
        if guild_id is not None or viewer_id == user_id:
            current = await self.repo.active_games_of(user_id, guild_id, 10)
        player = await self.repo.get_player(user_id)
        return Profile(
            user_id,
            player.name if player else None,
            guild_id,
            tuple(records),
            tuple(make_summary(r) for r in current),
            tuple(
                (r.board_channel_id, r.board_message_id)
                if r.board_channel_id is not None and r.board_message_id is not None
                else None
                for r in current
            ),
        )

    async def game_ratings(self, *, game_id: int) -> tuple[RatingChange, ...]:
        """What a finished rated game did to its players' ratings (empty if unrated)."""
        game_id = check_id(game_id, "the game id")
        row = await self.repo.get_game(game_id)
        if row is None:
            return ()
        return rating_changes_of(row, await self.repo.game_rating_changes(game_id))

    async def rebuild_ratings(self, *, check: bool = False) -> RebuildReport:
        """Recompute every rating from the finished games, in the order they finished,
        and compare with the stored ones; replace them (unless ``check``) if they differ.

        The games are replayed from the plain reads first, without holding the write
        lock (the bot plays on meanwhile); then, inside one write transaction, the games
        that finished since are added, the result compared and, if it differs, stored.
        A rating is a fold over the games in order, so continuing it is exact."""
        fold = _Fold()
        await fold.feed(self.repo)
        if check:
            return await fold.report(self.repo, None)
        async with self._write() as tx:
            await fold.feed(tx)
            return await fold.report(tx, tx)


class _Fold:
    """The ratings after the finished games seen so far (``after``: the last
    ``finish_order`` read), continued with ``feed``."""

    def __init__(self) -> None:
        self.current: dict[tuple[int, str, int], RatingRow] = {}
        self.changes: list[RatingChangeRow] = []
        self.games = 0
        self.after = 0

    async def feed(self, reads: RatingReadsProtocol) -> None:
        while True:
            batch = await reads.finished_games(self.after, REBUILD_BATCH)
            for finished in batch:
                row = finished.game
                self.after = row.finish_order or self.after
                if not is_rateable(row):
                    continue
                self.games += 1
                assert row.white_id is not None and row.black_id is not None
                at_ms = instant_ms(finished.finished_at)
                for scope in scopes_of(row):
                    w_key = (scope, row.variant, row.white_id)
                    b_key = (scope, row.variant, row.black_id)
                    new_w, new_b, change_w, change_b = apply_game(
                        row,
                        scope,
                        self.after,
                        at_ms,
                        self.current.get(w_key),
                        self.current.get(b_key),
                    )
                    self.current[w_key], self.current[b_key] = new_w, new_b
                    self.changes += [change_w, change_b]
            if len(batch) < REBUILD_BATCH:
                return

    async def report(self, reads: RatingReadsProtocol, write: WriteTx | None) -> RebuildReport:
        built = [self.current[k] for k in sorted(self.current)]
        stored = await reads.all_ratings()
        stored_changes = await reads.all_rating_changes()
        differences = count_differences(built, stored, self.changes, stored_changes)
        if write is not None and differences:
            await write.replace_all_ratings(built, self.changes)
        return RebuildReport(
            self.games, len(built), differences == 0, differences, write is not None
        )
