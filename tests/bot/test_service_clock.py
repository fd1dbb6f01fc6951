"""Correspondence time through the service, on a manual clock (issue 13): days pass in a
moment. Timeouts in every variant for each side to act (also in the middle of a dice
turn), the abort when nobody has moved, reminders once per turn (also across a restart),
challenge expiry, moderators' extensions, and ``verify`` on all of it."""

from __future__ import annotations

import itertools
import random
import sqlite3
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

import variants
from bot.service import (
    GameService,
    InvalidInput,
    InvalidState,
    ManualClock,
    NotAllowed,
    TimeUp,
)
from bot.service.clock import timeout_end

W, B, MOD = 1, 2, 99
START = datetime(2030, 1, 1, 12, 0, tzinfo=UTC)
DAY = timedelta(days=1)


class Table:
    """A service on a manual clock, and the steps these tests share."""

    def __init__(self, service: GameService, clock: ManualClock, path: Path) -> None:
        self.svc = service
        self.clock = clock
        self.path = path

    async def start(
        self, variant: str, days: int | None = 2, options: dict[str, Any] | None = None
    ) -> int:
        made = await self.svc.challenge(
            location_id=next(LOCATIONS),
            challenger_id=W,
            opponent_id=B,
            colour="white",
            variant=variant,
            options=options,
            days=days,
        )
        await self.svc.accept(game_id=made.game.id, user_id=B, render=False)
        return made.game.id

    async def act(self, gid: int, text: str) -> Any:
        view = await self.svc.view(game_id=gid)
        return await self.svc.act(game_id=gid, user_id=view.to_move_id, text=text, render=False)

    async def log(self, gid: int) -> list[Any]:
        return list((await self.svc.history(game_id=gid)).entries)


LOCATIONS = itertools.count(1000)


async def open_table(path: Path, clock: ManualClock, **kwargs: Any) -> Table:
    seeds = itertools.count()
    service = await GameService.open(
        path,
        clock=clock,
        renderer=None,
        dice_renderer=None,
        rng=random.Random(5),
        seed_factory=lambda: f"clock-seed-{next(seeds)}",
        **kwargs,
    )
    return Table(service, clock, path)


@pytest.fixture
async def table(tmp_path: Path) -> AsyncIterator[Table]:
    t = await open_table(tmp_path / "clock.sqlite3", ManualClock(START))
    yield t
    await t.svc.close()


async def check_record(table: Table, gid: int) -> None:
    """The ended game replays from its record, verifies, and shows its seed."""
    view = await table.svc.view(game_id=gid)
    assert view.is_over and view.seed is not None and view.deadline is None
    report = await table.svc.verify(game_id=gid)
    assert report.ok, report.problems
    history = await table.svc.history(game_id=gid)
    replayed = variants.replay(history.record)
    if view.status == "finished":
        assert replayed.result is not None
        assert replayed.result.winner == view.winner
        assert replayed.result.reason == view.result_reason
    else:  # aborted: no result in the record either
        assert replayed.result is None


async def play_until(
    table: Table, gid: int, side: str, rng: random.Random, *, turns: int = 1
) -> datetime:
    """Random legal actions, an hour apart, until ``side`` is to act with at least
    ``turns`` changes of the side to act behind it. Returns when its turn began."""
    changes = 0
    began = table.clock.now()
    for _ in range(300):
        view = await table.svc.view(game_id=gid)
        assert view.status == "active", "the game ended before the timeout could be tested"
        if view.turn == side and changes >= turns:
            return began
        legal = await table.svc.legal_moves(game_id=gid)
        quiet = [m for m in legal if "#" not in m and m not in ("pass",)] or legal
        table.clock.advance(hours=1)
        after = await table.act(gid, rng.choice(quiet))
        if after.game.turn != view.turn:
            changes += 1
            began = table.clock.now()
    raise AssertionError("never reached the wanted side")


# ----- timeouts --------------------------------------------------------------------------


