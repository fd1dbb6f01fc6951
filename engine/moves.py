"""Cheap action lists for the search: the legal actions, and the captures and
promotions quiescence needs, without formatting anything.

- ``MoveSource`` (every variant): ``rules.legal_moves``; the noisy actions come
  from the legal list when it is known, else from ``rules.legal_moves_to`` on the
  squares a capture or a promotion can end on (generated for those squares only).
- ``FilteredMoves``: where the dice change only which of a board's candidate
  moves are permitted (a variant with ``dice_filter``: Guardener, RULES.md
  section 1, "Dice"), a chance node has many dice outcomes on one board, so the
  candidates are generated once per board and each move carries the set of die
  values that permit it (``filter_candidates``). A roll permits the candidates
  whose set meets its values (``filter_bits``), plus what it adds
  (``filter_extras``: a double's ``reroll``); where that list may be incomplete
  (``filter_incomplete``: the pass) or the roll is not a plain filter (a Double
  x2's teleports), the rules decide. A test holds these lists equal to
  ``rules.legal_moves`` for every roll.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable

import variants
from variants.position import Move, Position

# Cleared when it holds more boards than this (a search visits tens of thousands).
BOARD_CACHE = 200_000

# Where generating the moves to the capture and promotion squares only
# (``legal_moves_to``) is cheaper than the whole legal list, a variant says so
# (``SearchHints.narrow_noisy``), measured on positions of random games (microseconds
# per position, restricted / whole list): Stone Garden 64 / 209, Jepps Random 126 / 225;
# not in Tquarchess 168 / 134 and King's Guard 92 / 46 (their own special moves are
# made in full either way).


class MoveSource:
    """Legal and noisy actions of one variant's positions."""

    def __init__(self, rules: variants.Variant, worth: Callable[[str | None], float]) -> None:
        self.rules = rules
        self.worth = worth
        self.royal = rules.royal
        self.restricted = rules.search.narrow_noisy
        g = rules.geometry
        # The squares a promotion (or a Knight's resurrection) ends on: the two far
        # ranks (Guardener's promotion rank is in front of its terrace rank).
        top, bottom = g.last_rank_label, g.first_rank
        far = {0: (top, top - 1), 1: (bottom, bottom + 1)}
        self.far = {
            c: sum(1 << s for r in ranks for s in g.rank_squares(r)) for c, ranks in far.items()
        }

    def clear(self) -> None:
        """Forget cached boards (a new search)."""

    def legal(self, pos: Position) -> list[Move]:
        return self.rules.legal_moves(pos)

    def has_move(self, pos: Position) -> bool:
        return self.rules.has_legal_move(pos)

    def noisy(self, pos: Position, legal: list[Move] | None) -> list[Move]:
        """Captures and promotions, most valuable victim first. ``legal``: the legal
        list if known (``None``: generated as the variant finds cheaper)."""
        if legal is None and not self.restricted:
            legal = self.rules.legal_moves(pos)
        if legal is None:
            targets = pos.occ[1 - pos.turn] | self.far[pos.turn]
            if pos.ep >= 0:
                targets |= 1 << pos.ep
            legal = self.rules.legal_moves_to(pos, targets, castles=False)
        out = [m for m in legal if self.is_noisy(pos, m)]
        if len(out) > 1:
            out.sort(key=lambda m: -self.mvv_lva(pos, m))
        return out

    # ----- move facts ---------------------------------------------------------

    def victim(self, pos: Position, move: Move) -> str | None:
        """The kind of piece ``move`` captures, if any."""
        if move.flag == "ep":
            return "P"
        if move.to < 0 or move.flag in ("castle", "teleport", "drop", "relocate", "place"):
            return None
        target = pos.board[move.to]
        if target is None or target.color == pos.turn:
            return None
        return target.kind

    def is_noisy(self, pos: Position, move: Move) -> bool:
        return (
            bool(move.promo and move.flag not in ("place", "drop"))
            or self.victim(pos, move) is not None
        )

    def mvv_lva(self, pos: Position, move: Move) -> float:
        """Most valuable victim, least valuable attacker (larger first)."""
        worth = self.worth
        gain = worth(self.victim(pos, move))
        if move.promo and move.flag not in ("place", "drop"):
            gain += worth(move.promo) - 1.0
        mover = pos.board[move.frm] if move.frm >= 0 else None
        cost = worth(mover.kind) if mover is not None and mover.kind != self.royal else 0.5
        return 10.0 * gain - cost


class FilteredMoves(MoveSource):
    """A variant whose dice only filter a board's candidates (``dice_filter``): the
    candidates once per board, with their die values, then filtered per roll."""

    def __init__(self, rules: variants.Variant, worth: Callable[[str | None], float]) -> None:
        super().__init__(rules, worth)
        self.restricted = True  # its noisy list comes from the board's, never the legal one
        # board key -> (candidates with their masks, noisy ones with their masks)
        self.boards: dict[Hashable, tuple[list[tuple[Move, int]], list[tuple[Move, int]]]] = {}

    def clear(self) -> None:
        self.boards.clear()

    def board(self, pos: Position) -> tuple[list[tuple[Move, int]], list[tuple[Move, int]]]:
        key = self.rules.filter_key(pos)
        entry = self.boards.get(key)
        if entry is None:
            cands = self.rules.filter_candidates(pos)
            noisy = [(m, mask) for m, mask in cands if self.is_noisy(pos, m)]
            noisy.sort(key=lambda e: -self.mvv_lva(pos, e[0]))
            entry = (cands, noisy)
            if len(self.boards) >= BOARD_CACHE:
                self.boards.clear()
            self.boards[key] = entry
        return entry

    def legal(self, pos: Position) -> list[Move]:
        rules = self.rules
        bits = rules.filter_bits(pos)
        if not bits:
            return rules.legal_moves(pos)
        out = [m for m, mask in self.board(pos)[0] if mask & bits]
        out.extend(rules.filter_extras(pos))
        if rules.filter_incomplete(pos, out):
            return rules.legal_moves(pos)  # the rules decide (a pass may be legal)
        return out

    def has_move(self, pos: Position) -> bool:
        return self.rules.has_move_for_sure(pos) or bool(self.legal(pos))

    def noisy(self, pos: Position, legal: list[Move] | None) -> list[Move]:
        bits = self.rules.filter_bits(pos)
        if not bits:
            return super().noisy(pos, legal)
        return [m for m, mask in self.board(pos)[1] if mask & bits]


def move_source(rules: variants.Variant, worth: Callable[[str | None], float]) -> MoveSource:
    if rules.dice_filter:
        return FilteredMoves(rules, worth)
    return MoveSource(rules, worth)


__all__ = ["FilteredMoves", "MoveSource", "move_source"]
