"""Notation: the canonical formatter and the forgiving parser, shared by every variant.

``Notation`` is a mixin of ``Variant``: it reads the variant's types, geometry
and hooks. The parser matches a text against the legal moves structurally and
needs the canonical texts only of the moves the text can name: ``candidates``
says which, so that ``Game.play`` formats one or two moves rather than all.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any, ClassVar, TypeVar

from .errors import AmbiguousMove, BadNotation, NotLegalHere, legal_hint
from .geometry import BLACK, WHITE, Geometry
from .pieces import PieceType
from .position import Move, Piece, Position, piece
from .sentence import said

T = TypeVar("T")

CASTLE_KINGSIDE = "O-O"
CASTLE_QUEENSIDE = "O-O-O"

# A text the caller did not format (``Game.play`` formats only the candidates).
Texts = Sequence[str | None]

_PLACEMENT_TOKEN = re.compile(r"(\d+)|\*|([A-Za-z])(?:\(([^)]*)\))?")
_NOTES = re.compile(r"\(\S*\)|\[[\d\s]*\]")
_ANNOTATION = re.compile(r"[!?]+$")
_CHECK_MARKS = re.compile(r"[+#]+$")
_ROLLED = re.compile(r"%\d*")
_NO_ROLL = 1  # the value looking ahead assumes for any die (rolls never matter there)

# Texts remembered by ``Notation.named_squares`` and ``normalize`` (the same few hundred
# make up most games).
_NAMED_MAX = 8192
_NAMED_LENGTH = 16  # longer texts are not remembered


def _remembered(table: dict[str, T], text: str, make: Callable[[str], T]) -> T:
    """``make(text)``, kept in ``table`` if ``text`` is short (the table is emptied when
    it is full)."""
    known = table.get(text)
    if known is None:
        known = make(text)
        if len(text) <= _NAMED_LENGTH:
            if len(table) >= _NAMED_MAX:
                table.clear()
            table[text] = known
    return known


def _squash(s: str) -> str:
    """A normalised text without captures' x, spaces and hyphens (castling kept)."""
    if s in (CASTLE_KINGSIDE, CASTLE_QUEENSIDE):
        return s
    return s.replace("x", "").replace(" ", "").replace("-", "")


def _no_roll(sides: int) -> int:
    """Dice stand-in for looking ahead (legality tests and check marks): rolls never matter there."""
    return _NO_ROLL


