"""Snapshots of a game's engine state (issue 12): a rebuild restores the latest one and
replays only the log entries after it, instead of the whole log.

A snapshot is a cache, never the truth (ARCHITECTURE.md, Storage): the log is. One that
cannot be read, or that does not agree with the log (its roll count, the entries after
it), is ignored and the game is replayed from the start.

Format ``engine-state-1``: zlib over the engine ``Game``'s own state (position, repetition keys,
rolls, history, captured pieces, last move), pickled without its rules (shared tables,
looked up again by variant) and without its dice source (made again from the stored rolls
and the seed). Reading it goes through an unpickler that admits only the classes of
``variants`` and a few harmless builtins, so a tampered file cannot run code.

When the engine offers ``game.snapshot()`` and ``variants.restore`` (contract C12), that
compact form can be adopted as another format; the service reads the formats it knows.
"""

from __future__ import annotations

import io
import pickle
import zlib
from collections.abc import Sequence
from typing import Any

import variants
from bot.service.errors import CorruptGame
from bot.service.live import Live, catch_up, taken_back
from storage import ActionRow, GameRow, SnapshotRow
from variants.dice import DiceSource, ScriptedDice, VerifiableDice

FORMAT = "engine-state-1"
SNAPSHOT_EVERY = 8  # log entries between two snapshots of a live game
_LEFT_OUT = ("rules", "dice_source", "_legal")  # shared, remade, or a cache
_BUILTINS = {"set", "frozenset", "bytearray", "complex", "range", "slice"}


class _Unpickler(pickle.Unpickler):
    """Only the engine's own classes and a few builtins: no code runs from the data."""

    def find_class(self, module: str, name: str) -> Any:
        if module == "variants" or module.startswith("variants."):
            return super().find_class(module, name)
        if module == "builtins" and name in _BUILTINS:
            return super().find_class(module, name)
        if module == "copyreg" and name == "_reconstructor":
            return super().find_class(module, name)
        raise pickle.UnpicklingError(f"a snapshot may not name {module}.{name}")


class ResumedDice(DiceSource):
    """The dice of a restored game: roll ``start`` onwards. The stored rolls after the
    snapshot come first (``values``), then the game's verifiable dice from there."""

    def __init__(self, start: int, values: Sequence[int], then: DiceSource) -> None:
        super().__init__()
        self.start = start
        self.count = start
        self.script = ScriptedDice(values, then=then)

    def _draw(self, sides: int, index: int) -> int:
        return self.script.roll(sides)

    def clone(self) -> ResumedDice:
        copy = ResumedDice.__new__(ResumedDice)
        copy.start = self.start
        copy.count = self.count
        copy.script = self.script.clone()
        return copy


def take(row: GameRow, live: Live) -> SnapshotRow:
    """The snapshot of ``live`` (runs in a worker thread, with the game's lock held)."""
    game = live.game
    state = {k: v for k, v in vars(game).items() if k not in _LEFT_OUT}
    data = zlib.compress(pickle.dumps((game.variant, state), protocol=pickle.HIGHEST_PROTOCOL), 1)
    return SnapshotRow(row.id, live.seq, live.ply, live.turns, len(game.rolls), FORMAT, data)


def read(snapshot: SnapshotRow, dice: DiceSource) -> Any:
    """The engine game a snapshot holds, driven by ``dice`` from here on."""
    if snapshot.format != FORMAT:
        raise ValueError(f"unknown snapshot format {snapshot.format!r}")
    variant, state = _Unpickler(io.BytesIO(zlib.decompress(snapshot.data))).load()
    if not isinstance(state, dict) or not isinstance(variant, str):
        raise ValueError("not a snapshot")
    game = variants.Game.__new__(variants.Game)
    vars(game).update(state)
    game.rules = variants.rules(variant)
    game.dice_source = dice
    game._legal = None
    return game


def restore(row: GameRow, snapshot: SnapshotRow, after: Sequence[ActionRow]) -> Live:
    """The game from its snapshot and the log entries after it, each checked as in a
    full replay. ``ValueError`` (or ``CorruptGame``) if the snapshot does not fit: the
    caller then replays the whole log. An 'undo' after the snapshot may take back a move
    inside it: that needs the whole log too."""
    if row.seed is None:
        raise CorruptGame(f"game {row.id} has no dice seed: it never started")
    if snapshot.game_id != row.id or snapshot.seq > row.log_count:
        raise ValueError("the snapshot is not of this log")
    if any(action.kind == "undo" for action in after):
        raise ValueError("a move inside the snapshot may be taken back")
    if after and after[0].roll_index != snapshot.roll_count:
        raise ValueError("the snapshot's roll count does not meet the log")
    values = [value for action in after for _, value in action.rolls]
    total = snapshot.roll_count + len(values)
    dice = ResumedDice(snapshot.roll_count, values, VerifiableDice(row.seed, row.id, start=total))
    game = read(snapshot, dice)
    if len(game.rolls) != snapshot.roll_count:
        raise ValueError("the snapshot's rolls do not match its roll count")
    live = Live(game=game, seq=snapshot.seq, ply=snapshot.ply, turns=snapshot.turns)
    live.snapshot_seq = snapshot.seq
    catch_up(row, live, after)
    return live


def undo_free(actions: Sequence[ActionRow]) -> bool:
    """Whether no entry takes a move back (then any snapshot of the log is usable)."""
    try:
        return not taken_back(actions)
    except ValueError:
        return False