@pytest.mark.parametrize("side", ["white", "black"])
@pytest.mark.parametrize("variant", variants.names())
async def test_a_timeout_in_every_variant_for_each_side(
    table: Table, variant: str, side: str
) -> None:
    gid = await table.start(variant, days=2)
    rng = random.Random(f"{variant}-{side}")
    began = await play_until(table, gid, side, rng, turns=2 if side == "white" else 1)
    view = await table.svc.view(game_id=gid)
    assert view.deadline == began + 2 * DAY  # the turn began with the last change of side
    assert view.time_days == 2
    loser_id = view.to_move_id
    plies = view.ply

    table.clock.set(view.deadline - timedelta(seconds=1))
    events = await table.svc.run_due()
    assert all(e.kind == "reminder" for e in events)  # a second early: still playing
    assert (await table.svc.view(game_id=gid)).status == "active"

    table.clock.set(view.deadline)
    (event,) = await table.svc.run_due()
    assert event.kind == "timeout" and event.game.id == gid
    over = event.game
    winner = "black" if side == "white" else "white"
    assert over.status == "finished" and over.winner == winner
    assert over.result == ("1-0" if winner == "white" else "0-1")
    assert over.result_reason == "timeout" and over.ply == plies
    assert set(event.ping) == {W, B} and loser_id in event.ping
    assert event.messages[0].startswith(f"{side} ran out of time: {winner} wins (timeout)")
    last = (await table.log(gid))[-1]
    assert (last.kind, last.actor_id, last.text) == ("timeout", None, f"{side} ran out of time")
    await check_record(table, gid)
    assert await table.svc.run_due() == ()  # handled once
    with pytest.raises(InvalidState):
        await table.svc.resign(game_id=gid, user_id=loser_id)


async def test_guardener_a_reroll_does_not_restart_the_clock(table: Table) -> None:
    gid = await table.start("guardener", days=3)
    rng = random.Random(7)
    for _ in range(200):  # play until the side to act may re-roll, after a completed turn
        view = await table.svc.view(game_id=gid)
        legal = await table.svc.legal_moves(game_id=gid)
        if view.ply >= 2 and "reroll" in legal:
            break
        table.clock.advance(hours=1)
        await table.act(gid, rng.choice([m for m in legal if m != "reroll"]))
    else:
        raise AssertionError("no double came up")
    deadline, side = view.deadline, view.turn
    assert deadline is not None
    table.clock.advance(hours=30)
    rerolled = await table.act(gid, "reroll")
    assert rerolled.recorded == "reroll" and rerolled.game.turn == side
    assert rerolled.game.deadline == deadline  # a dice action inside the turn: same clock
    table.clock.set(deadline)
    (event,) = await table.svc.run_due()
    assert event.game.status == "finished" and event.game.winner != side
    assert (await table.log(gid))[-2].text == "reroll"
    await check_record(table, gid)


async def test_tquarchess_an_entry_roll_does_not_restart_the_clock(table: Table) -> None:
    gid = await table.start("tquarchess", days=1)
    await table.act(gid, "e4")
    table.clock.advance(hours=2)
    view = await table.act(gid, "e5")  # white's turn begins now
    deadline = view.game.deadline
    assert deadline == table.clock.now() + DAY
    table.clock.advance(hours=20)
    rolled = await table.act(gid, "roll")
    assert rolled.recorded.startswith("roll%") and rolled.game.turn == "white"
    assert rolled.game.deadline == deadline
    table.clock.set(deadline)
    events = await table.svc.run_due()
    assert [e.kind for e in events] == ["timeout"]  # the reminder was overtaken by the end
    assert events[0].game.winner == "black"
    await check_record(table, gid)


@pytest.mark.parametrize(
    ("options", "side", "changes", "expected"),
    [
        # White has placed some pieces but not finished: nobody completed a turn
        ({}, "white", 0, ("aborted", None)),
        # White has placed all; Black lets the mediator roll's turn run out
        ({}, "black", 1, ("finished", "white")),
        # Free Play: White a1, Black h8, then White's placement runs out
        ({"free_play": True}, "white", 2, ("finished", "black")),
        ({"free_play": True}, "black", 3, ("finished", "white")),
    ],
)
async def test_jepps_a_timeout_during_the_setup(
    table: Table,
    options: dict[str, Any],
    side: str,
    changes: int,
    expected: tuple[str, str | None],
) -> None:
    gid = await table.start("jepps_random", days=1, options=options)
    rng = random.Random(11)
    done = seen = 0
    while True:
        view = await table.svc.view(game_id=gid)
        if view.turn == side and seen == changes and done >= 3 - changes:
            break
        legal = await table.svc.legal_moves(game_id=gid)
        table.clock.advance(hours=1)
        after = await table.act(gid, rng.choice(legal))
        done += 1
        seen += after.game.turn != view.turn
        assert seen <= changes and done < 50
    record = (await table.svc.history(game_id=gid)).record
    assert variants.describe(variants.replay(record)).phase == "setup"
    table.clock.set(view.deadline)
    (event,) = await table.svc.run_due()
    assert (event.game.status, event.game.winner) == expected
    if expected[0] == "aborted":
        assert event.game.result is None
        assert event.game.result_reason == "white ran out of time before anyone made a move"
    await check_record(table, gid)


