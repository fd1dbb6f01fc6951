"""The shared machinery under every variant.

A variant is data (geometry, piece set, setup, readings) plus a few hooks:
``special_moves`` (castling, gating, teleports...), ``permits`` (which moves
the dice allow), ``make`` for special flags, and ``outcome`` (game end).
Generic move generation reads the pieces' atoms through ``reach_table``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar

from .errors import AmbiguousMove, BadNotation, NotLegalHere, legal_hint
from .geometry import BLACK, WHITE, Geometry, color_name
from .pieces import Mode, PieceType, Reach, reach_table
from .position import Move, Piece, Position, other, piece
from .record import Token, numbered
from .refusal import Blocked
from .status import TurnFacts

Roller = Callable[[int], int]

CASTLE_KINGSIDE = "O-O"
CASTLE_QUEENSIDE = "O-O-O"


@dataclass(frozen=True)
class Result:
    winner: str | None  # 'white', 'black', or None for a draw
    reason: str

    @property
    def score(self) -> str:
        return {"white": "1-0", "black": "0-1", None: "1/2-1/2"}[self.winner]

    def __str__(self) -> str:
        if self.winner is None:
            return f"draw ({self.reason})"
        return f"{self.winner} wins ({self.reason})"


@dataclass(frozen=True)
class Chance:
    """One way the dice can fall next (``Variant.chances``): the values a roller
    returns, in order, to produce it, and its exact probability."""

    rolls: tuple[int, ...]
    probability: Fraction


def win(color: int, reason: str) -> Result:
    return Result(color_name(color), reason)


def draw(reason: str) -> Result:
    return Result(None, reason)


class Variant:
    """Base class: data as class attributes, hooks as methods."""

    key: ClassVar[str]
    title: ClassVar[str]
    summary: ClassVar[str] = ""
    readings: ClassVar[tuple[str, ...]] = ()
    geometry: ClassVar[Geometry]
    piece_types: ClassVar[tuple[PieceType, ...]]
    has_check: ClassVar[bool] = True
    royal: ClassVar[str] = "K"
    dice_sides: ClassVar[int] = 0  # sides of the dice shown for the side to act, 0 if none
    # How actions are written, for the 'not an action in this notation' refusal.
    notation_examples: ClassVar[str] = "e4, Nf3, Bxc6, O-O, e8=Q"
    option_names: ClassVar[tuple[str, ...]] = ()
    # Kinds that come back from the lost pieces when they return to the board
    # (a resurrection): the lost-pieces bars drop them again (``Game.captured``).
    returns_from_lost: ClassVar[tuple[str, ...]] = ()

    def __init__(self) -> None:
        self.types: dict[str, PieceType] = {t.id: t for t in self.piece_types}
        self.by_letter: dict[str, PieceType] = {t.letter: t for t in self.piece_types}
        self._reach: dict[tuple[str, int, str], tuple[Reach | None, ...]] = {}
        # id(piece) -> (piece, table). The entry holds the piece, so its id cannot
        # be reused while cached; pieces are shared values (``position.piece``).
        self._reach_of: dict[int, tuple[Piece, tuple[Reach | None, ...]]] = {}

    def zones(self) -> dict[str, tuple[int, ...]]:
        """Labelled groups of special squares the picture shows (terraces, Tquads)."""
        return {}

    def die_sides(self, pos: Position) -> int:
        """Sides of the dice showing in ``pos`` (``dice_sides`` unless a variant says otherwise)."""
        return self.dice_sides

    def turn_facts(self, pos: Position, legal: Sequence[Move]) -> TurnFacts:
        """What is special about the turn of the side to act, in words (``status.describe``).
        ``legal`` is the list of legal actions in ``pos``."""
        return TurnFacts()

    def material(self, pos: Position, color: int) -> list[str]:
        """The kinds of one side's pieces on the board (one entry per piece)."""
        return [p.kind for p in pos.board if p is not None and p.color == color]

    # ----- options -------------------------------------------------------

    def check_options(self, options: dict[str, Any]) -> dict[str, Any]:
        unknown = sorted(set(options) - set(self.option_names))
        if unknown:
            allowed = ", ".join(self.option_names) or "none"
            raise ValueError(f"unknown option(s) {', '.join(unknown)}; {self.key} takes: {allowed}")
        return dict(options)

    # ----- setup ---------------------------------------------------------

    def initial_position(self, options: dict[str, Any], roll: Roller) -> Position:
        raise NotImplementedError

    def start_turn(self, pos: Position, roll: Roller) -> tuple[int, ...]:
        """Roll whatever the side to act rolls before acting; return the values."""
        return ()

    def chances(self, pos: Position, move: Move | None = None) -> tuple[Chance, ...]:
        """The chance hook: which dice can fall next, and with what probability, so
        that a search can enumerate them instead of sampling.

        - ``move`` None: the dice ``start_turn(pos, roll)`` rolls for the side to act.
        - ``move`` given (a legal action in ``pos``): the dice ``make(pos, move, roll)``
          rolls while making it (the Tquarc's d4, a Jepps Random ``reroll``).

        Each ``Chance`` lists the values a roller returns, in order, to produce that
        outcome; feeding them to the call through a scripted roller reproduces it.
        The probabilities are exact and sum to 1. Where the rules roll again by
        themselves until something usable comes up (Jepps Random's setup), only the
        accepted rolls are listed, with the conditioned probabilities. Roll sequences
        that lead to the same position are listed once, under one of them, with their
        probabilities summed; ordered dice that differ are different positions
        (Guardener's 2d4 gives 16 outcomes). Empty: nothing is rolled. A variant
        whose ``start_turn`` or ``make`` rolls overrides this.
        """
        return ()

    # ----- geometry helpers ---------------------------------------------

    def reach(self, p: Piece) -> tuple[Reach | None, ...]:
        entry = self._reach_of.get(id(p))
        if entry is not None and entry[0] is p:
            return entry[1]
        facing = p.state if self.types[p.kind].facing_relative else ("N" if p.color == WHITE else "S")
        k = (p.kind, p.color, facing)
        table = self._reach.get(k)
        if table is None:
            table = reach_table(self.geometry, self.types[p.kind], facing)
            self._reach[k] = table
        self._reach_of[id(p)] = (p, table)
        return table

    def name(self, sq: int) -> str:
        return self.geometry.names[sq]

    # ----- attacks -------------------------------------------------------

    def attacks(self, pos: Position, frm: int, to: int) -> bool:
        """Could the piece on ``frm`` capture on ``to`` by its movement (dice aside)?"""
        p = pos.board[frm]
        if p is None:
            return False
        reach = self.reach(p)[frm]
        assert reach is not None
        paths = reach.captures.get(to)
        return paths is not None and _any_open(pos.board, paths)

    def is_attacked(self, pos: Position, sq: int, by: int) -> bool:
        board = pos.board
        reach_of = self.reach
        # Read the per-piece cache inline unless a subclass decides reach itself.
        cache = self._reach_of if type(self).reach is Variant.reach else {}
        for frm, p in enumerate(board):
            if p is None or p.color != by:
                continue
            entry = cache.get(id(p))
            table = entry[1] if entry is not None and entry[0] is p else reach_of(p)
            paths = table[frm].captures.get(sq)  # type: ignore[union-attr]
            if paths and _any_open(board, paths):
                return True
        return False

    def lone_blockers(self, pos: Position, sq: int, by: int) -> set[int]:
        """Squares whose piece alone stands on some capture path of a ``by``
        piece to ``sq``: moving that piece away could expose ``sq``."""
        out: set[int] = set()
        board = pos.board
        for frm, p in enumerate(board):
            if p is None or p.color != by:
                continue
            paths = self.reach(p)[frm].captures.get(sq)  # type: ignore[union-attr]
            if not paths:
                continue
            for path in paths:
                blocker = -1
                for s in path:
                    if board[s] is not None:
                        if blocker >= 0:
                            blocker = -1
                            break
                        blocker = s
                if blocker >= 0:
                    out.add(blocker)
        return out

    def in_check(self, pos: Position, color: int | None = None) -> bool:
        if not self.has_check:
            return False
        c = pos.turn if color is None else color
        k = pos.kings[c]
        return k >= 0 and self.is_attacked(pos, k, other(c))

    # ----- move generation ----------------------------------------------

    def piece_moves(self, pos: Position, frm: int, p: Piece, out: list[Move]) -> None:
        """Ordinary moves of one piece by its atoms (no specials, no dice)."""
        reach = self.reach(p)[frm]
        assert reach is not None
        board = pos.board
        color = p.color
        # Modes are the three Mode members: compare by identity (IntFlag '&' is slow).
        for to, mode in reach.leaps:
            t = board[to]
            if t is None:
                if mode is not _CAPTURE_ONLY:
                    out.append(Move(frm, to))
            elif t.color != color and mode is not _MOVE_ONLY:
                out.append(Move(frm, to))
        for ray, mode in reach.rays:
            for to in ray:
                t = board[to]
                if t is None:
                    if mode is not _CAPTURE_ONLY:
                        out.append(Move(frm, to))
                    continue
                if t.color != color and mode is not _MOVE_ONLY:
                    out.append(Move(frm, to))
                break
        for path, to, mode in reach.lames:
            for s in path:
                if board[s] is not None:
                    break
            else:
                t = board[to]
                if t is None:
                    if mode is not _CAPTURE_ONLY:
                        out.append(Move(frm, to))
                elif t.color != color and mode is not _MOVE_ONLY:
                    out.append(Move(frm, to))

    def pseudo_moves(self, pos: Position) -> list[Move]:
        out: list[Move] = []
        color = pos.turn
        for frm, p in enumerate(pos.board):
            if p is not None and p.color == color:
                self.piece_moves(pos, frm, p, out)
        return out

    def expand(self, pos: Position, moves: list[Move]) -> list[Move]:
        """Turn raw board moves into actions (promotion choices and the like)."""
        return moves

    def special_moves(self, pos: Position) -> list[Move]:
        return []

    def permits(self, pos: Position, move: Move) -> bool:
        """Do the dice (or other turn rules) allow this move now?"""
        return True

    def candidate_moves(self, pos: Position) -> list[Move]:
        """Every action the pieces could make, before the dice (``permits``) and the
        check filter decide: the list the explanations search when a text is refused."""
        return self.expand(pos, self.pseudo_moves(pos)) + self.special_moves(pos)

    def legal_moves(self, pos: Position) -> list[Move]:
        moves = [m for m in self.candidate_moves(pos) if self.permits(pos, m)]
        if self.has_check:
            moves = self.filter_checks(pos, moves)
        return moves

    def filter_checks(self, pos: Position, moves: list[Move]) -> list[Move]:
        """Drop moves that leave the mover's own King attacked."""
        color = pos.turn
        king = pos.kings[color]
        if king < 0:
            return moves
        enemy = other(color)
        in_check = self.is_attacked(pos, king, enemy)
        exposed = self.lone_blockers(pos, king, enemy) if not in_check else set()
        out = []
        for m in moves:
            if m.frm < 0 and m.to < 0:  # a roll or a pass leaves the board alone
                out.append(m)
                continue
            if not in_check and m.frm != king and m.frm not in exposed and m.flag in ("", "double"):
                out.append(m)
                continue
            new = self.make(pos, m, _no_roll)
            k = new.kings[color]
            if k < 0 or not self.is_attacked(new, k, enemy):
                out.append(m)
        return out

    # ----- explanations (``explain.py``): hooks for what differs -------------

    def why_not_permitted(self, pos: Position, move: Move) -> tuple[str, str]:
        """The rule by which ``permits`` refuses ``move``: (cause code, message)."""
        return "not-allowed", "that move is not allowed now"

    def relaxed_moves(self, pos: Position) -> list[Blocked]:
        """Moves the variant's own rules take away before ``permits`` and the check
        filter (an assist missing, a Raven cooling down, a teleport out of turn...),
        each with the rule; generated only when a text is refused."""
        return []

    def explain_text(self, pos: Position, text: str, legal: Sequence[Move]) -> tuple[str, str] | None:
        """A refusal for a whole word or phrase (castling, a setup word), if any."""
        return None

    def reach_refusal(self, pos: Position, frm: int, to: int) -> tuple[str, str] | None:
        """Why the piece on ``frm`` cannot go to ``to`` by its movement, or None."""
        from .explain import reach_refusal

        return reach_refusal(self, pos, frm, to)

    def has_legal_move(self, pos: Position) -> bool:
        return bool(self.legal_moves(pos))

    # ----- making moves -------------------------------------------------

    def make(self, pos: Position, move: Move, roll: Roller) -> Position:
        """The position after ``move``. Subclasses handle their own flags first."""
        new = pos.copy()
        self.move_piece(new, move)
        self.finish(new, move, pos)
        return new

    def move_piece(self, new: Position, move: Move) -> Piece | None:
        """Lift the piece from ``frm`` to ``to`` (promoting), returning any capture."""
        board = new.board
        p = board[move.frm]
        assert p is not None
        captured = board[move.to]
        if move.promo:
            p = piece(move.promo, p.color, self.promoted_state(move, p))
        board[move.to] = p
        board[move.frm] = None
        if p.kind == self.royal:
            new.kings[p.color] = move.to
        if captured is not None and captured.kind == self.royal:
            new.kings[captured.color] = -1
        return captured

    def promoted_state(self, move: Move, p: Piece) -> str:
        return ""

    def finish(self, new: Position, move: Move, old: Position) -> None:
        """Counters and turn after a move (halfmove clock, fullmove, side to move)."""
        moved = old.board[move.frm] if move.frm >= 0 else None
        capture = move.to >= 0 and old.board[move.to] is not None or move.flag == "ep"
        if capture or (moved is not None and self.types[moved.kind].is_pawn):
            new.halfmove = 0
        else:
            new.halfmove += 1
        if old.turn == BLACK:
            new.fullmove += 1
        new.turn = other(old.turn)

    # ----- end of game ---------------------------------------------------

    def outcome(self, pos: Position, history: Sequence[Any]) -> Result | None:
        """The result at the start of the side to move's turn, or None."""
        return None

    def repetition_key(self, pos: Position) -> Any:
        return pos.key()

    def is_terminal(self, pos: Position) -> bool:
        """A cheap test for positions where play stops (used by perft)."""
        return False

    # ----- FEN -------------------------------------------------------------

    def fen(self, pos: Position) -> str:
        raise NotImplementedError

    def from_fen(self, fen: str) -> Position:
        raise NotImplementedError

    def auto_note(self, pos: Position) -> str:
        """Actions the rules made by themselves after the last one, for the record,
        each in parentheses, e.g. ``(Rh1)``; replay skips them."""
        return ""

    def in_setup(self, pos: Position) -> bool:
        """Is ``pos`` in a setup phase (the record may write those actions apart)?"""
        return False

    def record_lines(self, tokens: Sequence[Token], options: dict[str, Any]) -> list[str]:
        """The record's body: numbered moves with every roll (``1. [2 3] Nf3 [1 4] e5``)."""
        return [" ".join(numbered(tokens))]

    def record_text(self, pos: Position, san: str, move: Move, values: Sequence[int]) -> str:
        """The action as the record shows it, given the position it was made in and
        the values rolled while making it."""
        return self.recorded(san, move, values)

    def folded_roll(self, pos: Position, move: Move) -> tuple[str, str] | None:
        """When ``move`` carries a value rolled by an earlier action of the same turn:
        that action's recorded text and how the record writes it now, else None."""
        return None

    def recorded(self, san: str, move: Move, values: Sequence[int]) -> str:
        """The action as the record shows it: each '%' takes the value rolled,
        and any further rolls follow in brackets (e.g. ``reroll [3 3]``)."""
        rest = list(values)
        out = []
        for ch in san:
            if ch == "%" and rest:
                out.append(f"%{rest.pop(0)}")
            else:
                out.append(ch)
        text = "".join(out)
        if rest:
            text += " [" + " ".join(str(v) for v in rest) + "]"
        return text

    # ----- notation ------------------------------------------------------

    def is_capture(self, pos: Position, move: Move) -> bool:
        if move.flag == "ep":
            return True
        if move.to < 0 or move.flag in ("teleport", "drop", "place", "relocate", "castle"):
            return False
        t = pos.board[move.to]
        return t is not None and t.color != pos.turn

    def san(self, pos: Position, move: Move, legal: Sequence[Move]) -> str:
        """The canonical text of ``move`` (check marks are added by the caller)."""
        p = pos.board[move.frm]
        assert p is not None
        t = self.types[p.kind]
        dest = self.name(move.to)
        capture = "x" if self.is_capture(pos, move) else ""
        rivals = [
            m.frm
            for m in legal
            if m.to == move.to
            and m.frm != move.frm
            and m.flag == move.flag
            and _kind_at(pos, m.frm) == p.kind
        ]
        if t.is_pawn:
            # A pawn stepping along its own file is written bare (e4); one that
            # leaves its file names it (exd5, and King's Guard's sideways de3).
            g = self.geometry
            prefix = "" if g.file_of(move.frm) == g.file_of(move.to) and not capture else g.file_letter(move.frm)
            if any(g.file_of(r) == g.file_of(move.frm) for r in rivals):
                prefix = self.name(move.frm)
        else:
            prefix = t.letter + (self.disambiguate(move.frm, rivals) if rivals else "")
        text = f"{prefix}{capture}{dest}"
        if move.promo:
            text += "=" + self.types[move.promo].letter
        return text

    def disambiguate(self, frm: int, rivals: Iterable[int]) -> str:
        g = self.geometry
        rivals = list(rivals)
        file_ = g.file_letter(frm)
        rank = str(g.rank_label(frm))
        if all(g.file_of(r) != g.file_of(frm) for r in rivals):
            return file_
        if all(g.rank_of(r) != g.rank_of(frm) for r in rivals):
            return rank
        return file_ + rank

    def format_moves(self, pos: Position, moves: Sequence[Move]) -> list[str]:
        texts = [self.san(pos, m, moves) for m in moves]
        if self.has_check:
            texts = [t + self.check_mark(pos, m) for t, m in zip(texts, moves, strict=True)]
        return texts

    def check_mark(self, pos: Position, move: Move) -> str:
        if move.flag in ("roll", "reroll", "pass", "place", "mirror", "reverse"):
            return ""
        new = self.make(pos, move, _no_roll)
        if not self.in_check(new):
            return ""
        return "+" if self.has_legal_move(new) else "#"

    # forgiving parser -----------------------------------------------------

    def normalize(self, text: str) -> str:
        """Strip what the parser forgives: annotations, check marks, roll values."""
        # The record's own additions read back too: automatic notes "(Rh1)" and the
        # values a re-roll drew "[6 4]" (they are decided by the game, not the player).
        t = re.sub(r"\(\S*\)|\[[\d\s]*\]", " ", text).strip()
        t = re.sub(r"[!?]+$", "", t)
        t = re.sub(r"[+#]+$", "", t)
        t = t.replace("0-0-0", CASTLE_QUEENSIDE).replace("0-0", CASTLE_KINGSIDE)
        t = t.replace("O~O~O", CASTLE_QUEENSIDE).replace("O~O", CASTLE_KINGSIDE)
        t = re.sub(r"%\d*", "%", t)
        return t

    def parse(self, pos: Position, text: str, legal: Sequence[Move], texts: Sequence[str]) -> Move:
        """The one legal move that ``text`` names."""
        if not text or not text.strip():
            raise BadNotation("empty move; " + self.legal_hint(texts))
        if len(text) > 64:
            raise BadNotation("that is too long to be a move; " + self.legal_hint(texts))
        if text in texts:  # the canonical text names its own action
            return legal[texts.index(text)]
        norm = self.normalize(text)
        plain = [self.normalize(t) for t in texts]

        def squash(s: str) -> str:
            return s.replace("x", "").replace(" ", "").replace("-", "") if s not in (
                CASTLE_KINGSIDE,
                CASTLE_QUEENSIDE,
            ) else s

        exact = [m for m, t in zip(legal, plain, strict=True) if t == norm]
        if len(exact) == 1:
            return exact[0]
        loose = [m for m, t in zip(legal, plain, strict=True) if squash(t) == squash(norm)]
        if len(loose) == 1:
            return loose[0]
        coord = self.parse_coordinates(norm, legal)
        if coord is not None:
            return self.pick(coord, norm, pos, legal, texts)
        pattern = self.parse_pattern(norm, pos, legal)
        if pattern is not None:
            return self.pick(pattern, norm, pos, legal, texts)
        if self.looks_like_move(norm):
            raise NotLegalHere(f"{text.strip()!r} is not legal here; " + self.legal_hint(texts))
        raise BadNotation(f"cannot read {text.strip()!r} as a move; " + self.legal_hint(texts))

    def pick(
        self, matches: list[Move], text: str, pos: Position, legal: Sequence[Move], texts: Sequence[str]
    ) -> Move:
        if len(matches) == 1:
            return matches[0]
        if not matches:
            raise NotLegalHere(f"{text!r} is not legal here; " + self.legal_hint(texts))
        names = sorted({texts[legal.index(m)] for m in matches})
        err = AmbiguousMove(f"{text!r} is ambiguous: it could be {', '.join(names)}")
        err.choices = tuple(names)
        raise err

    def legal_hint(self, texts: Sequence[str]) -> str:
        return legal_hint(texts)

    _COORD = re.compile(r"^([a-z]\d)-?([a-z]\d)(?:=?([A-Za-z]))?$")
    _SAN = re.compile(r"^([A-Z])?([a-z])?(\d)?x?([a-z]\d)(?:=?([A-Z]))?$")

    def parse_coordinates(self, text: str, legal: Sequence[Move]) -> list[Move] | None:
        m = self._COORD.match(text)
        if not m:
            return None
        g = self.geometry
        if not (g.is_square_name(m.group(1)) and g.is_square_name(m.group(2))):
            return None
        frm, to = g.parse_square(m.group(1)), g.parse_square(m.group(2))
        promo_letter = (m.group(3) or "").upper()
        out = []
        for mv in legal:
            # An entering piece (gate) is always written out, never implied.
            if mv.gate >= 0:
                continue
            if mv.frm == frm and mv.to == to and mv.flag not in ("teleport", "drop"):
                promo = self.types[mv.promo].letter if mv.promo else ""
                if promo == promo_letter or (not promo_letter and not mv.promo):
                    out.append(mv)
        return out

    def parse_pattern(self, text: str, pos: Position, legal: Sequence[Move]) -> list[Move] | None:
        m = self._SAN.match(text)
        if not m:
            return None
        letter, file_, rank, dest, promo = m.groups()
        g = self.geometry
        if not g.is_square_name(dest):
            return None
        to = g.parse_square(dest)
        out = []
        for mv in legal:
            if mv.to != to or mv.frm < 0 or mv.gate >= 0:
                continue
            if mv.flag in ("teleport", "drop", "place", "relocate"):
                continue
            p = pos.board[mv.frm]
            if p is None:
                continue
            t = self.types[p.kind]
            if letter and t.letter != letter and not (t.is_pawn and letter == t.letter):
                continue
            if not letter and not t.is_pawn:
                continue
            if file_ and g.file_letter(mv.frm) != file_:
                continue
            if rank and str(g.rank_label(mv.frm)) != rank:
                continue
            if (promo or "") != (self.types[mv.promo].letter if mv.promo else ""):
                continue
            out.append(mv)
        return out

    def looks_like_move(self, text: str) -> bool:
        return bool(re.search(r"[a-z]\d", text)) or text.upper().startswith("O-O")

    # ----- FEN -----------------------------------------------------------

    def piece_code(self, p: Piece) -> str:
        letter = self.types[p.kind].letter
        code = letter if p.color == WHITE else letter.lower()
        return f"{code}({p.state})" if p.state else code

    def placement(self, pos: Position) -> str:
        """FEN piece placement, top rank first; holes are written '*'."""
        g = self.geometry
        rows = []
        for r in range(g.height - 1, -1, -1):
            row = ""
            empty = 0
            for f in range(g.width):
                sq = f + r * g.width
                p = pos.board[sq]
                if not g.on_board[sq]:
                    if empty:
                        row += str(empty)
                        empty = 0
                    row += "*"
                elif p is None:
                    empty += 1
                else:
                    if empty:
                        row += str(empty)
                        empty = 0
                    row += self.piece_code(p)
            if empty:
                row += str(empty)
            rows.append(row)
        return "/".join(rows)

    def parse_placement(self, text: str) -> list[Piece | None]:
        g = self.geometry
        rows = text.split("/")
        if len(rows) != g.height:
            raise ValueError(f"FEN placement needs {g.height} ranks, got {len(rows)}")
        board: list[Piece | None] = [None] * g.size
        for i, row in enumerate(rows):
            r = g.height - 1 - i
            f = 0
            pos = 0
            for m in _PLACEMENT_TOKEN.finditer(row):
                if m.start() != pos:
                    break
                pos = m.end()
                if m.group(1):
                    f += int(m.group(1))
                    continue
                if m.group(0) == "*":
                    f += 1
                    continue
                letter, state = m.group(2), m.group(3) or ""
                t = self.by_letter.get(letter.upper())
                if t is None:
                    raise ValueError(f"unknown piece letter {letter!r} in FEN")
                sq = g.square_at(f, r)
                if sq is None:
                    raise ValueError(f"FEN puts a piece off the board on rank {r + g.first_rank}")
                board[sq] = piece(t.id, WHITE if letter.isupper() else BLACK, state)
                f += 1
            if pos != len(row):
                raise ValueError(f"cannot read FEN rank {row!r}")
            if f != g.width:
                raise ValueError(f"FEN rank {r + g.first_rank} has {f} files, expected {g.width}")
        return board


_MOVE_ONLY = Mode.MOVE
_CAPTURE_ONLY = Mode.CAPTURE

_PLACEMENT_TOKEN = re.compile(r"(\d+)|\*|([A-Za-z])(?:\(([^)]*)\))?")


def _any_open(board: Sequence[Piece | None], paths: Iterable[tuple[int, ...]]) -> bool:
    """Is any of these paths free of pieces?"""
    for path in paths:
        for s in path:
            if board[s] is not None:
                break
        else:
            return True
    return False


def _no_roll(sides: int) -> int:
    """Dice stand-in for looking ahead (legality tests and check marks): rolls never matter there."""
    return 1


def _kind_at(pos: Position, sq: int) -> str | None:
    p = pos.board[sq] if sq >= 0 else None
    return p.kind if p is not None else None
