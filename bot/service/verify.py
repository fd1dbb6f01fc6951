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
from bot.service.clock import (
    EXTEND_PATTERN,
    MAX_DAYS,
    MIN_DAYS,
    TIMEOUT_REASONS,
    timeout_end,
    timeout_text,
)
from bot.service.live import dice_text, new_engine_game, result_text, taken_back
from bot.service.relocate import RELOCATE_PATTERN
from bot.service.results import RollMismatch, VerifyReport
from storage import ActionRow, GameRow, Roll
from variants.dice import DiceError, ScriptedDice, seed_commitment, verifiable_roll

MAX_ROLL_LINES = 10
END_ENTRIES = ("resign", "draw_accept", "abort", "timeout")


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
            f"the revealed seed does not hash to the commitment {row.commitment} "
            f"published when the game started (it hashes to {seed_commitment(row.seed)})"
        )
    problems += _log_gaps(row, actions)
    mismatches, numbering, checked = _check_rolls(row, actions)
    problems += numbering
    for m in mismatches[:MAX_ROLL_LINES]:
        problems.append(
            f"roll {m.index + 1} ({m.where}) is stored as {m.stored} on a d{m.sides}; "
            f"the seed gives {m.expected}"
        )
    if len(mismatches) > MAX_ROLL_LINES:
        problems.append(f"... and {len(mismatches) - MAX_ROLL_LINES} more rolls differ")
    problems += _undo_problems(actions)
    replay = _replay(row, actions)
    if replay.error:
        problems.append(replay.error)
    problems += _result_problems(row, actions, replay)
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
        if action.seq > expected:
            missing = (
                f"entry {expected} is"
                if action.seq == expected + 1
                else f"entries {expected} to {action.seq - 1} are"
            )
            problems.append(
                f"the log jumps from entry {expected - 1} to entry {action.seq}: {missing} missing"
            )
        expected = action.seq + 1
    last = actions[-1].seq if actions else 0
    if row.log_count > last:
        lost = row.log_count - last
        problems.append(
            f"the game counts {row.log_count} log entries but the log ends at entry {last}: "
            + ("the last entry is" if lost == 1 else f"the last {lost} entries are")
            + " missing"
        )
    elif row.log_count < last:
        problems.append(
            f"the log runs to entry {last} but the game counts only {row.log_count} entries"
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
                f"entry {seq} ({undo.text}) takes back move {move.seq}, which is {move.text}"
            )
        rolled = [v for a in actions if move.seq <= a.seq <= seq for _, v in a.rolls]
        if rolled:
            problems.append(
                f"entry {seq} takes back move {move.seq} ({move.text}), but dice were rolled "
                f"since it ({dice_text(tuple(rolled))}); a move may be taken back only while "
                "no die has been rolled after it"
            )
    return problems


def _where(action: ActionRow) -> str:
    return f"action {action.seq} ({action.text})"


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

    check(0, row.start_rolls, "game start")
    following = len(row.start_rolls)
    for action in actions:
        if action.roll_index != following:
            what = (
                f"roll numbers {following + 1} to {action.roll_index} are missing"
                if action.roll_index > following
                else "roll numbers repeat"
            )
            problems.append(
                f"{_where(action)} numbers its first roll {action.roll_index + 1}, but the "
                f"rolls before it end at number {following}: {what}"
            )
        check(action.roll_index, action.rolls, _where(action))
        following = action.roll_index + len(action.rolls)
    if row.roll_count != following:
        problems.append(
            f"the game counts {row.roll_count} rolls but the stored rolls end at number {following}"
        )
    return mismatches, problems, checked


@dataclass
class _Replay:
    error: str | None = None
    game: Any = None  # the engine game on the seed's dice, as far as it got
    complete: bool = False  # every move of the log replayed
    ended_by: ActionRow | None = None  # the move after which the engine ended the game
    turns: int = 0  # completed turns: moves after which the side to act changed
    side_at: dict[int, str] = field(default_factory=dict)  # other entries: the side to act
    actor_problems: list[str] = field(default_factory=list)  # moves sent by the wrong player