# ----- nobody moved -----------------------------------------------------------------------


@pytest.mark.parametrize("variant", variants.names())
async def test_nobody_moved_the_game_is_aborted_without_a_result(
    table: Table, variant: str
) -> None:
    gid = await table.start(variant, days=1)
    view = await table.svc.view(game_id=gid)
    assert view.deadline == START + DAY
    table.clock.advance(days=3)  # long past: the catch-up handles it once
    (event,) = await table.svc.run_due()
    assert event.kind == "timeout"
    assert event.game.status == "aborted" and event.game.result is None
    assert event.game.seed is not None  # revealed like at any end
    assert "before anyone made a move" in event.messages[0]
    (entry,) = await table.log(gid)
    assert (entry.kind, entry.text) == ("timeout", "white ran out of time")
    await check_record(table, gid)


async def test_a_reroll_alone_is_not_a_move(table: Table) -> None:
    """Guardener: White re-rolls but never moves: nobody has completed a turn."""
    for _ in range(40):
        gid = await table.start("guardener", days=1)
        if "reroll" in await table.svc.legal_moves(game_id=gid):
            break
        await table.svc.abort(game_id=gid, user_id=MOD, moderator=True)
    else:
        raise AssertionError("no opening double in 40 games")
    await table.act(gid, "reroll")
    table.clock.advance(days=1)
    (event,) = await table.svc.run_due()
    assert event.game.status == "aborted"
    await check_record(table, gid)


async def test_after_the_deadline_nothing_changes_until_the_game_ends_on_time(
    table: Table,
) -> None:
    gid = await table.start("kings_guard", days=1)
    await table.act(gid, "e3")
    table.clock.advance(days=2)  # Black's time ran out; the scheduler has not run yet
    entries = len(await table.log(gid))
    legal = await table.svc.legal_moves(game_id=gid)
    with pytest.raises(TimeUp, match="black's time ran out"):
        await table.act(gid, legal[0])
    with pytest.raises(TimeUp):
        await table.svc.resign(game_id=gid, user_id=B)
    with pytest.raises(TimeUp):
        await table.svc.offer_draw(game_id=gid, user_id=W)
    assert len(await table.log(gid)) == entries
    (event,) = await table.svc.run_due()
    assert event.game.winner == "white"
    await check_record(table, gid)


async def test_the_other_side_offering_a_draw_does_not_touch_the_clock(table: Table) -> None:
    gid = await table.start("stone_garden", days=2)
    await table.act(gid, (await table.svc.legal_moves(game_id=gid))[0])
    before = (await table.svc.view(game_id=gid)).deadline
    table.clock.advance(hours=5)
    offered = await table.svc.offer_draw(game_id=gid, user_id=W)
    assert offered.game.deadline == before and offered.game.turn == "black"


async def test_untimed_games_never_fall_due(table: Table) -> None:
    gid = await table.start("tquarchess", days=None)
    view = await table.svc.view(game_id=gid)
    assert view.time_days is None and view.deadline is None
    assert await table.svc.next_due() is None
    table.clock.advance(days=400)
    assert await table.svc.run_due() == ()
    await table.act(gid, "e4")
    assert (await table.svc.view(game_id=gid)).status == "active"


@pytest.mark.parametrize("days", [0, 15, -1, True, 2.5, "3"])
async def test_the_time_control_is_1_to_14_days(table: Table, days: Any) -> None:
    with pytest.raises(InvalidInput, match="from 1 to 14"):
        await table.svc.challenge(
            location_id=1, challenger_id=W, opponent_id=B, variant="guardener", days=days
        )
    assert await table.svc.list_games() == ()


# ----- what a timeout means (RULES: FIDE 6.9 where the variant has checkmate) --------------


