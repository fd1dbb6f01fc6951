"""The position in words: who acts, what the dice allow, what is pending.

``describe(game)`` is what every front end shows (console line, Discord embed,
the image's status strip), so they all say the same thing. The core here
assembles the words; each variant says what is special about its turn through
one hook, ``Variant.turn_facts(pos, legal)`` (contract C1 in the project notes).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .sentence import N_, said, word

if TYPE_CHECKING:
    from .base import Result
    from .game import Game

# The image's status strip holds this many characters (its words shrink to fit; at 40 a
# Guardener caption in words, "Knight, or a capture by a pawn, King or Guardener", was cut).
SHORT_LIMIT = 60
SEPARATOR = " · "
# The short form in check (the image's strip), as message ids: "Check · Knight or Rook",
# and "White to move · check" when the variant has nothing shorter to say.
CHECK_FIRST = N_("Check · {short}")
CHECK_LAST = N_("{short} · check")
ORDINALS = {
    1: N_("first"),
    2: N_("second"),
    3: N_("third"),
    4: N_("fourth"),
    5: N_("fifth"),
    6: N_("sixth"),
}


@dataclass(frozen=True)
class Status:
    """A position in words (contract C1)."""

    actor: str | None  # 'white' | 'black' who acts now; None when the game is over
    phase: str  # 'setup' (Jepps placement/mediator) | 'play' | 'over'
    dice: tuple[int, ...] | None  # the dice showing for the actor (== game.dice)
    dice_sides: int  # sides of those dice: 4 (Guardener, Tquarc), 6 (Jepps), 0 when none
    allows: str  # what the dice/turn allow, in words; '' when nothing special
    pending: str  # '' or e.g. "Double x2: teleport to T3 or resurrect the Guardener"
    check: bool  # the actor's King is in check
    headline: str  # one line: "White to move [2 4]: Knight or Rook may move or capture"
    short: str  # <= SHORT_LIMIT characters, without the dice values: "Knight or Rook"
    lines: tuple[str, ...]  # the full explanation, one fact per line, headline first


@dataclass(frozen=True)
class TurnFacts:
    """What a variant says about the turn of the side to act (``Variant.turn_facts``)."""

    phase: str = "play"  # 'setup' or 'play'
    verb: str = N_("move")  # "White to <verb>" (``Said`` where it has values)
    allows: str = ""
    short: str = ""  # a compact form of ``allows`` (clipped to SHORT_LIMIT by describe)
    pending: str = ""
    lines: tuple[str, ...] = ()


def clip(text: str, limit: int = SHORT_LIMIT) -> str:
    """``text`` cut to ``limit`` characters, ending in '...' when cut."""
    return text if len(text) <= limit else text[: limit - 3].rstrip(" ·,;:") + "..."


def dice_text(dice: Sequence[int] | None) -> str:
    """``[2 4]``, or '' when no dice are showing."""
    return "[" + " ".join(str(v) for v in dice) + "]" if dice else ""


def either(words: Iterable[str], joiner: str = "or") -> str:
    """'a', 'a or b', 'a, b or c' (``joiner`` 'and': 'a, b and c'). ``Said`` (each word
    too, where it is), so that a front end can say the list in another language."""
    items = [w for w in words if w]
    if len(items) <= 1:
        return items[0] if items else ""
    head = _listed(items[:-1])
    if joiner == "and":
        return said("{first} and {last}", first=head, last=items[-1])
    return said("{first} or {last}", first=head, last=items[-1])


def joined(parts: Iterable[str]) -> str:
    """'a · b · c': the short forms of the image's strip (``Said``, each part too where
    it is)."""
    out = ""
    for part in parts:
        if part:
            out = said("{first} · {last}", first=out, last=part) if out else part
    return out


def clauses(parts: Iterable[str]) -> str:
    """'a; b; c': clauses of one sentence (``Said``, each clause too where it is)."""
    out = ""
    for part in parts:
        if part:
            out = said("{first}; {last}", first=out, last=part) if out else part
    return out


def _listed(items: Sequence[str]) -> str:
    """'a, b, c' (a list's head before its 'or')."""
    if len(items) == 1:
        return items[0]
    return said("{first}, {last}", first=_listed(items[:-1]), last=items[-1])


def result_words(result: Result) -> str:
    """'white wins (checkmate)', 'draw (stalemate)': ``str(result)``, as ``Said``."""
    reason = word(result.reason)
    if result.winner is None:
        return said("draw ({reason})", reason=reason)
    return said("{colour} wins ({reason})", colour=word(result.winner), reason=reason)


def side_word(color: str) -> str:
    """'White' or 'Black' (``Said``) for 'white' or 'black'."""
    return word(N_("White") if color == "white" else N_("Black"))


def describe(game: Game) -> Status:
    """The position of ``game`` in words (contract C1)."""
    rules = game.rules
    pos = game.pos
    dice = game.dice
    sides = rules.die_sides(pos) if dice else 0
    if game.result is not None:
        result = game.result
        reason = word(result.reason)
        if result.winner:
            headline = said(
                "Game over: {side} wins ({reason})", side=side_word(result.winner), reason=reason
            )
            short: str = said(
                "{side} wins · {reason}", side=side_word(result.winner), reason=reason
            )
        else:
            headline = said("Game over: a draw ({reason})", reason=reason)
            short = said("Draw · {reason}", reason=reason)
        return Status(
            actor=None,
            phase="over",
            dice=dice,
            dice_sides=sides,
            allows="",
            pending="",
            check=False,
            headline=headline,
            short=clip(short),
            lines=(headline,),
        )
    moves = game.legal_move_list()
    facts = rules.turn_facts(pos, moves)
    check = game.checked_king() >= 0
    headline = said("{side} to {verb}", side=side_word(game.turn), verb=word(facts.verb))
    if dice:
        headline = said("{status} {dice}", status=headline, dice=dice_text(dice))
    if check:
        headline = said("{status}, in check", status=headline)
    if facts.allows:
        headline = said("{status}: {allows}", status=headline, allows=facts.allows)
    short = facts.short or said(
        "{side} to {verb}", side=side_word(game.turn), verb=word(facts.verb)
    )
    if check:
        short = said(CHECK_FIRST if facts.short else CHECK_LAST, short=short)
    lines: list[str] = [headline]
    if check:
        lines.append(
            said(
                "{side}'s King is in check: the move must end the check.", side=side_word(game.turn)
            )
        )
    if facts.pending:
        lines.append(said("{pending}.", pending=facts.pending))
    lines.extend(facts.lines)
    return Status(
        actor=game.turn,
        phase=facts.phase,
        dice=dice,
        dice_sides=sides,
        allows=facts.allows,
        pending=facts.pending,
        check=check,
        headline=headline,
        short=clip(short),
        lines=tuple(dict.fromkeys(lines)),
    )
