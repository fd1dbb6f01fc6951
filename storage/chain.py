"""The chained action log (issue 24): the one definition of an entry's digest.

Every log entry stores a digest that covers the digest before it, so that nobody can
change, swap, drop or insert an entry without changing every digest after it. The
latest digest is the game's *chain head*; each board shows its first ``SHORT_HEAD``
hex characters, so anyone who kept a posted board can later tell whether the history
up to that board was rewritten (``bot.service.verify``), even by someone who
recomputed every digest after the change.

The definition (version 1). ``H`` is SHA-256, written as 64 lowercase hex characters;
``E(...)`` is the encoding below of a list of fields:

- the chain's **root** binds the game as it stood when its first entry was written:
  ``root = H(E("chessgarden log root 1", game id, variant, options, white id,
  black id, days per move, seed commitment, start rolls))``. The options are their JSON
  text with sorted keys and no spaces; a challenge that never started has no players
  and no commitment (``None``). The seed itself is not in it: it is secret until the
  game ends, and the commitment binds it;
- **entry** ``n``'s digest is ``H(E("chessgarden log entry 1", previous, game id, n,
  kind, actor id, text, rolls, roll number, created at))``, where ``previous`` is the
  digest of entry ``n - 1`` (the root for entry 1), ``rolls`` the entry's
  ``(sides, value)`` pairs and ``roll number`` the game's number of its first roll
  (``roll_index``). The request id is not part of it: it only deduplicates retries.

``E`` is unambiguous: each field is a tag and its length before its bytes. ``None`` is
``n``; an integer ``i<decimal>;``; a string ``s<byte length>:<UTF-8 bytes>``; a list
``l<count>:`` followed by its items. So no two different field lists share an encoding.

Both stores compute the digest with these functions when they append an entry, inside
the same write transaction, and keep the game's head (``GameRow.log_head``) with it;
migration 9 fills the digests of entries stored before it; a copy between stores keeps
them as they are, and ``verify`` recomputes them.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from storage.models import ActionRow, GameRow, Roll

CHAIN_VERSION = 1
ROOT_LABEL = "chessgarden log root 1"
ENTRY_LABEL = "chessgarden log entry 1"
DIGEST_HEX = 64  # characters of a whole digest
SHORT_HEAD = 16  # characters of the head a board shows (64 bits: no forged match)
MIN_HEAD = 12  # the fewest characters ``verify`` compares


def encode(fields: Iterable[Any]) -> bytes:
    """The unambiguous encoding ``E`` of a list of fields (see the module docstring)."""
    return b"".join(_field(value) for value in fields)


def _field(value: Any) -> bytes:
    if value is None:
        return b"n"
    if isinstance(value, bool):  # never silently an integer
        raise TypeError("a chain field cannot be a bool")
    if isinstance(value, int):
        return b"i%d;" % value
    if isinstance(value, str):
        data = value.encode("utf-8")
        return b"s%d:" % len(data) + data
    if isinstance(value, list | tuple):
        return b"l%d:" % len(value) + b"".join(_field(item) for item in value)
    raise TypeError(f"a chain field cannot be a {type(value).__name__}")


def _hash(fields: Iterable[Any]) -> str:
    return hashlib.sha256(encode(fields)).hexdigest()


def options_text(options: dict[str, Any]) -> str:
    return json.dumps(options, sort_keys=True, separators=(",", ":"))


def root_digest(
    *,
    game_id: int,
    variant: str,
    options: dict[str, Any],
    white_id: int | None,
    black_id: int | None,
    time_days: int | None,
    commitment: str | None,
    start_rolls: Sequence[Roll],
) -> str:
    """The digest the game's first entry chains from."""
    return _hash(
        [
            ROOT_LABEL,
            int(game_id),
            variant,
            options_text(options),
            white_id,
            black_id,
            time_days,
            commitment,
            [[int(s), int(v)] for s, v in start_rolls],
        ]
    )


def entry_digest(
    previous: str,
    *,
    game_id: int,
    seq: int,
    kind: str,
    actor_id: int | None,
    text: str,
    rolls: Sequence[Roll],
    roll_index: int,
    created_at: str,
) -> str:
    """The digest of one entry, chained to ``previous`` (the root for entry 1)."""
    return _hash(
        [
            ENTRY_LABEL,
            previous,
            int(game_id),
            int(seq),
            kind,
            actor_id,
            text,
            [[int(s), int(v)] for s, v in rolls],
            int(roll_index),
            created_at,
        ]
    )


def game_root(row: GameRow) -> str:
    return root_digest(
        game_id=row.id,
        variant=row.variant,
        options=row.options,
        white_id=row.white_id,
        black_id=row.black_id,
        time_days=row.time_days,
        commitment=row.commitment,
        start_rolls=row.start_rolls,
    )


def action_digest(previous: str, action: ActionRow) -> str:
    return entry_digest(
        previous,
        game_id=action.game_id,
        seq=action.seq,
        kind=action.kind,
        actor_id=action.actor_id,
        text=action.text,
        rolls=action.rolls,
        roll_index=action.roll_index,
        created_at=action.created_at,
    )


