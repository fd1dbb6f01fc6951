"""Snapshots of a game's engine state (issue 12): a rebuild restores the latest one and
replays only the log entries after it, instead of the whole log.

A snapshot is a cache, never the truth (ARCHITECTURE.md, Storage): the log is. One that
cannot be read, or that does not agree with the log (its roll count, the entries after
it), is ignored and the game is replayed from the start.

Format ``c12-1``: the engine's own snapshot (contract C12: ``game.snapshot()`` and
``variants.restore``: compact, versioned, deterministic; position, repetition keys, roll
counter, result, lost pieces, the last actions). The service keeps the log, so it needs
nothing more: a restored game's ``history`` holds the last actions only (enough for the
board's last-move highlight and ``GameView.last_move``), and its rolls are read from the
log entries after the snapshot, then from the seed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import variants
from bot.i18n import said
from bot.service.errors import CorruptGame
from bot.service.live import Live, catch_up, dice_drawn
from storage import ActionRow, GameRow, SnapshotRow
from variants.dice import ScriptedDice, VerifiableDice

FORMAT = "c12-1"
SNAPSHOT_EVERY = 8  # log entries between two snapshots of a live game


class NotThisTime(ValueError):
    """The snapshot is sound but cannot serve this log (an 'undo' after it may take back
    a move inside it): the log is replayed, as expected, with nothing to report."""


def take(row: GameRow, live: Live) -> SnapshotRow:
    """The snapshot of ``live`` (runs in a worker thread, with the game's lock held)."""
    game = live.game
    data = bytes(game.snapshot())
    return SnapshotRow(row.id, live.seq, live.ply, live.turns, dice_drawn(game), FORMAT, data)


def restore(row: GameRow, snapshot: SnapshotRow, after: Sequence[ActionRow]) -> Live:
    """The game from its snapshot and the log entries after it, each checked as in a
    full replay. ``ValueError`` (or ``CorruptGame``) if the snapshot does not fit: the
    caller then replays the whole log. An 'undo' after the snapshot may take back a move
    inside it: that needs the whole log too."""
    if row.seed is None:
        raise CorruptGame(said("game {game} has no dice seed: it never started", game=row.id))
    if snapshot.format != FORMAT:
        raise ValueError(f"unknown snapshot format {snapshot.format!r}")
    if snapshot.game_id != row.id or snapshot.seq > row.log_count:
        raise ValueError("the snapshot is not of this log")
    if any(action.kind == "undo" for action in after):
        raise NotThisTime("a move inside the snapshot may be taken back")
    if after and after[0].roll_index != snapshot.roll_count:
        raise ValueError("the snapshot's roll count does not meet the log")
    values = [value for action in after for _, value in action.rolls]
    total = snapshot.roll_count + len(values)
    # Rolls 0 .. roll_count - 1 are inside the snapshot and never drawn again: the
    # script holds placeholders there, then the stored rolls after it, then the seed.
    dice = ScriptedDice(
        [0] * snapshot.roll_count + values, then=VerifiableDice(row.seed, row.id, start=total)
    )
    game: Any = variants.restore(snapshot.data, dice)
    if game.variant != row.variant or dice_drawn(game) != snapshot.roll_count:
        raise ValueError("the snapshot does not match its game")
    live = Live(game=game, seq=snapshot.seq, ply=snapshot.ply, turns=snapshot.turns)
    live.snapshot_seq = snapshot.seq
    live.partial = True
    catch_up(row, live, after)
    return live
