"""The chained log (issue 24): each entry's digest covers the one before it, the boards show
the chain head, and ``verify`` catches what it missed before, on both stores:

- two moves of one side swapped in a game without dice (both orders replay, the dice
  cannot tell);
- a move's player changed to the opponent;
- a history rewritten with every digest recomputed, given a chain head copied from a
  board posted before the rewrite.

Migration 9 fills the digests of a log stored before it, the same digests the store
computes when it appends (the one definition in ``storage.chain``).
"""

from __future__ import annotations

import random
import sqlite3

import pgcluster
import pytest
from stores import is_pg, raw, tamper

from bot.service import GameService, InvalidInput, Outcome
from storage.chain import SHORT_HEAD, chain_of, game_root

ALICE, BOB, MOD = 101, 202, 404
NO_DICE = "kings_guard"  # no die in the whole game: any legal order of moves replays


@pytest.fixture
async def service(store_target: str):
    svc = await GameService.open(
        store_target, renderer=None, dice_renderer=None, rng=random.Random(0)
    )
    yield svc
    await svc.close()


async def start(service: GameService, variant: str, location: int = 1) -> Outcome:
    await service.challenge(
        location_id=location, challenger_id=ALICE, opponent_id=BOB, variant=variant, colour="white"
    )
    return await service.accept(location_id=location, user_id=BOB, render=False)


async def knights(service: GameService, location: int = 1) -> tuple[int, list[str]]:
    """A game without dice: 1. Nc3 Nc6 2. Nf3 Nf6, then black resigns. The chain heads
    the boards showed: after the start, then after each entry."""
    outcome = await start(service, NO_DICE, location)
    heads = [outcome.game.chain_head]
    for text in ("Nc3", "Nc6", "Nf3", "Nf6"):
        outcome = await service.act(
            game_id=outcome.game.id, user_id=outcome.next_user_id, text=text, render=False
        )
        heads.append(outcome.game.chain_head)
    outcome = await service.resign(game_id=outcome.game.id, user_id=BOB)
    heads.append(outcome.game.chain_head)
    assert all(h is not None and len(h) == 64 for h in heads) and len(set(heads)) == len(heads)
    return outcome.game.id, [str(h) for h in heads]


def said(report: object, *words: str) -> bool:
    return any(all(w in m for w in words) for m in getattr(report, "messages", ()))


def swap_moves(target: str, gid: int, first: int, second: int) -> None:
    """Swap the texts of two log entries, as someone with the database could."""
    read = "SELECT text FROM actions WHERE game_id = ? AND seq = ?"
    (a,), (b,) = (raw(target, read, (gid, seq))[0] for seq in (first, second))
    change = "UPDATE actions SET text = ? WHERE game_id = ? AND seq = ?"
    tamper(target, change, (b, gid, first), triggers=("actions_no_update",))
    tamper(target, change, (a, gid, second))


async def recompute_chain(service: GameService, target: str, gid: int) -> None:
    """What a careful tamperer does next: every digest and the head made to match again
    (the definition is public)."""
    row = await service.repo.get_game(gid)
    actions = await service.repo.actions(gid)
    assert row is not None
    digests = chain_of(row, actions)
    for action, digest in zip(actions, digests[1:], strict=True):
        tamper(
            target,
            "UPDATE actions SET digest = ? WHERE game_id = ? AND seq = ?",
            (digest, gid, action.seq),
        )
    tamper(target, "UPDATE games SET log_head = ? WHERE id = ?", (digests[-1], gid))


# ----- a clean game -----------------------------------------------------------------


async def test_a_clean_game_is_chained_and_verifies(
    service: GameService, store_target: str
) -> None:
    gid, heads = await knights(service)
    row = await service.repo.get_game(gid)
    actions = await service.repo.actions(gid)
    assert row is not None and len(actions) == 5
    # the stored digests are the chain recomputed from the game's start, and the head
    # every board showed is the chain after its latest entry
    assert [game_root(row), *(a.digest for a in actions)] == chain_of(row, actions) == heads
    assert raw(store_target, "SELECT log_head FROM games WHERE id = ?", (gid,)) == [(heads[-1],)]
    assert (await service.view(game_id=gid)).chain_head == heads[-1]
    report = await service.verify(game_id=gid)
    assert report.ok, report.messages
    assert report.messages[-1].startswith("verified:") and "chained" in report.messages[-1]
    # a head copied from any board posted during the game is found, as typed or copied
    for seq, head in enumerate(heads):
        checked = await service.verify(game_id=gid, expected_head=f"chain {head[:SHORT_HEAD]}")
        where = "the game's start" if seq == 0 else f"entry {seq}"
        assert checked.ok and said(checked, f"is the head after {where}"), checked.messages
    for bad in ("xyz", "abc", heads[0][:8]):
        with pytest.raises(InvalidInput, match="chain head"):
            await service.verify(game_id=gid, expected_head=bad)


