"""Stone Garden Chess (Lev Grigoriev): forward Horses, Ox, Index, Policeman,
a Raven that faces one way and turns, and a King that promotes in the enemy
half. RULES.md section 4.

FEN
---
Six fields as in FIDE, then three Stone Garden counters::

    or(S)ipkir(S)o/hhhhhhhh/8/8/8/8/HHHHHHHH/OR(N)IPKIR(N)O w - - 0 1 0/0 - 0/0

- Letters: H Horse, O Ox, I Index, P Policeman, R Raven, K King; upper case White.
- A Raven carries its facing in brackets: ``R(E)`` is a White Raven facing east
  (N is toward rank 8). A Raven written without a facing faces forward.
- A promoted King is ``K(+)`` (``k(+)`` for Black).
- Castling and en passant do not exist; their fields are always ``-``.
- The halfmove clock counts plies since the last capture or Horse promotion.
- Counter 1, ``moves``: how many moves White/Black have made (for "no Raven
  turns during a side's first five moves").
- Counter 2, ``cooling``: the Ravens still cooling down after a turn, each as
  ``square:moves``, the moves her side has made since she turned (``d4:0`` she
  turned on her side's last move), comma-separated; ``-`` when none. The limit
  counts per Raven (RULES.md section 4): a Raven not listed may turn as far as
  the cooldown goes. The older form ``w/b`` (moves since *any* Raven of that
  side turned, up to 2) is still read, as that count for each of the side's Ravens.
- Counter 3, ``demotions``: how many times the White/Black King has demoted.

When the counters are left out, ``moves`` follows from the fullmove number,
no Raven is cooling down and ``demotions`` is 0/0.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

from .base import ALL_SQUARES, Result, Roller, draw, win
from .chess import KING, ChessLike
from .facts import SearchHints
from .geometry import BLACK, STANDARD, WHITE
from .notation import Texts
from .pieces import (
    DIAGONAL,
    FACINGS,
    K_STEP,
    ORTHOGONAL,
    Atom,
    Lame,
    Leap,
    Mode,
    Offset,
    PieceType,
    facing_vector,
)
from .position import Move, Piece, Position, other, piece
from .refusal import Blocked
from .sentence import N_, said, word
from .status import ORDINALS, TurnFacts, either
from .tables import Layout, stable_hash
from .words import stone_garden as words

# ----- readings and constants (RULES.md section 4) ---------------------------

# (reading) The setup: one constant. Black mirrors White across the middle, file for file.
START_FEN = "or(S)ipkir(S)o/hhhhhhhh/8/8/8/8/HHHHHHHH/OR(N)IPKIR(N)O w - - 0 1 0/0 - 0/0"

# The Policeman's middle leg: "two further steps of d" (seed); the current page says one.
POLICEMAN_MIDDLE_STEPS = 2

# Horses promote on the last rank to one of these, never to a King.
HORSE_PROMOTIONS = ("PO", "O", "I", "RA")

# (reading) Raven turning: each Raven at most once in this many of her side's consecutive
# moves (the limit counts per Raven: "*she* can turn once in 3 moves")...
TURN_WINDOW = 3
# ...or in this many while the opponent's King is promoted.
TURN_WINDOW_ENEMY_PROMOTED = 2
# (reading) No Raven may turn during its side's first five moves.
NO_TURN_MOVES = 5
# (reading) A sideways step with a turn is still her ordinary step, so it may capture.
TURN_STEP_MAY_CAPTURE = True
# (reading) A King demotes when it moves back into its own half; this many demotions draw.
DEMOTIONS_TO_DRAW = 3
# 50 moves by each side without a capture or a Horse promotion.
FIFTY_MOVE_PLIES = 100

TURN = "turn"  # Move.flag of a Raven move that turns her (in place, or stepping sideways)
PROMOTED = "+"  # Piece.state of a promoted King
_REST_CAP = max(TURN_WINDOW, TURN_WINDOW_ENEMY_PROMOTED) - 1

READINGS = (
    "Setup (reading): rank 1 O R I P K I R O, eight Horses on rank 2; Black mirrors it on "
    "ranks 8 and 7 file for file. Ravens start facing forward.",
    f"Policeman: the middle leg is {POLICEMAN_MIDDLE_STEPS} steps (the seed's version).",
    "Raven turning (reading): turn 90° in place as the whole move, or step sideways and turn "
    "to face the way she stepped (that step may capture).",
    f"Raven cooldown (reading): each Raven turns at most once in any {TURN_WINDOW} consecutive "
    f"moves of her side, once in {TURN_WINDOW_ENEMY_PROMOTED} while the opponent's King is "
    "promoted (judged when turning). The limit counts per Raven: two different Ravens of one "
    f"side may turn on consecutive moves. No Raven turns during her side's first {NO_TURN_MOVES} "
    "moves. A Raven made by promotion faces forward and has not turned yet.",
    "King (reading): promoted while in the enemy half, demoted on moving back into its own half; "
    f"the {ORDINALS[DEMOTIONS_TO_DRAW]} demotion of either King draws.",
    "Repetition (reading): a position is the board (facings and promoted Kings included), the "
    "side to move and, for a side with a Raven, what the turning rules allow. The third "
    "occurrence ends the game and the player who made it loses. Mate and stalemate are "
    "judged first, then repetition, then the draws.",
)

# ----- pieces ------------------------------------------------------------------


def _perpendiculars(d: Offset) -> tuple[Offset, Offset]:
    return (d[1], -d[0]), (-d[1], d[0])


def _scale(d: Offset, k: int) -> Offset:
    return (d[0] * k, d[1] * k)


def _add(*offsets: Offset) -> Offset:
    return (sum(o[0] for o in offsets), sum(o[1] for o in offsets))


def _ox_like(
    directions: Sequence[Offset], ends: Callable[[Offset], tuple[Offset, ...]]
) -> tuple[Atom, ...]:
    """Path d, 2d; moves or captures on the ends when both are empty; captures
    (never moves) on d, and on 2d when d is empty."""
    atoms: list[Atom] = []
    for d in directions:
        path = (d, _scale(d, 2))
        atoms.extend(Lame(path, end) for end in ends(d))
        atoms.append(Leap((d,), Mode.CAPTURE))
        atoms.append(Lame((d,), _scale(d, 2), Mode.CAPTURE))
    return tuple(atoms)


def _ox_ends(d: Offset) -> tuple[Offset, ...]:
    # The "T": 3d, 3d+p and 3d-p.
    three = _scale(d, 3)
    return (three,) + tuple(_add(three, p) for p in _perpendiculars(d))


def _index_ends(d: Offset) -> tuple[Offset, ...]:
    # 3d, 2d+(x, 0) and 2d+(0, y).
    two = _scale(d, 2)
    return (_scale(d, 3), _add(two, (d[0], 0)), _add(two, (0, d[1])))


def _policeman_atoms() -> tuple[Atom, ...]:
    """Path d, d+(d±p), then POLICEMAN_MIDDLE_STEPS more steps of d, all empty;
    then a last step straight (d) or diagonal (d±p) to move or capture. Also a
    move-only orthogonal step."""
    atoms: list[Atom] = [Leap(ORTHOGONAL, Mode.MOVE)]
    for d in ORTHOGONAL:
        for p in _perpendiculars(d):
            path = [d, _add(d, d, p)]
            for _ in range(POLICEMAN_MIDDLE_STEPS):
                path.append(_add(path[-1], d))
            last = path[-1]
            for q in _perpendiculars(d):
                atoms.append(Lame(tuple(path), _add(last, d, q)))
            atoms.append(Lame(tuple(path), _add(last, d)))
    return tuple(atoms)


def _xiangqi_horse() -> tuple[Lame, ...]:
    # An orthogonal step onto an empty square, then one diagonal step outwards.
    return tuple(Lame((d,), _add(d, d, p)) for d in ORTHOGONAL for p in _perpendiculars(d))


HORSE = PieceType(
    "H",
    "H",
    N_("Horse"),
    (Leap(((1, 2), (-1, 2))),),
    words=N_(
        "leaps two squares forward and one to the side (a knight that only goes forward), "
        "over anything between; on the last rank it must promote"
    ),
    brief=N_("a Knight's leap, forward only"),
)
OX = PieceType(
    "O",
    "O",
    N_("Ox"),
    _ox_like(ORTHOGONAL, _ox_ends),
    words=N_(
        "picks an orthogonal direction; when the first two squares that way are empty it "
        "moves or captures on the third square or on either square beside the third (a T); it "
        "also captures, but never moves, on the first square, and on the second when the first "
        "is empty"
    ),
    brief=N_("3 straight, or beside the 3rd"),
)
INDEX = PieceType(
    "I",
    "I",
    N_("Index"),
    _ox_like(DIAGONAL, _index_ends),
    words=N_(
        "is the Ox turned 45 degrees: it picks a diagonal direction; when the first two "
        "squares that way are empty it moves or captures on the third, or one square straight on "
        "from the second (either way); it also captures, but never moves, on the first diagonal "
        "square, and on the second when the first is empty"
    ),
    brief=N_("the Ox turned 45°"),
)
POLICEMAN = PieceType(
    "PO",
    "P",
    N_("Policeman"),
    _policeman_atoms(),
    words="goes one square orthogonally, one square diagonally outward, then "
    f"{POLICEMAN_MIDDLE_STEPS} squares straight on, all empty, and moves or captures one "
    "square further, straight on or diagonally; it may also step one square orthogonally "
    "without capturing",
    brief=N_("a long bent run; steps 1"),
)
# The Policeman's words as the catalogue holds them (its middle leg filled in; a test checks
# that every piece's words are in the catalogue).
N_(
    "goes one square orthogonally, one square diagonally outward, then 2 squares straight on, "
    "all empty, and moves or captures one square further, straight on or diagonally; it may "
    "also step one square orthogonally without capturing"
)
# Frame offsets are (right, ahead) of her facing: 1 or 2 ahead, 1 or 2 diagonally back, 1 aside.
RAVEN = PieceType(
    "RA",
    "R",
    N_("Raven"),
    (Leap(((0, 1), (0, 2), (1, -1), (-1, -1), (2, -2), (-2, -2), (1, 0), (-1, 0))),),
    facing_relative=True,
    words=N_(
        "faces one way: she leaps one or two squares straight ahead, one or two squares "
        "diagonally backward, or steps one square sideways, moving and capturing alike"
    ),
    brief=N_("1-2 ahead, 1-2 back aslant, 1 aside"),
)
# Not a piece type of its own: the King's moves while its state is '+'.
PROMOTED_KING = PieceType("K", "K", N_("Promoted King"), (K_STEP, *_xiangqi_horse()), is_royal=True)


def _promotion_reading() -> str:
    """The Horse's promotion choices in words, from ``HORSE_PROMOTIONS``."""
    types = {t.id: t for t in (OX, INDEX, POLICEMAN, RAVEN)}
    choices = either(f"{types[k].name} ({types[k].letter})" for k in HORSE_PROMOTIONS)
    letter = types[HORSE_PROMOTIONS[0]].letter
    return (
        f"Horse promotion: a Horse reaching the last rank must promote to a {choices}, "
        f"never to a King (written Hd8={letter})."
    )


