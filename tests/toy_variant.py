"""Toy Dice Chess: a variant that lives only in the tests (issue 25, item 1).

It proves that a variant owns its facts: registered by a test
(``variants.register(ToyDiceChess)``), it plays in the console, through the Discord
payload harness, against the computer, on the clock with ratings, in pictures and on
its rule page, and nothing outside this module names it or changes for it.

The rules: FIDE chess on a 5x5 board (Gardner's setup: ``rnbqk/ppppp/5/PPPPP/RNBQK``),
with no double step, no en passant and no castling; pawns promote on the last rank.
Before each turn the side to act rolls one d4: on a 4 its King may also leap like a
Knight this turn (the leap may capture; check rules apply).
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from types import SimpleNamespace
from typing import Any

from variants import SearchHints
from variants.base import ALL_SQUARES, Chance, Roller
from variants.chess import FIDE_PIECES, ChessLike
from variants.geometry import Geometry
from variants.pieces import N
from variants.position import Move, Position
from variants.rulebook import Section, Table
from variants.status import TurnFacts

KEY = "toy_dice"
DIE = 4
LEAP_VALUE = 4  # the die value that lets the King leap like a Knight
BOARD = Geometry(files="abcde", height=5)
START = "rnbqk/ppppp/5/PPPPP/RNBQK"
KNIGHT_LEAPS = tuple(N.offsets)  # the Knight's eight (file, rank) offsets

_D4 = tuple(Chance((v,), Fraction(1, DIE)) for v in range(1, DIE + 1))


def _sections(rules: Any) -> tuple[Section, ...]:
    return (
        Section(
            "Board and setup",
            (
                f"FIDE chess on a 5x5 board, a-e by 1-5, set up as {START} (Gardner's "
                "minichess). There is no double step, no en passant and no castling. White "
                "moves first.",
            ),
        ),
        Section(
            "The die",
            (
                f"Before each turn the side to act rolls one d{DIE}. On a {LEAP_VALUE} its King "
                "may also leap like a Knight this turn; the leap may capture, and check rules "
                "apply.",
            ),
        ),
        Section(
            "How the game ends",
            (
                "Checkmate wins. Stalemate, insufficient material, the 50-move rule and "
                "threefold repetition draw, as in FIDE chess. Players may resign or agree a "
                "draw.",
            ),
        ),
        Section(
            "Notation",
            (Table(("Action", "Written"), (("a move", "Nc3, bxc3"), ("a King's leap", "Kc2"))),),
        ),
    )


RULE_TEXT = SimpleNamespace(
    INVENTOR="the Chess Garden tests",
    SOURCE="tests/toy_variant.py",
    TAGLINE="Minichess with a d4 that lets the King leap.",
    sections=_sections,
    piece_notes=lambda rules: (),
)


class ToyDiceChess(ChessLike):
    key = KEY
    title = "Toy Dice Chess"
    summary = (
        "FIDE chess on a 5x5 board. Before each turn roll a d4: on a 4 your King may also "
        "leap like a Knight."
    )
    readings = ("The King's leap is a King move: it may capture and may not end in check.",)
    notation_examples = "c3, Nc3, bxc3, Kc2 (a leap on a 4), c5=Q"
    geometry = BOARD
    piece_types = FIDE_PIECES
    start_placement = START
    home_ranks = (1, 5)
    pawn_ranks = (2, 4)
    castling = False
    double_step = False
    en_passant = False
    dice_sides = DIE
    search = SearchHints(mating=True)

    # ----- the die -------------------------------------------------------------------

    def start_turn(self, pos: Position, roll: Roller) -> tuple[int, ...]:
        if pos.dice is not None:
            return ()
        pos.dice = (roll(DIE),)
        return pos.dice

    def rolls_at_turn_start(self, pos: Position) -> bool:
        return pos.dice is None

    def chances(self, pos: Position, move: Move | None = None) -> tuple[Chance, ...]:
        return () if move is not None or pos.dice is not None else _D4

    def special_moves(self, pos: Position, to_mask: int = ALL_SQUARES) -> list[Move]:
        out = super().special_moves(pos, to_mask)
        king = pos.kings[pos.turn]
        if pos.dice == (LEAP_VALUE,) and king >= 0:
            own = pos.occ[pos.turn]
            for dx, dy in KNIGHT_LEAPS:
                to = self.geometry.offset(king, dx, dy)
                if to is not None and not own >> to & 1 and to_mask >> to & 1:
                    out.append(Move(king, to))
        return out

    def make(self, pos: Position, move: Move, roll: Roller) -> Position:
        new = super().make(pos, move, roll)
        new.dice = None  # the next side rolls at the start of its turn
        return new

    def turn_facts(self, pos: Position, legal: Sequence[Move]) -> TurnFacts:
        if pos.dice == (LEAP_VALUE,):
            return TurnFacts(
                allows="the King may leap like a Knight",
                short="King may leap",
                lines=("The die shows 4: your King may also leap like a Knight this turn.",),
            )
        return TurnFacts(lines=("Roll a 4 and your King may leap like a Knight.",))

    # ----- FEN: the die showing, or '-' -----------------------------------------------

    def fen_extra(self, pos: Position) -> str:
        return str(pos.dice[0]) if pos.dice else "-"

    def parse_fen_extra(self, pos: Position, text: str) -> None:
        if text in ("", "-"):
            return
        if text not in {str(v) for v in range(1, DIE + 1)}:
            raise ValueError(f"the die must be 1-{DIE} or '-', not {text!r}")
        pos.dice = (int(text),)

    # ----- facts for the other packages -----------------------------------------------

    def can_still_win(self, pos: Position, color: int) -> bool:
        """As FIDE, simplified: a lone King cannot win."""
        return any(k != self.royal for k in self.material(pos, color))

    def rule_text(self) -> Any:
        return RULE_TEXT


def known_here() -> tuple[int, tuple[str, ...]]:
    """This process's id and the variants it knows (run in a worker process)."""
    import os

    import variants

    return os.getpid(), variants.names()


__all__ = ["KEY", "ToyDiceChess", "known_here"]