# ----- (a) two moves of one side swapped, no dice -------------------------------------


async def test_two_swapped_moves_of_one_side_are_caught(
    service: GameService, store_target: str
) -> None:
    gid, _ = await knights(service)
    swap_moves(store_target, gid, 1, 3)  # white: Nf3 first, then Nc3
    report = await service.verify(game_id=gid)
    # the moves still replay on the (absent) dice, and nothing else changed: only the
    # chain tells
    assert report.replay_error is None and not report.mismatches
    assert not report.ok
    assert said(report, "entry 1 (move Nf3, by player 101) does not match its digest")
    assert said(report, "entry 3 (move Nc3, by player 101) does not match its digest")
    assert report.messages[-1] == "NOT verified"


# ----- (b) a move given to the opponent ------------------------------------------------


async def test_a_move_given_to_the_opponent_is_caught(
    service: GameService, store_target: str
) -> None:
    gid, _ = await knights(service)
    tamper(
        store_target,
        "UPDATE actions SET actor_id = ? WHERE game_id = ? AND seq = 2",
        (ALICE, gid),
        triggers=("actions_no_update",),
    )
    report = await service.verify(game_id=gid)
    assert not report.ok and report.replay_error is None
    assert said(report, "entry 2 (Nc6) is a move by black, but it was sent by player 101, "
                        "who plays white")  # fmt: skip
    assert said(report, "entry 2 (move Nc6, by player 101) does not match its digest")
    # the digests recomputed to match: the player is still wrong for the side that moved
    await recompute_chain(service, store_target, gid)
    again = await service.verify(game_id=gid)
    assert not again.ok and not said(again, "does not match its digest")
    assert said(again, "entry 2 (Nc6) is a move by black, but it was sent by player 101")


async def test_a_draw_offer_given_to_the_other_side_is_caught(
    service: GameService, store_target: str
) -> None:
    outcome = await start(service, NO_DICE)
    gid = outcome.game.id
    await service.offer_draw(game_id=gid, user_id=ALICE)
    await service.accept_draw(game_id=gid, user_id=BOB)
    assert (await service.verify(game_id=gid)).ok
    tamper(
        store_target,
        "UPDATE actions SET actor_id = ? WHERE game_id = ? AND kind = 'draw_offer'",
        (BOB, gid),
        triggers=("actions_no_update",),
    )
    await recompute_chain(service, store_target, gid)
    report = await service.verify(game_id=gid)
    assert not report.ok
    assert said(
        report, "says 'white offers a draw', but it was sent by player 202, who plays black"
    )


# ----- a history rewritten with every digest recomputed ------------------------------


async def test_a_rewrite_with_recomputed_digests_is_caught_by_a_posted_head(
    service: GameService, store_target: str
) -> None:
    gid, heads = await knights(service)
    swap_moves(store_target, gid, 1, 3)
    await recompute_chain(service, store_target, gid)
    # the stored log is consistent again: without a posted board, nothing tells
    alone = await service.verify(game_id=gid)
    assert alone.ok, alone.messages
    # the head shown on the board posted after white's second move is no longer reached
    posted = heads[3][:SHORT_HEAD]
    report = await service.verify(game_id=gid, expected_head=posted)
    assert not report.ok and report.messages[-1] == "NOT verified"
    assert said(
        report,
        f"no entry of this game's log has the chain head {posted} that a board showed: "
        "the history was rewritten after that board was posted",
    )
    # the board posted when the game began is still reached: nothing before it changed
    first = await service.verify(game_id=gid, expected_head=heads[0][:SHORT_HEAD])
    assert first.ok and said(first, "is the head after the game's start")
    # and the kept verdict is not changed by a head check
    assert (await service.verify(game_id=gid)).ok


# ----- migration 9 fills the digests of a log stored before it --------------------------

