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

from .evaluate import Evaluator, State, evaluator
from .moves import move_source

WIN = 1.0
MATE_STEP = 1e-4  # a win n plies away is worth 1 - n * MATE_STEP
_UNKNOWN: Any = object()


class Node:
    """A decision node: the position, the repetition keys of the game up to it,
    and what has been learnt about it (its result, its actions, its key)."""

    __slots__ = ("pos", "keys", "result", "moves", "key", "static", "noisy", "state")

    def __init__(
        self, pos: Position, keys: tuple[Any, ...], result: Result | None = _UNKNOWN
    ) -> None:
        self.pos = pos
        self.keys = keys
        self.result = result
        self.moves: list[Move] | None = None
        self.key: Hashable | None = None
        self.static: float | None = None
        self.noisy: list[Move] | None = None
        self.state: State | None = None  # the evaluator's material state


def scripted(rolls: Sequence[int]) -> Callable[[int], int]:
    """A roller that returns ``rolls`` in order (a Chance's values)."""
    it = iter(rolls)

    def roll(sides: int) -> int:
        return next(it)

    return roll


def dice_only(pos: Position, dice: tuple[int, ...]) -> Position:
    """``pos`` with ``dice`` showing, sharing everything else with ``pos`` (the
    search never changes a position in place: ``make`` returns a new one). What
    ``start_turn`` makes of a turn whose roll only sets the dice, without its cost."""
    new = _blank(Position)
    new.board = pos.board
    new.turn = pos.turn
    new.castling = pos.castling
    new.ep = pos.ep
    new.halfmove = pos.halfmove
    new.fullmove = pos.fullmove
    new.kings = pos.kings
    new.dice = dice
    new.extra = pos.extra
    new.occ = pos.occ
    new.bb = pos.bb
    new.zkey = pos.zkey
    new.lay = pos.lay
    new.danger = pos.danger
    return new


