"""Checking a game's chained log (issue 24; the digest is defined in ``storage.chain``).

Two questions, each answered in plain sentences:

1. Does every stored digest follow from its entry and the digest before it? An entry
   changed, swapped, or given to another player after it was written no longer does,
   unless whoever changed it recomputed every digest after it too;
2. does the log still hold a chain head that a board showed (``expected``, copied from
   the foot of a posted board)? A board shows the head after its latest entry; if no
   entry of the log, recomputed from the game's start, has that head, the history up to
   that board was rewritten, even if every digest was recomputed.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.i18n import said
from storage import ActionRow, GameRow
from storage.chain import SHORT_HEAD, chain_of, links

MAX_CHAIN_LINES = 5


def _entry(action: ActionRow) -> str:
    who = (
        said("the server")
        if action.actor_id is None
        else said("player {player}", player=action.actor_id)
    )
    return said(
        "entry {seq} ({kind} {text}, by {who})",
        seq=action.seq,
        kind=action.kind,
        text=action.text,
        who=who,
    )


def chain_problems(row: GameRow, actions: Sequence[ActionRow]) -> list[str]:
    """What in the stored chain does not follow from the stored entries ([] if all)."""
    problems: list[str] = []
    broken = []
    for link in links(row, actions):
        if link.action.digest is None:
            problems.append(
                said("{entry} has no digest: the log is not chained", entry=_entry(link.action))
            )
        elif not link.matches:
            broken.append(link.action)
    for action in broken[:MAX_CHAIN_LINES]:
        if action.seq == 1:
            problems.append(
                said(
                    "{entry} does not match its digest: it, or the game's players, options or "
                    "start, was changed after it was written",
                    entry=_entry(action),
                )
            )
        else:
            problems.append(
                said(
                    "{entry} does not match its digest: it was changed after it was written",
                    entry=_entry(action),
                )
            )
    if len(broken) > MAX_CHAIN_LINES:
        problems.append(
            said("... and {n} more entries do not match", n=len(broken) - MAX_CHAIN_LINES)
        )
    if actions and row.log_head != actions[-1].digest:
        problems.append(
            said(
                "the game's chain head {head} is not the digest of its last entry ({last})",
                head=_short(row.log_head),
                last=_short(actions[-1].digest),
            )
        )
    return problems


def head_check(
    row: GameRow, actions: Sequence[ActionRow], expected: str
) -> tuple[str | None, str | None]:
    """``(line, problem)``: where the chain head ``expected`` (normalised hex, see
    ``storage.chain.normalise_head``) is found in the log recomputed from the game's
    start, or the problem that it is not there."""
    digests = chain_of(row, actions)
    for seq, digest in enumerate(digests):
        if digest.startswith(expected):
            if seq == 0:
                found = said(
                    "chain head {head} is the head after the game's start: the log up to that "
                    "board is the one stored",
                    head=expected[:SHORT_HEAD],
                )
            else:
                found = said(
                    "chain head {head} is the head after entry {seq}: the log up to that "
                    "board is the one stored",
                    head=expected[:SHORT_HEAD],
                    seq=seq,
                )
            return found, None
    return None, said(
        "no entry of this game's log has the chain head {head} that a board showed: the "
        "history was rewritten after that board was posted",
        head=expected[:SHORT_HEAD],
    )


def _short(digest: str | None) -> str:
    return digest[:SHORT_HEAD] if digest else said("(none)")
