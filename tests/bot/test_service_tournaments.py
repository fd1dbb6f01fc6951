"""Tournaments through the service (issue 30), driven by the deadline scheduler on a
manual clock: registration and its refusals, rounds paired by themselves once, games
opened already accepted, a forfeit on time, a player withdrawn after two timeouts, a
bye, the final post with the winner, and ``check`` agreeing with every stored round."""

from __future__ import annotations

import asyncio
import itertools
import random
from datetime import UTC, datetime, timedelta

import pytest
from stores import is_pg, raw

from bot.service import GameService, ManualClock, Scheduler, ServiceError
from bot.service.tournament_life import is_placeholder

START = datetime(2030, 1, 1, 12, 0, tzinfo=UTC)
GUILD = 900_000_000_000_000_001
CHANNEL = 900_000_000_000_000_002
MOD = 777
PLAYERS = [101, 102, 103, 104, 105, 106]
VARIANT = "kings_guard"


async def open_service(target: str, clock: ManualClock, tag: str = "t") -> GameService:
    seeds = itertools.count()
    return await GameService.open(
        target,
        clock=clock,
        renderer=None,
        dice_renderer=None,
        rng=random.Random(5),
        seed_factory=lambda: f"tourney-{tag}-{next(seeds)}",
    )


async def create(svc: GameService, **changes: object) -> int:
    args: dict[str, object] = dict(
        guild_id=GUILD,
        channel_id=CHANNEL,
        user_id=MOD,
        may_run=True,
        variant=VARIANT,
        format="swiss",
        rounds=3,
        days=1,
        rated=True,
        starts="2h",
    )
    args.update(changes)
    news = await svc.tournaments.create(**args)  # type: ignore[arg-type]
    return news.tournament.id


async def live_games(svc: GameService, tournament_id: int) -> list[int]:
    boards = await svc.repo.tournament_boards(tournament_id)
    ids = [b.game_id for b in boards if b.game_id is not None]
    games = [await svc.repo.get_game(g) for g in ids]
    return [g.id for g in games if g is not None and g.is_live]


async def move_until_turn_of(svc: GameService, game_id: int, player: int) -> None:
    """Play legal actions until ``player`` is to act (the other side moves)."""
    for _ in range(20):
        view = await svc.view(game_id=game_id)
        if view.to_move_id == player:
            return
        legal = await svc.legal_moves(game_id=game_id)
        await svc.act(game_id=game_id, user_id=view.to_move_id, text=legal[0], render=False)
    raise AssertionError("the turn never came")


def kinds(target: str) -> list[str]:
    return [r[0] for r in raw(target, "SELECT kind FROM outbox ORDER BY id")]