class Notation:
    """SAN-like notation for every variant (RULES.md, common terms)."""

    # Provided by ``Variant``.
    geometry: ClassVar[Geometry]
    has_check: ClassVar[bool]
    types: dict[str, PieceType]
    by_letter: dict[str, PieceType]
    _named: dict[str, int]  # text -> the squares it names (``named_squares``)
    _normal: dict[str, str]  # text -> its normal form (``normalize``)
    # the last legal texts read (``_readings``): (texts, normalised, squashed)
    _readings_memo: tuple[tuple[str | None, ...], list[str | None], list[str | None]] | None

    def name(self, sq: int) -> str:
        return self.geometry.names[sq]

    def make(self, pos: Position, move: Move, roll: Any) -> Position:
        raise NotImplementedError

    def in_check(self, pos: Position, color: int | None = None) -> bool:
        raise NotImplementedError

    def has_legal_move(self, pos: Position) -> bool:
        raise NotImplementedError

    _COORD = re.compile(r"^([a-z]\d)-?([a-z]\d)(?:=?([A-Za-z]))?$")
    _SAN = re.compile(r"^([A-Z])?([a-z])?(\d)?x?([a-z]\d)(?:=?([A-Z]))?$")

    # ----- formatting --------------------------------------------------------

    def is_capture(self, pos: Position, move: Move) -> bool:
        if move.flag == "ep":
            return True
        if move.to < 0 or move.flag in ("teleport", "drop", "place", "relocate", "castle"):
            return False
        t = pos.board[move.to]
        return t is not None and t.color != pos.turn

    def san(self, pos: Position, move: Move, legal: Sequence[Move]) -> str:
        """The canonical text of ``move`` (check marks are added by the caller)."""
        return self.plain_san(pos, move, legal)

    def plain_san(self, pos: Position, move: Move, legal: Sequence[Move], rival: Any = None) -> str:
        """A piece move written ``Nf3``, ``exd5``, ``R1e2``, ``e8=Q``: disambiguated
        against the ``legal`` moves of the same kind to the same square with the
        same flag (and, when given, for which ``rival(m)`` is true)."""
        board = pos.board
        frm, to, flag = move[0], move[1], move[2]
        p = board[frm]
        assert p is not None
        kind = p.kind
        t = self.types[kind]
        dest = self.geometry.names[to]
        if flag == "ep":  # ``is_capture``, written out for the ordinary flags
            capture = "x"
        elif not flag or flag == "double":
            target = board[to]
            capture = "x" if target is not None and target.color != pos.turn else ""
        else:
            capture = "x" if self.is_capture(pos, move) else ""
        rivals = []
        for m in legal:
            other = m[0]
            if m[1] != to or other == frm or other < 0 or m[2] != flag:
                continue
            q = board[other]
            if q is not None and q.kind == kind and (rival is None or rival(m)):
                rivals.append(other)
        if t.is_pawn:
            # A pawn stepping along its own file is written bare (e4); one that
            # leaves its file names it (exd5, and King's Guard's sideways de3).
            g = self.geometry
            width = g.width
            file_ = frm % width
            prefix = "" if file_ == to % width and not capture else g.files[file_]
            for r in rivals:
                if r % width == file_:
                    prefix = g.names[frm]
                    break
        else:
            prefix = t.letter + (self.disambiguate(frm, rivals) if rivals else "")
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
        # A move is disambiguated only against moves to the same square: each text is
        # formatted against those alone (not the whole list every time).
        by_to: dict[int, list[Move]] = {}
        for m in moves:
            by_to.setdefault(m.to, []).append(m)
        texts = [self.san(pos, m, by_to[m.to]) for m in moves]
        if self.has_check:
            texts = [t + self.check_mark(pos, m) for t, m in zip(texts, moves, strict=True)]
        return texts

    def format_move(
        self, pos: Position, move: Move, legal: Sequence[Move], after: Position | None = None
    ) -> str:
        """The canonical text of one move with its check mark; ``after`` is the
        position it leads to when the caller has made it already."""
        text = self.san(pos, move, legal)
        if self.has_check:
            text += self.check_mark(pos, move, after)
        return text

    def check_mark(self, pos: Position, move: Move, after: Position | None = None) -> str:
        if move.flag in ("roll", "reroll", "pass", "place", "mirror", "reverse"):
            return ""
        new = after if after is not None else self.make(pos, move, _no_roll)
        if not self.in_check(new):
            return ""
        return "+" if self.has_legal_move(new) else "#"

    # ----- the forgiving parser -----------------------------------------------

    def normalize(self, text: str) -> str:
        """Strip what the parser forgives: annotations, check marks, roll values.
        Remembered per text (the parser normalises every legal text at each reading)."""
        return _remembered(self._normal, text, self._normalize)

    def _normalize(self, text: str) -> str:
        # The record's own additions read back too: automatic notes "(Rh1)" and the
        # values a re-roll drew "[6 4]" (they are decided by the game, not the player).
        t = _NOTES.sub(" ", text).strip()
        t = _ANNOTATION.sub("", t)
        t = _CHECK_MARKS.sub("", t)
        if "0-0" in t:
            t = t.replace("0-0-0", CASTLE_QUEENSIDE).replace("0-0", CASTLE_KINGSIDE)
        if "O~O" in t:
            t = t.replace("O~O~O", CASTLE_QUEENSIDE).replace("O~O", CASTLE_KINGSIDE)
        if "%" in t:
            t = _ROLLED.sub("%", t)
        return t

    def candidates(self, text: str, legal: Sequence[Move]) -> list[bool]:
        """Which legal moves ``text`` can name, by any form the parser reads: every
        canonical text contains its destination's name, except castling and
        actions without one (``roll``, ``pass``...). Over-inclusion is harmless;
        the parser gives the same answer as with every text formatted."""
        if not isinstance(text, str):
            return [False] * len(legal)
        squashed = text.replace("x", "").replace(" ", "").replace("-", "")
        names = self.geometry.names
        out = []
        for m in legal:
            to = m.to
            if to < 0 or m.flag == "castle":
                out.append(True)
            else:
                name = names[to]
                out.append(name in text or name in squashed)
        return out

    def named_squares(self, text: str) -> int:
        """The squares whose names ``text`` contains (as ``candidates`` reads it), as a
        bitboard: the destinations of every move the text can name, castling and
        actions without a destination aside (``Variant.legal_moves_to``)."""
        return _remembered(self._named, text, self._named_squares)

    def _named_squares(self, text: str) -> int:
        index = self.geometry.name_index
        lengths = self.geometry.name_lengths
        out = 0
        for t in (text, text.replace("x", "").replace(" ", "").replace("-", "")):
            n = len(t)
            for i in range(n - 1):
                for length in lengths:
                    sq = index.get(t[i : i + length])
                    if sq is not None:
                        out |= 1 << sq
        return out

    def _readings(self, texts: Texts) -> tuple[list[str | None], list[str | None]]:
        """The legal texts normalised, and squashed too (the last list's are kept: the
        same list is read again for each text typed in a position)."""
        key = tuple(texts)
        memo = self._readings_memo
        if memo is not None and memo[0] == key:
            return memo[1], memo[2]
        plain = [self.normalize(t) if t is not None else None for t in texts]
        squashed = [_squash(t) if t is not None else None for t in plain]
        self._readings_memo = (key, plain, squashed)
        return plain, squashed

    def parse(self, pos: Position, text: str, legal: Sequence[Move], texts: Texts) -> Move:
        """The one legal move that ``text`` names. ``texts`` are the canonical texts
        of ``legal``; an entry may be None for a move ``candidates`` ruled out."""
        if not text or not text.strip():
            raise BadNotation(said("empty move; {hint}", hint=self.legal_hint(texts)))
        if len(text) > 64:
            raise BadNotation(
                said("that is too long to be a move; {hint}", hint=self.legal_hint(texts))
            )
        if text in texts:  # the canonical text names its own action
            return legal[texts.index(text)]
        norm = self.normalize(text)
        plain, squashed_plain = self._readings(texts)
        exact = [m for m, t in zip(legal, plain, strict=True) if t == norm]
        if len(exact) == 1:
            return exact[0]
        squashed = _squash(norm)
        loose = [
            m for m, t in zip(legal, squashed_plain, strict=True) if t is not None and t == squashed
        ]
        if len(loose) == 1:
            return loose[0]
        coord = self.parse_coordinates(norm, legal)
        if coord is not None:
            return self.pick(coord, norm, pos, legal, texts)
        pattern = self.parse_pattern(norm, pos, legal)
        if pattern is not None:
            return self.pick(pattern, norm, pos, legal, texts)
        typed = repr(text.strip())
        if self.looks_like_move(norm):
            raise NotLegalHere(
                said("{typed} is not legal here; {hint}", typed=typed, hint=self.legal_hint(texts))
            )
        raise BadNotation(
            said("cannot read {typed} as a move; {hint}", typed=typed, hint=self.legal_hint(texts))
        )

    def pick(
        self, matches: list[Move], text: str, pos: Position, legal: Sequence[Move], texts: Texts
    ) -> Move:
        if len(matches) == 1:
            return matches[0]
        if not matches:
            raise NotLegalHere(
                said(
                    "{typed} is not legal here; {hint}",
                    typed=repr(text),
                    hint=self.legal_hint(texts),
                )
            )
        names = sorted({str(texts[legal.index(m)]) for m in matches})
        err = AmbiguousMove(
            said(
                "{typed} is ambiguous: it could be {choices}",
                typed=repr(text),
                choices=", ".join(names),
            )
        )
        err.choices = tuple(names)
        raise err

    def legal_hint(self, texts: Texts) -> str:
        return legal_hint([t for t in texts if t is not None])

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

    # ----- FEN placement ----------------------------------------------------------

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
            at = 0
            for m in _PLACEMENT_TOKEN.finditer(row):
                if m.start() != at:
                    break
                at = m.end()
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
            if at != len(row):
                raise ValueError(f"cannot read FEN rank {row!r}")
            if f != g.width:
                raise ValueError(f"FEN rank {r + g.first_rank} has {f} files, expected {g.width}")
        return board
