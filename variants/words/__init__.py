"""What each variant says about a position, in the players' words: the facts of
the turn for ``status.describe`` and the rules behind refusals for ``explain``.

One module per variant; the variant's hook methods delegate to these functions,
so the rules modules stay about the rules.

The imports run one way: a rules module (``variants/<v>.py``) imports its words
module at the top, and a words module never imports a rules module. It reads the
rules through the object handed to each function, typed by a protocol in the words
module (``GuardenerRules``...), which names every attribute it reads: the shared ones
of ``RulesView`` below and the variant's own, public and documented on its class.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, Protocol

from ..geometry import Geometry
from ..pieces import PieceType
from ..position import Move, Piece, Position


class RulesView(Protocol):
    """What every words module may read of a variant's rules object."""

    geometry: ClassVar[Geometry]
    types: dict[str, PieceType]

    @property
    def promotion_kinds(self) -> tuple[str, ...]: ...

    def name(self, sq: int) -> str: ...

    def normalize(self, text: str) -> str: ...

    def san(self, pos: Position, move: Move, legal: Sequence[Move]) -> str: ...

    def is_capture(self, pos: Position, move: Move) -> bool: ...

    def is_attacked(self, pos: Position, sq: int, by: int, occ: int | None = None) -> bool: ...

    def last_rank(self, color: int) -> int: ...

    def candidate_moves(self, pos: Position) -> list[Move]: ...

    def piece_moves(self, pos: Position, frm: int, p: Piece, out: list[Move]) -> None: ...