async def test_registration_refuses_bad_input_and_changes_nothing(store_target: str) -> None:
    clock = ManualClock(START)
    svc = await open_service(store_target, clock)
    try:
        refusals = {
            "variant": dict(variant="no_such_chess"),
            "past": dict(starts="2029-12-31 10:00"),
            "unreadable": dict(starts="next tuesday-ish"),
            "format": dict(format="arena"),
            "rounds": dict(rounds=0),
            "robin": dict(format="round-robin", rounds=3),
            "rights": dict(may_run=False),
        }
        said = {}
        for name, change in refusals.items():
            with pytest.raises(ServiceError) as error:
                await create(svc, **change)
            said[name] = str(error.value)
        assert "unknown variant 'no_such_chess'" in said["variant"]
        assert "has passed" in said["past"]
        assert "can't read the start" in said["unreadable"]
        assert "swiss or round-robin" in said["format"]
        assert "1 to 30 rounds" in said["rounds"]
        assert "once (rounds 1) or twice" in said["robin"]
        assert "only moderators" in said["rights"]
        assert all("\n" not in s for s in said.values())
        assert raw(store_target, "SELECT COUNT(*) FROM tournaments") == [(0,)]

        tid = await create(svc)
        await svc.tournaments.join(guild_id=GUILD, user_id=101, name="Ann")
        with pytest.raises(ServiceError, match="already joined"):
            await svc.tournaments.join(guild_id=GUILD, user_id=101, name="Ann")
        with pytest.raises(ServiceError, match="have not joined"):
            await svc.tournaments.leave(guild_id=GUILD, user_id=102)
        with pytest.raises(ServiceError, match="has not started: leave it"):
            await svc.tournaments.withdraw(guild_id=GUILD, user_id=101)
        with pytest.raises(ServiceError, match="needs at least two players"):
            await svc.tournaments.start(guild_id=GUILD, user_id=MOD, may_run=True)
        # The limit of live tournaments per server (a setting), and of players.
        await svc.server_settings.change(
            guild_id=GUILD, actor_id=MOD, values={"max_tournaments": 2, "tournament_players": 2}
        )
        second = await create(svc)
        with pytest.raises(ServiceError, match="at most 2 may run at once"):
            await create(svc)
        with pytest.raises(ServiceError, match="name one by its id"):
            await svc.tournaments.join(guild_id=GUILD, user_id=102)
        for user in (102, 103):
            await svc.tournaments.join(guild_id=GUILD, user_id=user, tournament_id=second)
        with pytest.raises(ServiceError, match="is full: it takes 2 players"):
            await svc.tournaments.join(guild_id=GUILD, user_id=105, tournament_id=second)
        with pytest.raises(ServiceError, match="no tournament 999 on this server"):
            await svc.tournaments.join(guild_id=GUILD, user_id=104, tournament_id=999)
        # Registration closes at the start time, even before the scheduler has run.
        clock.advance(hours=2)
        with pytest.raises(ServiceError, match="registration for tournament .* has closed"):
            await svc.tournaments.join(guild_id=GUILD, user_id=104, tournament_id=tid)
        with pytest.raises(ServiceError, match="can no longer leave it"):
            await svc.tournaments.leave(guild_id=GUILD, user_id=101, tournament_id=tid)
        actions = [r[0] for r in raw(store_target, "SELECT action FROM tournament_log ORDER BY id")]
        assert actions == ["create", "join", "create", "join", "join"]
        # One player at the start: cancelled by the scheduler, and said so.
        await Scheduler(svc).run_once()
        first = await svc.tournaments.tournament(tournament_id=tid)
        assert first.status == "cancelled"
        assert (await svc.tournaments.tournament(tournament_id=second)).status == "running"
        assert "tournament_cancelled" in kinds(store_target)
    finally:
        await svc.close()


async def cli(
    capsys: pytest.CaptureFixture[str], action: str, tid: int, target: str
) -> tuple[int, str]:
    """``chessgarden tournament ACTION ID --db TARGET`` (in a thread: it runs its own loop)."""
    from bot import cli as entry

    capsys.readouterr()
    code = await asyncio.to_thread(entry.main, ["tournament", action, str(tid), "--db", target])
    return code, capsys.readouterr().out


