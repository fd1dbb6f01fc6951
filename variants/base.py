"""The shared machinery under every variant.

A variant is data (geometry, piece set, setup, readings) plus a few hooks:
``special_moves`` (castling, gating, teleports...), ``permits`` (which moves
the dice allow), ``make`` for special flags, and ``outcome`` (game end).

Move generation reads the pieces' atoms compiled into bitboard tables
(``tables.Layout``, built the first time a variant is used): each piece's
targets are a few mask operations, attacks are found outward from the target
square, and the check filter uses checkers and pins instead of trying every
move (only the rare moves it cannot judge that way are made and tested).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar

from .facts import Facts
from .geometry import BLACK, WHITE, Geometry, color_name
from .notation import CASTLE_KINGSIDE, CASTLE_QUEENSIDE, Notation, _no_roll
from .pieces import FACINGS, Mode, PieceType, Reach, reach_table
from .position import Move, Piece, Position, other, piece
from .record import Token, numbered
from .refusal import Blocked
from .sentence import said
from .status import TurnFacts
from .tables import _ROWS, CAPTURE_ONLY, Layout, Shape, lines_for, move_row, stable_hash

Roller = Callable[[int], int]

__all__ = [
    "ALL_SQUARES",
    "CASTLE_KINGSIDE",
    "CASTLE_QUEENSIDE",
    "Result",
    "Roller",
    "Variant",
    "draw",
    "win",
    "_no_roll",
]

_FORWARD = ("N", "S")  # the facing of a piece that faces forward, by colour
# Flags of moves that change nothing but the mover's square (and any capture on
# its destination): the check filter judges them by checkers and pins.
_SIMPLE = ("", "double")
_LAYOUT_LOCK = threading.Lock()


# The target mask of every square: the default of the move generators' ``to_mask``.
# Each generator (``generate_legal`` down to ``ordinary_moves``) takes the squares its
# moves may end on as a plain bitboard argument, as python-chess's ``to_mask``; a
# generator may hand back moves to other squares too (``generate_legal`` cuts them).
ALL_SQUARES = -1


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


class _Tables:
    """``Variant.lay``: the compiled tables, built on the first read and then kept in
    the instance's ``__dict__``, which later reads find first (a non-data descriptor).
    Not ``__getattr__``: a class with one has every attribute read on its instances
    take CPython's slow path (no specialised attribute or method loads)."""

    def __get__(self, rules: Variant | None, owner: type | None = None) -> Any:
        if rules is None:
            return self
        with _LAYOUT_LOCK:
            lay = rules.__dict__.get("lay")
            if lay is None:
                lay = Layout(rules)
                rules.__dict__["lay"] = lay
        return lay


