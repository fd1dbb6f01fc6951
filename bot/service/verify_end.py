"""Does a finished game's stored end follow from its log? (``bot.service.verify``)

The checks of how a game ended (a resignation, an agreed draw, an abort, a timeout, the
rules' own end) and of the moderators' entries that change a game without a move (a clock
extended, a game moved to another channel): each difference in one sentence, ``said`` so
that a front end can say it in the reader's language.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from bot.i18n import said
from bot.service.clock import (
    EXTEND_PATTERN,
    MAX_DAYS,
    MIN_DAYS,
    TIMEOUT_REASONS,
    timeout_end,
    timeout_text,
)
from bot.service.live import result_text
from bot.service.relocate import RELOCATE_PATTERN
from bot.service.words import colour_word, reason_word, status_word
from storage import ActionRow, GameRow

if TYPE_CHECKING:
    from bot.service.verify import Replay

END_ENTRIES = ("resign", "draw_accept", "abort", "timeout")


def result_problems(row: GameRow, actions: Sequence[ActionRow], replay: Replay) -> list[str]:
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
                said(
                    "entry {seq} ({kind}: {text}) comes after the game ended at entry {end} "
                    "({end_kind}: {end_text})",
                    seq=late[0].seq,
                    kind=late[0].kind,
                    text=late[0].text,
                    end=end.seq,
                    end_kind=end.kind,
                    end_text=end.text,
                )
            )
    stored = f"{row.status}" + (f" {row.result}" if row.result else "")
    stored += f" ({row.result_reason})" if row.result_reason else ""
    last = actions[-1] if actions else None
    if last is not None:
        last_entry = said(
            "entry {seq}, {kind} {text}", seq=last.seq, kind=last.kind, text=last.text
        )
    else:
        last_entry = said("no entries")

    problems += _extend_problems(row, actions, replay)
    problems += _relocate_problems(row, actions)
    if row.status == "finished":
        if row.result_reason in TIMEOUT_REASONS or (end is not None and end.kind == "timeout"):
            problems += _timeout_problems(row, end, replay, stored, last_entry)
        elif row.result_reason == "resignation":
            resign = end if end is not None and end.kind == "resign" else None
            if resign is None:
                problems.append(
                    said(
                        "the game is stored as {stored}, but nobody resigned in the log "
                        "(its last entry: {last})",
                        stored=stored,
                        last=last_entry,
                    )
                )
            else:
                problems += _resigner_problems(row, resign)
        elif row.result_reason == "agreement":
            if end is None or end.kind != "draw_accept":
                problems.append(
                    said(
                        "the game is stored as {stored}, but the log has no agreed draw "
                        "(its last entry: {last})",
                        stored=stored,
                        last=last_entry,
                    )
                )
            elif row.result != "1/2-1/2":
                problems.append(
                    said(
                        "entry {seq} agrees a draw, so the result is 1/2-1/2; the game is "
                        "stored as {result}",
                        seq=end.seq,
                        result=row.result,
                    )
                )
        else:
            problems += _engine_end_problems(row, replay, stored, last_entry)
    elif row.status == "aborted" and end is not None and end.kind == "timeout":
        problems += _timeout_problems(row, end, replay, stored, last_entry)
    elif row.status == "aborted":
        if end is None or end.kind != "abort":
            problems.append(
                said(
                    "the game is stored as {stored}, but the log has no abort entry", stored=stored
                )
            )
        else:
            if row.result is not None:
                problems.append(
                    said(
                        "entry {seq} aborts the game, which has no result; the game is stored "
                        "as {result}",
                        seq=end.seq,
                        result=row.result,
                    )
                )
            if row.result_reason != end.text:
                problems.append(
                    said(
                        "entry {seq} aborts the game by player {player} because {text}; the game "
                        "stores the reason {reason}",
                        seq=end.seq,
                        player=end.actor_id,
                        text=repr(end.text),
                        reason=repr(row.result_reason),
                    )
                )
        if replay.ended_by is not None and end is not None and end.kind == "abort":
            problems.append(
                said(
                    "the game ended at move {seq} ({text}); it cannot be aborted after that",
                    seq=replay.ended_by.seq,
                    text=replay.ended_by.text,
                )
            )
    elif row.status in ("declined", "cancelled") and actions:
        problems.append(
            said(
                "the challenge is stored as {status}, but the log has {n} entries",
                status=status_word(row.status),
                n=len(actions),
            )
        )
    return problems


def _timeout_problems(
    row: GameRow, end: ActionRow | None, replay: Replay, stored: str, last_entry: str
) -> list[str]:
    """A game stored as ended on time: the log must end with the timeout of the side to
    act, and the stored outcome must be the one that timeout gives (``clock.timeout_end``)."""
    if end is None or end.kind != "timeout":
        return [
            said(
                "the game is stored as {stored}, but nobody ran out of time in the log "
                "(its last entry: {last})",
                stored=stored,
                last=last_entry,
            )
        ]
    problems: list[str] = []
    if row.time_days is None:
        problems.append(
            said(
                "entry {seq} says {text}, but the game has no time limit",
                seq=end.seq,
                text=repr(end.text),
            )
        )
    if end.actor_id is not None:
        problems.append(
            said(
                "entry {seq} ({text}) was sent by player {player}; a timeout is declared by "
                "the server, never by a player",
                seq=end.seq,
                text=end.text,
                player=end.actor_id,
            )
        )
    if not replay.complete or replay.game is None or replay.game.result is not None:
        return problems  # the replay failed (said already), or the game ended before
    side = str(replay.game.turn)
    if end.text != timeout_text(side):
        problems.append(
            said(
                "entry {seq} says {text}, but after the moves before it {colour} was to act",
                seq=end.seq,
                text=repr(end.text),
                colour=colour_word(side),
            )
        )
    expected = timeout_end(replay.game, replay.turns)
    if expected.status != row.status or expected.result != row.result:
        problems.append(
            said(
                "entry {seq}: {colour} ran out of time after {turns} completed turns, so the "
                "game is {words}; the game is stored as {stored}",
                seq=end.seq,
                colour=colour_word(side),
                turns=replay.turns,
                words=expected.words,
                stored=stored,
            )
        )
    elif row.result_reason != expected.reason:
        problems.append(
            said(
                "entry {seq}: the game ended on time ({reason}); the game stores the reason "
                "{stored}",
                seq=end.seq,
                reason=reason_word(expected.reason),
                stored=repr(row.result_reason),
            )
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
        where = _entry_words(action)
        found = RELOCATE_PATTERN.match(action.text)
        if found is None:
            problems.append(
                said("{where} does not say from which channel to which it moved", where=where)
            )
            continue
        if last is not None and int(found[1]) != last:
            problems.append(
                said("{where} moves the game from a channel it was not in", where=where)
            )
        last = int(found[2])
        if action.actor_id is None or action.actor_id in players:
            problems.append(_not_a_moderator(where, action.actor_id))
    if last is not None and row.location_id != last:
        problems.append(
            said(
                "the game is stored in channel {stored}, but its last move to another channel "
                "took it to {last}",
                stored=row.location_id,
                last=last,
            )
        )
    return problems


def _extend_problems(row: GameRow, actions: Sequence[ActionRow], replay: Replay) -> list[str]:
    problems: list[str] = []
    players = {row.white_id, row.black_id}
    for action in actions:
        if action.kind != "extend":
            continue
        where = _entry_words(action)
        found = EXTEND_PATTERN.match(action.text)
        if found is None:
            problems.append(
                said("{where} does not say how many days were added, and for whom", where=where)
            )
            continue
        days, colour = int(found[1]), found[2]
        if not MIN_DAYS <= days <= MAX_DAYS:
            problems.append(
                said(
                    "{where} adds {days} days; a moderator adds {low} to {high}",
                    where=where,
                    days=days,
                    low=MIN_DAYS,
                    high=MAX_DAYS,
                )
            )
        if row.time_days is None:
            problems.append(
                said("{where} extends a clock, but the game has no time limit", where=where)
            )
        if action.actor_id is None or action.actor_id in players:
            problems.append(_not_a_moderator(where, action.actor_id))
        side = replay.side_at.get(action.seq)
        if side is not None and side != colour:
            problems.append(
                said(
                    "{where}: {side} was to act then, not {colour}",
                    where=where,
                    side=colour_word(side),
                    colour=colour_word(colour),
                )
            )
    return problems


def _entry_words(action: ActionRow) -> str:
    return said("entry {seq} ({text})", seq=action.seq, text=action.text)


def _not_a_moderator(where: str, actor_id: int | None) -> str:
    """A moderator's entry made by nobody, or by a player of the game."""
    if actor_id is None:
        return said(
            "{where} was made by nobody; only a moderator who does not play may", where=where
        )
    return said(
        "{where} was made by player {player}, who plays; only a moderator who does not play may",
        where=where,
        player=actor_id,
    )


