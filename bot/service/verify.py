"""``verify``: recompute every roll of an ended game from its revealed seed (RULES.md section 6).

Three checks, all reported:
1. the revealed seed hashes to the commitment published when the game was created;
2. roll k, as stored, equals ``verifiable_roll(seed, game id, k, sides)``;
3. the log replays from the seed alone: a fresh engine game on ``VerifiableDice(seed,
   game id)`` playing the stored action texts records the same texts and rolls.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from bot.service.errors import SeedNotRevealed
from bot.service.live import new_engine_game
from bot.service.results import RollMismatch, VerifyReport
from storage import ActionRow, GameRow
from variants.dice import seed_commitment, verifiable_roll


def verify_game(row: GameRow, actions: Sequence[ActionRow]) -> VerifyReport:
    if not row.is_ended:
        raise SeedNotRevealed(
            f"game {row.id} is still in play; its dice seed is revealed when it ends "
            f"(commitment {row.commitment})"
        )
    seed_matches = seed_commitment(row.seed) == row.commitment
    mismatches: list[RollMismatch] = []
    index = 0
    labelled = [("game start", row.start_rolls)] + [
        (f"action {a.seq} ({a.text})", a.rolls) for a in actions
    ]
    for where, rolls in labelled:
        for sides, stored in rolls:
            expected = verifiable_roll(row.seed, row.id, index, sides)
            if stored != expected:
                mismatches.append(RollMismatch(index, where, sides, stored, expected))
            index += 1
    replay_error = _replay(row, actions)
    messages = [
        f"Game {row.id}: seed {row.seed}",
        f"commitment {row.commitment}: "
        + ("matches" if seed_matches else "DOES NOT MATCH the seed"),
        f"{index} rolls checked, {len(mismatches)} mismatched",
    ]
    for m in mismatches[:10]:
        messages.append(
            f"roll {m.index + 1} at {m.where}: stored {m.stored}, seed gives {m.expected} (d{m.sides})"
        )
    if replay_error:
        messages.append(f"replay: {replay_error}")
    report = VerifyReport(
        game_id=row.id,
        commitment=row.commitment,
        seed=row.seed,
        seed_matches=seed_matches,
        rolls_checked=index,
        mismatches=tuple(mismatches),
        replay_error=replay_error,
    )
    messages.append("verified: every roll is honest" if report.ok else "NOT verified")
    return replace(report, messages=tuple(messages))


def _replay(row: GameRow, actions: Sequence[ActionRow]) -> str | None:
    """Play the stored texts on dice drawn from the seed alone; report the first difference."""
    try:
        game = new_engine_game(row.variant, row.options, row.seed, row.id)
    except ValueError as error:
        return f"the game cannot be set up: {error}"
    if tuple(game.rolls) != tuple(row.start_rolls):
        return "the start rolls differ from the seed's"
    for action in actions:
        if action.kind != "move":
            continue
        before = len(game.rolls)
        try:
            recorded = game.play(action.text)
        except ValueError as error:
            return f"action {action.seq} ({action.text}) is not legal with the seed's dice: {error}"
        if recorded != action.text or tuple(game.rolls[before:]) != action.rolls:
            return (
                f"action {action.seq} was stored as {action.text}, the seed's dice give {recorded}"
            )
    return None
