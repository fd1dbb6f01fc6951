"""Static evaluation, per variant.

A position is scored in pawns from White's side, then turned into an expected
score for the side to move: ``SQUASH_MAX * tanh(pawns / SQUASH)``, a number in
(-0.95, 0.95). A win is 1 and a loss -1 (``engine.search``). Chance nodes
average these, so the averaged quantity is (roughly) the expected result, as
expectimax needs, rather than a pawn count, and Star1/Star2 get the tight value
bounds [-1, 1] they prune with.

Terms (all in pawns):

- *Material and placement*: each piece's derived value (``engine.values``) plus
  ``PLACEMENT`` x value x (its expected mobility on that square / its average
  - 1): a Knight on a1 loses 0.28, on d4 gains 0.24. FIDE-like pawns gain
  ``PAWN_ADVANCE`` by the ranks they have gone.
- *King safety* (scaled by how much material is left): friends next to the King,
  enemy pieces within two squares, and a King off its home rank; in the ending
  the King walks to the centre instead (its mobility table).
- *Mop-up* in the checkmate variants: with a clear material lead, the stronger
  side drives the lone King to the edge and brings its own King near.

What each variant makes matter (each variant declares which of these apply, in its
``search`` hints and hooks, ``variants/facts.py``; the evaluator names no variant):

The material and placement sum (with each side's material, pawns and tracked
pieces) is kept move by move (``Evaluator.step``: only the squares a move changed
are looked at); a test holds it equal to a count over the whole board.

- Guardener: values weighted by how often the dice let each piece act
  (``engine.values``, ``act_chance``); terraces are priced by the same mobility
  tables (a piece on w4 reaches little); a captured Guardener that a Double x2 may
  resurrect keeps ``RESURRECTION`` of its value (``reserve``); a Guardener still
  on its double start counts once (half on each square); no check, so the search
  sees King captures as wins.
- Tquarchess: a Tquarc waiting to enter (while an entry square is left) counts
  ``TQUARC_IN_HAND`` of its value; a lost one that a Knight or pawn may
  resurrect counts ``RESURRECTION`` (``reserve``).
- King's Guard (``pawn_army``): pawns are the only capturers and a side without
  pawns loses, so each pawn is worth 3.75 and the last ones more
  (``LAST_PAWNS``); pieces are worth their reach (they assist), and stay near
  their pawns (``ESCORT``); an enemy pawn next to the King is a threat (the
  search sees the assisted capture).
- Stone Garden: Horses (``pawn_like``) gain worth as they near promotion; a
  promoted King earns ``KING_PROMOTED`` in the ending (it moves as a xiangqi
  horse too) and pays the usual safety price in the middle game. Stalemate wins
  and repetition loses are results the search sees.
- Jepps Random (``to_place``): during the setup, a piece still in stock counts its
  value plus its average placement over the home squares still empty, so a
  placement is judged by the square it takes (a Knight on a1 is worse than on b1,
  a King is safer near a corner).
- The mop-up term applies where checkmate wins (``mating``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import NamedTuple

import variants
from variants.position import Move, Piece, Position, piece

from .values import derive, mobility_table

WHITE, BLACK = 0, 1

SQUASH = 6.0  # pawns
SQUASH_MAX = 0.95
PLACEMENT = 0.15
PAWN_ADVANCE = (0.0, 0.6, 0.35, 0.2, 0.1, 0.05, 0.0)  # by ranks still to go (index)
KING_SHELTER = 0.08  # per friend next to the King, up to 3
KING_PRESSURE = 0.12  # per enemy piece within two squares of the King
KING_AWAY = 0.15  # per rank the King has left its home rank (middle game)
KING_FILE = 0.1  # per file nearer the centre than the b- or g-file (middle game)
KING_CENTRE = 0.4  # ending: times (King mobility / average - 1)
MOP_UP = 0.12
TQUARC_IN_HAND = 0.85
RESURRECTION = 0.25
LAST_PAWNS = (3.0, 1.5, 0.6)  # King's Guard: extra penalty with 0, 1, 2 pawns left
ESCORT = 0.05
KING_PROMOTED = 0.5
HORSE_PROMOTION = 3.45  # what a Horse becomes (a Raven, the best promotion)


class Info(NamedTuple):
    """What one pass over the board gathers for the other terms."""

    material: list[float]  # non-pawn material, per colour
    pawns: list[float]  # pawns (Horses in Stone Garden), per colour
    tracked: tuple[float, float]  # pieces of the variant's reserve kind, per colour


# The material state of a position, kept up to date move by move (``step``):
# [placement and material sum (White +), material white, material black,
#  pawns white, pawns black, tracked white, tracked black].
State = list[float]

# table, slot, amount, tracked slot, tracked count (``Evaluator.entry``)
Entry = tuple[tuple[float, ...], int, float, int, float]


class Evaluator:
    """Scores positions of one variant; ``evaluate(pos)`` is for the side to move."""

    def __init__(self, key: str) -> None:
        self.key = key
        self.rules = variants.rules(key)
        g = self.rules.geometry
        self.geometry = g
        self.values = derive(key)
        self.royal = next(k for k, t in self.rules.types.items() if t.is_royal)
        self.pawn_kind = next((k for k, t in self.rules.types.items() if t.is_pawn), "")
        hints = self.rules.search
        self.pawnish = frozenset(k for k in (self.pawn_kind, *hints.pawn_like) if k in self.values)
        self._tables: dict[Piece, tuple[float, ...]] = {}
        self._by_id: dict[int, tuple[Piece, tuple[float, ...]]] = {}
        self.width = g.width
        self.files = [g.file_of(sq) for sq in range(g.size)]
        self.ranks = [g.rank_label(sq) for sq in range(g.size)]
        self.near2: list[tuple[int, ...]] = [
            tuple(
                t
                for t in g.squares
                if t != sq
                and max(abs(self.files[t] - self.files[sq]), abs(self.ranks[t] - self.ranks[sq]))
                <= 2
            )
            for sq in range(g.size)
        ]
        self.near1 = [
            tuple(
                t
                for t in n
                if max(abs(self.files[t] - self.files[sq]), abs(self.ranks[t] - self.ranks[sq]))
                == 1
            )
            for sq, n in enumerate(self.near2)
        ]
        cx = (min(self.files[s] for s in g.squares) + max(self.files[s] for s in g.squares)) / 2
        cy = (min(self.ranks[s] for s in g.squares) + max(self.ranks[s] for s in g.squares)) / 2
        self.edge = [max(abs(self.files[s] - cx), abs(self.ranks[s] - cy)) for s in range(g.size)]
        self.home_rank = hints.home_ranks or (g.first_rank, g.last_rank_label)
        self.last_rank = (self.home_rank[1], self.home_rank[0])
        self.tracked = hints.reserve_kind
        self.army = hints.pawn_army
        self._entries: dict[int, Entry] = {}  # by piece code
        first = self.rules.initial_position({}, lambda n: 1)
        start = self.state(first)
        # The pieces still to be placed count as the start's material too.
        placing = (k for c in (WHITE, BLACK) for k in self.rules.to_place(first, c))
        self.start_material = start[1] + start[2] + sum(self.values.get(k, 0.0) for k in placing)
        # The King's fixed terms: in the middle game it stays home and off the
        # centre files (KING_AWAY, KING_FILE); in the ending it seeks the centre.
        home_files = {c: [self.files[s] for s in g.rank_squares(self.home_rank[c])] for c in (0, 1)}
        self.king_home = [
            [
                -KING_AWAY * abs(self.ranks[s] - self.home_rank[c])
                - KING_FILE
                * max(
                    0,
                    min(self.files[s] - min(home_files[c]), max(home_files[c]) - self.files[s]) - 1,
                )
                for s in range(g.size)
            ]
            for c in (WHITE, BLACK)
        ]
        kmob = mobility_table(key, self.royal, "N")
        kmean = sum(kmob[s] for s in g.squares) / len(g.squares)
        self.king_centre = [
            KING_CENTRE * (kmob[s] / kmean - 1.0) if g.on_board[s] else 0.0 for s in range(g.size)
        ]
        self.mating = hints.mating
        terms: list[Callable[[Position, Info], float]] = []
        if self.tracked:
            terms.append(self._reserve)
        if self.army:
            terms.append(self._pawn_army)
        if type(self.rules).to_place is not variants.Variant.to_place:
            terms.append(self._to_place)
        self._extra: Callable[[Position, Info], float] = (
            terms[0] if len(terms) == 1 else lambda pos, info: sum(t(pos, info) for t in terms)
        )

    def _is_pawnish(self, kind: str) -> bool:
        return kind in self.pawnish

    # ----- tables ----------------------------------------------------------

    def table(self, p: Piece) -> tuple[float, ...]:
        """The piece's worth on every square, signed for its colour (White +)."""
        entry = self._by_id.get(id(p))
        if entry is not None and entry[0] is p:
            return entry[1]
        t = self._tables.get(p)
        if t is None:
            t = self._build(p)
            self._tables[p] = t
        # Pieces are shared values (``variants.position.piece``): keep the object
        # with its table so that its id cannot be reused while cached.
        self._by_id[id(p)] = (p, t)
        return t

    def _build(self, p: Piece) -> tuple[float, ...]:
        g = self.geometry
        sign = 1.0 if p.color == WHITE else -1.0
        facing = p.state if p.kind == "RA" and p.state else ("N" if p.color == WHITE else "S")
        out = [0.0] * g.size
        if p.kind == self.royal:
            return tuple(out)  # the King's terms depend on the phase (``_kings``)
        value = self.values[p.kind]
        rules_type = self.rules.types[p.kind]
        fide_pawn = rules_type.is_pawn and not self.army
        if not fide_pawn:
            mob = mobility_table(self.key, p.kind, facing)
            mean = sum(mob[s] for s in g.squares) / len(g.squares)
        for sq in g.squares:
            if fide_pawn:
                to_go = abs(self.last_rank[p.color] - self.ranks[sq])
                bonus = PAWN_ADVANCE[to_go] if to_go < len(PAWN_ADVANCE) else 0.0
                out[sq] = sign * (value + bonus)
                continue
            bonus = PLACEMENT * value * (mob[sq] / mean - 1.0)
            if p.kind == "H":  # Stone Garden: a Horse nearer promotion is worth more
                start = 2 if p.color == WHITE else 7
                progress = max(0.0, abs(self.ranks[sq] - start) / 6.0)
                bonus += 0.5 * (HORSE_PROMOTION - value) * progress * progress
            elif self.army and rules_type.is_pawn:
                bonus += 0.05 * abs(self.ranks[sq] - (2 if p.color == WHITE else 7))
            out[sq] = sign * (value + bonus)
        return tuple(out)

    # ----- evaluation -------------------------------------------------------

    def evaluate(self, pos: Position, state: State | None = None) -> float:
        """Expected score for the side to move, in (-0.95, 0.95). ``state`` is the
        position's material state if known (``state``, ``step``)."""
        pawns = self.pawns(pos, state)
        if pos.turn == BLACK:
            pawns = -pawns
        return SQUASH_MAX * math.tanh(pawns / SQUASH)

    def pawns(self, pos: Position, state: State | None = None) -> float:
        """The position in pawns, White positive."""
        if state is None:
            state = self.state(pos)
        info = Info([state[1], state[2]], [state[3], state[4]], (state[5], state[6]))
        return state[0] + self._extra(pos, info) + self._kings(pos, info)

    def entry(self, p: Piece) -> Entry:
        """What one piece adds to the state: its table, the slot it counts in
        (material, pawns or 0 for the King, whose table is zero), how much, and
        the slot and count of the tracked kind (0: not tracked)."""
        found = self._entries.get(p.code)
        if found is None:
            weight = 1.0
            if p.kind == "G" and p.state == "2":
                weight = 0.5  # one Guardener standing on both start squares (RULES.md 1)
            t = self.table(p)
            if weight != 1.0:
                t = tuple(weight * v for v in t)
            if p.kind == self.royal:
                slot, amount = 0, 0.0
            elif p.kind in self.pawnish:
                slot, amount = 3 + p.color, weight
            else:
                slot, amount = 1 + p.color, weight * self.values[p.kind]
            tslot = 5 + p.color if p.kind == self.tracked else 0
            found = (t, slot, amount, tslot, weight)
            self._entries[p.code] = found
        return found

    def state(self, pos: Position) -> State:
        """The material state of ``pos``, from the whole board."""
        state = [0.0] * 7
        entries = self._entries
        for sq, p in enumerate(pos.board):
            if p is None:
                continue
            e = entries.get(p.code)
            if e is None:
                e = self.entry(p)
            state[0] += e[0][sq]
            state[e[1]] += e[2]
            if e[3]:
                state[e[3]] += e[4]
        return state

    def step(self, state: State, old: Position, new: Position, move: Move) -> State:
        """The state of ``new``, made from ``old`` by ``move``, from ``old``'s state:
        only the squares the move changed are looked at (those whose occupancy
        changed, and the move's own squares, where a piece may change in place)."""
        o0, o1 = old.occ
        n0, n1 = new.occ
        changed = (o0 ^ n0) | (o1 ^ n1)
        for sq in (move.frm, move.to, move.gate, move.aux):
            if sq >= 0:
                changed |= 1 << sq
        out = state[:]
        entries = self._entries
        before, after = old.board, new.board
        while changed:
            b = changed & -changed
            changed ^= b
            sq = b.bit_length() - 1
            p, q = before[sq], after[sq]
            if p is q:
                continue
            if p is not None:
                e = entries.get(p.code) or self.entry(p)
                out[0] -= e[0][sq]
                out[e[1]] -= e[2]
                if e[3]:
                    out[e[3]] -= e[4]
            if q is not None:
                e = entries.get(q.code) or self.entry(q)
                out[0] += e[0][sq]
                out[e[1]] += e[2]
                if e[3]:
                    out[e[3]] += e[4]
        return out

    def _kings(self, pos: Position, info: Info) -> float:
        material = info.material
        phase = (
            min(1.0, (material[0] + material[1]) / self.start_material)
            if self.start_material
            else 0.0
        )
        score = 0.0
        board = pos.board
        royal = self.royal
        for color in (WHITE, BLACK):
            k = pos.kings[color]
            king = board[k] if k >= 0 else None
            if king is None:
                continue
            friends = 0
            for s in self.near1[k]:
                q = board[s]
                if q is not None and q.color == color:
                    friends += 1
            enemies = 0
            for s in self.near2[k]:
                q = board[s]
                if q is not None and q.color != color and q.kind != royal:
                    enemies += 1
            safety = self.king_home[color][k] + KING_SHELTER * min(friends, 3)
            safety -= KING_PRESSURE * enemies
            centre = self.king_centre[k]
            if king.state == "+":  # Stone Garden: a promoted King
                centre += KING_PROMOTED
            value = phase * safety + (1.0 - phase) * centre
            score += value if color == WHITE else -value
        if self.mating:
            lead = material[0] - material[1]
            if abs(lead) >= 3.0:
                strong = WHITE if lead > 0 else BLACK
                ks, kw = pos.kings[strong], pos.kings[1 - strong]
                if ks >= 0 and kw >= 0:
                    files, ranks = self.files, self.ranks
                    dist = max(abs(files[ks] - files[kw]), abs(ranks[ks] - ranks[kw]))
                    bonus = MOP_UP * (self.edge[kw] + (7 - dist) * 0.5)
                    score += bonus if strong == WHITE else -bonus
        return score

    # ----- the variant's own terms (chosen by its facts) -------------------------------

    def _reserve(self, pos: Position, info: Info) -> float:
        """A side without its reserve kind on the board: one waiting to enter counts
        ``TQUARC_IN_HAND`` of its value, a lost one that may come back
        ``RESURRECTION`` (the variant's ``reserve``)."""
        score = 0.0
        value = self.values[self.tracked]
        for color in (WHITE, BLACK):
            if info.tracked[color]:
                continue
            state = self.rules.reserve(pos, color)
            if state == "enter":
                bonus = TQUARC_IN_HAND * value
            elif state == "return":
                bonus = RESURRECTION * value
            else:
                continue
            score += bonus if color == WHITE else -bonus
        return score

    def _pawn_army(self, pos: Position, info: Info) -> float:
        score = 0.0
        board = pos.board
        pawn = self.pawn_kind
        for color in (WHITE, BLACK):
            sign = 1.0 if color == WHITE else -1.0
            n = int(info.pawns[color])
            if n < len(LAST_PAWNS):
                score -= sign * LAST_PAWNS[n]
            escorts = 0
            for sq, p in enumerate(board):
                if p is None or p.color != color or p.kind in (pawn, self.royal):
                    continue
                if any(
                    (q := board[s]) is not None and q.kind == pawn and q.color == color
                    for s in self.near2[sq]
                ):
                    escorts += 1
            score += sign * ESCORT * escorts
            k = pos.kings[color]
            if k >= 0:
                danger = sum(
                    1
                    for s in self.near1[k]
                    if (q := board[s]) is not None and q.kind == pawn and q.color != color
                )
                score -= sign * 0.3 * danger
        return score

    def _to_place(self, pos: Position, info: Info) -> float:
        """Pieces still to place count their value plus their average placement over
        the home squares still empty."""
        score = 0.0
        for color in (WHITE, BLACK):
            stock = self.rules.to_place(pos, color)
            if not stock:
                continue
            rank = self.home_rank[color]
            empty = [s for s in self.geometry.rank_squares(rank) if pos.board[s] is None]
            if not empty:
                continue
            for kind in stock:
                if kind == self.royal:
                    continue
                t = self.table(piece(kind, color))
                score += sum(t[s] for s in empty) / len(empty)
                info.material[color] += self.values[kind]
        return score


_EVALUATORS: dict[str, Evaluator] = {}


def evaluator(key: str) -> Evaluator:
    """The (cached) evaluator of a variant."""
    ev = _EVALUATORS.get(key)
    if ev is None:
        ev = Evaluator(key)
        _EVALUATORS[key] = ev
    return ev


__all__ = ["Evaluator", "SQUASH", "SQUASH_MAX", "evaluator"]
