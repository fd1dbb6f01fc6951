"""Checking a downloaded record offline (``chessgarden verify-record FILE``): no store,
no network, only the rules and the record's own tags.

A game page's record carries ``[Game]``, ``[Commitment]`` and, once the game is over,
``[Seed]``. The check: the seed hashes (SHA-256) to the commitment, and the record's
actions, played again on the dice that seed gives for that game
(``variants.VerifiableDice(seed, game id)``), draw exactly the rolls the record shows.
So no die in the record was chosen after the start. (The log's chain, ``[Chain]``, is
checked against the store by the server: ``/verify chain:`` in Discord.)
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import variants
from variants.dice import seed_commitment


@dataclass(frozen=True)
class RecordCheck:
    ok: bool
    lines: tuple[str, ...]


def check_record(text: str) -> RecordCheck:
    try:
        headers, actions, rolls = variants.parse_record(text)
    except ValueError as error:
        return RecordCheck(False, (f"not a game record: {error}",))
    game_tag, seed, commitment = headers.get("Game"), headers.get("Seed"), headers.get("Commitment")
    if not game_tag or not game_tag.isdigit():
        return RecordCheck(False, ("the record has no [Game] tag with the game's number",))
    if not commitment:
        return RecordCheck(False, ("the record has no [Commitment] tag",))
    if not seed:
        return RecordCheck(
            False,
            (
                f"game {game_tag} has no [Seed] tag: the seed is revealed when the game "
                "ends; download the record again then",
            ),
        )
    lines = [f"game {game_tag}: seed {seed}"]
    if seed_commitment(seed) != commitment.lower():
        return RecordCheck(
            False, (*lines, f"the seed does not hash to the commitment {commitment}")
        )
    lines.append(f"commitment {commitment}: matches (SHA-256 of the seed)")
    options: dict[str, Any] = json.loads(headers.get("Options", "{}"))
    dice = variants.VerifiableDice(seed, int(game_tag))
    try:
        if "FEN" in headers:
            game = variants.from_fen(headers["Variant"], headers["FEN"], options=options, dice=dice)
        else:
            game = variants.new_game(headers["Variant"], options=options, dice=dice)
        for number, action in enumerate(actions, start=1):
            try:
                game.play(action)
            except ValueError as error:
                return RecordCheck(
                    False,
                    (
                        *lines,
                        f"action {number} ({action}) is not legal on the seed's dice: {error}",
                    ),
                )
    except ValueError as error:
        return RecordCheck(False, (*lines, f"the record does not replay: {error}"))
    drawn = variants.parse_record(game.record())[2]
    if drawn != rolls:
        first = next(
            (k for k, (a, b) in enumerate(zip(drawn, rolls, strict=False)) if a != b),
            min(len(drawn), len(rolls)),
        )
        return RecordCheck(
            False,
            (
                *lines,
                f"roll {first + 1} differs: the record shows "
                f"{rolls[first] if first < len(rolls) else 'none'}, the seed gives "
                f"{drawn[first] if first < len(drawn) else 'none'}",
            ),
        )
    lines.append(
        f"{len(actions)} actions replayed; all {len(rolls)} rolls are the seed's: verified"
    )
    return RecordCheck(True, tuple(lines))