def _replay(row: GameRow, actions: Sequence[ActionRow]) -> _Replay:
    """Play the stored texts on dice drawn from the seed alone; report the first
    difference, naming the dice the log shows there and the dice the seed gives."""
    assert row.seed is not None
    out = _Replay()
    try:
        game = new_engine_game(row.variant, row.options, row.seed, row.id)
    except ValueError as error:
        out.error = f"the game cannot be set up: {error}"
        return out
    out.game = game
    skipped = _skipped(actions)
    if tuple(game.rolls) != tuple(row.start_rolls):
        out.error = (
            f"the game start is stored with dice {_rolls_text(row.start_rolls)}; the seed's "
            f"dice are {_rolls_text(tuple(game.rolls))}"
        )
        return out
    for action in actions:
        if action.kind == "move":  # a move taken back too: its side was the side to act
            out.actor_problems += _mover_problems(row, action, str(game.turn))
        if action.kind != "move" or action.seq in skipped:
            out.side_at[action.seq] = str(game.turn)
            continue
        seed_dice = dice_text(game.dice) or "(none)"
        before = len(game.rolls)
        side = game.turn
        try:
            recorded = game.play(action.text)
        except ValueError as error:
            out.error = (
                f"action {action.seq} is stored as {action.text} with dice "
                f"{_stored_dice(row, actions, action.seq)}; the seed's dice are {seed_dice}, "
                f"with which {action.text} is not legal: {' '.join(str(error).split())}"
            )
            return out
        drawn = tuple(game.rolls[before:])
        if recorded != action.text or drawn != action.rolls:
            out.error = (
                f"action {action.seq} is stored as {action.text} with dice "
                f"{_stored_dice(row, actions, action.seq)}{_then(action.rolls)}; the seed's "
                f"dice are {seed_dice}, which give {recorded}{_then(drawn)}"
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
        return "nobody (the server)"
    sides = [c for c in ("white", "black") if _player_of(row, c) == player]
    plays = f"who plays {' and '.join(sides)}" if sides else "who does not play in this game"
    return f"player {player}, {plays}"


def _mover_problems(row: GameRow, action: ActionRow, side: str) -> list[str]:
    """A move must come from the player of the side to act."""
    if action.actor_id == _player_of(row, side):
        return []
    return [
        f"entry {action.seq} ({action.text}) is a move by {side}, but it was sent by "
        f"{_who(row, action.actor_id)}"
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
                f"entry {action.seq} says {action.text!r}, but it was sent by "
                f"{_who(row, action.actor_id)}"
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
        return "(which the stored rolls do not show)"
    return dice_text(game.dice) or "(none)"


def _rolls_text(rolls: tuple[Roll, ...]) -> str:
    return dice_text(tuple(v for _, v in rolls)) or "(none)"


def _then(rolls: tuple[Roll, ...]) -> str:
    return f", then rolling {_rolls_text(rolls)}" if rolls else ""


def _result_problems(row: GameRow, actions: Sequence[ActionRow], replay: _Replay) -> list[str]:
    """Does the stored status and result follow from the log?"""
    problems: list[str] = []
    ends = [a for a in actions if a.kind in END_ENTRIES]
    end = ends[0] if ends else None
    if replay.ended_by is not None and (end is None or end.seq > replay.ended_by.seq):
        end = replay.ended_by
    if end is not None:
        late = [a for a in actions if a.seq > end.seq]
        if late:
            problems.append(
                f"entry {late[0].seq} ({late[0].kind}: {late[0].text}) comes after the game "
                f"ended at entry {end.seq} ({end.kind}: {end.text})"
            )
    stored = f"{row.status}" + (f" {row.result}" if row.result else "")
    stored += f" ({row.result_reason})" if row.result_reason else ""
    last = actions[-1] if actions else None
    said = f"entry {last.seq}, {last.kind} {last.text}" if last else "no entries"

    problems += _extend_problems(row, actions, replay)
    problems += _relocate_problems(row, actions)
    if row.status == "finished":
        if row.result_reason in TIMEOUT_REASONS or (end is not None and end.kind == "timeout"):
            problems += _timeout_problems(row, end, replay, stored, said)
        elif row.result_reason == "resignation":
            resign = end if end is not None and end.kind == "resign" else None
            if resign is None:
                problems.append(
                    f"the game is stored as {stored}, but nobody resigned in the log "
                    f"(its last entry: {said})"
                )
            else:
                problems += _resigner_problems(row, resign)
        elif row.result_reason == "agreement":
            if end is None or end.kind != "draw_accept":
                problems.append(
                    f"the game is stored as {stored}, but the log has no agreed draw "
                    f"(its last entry: {said})"
                )
            elif row.result != "1/2-1/2":
                problems.append(
                    f"entry {end.seq} agrees a draw, so the result is 1/2-1/2; "
                    f"the game is stored as {row.result}"
                )
        else:
            problems += _engine_end_problems(row, replay, stored, said)
    elif row.status == "aborted" and end is not None and end.kind == "timeout":
        problems += _timeout_problems(row, end, replay, stored, said)
    elif row.status == "aborted":
        if end is None or end.kind != "abort":
            problems.append(f"the game is stored as {stored}, but the log has no abort entry")
        else:
            if row.result is not None:
                problems.append(
                    f"entry {end.seq} aborts the game, which has no result; the game is "
                    f"stored as {row.result}"
                )
            if row.result_reason != end.text:
                problems.append(
                    f"entry {end.seq} aborts the game by player {end.actor_id} because "
                    f"{end.text!r}; the game stores the reason {row.result_reason!r}"
                )
        if replay.ended_by is not None and end is not None and end.kind == "abort":
            problems.append(
                f"the game ended at move {replay.ended_by.seq} ({replay.ended_by.text}); "
                f"it cannot be aborted after that"
            )
    elif row.status in ("declined", "cancelled") and actions:
        problems.append(
            f"the challenge is stored as {row.status}, but the log has {len(actions)} entries"
        )
    return problems


def _timeout_problems(
    row: GameRow, end: ActionRow | None, replay: _Replay, stored: str, said: str
) -> list[str]:
    """A game stored as ended on time: the log must end with the timeout of the side to
    act, and the stored outcome must be the one that timeout gives (``clock.timeout_end``)."""
    if end is None or end.kind != "timeout":
        return [
            f"the game is stored as {stored}, but nobody ran out of time in the log "
            f"(its last entry: {said})"
        ]
    problems: list[str] = []
    if row.time_days is None:
        problems.append(f"entry {end.seq} says {end.text!r}, but the game has no time limit")
    if end.actor_id is not None:
        problems.append(
            f"entry {end.seq} ({end.text}) was sent by player {end.actor_id}; a timeout "
            "is declared by the server, never by a player"
        )
    if not replay.complete or replay.game is None or replay.game.result is not None:
        return problems  # the replay failed (said already), or the game ended before
    side = str(replay.game.turn)
    if end.text != timeout_text(side):
        problems.append(
            f"entry {end.seq} says {end.text!r}, but after the moves before it {side} was to act"
        )
    expected = timeout_end(replay.game, replay.turns)
    if expected.status != row.status or expected.result != row.result:
        problems.append(
            f"entry {end.seq}: {side} ran out of time after {replay.turns} completed "
            f"turns, so the game is {expected.words}; the game is stored as {stored}"
        )
    elif row.result_reason != expected.reason:
        problems.append(
            f"entry {end.seq}: the game ended on time ({expected.reason}); the game stores "
            f"the reason {row.result_reason!r}"
        )
    return problems


def _relocate_problems(row: GameRow, actions: Sequence[ActionRow]) -> list[str]:
    """Each ``relocate`` entry (issue 24): made by a moderator who does not play, saying
    from which channel to which; and the game lives where the last one took it."""
    problems: list[str] = []
    players = {row.white_id, row.black_id}
    last: int | None = None
    for action in actions:
        if action.kind != "relocate":
            continue
        where = f"entry {action.seq} ({action.text})"
        found = RELOCATE_PATTERN.match(action.text)
        if found is None:
            problems.append(f"{where} does not say from which channel to which it moved")
            continue
        if last is not None and int(found[1]) != last:
            problems.append(f"{where} moves the game from a channel it was not in")
        last = int(found[2])
        if action.actor_id is None or action.actor_id in players:
            who = "nobody" if action.actor_id is None else f"player {action.actor_id}, who plays"
            problems.append(f"{where} was made by {who}; only a moderator who does not play may")
    if last is not None and row.location_id != last:
        problems.append(
            f"the game is stored in channel {row.location_id}, but its last move to another "
            f"channel took it to {last}"
        )
    return problems


def _extend_problems(row: GameRow, actions: Sequence[ActionRow], replay: _Replay) -> list[str]:
    problems: list[str] = []
    players = {row.white_id, row.black_id}
    for action in actions:
        if action.kind != "extend":
            continue
        where = f"entry {action.seq} ({action.text})"
        found = EXTEND_PATTERN.match(action.text)
        if found is None:
            problems.append(f"{where} does not say how many days were added, and for whom")
            continue
        days, colour = int(found[1]), found[2]
        if not MIN_DAYS <= days <= MAX_DAYS:
            problems.append(f"{where} adds {days} days; a moderator adds {MIN_DAYS} to {MAX_DAYS}")
        if row.time_days is None:
            problems.append(f"{where} extends a clock, but the game has no time limit")
        if action.actor_id is None or action.actor_id in players:
            who = "nobody" if action.actor_id is None else f"player {action.actor_id}, who plays"
            problems.append(f"{where} was made by {who}; only a moderator who does not play may")
        side = replay.side_at.get(action.seq)
        if side is not None and side != colour:
            problems.append(f"{where}: {side} was to act then, not {colour}")
    return problems


def _resigner_problems(row: GameRow, resign: ActionRow) -> list[str]:
    problems: list[str] = []
    words = resign.text.split()
    colour = words[0] if words and words[0] in ("white", "black") else None
    player = {"white": row.white_id, "black": row.black_id}
    if colour is None:
        sides = [c for c, uid in player.items() if uid == resign.actor_id]
        colour = sides[0] if len(sides) == 1 else None
    if colour is None:
        return [f"entry {resign.seq} ({resign.text}) does not say who resigned"]
    if resign.actor_id != player[colour]:
        problems.append(
            f"entry {resign.seq} says {colour} resigns, but it was sent by player "
            f"{resign.actor_id}, who does not play {colour}"
        )
    winner = "black" if colour == "white" else "white"
    if row.result != result_text(winner):
        problems.append(
            f"entry {resign.seq}: {colour} resigned, so {winner} won ({result_text(winner)}); "
            f"the game is stored as {row.result}"
        )
    return problems


def _engine_end_problems(row: GameRow, replay: _Replay, stored: str, said: str) -> list[str]:
    if not replay.complete:
        return []  # the replay already failed and said where
    result = replay.game.result if replay.game is not None else None
    if result is None or replay.ended_by is None:
        return [
            f"the game is stored as {stored}, but after the log's last entry ({said}) the "
            "game is not over: the log does not show how it ended"
        ]
    move = replay.ended_by
    outcome = "a draw" if result.winner is None else f"{result.winner} wins"
    ended = f"move {move.seq} ({move.text}) ends the game: {outcome} ({result.reason})"
    # The result must match; the reason is compared by the winner only, as its wording is
    # the engine's and may change between versions (the recorded moves may not).
    if row.result != result_text(result.winner):
        return [f"{ended}; the game is stored as {stored}"]
    return []
