"""Guardener Chess: FIDE army plus a Guardener on an 80-square board, with two d4
deciding which pieces may move. RULES.md section 1.

FEN
---
Six FIDE fields, then two of our own::

    ***1g(2)g(2)1***/*rnbqkbnr*/*pppppppp*/10/10/10/10/*PPPPPPPP*/*RNBQKBNR*/***1G(2)G(2)1*** w KQkq - 0 1 - -

- Placement runs rank 9 down to rank 0, files ``w a b c d e f g h z``; each of
  the 20 holes is written ``*``. A Guardener still on its double start is
  ``G(2)`` (``g(2)``) on BOTH of its start squares.
- Castling flags, en passant, halfmove clock and move number as in FIDE.
- Dice: ``-`` before the roll, else the two values, e.g. ``23``; a trailing
  ``r`` says the roll came from a ``reroll`` (so ``33r`` is a Double x2).
  A FEN that carries dice keeps them; a FEN with ``-`` rolls at the start.
- Passes spent: ``-``, ``w``, ``b`` or ``wb``.
- Only when there are any: the pawns standing on their double-step rank (rank 2
  for White, 7 for Black) that have moved before, comma-separated, e.g. ``c2``.
  Such a pawn (one that teleported c2-c0 and walked back c1, c2) may not step
  two squares: the double step belongs to a pawn that has not yet moved. A FEN
  without this field says every pawn on its double-step rank is unmoved.
The two extra fields may be left out together (no dice yet, no pass spent).

Dice turn: ``start_turn`` rolls 2d4 into ``pos.dice`` when no dice are
showing. ``reroll`` clears the dice, so the Game rolls again for the same
player and records it as its own ``[a b]`` token: ``[4 4] reroll [3 3] Nfz4 {T3}``.
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Sequence
from fractions import Fraction
from typing import Any, ClassVar

from .base import ALL_SQUARES, Chance, Result, Roller, draw, win
from .chess import FIDE_PIECES, ChessLike
from .errors import IllegalMove
from .facts import SearchHints
from .geometry import BLACK, WHITE, Geometry
from .notation import Texts
from .pieces import D, F, PieceType
from .position import Move, Piece, Position, other, piece
from .refusal import Blocked
from .sentence import N_
from .status import TurnFacts
from .words import guardener as words

FILES = "wabcdefghz"

# Terrace numbers (RULES.md section 1). T2 and T3 come from the seed's examples;
# T1 = rank 0 and T4 = rank 9 are our reading.
TERRACES: dict[int, tuple[str, ...]] = {
    1: ("c0", "d0", "e0", "f0"),
    2: ("w3", "w4", "w5", "w6"),
    3: ("z3", "z4", "z5", "z6"),
    4: ("c9", "d9", "e9", "f9"),
}


def _holes() -> frozenset[str]:
    """Every box square that is neither on the 8x8 nor on a terrace."""
    terrace = {s for names in TERRACES.values() for s in names}
    return frozenset(
        f"{f}{r}"
        for f in FILES
        for r in range(10)
        if not (f in "abcdefgh" and 1 <= r <= 8) and f"{f}{r}" not in terrace
    )


BOARD = Geometry(files=FILES, height=10, first_rank=0, holes=_holes(), colour_base=0)

# One diagonal step, or a leap to the second square orthogonally; moves and captures alike.
GUARDENER = PieceType(
    "G",
    "G",
    N_("Guardener"),
    (F, D),
    words=N_(
        "moves or captures one square diagonally, or leaps to the second square "
        "orthogonally, over anything between (so it keeps to one colour of squares)"
    ),
    brief=N_("1 diagonally, or leaps 2 straight"),
)

# It stands on both squares until its first move (reading: both count as occupied).
GUARDENER_START = {WHITE: ("d0", "e0"), BLACK: ("d9", "e9")}
DOUBLE_START = "2"

START = "***1g(2)g(2)1***/*rnbqkbnr*/*pppppppp*/10/10/10/10/*PPPPPPPP*/*RNBQKBNR*/***1G(2)G(2)1***"

DIE = 4
# Which pieces a die value lets move or capture. The Queen needs a double.
PERMISSION: dict[int, tuple[str, ...]] = {1: ("P", "K", "G"), 2: ("N",), 3: ("B",), 4: ("R",)}
CASTLING_DIE = 4
# Free moves: King and Guardener non-captures, and pawn non-captures ending on
# the pawn's own side of the centre line (rank labels).
FREE_KINDS = ("K", "G")
OWN_HALF = {WHITE: range(0, 5), BLACK: range(5, 10)}
# Reading: a pawn may not teleport to the terrace behind its own promotion rank.
NO_PAWN_TERRACE = {WHITE: 4, BLACK: 1}
# Promotion only to a type the side has fewer of than at the start.
START_COUNT = {"Q": 1, "R": 2, "B": 2, "N": 2}

# (reading) A pawn may promote only to a type its side has lost, so the promoted piece
# is that lost piece coming back: it leaves the lost-pieces list, like a resurrected Guardener.
PROMOTION_BRINGS_BACK = True

REROLL = "reroll"
PASS = "pass"
TELEPORT = "teleport"
DROP = "drop"

_TELEPORT_TEXT = re.compile(r"^([A-Z])?([a-z])?(\d)?-?([a-z]\d)\s*(?:\{\s*T(\d)\s*\})?$")


_NONE: frozenset[int] = frozenset()
# The die values that let each kind move or capture, as bits (``PERMISSION``).
_KIND_DICE = {
    kind: sum(1 << v for v, kinds in PERMISSION.items() if kind in kinds)
    for kind in {k for kinds in PERMISSION.values() for k in kinds}
}
_ANY_DOUBLE = 1  # bit 0: a double permits every candidate (``filter_candidates``)
_REROLL_MOVE = Move(-1, -1, REROLL)
_TWO_D4 = tuple(
    Chance((a, b), Fraction(1, DIE * DIE)) for a in range(1, DIE + 1) for b in range(1, DIE + 1)
)


def _look_ahead(sides: int) -> int:
    return 1


class Guardener(ChessLike):
    key = "guardener"
    notation_examples = N_(
        "e4, Nf3, Bxc6, O-O, e8=Q, Nfz4 {T3} (teleport), G@z4 {T3}, reroll, pass"
    )
    title = N_("Guardener Chess")
    summary = (
        "FIDE army plus a Guardener (G: one step diagonally or a leap of two orthogonally) on an "
        "8x8 board with four terraces. Two d4 say which pieces may move; King, Guardener and "
        "home-half pawn steps are free. Doubles re-roll, a double from a double teleports. "
        "No check: capture the King."
    )
    readings = (
        "Terraces: T1 is rank 0 (c0-f0), T2 the w-file, T3 the z-file, T4 rank 9 (c9-f9).",
        "The Guardener's two start squares both count as occupied; it may leave from either, "
        "and a capture on either takes it.",
        "A re-roll replaces the old roll; if it is not a double, only its two values apply.",
        "A pawn may not teleport to the terrace behind its own promotion rank.",
        "Castling needs a 4 or a double; there is no 'through check' condition.",
        "Pass once per game, only when every legal move is a King move onto an attacked square "
        "or there is none (a `reroll` is not a move); with the pass spent you walk the plank; "
        "no legal move and no pass left is a drawn stalemate.",
        "A promotion may only choose a lost type, so the promoted piece leaves the lost-pieces "
        "list, as a resurrected Guardener does.",
    )
    geometry = BOARD
    piece_types = FIDE_PIECES + (GUARDENER,)
    # A resurrected Guardener leaves the lost pieces; so does a promotion, which may only
    # choose a lost type (PROMOTION_BRINGS_BACK, a reading).
    returns_from_lost = ("G", "Q", "R", "B", "N") if PROMOTION_BRINGS_BACK else ("G",)
    has_check = False
    dice_sides = DIE
    dice_rolled = "at the start of every turn (two d4)"
    rolls_every_turn = True
    legend_kinds = ("G",)
    zone_names = "Terraces"
    fifty_move_rule = False
    repetition_draw = False
    free_moves = False  # the dice decide which pieces may move
    insufficient_material = False
    start_placement = START
    # The search: a capture is followed by the opponent's 2d4 (10 distinct rolls), so
    # quiescence stops after a capture and the reply; ``outcome`` reads no history; the
    # 2d4 table is one object; a lost Guardener may come back (a Double x2). The
    # terrace ranks 0 and 9 are not home ranks. The dice only filter a board's
    # candidates (``dice_filter``).
    search = SearchHints(
        quiescence_cap=2,
        reads_history=False,
        constant_chances=True,
        reserve_kind="G",
        home_ranks=(1, 8),
    )
    dice_filter = True
    # Facts of the rules above, read by the words too (``words.guardener``).
    castling_die: ClassVar[int] = CASTLING_DIE  # the die value that lets the King castle
    free_kinds: ClassVar[tuple[str, ...]] = FREE_KINDS  # move without a die (no capture)
    permission: ClassVar[dict[int, tuple[str, ...]]] = PERMISSION  # die value -> kinds it lets act
    guardener_start: ClassVar[dict[int, tuple[str, str]]] = GUARDENER_START  # by colour
    no_pawn_terrace: ClassVar[dict[int, int]] = NO_PAWN_TERRACE  # by colour, a reading
    start_count: ClassVar[dict[str, int]] = START_COUNT  # promote only to fewer than this

    def __init__(self) -> None:
        super().__init__()
        g = self.geometry
        self.terraces = {
            n: tuple(g.parse_square(s) for s in names) for n, names in TERRACES.items()
        }
        self.start_squares = {
            c: (g.parse_square(a), g.parse_square(b)) for c, (a, b) in GUARDENER_START.items()
        }

    def zones(self) -> dict[str, tuple[int, ...]]:
        return {f"T{n}": squares for n, squares in self.terraces.items()}

    def material(self, pos: Position, color: int) -> list[str]:
        """The double-start Guardener is one piece on two squares."""
        kinds = super().material(pos, color)
        if self.partner(pos, self.start_squares[color][0]) >= 0:
            kinds.remove("G")
        return kinds

    # ----- state ---------------------------------------------------------
    # extra: 'passed' (w, b): pass spent; 'rerolled': the dice showing came from a reroll;
    # 'moved': squares of pawns on their double-step rank that have moved before.

    def initial_position(self, options: dict[str, Any], roll: Roller) -> Position:
        pos = super().initial_position(options, roll)
        pos.extra = {"passed": (False, False), "rerolled": False, "moved": _NONE}
        return pos

    def start_turn(self, pos: Position, roll: Roller) -> tuple[int, ...]:
        """The player to move rolls both d4, unless dice are already showing."""
        if pos.dice is not None:
            return ()
        pos.dice = (roll(DIE), roll(DIE))
        return pos.dice

    def rolls_at_turn_start(self, pos: Position) -> bool:
        return pos.dice is None

    def chances(self, pos: Position, move: Move | None = None) -> tuple[Chance, ...]:
        """2d4 at the start of a turn: 16 ordered outcomes, 1/16 each. No die is rolled
        inside a move: a ``reroll`` clears the dice and the next ``start_turn`` rolls
        again (the new roll replaces the old one, RULES.md section 1)."""
        if move is not None or pos.dice is not None:
            return ()
        return _TWO_D4

    def is_double(self, pos: Position) -> bool:
        return pos.dice is not None and len(pos.dice) == 2 and pos.dice[0] == pos.dice[1]

    def is_double_x2(self, pos: Position) -> bool:
        """A double rolled by re-rolling a double: it also allows one teleport."""
        return self.is_double(pos) and bool(pos.extra.get("rerolled"))

    def partner(self, pos: Position, sq: int) -> int:
        """The other square of a Guardener still on its double start, else -1."""
        p = pos.board[sq] if sq >= 0 else None
        if p is None or p.kind != "G" or p.state != DOUBLE_START:
            return -1
        a, b = self.start_squares[p.color]
        mate = b if sq == a else a if sq == b else -1
        return mate if mate >= 0 and pos.board[mate] == p else -1

    def lost_kinds(self, old: Position, new: Position, color: int) -> list[str]:
        # The double-start Guardener, counted once in ``material``, cancels out when its
        # status is the same before and after: then the bitboards tell.
        if not self.double_start_changed(old, new, color):
            return self.lost_on_bitboards(old, new, color)
        return super().lost_kinds(old, new, color)

    def gains_kind(self, old: Position, new: Position, color: int, kinds: Sequence[str]) -> bool:
        """By the bitboards, as ``material`` counts: the double-start Guardener is one piece
        on two squares, so a change of that status changes the count by itself."""
        return self.double_start_changed(old, new, color) or self.count_grew(old, new, color, kinds)

    def double_start_changed(self, old: Position, new: Position, color: int) -> bool:
        """Did ``color``'s Guardener go on or off its double start between the two?"""
        start = self.start_squares[color][0]
        return (self.partner(old, start) >= 0) != (self.partner(new, start) >= 0)

    def has_guardener(self, pos: Position, color: int) -> bool:
        bb = pos.bb
        return any(bb[s.index] for s in self.lay.by_color[color] if s.kind == "G")

    # ----- moves ---------------------------------------------------------

    def promotion_choices(self, pos: Position, move: Move) -> Sequence[str]:
        """Only a type the side has lost; with none, the pawn may not reach the last rank."""
        color = pos.turn
        return [k for k in self.promotion_kinds if pos.count(k, color) < START_COUNT[k]]

    def double_steps(self, pos: Position, color: int, out: list[Move]) -> None:
        moved = pos.extra["moved"]
        if not moved:
            super().double_steps(pos, color, out)
            return
        # The double step belongs to a pawn that has not yet moved.
        doubles: list[Move] = []
        super().double_steps(pos, color, doubles)
        out.extend(m for m in doubles if m.frm not in moved)

    def special_moves(self, pos: Position, to_mask: int = ALL_SQUARES) -> list[Move]:
        out = super().special_moves(pos, to_mask)  # castling, permitted on a 4 or a double
        if self.is_double(pos):
            if self.is_double_x2(pos):
                out.extend(self.teleports(pos))
            out.append(Move(-1, -1, REROLL))
        return out

    def teleports(self, pos: Position) -> list[Move]:
        """Double x2: any one piece to a vacant square of terrace T(value), without
        capturing; or, with no Guardener on the board, a Guardener resurrected there."""
        assert pos.dice is not None
        value = pos.dice[0]
        color = pos.turn
        board = pos.board
        targets = [sq for sq in self.terraces[value] if board[sq] is None]
        out: list[Move] = []
        own = pos.occ[color]
        while own:
            b = own & -own
            own ^= b
            frm = b.bit_length() - 1
            p = board[frm]
            assert p is not None
            if p.kind == "P" and value == NO_PAWN_TERRACE[color]:
                continue
            if frm == self.start_squares[color][1] and self.partner(pos, frm) >= 0:
                continue  # the double-start Guardener teleports once, from its first square
            out.extend(Move(frm, to, TELEPORT) for to in targets)
        if not self.has_guardener(pos, color):
            out.extend(Move(-1, to, DROP, promo="G") for to in targets)
        return out

    def is_free(self, p: Piece, move: Move) -> bool:
        """A non-capture that needs no die (the caller has ruled out captures)."""
        if move.flag == "castle":
            return False
        if p.kind in FREE_KINDS:
            return True
        return p.kind == "P" and self.geometry.rank_label(move.to) in OWN_HALF[p.color]

    def permits(self, pos: Position, move: Move) -> bool:
        flag = move[2]
        dice = pos.dice or ()
        double = len(dice) == 2 and dice[0] == dice[1]  # ``is_double``
        if flag == REROLL:
            return double
        if flag == TELEPORT or flag == DROP:
            return self.is_double_x2(pos)
        if flag == PASS or double:
            return True  # a double lets the Queen or any piece move or capture
        p = pos.board[move[0]]
        assert p is not None
        if flag == "castle":
            return CASTLING_DIE in dice
        kind = p.kind
        # A non-capture by a free kind or a pawn in its own half (``is_free``: only those
        # kinds can be free, so the others skip both calls).
        if (kind in FREE_KINDS or kind == "P") and not self.is_capture(pos, move):
            if self.is_free(p, move):
                return True
        for v in dice:
            if kind in PERMISSION.get(v, ()):
                return True
        return False

    def generate_legal(self, pos: Position, to_mask: int = ALL_SQUARES) -> list[Move]:
        moves = super().generate_legal(pos, to_mask)
        if to_mask != ALL_SQUARES:
            return moves  # the moves to some squares only (``legal_moves_to``): no pass
        if not pos.extra["passed"][pos.turn] and all(
            self.is_plank(pos, m) for m in moves if m.flag != REROLL
        ):
            moves.append(Move(-1, -1, PASS))
        return moves

    def has_legal_move(self, pos: Position) -> bool:
        # While the side has not passed, its list is never empty: with no move that is
        # not a plank, it may pass (``generate_legal``).
        if not pos.extra["passed"][pos.turn]:
            return True
        return super().has_legal_move(pos)

    def is_plank(self, pos: Position, move: Move) -> bool:
        """A King move onto a square an enemy piece attacks once it stands there."""
        p = pos.board[move.frm] if move.frm >= 0 else None
        if p is None or p.kind != self.royal:
            return False
        new = self.make(pos, move, _look_ahead)
        return self.is_attacked(new, new.kings[p.color], other(p.color))

    # ----- in words: status and refusals (variants/words/guardener.py) ----

    def why_not_permitted(self, pos: Position, move: Move) -> tuple[str, str]:
        """The dice table (RULES.md section 1): which die the move would need."""
        return words.why_not_permitted(self, pos, move)

    def relaxed_moves(self, pos: Position, to_mask: int = ALL_SQUARES) -> list[Blocked]:
        # The board moves before Guardener's own rules: the double steps of pawns that
        # have moved too (``double_steps`` leaves them out).
        doubles: list[Move] = []
        ChessLike.double_steps(self, pos, pos.turn, doubles)
        moved = pos.extra["moved"]
        unruled = ChessLike.pseudo_moves(self, pos) + [m for m in doubles if m.frm in moved]
        return words.relaxed_moves(self, pos, unruled, to_mask)

    def turn_facts(self, pos: Position, legal: Sequence[Move]) -> TurnFacts:
        """What the dice showing allow (RULES.md section 1, "Dice")."""
        return words.turn_facts(self, pos, legal)

    # ----- making moves --------------------------------------------------

    def make(self, pos: Position, move: Move, roll: Roller) -> Position:
        color = pos.turn
        new = pos.copy()
        flag = move[2]
        if flag == REROLL:
            # The same player rolls again at the start_turn that follows.
            new.dice = None
            new.extra["rerolled"] = True
            return new
        if flag == PASS:
            passed = list(pos.extra["passed"])
            passed[color] = True
            new.extra["passed"] = (passed[0], passed[1])
            new.ep = -1
        elif flag == DROP:
            new.put(move.to, piece("G", color))
            new.ep = -1
        elif flag == TELEPORT:
            mate = self.partner(pos, move.frm)
            p = new.clear(move.frm)
            assert p is not None
            if mate >= 0:
                new.clear(mate)
            new.put(move.to, piece(p.kind, color))
            new.ep = -1
            if p.kind == self.royal:
                new.kings[color] = move.to
                home = self.geometry.rank_of(move.frm)
                new.castling = frozenset(
                    s for s in new.castling if self.geometry.rank_of(s) != home
                )
            new.castling = new.castling - {move.frm}
        else:
            # A Guardener still on its double start (``partner``) stands on two squares.
            board = pos.board
            p, q = board[move[0]], board[move[1]]
            lifted = self.partner(pos, move[0]) if p is not None and p.kind == "G" else -1
            taken = self.partner(pos, move[1]) if q is not None and q.kind == "G" else -1
            self.make_board(new, move)
            for sq in (lifted, taken):
                if sq >= 0:
                    new.clear(sq)  # the double start empties both squares at once
            if lifted >= 0:
                new.clear(move.to)
                new.put(move.to, piece("G", color))
        moved = pos.extra["moved"]
        frm, to = move[0], move[1]
        mover = pos.board[frm] if frm >= 0 else None
        back_home = mover is not None and mover.kind == "P" and not move[3]
        extra = new.extra
        if back_home and to in self._double_starts[color]:
            extra["moved"] = (moved - {to}) | {to}
        elif moved and (frm in moved or to in moved):
            extra["moved"] = moved - {frm, to}
        new.dice = None
        extra["rerolled"] = False
        self.finish(new, move, pos)
        return new

    # ----- notation ------------------------------------------------------

    def san(self, pos: Position, move: Move, legal: Sequence[Move]) -> str:
        flag = move[2]
        if not flag or flag == "double":  # most texts: ``ChessLike.san``, called directly
            return ChessLike.san(self, pos, move, legal)
        if flag in (REROLL, PASS):
            return flag
        if flag == DROP:
            return f"G@{self.name(move.to)} {{T{self.terrace_number(move.to)}}}"
        if flag == TELEPORT:
            # Written as the move itself, disambiguated against every piece of the
            # same type that could teleport there, then the terrace: Nfz4 {T3}.
            return f"{super().san(pos, move, legal)} {{T{self.terrace_number(move.to)}}}"
        return super().san(pos, move, legal)

    def terrace_number(self, sq: int) -> int:
        return next(n for n, squares in self.terraces.items() if sq in squares)

    def parse(self, pos: Position, text: str, legal: Sequence[Move], texts: Texts) -> Move:
        try:
            return super().parse(pos, text, legal, texts)
        except IllegalMove:
            found = self.parse_teleport(pos, self.normalize(text), legal)
            if not found:
                raise
            return self.pick(found, text.strip(), pos, legal, texts)

    def parse_teleport(self, pos: Position, text: str, legal: Sequence[Move]) -> list[Move] | None:
        """Forgiving teleport and resurrection forms: ``Nf3z4``, ``f3z4``, ``Nfz4``, ``G@z4``."""
        drop = re.fullmatch(r"G@([a-z]\d)\s*(?:\{\s*T\d\s*\})?", text)
        if drop:
            return [m for m in legal if m.flag == DROP and self.name(m.to) == drop.group(1)]
        m = _TELEPORT_TEXT.match(text)
        if not m or not any(mv.flag == TELEPORT for mv in legal):
            return None
        letter, file_, rank, dest, _ = m.groups()
        g = self.geometry
        out = []
        for mv in legal:
            p = pos.board[mv.frm] if mv.flag == TELEPORT else None
            if p is None or self.name(mv.to) != dest:
                continue
            t = self.types[p.kind]
            origins = [mv.frm, self.partner(pos, mv.frm)]
            if letter and letter != t.letter:
                continue
            if not letter and not t.is_pawn and not (file_ and rank):
                continue  # a piece needs its letter, unless written from-square to-square
            if file_ and not any(o >= 0 and g.file_letter(o) == file_ for o in origins):
                continue
            if rank and not any(o >= 0 and str(g.rank_label(o)) == rank for o in origins):
                continue
            out.append(mv)
        return out

    # ----- facts for the other packages (variants/facts.py) -------------

    def can_still_win(self, pos: Position, color: int) -> bool:
        """Always: even a lone King can capture the enemy King (RULES.md section 7)."""
        return True

    def reserve(self, pos: Position, color: int) -> str:
        """A lost Guardener may come back on a Double x2 (RULES.md section 1)."""
        return "return"

    def act_chance(self, kind: str) -> float:
        """The chance that 2d4 let a piece of this kind act: free kinds always, the
        others on their number on either die or on any double (``PERMISSION``)."""
        if kind in FREE_KINDS:
            return 1.0
        hits = sum(
            1
            for a in range(1, DIE + 1)
            for b in range(1, DIE + 1)
            if a == b or kind in PERMISSION[a] + PERMISSION[b]
        )
        return hits / (DIE * DIE)

    def has_move_for_sure(self, pos: Position) -> bool:
        # With the pass unspent, the list is never empty (``has_legal_move``).
        return not pos.extra["passed"][pos.turn]

    def filter_key(self, pos: Position) -> Hashable:
        return (pos.zkey, pos.turn, pos.castling, pos.ep, pos.extra["moved"])

    def filter_candidates(self, pos: Position) -> list[tuple[Move, int]]:
        """Each candidate with the die values that permit it: a free move any value,
        castling a 4, any other move the values of its piece (``PERMISSION``; the Queen
        none). Bit 0 stands for a double, which permits every candidate. Made on the
        board with dice that add no special move."""
        every = sum(1 << v for v in range(DIE + 1))
        plain = pos.copy()
        plain.dice = (1, 2)  # not a double: no re-roll, no teleport among the specials
        plain.extra["rerolled"] = False
        board = pos.board
        out: list[tuple[Move, int]] = []
        for m in self.candidate_moves(plain):
            if m.flag == "castle":
                mask = 1 << CASTLING_DIE
            else:
                p = board[m.frm]
                assert p is not None
                if not self.is_capture(pos, m) and self.is_free(p, m):
                    mask = every
                else:
                    mask = _KIND_DICE.get(p.kind, 0)
            out.append((m, mask | _ANY_DOUBLE))
        return out

    def filter_bits(self, pos: Position) -> int:
        """Either die's value; on a double, bit 0 (every candidate). A Double x2
        (teleports) and a turn without dice are left to the rules."""
        dice = pos.dice
        if dice is None or len(dice) != 2:
            return 0
        a, b = dice
        if a == b:
            return 0 if pos.extra["rerolled"] else _ANY_DOUBLE
        return (1 << a) | (1 << b)

    def filter_extras(self, pos: Position) -> Sequence[Move]:
        return (_REROLL_MOVE,) if self.is_double(pos) else ()

    def filter_incomplete(self, pos: Position, moves: Sequence[Move]) -> bool:
        """The pass may be legal (only King moves are left, the pass unspent)."""
        if pos.extra["passed"][pos.turn]:
            return False
        board = pos.board
        royal = self.royal
        return all(m.frm < 0 or board[m.frm].kind == royal for m in moves)  # type: ignore[union-attr]

    # ----- end of game ---------------------------------------------------

    def outcome(self, pos: Position, history: Sequence[Any]) -> Result | None:
        """Capturing the King wins; no legal move and no pass left is a drawn stalemate."""
        for color in (pos.turn, other(pos.turn)):
            if pos.kings[color] < 0:
                return win(other(color), N_("king captured"))
        if pos.dice is not None and not self.has_legal_move(pos):
            return draw(N_("stalemate"))
        return None

    def is_terminal(self, pos: Position) -> bool:
        return min(pos.kings) < 0

    # ----- FEN -----------------------------------------------------------

    def fen_extra(self, pos: Position) -> str:
        dice = "-"
        if pos.dice is not None:
            dice = "".join(str(v) for v in pos.dice) + ("r" if pos.extra["rerolled"] else "")
        passed = "".join(c for c, used in zip("wb", pos.extra["passed"], strict=True) if used)
        moved = ",".join(sorted(self.name(sq) for sq in pos.extra["moved"]))
        return f"{dice} {passed or '-'}" + (f" {moved}" if moved else "")

    def parse_fen_extra(self, pos: Position, text: str) -> None:
        pos.extra = {"passed": (False, False), "rerolled": False, "moved": _NONE}
        if not text:
            return
        parts = text.split()
        dice = re.fullmatch(r"-|([1-4])([1-4])(r?)", parts[0])
        if len(parts) not in (2, 3) or not dice or not re.fullmatch(r"-|w?b?", parts[1]):
            raise ValueError(
                "Guardener FEN extras: dice ('-', '23' or '33r'), passes spent "
                "('-', 'w', 'b' or 'wb') and, if any, moved pawns on their double-step rank ('c2')"
            )
        if len(parts) == 3:
            pos.extra["moved"] = self.parse_moved(pos, parts[2])
        if dice.group(1):
            pos.dice = (int(dice.group(1)), int(dice.group(2)))
            pos.extra["rerolled"] = bool(dice.group(3))
        pos.extra["passed"] = ("w" in parts[1], "b" in parts[1])

    def parse_moved(self, pos: Position, text: str) -> frozenset[int]:
        """The FEN's moved pawns: each must be a pawn on its own double-step rank."""
        out = set()
        for name in text.split(","):
            sq = self.geometry.parse_square(name) if self.geometry.is_square_name(name) else -1
            p = pos.board[sq] if sq >= 0 else None
            if p is None or p.kind != "P" or sq not in self._double_starts[p.color]:
                raise ValueError(
                    f"Guardener FEN moved pawns: {name!r} is not a pawn on its double-step rank"
                )
            out.add(sq)
        return frozenset(out)

    def from_fen(self, fen: str) -> Position:
        pos = super().from_fen(fen)
        for sq, p in enumerate(pos.board):
            if p is not None and p.kind == "G" and p.state and self.partner(pos, sq) < 0:
                raise ValueError(
                    f"a Guardener on its double start, G(2), stands on both "
                    f"{' and '.join(GUARDENER_START[p.color])}; found one on {self.name(sq)}"
                )
        if any(self.material(pos, c).count("G") > 1 for c in (WHITE, BLACK)):
            raise ValueError("each side may have only one Guardener on the board")
        return pos


__all__ = ["BLACK", "BOARD", "GUARDENER", "Guardener", "TERRACES", "WHITE"]