class Variant(Facts, Notation):
    """Base class: data as class attributes, hooks as methods; what other packages need
    to know about the variant is declared through ``Facts`` (``variants/facts.py``)."""

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
        self._named: dict[str, int] = {}
        self._normal: dict[str, str] = {}
        self._readings_memo = None
        cls = type(self)
        self._rolls_by_default = cls.start_turn is not Variant.start_turn
        # Which of the record's hooks the variant has its own of: ``Game`` skips the calls
        # to the others (an action with no roll is then recorded as its text, with no note,
        # outside any setup, with no roll folded into it).
        self.own_record_text = (cls.record_text, cls.recorded) != (
            Variant.record_text,
            Variant.recorded,
        )
        self.own_notes = (cls.auto_note, cls.in_setup) != (Variant.auto_note, Variant.in_setup)
        self.own_folds = cls.folded_roll is not Variant.folded_roll
        self._permits_all = cls.permits is Variant.permits
        self._own_expand = cls.expand is not Variant.expand
        self._own_material = cls.material is not Variant.material
        # None: ask ``rolls_at_turn_start`` each turn; else its answer for every position.
        self.turn_start_rolls: bool | None = (
            self._rolls_by_default
            if cls.rolls_at_turn_start is Variant.rolls_at_turn_start
            else None
        )
        self._reach: dict[tuple[str, int, str], tuple[Reach | None, ...]] = {}
        # Every square a castling King can end on, as a bitboard (none without castling):
        # ``legal_moves_to`` adds them to its target mask when a text may be a castling.
        self.castle_targets = 0
        # The last legal list: (position, its dice, moves). ``outcome`` and the
        # game's parser ask for the same position's moves in turn.
        self._memo: tuple[Position, Any, list[Move]] | None = None
        # The last rule-blocked moves a refusal searched (``explain._Searched``).
        self._blocked_memo: object = None
        # (position, its dice) known to have a legal action: ``outcome_with_action``.
        self._proven: tuple[Position, Any] | None = None

    # ----- compiled tables -------------------------------------------------

    # The compiled tables (``tables.Layout``), built the first time they are needed
    # (``_Tables``); afterwards ``lay`` is a plain attribute of the instance.
    lay: Layout = _Tables()  # type: ignore[assignment]

    def shape_keys(self) -> list[tuple[PieceType, int, str]]:
        """Every (type, colour, facing) a piece of this variant can move as."""
        out: list[tuple[PieceType, int, str]] = []
        for t in self.piece_types:
            for color in (WHITE, BLACK):
                facings = tuple(FACINGS) if t.facing_relative else (_FORWARD[color],)
                out.extend((t, color, f) for f in facings)
        return out

    def shape_for(self, kind: str, color: int, state: str) -> tuple[PieceType, int, str]:
        """The (type, colour, facing) a piece with this value moves as."""
        t = self.types[kind]
        if t.facing_relative and len(state) == 1 and state in FACINGS:
            return (t, color, state)
        return (t, color, _FORWARD[color])

    def prepare_layout(self, lay: Layout) -> None:
        """Variant data on the compiled shapes (promotion squares and the like)."""

    def attach(self, pos: Position) -> Position:
        """Give ``pos`` (built from a board list) its bitboards and key."""
        return self.lay.attach(pos)

    def shape_at(self, pos: Position, sq: int) -> Shape:
        p = pos.board[sq]
        assert p is not None
        lay = self.lay
        code = p.code
        table = lay.shape_of
        return lay.shapes[table[code] if code < len(table) else lay.grow(code)]

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
        out: list[str] = []
        bb = pos.bb
        for shape in self.lay.by_color[color]:
            n = bb[shape.index].bit_count()
            if n:
                out.extend([shape.kind] * n)
        return out

    def lost_kinds(self, old: Position, new: Position, color: int) -> list[str]:
        """The kinds ``color`` has fewer of in ``new`` than in ``old`` (by ``material``),
        one entry per piece lost, in ``material``'s order of ``old`` (the later pieces
        of a kind are the ones missing)."""
        if self._own_material:
            return self.lost_by_material(old, new, color)
        return self.lost_on_bitboards(old, new, color)

    def lost_by_material(self, old: Position, new: Position, color: int) -> list[str]:
        """``lost_kinds`` by comparing the two ``material`` lists."""
        after = self.material(new, color)
        out: list[str] = []
        for kind in self.material(old, color):
            if kind in after:
                after.remove(kind)
            else:
                out.append(kind)
        return out

    def lost_on_bitboards(self, old: Position, new: Position, color: int) -> list[str]:
        """``lost_kinds`` with the pieces counted on the bitboards (one per bit): only
        the shapes that changed can differ."""
        was, now = old.bb, new.bb
        net: dict[str, int] = {}
        for shape in self.lay.by_color[color]:
            i = shape.index
            if was[i] != now[i]:
                net[shape.kind] = net.get(shape.kind, 0) + was[i].bit_count() - now[i].bit_count()
        lost = [(kind, n) for kind, n in net.items() if n > 0]
        if len(lost) == 1:
            return [lost[0][0]] * lost[0][1]
        if not lost:
            return []
        # Several kinds: walk ``material``'s order, the first pieces of a kind kept.
        table = self.lay.kind_shapes
        keep = {kind: sum(now[s].bit_count() for s in table[(color, kind)]) for kind, _ in lost}
        out = []
        for shape in self.lay.by_color[color]:
            kind = shape.kind
            if kind in keep:
                for _ in range(was[shape.index].bit_count()):
                    if keep[kind]:
                        keep[kind] -= 1
                    else:
                        out.append(kind)
        return out

    def gains_kind(self, old: Position, new: Position, color: int, kinds: Sequence[str]) -> bool:
        """Might ``color`` have more pieces of one of ``kinds`` (by ``material``) in ``new``
        than in ``old``? Counted on the bitboards; a variant that counts its material
        otherwise (``material`` overridden) always says it might."""
        if self._own_material:
            return True
        table = self.lay.kind_shapes
        was, now = old.bb, new.bb
        for kind in kinds:
            for s in table.get((color, kind), ()):
                if now[s].bit_count() > was[s].bit_count():  # a kind grows only if a shape does
                    return True
        return False

    def count_grew(self, old: Position, new: Position, color: int, kinds: Sequence[str]) -> bool:
        """Has ``color`` more pieces of one of ``kinds`` on the bitboards of ``new``?"""
        table = self.lay.kind_shapes
        was, now = old.bb, new.bb
        for kind in kinds:
            for s in table.get((color, kind), ()):
                if now[s].bit_count() > was[s].bit_count():  # a kind grows only if a shape does
                    return True
        return False

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

    def rolls_at_turn_start(self, pos: Position) -> bool:
        """Could ``start_turn`` roll anything in ``pos``? When not, a game leaves its
        end-of-turn test until something asks (``Game.result``); when it could, the test
        comes first (no die is rolled in a game that has ended). A variant that overrides
        ``start_turn`` says here when it rolls; by default, always."""
        return self._rolls_by_default

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
        """The piece's moves from every square, resolved to squares (explanations)."""
        t, _, facing = self.shape_for(p.kind, p.color, p.state)
        k = (t.name, p.color, facing)
        table = self._reach.get(k)
        if table is None:
            table = reach_table(self.geometry, t, facing)
            self._reach[k] = table
        return table

    def name(self, sq: int) -> str:
        return self.geometry.names[sq]

    # ----- attacks -------------------------------------------------------

    # Attacks the tables do not hold (Tquarchess's two-square King): a variant with
    # ``extra_attacks`` adds them through these hooks, read only when it is set.
    extra_attacks: ClassVar[bool] = False

    def more_reach(self, pos: Position, frm: int, occ: int) -> int:
        """More squares the piece on ``frm`` could capture on."""
        return 0

    def more_attackers(self, pos: Position, sq: int, by: int, occ: int | None) -> int:
        """More ``by`` pieces that could capture on ``sq``, as a bitboard."""
        return 0

    def more_pinned(self, pos: Position, king: int, color: int, occ: int) -> int:
        """More ``color`` pieces that may not leave their square (``pinned``)."""
        return 0

    def more_evasions(
        self, pos: Position, checker: int, king: int, occ: int
    ) -> tuple[int, bool] | None:
        """``evasions`` for a check the tables do not hold, else None."""
        return None

    def capture_reach(self, pos: Position, frm: int, occ: int | None = None) -> int:
        """The squares the piece on ``frm`` could capture on (paths open, targets aside)."""
        shape = self.shape_at(pos, frm)
        if occ is None:
            occ = pos.occ[0] | pos.occ[1]
        entry = shape.gen[frm]
        assert entry is not None
        both, _, capture, lines, lames = entry
        out = both | capture
        for line, mode in lines:
            if mode & CAPTURE_ONLY:
                out |= line.reach(occ)
        for pm, _, cd in lames:
            if not occ & pm:
                out |= cd
        if self.extra_attacks:
            out |= self.more_reach(pos, frm, occ)
        return out

    def attacks(self, pos: Position, frm: int, to: int) -> bool:
        """Could the piece on ``frm`` capture on ``to`` by its movement (dice aside)?"""
        if pos.board[frm] is None:
            return False
        return bool(self.capture_reach(pos, frm) >> to & 1)

    def attackers(self, pos: Position, sq: int, by: int, occ: int | None = None) -> int:
        """The squares of ``by`` pieces that could capture on ``sq`` (with the
        squares of ``occ`` occupied, the position's own by default)."""
        if occ is None:
            occ = pos.occ[0] | pos.occ[1]
        plan = self.lay.attack_plans[by]
        bb = pos.bb
        out = 0
        for s, rev in plan.leaps:
            out |= rev[sq] & bb[s]
        for shapes, tables, span in plan.slide_sets:
            att = 0
            for s in shapes:
                att |= bb[s]
            if att & span[sq]:
                for lines in tables:
                    line = lines[sq]
                    if line is not None and att & line.full:
                        k = occ & line.mask
                        r = line.tab.get(k)
                        out |= (line.fill(k) if r is None else r) & att
        for s, rev_lame, any_from in plan.lames:
            b = bb[s]
            if b & any_from[sq]:
                for fb, pm in rev_lame[sq]:
                    if b & fb and not occ & pm:
                        out |= fb
        if self.extra_attacks:
            out |= self.more_attackers(pos, sq, by, occ)
        return out

    def is_attacked(self, pos: Position, sq: int, by: int, occ: int | None = None) -> bool:
        """Could a ``by`` piece capture on ``sq``? Read outward from ``sq``."""
        if occ is None:
            occ = pos.occ[0] | pos.occ[1]
        plan = self.lay.attack_plans[by]
        bb = pos.bb
        for s, rev in plan.leaps:
            if rev[sq] & bb[s]:
                return True
        for shapes, tables, span in plan.slide_sets:
            att = 0
            for s in shapes:
                att |= bb[s]
            if att & span[sq]:
                for lines in tables:
                    line = lines[sq]
                    if line is not None and att & line.full:
                        k = occ & line.mask
                        r = line.tab.get(k)
                        if (line.fill(k) if r is None else r) & att:
                            return True
        for s, rev_lame, any_from in plan.lames:
            b = bb[s]
            if b & any_from[sq]:
                for fb, pm in rev_lame[sq]:
                    if b & fb and not occ & pm:
                        return True
        return self.extra_attacks and bool(self.more_attackers(pos, sq, by, occ))

    def pinned(self, pos: Position, king: int, color: int, occ: int) -> int:
        """``color`` pieces that alone stand on an enemy capture path to ``king``:
        moving one away could expose it."""
        own = pos.occ[color]
        plan = self.lay.attack_plans[1 - color]
        bb = pos.bb
        out = 0
        for shapes, tables, span in plan.slide_sets:
            att = 0
            for s in shapes:
                att |= bb[s]
            if not att & span[king]:
                continue
            for lines in tables:
                line = lines[king]
                if line is None or not att & line.full:
                    continue
                tab = line.tab
                mask = line.mask
                k = occ & mask
                seen = tab.get(k)
                if seen is None:
                    seen = line.fill(k)
                blockers = seen & own
                while blockers:
                    b = blockers & -blockers
                    blockers ^= b
                    k = (occ ^ b) & mask
                    r = tab.get(k)
                    if (line.fill(k) if r is None else r) & ~seen & att:
                        out |= b
        for s, rev_lame, any_from in plan.lames:
            bs = bb[s]
            if bs & any_from[king]:
                for fb, pm in rev_lame[king]:
                    if bs & fb:
                        blk = occ & pm
                        if blk and not blk & (blk - 1) and blk & own:
                            out |= blk
        if self.extra_attacks:
            out |= self.more_pinned(pos, king, color, occ)
        return out

    def in_check(self, pos: Position, color: int | None = None) -> bool:
        if not self.has_check:
            return False
        c = pos.turn if color is None else color
        k = pos.kings[c]
        if k < 0:
            return False
        if c == pos.turn:
            return bool(self.danger(pos)[0])
        return self.is_attacked(pos, k, other(c))

    def danger(self, pos: Position) -> tuple[int, int]:
        """The side to move's checkers (the enemy pieces attacking its King) and pinned
        pieces, as bitboards; read once per position (``Position.danger``)."""
        d = pos.danger
        if d is not None and d[0] == pos.zkey and d[1] == pos.turn:
            return d[2], d[3]
        color = pos.turn
        king = pos.kings[color]
        occ = pos.occ[0] | pos.occ[1]
        checkers = self.attackers(pos, king, 1 - color, occ)
        pinned = self.pinned(pos, king, color, occ)
        pos.danger = (pos.zkey, color, checkers, pinned)
        return checkers, pinned

    def evasions(self, pos: Position, checker: int, king: int, occ: int) -> tuple[int, bool]:
        """The squares where a move ends the check by the piece on ``checker``
        (its square, or one on its path to the King), and whether every such move
        does (only one path leads to the King)."""
        if self.extra_attacks:
            more = self.more_evasions(pos, checker, king, occ)
            if more is not None:
                return more
        shape = self.shape_at(pos, checker)
        entry = shape.gen[checker]
        assert entry is not None
        both, _, capture, lines, lames = entry
        kb = 1 << king
        block = 0
        paths = 1 if (both | capture) & kb else 0
        for line, mode in lines:
            if mode & CAPTURE_ONLY and line.reach(occ) & kb:
                paths += 1
                back = lines_for(self.geometry, tuple((-x, -y) for x, y in line.dirs))[king]
                if back is not None:
                    block |= line.reach(occ) & back.reach(occ)
        for pm, _, cd in lames:
            if cd & kb and not occ & pm:
                paths += 1
                block |= pm
        return (1 << checker) | block, paths == 1

    # ----- move generation ----------------------------------------------

    def targets(self, pos: Position, frm: int, shape: Shape, captures: bool = True) -> int:
        """The squares the piece on ``frm`` moves or captures to by its atoms."""
        occ0, occ1 = pos.occ
        occ = occ0 | occ1
        own = pos.occ[shape.color]
        enemy = (occ ^ own) if captures else 0
        notown = ~own if captures else ~occ
        empty = ~occ
        entry = shape.gen[frm]
        assert entry is not None
        both, move, capture, lines, lames = entry
        t = (both & notown) | (move & empty) | (capture & enemy)
        for line, mode in lines:
            k = occ & line.mask
            r = line.tab.get(k)
            if r is None:
                r = line.fill(k)
            t |= r & (notown if mode == 3 else empty if mode == 1 else enemy)
        for pm, q, c in lames:
            if not occ & pm:
                t |= (q & empty) | (c & enemy)
        return t

    def ordinary_moves(
        self, pos: Position, color: int, captures: bool = True, to_mask: int = ALL_SQUARES
    ) -> list[Move]:
        """Every piece's moves by its atoms, promotions expanded (no specials, no dice),
        by square and then in the order of the piece's atoms. With ``captures``
        false, only moves onto empty squares; only those ending on ``to_mask``."""
        lay = self.lay
        shapes = lay.shapes
        shape_of = lay.shape_of
        board = pos.board
        occ0, occ1 = pos.occ
        occ = occ0 | occ1
        own = occ0 if color == WHITE else occ1
        enemy = (occ ^ own) if captures else 0
        notown = ~own if captures else ~occ
        empty = ~occ
        out: list[Move] = []
        if to_mask != -1:  # only moves to these squares (``legal_moves_to``)
            notown &= to_mask
            empty &= to_mask
            enemy &= to_mask
            if to_mask & (to_mask - 1):
                return self._ordinary_to(pos, color, to_mask, notown, empty, enemy)
            # One square (a text names one): the pieces that could reach it, by shape.
            if not to_mask:
                return out
            to = to_mask.bit_length() - 1
            rows = _ROWS
            bb = pos.bb
            for index, shape, sources in lay.sources[color][to]:
                pieces = bb[index] & sources
                while pieces:
                    fb = pieces & -pieces
                    pieces ^= fb
                    frm = fb.bit_length() - 1
                    both, move, capture, lines, lames = shape.gen[frm]  # type: ignore[misc]
                    t = (both & notown) | (move & empty) | (capture & enemy)
                    if not t:
                        for line, mode in lines:
                            if line.full & to_mask:
                                k = occ & line.mask
                                r = line.tab.get(k)
                                if r is None:
                                    r = line.fill(k)
                                t |= r & (notown if mode == 3 else empty if mode == 1 else enemy)
                        for pm, q, c in lames:
                            if not occ & pm:
                                t |= (q & empty) | (c & enemy)
                        if not t:
                            continue
                    row = rows[frm] if frm < len(rows) else move_row(frm)
                    m = row[to]
                    if m is None:
                        m = row[to] = Move(frm, to)
                    if shape.promote & to_mask:
                        out.extend(m._replace(promo=k) for k in self.promotion_choices(pos, m))
                    else:
                        out.append(m)
            return out
        b = own
        while b:
            fb = b & -b
            frm = fb.bit_length() - 1
            b ^= fb
            code = board[frm].code  # type: ignore[union-attr]
            shape = shapes[shape_of[code] if code < len(shape_of) else lay.grow(code)]
            both, move, capture, lines, lames = shape.gen[frm]  # type: ignore[misc]
            t = (both & notown) | (move & empty) | (capture & enemy)
            for line, mode in lines:
                k = occ & line.mask
                r = line.tab.get(k)
                if r is None:
                    r = line.fill(k)
                t |= r & (notown if mode == 3 else empty if mode == 1 else enemy)
            for pm, q, c in lames:
                if not occ & pm:
                    t |= (q & empty) | (c & enemy)
            if not t:
                continue
            if t & shape.promote:
                for m in shape.moves(frm, t):
                    if shape.promote >> m.to & 1:
                        out.extend(m._replace(promo=k) for k in self.promotion_choices(pos, m))
                    else:
                        out.append(m)
                continue
            cache = shape.emit[frm]
            ms = cache.get(t)
            out += shape.moves(frm, t) if ms is None else ms
        return out

    def _ordinary_to(
        self, pos: Position, color: int, to_mask: int, notown: int, empty: int, enemy: int
    ) -> list[Move]:
        """``ordinary_moves`` to the squares of ``to_mask`` only: the pieces that could
        reach them are found backwards (``Shape.rspan``), by shape."""
        out: list[Move] = []
        bb = pos.bb
        occ = pos.occ[0] | pos.occ[1]
        for shape in self.lay.by_color[color]:
            pieces = bb[shape.index]
            if not pieces:
                continue
            rspan = shape.rspan
            d = to_mask
            near = 0
            while d:
                db = d & -d
                d ^= db
                near |= rspan[db.bit_length() - 1]
            pieces &= near
            while pieces:
                fb = pieces & -pieces
                pieces ^= fb
                frm = fb.bit_length() - 1
                both, move, capture, lines, lames = shape.gen[frm]  # type: ignore[misc]
                t = (both & notown) | (move & empty) | (capture & enemy)
                for line, mode in lines:
                    t |= line.reach(occ) & (notown if mode == 3 else empty if mode == 1 else enemy)
                for pm, q, c in lames:
                    if not occ & pm:
                        t |= (q & empty) | (c & enemy)
                if not t:
                    continue
                for m in shape.moves(frm, t):
                    if shape.promote >> m.to & 1:
                        out.extend(m._replace(promo=k) for k in self.promotion_choices(pos, m))
                    else:
                        out.append(m)
        return out

    @staticmethod
    def plain_move(row: list[Move | None], frm: int, to: int) -> Move:
        m = row[to]
        if m is None:
            m = row[to] = Move(frm, to)
        return m

    def promotion_choices(self, pos: Position, move: Move) -> Sequence[str]:
        """The kinds a piece reaching a promotion square may become."""
        return ()

    def piece_moves(self, pos: Position, frm: int, p: Piece, out: list[Move]) -> None:
        """Ordinary moves of one piece by its atoms (no specials, no dice)."""
        shape = self.shape_at(pos, frm)
        out.extend(shape.moves(frm, self.targets(pos, frm, shape)))

    def pseudo_moves(self, pos: Position, to_mask: int = ALL_SQUARES) -> list[Move]:
        """The pieces' moves by their movement (those ending on ``to_mask``)."""
        return self.ordinary_moves(pos, pos.turn, True, to_mask)

    def expand(self, pos: Position, moves: list[Move]) -> list[Move]:
        """Turn raw board moves into actions (promotions are expanded already)."""
        return moves

    def special_moves(self, pos: Position, to_mask: int = ALL_SQUARES) -> list[Move]:
        """Actions beside the pieces' movement (castling, gating, teleports...); those
        ending outside ``to_mask`` may be left out."""
        return []

    def permits(self, pos: Position, move: Move) -> bool:
        """Do the dice (or other turn rules) allow this move now?"""
        return True

    def candidate_moves(self, pos: Position, to_mask: int = ALL_SQUARES) -> list[Move]:
        """Every action the pieces could make, before the dice (``permits``) and the
        check filter decide: the list the explanations search when a text is refused.
        With ``to_mask``, at least every such action ending on one of its squares."""
        moves = self.pseudo_moves(pos, to_mask)
        if self._own_expand:
            moves = self.expand(pos, moves)
        special = self.special_moves(pos, to_mask)
        return moves + special if special else moves

    def legal_moves(self, pos: Position) -> list[Move]:
        """Every legal action in ``pos`` (a new list each call)."""
        memo = self._memo
        if memo is not None and memo[0] is pos and memo[1] is pos.dice:
            return list(memo[2])
        moves = self.generate_legal(pos)
        self._memo = (pos, pos.dice, moves)
        return list(moves)

    def legal_moves_to(self, pos: Position, squares: int, castles: bool = True) -> list[Move]:
        """The legal actions that end on one of ``squares`` (a bitboard) and, with
        ``castles``, every castling: the only ones a text naming those squares can mean
        (``Notation.named_squares``). Actions without a square (a roll, a pass) are
        left out: only the whole list decides them. Cheaper than the whole list: the
        pieces' moves are generated for those squares only."""
        memo = self._memo
        if memo is not None and memo[0] is pos and memo[1] is pos.dice:
            moves = memo[2]
            fresh = False
        else:
            # Castling is generated by the King's destination: with ``castles``, every
            # square a castling King may end on is asked for too (and cut below).
            to_mask = squares | self.castle_targets if castles and pos.castling else squares
            moves = self.generate_legal(pos, to_mask)
            fresh = True
        if castles or squares & (squares - 1) or not squares:
            return _ending_on(moves, squares, castles)
        to = squares.bit_length() - 1
        if fresh:  # usually every action already ends there: no new list
            for m in moves:
                if m[1] != to:
                    break
            else:
                return moves
        return [m for m in moves if m[1] == to]

    def generate_legal(self, pos: Position, to_mask: int = ALL_SQUARES) -> list[Move]:
        """The legal actions: candidates the turn rules permit, less self-checks. With
        ``to_mask``, only those ending on one of its squares (none without a square)."""
        moves = self.candidate_moves(pos, to_mask)
        if to_mask != -1:  # judge only what is asked for
            if to_mask & (to_mask - 1) or not to_mask:
                moves = _ending_on(moves, to_mask, False)
            else:
                to = to_mask.bit_length() - 1
                for m in moves:  # usually every candidate already ends there
                    if m[1] != to:
                        moves = [m for m in moves if m[1] == to]
                        break
        if not self._permits_all:
            moves = [m for m in moves if self.permits(pos, m)]
        if self.has_check:
            moves = self.filter_checks(pos, moves)
        return moves

    # Castling already judged by the squares the King stands on, crosses and reaches
    # (``ChessLike.castling_safe``) is safe once made: true when the Rook lands between
    # and no attack reaches the King's new square through its old one (FIDE pieces,
    # leapers, the two-square King).
    castles_judged: ClassVar[bool] = False

    def filter_checks(self, pos: Position, moves: list[Move]) -> list[Move]:
        """Drop moves that leave the mover's own King attacked. Ordinary moves are
        judged by the checkers and the pinned pieces; the King's steps by the
        attacks on their squares; anything else is made and tested."""
        color = pos.turn
        king = pos.kings[color]
        if king < 0:
            return moves
        enemy = 1 - color
        occ = pos.occ[0] | pos.occ[1]
        d = pos.danger  # read already (a game's end-of-turn test), or read here
        if d is not None and d[0] == pos.zkey and d[1] == color:
            checkers, pinned = d[2], d[3]
        else:
            checkers = self.attackers(pos, king, enemy, occ)
            pinned = self.pinned(pos, king, color, occ)
        away = occ ^ (1 << king)
        is_attacked = self.is_attacked
        out: list[Move] = []
        append = out.append
        if not checkers:
            for m in moves:
                frm = m[0]
                if frm == king:
                    if m[2] == "" and m[5] < 0:
                        if not is_attacked(pos, m[1], enemy, away):
                            append(m)
                        continue
                    if m[2] == "castle" and self.castles_judged:
                        append(m)
                        continue
                elif frm >= 0 and m[2] in _SIMPLE and not pinned >> frm & 1:
                    append(m)
                    continue
                elif frm < 0 and m[1] < 0:  # a roll or a pass leaves the board alone
                    append(m)
                    continue
                if self.safe_after(pos, m, color):
                    append(m)
            return out
        single = not checkers & (checkers - 1)
        evade, exact = (0, False)
        if single:
            evade, exact = self.evasions(pos, checkers.bit_length() - 1, king, occ)
        for m in moves:
            frm = m[0]
            if frm == king:
                if m[2] == "" and m[5] < 0:
                    if not is_attacked(pos, m[1], enemy, away):
                        append(m)
                    continue
            elif frm >= 0 and m[2] in _SIMPLE and not pinned >> frm & 1:
                if not evade >> m[1] & 1:
                    continue  # neither takes the checker nor stands in its way
                if exact or m[1] == checkers.bit_length() - 1:
                    append(m)
                    continue
            elif frm < 0 and m[1] < 0:
                append(m)
                continue
            if self.safe_after(pos, m, color):
                append(m)
        return out

    def safe_after(self, pos: Position, move: Move, color: int) -> bool:
        """Make ``move`` and see whether ``color``'s King is safe."""
        new = self.make(pos, move, _no_roll)
        k = new.kings[color]
        return k < 0 or not self.is_attacked(new, k, 1 - color)

    # ----- explanations (``explain.py``): hooks for what differs -------------

    def why_not_permitted(self, pos: Position, move: Move) -> tuple[str, str]:
        """The rule by which ``permits`` refuses ``move``: (cause code, message)."""
        return "not-allowed", said("that move is not allowed now")

    def relaxed_moves(self, pos: Position, to_mask: int = ALL_SQUARES) -> list[Blocked]:
        """Moves the variant's own rules take away before ``permits`` and the check
        filter (an assist missing, a Raven cooling down, a teleport out of turn...),
        each with the rule; generated only when a text is refused. With ``to_mask``, at
        least every such move ending on one of its squares (as ``candidate_moves``)."""
        return []

    def explain_text(
        self, pos: Position, text: str, legal: Sequence[Move]
    ) -> tuple[str, str] | None:
        """A refusal for a whole word or phrase (castling, a setup word), if any."""
        return None

    def reach_refusal(self, pos: Position, frm: int, to: int) -> tuple[str, str] | None:
        """Why the piece on ``frm`` cannot go to ``to`` by its movement, or None."""
        from .piece_words import reach_refusal

        return reach_refusal(self, pos, frm, to)

    # Every move of a piece by its atoms is an action, unless the check rule forbids it
    # (no dice or turn rule takes one away): ``has_legal_move`` may then stop early.
    free_moves: ClassVar[bool] = False

    def has_legal_move(self, pos: Position) -> bool:
        memo = self._memo
        if memo is not None and memo[0] is pos and memo[1] is pos.dice:
            return bool(memo[2])
        proven = self._proven
        if proven is not None and proven[0] is pos and proven[1] is pos.dice:
            return True
        if self.free_moves and self.quick_has_move(pos):
            return True
        return bool(self.legal_moves(pos))

    # Do the pieces' ordinary moves include captures (King's Guard: only pawns capture)?
    atoms_capture: ClassVar[bool] = True

    def quick_has_move(self, pos: Position) -> bool:
        """True when a piece can move by its atoms and such a move is surely legal:
        without a check rule any piece; with one, not in check, a piece other than the
        King and not pinned to it. False means "not shown" (``free_moves`` only)."""
        color = pos.turn
        if not self.has_check:
            movers = pos.occ[color]
            while movers:
                b = movers & -movers
                movers ^= b
                frm = b.bit_length() - 1
                if self.targets(pos, frm, self.shape_at(pos, frm), self.atoms_capture):
                    return True
            return False
        king = pos.kings[color]
        if king < 0:
            return False
        checkers, pinned = self.danger(pos)
        if checkers:
            # In check: a step of the King onto a square no enemy attacks once it has
            # left its own (as ``filter_checks`` judges the King's steps).
            steps = self.targets(pos, king, self.shape_at(pos, king), self.atoms_capture)
            away = (pos.occ[0] | pos.occ[1]) ^ (1 << king)
            enemy = 1 - color
            while steps:
                b = steps & -steps
                steps ^= b
                if not self.is_attacked(pos, b.bit_length() - 1, enemy, away):
                    return True
            return False
        movers = pos.occ[color] & ~(1 << king) & ~pinned
        while movers:
            b = movers & -movers
            movers ^= b
            frm = b.bit_length() - 1
            if self.targets(pos, frm, self.shape_at(pos, frm)):
                return True
        return False

    # ----- making moves -------------------------------------------------

    def make(self, pos: Position, move: Move, roll: Roller) -> Position:
        """The position after ``move`` (a new one; ``pos`` is left unchanged).
        Subclasses handle their own flags first."""
        new = pos.copy()
        self.move_piece(new, move)
        self.finish(new, move, pos)
        return new

    def move_piece(self, new: Position, move: Move) -> Piece | None:
        """Lift the piece from ``frm`` to ``to`` (promoting), returning any capture."""
        frm, to = move[0], move[1]
        captured = new.clear(to) if new.board[to] is not None else None
        if move[3]:  # a promotion
            p = new.clear(frm)
            assert p is not None
            p = piece(move.promo, p.color, self.promoted_state(move, p))
            new.put(to, p)
        else:
            p = new.shift(frm, to)
        if p.kind == self.royal:
            new.kings[p.color] = to
        if captured is not None and captured.kind == self.royal:
            new.kings[captured.color] = -1
        return captured

    def promoted_state(self, move: Move, p: Piece) -> str:
        return ""

    def finish(self, new: Position, move: Move, old: Position) -> None:
        """Counters and turn after a move (halfmove clock, fullmove, side to move)."""
        frm, to = move[0], move[1]
        board = old.board
        moved = board[frm] if frm >= 0 else None
        capture = to >= 0 and board[to] is not None or move[2] == "ep"
        if capture or (moved is not None and self.types[moved.kind].is_pawn):
            new.halfmove = 0
        else:
            new.halfmove += 1
        if old.turn == BLACK:
            new.fullmove += 1
        new.turn = 1 - old.turn

    # ----- end of game ---------------------------------------------------

    def outcome(self, pos: Position, history: Sequence[Any]) -> Result | None:
        """The result at the start of the side to move's turn, or None."""
        return None

    def outcome_with_action(self, pos: Position, history: Sequence[Any]) -> Result | None:
        """``outcome`` for a position known to have a legal action (the caller has just
        found one): the same result, without looking for a legal action again."""
        self._proven = (pos, pos.dice)
        try:
            return self.outcome(pos, history)
        finally:
            self._proven = None

    def repetition_key(self, pos: Position) -> Any:
        """What makes two positions the same for repetition, as one 64-bit number:
        the Zobrist key of the pieces (states included) and a stable hash of the
        rest (side, castling, en passant, dice, variant state)."""
        return pos.zkey ^ stable_hash(
            (pos.turn, pos.castling, pos.ep, pos.dice, tuple(sorted(pos.extra.items())))
        )

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

    def split_recorded(self, recorded: str) -> tuple[str, tuple[str, ...]]:
        """An action's recorded text as what its player chose and what the rules then
        did by themselves (nothing, but in Jepps Random's setup)."""
        return recorded, ()

    def recorded(self, san: str, move: Move, values: Sequence[int]) -> str:
        """The action as the record shows it: each '%' takes the value rolled,
        and any further rolls follow in brackets (e.g. ``reroll [3 3]``)."""
        if not values:
            return san
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


def _ending_on(moves: list[Move], squares: int, castles: bool) -> list[Move]:
    """The moves that end on one of ``squares`` and, with ``castles``, every castling."""
    if castles or squares & (squares - 1):
        return [
            m
            for m in moves
            if m[1] >= 0 and (squares >> m[1] & 1 or (castles and m[2] == "castle"))
        ]
    if not squares:
        return []
    to = squares.bit_length() - 1
    return [m for m in moves if m[1] == to]


def _any_open(board: Sequence[Piece | None], paths: Iterable[tuple[int, ...]]) -> bool:
    """Is any of these paths free of pieces?"""
    for path in paths:
        for s in path:
            if board[s] is not None:
                break
        else:
            return True
    return False


def _kind_at(pos: Position, sq: int) -> str | None:
    p = pos.board[sq] if sq >= 0 else None
    return p.kind if p is not None else None


_MOVE_ONLY = Mode.MOVE
_CAPTURE_ONLY = Mode.CAPTURE