def chain_of(row: GameRow, actions: Sequence[ActionRow]) -> list[str]:
    """The digests the log should carry, recomputed from the root: ``[root, entry 1,
    entry 2, ...]`` (each entry chained to the one recomputed before it)."""
    digests = [game_root(row)]
    for action in actions:
        digests.append(action_digest(digests[-1], action))
    return digests


def head_of(row: GameRow) -> str | None:
    """The game's chain head as stored: its last entry's digest, or the root of a game
    that has started and has no entry yet; ``None`` for a challenge (no root before the
    dice commitment: acceptance fixes the players, the commitment and the start rolls)."""
    if row.log_count > 0:
        return row.log_head
    return game_root(row) if row.commitment is not None else None


def short_head(head: str | None) -> str | None:
    return head[:SHORT_HEAD] if head else None


@dataclass(frozen=True)
class Link:
    """One entry as stored, the digest its contents give after the stored digest before
    it (``expected``), and whether that is the digest stored with it."""

    action: ActionRow
    expected: str
    matches: bool


def links(row: GameRow, actions: Sequence[ActionRow]) -> Iterator[Link]:
    """Each entry checked against the stored digest before it (the root for entry 1):
    an entry whose own fields were changed fails here, whatever came before it."""
    previous = game_root(row)
    for action in actions:
        expected = action_digest(previous, action)
        yield Link(action, expected, action.digest == expected)
        previous = action.digest or expected


def normalise_head(text: str) -> str:
    """A chain head as someone copied it (spaces, a ``chain`` word, upper case allowed):
    lowercase hex. ``ValueError`` (one sentence) when it cannot be one."""
    cleaned = "".join(text.split()).lower().removeprefix("chain").strip(":")
    if not cleaned or any(c not in "0123456789abcdef" for c in cleaned):
        raise ValueError(
            f"{text.strip()!r} is not a chain head: it is hexadecimal (0-9, a-f), "
            "as shown at the foot of a board"
        )
    if not MIN_HEAD <= len(cleaned) <= DIGEST_HEX:
        raise ValueError(
            f"a chain head has {MIN_HEAD} to {DIGEST_HEX} hexadecimal characters "
            f"(a board shows {SHORT_HEAD}); {cleaned!r} has {len(cleaned)}"
        )
    return cleaned


# ----- filling the digests of a log stored before the chain (migration 9) -------------

ROOT_COLUMNS = "id, variant, options, white_id, black_id, time_days, commitment, start_rolls"
ENTRY_COLUMNS = "game_id, seq, kind, actor_id, text, rolls, roll_index, created_at"
FILL_GAMES = 500  # games per step of the fill
# Entries left without a digest after every game's were filled: entries of no game, which
# the migration's reference check then refuses (a digest is needed to get that far).
ORPHAN_ENTRIES = f"SELECT {ENTRY_COLUMNS} FROM actions WHERE digest IS NULL ORDER BY game_id, seq"


def fill_digests(
    games: Sequence[Sequence[Any]], entries: Sequence[Sequence[Any]]
) -> list[tuple[str, int, int]]:
    """``(digest, game id, seq)`` for every entry of ``games`` (rows of ``ROOT_COLUMNS``,
    JSON as stored), given their entries (rows of ``ENTRY_COLUMNS``, in game and seq
    order): what a migration writes. Both stores call it, so the one definition holds.
    An entry whose game is missing (not in ``games``) chains from ``''``."""
    previous: dict[int, str] = {}
    for game_id, variant, options, white, black, days, commitment, start in games:
        previous[int(game_id)] = root_digest(
            game_id=int(game_id),
            variant=str(variant),
            options=json.loads(options),
            white_id=white,
            black_id=black,
            time_days=days,
            commitment=commitment,
            start_rolls=_rolls(start),
        )
    out: list[tuple[str, int, int]] = []
    for game_id, seq, kind, actor, text, rolls, roll_index, created_at in entries:
        digest = entry_digest(
            previous.get(int(game_id), ""),  # an entry of no game: the migration refuses it
            game_id=int(game_id),
            seq=int(seq),
            kind=str(kind),
            actor_id=actor,
            text=str(text),
            rolls=_rolls(rolls),
            roll_index=int(roll_index),
            created_at=str(created_at),
        )
        previous[int(game_id)] = digest
        out.append((digest, int(game_id), int(seq)))
    return out


def _rolls(text: str) -> tuple[Roll, ...]:
    return tuple((int(s), int(v)) for s, v in json.loads(text))


def previous_digest(row: GameRow | None, seq: int) -> str:
    """What entry ``seq`` of the game ``row`` (as the store holds it in the appending
    transaction) chains from: the head after ``seq - 1`` entries. An entry out of order,
    or for no game, gets ``''``: the store's triggers refuse it anyway."""
    if row is None or seq != row.log_count + 1:
        return ""
    if row.log_count == 0:
        return game_root(row)
    return row.log_head or ""