@pytest.mark.parametrize(
    ("variant", "fen", "expected"),
    [
        # Black to act runs out; White has a lone King whose two-square move is spent
        # (K): it cannot mate, so a draw (RULES.md section 7).
        ("tquarchess", "4k3/8/8/8/8/8/3q4/4K3 b - - 0 1 - -/- K - 0", (None, "1/2-1/2")),
        # ... but a Tquarc still waiting to enter at e1 is material: White wins.
        ("tquarchess", "4k3/8/8/8/8/8/3q4/4K3 b - - 0 1 T e/- K - 0", ("white", "1-0")),
        # ... and so is an unused two-square move with the Tquarc captured: White wins.
        ("tquarchess", "4k3/8/8/8/8/8/3q4/4K3 b - - 0 1 - -/- - - 0", ("white", "1-0")),
        # A Knight can mate with the loser's help (FIDE's test): White wins.
        ("tquarchess", "4k3/8/8/8/8/8/3q4/4K1N1 b - - 0 1 - -/- - - 0", ("white", "1-0")),
        ("jepps_random", "4k3/8/8/8/8/8/3q4/4K3 b - - 0 1", (None, "1/2-1/2")),
        # King's Guard: a side without pawns can never win (it loses at the start of its
        # next turn), so its opponent's timeout is a draw; with a pawn it wins.
        ("kings_guard", "4k3/8/8/8/8/8/3p4/4K3 b - - 0 1", (None, "1/2-1/2")),
        ("kings_guard", "4k3/8/8/8/8/8/3p3P/4K3 b - - 0 1", ("white", "1-0")),
    ],
)
def test_the_winner_who_cannot_win_draws(
    variant: str, fen: str, expected: tuple[str | None, str]
) -> None:
    game = variants.from_fen(variant, fen, seed=1)
    assert game.result is None and game.turn == "black"
    end = timeout_end(game, turns=5)
    assert (end.winner, end.result, end.status) == (*expected, "finished")
    assert end.reason == ("timeout" if expected[0] else "timeout vs insufficient material")


def test_a_lone_king_with_its_two_square_move_can_still_mate() -> None:
    """Issue 25's position: White's Tquarc is captured and its two-square move unused, so
    its lone King mates with Kh6 (it attacks h8 across h7); running out of time, Black
    therefore loses (RULES.md section 7)."""
    fen = "6rk/6n1/8/7K/8/8/8/8 {} - - 0 1 t -/- - - 0"
    game = variants.from_fen("tquarchess", fen.format("w"), seed=1)
    game.play("Kh6")
    assert game.result is not None
    assert (game.result.winner, game.result.reason) == ("white", "checkmate")
    game = variants.from_fen("tquarchess", fen.format("b"), seed=1)
    end = timeout_end(game, turns=5)
    assert (end.winner, end.result, end.reason) == ("white", "1-0", "timeout")
    spent = variants.from_fen("tquarchess", fen.format("b").replace("-/- -", "-/- K"), seed=1)
    assert timeout_end(spent, turns=5).result == "1/2-1/2"  # the move spent: a draw


# ----- reminders ---------------------------------------------------------------------------


async def test_one_reminder_per_turn_and_none_again_after_a_restart(tmp_path: Path) -> None:
    clock = ManualClock(START)
    path = tmp_path / "remind.sqlite3"
    table = await open_table(path, clock)
    gid = await table.start("kings_guard", days=1)  # reminded with 6 hours left (a quarter)
    clock.set(START + timedelta(hours=17, minutes=59))
    assert await table.svc.run_due() == ()
    clock.set(START + timedelta(hours=18))
    (reminder,) = await table.svc.run_due()
    assert reminder.kind == "reminder" and reminder.ping == (W,)
    assert "6 hours left" in reminder.messages[0]
    clock.advance(minutes=30)
    assert await table.svc.run_due() == ()
    await table.svc.close()

    table = await open_table(path, clock)  # the bot restarts
    clock.advance(hours=1)
    assert await table.svc.run_due() == ()  # stored: not reminded twice
    moved = await table.act(gid, "e3")  # a new turn: Black's clock, 24 hours
    assert moved.game.deadline == clock.now() + DAY
    clock.advance(hours=18)
    (second,) = await table.svc.run_due()
    assert second.kind == "reminder" and second.ping == (B,)
    await table.svc.close()


async def test_a_long_time_control_reminds_with_24_hours_left(table: Table) -> None:
    gid = await table.start("guardener", days=5)
    table.clock.set(START + 4 * DAY - timedelta(seconds=1))
    assert await table.svc.run_due() == ()
    table.clock.set(START + 4 * DAY)
    (event,) = await table.svc.run_due()
    assert event.kind == "reminder" and event.game.id == gid


# ----- challenges expire -------------------------------------------------------------------


async def test_a_challenge_expires_after_24_hours(table: Table) -> None:
    made = await table.svc.challenge(
        location_id=5, challenger_id=W, opponent_id=B, variant="guardener", days=3
    )
    gid = made.game.id
    assert made.game.deadline == START + DAY and made.game.time_days == 3
    assert await table.svc.next_due() == START + DAY
    table.clock.set(START + DAY - timedelta(seconds=1))
    assert await table.svc.run_due() == ()
    table.clock.set(START + DAY)
    with pytest.raises(TimeUp, match="challenge expired"):  # before the scheduler runs
        await table.svc.accept(game_id=gid, user_id=B)
    (event,) = await table.svc.run_due()
    assert event.kind == "expired" and event.game.status == "cancelled"
    assert "expired" in (event.game.result_reason or "") and event.ping == ()
    with pytest.raises(InvalidState, match="not an open challenge"):
        await table.svc.accept(game_id=gid, user_id=B)
    # the location is free again; the challenger's open challenges no longer count it
    again = await table.svc.challenge(location_id=5, challenger_id=W, variant="guardener")
    assert again.game.status == "challenge"


