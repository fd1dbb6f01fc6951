"""``verify``: check an ended game against its revealed seed (RULES.md section 6).

Everything is reported, in words:
1. the revealed seed hashes to the commitment published when the game started;
2. the log is complete: its entries are numbered 1, 2, 3, ... with none missing, and
   there are as many as the game row counts (``log_count``, kept by the store with
   every append in the same transaction). Deleting the last action leaves the count
   one higher than the log: caught. (The count and the numbering catch lost or
   deleted entries; the seed is what makes the dice themselves unforgeable.);
3. the roll numbers are consecutive: each entry's first roll carries its number
   (``roll_index``), which must follow the rolls before it, and the game row's
   ``roll_count`` must equal the rolls stored;
4. roll k, as stored, equals ``verifiable_roll(seed, game id, k, sides)``;
5. a take-back (an ``undo`` entry) names the latest move not yet taken back, and
   no die was rolled from that move to the take-back; the replays skip that move;
6. the log replays on the seed's dice alone: a fresh engine game on
   ``VerifiableDice(seed, game id)`` plays the stored texts and records the same texts
   and rolls. Where it does not, the report names the action, what is stored with its
   dice and what the seed's dice are and give;
7. the stored result follows from the log: who resigned, which move ended the game,
   an agreed draw, an abort (by whom, why), a timeout (issue 13: the side that ran out
   was the side to act; nobody had completed a turn: aborted; the winner could not win:
   a draw; else a loss on time), and nothing logged after the end. Every ``extend`` entry
   names the side to act then, adds 1 to 14 days to a game that has a clock, and was made
   by someone who does not play in the game;
8. each move was sent by the player of the side that made it (the side to act in the
   replay), and each draw offer and answer by the player of the side it names;
9. the log's chain (issue 24, ``storage.chain``, checked by ``bot.service.chain_check``):
   every entry's stored digest follows from its fields and the digest before it, from the
   game's start on. Two moves of one side swapped (in a game without dice, where both
   orders replay) or a move given to the other player are caught here. Given a chain head
   copied from a posted board (``with_head``), the log recomputed from the start must
   still reach it, so a history rewritten with every digest recomputed is caught too.

A pure function of the stored data: the service runs it in a worker thread and keeps
the report for a finished game (``bot.service.looking``).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import variants
from bot.i18n import said
from bot.service.chain_check import chain_problems
from bot.service.live import dice_text, new_engine_game, taken_back
from bot.service.results import RollMismatch, VerifyReport
from bot.service.verify_end import result_problems
from bot.service.words import colour_word
from storage import ActionRow, GameRow, Roll
from variants.dice import DiceError, ScriptedDice, seed_commitment, verifiable_roll

MAX_ROLL_LINES = 10


def log_digest(row: GameRow, actions: Sequence[ActionRow]) -> str:
    """SHA-256 of everything ``verify_game`` reads: a kept report is valid only while
    the stored game still hashes to the same digest."""
    data: list[Any] = [
        row.id,
        row.variant,
        row.options,
        row.status,
        row.white_id,
        row.black_id,
        row.result,
        row.result_reason,
        row.seed,
        row.commitment,
        row.start_rolls,
        row.log_count,
        row.roll_count,
        row.time_days,
    ]
    data.append(row.log_head)
    data += [
        (a.seq, a.kind, a.actor_id, a.text, a.rolls, a.roll_index, a.created_at, a.digest)
        for a in actions
    ]
    blob = json.dumps(data, sort_keys=True, separators=(",", ":"), default=list)
    return hashlib.sha256(blob.encode()).hexdigest()


def verify_game(row: GameRow, actions: Sequence[ActionRow]) -> VerifyReport:
    """The report for an ended game that has a seed (the caller checks both)."""
    if row.seed is None or row.commitment is None:
        raise ValueError(f"game {row.id} has no dice seed")
    seed_matches = seed_commitment(row.seed) == row.commitment
    problems: list[str] = []
    if not seed_matches:
        problems.append(
            said(
                "the revealed seed does not hash to the commitment {commitment} published "
                "when the game started (it hashes to {hashed})",
                commitment=row.commitment,
                hashed=seed_commitment(row.seed),
            )
        )
    problems += _log_gaps(row, actions)
    mismatches, numbering, checked = _check_rolls(row, actions)
    problems += numbering
    for m in mismatches[:MAX_ROLL_LINES]:
        problems.append(
            said(
                "roll {n} ({where}) is stored as {stored} on a d{sides}; the seed gives {expected}",
                n=m.index + 1,
                where=m.where,
                stored=m.stored,
                sides=m.sides,
                expected=m.expected,
            )
        )
    if len(mismatches) > MAX_ROLL_LINES:
        problems.append(said("... and {n} more rolls differ", n=len(mismatches) - MAX_ROLL_LINES))
    problems += _undo_problems(actions)
    replay = _replay(row, actions)
    if replay.error:
        problems.append(replay.error)
    problems += result_problems(row, actions, replay)
    problems += replay.actor_problems + _draw_actor_problems(row, actions)
    problems += chain_problems(row, actions)
    report = VerifyReport(
        game_id=row.id,
        commitment=row.commitment,
        seed=row.seed,
        seed_matches=seed_matches,
        rolls_checked=checked,
        mismatches=tuple(mismatches),
        replay_error=replay.error,
        problems=tuple(problems),
        log_entries=len(actions),
    )
    if seed_matches:
        matched = said("commitment {commitment}: matches", commitment=row.commitment)
    else:
        matched = said(
            "commitment {commitment}: DOES NOT MATCH the seed", commitment=row.commitment
        )
    messages = [
        said("Game {game}: seed {seed}", game=row.id, seed=row.seed),
        matched,
        said(
            "{entries} log entries and {rolls} rolls checked, {mismatched} rolls mismatched",
            entries=len(actions),
            rolls=checked,
            mismatched=len(mismatches),
        ),
        *problems,  # (what is wrong, in detail: English, for now)
    ]
    return replace(report, messages=(*messages, _verdict(report)))


def _verdict(report: VerifyReport) -> str:
    if not report.ok:
        return said("NOT verified")
    return said(
        "verified: every roll is the seed's, the log is complete and chained, and the "
        "result follows from it"
    )


def with_head(report: VerifyReport, line: str | None, problem: str | None) -> VerifyReport:
    """``report`` with the outcome of comparing a chain head copied from a board
    (``chain_check.head_check``): a line where it was found, or a problem."""
    problems = report.problems + ((problem,) if problem else ())
    checked = replace(report, problems=problems)
    added = line if line is not None else problem
    body = report.messages[:-1] + ((added,) if added else ())
    return replace(checked, messages=(*body, _verdict(checked)))


def _log_gaps(row: GameRow, actions: Sequence[ActionRow]) -> list[str]:
    problems: list[str] = []
    expected = 1
    for action in actions:
        if action.seq > expected and action.seq == expected + 1:
            problems.append(
                said(
                    "the log jumps from entry {before} to entry {seq}: entry {first} is missing",
                    before=expected - 1,
                    seq=action.seq,
                    first=expected,
                )
            )
        elif action.seq > expected:
            problems.append(
                said(
                    "the log jumps from entry {before} to entry {seq}: entries {first} to "
                    "{last} are missing",
                    before=expected - 1,
                    seq=action.seq,
                    first=expected,
                    last=action.seq - 1,
                )
            )
        expected = action.seq + 1
    last = actions[-1].seq if actions else 0
    if row.log_count > last:
        lost = row.log_count - last
        if lost == 1:
            problems.append(
                said(
                    "the game counts {count} log entries but the log ends at entry {last}: "
                    "the last entry is missing",
                    count=row.log_count,
                    last=last,
                )
            )
        else:
            problems.append(
                said(
                    "the game counts {count} log entries but the log ends at entry {last}: "
                    "the last {n} entries are missing",
                    count=row.log_count,
                    last=last,
                    n=lost,
                )
            )
    elif row.log_count < last:
        problems.append(
            said(
                "the log runs to entry {last} but the game counts only {count} entries",
                last=last,
                count=row.log_count,
            )
        )
    return problems


def _skipped(actions: Sequence[ActionRow]) -> set[int]:
    """The moves taken back by 'undo' entries (none when the undo entries are broken;
    ``_undo_problems`` reports that)."""
    try:
        return {move.seq for move in taken_back(actions).values()}
    except ValueError:
        return set()


def _undo_problems(actions: Sequence[ActionRow]) -> list[str]:
    """Each 'undo' entry takes back the latest move not yet taken back, names it, and
    no die was rolled from that move to the undo (else the dice after it would differ
    with and without the move, and the take-back would have chosen dice)."""
    try:
        undone = taken_back(actions)
    except ValueError as error:
        return [str(error)]
    problems: list[str] = []
    for seq, move in undone.items():
        undo = next(a for a in actions if a.seq == seq)
        if undo.text != f"undo {move.text}":
            problems.append(
                said(
                    "entry {seq} ({undo}) takes back move {move}, which is {text}",
                    seq=seq,
                    undo=undo.text,
                    move=move.seq,
                    text=move.text,
                )
            )
        rolled = [v for a in actions if move.seq <= a.seq <= seq for _, v in a.rolls]
        if rolled:
            problems.append(
                said(
                    "entry {seq} takes back move {move} ({text}), but dice were rolled since "
                    "it ({dice}); a move may be taken back only while no die has been rolled "
                    "after it",
                    seq=seq,
                    move=move.seq,
                    text=move.text,
                    dice=dice_text(tuple(rolled)),
                )
            )
    return problems


def _where(action: ActionRow) -> str:
    return said("action {seq} ({text})", seq=action.seq, text=action.text)


def _check_rolls(
    row: GameRow, actions: Sequence[ActionRow]
) -> tuple[list[RollMismatch], list[str], int]:
    """Each stored roll against the seed at its stored number; the numbering itself."""
    assert row.seed is not None
    mismatches: list[RollMismatch] = []
    problems: list[str] = []
    checked = 0

    def check(first: int, rolls: tuple[Roll, ...], where: str) -> None:
        nonlocal checked
        for offset, (sides, stored) in enumerate(rolls):
            index = first + offset
            expected = verifiable_roll(row.seed or "", row.id, index, sides)
            if stored != expected:
                mismatches.append(RollMismatch(index, where, sides, stored, expected))
            checked += 1

    check(0, row.start_rolls, said("game start"))
    following = len(row.start_rolls)
    for action in actions:
        if action.roll_index != following:
            values = {"where": _where(action), "first": action.roll_index + 1, "last": following}
            if action.roll_index > following:
                problems.append(
                    said(
                        "{where} numbers its first roll {first}, but the rolls before it end at "
                        "number {last}: roll numbers {gap} to {index} are missing",
                        gap=following + 1,
                        index=action.roll_index,
                        **values,
                    )
                )
            else:
                problems.append(
                    said(
                        "{where} numbers its first roll {first}, but the rolls before it end at "
                        "number {last}: roll numbers repeat",
                        **values,
                    )
                )
        check(action.roll_index, action.rolls, _where(action))
        following = action.roll_index + len(action.rolls)
    if row.roll_count != following:
        problems.append(
            said(
                "the game counts {count} rolls but the stored rolls end at number {last}",
                count=row.roll_count,
                last=following,
            )
        )
    return mismatches, problems, checked


@dataclass
class Replay:
    error: str | None = None
    game: Any = None  # the engine game on the seed's dice, as far as it got
    complete: bool = False  # every move of the log replayed
    ended_by: ActionRow | None = None  # the move after which the engine ended the game
    turns: int = 0  # completed turns: moves after which the side to act changed
    side_at: dict[int, str] = field(default_factory=dict)  # other entries: the side to act
    actor_problems: list[str] = field(default_factory=list)  # moves sent by the wrong player


def _replay(row: GameRow, actions: Sequence[ActionRow]) -> Replay:
    """Play the stored texts on dice drawn from the seed alone; report the first
    difference, naming the dice the log shows there and the dice the seed gives."""
    assert row.seed is not None
    out = Replay()
    try:
        game = new_engine_game(row.variant, row.options, row.seed, row.id)
    except ValueError as error:
        out.error = said("the game cannot be set up: {error}", error=str(error))
        return out
    out.game = game
    skipped = _skipped(actions)
    if tuple(game.rolls) != tuple(row.start_rolls):
        out.error = said(
            "the game start is stored with dice {stored}; the seed's dice are {seeded}",
            stored=_rolls_text(row.start_rolls),
            seeded=_rolls_text(tuple(game.rolls)),
        )
        return out
    for action in actions:
        if action.kind == "move":  # a move taken back too: its side was the side to act
            out.actor_problems += _mover_problems(row, action, str(game.turn))
        if action.kind != "move" or action.seq in skipped:
            out.side_at[action.seq] = str(game.turn)
            continue
        seed_dice = dice_text(game.dice) or said("(none)")
        before = len(game.rolls)
        side = game.turn
        try:
            recorded = game.play(action.text)
        except ValueError as error:
            out.error = said(
                "action {seq} is stored as {text} with dice {stored}; the seed's dice are "
                "{seeded}, with which {text} is not legal: {error}",
                seq=action.seq,
                text=action.text,
                stored=_stored_dice(row, actions, action.seq),
                seeded=seed_dice,
                error=" ".join(str(error).split()),
            )
            return out
        drawn = tuple(game.rolls[before:])
        if recorded != action.text or drawn != action.rolls:
            out.error = said(
                "action {seq} is stored as {text} with dice {stored}; the seed's dice are "
                "{seeded}, which give {recorded}",
                seq=action.seq,
                text=action.text,
                stored=_then(_stored_dice(row, actions, action.seq), action.rolls),
                seeded=seed_dice,
                recorded=_then(recorded, drawn),
            )
            return out
        if game.turn != side:
            out.turns += 1
        if game.result is not None and out.ended_by is None:
            out.ended_by = action
    out.complete = True
    return out


def _player_of(row: GameRow, colour: str) -> int | None:
    return row.white_id if colour == "white" else row.black_id


def _who(row: GameRow, player: int | None) -> str:
    """Player ``player`` and their part in the game, in words."""
    if player is None:
        return said("nobody (the server)")
    sides = [colour_word(c) for c in ("white", "black") if _player_of(row, c) == player]
    if len(sides) == 2:
        return said(
            "player {player}, who plays {first} and {second}",
            player=player,
            first=sides[0],
            second=sides[1],
        )
    if sides:
        return said("player {player}, who plays {colour}", player=player, colour=sides[0])
    return said("player {player}, who does not play in this game", player=player)


def _mover_problems(row: GameRow, action: ActionRow, side: str) -> list[str]:
    """A move must come from the player of the side to act."""
    if action.actor_id == _player_of(row, side):
        return []
    return [
        said(
            "entry {seq} ({text}) is a move by {colour}, but it was sent by {who}",
            seq=action.seq,
            text=action.text,
            colour=colour_word(side),
            who=_who(row, action.actor_id),
        )
    ]


def _draw_actor_problems(row: GameRow, actions: Sequence[ActionRow]) -> list[str]:
    """A draw offer or answer names its side first ('white offers a draw'): it must come
    from that side's player."""
    problems: list[str] = []
    for action in actions:
        if action.kind not in ("draw_offer", "draw_accept", "draw_decline"):
            continue
        words = action.text.split()
        colour = words[0] if words and words[0] in ("white", "black") else None
        if colour is not None and action.actor_id != _player_of(row, colour):
            problems.append(
                said(
                    "entry {seq} says {text}, but it was sent by {who}",
                    seq=action.seq,
                    text=repr(action.text),
                    who=_who(row, action.actor_id),
                )
            )
    return problems


def _stored_dice(row: GameRow, actions: Sequence[ActionRow], seq: int) -> str:
    """The dice the stored log shows before entry ``seq``: the stored moves replayed on
    the stored rolls (only when a difference is reported, so a clean game replays once)."""
    values = [v for _, v in row.start_rolls]
    skipped = _skipped(actions)
    for action in actions:
        values += [v for _, v in action.rolls]
    try:
        game = variants.new_game(row.variant, options=row.options, dice=ScriptedDice(values))
        for action in actions:
            if action.seq >= seq:
                break
            if action.kind == "move" and action.seq not in skipped:
                game.play(action.text)
    except (ValueError, DiceError):
        return said("(which the stored rolls do not show)")
    return dice_text(game.dice) or said("(none)")


def _rolls_text(rolls: tuple[Roll, ...]) -> str:
    return dice_text(tuple(v for _, v in rolls)) or said("(none)")


def _then(first: str, rolls: tuple[Roll, ...]) -> str:
    """``first``, or "``first``, then rolling [3 4]" when ``rolls`` were rolled after it."""
    if not rolls:
        return first
    return said("{first}, then rolling {rolls}", first=first, rolls=_rolls_text(rolls))