async def test_a_whole_swiss_runs_by_itself(
    store_target: str, capsys: pytest.CaptureFixture[str]
) -> None:
    clock = ManualClock(START)
    svc = await open_service(store_target, clock)
    scheduler = Scheduler(svc)
    try:
        tid = await create(svc)
        for n, user in enumerate(PLAYERS):
            await svc.tournaments.join(guild_id=GUILD, user_id=user, name=f"P{n + 1}")
        await svc.tournaments.join(guild_id=GUILD, user_id=107, name="Late")
        await svc.tournaments.leave(guild_id=GUILD, user_id=107)
        assert await svc.next_due() == START + timedelta(hours=2)

        await scheduler.run_once()  # not yet
        assert await svc.repo.tournament_rounds(tid) == []
        clock.advance(hours=2)
        await scheduler.run_once()
        await scheduler.run_once()  # a second pass pairs nothing more
        rounds = await svc.repo.tournament_rounds(tid)
        assert [r.number for r in rounds] == [1] and rounds[0].bye_id is None
        games = await live_games(svc, tid)
        assert len(games) == 3
        for game_id in games:  # accepted already: seeded, clock running, nobody challenged
            view = await svc.view(game_id=game_id)
            row = await svc.repo.get_game(game_id)
            assert row is not None and row.status == "active" and row.commitment
            assert row.time_days == 1 and row.deadline_ms is not None and row.rated
            assert is_placeholder(row.location_id) and view.to_move_id in PLAYERS
        assert kinds(store_target) == ["tournament_round"] + ["tournament_game"] * 3

        # Round 1: a resignation, a draw, and a game nobody moves in (lost on time).
        pairs = await svc.tournaments.pairings(guild_id=GUILD)
        b1, b2, b3 = pairs.boards
        await svc.resign(game_id=b1.game_id, user_id=b1.black_id)
        await svc.offer_draw(game_id=b2.game_id, user_id=b2.white_id)
        await move_until_turn_of(svc, b2.game_id, b2.black_id)
        await svc.accept_draw(game_id=b2.game_id, user_id=b2.black_id)
        sleeper = b3.white_id
        clock.advance(days=1, minutes=1)
        await scheduler.run_once()  # the timeout, then round 2 in the same pass
        board3 = [b for b in await svc.repo.tournament_boards(tid) if b.round == 1][2]
        assert (board3.result, board3.forfeit, board3.ending) == ("0-1", True, "timeout")
        assert [r.number for r in await svc.repo.tournament_rounds(tid)] == [1, 2]
        player = await svc.repo.tournament_player(tid, sleeper)
        assert player is not None and player.timeouts == 1 and player.status == "joined"

        # Round 2: the sleeper lets a game run out again (after a move each side):
        # two timeouts, withdrawn from the pairings.
        pairs = await svc.tournaments.pairings(guild_id=GUILD, round_no=2)
        mine = next(b for b in pairs.boards if sleeper in (b.white_id, b.black_id))
        await move_until_turn_of(svc, mine.game_id, sleeper)
        for b in pairs.boards:
            if b is not mine:
                await svc.resign(game_id=b.game_id, user_id=b.white_id)
        clock.advance(days=1, minutes=1)
        await scheduler.run_once()
        player = await svc.repo.tournament_player(tid, sleeper)
        assert player is not None and player.timeouts == 2 and player.status == "withdrawn"
        assert player.out_from == 3

        # Round 3: five players left: a bye (to the lowest-ranked without one).
        pairs = await svc.tournaments.pairings(guild_id=GUILD, round_no=3)
        assert pairs.bye_id is not None and pairs.bye_id != sleeper
        assert sleeper not in {p for b in pairs.boards for p in (b.white_id, b.black_id)}
        assert len(pairs.boards) == 2 and pairs.bye_points == 1.0
        standings = await svc.tournaments.standings(guild_id=GUILD)
        assert not standings.final and standings.rounds_done == 2
        # The round's deadline (10 days: ten times the days per move): a game still
        # running then ends as on time, though its players move within their days.
        await svc.resign(game_id=pairs.boards[0].game_id, user_id=pairs.boards[0].black_id)
        for _ in range(12):  # nine more days: the last game is moved, never finished
            game_id = pairs.boards[1].game_id
            view = await svc.view(game_id=game_id)
            if view.status != "active":
                break
            legal = await svc.legal_moves(game_id=game_id)
            await svc.act(game_id=game_id, user_id=view.to_move_id, text=legal[0], render=False)
            clock.advance(hours=20)
            await scheduler.run_once()
        info = await svc.tournaments.tournament(tournament_id=tid)
        assert info.status == "finished"
        last = [b for b in await svc.repo.tournament_boards(tid) if b.round == 3]
        assert {b.ending for b in last} == {"played", "round deadline"}

        final = await svc.tournaments.standings(tournament_id=tid)
        assert final.final and final.rounds_done == 3 and final.winner is not None
        assert info.winner_id == final.winner.player.id
        ends = raw(store_target, "SELECT kind, payload FROM outbox WHERE kind = 'tournament_end'")
        assert len(ends) == 1 and final.winner.player.name in ends[0][1]
        actions = [r[0] for r in raw(store_target, "SELECT action FROM tournament_log ORDER BY id")]
        assert actions == [
            "create",
            *["join"] * 7,
            "leave",
            "start",
            "pair",
            "pair",
            "withdraw",
            "pair",
            "finish",
        ]
        assert await svc.tournaments.check(tournament_id=tid) == []
        code, shown = await cli(capsys, "show", tid, store_target)
        assert code == 0 and "Final standings:" in shown and "Round 3 (done" in shown
        assert f"won by {final.winner.player.name}" in shown and "bye: " in shown
        code, said = await cli(capsys, "check", tid, store_target)
        assert code == 0 and "all 3 stored round(s) follow" in said
        # A tampered result is noticed: the pairing after it no longer follows.
        raw(
            store_target,
            "UPDATE tournament_games SET result = '0-1', forfeit = 0 "
            "WHERE tournament_id = ? AND round = 1 AND board = 1",
            (tid,),
        )
        problems = await svc.tournaments.check(tournament_id=tid)
        assert any("round 1, board 1: the result stored is 0-1" in p for p in problems)
        code, said = await cli(capsys, "check", tid, store_target)
        assert code == 1 and "the result stored is 0-1" in said
    finally:
        await svc.close()


