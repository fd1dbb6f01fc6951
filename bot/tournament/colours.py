"""Colours in a Swiss: which colours a player may have next, which one they would like,
and who gets White when two players meet.

The rules, counted over played games only (byes and forfeits have no colour):

- Nobody has the same colour three times in a row.
- Nobody's colour difference (games with White minus games with Black) goes above 2
  either way.

A player's preference for the next game, strongest first:

- absolute: only one colour keeps both rules;
- strong: the colour that evens a difference of one;
- mild: colours even, the other colour than last time;
- none: no game played yet.

When two players meet, White goes to (as FIDE's Dutch rules allocate colours):

1. the only allocation that keeps both players within the rules, if just one does;
2. both players' preferences, if they agree (or one has none);
3. the stronger preference;
4. with equal preferences, the alternation from the last round in which the two had
   different colours (each takes the colour the other had then);
5. the higher-ranked player's preference;
6. with no preferences at all (the first round), the higher-ranked player has White
   on odd boards and Black on even boards.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.tournament.model import BLACK, WHITE

NONE, MILD, STRONG, ABSOLUTE = 0, 1, 2, 3

# What an unmet preference costs in the pairing's colour tier.
UNMET_COST = {NONE: 0, MILD: 1, STRONG: 2, ABSOLUTE: 2}


def other(colour: str) -> str:
    return BLACK if colour == WHITE else WHITE


def difference(colours: Sequence[str]) -> int:
    """Games with White minus games with Black."""
    return sum(1 if c == WHITE else -1 for c in colours)


def allowed_colours(colours: Sequence[str]) -> tuple[str, ...]:
    """The colours a player may have next under the two rules (White first)."""
    diff = difference(colours)
    allowed = []
    for colour, step in ((WHITE, 1), (BLACK, -1)):
        if abs(diff + step) > 2:
            continue
        if len(colours) >= 2 and colours[-1] == colours[-2] == colour:
            continue
        allowed.append(colour)
    return tuple(allowed)


def preference(colours: Sequence[str]) -> tuple[str | None, int]:
    """The colour a player would like next, and how strongly (``NONE`` .. ``ABSOLUTE``)."""
    allowed = allowed_colours(colours)
    if len(allowed) == 1:
        return allowed[0], ABSOLUTE
    diff = difference(colours)
    if diff > 0:
        return BLACK, STRONG
    if diff < 0:
        return WHITE, STRONG
    if colours:
        return other(colours[-1]), MILD
    return None, NONE


def is_legal(first: Sequence[str], second: Sequence[str], first_white: bool) -> bool:
    """Whether ``first`` may have White (or Black) against ``second`` under the rules."""
    a, b = (WHITE, BLACK) if first_white else (BLACK, WHITE)
    return a in allowed_colours(first) and b in allowed_colours(second)


def can_meet(first: Sequence[str], second: Sequence[str]) -> bool:
    """Whether some allocation of colours keeps both players within the rules."""
    return is_legal(first, second, True) or is_legal(first, second, False)


def allocate(higher: Sequence[str], lower: Sequence[str], board: int = 1) -> bool:
    """Whether the higher-ranked of two players has White (rules 1-6 above).
    ``higher`` and ``lower`` are the two players' colours so far."""
    legal = [white for white in (True, False) if is_legal(higher, lower, white)]
    if len(legal) == 1:
        return legal[0]
    want_h, strength_h = preference(higher)
    want_l, strength_l = preference(lower)
    if want_h is not None and (want_l is None or want_l != want_h):
        return want_h == WHITE
    if want_h is None and want_l is not None:
        return want_l == BLACK
    if want_h is not None and strength_h != strength_l:
        stronger = want_h if strength_h > strength_l else other(want_l or WHITE)
        return stronger == WHITE
    # Equal preferences for the same colour (or none): alternate from the last round
    # in which the two had different colours, counting back from their last games.
    for h, lo in zip(reversed(higher), reversed(lower), strict=False):
        if h != lo:
            return h == BLACK
    if want_h is not None:
        return want_h == WHITE
    return board % 2 == 1


def unmet_cost(higher: Sequence[str], lower: Sequence[str], higher_white: bool) -> int:
    """What the allocation leaves unmet: the strengths of the preferences it denies."""
    cost = 0
    for colours, white in ((higher, higher_white), (lower, not higher_white)):
        want, strength = preference(colours)
        if want is not None and want != (WHITE if white else BLACK):
            cost += UNMET_COST[strength]
    return cost
