"""FIDE machinery shared by the chess-like variants: pawns (double step, en
passant, promotion), castling, check, and the FIDE draws."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, ClassVar

from .base import (
    ALL_SQUARES,
    CASTLE_KINGSIDE,
    CASTLE_QUEENSIDE,
    Result,
    Roller,
    Variant,
    draw,
    win,
)
from .geometry import BLACK, WHITE, forward
from .pieces import K_STEP, B, Leap, Mode, N, PieceType, R
from .position import Move, Position, other, piece
from .sentence import N_, said, word
from .tables import Layout, stable_hash

KING = PieceType(
    "K", "K", N_("King"), (K_STEP,), is_royal=True, words=N_("moves one square in any direction")
)
QUEEN = PieceType(
    "Q",
    "Q",
    N_("Queen"),
    (R, B),
    words=N_("moves any number of empty squares in a straight line, orthogonally or diagonally"),
)
ROOK = PieceType(
    "R", "R", N_("Rook"), (R,), words=N_("moves any number of empty squares along its rank or file")
)
BISHOP = PieceType(
    "B", "B", N_("Bishop"), (B,), words=N_("moves any number of empty squares diagonally")
)
KNIGHT = PieceType(
    "N",
    "N",
    N_("Knight"),
    (N,),
    words=N_("leaps two squares one way and one square to the side (an L), over anything between"),
)
PAWN = PieceType(
    "P",
    "P",
    N_("Pawn"),
    (Leap(((0, 1),), Mode.MOVE), Leap(((-1, 1), (1, 1)), Mode.CAPTURE)),
    is_pawn=True,
    words=N_(
        "moves one square straight forward (two from its start square, across an empty "
        "square) and captures one square diagonally forward"
    ),
)
FIDE_PIECES = (KING, QUEEN, ROOK, BISHOP, KNIGHT, PAWN)

FIDE_START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"


class ChessLike(Variant):
    """FIDE rules, with switches for what a variant leaves out."""

    castling: ClassVar[bool] = True
    double_step: ClassVar[bool] = True
    en_passant: ClassVar[bool] = True
    promotion_kinds: ClassVar[tuple[str, ...]] = ("Q", "R", "B", "N")
    fifty_move_rule: ClassVar[bool] = True
    repetition_draw: ClassVar[bool] = True
    insufficient_material: ClassVar[bool] = True
    start_placement: ClassVar[str] = FIDE_START
    home_ranks: ClassVar[tuple[int, int]] = (1, 8)  # rank labels of the back ranks
    pawn_ranks: ClassVar[tuple[int, int]] = (2, 7)
    free_moves: ClassVar[bool] = True  # no dice here; Guardener's and Jepps' setup say otherwise

    def __init__(self) -> None:
        super().__init__()
        g = self.geometry
        # Cached geometry for the hot paths of move generation.
        self._double_starts = (
            g.rank_squares(self.pawn_ranks[0]),
            g.rank_squares(self.pawn_ranks[1]),
        )
        self._double_masks = tuple(sum(1 << s for s in squares) for squares in self._double_starts)
        self._step = (g.width, -g.width)  # one square forward, by colour
        self._double_dests = tuple(
            sum(1 << (s + 2 * step) for s in squares)
            for squares, step in zip(self._double_starts, self._step, strict=True)
        )
        # (king, rook) -> (king to, rook to, squares between, mask of those squares)
        self._castle_paths: dict[tuple[int, int], tuple[int, int, tuple[int, ...], int]] = {}
        self._pawn_shapes: tuple[tuple[int, ...], tuple[int, ...]] = ((), ())
        self._doubles: dict[int, Move] = {}
        # (rights, the King's square) -> the rights left once that King has moved
        self._rights_after: dict[tuple[frozenset[int], int], frozenset[int]] = {}
        self._dark = sum(1 << sq for sq in g.squares if g.dark[sq])
        self._start: Position | None = None  # the start, built once (``initial_position``)
        # FENs read before -> their positions, kept unchanged (``from_fen`` hands out copies)
        self._fens: dict[str, Position] = {}
        # Every square a castling King can end on (``_castle_path``: the g- and c-files).
        if self.castling:
            self.castle_targets = sum(
                1 << sq for sq in g.squares if g.file_letter(sq) in ("c", "g")
            )

    def prepare_layout(self, lay: Layout) -> None:
        """Pawns promote on the last rank; remember the pawn shapes for double steps."""
        for shape in lay.shapes:
            if self.promotes(shape.kind):
                shape.promote = sum(
                    1 << s for s in self.geometry.rank_squares(self.last_rank(shape.color))
                )
        self._pawn_shapes = tuple(  # type: ignore[assignment]
            tuple(s.index for s in lay.by_color[c] if s.kind == "P") for c in (WHITE, BLACK)
        )

    def has_pawns(self, pos: Position) -> bool:
        self.lay  # noqa: B018 (the pawn shapes are known once the tables are built)
        bb = pos.bb
        for side in self._pawn_shapes:
            for s in side:
                if bb[s]:
                    return True
        return False

    def promotes(self, kind: str) -> bool:
        """Does a piece of this kind promote on reaching the last rank?"""
        return bool(self.types[kind].is_pawn)

    # ----- setup ---------------------------------------------------------

    def initial_position(self, options: dict[str, Any], roll: Roller) -> Position:
        start = self._start
        if start is None:
            start = self.attach(Position(self.parse_placement(self.start_placement)))
            start.find_kings()
            if self.castling:
                start.castling = self.initial_castling(start)
            self._start = start
        return start.copy()  # a new position each time (the first one is kept unchanged)

    def initial_castling(self, pos: Position) -> frozenset[int]:
        g = self.geometry
        rights = set()
        for color, label in ((WHITE, self.home_ranks[0]), (BLACK, self.home_ranks[1])):
            for name in (f"a{label}", f"h{label}"):
                sq = g.parse_square(name)
                p = pos.board[sq]
                k = g.parse_square(f"e{label}")
                kp = pos.board[k]
                if (
                    p is not None
                    and p.kind == "R"
                    and p.color == color
                    and kp is not None
                    and kp.kind == "K"
                ):
                    rights.add(sq)
        return frozenset(rights)

    def last_rank(self, color: int) -> int:
        return self.home_ranks[1] if color == WHITE else self.home_ranks[0]

    # ----- pawns ---------------------------------------------------------

    def pseudo_moves(self, pos: Position, to_mask: int = ALL_SQUARES) -> list[Move]:
        color = pos.turn
        out = self.ordinary_moves(pos, color, True, to_mask)
        # Double steps, unless only moves to other squares are asked for.
        if self.double_step and to_mask & self._double_dests[color]:
            self.double_steps(pos, color, out)
        if self.en_passant and pos.ep >= 0:
            g = self.geometry
            board = pos.board
            behind = pos.ep - forward(color) * g.width
            for df in (-1, 1):
                frm = g.offset(behind, df, 0)
                if frm is None:
                    continue
                p = board[frm]
                if p is not None and p.color == color and p.kind == "P":
                    out.append(Move(frm, pos.ep, "ep", aux=behind))
        return out

    def double_steps(self, pos: Position, color: int, out: list[Move]) -> None:
        """Pawns on their start rank stepping two squares across an empty one."""
        self.lay  # noqa: B018 (the pawn shapes are known once the tables are built)
        pawns = 0
        for s in self._pawn_shapes[color]:
            pawns |= pos.bb[s]
        pawns &= self._double_masks[color]
        if not pawns:
            return
        occ = pos.occ[0] | pos.occ[1]
        step = self._step[color]
        doubles = self._doubles
        while pawns:
            b = pawns & -pawns
            pawns ^= b
            sq = b.bit_length() - 1
            if not (occ >> (sq + step) & 1 or occ >> (sq + 2 * step) & 1):
                m = doubles.get(sq)
                if m is None:
                    m = doubles[sq] = Move(sq, sq + 2 * step, "double")
                out.append(m)

    def promotion_choices(self, pos: Position, move: Move) -> Sequence[str]:
        return self.promotion_kinds

    # ----- castling ------------------------------------------------------

    def castling_moves(self, pos: Position, to_mask: int = ALL_SQUARES) -> list[Move]:
        """Castling as in FIDE: king and rook unmoved, the squares between empty.

        The king goes to the g- or c-file, the rook beside it on the inside.
        Check conditions are added by ``castling_safe``. Only the castlings whose
        King ends on ``to_mask``.
        """
        out: list[Move] = []
        color = pos.turn
        king = pos.kings[color]
        if king < 0 or not pos.castling:
            return out
        if not to_mask & self.castle_targets:  # only moves to other squares asked for
            return out
        board = pos.board
        occ = pos.occ[0] | pos.occ[1]
        for rook in sorted(pos.castling):
            rp = board[rook]
            if rp is None or rp.color != color:
                continue
            path = self._castle_paths.get((king, rook))
            if path is None:
                path = self._castle_path(king, rook)
                self._castle_paths[king, rook] = path
            k_to, _, _, between = path
            if k_to < 0 or occ & between or not to_mask >> k_to & 1:
                continue
            if not self.castling_safe(pos, king, k_to):
                continue
            out.append(Move(king, k_to, "castle", aux=rook))
        return out

    def _castle_path(self, king: int, rook: int) -> tuple[int, int, tuple[int, ...], int]:
        """King and rook destinations, the squares that must be empty and their mask
        (k_to is -1 when king and rook do not share a rank)."""
        g = self.geometry
        if g.rank_of(rook) != g.rank_of(king):
            return (-1, -1, (), 0)
        kingside = g.file_of(rook) > g.file_of(king)
        label = g.rank_label(king)
        k_to = g.parse_square(f"{'g' if kingside else 'c'}{label}")
        r_to = g.parse_square(f"{'f' if kingside else 'd'}{label}")
        lo = min(king, rook, k_to, r_to)
        hi = max(king, rook, k_to, r_to)
        between = tuple(s for s in range(lo, hi + 1) if s not in (king, rook))
        return (k_to, r_to, between, sum(1 << s for s in between))

    def castling_safe(self, pos: Position, king: int, k_to: int) -> bool:
        if not self.has_check:
            return True
        if self.danger(pos)[0]:  # in check (read once per position)
            return False
        enemy = 1 - pos.turn
        step = 1 if k_to > king else -1
        for s in range(king + step, k_to + step, step):
            if self.is_attacked(pos, s, enemy):
                return False
        return True

    def special_moves(self, pos: Position, to_mask: int = ALL_SQUARES) -> list[Move]:
        return self.castling_moves(pos, to_mask) if self.castling and pos.castling else []

    # ----- making moves --------------------------------------------------

    def make(self, pos: Position, move: Move, roll: Roller) -> Position:
        new = pos.copy()
        self.make_board(new, move)
        self.finish(new, move, pos)
        return new

    def make_board(self, new: Position, move: Move) -> None:
        """The board part of an ordinary, castling, en passant or double-step move."""
        new.ep = -1
        flag = move[2]
        if flag == "castle":
            g = self.geometry
            kingside = move.to > move.frm
            r_to = move.to - 1 if kingside else move.to + 1
            rook = new.clear(move.aux)
            king = new.clear(move.frm)
            assert rook is not None and king is not None
            new.put(move.to, king)
            new.put(r_to, rook)
            new.kings[new.turn] = move.to
            new.castling = frozenset(s for s in new.castling if g.rank_of(s) != g.rank_of(move.frm))
            return
        if flag == "ep":
            new.clear(move.aux)
        self.move_piece(new, move)
        frm, to = move[0], move[1]
        if flag == "double":
            new.ep = (frm + to) // 2
        rights = new.castling
        if rights:
            if new.kings[new.turn] == to:  # the King moved: its rank's rights go
                key = (rights, frm)
                after = self._rights_after.get(key)
                if after is None:
                    g = self.geometry
                    home = g.rank_of(frm)
                    after = frozenset(s for s in rights if g.rank_of(s) != home)
                    if len(self._rights_after) < 4096:
                        self._rights_after[key] = after
                rights = after
            if frm in rights or to in rights:
                rights = rights - {frm, to}
            new.castling = rights

    # ----- notation ------------------------------------------------------

    def san(self, pos: Position, move: Move, legal: Sequence[Move]) -> str:
        if move[2] == "castle":
            return CASTLE_KINGSIDE if move[1] > move[0] else CASTLE_QUEENSIDE
        return self.plain_san(pos, move, legal)  # ``Notation.san``

    # ----- explanations --------------------------------------------------

    def explain_text(
        self, pos: Position, text: str, legal: Sequence[Move]
    ) -> tuple[str, str] | None:
        """Castling written as ``O-O`` / ``O-O-O`` (with or without an entry after it)."""
        word = re.sub(r"/T.*$", "", self.normalize(text))
        if word not in (CASTLE_KINGSIDE, CASTLE_QUEENSIDE):
            return None
        return self.castling_refusal(pos, word == CASTLE_KINGSIDE)

    def castling_refusal(self, pos: Position, kingside: bool) -> tuple[str, str] | None:
        """Why this castling is not legal: rights, empty squares between, check."""
        if not self.castling:
            return "no-castling", said(
                "there is no castling in {variant}", variant=word(self.title)
            )
        g = self.geometry
        color = pos.turn
        king = pos.kings[color]
        label = self.home_ranks[color]
        wing = said("kingside (O-O)") if kingside else said("queenside (O-O-O)")
        rook = g.parse_square(f"{'h' if kingside else 'a'}{label}")
        if king < 0 or rook not in pos.castling:
            return (
                "castling-rights",
                said(
                    "castling {wing} needs a King and Rook that have never moved; your King or "
                    "the {square} Rook has moved",
                    wing=wing,
                    square=self.name(rook),
                ),
            )
        k_to, _, between, _ = self._castle_path(king, rook)
        busy = [s for s in between if pos.board[s] is not None]
        if busy:
            return (
                "blocked",
                said(
                    "castling {wing} needs the squares between King and Rook empty; "
                    "{square} is occupied",
                    wing=wing,
                    square=self.name(busy[0]),
                ),
            )
        if self.has_check:
            enemy = other(color)
            if self.is_attacked(pos, king, enemy):
                return "castling-check", said("you may not castle out of check")
            step = 1 if k_to > king else -1
            for s in range(king + step, k_to + step, step):
                if self.is_attacked(pos, s, enemy):
                    return (
                        "castling-check",
                        said(
                            "the King may not castle through or into check: {square} is attacked",
                            square=self.name(s),
                        ),
                    )
        return None

    def reach_refusal(self, pos: Position, frm: int, to: int) -> tuple[str, str] | None:
        """The pawn's double step and en passant, then the generic movement check."""
        p = pos.board[frm]
        g = self.geometry
        if p is not None and self.types[p.kind].is_pawn and self.double_step:
            up = forward(p.color) * g.width
            if to == frm + 2 * up:
                start = self.pawn_ranks[p.color]
                if frm not in self._double_starts[p.color]:
                    return (
                        "unreachable",
                        said(
                            "a pawn steps two squares only from its start square (rank {rank})",
                            rank=start,
                        ),
                    )
                if pos.board[frm + up] is not None:
                    return (
                        "blocked",
                        said(
                            "the pawn on {square} is blocked by the piece on {blocker_square}",
                            square=self.name(frm),
                            blocker_square=self.name(frm + up),
                        ),
                    )
                if pos.board[to] is not None:
                    return "no-capture", said("a pawn does not capture straight ahead")
                return None
        found = super().reach_refusal(pos, frm, to)
        if found is not None and found[0] == "capture-only" and self.en_passant:
            pawn = p is not None and self.types[p.kind].is_pawn
            if pawn:
                return (
                    "capture-only",
                    said(
                        "a pawn moves diagonally only to capture (en passant only right after an "
                        "enemy pawn's double step past it)"
                    ),
                )
        return found

    # ----- end of game ---------------------------------------------------

    def outcome(self, pos: Position, history: Sequence[Any]) -> Result | None:
        if not self.has_legal_move(pos):
            if self.in_check(pos):
                return win(other(pos.turn), N_("checkmate"))
            return draw(N_("stalemate"))
        if self.insufficient_material and self.is_insufficient(pos):
            return draw(N_("insufficient material"))
        if self.fifty_move_rule and pos.halfmove >= 100:
            return draw(N_("fifty-move rule"))
        if self.repetition_draw and history and history.count(history[-1]) >= 3:
            return draw(N_("threefold repetition"))
        return None

    def is_insufficient(self, pos: Position) -> bool:
        """Dead position by material: K v K, K+minor v K, K+B v K+B with bishops on one colour."""
        if self.has_pawns(pos):
            return False
        bb = pos.bb
        others = bishops = knights = 0
        for shape in self.lay.shapes:
            b = bb[shape.index]
            if b and shape.kind != "K":
                others |= b
                if shape.kind == "B":
                    bishops |= b
                elif shape.kind == "N":
                    knights |= b
        if not others:
            return True
        if others.bit_count() == 1 and others & (bishops | knights):
            return True
        if others == bishops:
            return not bishops & self._dark or not bishops & ~self._dark
        return False

    def repetition_key(self, pos: Position) -> Any:
        """Positions repeat when the board, side, castling rights and a real en passant
        repeat: the pieces' Zobrist key and a stable hash of the rest (64 bits)."""
        ep = pos.ep
        if ep >= 0 and not (
            self.en_passant
            and self._pawn_beside(pos)
            and any(m.flag == "ep" for m in self.legal_moves_to(pos, 1 << ep, castles=False))
        ):
            ep = -1
        return pos.zkey ^ stable_hash((pos.turn, pos.castling, ep, pos.dice, self.extra_key(pos)))

    def _pawn_beside(self, pos: Position) -> bool:
        """Does a pawn of the side to move stand where it could take en passant
        (``pseudo_moves``)? Only then can the en passant square matter."""
        g = self.geometry
        color = pos.turn
        board = pos.board
        behind = pos.ep - forward(color) * g.width
        for df in (-1, 1):
            frm = g.offset(behind, df, 0)
            if frm is not None:
                p = board[frm]
                if p is not None and p.color == color and p.kind == "P":
                    return True
        return False

    def extra_key(self, pos: Position) -> Any:
        return tuple(sorted(pos.extra.items()))

    # ----- FEN -----------------------------------------------------------

    def fen(self, pos: Position) -> str:
        g = self.geometry
        rights = ""
        for color in (WHITE, BLACK):
            for rook in sorted(pos.castling, reverse=True):
                p = pos.board[rook]
                if p is None or p.color != color:
                    continue
                flag = (
                    "K"
                    if g.file_letter(rook) == "h"
                    else "Q"
                    if g.file_letter(rook) == "a"
                    else g.file_letter(rook).upper()
                )
                rights += flag if color == WHITE else flag.lower()
        ep = g.square_name(pos.ep) if pos.ep >= 0 else "-"
        fields = [
            self.placement(pos),
            "w" if pos.turn == WHITE else "b",
            rights or "-",
            ep,
            str(pos.halfmove),
            str(pos.fullmove),
        ]
        extra = self.fen_extra(pos)
        return " ".join(fields + ([extra] if extra else []))

    def fen_extra(self, pos: Position) -> str:
        return ""

    def parse_fen_extra(self, pos: Position, text: str) -> None:
        if text:
            raise ValueError(f"unexpected extra FEN field {text!r}")

    def from_fen(self, fen: str) -> Position:
        known = self._fens.get(fen) if isinstance(fen, str) else None
        if known is None:
            known = self.read_fen(fen)
            if len(self._fens) >= _FENS_KEPT:
                self._fens.clear()
            self._fens[fen] = known
        return known.copy()

    def read_fen(self, fen: str) -> Position:
        """The position a FEN describes, read afresh (``from_fen`` remembers them)."""
        parts = fen.split()
        if len(parts) < 1:
            raise ValueError("empty FEN")
        parts += ["w", "-", "-", "0", "1"][len(parts) - 1 :]
        placement, turn, rights, ep, half, full = parts[:6]
        board = self.parse_placement(placement)
        if turn not in ("w", "b"):
            raise ValueError(f"FEN side to move must be 'w' or 'b', not {turn!r}")
        pos = Position(board, WHITE if turn == "w" else BLACK)
        pos.find_kings()
        self.attach(pos)
        g = self.geometry
        castling = set()
        if rights != "-":
            for ch in rights:
                color = WHITE if ch.isupper() else BLACK
                label = self.home_ranks[color]
                file_ = {"K": "h", "Q": "a"}.get(ch.upper(), ch.lower())
                name = f"{file_}{label}"
                if not g.is_square_name(name):
                    raise ValueError(f"bad castling flag {ch!r} in FEN")
                sq = g.parse_square(name)
                p = board[sq]
                if p is None or p.kind != "R" or p.color != color:
                    raise ValueError(f"castling flag {ch!r} but no rook on {name}")
                castling.add(sq)
        pos.castling = frozenset(castling) if self.castling else frozenset()
        pos.ep = -1 if ep == "-" else g.parse_square(ep)
        try:
            pos.halfmove, pos.fullmove = int(half), int(full)
        except ValueError:
            raise ValueError("FEN move counters must be numbers") from None
        self.parse_fen_extra(pos, " ".join(parts[6:]))
        return pos


_FENS_KEPT = 256  # positions ``ChessLike.from_fen`` remembers


def pawn_kind_is(pos: Position, sq: int, kind: str = "P") -> bool:
    p = pos.board[sq]
    return p is not None and p.kind == kind


__all__ = ["ChessLike", "FIDE_PIECES", "FIDE_START", "piece"]
