"""Ratings through the service (issue 15): rated games move ratings in the transaction
that finishes them; unrated, aborted, hot-seat and AI games do not; the rebuild from the
finished games reproduces the stored ratings exactly. On both stores (``store_target``)."""

from __future__ import annotations

import random
from datetime import UTC, datetime

import pytest
import stores

from bot.service import GameService, ManualClock
from bot.service.rating_log import is_rateable
from storage import GLOBAL_SCOPE, GameRow

ALICE, BOB, CAROL = 101, 202, 303
GUILD = 7000
START = datetime(2030, 1, 1, tzinfo=UTC)


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(START)


@pytest.fixture
async def service(store_target: str, clock: ManualClock):
    svc = await GameService.open(store_target, renderer=None, rng=random.Random(0), clock=clock)
    svc.target = store_target  # type: ignore[attr-defined]
    yield svc
    await svc.close()


def raw(service: GameService, sql: str) -> list[tuple[object, ...]]:
    """Rows read behind the service's back, from either store (tests/stores.py)."""
    return [tuple(r) for r in stores.raw(service.target, sql)]  # type: ignore[attr-defined]


async def game(
    service: GameService,
    location: int,
    white: int = ALICE,
    black: int = BOB,
    *,
    rated: bool = True,
    guild: int | None = GUILD,
    variant: str = "guardener",
) -> int:
    made = await service.challenge(
        location_id=location,
        challenger_id=white,
        opponent_id=black,
        colour="white",
        variant=variant,
        guild_id=guild,
        rated=rated,
    )
    await service.accept(location_id=location, user_id=black, render=False)
    return made.game.id


def ratings(service: GameService) -> list[tuple[object, ...]]:
    return raw(service, "SELECT * FROM ratings ORDER BY scope, variant, player_id")


async def test_a_rated_resignation_moves_both_ratings_in_server_and_global(
    service: GameService,
) -> None:
    await game(service, 1)
    out = await service.resign(location_id=1, user_id=BOB)
    assert out.game.rated
    changes = {(c.scope, c.player_id): c for c in out.ratings}
    assert set(changes) == {(GUILD, ALICE), (GUILD, BOB), (None, ALICE), (None, BOB)}
    win, loss = changes[(GUILD, ALICE)], changes[(GUILD, BOB)]
    assert win.before == loss.before == 1500
    assert win.delta > 100 and loss.delta == pytest.approx(-win.delta)
    assert win.is_provisional  # one game: RD still far above 110
    assert any(m.startswith("Rating changes (server): white") for m in out.messages)
    assert f"{round(win.after)}? (+{round(win.delta)})" in out.text
    board = await service.leaderboard(variant="guardener", guild_id=GUILD)
    assert [s.player_id for s in board.top] == [ALICE, BOB]
    assert board.top[0].wins == 1 and board.top[1].losses == 1
    glob = await service.leaderboard(variant="guardener")
    assert [s.rating for s in glob.top] == [s.rating for s in board.top]
    assert await service.game_ratings(game_id=out.game.id) == out.ratings
    # A retried request that ended the game shows the same changes, applying nothing again.
    await game(service, 2)
    first = await service.resign(location_id=2, user_id=ALICE, request_id="r-2")
    again = await service.resign(game_id=first.game.id, user_id=ALICE, request_id="r-2")
    assert again.repeated and again.ratings == first.ratings and first.ratings
    assert [m for m in again.messages if m.startswith("Rating")] == [
        m for m in first.messages if m.startswith("Rating")
    ]


async def test_draws_and_timeouts_rate_too(service: GameService, clock: ManualClock) -> None:
    await game(service, 1)
    await service.offer_draw(location_id=1, user_id=ALICE)
    out = await service.accept_draw(location_id=1, user_id=BOB)
    assert {round(c.after, 6) for c in out.ratings} == {1500.0}
    assert all(c.rd < 350 for c in out.ratings)
    row = (await service.leaderboard(variant="guardener", guild_id=GUILD)).top[0]
    assert (row.games, row.wins, row.draws, row.losses) == (1, 0, 1, 0)
    # A timed game where white moved, then black ran out of time: a loss on time, rated.
    made = await service.challenge(
        location_id=2,
        challenger_id=ALICE,
        opponent_id=BOB,
        colour="white",
        variant="guardener",
        guild_id=GUILD,
        rated=True,
        days=1,
    )
    await service.accept(location_id=2, user_id=BOB, render=False)
    legal = await service.legal_moves(location_id=2)
    await service.act(location_id=2, user_id=ALICE, text=legal[0], render=False)
    for _ in range(5):  # a turn may take several actions; act until black is to move
        view = await service.view(location_id=2)
        if view.turn == "black":
            break
        legal = await service.legal_moves(location_id=2)
        await service.act(location_id=2, user_id=ALICE, text=legal[0], render=False)
    clock.advance(days=2)
    events = await service.run_due()
    ended = [e for e in events if e.kind == "timeout" and e.game.id == made.game.id]
    assert ended and ended[0].game.status == "finished"
    assert ended[0].ratings and any("Rating changes" in m for m in ended[0].messages)
    report = await service.rebuild_ratings(check=True)
    assert report.matched and report.games == 2


