"""Cheap action lists for the search: the legal actions, and the captures and
promotions quiescence needs, without formatting anything.

- ``MoveSource`` (every variant): ``rules.legal_moves``; the noisy actions come
  from the legal list when it is known, else from ``rules.legal_moves_to`` on the
  squares a capture or a promotion can end on (generated for those squares only).
- ``GuardenerMoves``: in Guardener the dice change only which of a board's
  candidate moves are permitted (RULES.md section 1, "Dice"). A chance node has
  ten dice outcomes on one board, so the candidates are generated once per board
  and each move carries the set of die values that permit it: a free move (King
  and Guardener steps, home-half pawn steps) any value, castling a 4, any other
  move the values of its piece (``variants.guardener.PERMISSION``; the Queen none).
  Two different values permit the union; a double permits every candidate and
  adds the ``reroll`` (a Double x2's teleports come from ``rules.legal_moves``).
  Where the pass could be legal (only King moves are left) the rules decide.
  A test holds these lists equal to ``rules.legal_moves`` for every roll.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable

import variants
from variants.position import Move, Position

# Cleared when it holds more boards than this (a search visits tens of thousands).
BOARD_CACHE = 200_000

# Where generating the moves to the capture and promotion squares only
# (``legal_moves_to``) is cheaper than the whole legal list, measured per variant on
# positions of random games (microseconds per position, restricted / whole list):
# Stone Garden 64 / 209, Jepps Random 126 / 225; not in Tquarchess 168 / 134 and
# King's Guard 92 / 46 (their own special moves are made in full either way).
RESTRICTED_NOISY = frozenset({"stone_garden", "jepps_random"})


class MoveSource:
    """Legal and noisy actions of one variant's positions."""

    def __init__(self, rules: variants.Variant, worth: Callable[[str | None], float]) -> None:
        self.rules = rules
        self.worth = worth
        self.royal = rules.royal
        self.restricted = rules.key in RESTRICTED_NOISY
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


class GuardenerMoves(MoveSource):
    """Guardener: a board's candidates once, filtered by the dice (see the module)."""

    def __init__(self, rules: variants.Variant, worth: Callable[[str | None], float]) -> None:
        super().__init__(rules, worth)
        self.restricted = True  # its noisy list comes from the board's, never the legal one
        from variants import guardener as gr

        self.gr = gr
        self.all_values = sum(1 << v for v in range(1, gr.DIE + 1))
        self.kind_mask: dict[str, int] = {}
        for kind in rules.types:
            self.kind_mask[kind] = sum(
                1 << v for v, kinds in gr.PERMISSION.items() if kind in kinds
            )
        self.castle_mask = 1 << gr.CASTLING_DIE
        # board key -> (candidates with their masks, noisy ones with their masks)
        self.boards: dict[Hashable, tuple[list[tuple[Move, int]], list[tuple[Move, int]]]] = {}

    def clear(self) -> None:
        self.boards.clear()

    def board(self, pos: Position) -> tuple[list[tuple[Move, int]], list[tuple[Move, int]]]:
        extra = pos.extra
        key = (pos.zkey, pos.turn, pos.castling, pos.ep, extra["moved"])
        entry = self.boards.get(key)
        if entry is None:
            rules = self.rules
            plain = pos.copy()
            plain.dice = (1, 2)  # not a double: no re-roll, no teleport among the specials
            plain.extra["rerolled"] = False
            board = pos.board
            cands: list[tuple[Move, int]] = []
            for m in rules.candidate_moves(plain):
                if m.flag == "castle":
                    mask = self.castle_mask
                else:
                    p = board[m.frm]
                    assert p is not None
                    if not rules.is_capture(pos, m) and rules.is_free(p, m):  # type: ignore[attr-defined]
                        mask = self.all_values
                    else:
                        mask = self.kind_mask[p.kind]
                cands.append((m, mask))
            noisy = [(m, mask) for m, mask in cands if self.is_noisy(pos, m)]
            noisy.sort(key=lambda e: -self.mvv_lva(pos, e[0]))
            entry = (cands, noisy)
            if len(self.boards) >= BOARD_CACHE:
                self.boards.clear()
            self.boards[key] = entry
        return entry

    def legal(self, pos: Position) -> list[Move]:
        dice = pos.dice
        if dice is None or len(dice) != 2:
            return self.rules.legal_moves(pos)
        a, b = dice
        extra = pos.extra
        if a == b:
            if extra["rerolled"]:
                return self.rules.legal_moves(pos)  # Double x2: teleports and resurrections
            out = [m for m, _ in self.board(pos)[0]]
            out.append(Move(-1, -1, self.gr.REROLL))
        else:
            bits = (1 << a) | (1 << b)
            out = [m for m, mask in self.board(pos)[0] if mask & bits]
        if not extra["passed"][pos.turn]:
            royal = self.royal
            board = pos.board
            if all(m.frm < 0 or board[m.frm].kind == royal for m in out):  # type: ignore[union-attr]
                return self.rules.legal_moves(pos)  # the pass may be legal: the rules decide
        return out

    def has_move(self, pos: Position) -> bool:
        if not pos.extra["passed"][pos.turn]:
            return True  # with nothing else, the pass (RULES.md section 1)
        return bool(self.legal(pos))

    def noisy(self, pos: Position, legal: list[Move] | None) -> list[Move]:
        dice = pos.dice
        if dice is None or len(dice) != 2:
            return super().noisy(pos, legal)
        a, b = dice
        noisy = self.board(pos)[1]
        if a == b:
            return [m for m, _ in noisy]
        bits = (1 << a) | (1 << b)
        return [m for m, mask in noisy if mask & bits]


def move_source(rules: variants.Variant, worth: Callable[[str | None], float]) -> MoveSource:
    if rules.key == "guardener":
        return GuardenerMoves(rules, worth)
    return MoveSource(rules, worth)


__all__ = ["GuardenerMoves", "MoveSource", "move_source"]
