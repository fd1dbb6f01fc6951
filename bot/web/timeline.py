"""A game's steps for its page: the record replayed once, action by action (pure, run in
a worker thread). Step 0 is the start; step k the position after the record's k-th
action. Each step keeps who acted, the dice they had, what they played, the status in
words after it (``variants.describe``) and a digest of everything its board depends on,
so that a board image's address changes whenever its picture could."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

import variants


@dataclass(frozen=True)
class Step:
    index: int  # 0: the start; k: after the k-th action
    side: str | None  # who acted ('white'|'black'); None for the start
    dice: tuple[int, ...] | None  # the dice the side had when it acted
    text: str  # the action as recorded ('' for the start)
    headline: str  # the position after it, in words
    digest: str  # 16 hex characters: the board image's version


@dataclass(frozen=True)
class Timeline:
    variant: str
    steps: tuple[Step, ...]

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


def _start(record: str) -> tuple[variants.Game, list[str], variants.ScriptedDice, str]:
    headers, actions, rolls = variants.parse_record(record)
    options: dict[str, Any] = json.loads(headers.get("Options", "{}"))
    dice = variants.ScriptedDice(rolls)
    key = headers["Variant"]
    if "FEN" in headers:
        game = variants.from_fen(key, headers["FEN"], options=options, dice=dice)
    else:
        game = variants.new_game(key, options=options, dice=dice)
    head = json.dumps([key, options, headers.get("FEN")], sort_keys=True)
    return game, actions, dice, head


def _digest(head: str, actions: list[str], rolls: list[int]) -> str:
    data = json.dumps([head, actions, rolls], separators=(",", ":")).encode()
    return hashlib.sha256(data).hexdigest()[:16]


@dataclass
class Builder:
    """The replayed game of a record, kept so that when the record grows (a move) only
    the new actions are played (``extend``). Used by one thread at a time."""

    game: variants.Game
    dice: variants.ScriptedDice
    head: str
    actions: list[str]
    steps: list[Step]

    def extend(self, record: str) -> bool:
        """Play the actions ``record`` adds to the ones played; False when ``record`` is
        not a continuation (a take-back, another game): build it anew then."""
        headers, actions, rolls = variants.parse_record(record)
        options = json.loads(headers.get("Options", "{}"))
        head = json.dumps([headers["Variant"], options, headers.get("FEN")], sort_keys=True)
        known, used = self.actions, self.dice.values
        if head != self.head or actions[: len(known)] != known or rolls[: len(used)] != used:
            return False
        used.extend(rolls[len(used) :])
        for text in actions[len(known) :]:
            self._play(text)
        return True

    def _play(self, text: str) -> None:
        game, dice = self.game, self.dice
        side, shown = game.turn, game.dice
        recorded = game.play(text)
        self.actions.append(text)
        digest = _digest(self.head, self.actions, dice.values[: dice.count])
        index = len(self.steps)
        self.steps.append(
            Step(index, side, shown, recorded, variants.describe(game).headline, digest)
        )

    def timeline(self) -> Timeline:
        return Timeline(self.game.variant, tuple(self.steps))


def start_builder(record: str) -> Builder:
    """A builder with every action of ``record`` played."""
    game, actions, dice, head = _start(record)
    start = _digest(head, [], dice.values[: dice.count])
    builder = Builder(
        game, dice, head, [], [Step(0, None, None, "", variants.describe(game).headline, start)]
    )
    for text in actions:
        builder._play(text)
    return builder


def extend_timeline(builder: Builder | None, record: str) -> tuple[Timeline, Builder]:
    """The timeline of ``record``, from ``builder``'s game when ``record`` continues it.
    Raises ``ValueError`` when the record does not replay."""
    if builder is not None:
        try:
            if builder.extend(record):
                return builder.timeline(), builder
        except ValueError:
            pass  # the kept game is spoiled: replay from the start
    builder = start_builder(record)
    return builder.timeline(), builder


def build_timeline(record: str) -> Timeline:
    """Every step of ``record``. Raises ``ValueError`` when it does not replay."""
    return start_builder(record).timeline()


def game_at(record: str, index: int) -> variants.Game:
    """The game after the first ``index`` actions of ``record`` (for its board image)."""
    game, actions, _, _ = _start(record)
    for text in actions[:index]:
        game.play(text)
    return game
