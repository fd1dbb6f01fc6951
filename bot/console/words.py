"""What the console says, apart from the game loop (``bot.console.play``): the command
that runs ``chessgarden`` as this process was run, the text board cut into the board,
its legend and the lost pieces, the line of what an action changed, the computer named
in statuses, when a move can be taken back, and a record's extra tags.

Nothing here names a variant: what differs comes from the rules object
(``variants.rules(key)``: ``title``, ``dice_rolled``, ``rolls_every_turn``, the pieces).
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import variants

SCRIPT = "chessgarden"
LOST = "Lost: "


# ----- hints that run as shown ------------------------------------------------------


def program(argv0: str | None = None, executable: str | None = None) -> str:
    """The command that runs ``chessgarden`` the way this process was started, so that a
    printed hint runs as shown: ``chessgarden`` when that name on the ``PATH`` is this
    very script, its full path when it is not (a venv that is not activated), and
    ``PYTHON -m bot.cli`` when the process was started with ``python -m``."""
    argv0 = sys.argv[0] if argv0 is None else argv0
    executable = sys.executable if executable is None else executable
    name = os.path.basename(argv0)
    if name == SCRIPT or name.startswith(SCRIPT + "."):  # the installed script
        found = shutil.which(SCRIPT)
        if found is not None and _same_file(found, argv0):
            return SCRIPT
        return shlex.quote(os.path.abspath(argv0))
    return f"{shlex.quote(executable or 'python3')} -m bot.cli"


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def db_words(db: str | None) -> str:
    return f" --db {shlex.quote(db)}" if db else ""


# ----- the text board ----------------------------------------------------------------


@dataclass(frozen=True)
class BoardText:
    """``variants.text_board`` cut in three: the board (its rows, file letters and
    special-square marks), the legend under it, and the line of lost pieces ('' if none)."""

    board: tuple[str, ...]
    legend: tuple[str, ...]
    lost: str


def split_board(text: str) -> BoardText:
    """The board ends at its first empty line; the legend follows, then the lost
    pieces (``Lost: White N P, Black q``) when there are any."""
    board, _, rest = text.partition("\n\n")
    legend = [line for line in rest.splitlines() if line.strip()]
    lost = legend.pop() if legend and legend[-1].startswith(LOST) else ""
    return BoardText(
        tuple(line for line in board.splitlines() if line.strip()), tuple(legend), lost
    )


def lost_pieces(line: str) -> Counter[tuple[str, str]]:
    """``Lost: White N P, Black q`` -> {(white, N): 1, (white, P): 1, (black, Q): 1}."""
    found: Counter[tuple[str, str]] = Counter()
    if not line.startswith(LOST):
        return found
    for part in line[len(LOST) :].split(","):
        side, *letters = part.split()
        for letter in letters:
            found[(side.lower(), letter.upper())] += 1
    return found


def taken_words(
    variant: str,
    before: Counter[tuple[str, str]],
    after: Counter[tuple[str, str]],
    owner: dict[str, str],
) -> str:
    """``, taking Black's Knight`` for the pieces lost by the action ('' if none).
    ``owner`` names each side's pieces in the possessive ("Black's", "your")."""
    rules = variants.rules(variant)
    taken = []
    for (side, letter), count in sorted((after - before).items()):
        kind = rules.by_letter.get(letter)
        name = kind.name if kind is not None else letter
        taken += [f"{owner[side]} {name}"] * count
    return f", taking {_either(taken, 'and')}" if taken else ""


def _either(words: Sequence[str], joiner: str = "or") -> str:
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + f" {joiner} " + words[-1]


# ----- the computer named ---------------------------------------------------------------


def computer_name(level: int | None) -> str:
    return f"the computer (level {level})"


def capitalized(text: str) -> str:
    return text[:1].upper() + text[1:]


def named_line(line: str, colour: str, name: str, possessive: str) -> str:
    """A status line about ``colour`` that begins with the side's name, said of
    ``name`` instead: "Black to move [2 4]: ..." -> "The computer (level 2) to move
    [2 4]: ...", "Black's Tquarc stands on g8" -> "The computer's Tquarc stands on g8"."""
    side = colour.capitalize()
    if line.startswith(side + "'s "):
        return capitalized(possessive) + line[len(side) + 2 :]
    if line.startswith(side + " "):
        return capitalized(name) + line[len(side) :]
    return line


# ----- taking a move back ---------------------------------------------------------------

TAKE_BACK_RULE = "a move can be taken back only while no die has been rolled since it"


def undo_refusal(variant: str) -> str | None:
    """Why ``undo`` can never work in this variant, at once (a die is rolled at every
    turn); ``None`` when it may."""
    rules = variants.rules(variant)
    if not rules.rolls_every_turn:
        return None
    return (
        f"in {rules.title} dice are rolled {rules.dice_rolled}, so no move can be taken "
        f"back: {TAKE_BACK_RULE}"
    )


def undo_here(variant: str) -> str:
    """When ``undo`` works in this variant, in one sentence."""
    rules = variants.rules(variant)
    if not rules.dice_rolled:
        return f"Undo always works in {rules.title}: it has no dice."
    if rules.rolls_every_turn:
        return f"Undo never works in {rules.title}: dice are rolled {rules.dice_rolled}."
    return (
        f"Undo works in {rules.title} until a die is rolled after the move: dice are "
        f"rolled {rules.dice_rolled}."
    )


def undo_everywhere() -> str:
    """Which variants allow ``undo``, in one sentence, from what each says of its dice."""
    always, until, never = [], [], []
    for key in variants.names():
        rules = variants.rules(key)
        if not rules.dice_rolled:
            always.append(rules.title)
        elif rules.rolls_every_turn:
            never.append(rules.title)
        else:
            until.append(rules.title)
    parts = []
    if always:
        parts.append(f"always in {_either(always, 'and')} (no dice)")
    if until:
        parts.append(f"in {_either(until, 'and')} until a die is rolled after the move")
    if never:
        parts.append(f"never in {_either(never, 'and')} (dice every turn)")
    return f"Undo works {'; '.join(parts)}."


# ----- records ----------------------------------------------------------------------------


def tagged(record: str, tags: Sequence[tuple[str, str]]) -> str:
    """The record with more tags after its own (a replay ignores them)."""
    if not record or not tags:
        return record
    lines = record.split("\n")
    count = 0
    while count < len(lines) and lines[count].startswith("[") and lines[count].endswith('"]'):
        count += 1
    extra = [f'[{name} "{_escaped(value)}"]' for name, value in tags]
    return "\n".join([*lines[:count], *extra, *lines[count:]])


def _escaped(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')


def player_tags(computer: str | None, level: int | None) -> list[tuple[str, str]]:
    """``[White "..."]`` and ``[Black "..."]`` for a game against the computer: which
    side it played, and at which level."""
    if computer is None:
        return []
    names = {computer: computer_name(level), other_side(computer): "console player"}
    return [("White", names["white"]), ("Black", names["black"])]


def other_side(colour: str) -> str:
    return "black" if colour == "white" else "white"