async def test_two_services_pair_a_round_once(store_target: str) -> None:
    """Two processes' schedulers (two services on one store) due at the same moment."""
    clock = ManualClock(START)
    one = await open_service(store_target, clock, "a")
    two = await open_service(store_target, clock, "b")
    try:
        tid = await create(one, format="round-robin", rounds=1)
        for user in PLAYERS[:5]:
            await one.tournaments.join(guild_id=GUILD, user_id=user)
        clock.advance(hours=3)
        await asyncio.gather(*(s.run_due() for s in (one, two, one, two)))
        rounds = await one.repo.tournament_rounds(tid)
        assert [r.number for r in rounds] == [1] and rounds[0].bye_id is not None
        assert len(await live_games(one, tid)) == 2
        assert raw(store_target, "SELECT COUNT(*) FROM games") == [(2,)]
        started = await one.repo.tournament(tid)
        assert started is not None and started.rounds == 5  # five players: five rounds
        assert await one.tournaments.check(tournament_id=tid) == []
        if not is_pg(store_target):
            assert raw(store_target, "PRAGMA foreign_key_check") == []
    finally:
        await one.close()
        await two.close()


async def test_a_round_robin_removal_forfeits_and_a_cancel_aborts(store_target: str) -> None:
    """A moderator removes a player (logged): their round-robin games to come are
    forfeits won by the opponent, with no game; a cancel aborts the games in play."""
    clock = ManualClock(START)
    svc = await open_service(store_target, clock)
    try:
        tid = await create(svc, format="round-robin", rounds=1)
        for user in PLAYERS[:4]:
            await svc.tournaments.join(guild_id=GUILD, user_id=user)
        with pytest.raises(ServiceError, match="only moderators"):
            await svc.tournaments.remove(guild_id=GUILD, user_id=101, may_run=False, player_id=102)
        await svc.tournaments.start(guild_id=GUILD, user_id=MOD, may_run=True)
        out = PLAYERS[0]
        await svc.tournaments.remove(
            guild_id=GUILD, user_id=MOD, may_run=True, player_id=out, reason="left the server"
        )
        with pytest.raises(ServiceError, match="is not playing"):
            await svc.tournaments.remove(guild_id=GUILD, user_id=MOD, may_run=True, player_id=out)
        for game_id in await live_games(svc, tid):  # round 1 is played out
            view = await svc.view(game_id=game_id)
            await svc.resign(game_id=game_id, user_id=view.white_id)
        await svc.run_due()
        second = [b for b in await svc.repo.tournament_boards(tid) if b.round == 2]
        forfeits = [b for b in second if out in (b.white_id, b.black_id)]
        assert len(forfeits) == 1 and forfeits[0].game_id is None
        assert forfeits[0].forfeit and forfeits[0].ending == "forfeit"
        assert forfeits[0].result == ("0-1" if forfeits[0].white_id == out else "1-0")
        assert len(await live_games(svc, tid)) == 1
        news = await svc.tournaments.cancel(
            guild_id=GUILD, user_id=MOD, may_run=True, reason="the server closes"
        )
        assert news.tournament.status == "cancelled" and not await live_games(svc, tid)
        log = await svc.repo.tournament_log(tid)
        assert [(e.action, e.actor_id) for e in log if e.action in ("remove", "cancel")] == [
            ("remove", MOD),
            ("cancel", MOD),
        ]
        assert next(e for e in log if e.action == "remove").detail == "left the server"
        assert await svc.tournaments.check(tournament_id=tid) == []
    finally:
        await svc.close()
