"""What other packages need to know about a variant, declared by the variant itself.

The engine, the service, the renderer and the console read these from the rules
object; none of them names a variant. ``Variant`` inherits ``Facts``, and each
variant overrides what differs. Every default is safe:

- *can a side still win* (RULES.md section 7) has no default: a wrong guess either
  way hands out a wrong result on time. ``can_still_win`` raises, and
  ``variants.register`` refuses a variant that does not answer it;
- the search hints (``SearchHints``) only make the computer stronger or faster;
  their defaults take the general way, which is slower but never wrong;
- the hooks below return "nothing special" (no piece in reserve, nothing to place,
  every piece acts on every roll, no extra sprite);
- the rule page is the module ``variants/rulebooks/<key>.py``; a variant without
  one says where its words are (``rule_text``), or building its page fails.
"""

from __future__ import annotations

import importlib
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

from .position import Move, Position
from .rulebook import Section


@dataclass(frozen=True)
class SearchHints:
    """How the computer opponent (``engine``) should treat a variant."""

    # Wins by checkmate: with a clear material lead the search drives the lone King to
    # the edge and brings its own King near (the mop-up term).
    mating: bool = False
    # Generating only the moves to the capture and promotion squares
    # (``legal_moves_to``) is cheaper than the whole legal list (measured).
    narrow_noisy: bool = False
    # The chance-node method the search uses ("star1", "star2" or "expectimax";
    # "" for the engine's default), chosen by measurement (``benchmarks/ai.py``).
    chance: str = ""
    # The deepest quiescence, where every capture is followed by a roll that multiplies
    # the replies (0: the level's own depth).
    quiescence_cap: int = 0
    # Does ``outcome`` read the game's repetition keys? (False: the search need not
    # keep them.)
    reads_history: bool = True
    # Is the start-of-turn chance table the same for every position (so it is built
    # once)?
    constant_chances: bool = False
    # A kind the evaluation watches: while a side has none on the board, the variant
    # says whether one waits to come (``Facts.reserve``).
    reserve_kind: str = ""
    # Kinds counted with the pawns (besides the variant's pawn type).
    pawn_like: tuple[str, ...] = ()
    # Pawns are the army: they are the only capturers and a side without pawns loses.
    # They are priced by what they reach, not as FIDE pawns; the last ones weigh more,
    # pieces escort them, and an enemy pawn beside the King is a threat.
    pawn_army: bool = False
    # The rank labels of the two home ranks (White's, Black's) when they are not the
    # board's first and last ranks.
    home_ranks: tuple[int, int] | None = None


class RuleText(Protocol):
    """Where a variant's rule page gets its words (``variants/rulebook.py``)."""

    INVENTOR: str
    SOURCE: str
    TAGLINE: str

    def sections(self, rules: Any) -> tuple[Section, ...]: ...

    def piece_notes(self, rules: Any) -> tuple[Any, ...]: ...


class Facts:
    """The facts a variant declares for the other packages (see the module)."""

    key: ClassVar[str]
    search: ClassVar[SearchHints] = SearchHints()
    # Sprites a picture of this variant can show besides its piece types' own (a
    # promoted King), so that they are drawn ahead of the first picture.
    extra_sprites: ClassVar[tuple[str, ...]] = ()
    # The dice only choose which of a board's candidate moves may be made: the search
    # generates a board's candidates once and filters them per roll (the ``filter_*``
    # hooks below).
    dice_filter: ClassVar[bool] = False
    # When dice are rolled, in words that finish "Dice are rolled ..." ("" for a variant
    # without dice). Front ends say from it when a move can be taken back (only while no
    # die has been rolled since it).
    dice_rolled: ClassVar[str] = ""
    # A die is rolled at the start of every turn, so no move can ever be taken back.
    rolls_every_turn: ClassVar[bool] = False
    # The pieces a newcomer will not know, by kind, in the order a picture's legend lists
    # them (each with its sprite, its name and its piece type's ``brief``). () for a
    # variant of chess pieces only.
    legend_kinds: ClassVar[tuple[str, ...]] = ()
    # What the labelled groups of special squares (``zones``) are called, for a heading
    # ("Terraces", "Tquads"); "" says "Special squares".
    zone_names: ClassVar[str] = ""
    # The zones are areas of ordinary squares, drawn outlined with their label in a tab
    # (Tquads), rather than squares of their own, shaded, with the label beside them
    # (terraces).
    zones_outlined: ClassVar[bool] = False

    # ----- time (RULES.md section 7) -------------------------------------------

    def can_still_win(self, pos: Position, color: int) -> bool:
        """Could ``color`` still win by some series of legal moves (FIDE 6.9)? When the
        other side runs out of time and the answer is no, the game is drawn. No default:
        a variant must say (``variants.register`` checks)."""
        raise NotImplementedError(
            f"{type(self).__name__} does not say whether a side can still win "
            "(Facts.can_still_win, RULES.md section 7)"
        )

    # ----- the evaluation --------------------------------------------------------

    def reserve(self, pos: Position, color: int) -> str:
        """With no piece of ``search.reserve_kind`` on the board for ``color``: "enter"
        if one waits to enter, "return" if a lost one may come back, "" if none can."""
        return ""

    def to_place(self, pos: Position, color: int) -> tuple[str, ...]:
        """Kinds ``color`` still has to place on its home rank (a setup phase)."""
        return ()

    def act_chance(self, kind: str) -> float:
        """The chance that a turn's dice let a piece of this kind act (1: always)."""
        return 1.0

    def has_move_for_sure(self, pos: Position) -> bool:
        """True when the side to act surely has a legal action, known without making
        the list; False means "not shown"."""
        return False

    # ----- the dice as a filter (``dice_filter``) --------------------------------

    def filter_key(self, pos: Position) -> Hashable:
        """What a board's candidates depend on (its dice left out)."""
        raise NotImplementedError

    def filter_candidates(self, pos: Position) -> list[tuple[Move, int]]:
        """The board's candidate moves, each with the die values that permit it (bit v
        for value v)."""
        raise NotImplementedError

    def filter_bits(self, pos: Position) -> int:
        """The die values the dice showing permit, as bits; 0: the rules decide alone."""
        raise NotImplementedError

    def filter_extras(self, pos: Position) -> Sequence[Move]:
        """Actions the dice showing add to the filtered candidates (a re-roll)."""
        return ()

    def filter_incomplete(self, pos: Position, moves: Sequence[Move]) -> bool:
        """Might the legal list hold more than ``moves`` (a pass)? Then the rules decide."""
        return False

    # ----- words -------------------------------------------------------------------

    def rule_text(self) -> RuleText:
        """The words of the rule page: ``variants/rulebooks/<key>.py`` unless the
        variant says otherwise."""
        module: Any = importlib.import_module(f"variants.rulebooks.{self.key}")
        return module  # type: ignore[no-any-return]


def answers_can_still_win(cls: type) -> bool:
    """Does ``cls`` say whether a side can still win (its own ``can_still_win``)?"""
    return getattr(cls, "can_still_win", None) is not Facts.can_still_win


__all__ = ["Facts", "RuleText", "SearchHints", "answers_can_still_win"]
