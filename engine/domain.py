"""The rules as the search sees them: decision nodes, chance, results.

This is the only module of ``engine`` that drives the rules, and it uses only the
names of contract C10: ``legal_moves``, ``make``, ``start_turn``, ``outcome``,
``is_terminal``, ``repetition_key``, ``chances`` and the position's fields.

A *node* is a position where a side chooses an action: the dice it rolls at the
start of its turn have been rolled. An action leads to a list of
``(probability, node)``: the dice rolled inside the action (the Tquarc's d4, a
Jepps ``reroll``) and then at the start of the next turn (Guardener's 2d4, the
Jepps setup dice), each enumerated through ``Variant.chances``. A game that ends
on the way gives a terminal node. The game's own sequence is kept: ``outcome``
after the action, then the roll, then ``outcome`` again (``variants.Game``).

Children that differ only in the order of the dice are merged (their
probabilities add up): in every variant here the order never changes what may
be done (Guardener: either die's permission, a double; Jepps Random: the two
offers, the parity), so Guardener's 16 ordered rolls make 10 children and two
d6 make 21. A test holds the legal actions equal under swapped dice.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any

import variants
from variants.base import Result
from variants.position import Move, Position

from .evaluate import Evaluator, evaluator

WIN = 1.0
MATE_STEP = 1e-4  # a win n plies away is worth 1 - n * MATE_STEP
_UNKNOWN: Any = object()


class Node:
    """A decision node: the position, the repetition keys of the game up to it,
    and what has been learnt about it (its result, its actions, its key)."""

    __slots__ = ("pos", "keys", "result", "moves", "key", "static")

    def __init__(
        self, pos: Position, keys: tuple[Any, ...], result: Result | None = _UNKNOWN
    ) -> None:
        self.pos = pos
        self.keys = keys
        self.result = result
        self.moves: list[Move] | None = None
        self.key: Hashable | None = None
        self.static: float | None = None


def scripted(rolls: Sequence[int]) -> Callable[[int], int]:
    """A roller that returns ``rolls`` in order (a Chance's values)."""
    it = iter(rolls)

    def roll(sides: int) -> int:
        return next(it)

    return roll


def _no_roll(sides: int) -> int:
    raise AssertionError("a die was rolled where the chance hook said none would be")


class VariantDomain:
    """Decision nodes, chance children, results and scores of one variant."""

    def __init__(self, key: str, ev: Evaluator | None = None) -> None:
        self.rules = variants.rules(key)
        self.evaluator = ev or evaluator(key)
        self.values = self.evaluator.values
        self.royal = self.evaluator.royal
        self.sorted_dice = True

    # ----- nodes -------------------------------------------------------------

    def root(self, game: variants.Game) -> Node:
        if game.result is not None:
            raise ValueError(f"the game is over: {game.result}")
        return Node(game.pos.copy(), tuple(game.keys))

    def side(self, node: Node) -> int:
        return node.pos.turn

    def key(self, node: Node) -> Hashable:
        if node.key is None:
            node.key = self.rules.repetition_key(node.pos)
        return node.key

    def moves(self, node: Node) -> list[Move]:
        if node.moves is None:
            node.moves = self.rules.legal_moves(node.pos)
        return node.moves

    # ----- results -------------------------------------------------------------

    def terminal(self, node: Node, ply: int, exact: bool, horizon: bool = False) -> float | None:
        """The value of a finished game for the side to move (a win sooner is worth
        more), or None. ``exact`` asks the rules (``outcome``, which generates the
        legal actions itself); otherwise (quiescence) only ``is_terminal`` and a
        lack of legal actions: captures never repeat a position, and the clocks
        of the draw rules do not run out inside a capture sequence. At the
        ``horizon`` only ``is_terminal`` is asked (no actions are generated)."""
        result = node.result
        if result is _UNKNOWN:
            rules = self.rules
            pos = node.pos
            if exact or rules.is_terminal(pos):
                result = rules.outcome(pos, node.keys)
            elif horizon:
                return None
            elif not self.moves(node):
                result = rules.outcome(pos, node.keys)
                if result is None:
                    result = variants.Result(None, "no action")
            else:
                return None
            node.result = result
        if result is None:
            if exact and not self.moves(node):
                return 0.0
            return None
        return self.result_value(result, node.pos.turn, ply)

    @staticmethod
    def result_value(result: Result, turn: int, ply: int) -> float:
        if result.winner is None:
            return 0.0
        won = (result.winner == "white") == (turn == 0)
        value = WIN - ply * MATE_STEP
        return value if won else -value

    def evaluate(self, node: Node) -> float:
        if node.static is None:
            node.static = self.evaluator.evaluate(node.pos)
        return node.static

    # ----- actions ---------------------------------------------------------------

    def children(self, node: Node, move: Move) -> list[tuple[float, Node]]:
        """Every way ``move`` can turn out: (probability, next decision node)."""
        rules = self.rules
        pos = node.pos
        inner = rules.chances(pos, move)
        if not inner:
            return self._after(node, pos, move, (), 1.0)
        out: list[tuple[float, Node]] = []
        for c in inner:
            out.extend(self._after(node, pos, move, c.rolls, float(c.probability)))
        return out

    def _after(
        self, node: Node, pos: Position, move: Move, rolls: tuple[int, ...], p: float
    ) -> list[tuple[float, Node]]:
        rules = self.rules
        new = rules.make(pos, move, scripted(rolls) if rolls else _no_roll)
        keys = node.keys + (rules.repetition_key(new),)
        start = rules.chances(new)
        if not start:
            return [(p, Node(new, keys))]
        ended = rules.outcome(new, keys)
        if ended is not None:
            return [(p, Node(new, keys, ended))]
        # Rolls that differ only in the order of the last two dice are one child.
        merged: dict[tuple[int, ...], list[Any]] = {}
        for c in start:
            r = c.rolls
            k = r[:-2] + tuple(sorted(r[-2:])) if self.sorted_dice else r
            entry = merged.get(k)
            if entry is None:
                merged[k] = [float(c.probability), k]
            else:
                entry[0] += float(c.probability)
        # The evaluation does not read the dice: children that differ only in the
        # dice share one static score.
        static = self.evaluator.evaluate(new) if self.same_board(start) else None
        out: list[tuple[float, Node]] = []
        for q, k in merged.values():
            rolled = new.copy()
            rules.start_turn(rolled, scripted(k))
            child = Node(rolled, keys)
            if static is not None and rolled.turn == new.turn:
                child.static = static
            out.append((p * q, child))
        return out

    def same_board(self, start: Sequence[Any]) -> bool:
        """Do the start-of-turn rolls only set the dice (Guardener), rather than
        also placing pieces (Jepps Random's mediator)?"""
        return all(len(c.rolls) == 2 for c in start)

    # ----- move facts ---------------------------------------------------------------

    def victim(self, node: Node, move: Move) -> str | None:
        """The kind of piece ``move`` captures, if any."""
        if move.flag == "ep":
            return "P"
        if move.to < 0 or move.flag in ("castle", "teleport", "drop", "relocate", "place"):
            return None
        target = node.pos.board[move.to]
        if target is None or target.color == node.pos.turn:
            return None
        return target.kind

    def worth(self, kind: str | None) -> float:
        if kind is None:
            return 0.0
        if kind == self.royal:
            return 100.0
        return self.values.get(kind, 1.0)

    def is_noisy(self, node: Node, move: Move) -> bool:
        """Captures and promotions: what quiescence searches."""
        return (
            bool(move.promo and move.flag not in ("place", "drop"))
            or self.victim(node, move) is not None
        )

    def mvv_lva(self, node: Node, move: Move) -> float:
        """Most valuable victim, least valuable attacker (larger first)."""
        gain = self.worth(self.victim(node, move))
        if move.promo and move.flag not in ("place", "drop"):
            gain += self.worth(move.promo) - 1.0
        mover = node.pos.board[move.frm] if move.frm >= 0 else None
        cost = self.worth(mover.kind) if mover is not None and mover.kind != self.royal else 0.5
        return 10.0 * gain - cost


__all__ = ["MATE_STEP", "Node", "VariantDomain", "WIN", "scripted"]
