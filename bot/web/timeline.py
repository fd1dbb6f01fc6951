"""A game's steps for its page, built from the game's log entries (pure; a whole build
runs in a worker thread). Step 0 is the start; step k the position after the k-th move
on the board. Each step keeps who acted, the dice they had, what they played, the status
in words after it (``variants.describe``) and a digest of everything its board depends
on, so that a board image's address changes whenever its picture could.

The log is append-only, so a ``Builder`` keeps the replayed game and its steps and plays
only the entries a move adds (``Builder.extend``). Anything else builds anew from the
whole log: a take-back (an ``undo`` entry: the engine cannot unmake a move), a log that
does not continue the one read before (its digest at the last entry read differs), or an
entry that does not replay."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import variants


class Entry(Protocol):
    """One log entry as the service gives it (``bot.service.HistoryEntry``)."""

    @property
    def seq(self) -> int: ...
    @property
    def kind(self) -> str: ...
    @property
    def text(self) -> str: ...
    @property
    def rolls(self) -> tuple[tuple[int, int], ...]: ...
    @property
    def digest(self) -> str | None: ...


class Rebuild(Exception):
    """The kept steps cannot be extended by these entries: build anew from the log."""


@dataclass(frozen=True)
class Step:
    index: int  # 0: the start; k: after the k-th move on the board
    side: str | None  # who acted ('white'|'black'); None for the start
    dice: tuple[int, ...] | None  # the dice the side had when it acted
    text: str  # the action as recorded ('' for the start)
    headline: str  # the position after it, in words
    digest: str  # 16 hex characters: the board image's version


@dataclass(frozen=True)
class Timeline:
    variant: str
    steps: tuple[Step, ...]
    options: dict[str, Any]
    actions: tuple[str, ...]  # the moves on the board, as recorded
    rolls: tuple[int, ...]  # every die value of the log, the start's first

    @property
    def last(self) -> int:
        return len(self.steps) - 1

    def digests(self) -> tuple[str, ...]:
        return tuple(step.digest for step in self.steps)

    def turns(self) -> list[tuple[int, list[Step]]]:
        """The actions grouped by move number: a new number each time White acts after
        Black (re-rolls and placements stay within their turn)."""
        rows: list[tuple[int, list[Step]]] = []
        previous: str | None = None
        for step in self.steps[1:]:
            if not rows or (step.side == "white" and previous == "black"):
                rows.append((len(rows) + 1, []))
            rows[-1][1].append(step)
            previous = step.side
        return rows


def _chain(before: str, data: Any) -> str:
    """A step's digest: the one before it and what this step added (its text and the
    dice it drew), so that it stands for the whole game up to it at a constant cost."""
    text = before + json.dumps(data, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def taken_back(entries: Sequence[Entry]) -> set[int]:
    """The moves (their entries' ``seq``) that later ``undo`` entries take back: each
    takes back the latest move not already taken back. ``ValueError`` for an undo with
    no move left."""
    moves: list[int] = []
    undone: set[int] = set()
    for entry in entries:
        if entry.kind == "move":
            moves.append(entry.seq)
        elif entry.kind == "undo":
            if not moves:
                raise ValueError(f"entry {entry.seq} takes back a move, but no move is left")
            undone.add(moves.pop())
    return undone


class Builder:
    """The replayed game of a log and its steps, kept so that when the log grows (a
    move) only the new entries are played. Used by one thread at a time.

    Memory: the engine game (its position and history) plus one ``Step`` (about 0.5 KB
    with its strings) per move; ``benchmarks/event_build.py`` measures it."""

    def __init__(
        self, variant: str, options: dict[str, Any], start_rolls: Sequence[tuple[int, int]]
    ) -> None:
        values = [value for _, value in start_rolls]
        self.dice = variants.ScriptedDice(values)
        self.game = variants.new_game(variant, options=options, dice=self.dice)
        if len(self.game.rolls) != len(values):
            raise ValueError("the start rolls do not replay")
        self.variant = variant
        self.options = options
        self.seq = 0  # the last log entry played (or passed over)
        self.digest: str | None = None  # its chain digest: the log read so far
        self.actions: list[str] = []
        head = json.dumps([variant, options, values], sort_keys=True)
        start = _chain("", head)
        self.steps = [Step(0, None, None, "", str(variants.describe(self.game).headline), start)]

    def extend(self, entries: Sequence[Entry], skipped: set[int] | None = None) -> None:
        """Play ``entries``, the ones after ``seq``. Raises ``Rebuild`` for a take-back,
        or entries that do not follow on, and ``ValueError`` for a move that does not
        replay as stored. ``skipped``: moves a later undo takes back (a whole build)."""
        for entry in entries:
            if entry.seq != self.seq + 1:
                raise Rebuild(f"entry {entry.seq} does not follow entry {self.seq}")
            if entry.kind == "move":
                if skipped is None or entry.seq not in skipped:
                    self._play(entry)
                elif entry.rolls:  # a move taken back drew no die: the log is broken
                    raise ValueError(f"the move taken back at entry {entry.seq} drew dice")
            elif entry.kind == "undo" and skipped is None:
                raise Rebuild(f"entry {entry.seq} takes back a move")
            self.seq = entry.seq
            self.digest = entry.digest

    def _play(self, entry: Entry) -> None:
        game, dice = self.game, self.dice
        side, shown = game.turn, game.dice
        before = dice.count
        dice.values.extend(value for _, value in entry.rolls)
        recorded = game.play(entry.text)
        drawn = dice.values[before : dice.count]
        if recorded != entry.text or dice.count != len(dice.values):
            raise ValueError(f"entry {entry.seq} ({entry.text}) replays differently")
        self.actions.append(recorded)
        digest = _chain(self.steps[-1].digest, [recorded, drawn])
        index = len(self.steps)
        self.steps.append(
            Step(index, side, shown, recorded, str(variants.describe(game).headline), digest)
        )

    def timeline(self) -> Timeline:
        return Timeline(
            self.variant,
            tuple(self.steps),
            self.options,
            tuple(self.actions),
            tuple(self.dice.values),
        )


def build(
    variant: str,
    options: dict[str, Any],
    start_rolls: Sequence[tuple[int, int]],
    entries: Sequence[Entry],
) -> Builder:
    """A builder with the whole log played (the moves taken back left out). Raises
    ``ValueError`` when the log does not replay."""
    builder = Builder(variant, options, start_rolls)
    builder.extend(entries, taken_back(entries))
    return builder


def game_at(timeline: Timeline, index: int) -> variants.Game:
    """The game after the first ``index`` moves of ``timeline`` (for its board image)."""
    dice = variants.ScriptedDice(timeline.rolls)
    game = variants.new_game(timeline.variant, options=timeline.options, dice=dice)
    for text in timeline.actions[:index]:
        game.play(text)
    return game
