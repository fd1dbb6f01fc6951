"""Dice sources. Every roll in a game comes from one injected source.

- ``ScriptedDice``: values given in order (tests, replays); then an optional fallback.
- ``SeededDice``: a deterministic ``random.Random`` (tests, demos).
- ``VerifiableDice``: roll k is derived from HMAC-SHA256(seed, game id, k) with
  rejection sampling, so every face is equally likely and anyone holding the
  revealed seed can recompute every roll (RULES.md section 6).
"""

from __future__ import annotations

import hashlib
import hmac
import random
import secrets
from collections.abc import Iterable


class DiceError(ValueError):
    """A scripted roll does not fit the die it is used for, or the script ran out."""


class DiceSource:
    """Base class: ``roll(sides)`` returns a value in 1..sides; ``count`` rolls made."""

    def __init__(self) -> None:
        self.count = 0

    def roll(self, sides: int) -> int:
        value = self._draw(sides, self.count)
        self.count += 1
        return value

    def _draw(self, sides: int, index: int) -> int:
        raise NotImplementedError

    def clone(self) -> DiceSource:
        raise NotImplementedError

    def checkpoint(self) -> object:
        """A cheap mark to ``rewind`` to if an action fails half-way (``Game.play``)."""
        return self.count

    def rewind(self, mark: object) -> None:
        """Undo every roll made since ``checkpoint`` returned ``mark``."""
        assert isinstance(mark, int)
        self.count = mark

    def snapshot_state(self) -> object:
        """What a snapshot keeps besides the roll counter (``variants.snapshot``): None
        for a stream read by roll number, as the verifiable dice are."""
        return None

    def resume(self, count: int, state: object) -> None:
        """Continue the stream at roll ``count`` (``variants.restore``); ``state`` is
        what ``snapshot_state`` returned on the original's source."""
        if count < 0:
            raise ValueError("a roll counter cannot be negative")
        self.count = count


class ScriptedDice(DiceSource):
    """Values consumed in order; after they run out, ``then`` (if any) continues."""

    def __init__(self, values: Iterable[int], then: DiceSource | None = None) -> None:
        super().__init__()
        self.values = [int(v) for v in values]
        self.then = then

    def roll(self, sides: int) -> int:
        index = self.count
        values = self.values
        if index < len(values):  # the common case, without the general path's calls
            value = values[index]
            if 1 <= value <= sides:
                self.count = index + 1
                return value
        return super().roll(sides)

    def _draw(self, sides: int, index: int) -> int:
        if index < len(self.values):
            value = self.values[index]
            if not 1 <= value <= sides:
                raise DiceError(f"scripted roll #{index + 1} is {value}, not a d{sides} face")
            return value
        if self.then is None:
            raise DiceError(f"the scripted dice ran out after {len(self.values)} rolls")
        return self.then.roll(sides)

    def clone(self) -> ScriptedDice:
        copy = ScriptedDice.__new__(ScriptedDice)
        copy.values = self.values  # never changed after construction: shared
        copy.then = self.then.clone() if self.then else None
        copy.count = self.count
        return copy

    def checkpoint(self) -> object:
        return (self.count, self.then.checkpoint() if self.then else None)

    def rewind(self, mark: object) -> None:
        assert isinstance(mark, tuple)
        self.count, then = mark
        if self.then is not None:
            self.then.rewind(then)

    def snapshot_state(self) -> object:
        return self.then.snapshot_state() if self.then is not None else None

    def resume(self, count: int, state: object) -> None:
        # The rolls past the script go to ``then``: move it on by as many.
        n = len(self.values)
        further = max(0, count - n) - max(0, self.count - n)
        if further and self.then is None:
            raise ValueError(f"the scripted dice hold {n} rolls, the snapshot is at roll {count}")
        if self.then is not None and (further or state is not None):
            self.then.resume(self.then.count + further, state)
        self.count = count


class SeededDice(DiceSource):
    """A deterministic pseudo-random source for tests and demos."""

    def __init__(self, seed: int | str) -> None:
        super().__init__()
        self.seed = seed
        self._rng = random.Random(seed)
        self._saved: tuple[object, ...] | None = None  # generator state at the checkpoint
        self._armed = False

    def _draw(self, sides: int, index: int) -> int:
        if self._armed:  # save the state only when a roll follows a checkpoint
            self._saved = self._rng.getstate()
            self._armed = False
        return self._rng.randint(1, sides)

    def checkpoint(self) -> object:
        self._armed = True
        self._saved = None
        return self.count

    def rewind(self, mark: object) -> None:
        assert isinstance(mark, int)
        if self._saved is not None:
            self._rng.setstate(self._saved)
        self._saved = None
        self._armed = False
        self.count = mark

    def snapshot_state(self) -> object:
        version, internal, gauss = self._rng.getstate()
        return (version, internal, gauss)

    def resume(self, count: int, state: object) -> None:
        if state is None:
            if count != self.count:
                raise ValueError("seeded dice cannot skip to another roll without their state")
            return
        assert isinstance(state, tuple) and len(state) == 3
        self._rng.setstate(state)
        self._saved = None
        self._armed = False
        self.count = count

    def clone(self) -> SeededDice:
        copy = SeededDice(self.seed)
        copy._rng.setstate(self._rng.getstate())
        copy.count = self.count
        return copy


def new_secret_seed() -> str:
    """A fresh 256-bit secret seed, as hex."""
    return secrets.token_hex(32)


def seed_commitment(seed: str) -> str:
    """The SHA-256 of the seed, published when the game is created."""
    return hashlib.sha256(seed.encode()).hexdigest()


def verifiable_roll(seed: str, game_id: str | int, index: int, sides: int) -> int:
    """Roll number ``index`` (0-based) of a game: uniform in 1..sides.

    Each attempt hashes ``game_id:index:attempt`` under the seed; a 64-bit draw is
    rejected when it falls in the short top slice that would bias the faces.
    """
    if sides < 1:
        raise DiceError("a die needs at least one side")
    limit = (2**64 // sides) * sides
    attempt = 0
    while True:
        message = f"{game_id}:{index}:{attempt}".encode()
        digest = hmac.new(seed.encode(), message, hashlib.sha256).digest()
        draw = int.from_bytes(digest[:8], "big")
        if draw < limit:
            return draw % sides + 1
        attempt += 1


class VerifiableDice(DiceSource):
    """Production dice: roll k = HMAC-SHA256(seed, game id, k), rejection sampled."""

    def __init__(
        self, seed: str | None = None, game_id: str | int = "local", start: int = 0
    ) -> None:
        super().__init__()
        self.seed = seed if seed is not None else new_secret_seed()
        self.game_id = game_id
        self.count = start

    @property
    def commitment(self) -> str:
        return seed_commitment(self.seed)

    def _draw(self, sides: int, index: int) -> int:
        return verifiable_roll(self.seed, self.game_id, index, sides)

    def clone(self) -> VerifiableDice:
        return VerifiableDice(self.seed, self.game_id, self.count)