_FORWARD = {WHITE: "N", BLACK: "S"}
_TURN_SUFFIX = re.compile(r"\^([NESWnesw])$")
_TURN_MARK = re.compile(r"\^[NESW]")


class StoneGarden(ChessLike):
    key = "stone_garden"
    notation_examples = N_("Hc3, Oa4, Ie3, Pd5, Re4^E or Rd4^E (a Raven turning), Hd8=P")
    title = N_("Stone Garden Chess")
    summary = (
        "Forward-leaping Horses, the Ox and Index (T-shaped leapers that capture on their "
        "path), the long-armed Policeman, Ravens that face one way and may turn, and a King "
        "that promotes in the enemy half. Stalemate wins; a threefold repetition loses for "
        "the player who made it."
    )
    readings = (*READINGS, _promotion_reading())
    geometry = STANDARD
    piece_types = (HORSE, OX, INDEX, POLICEMAN, RAVEN, KING)
    castling = False
    double_step = False
    en_passant = False
    promotion_kinds = HORSE_PROMOTIONS
    start_placement = START_FEN.split()[0]
    # The search: checkmate wins; the Horses count with the pawns; the noisy moves are
    # cheaper made for their squares only (64 against 209 microseconds a position).
    search = SearchHints(mating=True, narrow_noisy=True, pawn_like=("H",))
    extra_sprites = ("KP",)  # the promoted King
    legend_kinds = ("O", "I", "PO", "RA", "H")  # every piece but the King is new
    # Facts of the rules above, read by the words too (``words.stone_garden``).
    raven: ClassVar[PieceType] = RAVEN
    no_turn_moves: ClassVar[int] = NO_TURN_MOVES  # no Raven turns in her side's first moves
    demotions_to_draw: ClassVar[int] = DEMOTIONS_TO_DRAW
    turn_suffix: ClassVar[re.Pattern[str]] = _TURN_SUFFIX  # a turn as written, e.g. ^E

    def __init__(self) -> None:
        super().__init__()
        g = self.geometry
        self._turns: list[int] = []  # per square: where a Raven there can end a turn (it, beside)
        for s in range(g.size):
            mask = 1 << s
            for f in FACINGS:
                to = g.offset(s, *facing_vector(f))
                if to is not None:
                    mask |= 1 << to
            self._turns.append(mask)

    def prepare_layout(self, lay: Layout) -> None:
        super().prepare_layout(lay)
        # Each side's Raven shapes (one per facing), by colour.
        self._raven_shapes = tuple(lay.kind_shapes.get((c, RAVEN.id), ()) for c in (WHITE, BLACK))

    def initial_position(self, options: dict[str, Any], roll: Roller) -> Position:
        return self.from_fen(START_FEN)

    def shape_keys(self) -> list[tuple[PieceType, int, str]]:
        """A promoted King moves as a piece of its own (King plus xiangqi horse)."""
        return super().shape_keys() + [(PROMOTED_KING, WHITE, "N"), (PROMOTED_KING, BLACK, "S")]

    def shape_for(self, kind: str, color: int, state: str) -> tuple[PieceType, int, str]:
        if kind == KING.id and state == PROMOTED:
            return (PROMOTED_KING, color, "N" if color == WHITE else "S")
        return super().shape_for(kind, color, state)

    def promotes(self, kind: str) -> bool:
        """A Horse reaching the last rank must promote."""
        return kind == HORSE.id

    # ----- halves and Raven turning ---------------------------------------------

    def in_enemy_half(self, sq: int, color: int) -> bool:
        """Ranks 5-8 are the enemy half for White, ranks 1-4 for Black."""
        upper = self.geometry.rank_of(sq) >= self.geometry.height // 2
        return upper if color == WHITE else not upper

    def is_promoted_king(self, pos: Position, color: int) -> bool:
        k = pos.kings[color]
        p = pos.board[k] if k >= 0 else None
        return p is not None and p.state == PROMOTED

    def may_turn(self, pos: Position, sq: int) -> bool:
        """May the Raven on ``sq`` turn: not in her side's first five moves, and not
        within her own cooldown window (RULES.md section 4, "Raven turning")."""
        p = pos.board[sq]
        assert p is not None
        color = p.color
        if pos.extra["moves"][color] < NO_TURN_MOVES:
            return False
        return self.rest(pos, sq) >= self.turn_window(pos, color) - 1

    def rest(self, pos: Position, sq: int) -> int:
        """Her side's moves since the Raven on ``sq`` turned, counted up to the cap."""
        for s, r in pos.extra["cooling"]:
            if s == sq:
                return int(r)
        return _REST_CAP

    def turn_wait(self, pos: Position, sq: int) -> tuple[int, str]:
        """How many more of her side's moves the Raven on ``sq`` must wait before
        she may turn (0: she may turn now), and why, in words."""
        p = pos.board[sq]
        assert p is not None
        color = p.color
        done = pos.extra["moves"][color]
        if done < NO_TURN_MOVES:
            return (
                NO_TURN_MOVES - done,
                said("no Raven may turn during her side's first {n} moves", n=NO_TURN_MOVES),
            )
        if self.may_turn(pos, sq):
            return 0, ""
        window = self.turn_window(pos, color)
        rest = self.rest(pos, sq)
        if rest == 0:
            why = said(
                "this Raven turned on her side's last move; a Raven may turn once in {window} "
                "moves",
                window=word(_NUMBERS[window]),
            )
        else:
            why = said(
                "this Raven turned {ago} moves ago; a Raven may turn once in {window} moves",
                ago=word(_NUMBERS[rest + 1]),
                window=word(_NUMBERS[window]),
            )
        return window - 1 - rest, why

    def turn_window(self, pos: Position, color: int) -> int:
        """Once in three moves; once in two while the opponent's King is promoted."""
        if self.is_promoted_king(pos, other(color)):
            return TURN_WINDOW_ENEMY_PROMOTED
        return TURN_WINDOW

    # ----- in words: status and refusals (variants/words/stone_garden.py) ---------

    def relaxed_moves(self, pos: Position, to_mask: int = ALL_SQUARES) -> list[Blocked]:
        """Raven turns out of time or out of shape, and a Horse promoting to a King."""
        return words.relaxed_moves(self, pos)

    def explain_text(
        self, pos: Position, text: str, legal: Sequence[Move]
    ) -> tuple[str, str] | None:
        said = words.explain_text(self, pos, text, legal)
        return said if said is not None else super().explain_text(pos, text, legal)

    def turn_facts(self, pos: Position, legal: Sequence[Move]) -> TurnFacts:
        """Raven turning and promoted Kings as they stand (RULES.md section 4)."""
        return words.turn_facts(self, pos, legal)

    # ----- moves ---------------------------------------------------------------------

    def special_moves(self, pos: Position, to_mask: int = ALL_SQUARES) -> list[Move]:
        """Raven turns: 90° in place, or a sideways step turning to face that way
        (RULES.md section 4, reading); those of the Ravens that could end on ``to_mask``."""
        color = pos.turn
        if pos.extra["moves"][color] < NO_TURN_MOVES:
            return []
        out: list[Move] = []
        ravens = 0
        bb = pos.bb
        self.lay  # noqa: B018 (the Raven shapes are known once the tables are built)
        for s in self._raven_shapes[color]:
            ravens |= bb[s]
        board = pos.board
        while ravens:  # by square, as the board reads
            b = ravens & -ravens
            ravens ^= b
            sq = b.bit_length() - 1
            p = board[sq]
            assert p is not None
            if not to_mask & self._turns[sq]:  # it or a square beside it
                continue
            if not self.may_turn(pos, sq):
                continue
            i = FACINGS.index(p.state)
            sides = (FACINGS[(i + 1) % 4], FACINGS[(i - 1) % 4])
            out.extend(Move(sq, sq, TURN, facing=f) for f in sides)
            for f in sides:
                to = self.geometry.offset(sq, *facing_vector(f))
                if to is None:
                    continue
                t = pos.board[to]
                if t is None or (TURN_STEP_MAY_CAPTURE and t.color != color):
                    out.append(Move(sq, to, TURN, facing=f))
        return out

    def promoted_state(self, move: Move, p: Piece) -> str:
        # A Raven created by promotion faces forward.
        return _FORWARD[p.color] if move.promo == RAVEN.id else ""

    def make(self, pos: Position, move: Move, roll: Roller) -> Position:
        new = pos.copy()
        color = pos.turn
        if move.frm != move.to:
            self.move_piece(new, move)
        if move.flag == TURN:
            new.clear(move.to)
            new.put(move.to, piece(RAVEN.id, color, move.facing))
        moved = new.board[move.to]
        assert moved is not None
        if moved.kind == KING.id:
            # Promoted in the enemy half; demoted on moving back into its own half.
            state = PROMOTED if self.in_enemy_half(move.to, color) else ""
            if moved.state == PROMOTED and not state:
                new.extra["demotions"] = _bump(new.extra["demotions"], color, 1)
            if moved.state != state:
                new.clear(move.to)
                new.put(move.to, piece(KING.id, color, state))
        new.extra["moves"] = _bump(new.extra["moves"], color, 1)
        if pos.extra["cooling"] or move.flag == TURN:
            new.extra["cooling"] = self.cooling_after(pos, move)
        self.finish(new, move, pos)
        return new

    def cooling_after(self, pos: Position, move: Move) -> tuple[tuple[int, int], ...]:
        """Each Raven's cooldown after ``move``: the mover's Ravens count one more move
        (and leave the list when free), a Raven that moves takes her count along, one
        that turns starts at 0, and a captured Raven leaves the list."""
        color = pos.turn
        board = pos.board
        out: dict[int, int] = {}
        for sq, r in pos.extra["cooling"]:
            p = board[sq]
            assert p is not None
            if p.color != color:
                if not (sq == move.to and move.frm != move.to):  # unless captured now
                    out[sq] = r
            elif not (move.flag == TURN and sq == move.frm) and r + 1 < _REST_CAP:
                out[move.to if sq == move.frm else sq] = r + 1
        if move.flag == TURN:
            out[move.to] = 0
        return tuple(sorted(out.items()))

    def finish(self, new: Position, move: Move, old: Position) -> None:
        """The clock restarts on a capture or a Horse promotion."""
        if self.is_capture(old, move) or move.promo:
            new.halfmove = 0
        else:
            new.halfmove = old.halfmove + 1
        if old.turn == BLACK:
            new.fullmove += 1
        new.turn = 1 - old.turn  # ``other``

    # ----- end of game -----------------------------------------------------------------

    def can_still_win(self, pos: Position, color: int) -> bool:
        """Always: a stalemated player wins, and a lone King can promote and mate
        (RULES.md section 7)."""
        return True

    def outcome(self, pos: Position, history: Sequence[Any]) -> Result | None:
        """RULES.md section 4, "End": the stalemated player wins, the repeater loses."""
        mover = other(pos.turn)  # who made the last move
        if not self.has_legal_move(pos):
            if self.in_check(pos):
                return win(mover, N_("checkmate"))
            return win(pos.turn, N_("stalemate: no legal move wins"))
        if history and history.count(history[-1]) >= 3:
            return win(pos.turn, N_("threefold repetition: the repeating player loses"))
        if max(pos.extra["demotions"]) >= DEMOTIONS_TO_DRAW:
            return draw(N_("third demotion of a King"))
        if self._bare_kings(pos):
            return draw(N_("bare Kings"))
        if pos.halfmove >= FIFTY_MOVE_PLIES:
            return draw(N_("50 moves without a capture or Horse promotion"))
        return None

    def _bare_kings(self, pos: Position) -> bool:
        """Is every piece on the board a King?"""
        if (pos.occ[0] | pos.occ[1]).bit_count() > 2:
            return False  # one King a side at most
        table = self.lay.kind_shapes
        kings = 0
        bb = pos.bb
        for c in (WHITE, BLACK):
            for s in table.get((c, KING.id), ()):
                kings |= bb[s]
        return not (pos.occ[0] | pos.occ[1]) & ~kings

    def repetition_key(self, pos: Position) -> Any:
        # The turning counters only matter to a side that has a Raven.
        e = pos.extra
        bb = pos.bb
        moves = e["moves"]
        self.lay  # noqa: B018 (the Raven shapes are known once the tables are built)
        early = []
        for c, shapes in enumerate(self._raven_shapes):
            ravens = 0
            for s in shapes:
                ravens |= bb[s]
            early.append(min(moves[c], NO_TURN_MOVES) if ravens else None)
        return pos.zkey ^ stable_hash((pos.turn, tuple(early), e["cooling"]))

    # ----- notation ----------------------------------------------------------------------

    def san(self, pos: Position, move: Move, legal: Sequence[Move]) -> str:
        """``Hd8=P``; a turn adds ``^`` and the new facing: ``Re4^E``, in place ``Rd4^E``."""
        if move[2] != TURN:
            return ChessLike.san(self, pos, move, legal)  # called directly: most texts
        if move.frm == move.to:
            return f"{RAVEN.letter}{self.name(move.frm)}^{move.facing}"
        plain = move._replace(flag="", facing="")
        return super().san(pos, plain, [m for m in legal if m.flag != TURN]) + f"^{move.facing}"

    def parse(self, pos: Position, text: str, legal: Sequence[Move], texts: Texts) -> Move:
        """Text ending ``^X`` names a turn to X; any other text names a move without one."""
        m = _TURN_SUFFIX.search(self.normalize(text)) if text and len(text) <= 64 else None
        if m:
            facing = m.group(1).upper()
            body = self.normalize(text)[: m.start()]
            keep = [i for i, mv in enumerate(legal) if mv.flag == TURN and mv.facing == facing]
        else:
            body = text
            keep = [i for i, mv in enumerate(legal) if mv.flag != TURN]
        # A refused text is explained by ``explain.py`` (which names every legal action).
        return super().parse(
            pos, body, [legal[i] for i in keep], [_strip_turn(texts[i]) for i in keep]
        )

    # ----- FEN -----------------------------------------------------------------------------

    def fen_extra(self, pos: Position) -> str:
        e = pos.extra
        cooling = ",".join(f"{self.name(sq)}:{r}" for sq, r in e["cooling"]) or "-"
        pair = "{0[0]}/{0[1]}".format
        return f"{pair(e['moves'])} {cooling} {pair(e['demotions'])}"

    def parse_fen_extra(self, pos: Position, text: str) -> None:
        for sq, p in enumerate(pos.board):
            if p is None:
                continue
            if p.kind == RAVEN.id and not p.state:
                pos.clear(sq)
                pos.put(sq, piece(RAVEN.id, p.color, _FORWARD[p.color]))
            elif p.kind == RAVEN.id and p.state not in FACINGS:
                raise ValueError(f"a Raven faces N, E, S or W, not {p.state!r}")
            elif p.kind == KING.id and p.state not in ("", PROMOTED):
                raise ValueError(f"a King's state is '+' (promoted) or nothing, not {p.state!r}")
            elif p.kind not in (RAVEN.id, KING.id) and p.state:
                raise ValueError(f"the {self.types[p.kind].name} carries no state ({p.state!r})")
        if not text:
            done = pos.fullmove - 1
            pos.extra = {
                "moves": (done + (pos.turn == BLACK), done),
                "cooling": (),
                "demotions": (0, 0),
            }
            return
        fields = text.split()
        usage = (
            "Stone Garden FEN counters: moves (white/black), cooling Ravens ('-' or "
            "'d4:0,b1:1') and demotions (white/black)"
        )
        if len(fields) != 3:
            raise ValueError(usage)
        pairs = [fields[0].split("/"), fields[2].split("/")]
        if any(len(p) != 2 or not all(v.isdigit() for v in p) for p in pairs):
            raise ValueError(usage)
        moves, demotions = ((int(a), int(b)) for a, b in pairs)
        pos.extra = {
            "moves": moves,
            "cooling": self.parse_cooling(pos, fields[1]),
            "demotions": demotions,
        }

    def parse_cooling(self, pos: Position, text: str) -> tuple[tuple[int, int], ...]:
        """The cooling field: ``-``, ``d4:0,b1:1``, or the older per-side ``w/b``."""
        out: dict[int, int] = {}
        legacy = re.fullmatch(r"(\d+)/(\d+)", text)
        if legacy:
            per_side = (int(legacy.group(1)), int(legacy.group(2)))
            if max(per_side) > _REST_CAP:
                raise ValueError(f"the Raven rest counter goes up to {_REST_CAP}")
            for sq, p in enumerate(pos.board):
                if p is not None and p.kind == RAVEN.id and per_side[p.color] < _REST_CAP:
                    out[sq] = per_side[p.color]
            return tuple(sorted(out.items()))
        if text == "-":
            return ()
        for item in text.split(","):
            m = re.fullmatch(r"([a-h][1-8]):(\d+)", item)
            sq = self.geometry.parse_square(m.group(1)) if m else -1
            p = pos.board[sq] if sq >= 0 else None
            if m is None or p is None or p.kind != RAVEN.id:
                raise ValueError(
                    f"Stone Garden FEN cooling: {item!r} is not a Raven's square:moves"
                )
            if int(m.group(2)) >= _REST_CAP:
                raise ValueError(
                    f"a cooling Raven has made fewer than {_REST_CAP} moves since turning"
                )
            out[sq] = int(m.group(2))
        return tuple(sorted(out.items()))


def _strip_turn(text: str | None) -> str | None:
    return _TURN_MARK.sub("", text) if text is not None else None


_NUMBERS = ("no", N_("one"), N_("two"), N_("three"), N_("four"), N_("five"), N_("six"))


def _no_dice(sides: int) -> int:
    """Stone Garden rolls no dice; ``make`` takes a roller only to fit the core's hook."""
    return 1


def _bump(pair: tuple[int, int], color: int, by: int) -> tuple[int, int]:
    return (pair[0] + by, pair[1]) if color == WHITE else (pair[0], pair[1] + by)


__all__ = ["StoneGarden", "HORSE", "OX", "INDEX", "POLICEMAN", "RAVEN", "PROMOTED_KING"]
