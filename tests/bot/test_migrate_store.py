"""``chessgarden migrate-store`` (issue 16): a store of 500 random finished and live games
moves from SQLite to PostgreSQL and back; every game replays identically and its dice
verify; a target that is not empty is refused; a copy that differs does not verify."""

from __future__ import annotations

import asyncio
import io
import random
from pathlib import Path

import pytest
from stores import raw, tamper

import variants
from bot.cli import main
from bot.console.migrate_store import migrate, verify_copy
from bot.service import GameService
from bot.service.clock import turn_clock
from bot.service.live import new_engine_game, result_text
from storage import GameChanges, NewAction, NewGame, open_repository
from variants.dice import seed_commitment

GAMES = 500
W, B = 5, 6


async def fill(path: str, games: int, seed: int) -> dict[str, int]:
    """``games`` random games straight into the store through the repository (much faster
    than the service, and the same rows): finished by the rules, by resignation or by a
    draw, live with a clock, and open challenges. Returns how many of each."""
    rng = random.Random(seed)
    repo = await open_repository(path)
    kinds = {"finished": 0, "active": 0, "challenge": 0}
    names = variants.names()
    try:
        for first in range(0, games, 50):
            async with repo.write() as tx:
                for player in (W, B):
                    await tx.upsert_player(player, f"player {player}")
                for n in range(first, min(first + 50, games)):
                    variant = names[n % len(names)]
                    live = n % 5 == 0
                    row = await tx.insert_game(
                        NewGame(variant=variant, options={}, status="challenge",
                                location_id=10_000 + n, guild_id=77, challenger_id=W,
                                opponent_id=B, challenger_colour="white",
                                time_days=3 if n % 3 == 0 else None,
                                deadline_ms=1_900_000_000_000)
                    )  # fmt: skip
                    if n % 11 == 0:
                        kinds["challenge"] += 1
                        continue
                    secret = f"seed-{seed}-{n}"
                    game = new_engine_game(variant, {}, secret, row.id)
                    await tx.update_game(
                        row.id,
                        GameChanges(status="active", white_id=W, black_id=B, seed=secret,
                                    commitment=seed_commitment(secret),
                                    **turn_clock(row.time_days, game.turn, 1_800_000_000_000)),
                    )  # fmt: skip
                    if game.rolls:
                        await tx.set_start_rolls(row.id, tuple(game.rolls))
                    seq = 0
                    for _ in range(rng.randrange(0, 50 if not live else 30)):
                        if game.result is not None:
                            break
                        before = len(game.rolls)
                        actor = W if game.turn == "white" else B
                        text = game.play(rng.choice(game.legal_moves()))
                        seq += 1
                        await tx.append_action(
                            NewAction(row.id, seq, "move", actor, text, tuple(game.rolls[before:]))
                        )
                    if game.result is not None:
                        changes = GameChanges(status="finished", deadline_ms=None,
                                              reminder_ms=None,
                                              result=result_text(game.result.winner),
                                              result_reason=game.result.reason)  # fmt: skip
                    elif live:
                        kinds["active"] += 1
                        continue
                    else:
                        seq += 1
                        loser = game.turn
                        await tx.append_action(
                            NewAction(row.id, seq, "resign", W if loser == "white" else B,
                                      f"{loser} resigns")
                        )  # fmt: skip
                        changes = GameChanges(status="finished", deadline_ms=None,
                                              reminder_ms=None,
                                              result="0-1" if loser == "white" else "1-0",
                                              result_reason="resignation")  # fmt: skip
                    await tx.update_game(row.id, changes)
                    kinds["finished"] += 1
    finally:
        await repo.close()
    return kinds


async def histories(path: str) -> dict[int, tuple[object, ...]]:
    """Every game as the service shows it after a restart: its view and record."""
    service = await GameService.open(path, renderer=None, dice_renderer=None)
    try:
        seen: dict[int, tuple[object, ...]] = {}
        for (game_id,) in raw(path, "SELECT id FROM games ORDER BY id"):
            history = await service.history(game_id=game_id)
            seen[game_id] = (history.game, history.record, history.entries)
            if history.game.status == "finished" and game_id % 25 == 0:  # a sample: the
                assert (await service.verify(game_id=game_id)).ok  # copy verified them all
        return seen
    finally:
        await service.close()