_blank = object.__new__


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
        self.source = move_source(self.rules, self.worth)
        self.has_check = self.rules.has_check
        # Chance tables as floats, merged by dice order: (key, move) -> [(p, rolls)]
        self._tables: dict[Hashable, list[tuple[float, tuple[int, ...]]]] = {}
        # Does ``outcome`` read the game's repetition keys (Guardener's does not)? Is the
        # start-of-turn table the same object every time (Guardener's 2d4)?
        hints = self.rules.search
        self.uses_history = hints.reads_history
        self.constant_chances = hints.constant_chances
        self._constant: tuple[Any, list[tuple[float, tuple[int, ...]]]] | None = None

    # ----- nodes -------------------------------------------------------------

    def root(self, game: variants.Game) -> Node:
        if game.result is not None:
            raise ValueError(f"the game is over: {game.result}")
        self.source.clear()
        if len(self._tables) > 50_000:
            self._tables.clear()
        return Node(game.pos.copy(), tuple(game.keys))

    def side(self, node: Node) -> int:
        return node.pos.turn

    def key(self, node: Node) -> Hashable:
        if node.key is None:
            node.key = self.rules.repetition_key(node.pos)
        return node.key

    def moves(self, node: Node) -> list[Move]:
        if node.moves is None:
            node.moves = self.source.legal(node.pos)
        return node.moves

    def in_check(self, node: Node) -> bool:
        """Is the side to move in check (variants with a check rule)?"""
        return self.has_check and self.rules.in_check(node.pos)

    def noisy(self, node: Node) -> list[Move]:
        """Captures and promotions, most valuable victim first (quiescence)."""
        if node.noisy is None:
            legal = node.moves
            if legal is None and not self.source.restricted:
                legal = self.moves(node)  # kept: the whole list is made anyway
            node.noisy = self.source.noisy(node.pos, legal)
        return node.noisy

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
            elif not (self.source.has_move(pos) if node.moves is None else node.moves):
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
            node.static = self.evaluator.evaluate(node.pos, self.state(node))
        return node.static

    def state(self, node: Node) -> State:
        if node.state is None:
            node.state = self.evaluator.state(node.pos)
        return node.state

    # ----- actions ---------------------------------------------------------------

    def children(self, node: Node, move: Move) -> list[tuple[float, Node]]:
        """Every way ``move`` can turn out: (probability, next decision node)."""
        pos = node.pos
        inner = self.table(pos, move, self.key(node))
        if not inner:
            return self._after(node, pos, move, (), 1.0)
        out: list[tuple[float, Node]] = []
        for p, rolls in inner:
            out.extend(self._after(node, pos, move, rolls, p))
        return out

    def table(
        self, pos: Position, move: Move | None, key: Hashable
    ) -> list[tuple[float, tuple[int, ...]]]:
        """``rules.chances(pos, move)`` as floats, cached by the position's key. At the
        start of a turn, rolls that differ only in the order of the last two dice
        are one outcome (their probabilities add up)."""
        k = (key, move)
        found = self._tables.get(k)
        if found is not None:
            return found
        chances = self.rules.chances(pos, move)
        if not chances:
            return []
        # Guardener's 2d4 is one constant table: converted once, found by identity.
        same = self._constant
        if same is not None and same[0] is chances:
            return same[1]
        if move is not None or not self.sorted_dice:
            out = [(float(c.probability), c.rolls) for c in chances]
        else:
            merged: dict[tuple[int, ...], list[Any]] = {}
            for c in chances:
                r = c.rolls
                m = r[:-2] + tuple(sorted(r[-2:]))
                entry = merged.get(m)
                if entry is None:
                    merged[m] = [c.probability, m]
                else:
                    entry[0] += c.probability
            out = [(float(q), m) for q, m in merged.values()]
        if self.constant_chances:
            self._constant = (chances, out)
        else:
            self._tables[k] = out
        return out

    def _after(
        self, node: Node, pos: Position, move: Move, rolls: tuple[int, ...], p: float
    ) -> list[tuple[float, Node]]:
        rules = self.rules
        new = rules.make(pos, move, scripted(rolls) if rolls else _no_roll)
        state = self.evaluator.step(self.state(node), pos, new, move)
        new_key = rules.repetition_key(new)
        keys = node.keys + (new_key,) if self.uses_history else node.keys
        start = self.table(new, None, new_key) if new.dice is None else ()
        if not start:
            child = Node(new, keys)
            child.key = new_key
            child.state = state
            return [(p, child)]
        ended = rules.outcome(new, keys)
        if ended is not None:
            return [(p, Node(new, keys, ended))]
        # The evaluation does not read the dice: children that differ only in the
        # dice share one static score.
        out: list[tuple[float, Node]] = []
        if not self.same_board(start):
            for q, k in start:
                rolled = new.copy()
                rules.start_turn(rolled, scripted(k))
                out.append((p * q, Node(rolled, keys)))
            return out
        # Two dice that only set ``pos.dice`` (``dice_only``): the children share the
        # board, its material state and its static score (the evaluation does not
        # read the dice).
        static = self.evaluator.evaluate(new, state)
        for q, k in start:
            child = Node(dice_only(new, k), keys)
            child.state = state
            child.static = static
            out.append((p * q, child))
        return out

    @staticmethod
    def same_board(start: Sequence[tuple[float, tuple[int, ...]]]) -> bool:
        """Do the start-of-turn rolls only set the dice (Guardener, a Jepps Random
        placement or mediator roll), rather than also placing pieces (the mediator's
        odd-even roll, which starts Black's own setup)? Two dice do only that: a test
        holds ``start_turn`` with them equal to ``dice_only``."""
        return all(len(k) == 2 for _, k in start)

    # ----- move facts ---------------------------------------------------------------

    def victim(self, node: Node, move: Move) -> str | None:
        """The kind of piece ``move`` captures, if any."""
        return self.source.victim(node.pos, move)

    def worth(self, kind: str | None) -> float:
        if kind is None:
            return 0.0
        if kind == self.royal:
            return 100.0
        return self.values.get(kind, 1.0)

    def is_noisy(self, node: Node, move: Move) -> bool:
        """Captures and promotions: what quiescence searches."""
        return self.source.is_noisy(node.pos, move)

    def mvv_lva(self, node: Node, move: Move) -> float:
        """Most valuable victim, least valuable attacker (larger first)."""
        return self.source.mvv_lva(node.pos, move)


__all__ = ["MATE_STEP", "Node", "VariantDomain", "WIN", "scripted"]