async def test_unrated_aborted_and_hot_seat_games_leave_ratings_unchanged(
    service: GameService,
) -> None:
    await game(service, 1)
    await service.resign(location_id=1, user_id=BOB)
    before = ratings(service)
    assert len(before) == 4
    await game(service, 2, rated=False)
    out = await service.resign(location_id=2, user_id=ALICE)
    assert out.ratings == () and not out.game.rated
    await game(service, 3)
    aborted = await service.abort(location_id=3, user_id=CAROL, moderator=True)
    assert aborted.game.status == "aborted" and aborted.ratings == ()
    assert ratings(service) == before
    # An unrated finished game still gets its place in the order games finished.
    orders = raw(service, "SELECT id, finish_order FROM games ORDER BY id")
    assert [o for _, o in orders] == [1, 2, None]
    assert (await service.rebuild_ratings()).matched


def test_only_two_people_in_a_rated_finished_game_count() -> None:
    row = GameRow(
        id=1,
        variant="guardener",
        options={},
        status="finished",
        location_id=1,
        guild_id=None,
        challenger_id=ALICE,
        opponent_id=BOB,
        challenger_colour="white",
        white_id=ALICE,
        black_id=BOB,
        result="1-0",
        result_reason="resignation",
        draw_offer=None,
        seed="s",
        commitment="c",
        start_rolls=(),
        log_count=3,
        roll_count=1,
        board_channel_id=None,
        board_message_id=None,
        request_id=None,
        created_at="",
        updated_at="",
        rated=True,
    )
    assert is_rateable(row)
    from dataclasses import replace

    assert not is_rateable(replace(row, rated=False))
    assert not is_rateable(replace(row, black_id=ALICE))  # hot-seat: one person
    assert not is_rateable(replace(row, status="aborted", result=None))
    assert not is_rateable(replace(row, computer="black", computer_level=2))
    assert is_rateable(replace(row, computer=None))


async def test_the_rd_of_an_idle_player_grows_before_their_next_game(
    service: GameService, clock: ManualClock
) -> None:
    await game(service, 1)
    await service.resign(location_id=1, user_id=BOB)
    await game(service, 2)
    quick = await service.resign(location_id=2, user_id=BOB)
    clock.advance(days=200)
    await game(service, 3)
    late = await service.resign(location_id=3, user_id=BOB)
    quick_rd = [c.rd for c in quick.ratings if c.scope == GUILD and c.player_id == ALICE][0]
    stored = raw(
        service,
        f"SELECT rd_before FROM rating_changes WHERE player_id = {ALICE} AND scope = {GUILD} "
        "ORDER BY finish_order",
    )
    assert stored[2][0] > quick_rd + 50  # 200 days widened it a lot
    assert late.ratings and (await service.rebuild_ratings(check=True)).matched


async def test_dm_games_count_globally_only(service: GameService) -> None:
    await game(service, 1, guild=None)
    out = await service.resign(location_id=1, user_id=BOB)
    assert {c.scope for c in out.ratings} == {None}
    assert any("Rating changes (global)" in m for m in out.messages)
    assert (await service.leaderboard(variant="guardener", guild_id=GUILD)).top == ()
    assert raw(service, "SELECT DISTINCT scope FROM ratings") == [(GLOBAL_SCOPE,)]


async def test_leaderboard_shows_the_callers_rank_outside_the_top(service: GameService) -> None:
    players = list(range(1, 14))
    for n, p in enumerate(players):
        await game(service, 100 + n, white=p, black=p + 1000)
        await service.resign(location_id=100 + n, user_id=p + 1000 if n < 12 else p)
    board = await service.leaderboard(variant="guardener", guild_id=GUILD, user_id=13)
    assert len(board.top) == 10 and 13 not in [s.player_id for s in board.top]
    assert board.own is not None and board.own.player_id == 13 and board.own.rank > 10
    assert [s.rank for s in board.top] == list(range(1, 11))
    inside = await service.leaderboard(variant="guardener", guild_id=GUILD, user_id=1)
    assert inside.own is None