async def test_an_accepted_challenge_does_not_expire(table: Table) -> None:
    gid = await table.start("tquarchess", days=3)
    table.clock.advance(hours=25)
    events = await table.svc.run_due()
    assert events == () and (await table.svc.view(game_id=gid)).status == "active"


async def test_the_challenge_hours_are_configurable(tmp_path: Path) -> None:
    clock = ManualClock(START)
    table = await open_table(tmp_path / "hours.sqlite3", clock, challenge_hours=2)
    made = await table.svc.challenge(location_id=5, challenger_id=W, variant="kings_guard")
    assert made.game.deadline == START + timedelta(hours=2)
    clock.advance(hours=2)
    (event,) = await table.svc.run_due()
    assert event.kind == "expired" and "within 2 hours" in event.messages[0]
    await table.svc.close()


# ----- moderators extend ----------------------------------------------------------------------


async def test_a_moderator_extends_the_clock_and_it_is_logged_and_verified(
    table: Table,
) -> None:
    gid = await table.start("kings_guard", days=1)
    await table.act(gid, "e3")
    deadline = (await table.svc.view(game_id=gid)).deadline
    assert deadline is not None
    table.clock.advance(hours=1)
    out = await table.svc.extend(
        game_id=gid, user_id=MOD, moderator=True, days=2, reason="travelling"
    )
    assert out.game.deadline == deadline + 2 * DAY
    entry = (await table.log(gid))[-1]
    assert (entry.kind, entry.actor_id, entry.text) == (
        "extend",
        MOD,
        "2 days added to black's clock: travelling",
    )
    # the reminder moved with the deadline: the turn now has 3 days, a quarter is 18 hours
    remind = deadline + 2 * DAY - timedelta(hours=18)
    table.clock.set(remind - timedelta(seconds=1))
    assert await table.svc.run_due() == ()
    table.clock.set(remind)
    (reminder,) = await table.svc.run_due()
    assert reminder.kind == "reminder"
    # after the reminder, another extension does not remind again
    await table.svc.extend(game_id=gid, user_id=MOD, moderator=True, days=1)
    table.clock.set(deadline + 3 * DAY - timedelta(seconds=1))
    assert await table.svc.run_due() == ()
    table.clock.set(deadline + 3 * DAY)
    (end,) = await table.svc.run_due()
    assert end.kind == "timeout" and end.game.winner == "white"
    await check_record(table, gid)


async def test_extend_refusals(table: Table) -> None:
    timed = await table.start("guardener", days=1)
    untimed = await table.start("guardener", days=None)
    with pytest.raises(NotAllowed, match="only a moderator"):
        await table.svc.extend(game_id=timed, user_id=MOD, moderator=False, days=1)
    with pytest.raises(NotAllowed, match="you play in this game"):
        await table.svc.extend(game_id=timed, user_id=W, moderator=True, days=1)
    with pytest.raises(InvalidState, match="no time limit"):
        await table.svc.extend(game_id=untimed, user_id=MOD, moderator=True, days=1)
    with pytest.raises(InvalidInput, match="from 1 to 14"):
        await table.svc.extend(game_id=timed, user_id=MOD, moderator=True, days=15)
    table.clock.advance(days=2)
    with pytest.raises(TimeUp):  # too late: the result is settled at the deadline
        await table.svc.extend(game_id=timed, user_id=MOD, moderator=True, days=1)
    assert [e.kind for e in await table.log(timed)] == []


async def test_verify_checks_the_result_of_a_timeout(table: Table) -> None:
    gid = await table.start("tquarchess", days=1)
    await table.act(gid, "e4")
    table.clock.advance(days=1)
    await table.svc.run_due()
    assert (await table.svc.verify(game_id=gid)).ok
    await table.svc.close()
    with sqlite3.connect(table.path) as conn:  # someone edits the stored result
        conn.execute(
            "UPDATE games SET result = '1/2-1/2', result_reason = 'timeout vs insufficient "
            "material' WHERE id = ?",
            (gid,),
        )
    table.svc = (await open_table(table.path, table.clock)).svc
    report = await table.svc.verify(game_id=gid)
    assert not report.ok
    assert any("black ran out of time" in p and "won by white" in p for p in report.problems)