async def test_500_games_move_to_postgresql_and_back(tmp_path: Path, pg_url: str) -> None:
    source = str(tmp_path / "old.sqlite3")
    kinds = await fill(source, GAMES, 16)
    assert min(kinds.values()) >= 40, kinds  # finished, live and challenges all there
    out = io.StringIO()
    assert await migrate(source, pg_url, out=out) == 0, out.getvalue()
    assert "verified: 500 games" in out.getvalue()
    before = await histories(source)
    assert len(before) == GAMES
    assert await histories(pg_url) == before  # every game replays identically
    # and back into a new SQLite file
    back = str(tmp_path / "back.sqlite3")
    assert await migrate(pg_url, back, out=io.StringIO()) == 0
    assert raw(back, "SELECT count(*) FROM actions") == raw(source, "SELECT count(*) FROM actions")
    # the copy goes on: new games get new ids, and the live ones can be played
    service = await GameService.open(pg_url, renderer=None, dice_renderer=None)
    try:
        made = await service.challenge(location_id=1, challenger_id=99, variant="guardener")
        assert made.game.id == GAMES + 1
        live = [g for g in await service.list_games(statuses=["active"], limit=5)]
        view = await service.view(game_id=live[0].id)
        legal = await service.legal_moves(game_id=view.id)
        await service.act(game_id=view.id, user_id=view.to_move_id, text=legal[0], render=False)
    finally:
        await service.close()