def _resigner_problems(row: GameRow, resign: ActionRow) -> list[str]:
    problems: list[str] = []
    words = resign.text.split()
    colour = words[0] if words and words[0] in ("white", "black") else None
    player = {"white": row.white_id, "black": row.black_id}
    if colour is None:
        sides = [c for c, uid in player.items() if uid == resign.actor_id]
        colour = sides[0] if len(sides) == 1 else None
    if colour is None:
        return [
            said("entry {seq} ({text}) does not say who resigned", seq=resign.seq, text=resign.text)
        ]
    if resign.actor_id != player[colour]:
        problems.append(
            said(
                "entry {seq} says {colour} resigns, but it was sent by player {player}, who "
                "does not play {colour}",
                seq=resign.seq,
                colour=colour_word(colour),
                player=resign.actor_id,
            )
        )
    winner = "black" if colour == "white" else "white"
    if row.result != result_text(winner):
        problems.append(
            said(
                "entry {seq}: {colour} resigned, so {winner} won ({result}); the game is stored "
                "as {stored}",
                seq=resign.seq,
                colour=colour_word(colour),
                winner=colour_word(winner),
                result=result_text(winner),
                stored=row.result,
            )
        )
    return problems


def _engine_end_problems(row: GameRow, replay: Replay, stored: str, last_entry: str) -> list[str]:
    if not replay.complete:
        return []  # the replay already failed and said where
    result = replay.game.result if replay.game is not None else None
    if result is None or replay.ended_by is None:
        return [
            said(
                "the game is stored as {stored}, but after the log's last entry ({last}) the "
                "game is not over: the log does not show how it ended",
                stored=stored,
                last=last_entry,
            )
        ]
    move = replay.ended_by
    outcome = (
        said("a draw")
        if result.winner is None
        else said("{colour} wins", colour=colour_word(result.winner))
    )
    # The result must match; the reason is compared by the winner only, as its wording is
    # the engine's and may change between versions (the recorded moves may not).
    if row.result != result_text(result.winner):
        return [
            said(
                "move {seq} ({text}) ends the game: {outcome} ({reason}); the game is stored "
                "as {stored}",
                seq=move.seq,
                text=move.text,
                outcome=outcome,
                reason=reason_word(result.reason),
                stored=stored,
            )
        ]
    return []
