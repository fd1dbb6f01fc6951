"""Tquarchess: FIDE chess plus the Tquarc, a teleporting, dice-valued leaper.
RULES.md section 2."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from fractions import Fraction
from itertools import product
from typing import Any, ClassVar

from .base import ALL_SQUARES, Chance, Roller
from .chess import FIDE_PIECES, ChessLike
from .errors import BadNotation, NotLegalHere
from .facts import SearchHints
from .geometry import BLACK, STANDARD, WHITE
from .notation import CASTLE_KINGSIDE, CASTLE_QUEENSIDE, Texts
from .pieces import A, D, F, Leap, PieceType
from .position import Move, Position, other, piece, with_side
from .refusal import Blocked
from .sentence import N_, said
from .status import TurnFacts
from .tables import Layout
from .words import tquarchess as words

TQUARC = PieceType(
    "T",
    "T",
    N_("Tquarc"),
    (F, A, D),
    words=N_(
        "leaps to the first square of its colour orthogonally (two squares away), or to "
        "the first or second square of its colour diagonally (one or two squares away), "
        "capturing as it moves; it keeps to one colour of squares"
    ),
    brief=N_("leaps on its colour; value = Tquad"),
)

TQUARC_DIE = 4

# Tquads, numbered clockwise from White's kingside (RULES.md section 2).
QUADS: dict[int, tuple[str, str, int, int]] = {
    1: ("e", "g", 2, 4),
    2: ("b", "d", 2, 4),
    3: ("b", "d", 5, 7),
    4: ("e", "g", 5, 7),
}

# Squares on the opponent's back rank where a Knight may become a Tquarc:
# "own colour" is light for White, dark for Black (RULES.md section 2).
KNIGHT_RESURRECTION_SQUARES: dict[int, tuple[str, ...]] = {
    WHITE: ("a8", "c8", "e8", "g8"),
    BLACK: ("a1", "c1", "e1", "g1"),
}

ENTRY_MARK = "/T"
# An entry written with a die value: ``Bg5/T%3``, ``O-O/Th1%2`` (a check mark may follow).
_TYPED_ENTRY_VALUE = re.compile(r"/T(?:[a-h][18])?\s*%\s*(\d+)\s*[+#]?$")

# FEN extras for "FIDE chess inside Tquarchess": both Tquarcs are waiting but
# every entry square has lapsed, so no Tquarc can ever enter, be resurrected
# or give the King its two-square step. Append to a six-field FEN (perft, oracles).
FIDE_EXTRAS = "Tt -/- - - 0"


def quad_squares(n: int) -> tuple[int, ...]:
    lo_f, hi_f, lo_r, hi_r = QUADS[n]
    g = STANDARD
    return tuple(
        g.parse_square(f"{f}{r}")
        for r in range(lo_r, hi_r + 1)
        for f in g.files[g.files.index(lo_f) : g.files.index(hi_f) + 1]
    )


KING2_DIRECTIONS = ((0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1))
# (reading) The two-square King attacks: while a King may still slide two squares (its
# Tquarc lost, the power unused), the square two away in each straight line, the square
# passed being empty, counts as attacked ("could capture on that square"). So it gives
# check, a King may not step there, and a piece standing alone on the square passed is
# pinned. Without it a King could be left, or put, where the enemy King takes it.
# (reading) Taking the last Tquarc wakes the power with that very move, and check is
# judged after the move: a capture of the Tquarc after which the enemy King could slide
# onto ours is not legal (``more_attackers`` counts the capture for a King that takes it,
# ``_unlocked_checks`` for any other piece). Found by the analysis of a self-play game.
KING2_ATTACKS = True


class Tquarchess(ChessLike):
    key = "tquarchess"
    notation_examples = N_(
        "e4, Nf3, Bxc6, O-O, e8=Q, Te4, Tb7% (teleport), Bg5/T (entry), Na8/T, b8=T, roll"
    )
    title = N_("Tquarchess")
    dice_rolled = (
        "only for a Tquarc (a d4): when it enters, teleports or is resurrected, and for an "
        "entry attempt (roll)"
    )
    summary = (
        "FIDE chess plus the Tquarc (T), a colour-bound FAD leaper carrying a d4 value. It enters "
        "by Seirawan gating, teleports to the Tquad of its value in answer to the enemy Tquarc, "
        "and can be resurrected by a pawn promotion or a Knight on the enemy back rank."
    )
    readings = (
        "Entry attempt: once per turn, while entry is possible, you may `roll` the Tquarc die "
        "first; then enter with that value or make any other move.",
        "Castling with entry names the square the Tquarc takes: O-O/Te1 or O-O/Th1.",
        "An entry after `roll` carries the rolled value, written on the entry as the rule page "
        "writes an entry: roll Bg5/T%3. A roll not followed by an entry is written roll%3.",
        "After `roll`, an entry typed with another value (Bg5/T%5 after roll%3) is refused with "
        "a sentence naming the value rolled; the plain Bg5/T is accepted.",
        "A King that may still slide two squares attacks the square two away in each straight "
        "line across an empty square: it gives check there, the other King may not stand "
        "there, and a piece alone on the square passed is pinned.",
    )
    geometry = STANDARD
    piece_types = FIDE_PIECES + (TQUARC,)
    # A fact of the rules, read by the words too (``words.tquarchess``): where a Knight
    # may become a Tquarc, by colour.
    knight_resurrection_squares: ClassVar[dict[int, tuple[str, ...]]] = KNIGHT_RESURRECTION_SQUARES
    returns_from_lost = ("T",)  # a Tquarc resurrected by a pawn or a Knight
    legend_kinds = ("T",)
    # The Tquads are named T1-T4, on the text board as in the picture (where the badge
    # of a teleport says "T3"); Q would read as the Queen's letter.
    zone_names = "Tquads"
    zones_outlined = True
    # The search: checkmate wins; a Tquarc waiting to enter or to be resurrected counts.
    search = SearchHints(mating=True, reserve_kind="T")

    def __init__(self) -> None:
        super().__init__()
        self.quads = {n: frozenset(quad_squares(n)) for n in QUADS}
        g = self.geometry
        self.home = {
            WHITE: frozenset(g.rank_squares(1)),
            BLACK: frozenset(g.rank_squares(8)),
        }
        self.knight_targets = {
            c: frozenset(g.parse_square(s) for s in names)
            for c, names in KNIGHT_RESURRECTION_SQUARES.items()
        }
        # Per King square: the square two away in each straight line -> the square passed.
        self._king2_mid: list[dict[int, int]] = []
        for sq in range(g.size):
            lines: dict[int, int] = {}
            for dx, dy in KING2_DIRECTIONS:
                mid = g.offset(sq, dx, dy)
                far = g.offset(sq, 2 * dx, 2 * dy)
                if mid is not None and far is not None:
                    lines[far] = mid
            self._king2_mid.append(lines)

    def zones(self) -> dict[str, tuple[int, ...]]:
        return {f"T{n}": tuple(sorted(sq)) for n, sq in self.quads.items()}

    # ----- state -------------------------------------------------------------
    # extra: 'hand' (w, b): Tquarc waiting to enter; 'gates' (w, b): original
    # back-rank squares whose piece has not yet left; 'king2' (w, b): two-square
    # King used; 'last_tq': colour whose Tquarc acted on the last move, or -1;
    # 'rolled': the entry-attempt value rolled this turn, 0 if none.

    def initial_position(self, options: dict[str, Any], roll: Roller) -> Position:
        pos = super().initial_position(options, roll)
        self.default_extra(pos)
        return pos

    def default_extra(self, pos: Position) -> None:
        pos.extra = {
            "hand": (True, True),
            "gates": (self.home[WHITE], self.home[BLACK]),
            "king2": (False, False),
            "last_tq": -1,
            "rolled": 0,
        }

    def prepare_layout(self, lay: Layout) -> None:
        super().prepare_layout(lay)
        self._tquarc_shapes = tuple(
            tuple(s.index for s in lay.by_color[c] if s.kind == "T") for c in (WHITE, BLACK)
        )

    def tquarcs(self, pos: Position, color: int) -> int:
        """The squares of ``color``'s Tquarcs (one at most), as a bitboard."""
        self.lay  # noqa: B018 (the Tquarc shapes are known once the tables are built)
        out = 0
        for s in self._tquarc_shapes[color]:
            out |= pos.bb[s]
        return out

    def tquarc_square(self, pos: Position, color: int) -> int:
        return self.tquarcs(pos, color).bit_length() - 1

    def can_enter(self, pos: Position, color: int) -> bool:
        return bool(pos.extra["hand"][color] and pos.extra["gates"][color])

    def tquarc_lost(self, pos: Position, color: int) -> bool:
        """Captured and not back on the board (nor waiting to enter)."""
        return not pos.extra["hand"][color] and self.tquarc_square(pos, color) < 0

    # ----- the two-square King attacks (KING2_ATTACKS) -----------------------------

    def king2_ready(self, pos: Position, color: int) -> bool:
        """May ``color``'s King still make its two-square move (unused, Tquarc lost)?"""
        return not pos.extra["king2"][color] and self.tquarc_lost(pos, color)

    extra_attacks = KING2_ATTACKS
    # FIDE pieces, a leaper and the two-square King (whose passed square castling never
    # touches): castling judged square by square is safe (``Variant.castles_judged``).
    castles_judged = True

    def more_attackers(self, pos: Position, sq: int, by: int, occ: int | None) -> int:
        """``by``'s King, if its two-square move could capture on ``sq`` (the square
        passed empty in ``occ``)."""
        if pos.extra["hand"][by]:  # the Tquarc still to enter: no two-square move yet
            return 0
        king = pos.kings[by]
        if king < 0:
            return 0
        mid = self._king2_mid[king].get(sq)
        if mid is None:
            return 0
        if occ is None:
            occ = pos.occ[0] | pos.occ[1]
        if occ >> mid & 1 or pos.extra["king2"][by]:
            return 0
        # A piece that comes to ``sq`` takes what stands there: ``by``'s Tquarc on ``sq``
        # is lost once it is taken, and the power wakes with that very capture.
        if self.tquarcs(pos, by) & ~(1 << sq):
            return 0
        return 1 << king

    def more_reach(self, pos: Position, frm: int, occ: int) -> int:
        """The King's two-square reach while the power is live; the square of its own
        Tquarc too (targets aside: a piece that takes the Tquarc there wakes the power,
        as ``more_attackers`` counts it)."""
        p = pos.board[frm]
        if p is None or frm != pos.kings[p.color]:
            return 0
        color = p.color
        if pos.extra["hand"][color] or pos.extra["king2"][color]:
            return 0
        tquarc = self.tquarcs(pos, color)
        out = 0
        for far, mid in self._king2_mid[frm].items():
            if not occ >> mid & 1 and not tquarc & ~(1 << far):
                out |= 1 << far
        return out

    def more_pinned(self, pos: Position, king: int, color: int, occ: int) -> int:
        """A piece alone between the King and an enemy King that could slide two
        squares onto it."""
        enemy = pos.kings[1 - color]
        if enemy < 0 or pos.extra["hand"][1 - color]:
            return 0
        mid = self._king2_mid[enemy].get(king)
        if mid is not None and pos.occ[color] >> mid & 1 and self.king2_ready(pos, 1 - color):
            return 1 << mid
        return 0

    def more_evasions(
        self, pos: Position, checker: int, king: int, occ: int
    ) -> tuple[int, bool] | None:
        # A check by the enemy King's two-square move: take it (never possible: it would
        # have been in check) or stand on the square it passes.
        if checker != pos.kings[1 - pos.turn]:
            return None
        mid = self._king2_mid[checker].get(king)
        return None if mid is None else ((1 << checker) | (1 << mid), True)

    def die_sides(self, pos: Position) -> int:
        return TQUARC_DIE  # the only die showing is an entry-attempt roll of the Tquarc die

    def quad_text(self, n: int) -> str:
        lo_f, hi_f, lo_r, hi_r = QUADS[n]
        return f"Tquad {n} ({lo_f}{lo_r}-{hi_f}{hi_r})"

    # ----- in words: status and refusals (variants/words/tquarchess.py) -------

    def turn_facts(self, pos: Position, legal: Sequence[Move]) -> TurnFacts:
        """Entry, teleport, two-square King and resurrection as they stand (RULES.md section 2)."""
        return words.turn_facts(self, pos, legal)

    def relaxed_moves(self, pos: Position, to_mask: int = ALL_SQUARES) -> list[Blocked]:
        return words.relaxed_moves(self, pos, ChessLike.candidate_moves(self, pos))

    def explain_text(
        self, pos: Position, text: str, legal: Sequence[Move]
    ) -> tuple[str, str] | None:
        """A Tquarc move while the Tquarc waits to enter or is captured; an entry typed
        with a value other than the one rolled (``entry_value_refusal``)."""
        clash = self.entry_value_refusal(pos, text)
        if clash is not None:
            return "entry-value", clash
        spoken = words.explain_text(self, pos, text, legal)
        return spoken if spoken is not None else ChessLike.explain_text(self, pos, text, legal)

    # ----- moves ---------------------------------------------------------------

    def promotion_choices(self, pos: Position, move: Move) -> Sequence[str]:
        if self.tquarc_lost(pos, pos.turn):
            return self.promotion_kinds + ("T",)
        return self.promotion_kinds

    def special_moves(self, pos: Position, to_mask: int = ALL_SQUARES) -> list[Move]:
        castling = self.castling_moves(pos, to_mask) if self.castling and pos.castling else []
        tquarc = self.tquarc_specials(pos)
        return castling + tquarc if castling else tquarc

    def tquarc_specials(self, pos: Position) -> list[Move]:
        color = pos.turn
        out: list[Move] = []
        extra = pos.extra
        teleport = extra["last_tq"] == 1 - color
        king2 = not extra["king2"][color] and not extra["hand"][color]
        if not (teleport or king2):
            return out
        # Teleport: only on the move straight after the enemy Tquarc acted.
        t_sq = self.tquarc_square(pos, color)
        if t_sq >= 0 and teleport:
            p = pos.board[t_sq]
            assert p is not None
            dark = self.geometry.dark[t_sq]
            for to in sorted(self.quads[int(p.state)]):
                if pos.board[to] is None and self.geometry.dark[to] == dark:
                    out.append(Move(t_sq, to, "teleport"))
        # Two-square King, once per game, while the Tquarc is lost.
        king = pos.kings[color]
        if king >= 0 and king2 and t_sq < 0:  # not yet used, and the Tquarc lost
            board = pos.board
            for far, mid in self._king2_mid[king].items():
                if board[mid] is not None:
                    continue
                t = board[far]
                if t is None or t.color != color:
                    out.append(Move(king, far, "king2"))
        return out

    def candidate_moves(self, pos: Position, to_mask: int = ALL_SQUARES) -> list[Move]:
        """The ordinary candidates plus entries and Knight resurrections. They are
        filtered like any move: an entering Tquarc may block a check or a pin."""
        # Not super(): see ``generate_legal``.
        moves = ChessLike.candidate_moves(self, pos, to_mask)
        color = pos.turn
        extra: list[Move] = []
        gates = pos.extra["gates"][color]
        hand = pos.extra["hand"][color]
        if hand and gates:  # the Tquarc may enter (``can_enter``)
            for m in moves:
                if m.flag == "castle":
                    extra.extend(m._replace(gate=g) for g in (m.frm, m.aux) if g in gates)
                elif m.frm in gates and m.flag in ("", "double"):
                    extra.append(m._replace(gate=m.frm))
        if not hand and not self.tquarcs(pos, color):  # lost (``tquarc_lost``)
            board = pos.board
            targets = self.knight_targets[color]
            for m in moves:
                p = board[m.frm] if m.frm >= 0 else None
                if p is not None and p.kind == "N" and m.to in targets:
                    extra.append(m._replace(flag="kres", promo="T"))
        return moves + extra if extra else moves

    def generate_legal(self, pos: Position, to_mask: int = ALL_SQUARES) -> list[Move]:
        # The hot overrides call ChessLike directly: in CPython 3.11 ``super()`` builds
        # an object on every call.
        moves = ChessLike.generate_legal(self, pos, to_mask)
        moves = self._unlocked_checks(pos, moves)
        # The entry attempt: roll the Tquarc die first, while an entry is legal.
        if (
            not pos.extra["rolled"]
            and self.can_enter(pos, pos.turn)
            and any(m.gate >= 0 for m in moves)
        ):
            moves.append(Move(-1, -1, "roll"))
        return moves

    def _wakes_onto_king(self, pos: Position) -> bool:
        """Could taking the enemy's Tquarc let its King slide two squares onto ours? Our
        King stands two squares from it in a line, the power unused and the Tquarc on
        the board. Then a piece that takes the Tquarc, though not pinned now (the square
        passed empty, or that piece standing on it), may leave its King in check."""
        color, enemy = pos.turn, 1 - pos.turn
        king, theirs = pos.kings[color], pos.kings[enemy]
        if king < 0 or theirs < 0 or pos.extra["king2"][enemy] or pos.extra["hand"][enemy]:
            return False
        if not self.tquarcs(pos, enemy):
            return False
        return king in self._king2_mid[theirs]

    def quick_has_move(self, pos: Position) -> bool:
        # The shared shortcut takes any unpinned piece's move as legal: not so for taking
        # the Tquarc when that wakes the enemy King onto ours (``_wakes_onto_king``).
        if self._wakes_onto_king(pos):
            return False  # not shown: the moves are listed in full
        return ChessLike.quick_has_move(self, pos)

    def _unlocked_checks(self, pos: Position, moves: list[Move]) -> list[Move]:
        """Without the moves that take the enemy's Tquarc and so give its King the
        two-square move onto ours. Check is judged after the move (RULES.md section 2:
        "Check rules apply"), but the shared filter reads a pin in the position before
        it, while the Tquarc still stands and the power sleeps. (A King that takes the
        Tquarc is judged by ``more_attackers``, which counts the capture.)"""
        if not self._wakes_onto_king(pos):
            return moves
        enemy = 1 - pos.turn
        tquarc = self.tquarcs(pos, enemy)
        sq = tquarc.bit_length() - 1
        if not any(m[1] == sq for m in moves):
            return moves
        kept = []
        for m in moves:
            if m[1] == sq:
                after = pos.copy()
                self.make_board(after, m)
                king = after.kings[pos.turn]
                if king >= 0 and self.more_attackers(after, king, enemy, None):
                    continue
            kept.append(m)
        return kept

    def chances(self, pos: Position, move: Move | None = None) -> tuple[Chance, ...]:
        """The Tquarc's d4, rolled inside a move: by ``roll``, a teleport, a Knight's or
        a pawn's resurrection, and an entry not preceded by ``roll`` (one die each)."""
        if move is None:
            return ()
        dice = 1 if move.flag in ("roll", "teleport", "kres") or move.promo == "T" else 0
        if move.gate >= 0 and not pos.extra["rolled"]:
            dice += 1
        if not dice:
            return ()
        p = Fraction(1, TQUARC_DIE**dice)
        faces = range(1, TQUARC_DIE + 1)
        return tuple(Chance(rolls, p) for rolls in product(faces, repeat=dice))

    def make(self, pos: Position, move: Move, roll: Roller) -> Position:
        color = pos.turn
        frm, to, flag = move[0], move[1], move[2]
        new = pos.copy()
        extra = new.extra
        if flag == "roll":
            value = roll(TQUARC_DIE)
            extra["rolled"] = value
            new.dice = (value,)
            return new
        moved = pos.board[frm]
        assert moved is not None
        tq_acted = moved.kind == "T"
        if flag == "teleport":
            new.clear(frm)
            new.put(to, piece("T", color, str(roll(TQUARC_DIE))))
            new.ep = -1
        elif flag == "king2":
            new.lift(frm, to)
            new.kings[color] = to
            new.ep = -1
            new.castling = frozenset(s for s in new.castling if s not in self.home[color])
            extra["king2"] = with_side(extra["king2"], color, True)
        elif flag == "kres":
            self.make_board(new, move._replace(flag="", promo=""))
            new.clear(to)
            new.put(to, piece("T", color, str(roll(TQUARC_DIE))))
            tq_acted = True
        else:
            self.make_board(new, move)
            if move.promo == "T":
                new.clear(to)
                new.put(to, piece("T", color, str(roll(TQUARC_DIE))))
                tq_acted = True
        if move.gate >= 0:
            value = pos.extra["rolled"] or roll(TQUARC_DIE)
            new.put(move.gate, piece("T", color, str(value)))
            extra["hand"] = with_side(extra["hand"], color, False)
            tq_acted = True
        # Back-rank squares whose original piece has now left (or was taken there).
        white, black = extra["gates"]
        if white or black:
            aux = move.aux if flag == "castle" else frm
            if (
                frm in white
                or to in white
                or aux in white
                or frm in black
                or to in black
                or aux in black
            ):
                touched = {frm, to, aux}
                extra["gates"] = (white - touched, black - touched)
        extra["last_tq"] = color if tq_acted else -1
        extra["rolled"] = 0
        new.dice = None
        self.finish(new, move, pos)
        return new

    def finish(self, new: Position, move: Move, old: Position) -> None:
        if move.flag in ("teleport", "king2") and old.board[move.to] is None:
            new.halfmove = old.halfmove + 1
            if old.turn == BLACK:
                new.fullmove += 1
            new.turn = other(old.turn)
            return
        ChessLike.finish(self, new, move, old)  # not super(): see ``generate_legal``

    # ----- notation --------------------------------------------------------------

    def san(self, pos: Position, move: Move, legal: Sequence[Move]) -> str:
        if move.flag == "roll":
            return "roll%"
        if move.flag == "teleport":
            return f"T{self.name(move.to)}%"
        if move.flag == "king2":
            return "K" + ("x" if pos.board[move.to] is not None else "") + self.name(move.to)
        if move.flag == "kres":
            base = super().san(
                pos, move._replace(flag="", promo=""), [m for m in legal if m.flag != "kres"]
            )
            return base + ENTRY_MARK + "%"
        if move.flag == "castle":
            text = CASTLE_KINGSIDE if move.to > move.frm else CASTLE_QUEENSIDE
        else:
            # Disambiguated against the moves without an entry only.
            text = self.plain_san(
                pos, move._replace(gate=-1) if move.gate >= 0 else move, legal, _no_gate
            )
        if move.promo == "T":
            text += "%"
        if move.gate >= 0:
            # '%' marks the die value the entry carries; after an entry-attempt
            # ``roll`` it is the value already rolled.
            text += ENTRY_MARK
            if move.flag == "castle":
                text += self.name(move.gate)
            text += "%"
        return text

    def record_text(self, pos: Position, san: str, move: Move, values: Sequence[int]) -> str:
        """An entry after ``roll`` carries that value, as the rule page writes an
        entry: ``Bg5/T%3`` (RULES.md section 2, notation)."""
        if move.gate >= 0 and pos.extra["rolled"]:
            values = [pos.extra["rolled"], *values]
        elif not values:
            return san
        return self.recorded(san, move, values)

    def folded_roll(self, pos: Position, move: Move) -> tuple[str, str] | None:
        """``roll`` then ``Bg5/T`` is recorded ``roll Bg5/T%3``: the value stands on the entry."""
        rolled = pos.extra["rolled"]
        if move.gate >= 0 and rolled:
            return f"roll%{rolled}", "roll"
        return None

    def entry_value_refusal(self, pos: Position, text: str) -> str | None:
        """RULES.md section 2 (reading): after ``roll`` the entry carries the value
        rolled, so an entry typed with another value (``Bg5/T%5`` after ``roll%3``) is
        refused, in a sentence naming the value rolled; ``Bg5/T`` and ``Bg5/T%3`` are
        accepted. None when ``text`` is no such entry."""
        rolled = pos.extra["rolled"]
        typed = text.strip() if rolled and isinstance(text, str) else ""
        found = _TYPED_ENTRY_VALUE.search(typed) if typed else None
        if found is None or int(found.group(1)) == rolled:
            return None
        entry = text.strip()[: found.start(1)].rstrip("% ")  # as typed, without the value
        return said(
            "the Tquarc die was rolled this turn and shows {rolled}: an entry now enters with "
            "{rolled}, not {typed} (write {entry} or {entry}%{rolled})",
            rolled=rolled,
            typed=found.group(1),
            entry=entry,
        )

    def parse(self, pos: Position, text: str, legal: Sequence[Move], texts: Texts) -> Move:
        """As the base parser, keeping '%' so that ``Td5%`` (teleport) and ``Td5``
        (an ordinary move) stay apart. A missing '%' is forgiven when only one
        action can be meant: ``Bg5/T`` for ``Bg5/T%``, ``roll`` for ``roll%``. An
        entry typed with a value other than the one rolled is refused
        (``entry_value_refusal``)."""
        clash = self.entry_value_refusal(pos, text)
        if clash is not None:
            raise NotLegalHere(clash)
        try:
            return super().parse(pos, text, legal, texts)
        except (BadNotation, NotLegalHere):
            if not isinstance(text, str) or "%" in text:
                raise
            norm = self.normalize(text)
            rolled = [
                m
                for m, t in zip(legal, texts, strict=True)
                if t is not None and "%" in t and _unrolled(self.normalize(t)) == norm
            ]
            if len(rolled) != 1:
                raise
            return rolled[0]

    # ----- facts for the other packages (variants/facts.py) -------------------------

    def can_still_win(self, pos: Position, color: int) -> bool:
        """Any piece or pawn besides the King can still help to mate (FIDE's test, with
        the loser's help). A lone King can still mate while its two-square move is
        ready (its Tquarc captured, the move unused), or while its Tquarc can still
        enter (RULES.md section 7)."""
        if any(k != self.royal for k in self.material(pos, color)):
            return True
        return self.can_enter(pos, color) or self.king2_ready(pos, color)

    def reserve(self, pos: Position, color: int) -> str:
        if pos.extra["hand"][color]:
            return "enter" if pos.extra["gates"][color] else ""
        return "return"

    # ----- end of game -------------------------------------------------------------

    def is_insufficient(self, pos: Position) -> bool:
        # Besides FIDE's material, each Tquarc in ``TQUARC_MATERIAL`` (a lapsed entry is
        # not material).
        if self.has_pawns(pos):
            return False  # a pawn is material in itself
        for _, counts in TQUARC_MATERIAL:
            if counts(self, pos, WHITE) or counts(self, pos, BLACK):
                return False
        return super().is_insufficient(pos)

    # ----- FEN ---------------------------------------------------------------------
    # Extra field: hand (e.g. "Tt": both Tquarcs waiting, "-" none), gates as
    # files per side ("abcdefgh/abcdefgh"), two-square King used ("Kk" / "-"),
    # the colour whose Tquarc acted last ("w", "b" or "-"), and a pending
    # entry-attempt roll ("0" for none). Omitted extras mean the start state.

    def fen_extra(self, pos: Position) -> str:
        e = pos.extra
        hand = ("T" if e["hand"][WHITE] else "") + ("t" if e["hand"][BLACK] else "")
        gates = "/".join(
            "".join(sorted(self.geometry.file_letter(s) for s in e["gates"][c])) or "-"
            for c in (WHITE, BLACK)
        )
        king2 = ("K" if e["king2"][WHITE] else "") + ("k" if e["king2"][BLACK] else "")
        last = {WHITE: "w", BLACK: "b"}.get(e["last_tq"], "-")
        return f"{hand or '-'} {gates} {king2 or '-'} {last} {e['rolled']}"

    def parse_fen_extra(self, pos: Position, text: str) -> None:
        self.default_extra(pos)
        if not text:
            # A plain FEN: Tquarcs not on the board are waiting to enter.
            pos.extra["hand"] = tuple(self.tquarc_square(pos, c) < 0 for c in (WHITE, BLACK))
            pos.extra["gates"] = tuple(
                frozenset(s for s in self.home[c] if self._original_piece(pos, s, c))
                for c in (WHITE, BLACK)
            )
            return
        parts = text.split()
        if len(parts) != 5:
            raise ValueError("Tquarchess FEN extras: hand gates king2 last-tquarc rolled")
        hand, gates, king2, last, rolled = parts
        pos.extra["hand"] = ("T" in hand, "t" in hand)
        g = self.geometry
        files = gates.split("/")
        if len(files) != 2:
            raise ValueError("Tquarchess FEN gates are written white/black, e.g. abcdefgh/abcdefgh")
        pos.extra["gates"] = tuple(
            frozenset(g.parse_square(f"{f}{1 if c == WHITE else 8}") for f in files[c] if f != "-")
            for c in (WHITE, BLACK)
        )
        pos.extra["king2"] = ("K" in king2, "k" in king2)
        pos.extra["last_tq"] = {"w": WHITE, "b": BLACK}.get(last, -1)
        if not rolled.isdigit() or int(rolled) > TQUARC_DIE:
            raise ValueError("Tquarchess FEN rolled value must be 0-4")
        pos.extra["rolled"] = int(rolled)
        pos.dice = (int(rolled),) if int(rolled) else None

    def _original_piece(self, pos: Position, sq: int, color: int) -> bool:
        p = pos.board[sq]
        start = self.parse_placement(self.start_placement)[sq]
        return p is not None and p == start and p.color == color

    def extra_key(self, pos: Position) -> Any:
        e = pos.extra
        return (e["hand"], e["gates"], e["king2"], e["last_tq"], e["rolled"])


# The Tquarcs that count as material against the insufficient-material draw (RULES.md
# section 2), in words and as a test: ``is_insufficient`` and the rule page read this.
TQUARC_MATERIAL: tuple[tuple[str, Callable[[Tquarchess, Position, int], bool]], ...] = (
    ("a Tquarc on the board", lambda rules, pos, c: bool(rules.tquarcs(pos, c))),
    ("one that can still enter", lambda rules, pos, c: rules.can_enter(pos, c)),
    (
        "one a Knight can resurrect",
        lambda rules, pos, c: rules.tquarc_lost(pos, c) and bool(pos.count("N", c)),
    ),
)


def _no_gate(move: Move) -> bool:
    return move.gate < 0


def _unrolled(text: str) -> str:
    return text.replace("%", "")


__all__ = ["Tquarchess", "TQUARC", "QUADS", "Leap"]