def test_a_target_that_is_not_empty_is_refused(
    tmp_path: Path, pg_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    source = str(tmp_path / "old.sqlite3")
    asyncio.run(fill(source, 12, 1))
    assert main(["migrate-store", "--from", source, "--to", pg_url]) == 0
    games = raw(pg_url, "SELECT count(*) FROM games")
    assert main(["migrate-store", "--from", source, "--to", pg_url]) == 1
    err = capsys.readouterr().err
    assert "is not empty" in err and err.count("\n") == 1
    assert raw(pg_url, "SELECT count(*) FROM games") == games  # nothing added
    assert main(["migrate-store", "--from", str(tmp_path / "nope.sqlite3"), "--to", pg_url]) == 1
    assert "no such file" in capsys.readouterr().err


async def test_a_copy_that_differs_does_not_verify(tmp_path: Path, pg_url: str) -> None:
    source = str(tmp_path / "old.sqlite3")
    await fill(source, 30, 2)
    assert await migrate(source, pg_url, out=None) == 0
    gid, seq = raw(pg_url, "SELECT game_id, max(seq) FROM actions WHERE rolls <> '[]' "
                           "GROUP BY game_id ORDER BY game_id LIMIT 1")[0]  # fmt: skip
    tamper(pg_url, "UPDATE actions SET rolls = '[[4,9]]' WHERE game_id = ? AND seq = ?",
           (gid, seq), triggers=("actions_no_update",))  # fmt: skip
    src, dst = await open_repository(source), await open_repository(pg_url)
    try:
        problems = await verify_copy(src, dst)
    finally:
        await asyncio.gather(src.close(), dst.close())
    assert problems == [f"game {gid}: its log differs"]


async def test_ratings_move_with_the_games(tmp_path: Path, pg_url: str) -> None:
    """Rated games (issue 15) keep their ratings, rating changes and finish order in the
    copy, and the copy goes on numbering and rating from there."""
    source = str(tmp_path / "rated.sqlite3")
    service = await GameService.open(source, renderer=None, dice_renderer=None)
    try:
        for n, (white, black) in enumerate([(W, B), (B, W), (W, B), (B, 7)]):
            await service.challenge(location_id=n + 1, challenger_id=white, opponent_id=black,
                                    colour="white", variant="guardener", guild_id=77, rated=True)  # fmt: skip
            await service.accept(location_id=n + 1, user_id=black, render=False)
            await service.resign(location_id=n + 1, user_id=black if n % 2 else white)
        board = await service.leaderboard(variant="guardener", guild_id=77)
    finally:
        await service.close()
    assert await migrate(source, pg_url, out=io.StringIO()) == 0
    for table in ("ratings", "rating_changes"):
        query = f"SELECT * FROM {table} ORDER BY 1, 2, 3"
        assert [tuple(r) for r in raw(pg_url, query)] == raw(source, query)
    copy = await GameService.open(pg_url, renderer=None, dice_renderer=None)
    try:
        assert await copy.leaderboard(variant="guardener", guild_id=77) == board
        await copy.challenge(location_id=9, challenger_id=W, opponent_id=B, colour="white",
                             variant="guardener", guild_id=77, rated=True)  # fmt: skip
        await copy.accept(location_id=9, user_id=B, render=False)
        out = await copy.resign(location_id=9, user_id=B)
        assert out.game.rated and out.ratings
        assert raw(pg_url, f"SELECT finish_order FROM games WHERE id = {out.game.id}") == [(5,)]
        assert (await copy.rebuild_ratings(check=True)).matched
    finally:
        await copy.close()


async def test_the_chain_is_copied_as_it_is_and_a_changed_log_is_caught(
    tmp_path: Path, pg_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """The log's digests and each game's chain head (issue 24) reach the target as they
    were stored, never recomputed: a log changed before the copy does not verify after."""
    source = str(tmp_path / "chained.sqlite3")
    await fill(source, 12, 5)
    log = "SELECT game_id, seq, digest FROM actions ORDER BY game_id, seq"
    heads = "SELECT id, log_head FROM games ORDER BY id"
    assert await migrate(source, pg_url, out=None) == 0
    assert [tuple(r) for r in raw(pg_url, log)] == raw(source, log)
    assert [tuple(r) for r in raw(pg_url, heads)] == raw(source, heads)
    assert all(len(d) == 64 for _, _, d in raw(source, log))
    # An entry's time changed in the source, its digest left: nothing else would tell.
    gid, seq = raw(source, "SELECT game_id, max(seq) FROM actions GROUP BY game_id "
                           "HAVING max(seq) > 1 ORDER BY game_id LIMIT 1")[0]  # fmt: skip
    tamper(source, "UPDATE actions SET created_at = '2020-01-01T00:00:00.000+00:00' "
           "WHERE game_id = ? AND seq = ?", (gid, seq), triggers=("actions_no_update",))  # fmt: skip
    capsys.readouterr()
    assert await migrate(source, str(tmp_path / "copy.sqlite3"), out=None) == 1
    err = capsys.readouterr().err
    assert f"game {gid} does not verify: entry {seq} (" in err
    assert "does not match its digest: it was changed after it was written" in err
    assert raw(str(tmp_path / "copy.sqlite3"), f"SELECT digest FROM actions WHERE game_id = {gid} "
               f"AND seq = {seq}") == raw(source, f"SELECT digest FROM actions WHERE "
                                               f"game_id = {gid} AND seq = {seq}")  # fmt: skip


async def test_owed_posts_settings_and_preferences_move_with_the_games(
    tmp_path: Path, pg_url: str
) -> None:
    """A post not yet delivered is still owed in the copy, and the servers' settings,
    their log and the users' preferences arrive as they were; new rows number after."""
    from storage.outbox import NewPost

    source = str(tmp_path / "owed.sqlite3")
    repo = await open_repository(source)
    try:
        async with repo.write() as tx:
            await tx.save_guild_settings(
                77, {"threads": False}, W, [("threads", None, False), ("days", None, 3)]
            )
            await tx.save_user_prefs(W, {"theme": "high-contrast"})
            await tx.owe(NewPost(channel_id=555, kind="board", guild_id=77), 1_000)
            await tx.owe(NewPost(channel_id=556, kind="reminder", guild_id=77), 2_000)
    finally:
        await repo.close()
    assert await migrate(source, pg_url, out=io.StringIO()) == 0
    for table in ("outbox", "guild_settings", "settings_log", "user_prefs"):
        query = f"SELECT * FROM {table} ORDER BY 1"
        copied = [tuple(r) for r in raw(pg_url, query)]
        assert copied == raw(source, query) and copied, table
    copy = await open_repository(pg_url)
    try:
        assert await copy.guild_settings(77) == {"threads": False}
        assert await copy.user_prefs(W) == {"theme": "high-contrast"}
        async with copy.write() as tx:
            owed = await tx.claim_outbox(10_000, 60_000, 10)
            assert sorted(r.channel_id for r in owed) == [555, 556]
            new = await tx.owe(NewPost(channel_id=557, kind="board"), 3_000)
            await tx.save_guild_settings(77, {}, W, [("threads", False, None)])
        assert new > max(r.id for r in owed)
        log = await copy.settings_log(77)
        assert [c.name for c in log] == ["threads", "days", "threads"]
        assert log[0].id > log[1].id
    finally:
        await copy.close()