async def test_profile_lists_ratings_records_current_games_and_last_results(
    service: GameService,
) -> None:
    for n in range(7):
        await game(service, n + 1)
        await service.resign(location_id=n + 1, user_id=BOB if n % 2 else ALICE)
    await game(service, 50, variant="tquarchess")
    await service.set_board_message(game_id=8, channel_id=50, message_id=999)
    prof = await service.profile(user_id=ALICE, guild_id=GUILD)
    assert [r.variant for r in prof.records] == ["guardener"]
    rec = prof.records[0]
    assert (rec.standing.games, rec.standing.wins, rec.standing.losses) == (7, 3, 4)
    assert len(rec.recent) == 5 and [r.game_id for r in rec.recent] == [7, 6, 5, 4, 3]
    assert [r.score for r in rec.recent] == [0.0, 1.0, 0.0, 1.0, 0.0]
    assert [g.id for g in prof.current] == [8] and prof.boards == ((50, 999),)
    dm = await service.profile(user_id=ALICE, viewer_id=BOB)
    assert dm.current == () and dm.records[0].standing.games == 7


async def test_rebuild_is_exact_after_1000_random_games(
    service: GameService, clock: ManualClock
) -> None:
    count = 1000
    rng = random.Random(15)
    people = [1000 + n for n in range(12)]
    guilds = [GUILD, GUILD + 1, None]
    kinds = ["resign", "draw", "resign", "unrated", "abort", "move"]
    for n in range(count):
        white, black = rng.sample(people, 2)
        kind = rng.choice(kinds)
        variant = rng.choice(["guardener", "stone_garden", "kings_guard"])
        await game(
            service,
            10 + n,
            white,
            black,
            rated=kind != "unrated",
            guild=rng.choice(guilds),
            variant=variant,
        )
        if kind == "abort":
            await service.abort(location_id=10 + n, user_id=1, moderator=True)
        elif kind == "draw":
            await service.offer_draw(location_id=10 + n, user_id=white)
            await service.accept_draw(location_id=10 + n, user_id=black)
        else:
            if kind == "move":
                legal = await service.legal_moves(location_id=10 + n)
                await service.act(
                    location_id=10 + n, user_id=white, text=rng.choice(legal), render=False
                )
            await service.resign(location_id=10 + n, user_id=rng.choice([white, black]))
        if rng.random() < 0.3:
            clock.advance(hours=rng.uniform(0, 24 * 20))
    stored = ratings(service)
    changes = raw(service, "SELECT * FROM rating_changes ORDER BY game_id, scope, player_id")
    assert len(stored) > 50 and len(changes) > count
    report = await service.rebuild_ratings()
    assert report.matched and report.differences == 0 and report.games > count // 2
    assert ratings(service) == stored  # bit for bit: the floats compare exactly
    # Spoil the projection: the rebuild notices, restores it exactly, and then matches.
    raw(service, "UPDATE ratings SET rating = rating + 1e-9 WHERE (player_id + scope) % 7 = 0")
    raw(service, "DELETE FROM rating_changes WHERE game_id % 11 = 0")
    spoiled = await service.rebuild_ratings()
    assert not spoiled.matched and spoiled.differences > 0 and spoiled.written
    assert ratings(service) == stored
    assert (
        raw(service, "SELECT * FROM rating_changes ORDER BY game_id, scope, player_id") == changes
    )
    assert (await service.rebuild_ratings(check=True)).matched


async def test_a_rebuild_continues_with_games_that_finish_while_it_reads(
    service: GameService,
) -> None:
    from bot.service.standings import _Fold

    await game(service, 1)
    await service.resign(location_id=1, user_id=BOB)
    fold = _Fold()
    await fold.feed(service.repo)  # the unlocked pass of a rebuild
    await game(service, 2, white=CAROL, black=ALICE)
    await service.resign(location_id=2, user_id=ALICE)  # finishes meanwhile
    assert not (await fold.report(service.repo, None)).matched  # without it: not the same
    await fold.feed(service.repo)  # the pass inside the write transaction
    report = await fold.report(service.repo, None)
    assert report.matched and report.games == 2