_OLD_COUNTED_SQLITE = """
    CREATE TRIGGER actions_counted AFTER INSERT ON actions
    BEGIN
        UPDATE games SET log_count = NEW.seq,
                         roll_count = roll_count + json_array_length(NEW.rolls)
        WHERE id = NEW.game_id;
    END
"""
_OLD_COUNTED_PG = """
    CREATE OR REPLACE FUNCTION cg_actions_counted() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        UPDATE games SET log_count = NEW.seq,
                         roll_count = roll_count + json_array_length(NEW.rolls::json)
        WHERE id = NEW.game_id;
        RETURN NULL;
    END $$
"""


# What version 10 (issue 27) added, taken away again.
UNDO_VERSION_10 = (
    "DROP TABLE analyses",  # version 12
    "DROP TABLE tournament_log",  # version 11, its triggers with it
    "DROP TABLE tournament_games",
    "DROP TABLE tournament_rounds",
    "DROP TABLE tournament_players",
    "DROP TABLE tournaments",
    "DROP TABLE user_prefs",  # version 10
    "DROP TABLE settings_log",
    "DROP TABLE guild_settings",
    "ALTER TABLE games DROP COLUMN takeback_offer",
    "ALTER TABLE games DROP COLUMN takeback_seq",
)


def back_to_version_8(target: str) -> None:
    """The store as version 8 left it: no digest, no head, the old counting trigger."""
    if is_pg(target):
        for sql in (
            _OLD_COUNTED_PG,
            "ALTER TABLE actions DROP COLUMN digest",
            "ALTER TABLE games DROP COLUMN log_head",
            *UNDO_VERSION_10,
            "DROP FUNCTION cg_settings_log_append_only",
            "DROP FUNCTION cg_tournament_log_append_only",
            "UPDATE chessgarden_schema SET version = 8",
        ):
            pgcluster.execute(target, sql)
        return
    conn = sqlite3.connect(target, isolation_level=None)
    try:
        for sql in (
            "DROP TRIGGER actions_counted",
            _OLD_COUNTED_SQLITE,
            "ALTER TABLE actions DROP COLUMN digest",
            "ALTER TABLE games DROP COLUMN log_head",
            *UNDO_VERSION_10,
            "PRAGMA user_version = 8",
        ):
            conn.execute(sql)
    finally:
        conn.close()


async def test_the_migration_fills_digests_that_verify(store_target: str) -> None:
    service = await GameService.open(store_target, renderer=None, dice_renderer=None)
    try:
        finished, _ = await knights(service, location=1)
        dice = await start(service, "guardener", location=2)
        rng = random.Random(5)
        for _ in range(6):
            legal = await service.legal_moves(game_id=dice.game.id)
            dice = await service.act(game_id=dice.game.id, user_id=dice.next_user_id,
                                     text=rng.choice(legal), render=False)  # fmt: skip
        await service.challenge(location_id=3, challenger_id=ALICE, opponent_id=BOB,
                                variant=NO_DICE, colour="white")  # fmt: skip
        aborted = await service.abort(location_id=3, user_id=MOD, moderator=True, reason="spam")
        games = (finished, dice.game.id, aborted.game.id)
        before = {g: [a.digest for a in await service.repo.actions(g)] for g in games}
        heads = {g: (await service.view(game_id=g)).chain_head for g in games}
    finally:
        await service.close()
    assert (
        all(all(before[g]) for g in games) and heads[aborted.game.id] == before[aborted.game.id][-1]
    )
    back_to_version_8(store_target)
    assert raw(store_target, "SELECT count(*) FROM actions") == [(sum(map(len, before.values())),)]

    service = await GameService.open(store_target, renderer=None, dice_renderer=None)
    try:
        assert await service.repo.schema_version() >= 9
        # the same digests as the store computed when the entries were appended
        assert {g: [a.digest for a in await service.repo.actions(g)] for g in games} == before
        assert {g: (await service.view(game_id=g)).chain_head for g in games} == heads
        # the live game goes on from the filled head, and everything verifies
        moved = await service.act(game_id=dice.game.id, user_id=dice.next_user_id,
                                  text=(await service.legal_moves(game_id=dice.game.id))[0],
                                  render=False)  # fmt: skip
        assert moved.game.chain_head not in (None, heads[dice.game.id])
        await service.resign(game_id=dice.game.id, user_id=ALICE)
        for game_id in (finished, dice.game.id):
            report = await service.verify(game_id=game_id)
            assert report.ok, report.messages
        row = await service.repo.get_game(dice.game.id)
        log = await service.repo.actions(dice.game.id)
        assert row is not None and [a.digest for a in log] == chain_of(row, log)[1:]
    finally:
        await service.close()
