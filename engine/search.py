"""Alpha-beta (negamax) with chance nodes, under a time budget.

- *Decision nodes*: negamax alpha-beta, values for the side to move in [-1, 1]
  (a win 1, a loss -1, a draw 0; ``engine.evaluate`` squashes the static score
  into (-0.95, 0.95)). A side may act twice running (Guardener's ``reroll``, the
  Tquarc's ``roll``, the Jepps setup): a child's value is negated only when the
  side to move changes.
- *Transposition table* keyed by the rules' repetition key (dice included):
  depth, bound type, value (wins stored relative to the node) and best action.
- *Move ordering*: the table's action, then captures by MVV-LVA and promotions,
  then two killer actions per ply, then the history score.
- *Quiescence*: captures and promotions only, with stand-pat, to ``qdepth``
  plies; chance on the way (a capture in Guardener is followed by the
  opponent's roll) is averaged like anywhere else. A side in check (the
  checkmate variants) may not stand pat: every evasion is searched, so that a
  mating check at the horizon is seen.
- *Chance nodes* (``chance``): ``"expectimax"`` searches every outcome with the
  full window; ``"star1"`` is Ballard's Star1: each outcome gets the window
  that would still let the average land inside (alpha, beta), given the exact
  values so far and the bounds [-1, 1] on the rest, and the node is cut as soon
  as that is impossible; ``"star2"`` adds Ballard's probing phase: before the
  Star1 pass, one action of every outcome is searched with the full window (the
  table's action, or the first in order; in quiescence the stand-pat score,
  which is free). One
  action's value bounds the outcome from below for the side that moves there,
  so the probes alone may prove the node above beta or below alpha, and they
  tighten the Star1 windows. Which is the default, and why, is measured by
  ``benchmarks/ai.py --chance`` (see ``engine/__init__.py``).
- *Iterative deepening* under ``budget_s`` seconds of an injected clock: the
  search stops inside an iteration when the clock runs out (checked at every
  node, at every outcome Star2 probes and at every root action of the first
  glance, so no stretch of work between two looks is long), keeping the last
  completed iteration's choice (or a better one the unfinished iteration has
  proved); it does not start an iteration it cannot
  expect to finish.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Generic, Protocol, TypeVar

INF = 2.0
LOW, HIGH = -1.0, 1.0  # bounds on every value (Star1/Star2)
MATE_BOUND = 0.99  # values beyond this are wins or losses at some distance
MATE_STEP = 1e-4
EXACT, LOWER, UPPER = 0, 1, 2
EPS = 1e-9
MIN_GROWTH = 2.0  # an iteration is assumed to cost at least this times the one before

N = TypeVar("N")
A = TypeVar("A", bound=Hashable)

Clock = Callable[[], float]


class Domain(Protocol[N, A]):
    """What the search needs to know of a game (``engine.domain`` for the variants;
    tests build tiny trees)."""

    def side(self, node: N) -> int: ...
    def key(self, node: N) -> Hashable: ...
    def moves(self, node: N) -> list[A]: ...
    def terminal(self, node: N, ply: int, exact: bool, horizon: bool = False) -> float | None: ...
    def evaluate(self, node: N) -> float: ...
    def children(self, node: N, move: A) -> list[tuple[float, N]]: ...
    def is_noisy(self, node: N, move: A) -> bool: ...
    def in_check(self, node: N) -> bool: ...
    def noisy(self, node: N) -> list[A]: ...
    def mvv_lva(self, node: N, move: A) -> float: ...


@dataclass(frozen=True)
class Settings:
    max_depth: int = 64
    budget_s: float = 2.0
    chance: str = "star2"  # 'expectimax' | 'star1' | 'star2'
    qdepth: int = 4
    noise: float = 0.0  # standard deviation added to root scores (weaker levels)
    exact_root: bool = False  # score every root action exactly (needed for noise)
    min_depth: int = 1  # iterations begun whatever the clock predicts (measurements)


@dataclass(frozen=True)
class Report(Generic[A]):
    move: A
    value: float
    depth: int  # the last completed iteration (0: no search was needed)
    nodes: int
    time_s: float
    scores: tuple[tuple[A, float], ...] = field(default=())  # root actions, best first


class Timeout(Exception):
    """The clock ran out inside an iteration."""


class Search(Generic[N, A]):
    def __init__(
        self,
        domain: Domain[N, A],
        settings: Settings = Settings(),
        *,
        clock: Clock,
        rng: random.Random | None = None,
    ) -> None:
        if settings.chance not in ("expectimax", "star1", "star2"):
            raise ValueError(f"unknown chance-node method {settings.chance!r}")
        self.domain = domain
        self.settings = settings
        self.clock = clock
        self.rng = rng or random.Random(0)
        self.tt: dict[Hashable, tuple[int, int, float, A | None]] = {}
        self.killers: dict[int, list[A]] = {}
        self.history: dict[tuple[int, A], int] = {}
        self.nodes = 0
        self.deadline = INF
        self.partial: tuple[A, float] | None = None
        self.star1 = settings.chance in ("star1", "star2")
        self.star2 = settings.chance == "star2"

    # ----- the root ----------------------------------------------------------

    def run(self, root: N) -> Report[A]:
        d = self.domain
        s = self.settings
        start = self.clock()
        self.deadline = start + s.budget_s
        moves = list(d.moves(root))
        if not moves:
            raise ValueError("no legal action to choose from")
        if len(moves) == 1:
            return Report(moves[0], 0.0, 0, 0, self.clock() - start, ((moves[0], 0.0),))
        # Before any iteration: each action by the static score it leads to (its
        # likeliest outcome). This orders the first iteration and is the choice
        # if not even that one finishes.
        scores = self.glance(root, moves)
        moves = [m for m, _ in scores]
        best, value, depth = scores[0][0], scores[0][1], 0
        last = 0.0  # time of the previous iteration
        for target in range(1, s.max_depth + 1):
            began = self.clock()
            try:
                found = self.root_search(root, target, moves)
            except Timeout:
                if self.partial is not None:
                    best, value = self.partial
                break
            best, value, scores, depth = found[0][0], found[0][1], found, target
            moves = [m for m, _ in found]
            now = self.clock()
            if value > MATE_BOUND:
                break  # a forced win: no need to look further
            took = now - began
            # Each iteration has cost about `growth` times the one before.
            growth = max(MIN_GROWTH, took / last) if last > 0 else MIN_GROWTH
            last = took
            spent = now - start
            if target >= s.min_depth and (
                spent > 0.5 * s.budget_s or growth * took > 3.0 * (s.budget_s - spent)
            ):
                break  # the next iteration would not finish in time
        if s.noise > 0 and depth > 0:
            noisy = [(v + self.rng.gauss(0.0, s.noise), m) for m, v in scores]
            best = max(noisy, key=lambda t: t[0])[1]
            value = dict(scores)[best]
        return Report(best, value, depth, self.nodes, self.clock() - start, tuple(scores))

    def glance(self, root: N, moves: Sequence[A]) -> list[tuple[A, float]]:
        """Each action's static value after it (its likeliest outcome), best first."""
        d = self.domain
        me = d.side(root)
        out = []
        try:
            for m in moves:
                self.check()
                p, child = max(d.children(root, m), key=lambda k: k[0])
                t = d.terminal(child, 1, False, True)
                v = t if t is not None else d.evaluate(child)
                out.append((m, v if d.side(child) == me else -v))
        except Timeout:  # the rest keep their order, after the ones scored
            out.extend((m, -INF) for m in moves[len(out) :])
        out.sort(key=lambda t: -t[1])
        return out

    def root_search(self, root: N, depth: int, moves: Sequence[A]) -> list[tuple[A, float]]:
        """Every root action's value at ``depth`` (exact for the best; the others
        exact with ``exact_root``, else upper bounds), best first."""
        self.partial = None
        alpha = -INF
        out: list[tuple[A, float]] = []
        for i, m in enumerate(moves):
            window = -INF if self.settings.exact_root else alpha
            v = self.after(root, m, depth - 1, window, INF, 0)
            out.append((m, v))
            if v > alpha:
                alpha = v
                if i > 0 or depth == 1:
                    self.partial = (m, v)  # proved better than the previous best
        out.sort(key=lambda t: -t[1])
        return out

    # ----- decision nodes ------------------------------------------------------

    def tick(self) -> None:
        """A node: count it and look at the clock."""
        self.nodes += 1
        if self.clock() > self.deadline:
            raise Timeout

    def check(self) -> None:
        """Look at the clock (work that is not a node of its own: Star2's probes)."""
        if self.clock() > self.deadline:
            raise Timeout

    def search(self, node: N, depth: int, alpha: float, beta: float, ply: int) -> float:
        if depth <= 0:
            return self.quiesce(node, alpha, beta, ply, self.settings.qdepth + depth)
        self.tick()
        d = self.domain
        t = d.terminal(node, ply, True)
        if t is not None:
            return t
        key = d.key(node)
        entry = self.tt.get(key)
        tt_move = None
        if entry is not None:
            e_depth, e_flag, e_value, tt_move = entry
            if e_depth >= depth:
                v = _from_tt(e_value, ply)
                if (
                    e_flag == EXACT
                    or (e_flag == LOWER and v >= beta)
                    or (e_flag == UPPER and v <= alpha)
                ):
                    return v
        alpha0 = alpha
        best, best_move = -INF, None
        for m in self.ordered(node, d.moves(node), tt_move, ply):
            v = self.after(node, m, depth - 1, alpha, beta, ply)
            if v > best:
                best, best_move = v, m
                if v > alpha:
                    alpha = v
                    if alpha >= beta:
                        self.reward(node, m, depth, ply)
                        break
        flag = UPPER if best <= alpha0 else LOWER if best >= beta else EXACT
        self.tt[key] = (depth, flag, _to_tt(best, ply), best_move)
        return best

    def quiesce(self, node: N, alpha: float, beta: float, ply: int, qd: int) -> float:
        self.tick()
        d = self.domain
        t = d.terminal(node, ply, False, qd <= 0)
        if t is not None:
            return t
        depth = qd - self.settings.qdepth - 1
        if qd > 0 and d.in_check(node):
            # In check there is no standing pat: every evasion is searched, so that a
            # check that mates is seen at the horizon (Stone Garden, a loss to random).
            best = -INF
            moves = self.ordered(node, d.moves(node), None, ply)
        else:
            stand = d.evaluate(node)
            if qd <= 0 or stand >= beta:
                return stand
            alpha = max(alpha, stand)
            best = stand
            moves = d.noisy(node)
        for m in moves:
            v = self.after(node, m, depth, alpha, beta, ply)
            if v > best:
                best = v
                if v > alpha:
                    alpha = v
                    if alpha >= beta:
                        break
        return best

    def after(self, node: N, move: A, depth: int, alpha: float, beta: float, ply: int) -> float:
        """The value of ``move`` for the side acting in ``node``."""
        d = self.domain
        kids = d.children(node, move)
        me = d.side(node)
        if len(kids) == 1:
            return self.value_of(kids[0][1], me, depth, alpha, beta, ply + 1)
        return self.chance(kids, me, depth, alpha, beta, ply + 1)

    def value_of(self, child: N, me: int, depth: int, alpha: float, beta: float, ply: int) -> float:
        if self.domain.side(child) == me:
            return self.search(child, depth, alpha, beta, ply)
        return -self.search(child, depth, -beta, -alpha, ply)

    # ----- chance nodes ----------------------------------------------------------

    def chance(
        self, kids: list[tuple[float, N]], me: int, depth: int, alpha: float, beta: float, ply: int
    ) -> float:
        """The expected value for ``me`` over the outcomes (probability, node)."""
        kids = sorted(kids, key=lambda k: -k[0])
        if not self.star1:
            return sum(p * self.value_of(c, me, depth, LOW, HIGH, ply) for p, c in kids)
        n = len(kids)
        lo = [LOW] * n
        hi = [HIGH] * n
        if self.star2:
            cut = self.probe(kids, me, depth, alpha, beta, ply, lo, hi)
            if cut is not None:
                return cut
        done = 0.0
        rest_lo = sum(p * lo[i] for i, (p, _) in enumerate(kids))
        rest_hi = sum(p * hi[i] for i, (p, _) in enumerate(kids))
        for i, (p, child) in enumerate(kids):
            rest_lo -= p * lo[i]
            rest_hi -= p * hi[i]
            a = (alpha - done - rest_hi) / p
            b = (beta - done - rest_lo) / p
            if a >= hi[i]:
                return done + p * hi[i] + rest_hi  # cannot reach alpha
            if b <= lo[i]:
                return done + p * lo[i] + rest_lo  # cannot stay below beta
            v = self.value_of(child, me, depth, max(a, lo[i]), min(b, hi[i]), ply)
            v = min(max(v, lo[i]), hi[i])
            if v <= a:
                return done + p * v + rest_hi
            if v >= b:
                return done + p * v + rest_lo
            done += p * v
        return done

    def probe(
        self,
        kids: list[tuple[float, N]],
        me: int,
        depth: int,
        alpha: float,
        beta: float,
        ply: int,
        lo: list[float],
        hi: list[float],
    ) -> float | None:
        """Star2's probing phase: one action per outcome. Fills ``lo``/``hi`` with
        the bounds learnt (for ``me``); returns a cut value when they suffice."""
        d = self.domain
        qdepth = self.settings.qdepth
        total_lo = sum(kp * lo[j] for j, (kp, _) in enumerate(kids))
        total_hi = sum(kp * hi[j] for j, (kp, _) in enumerate(kids))
        for i, (p, child) in enumerate(kids):
            self.check()
            ours = d.side(child) == me
            t = d.terminal(child, ply, depth > 0, depth + qdepth <= 0)
            old_lo, old_hi = lo[i], hi[i]
            if t is not None:
                lo[i] = hi[i] = t if ours else -t
            else:
                w = self.probe_one(child, depth, ply)
                if w is None:
                    continue
                if ours:
                    lo[i] = max(lo[i], w)
                else:
                    hi[i] = min(hi[i], -w)
            total_lo += p * (lo[i] - old_lo)
            total_hi += p * (hi[i] - old_hi)
            if total_lo >= beta:
                return total_lo
            if total_hi <= alpha:
                return total_hi
        return None

    def probe_one(self, child: N, depth: int, ply: int) -> float | None:
        """A lower bound on ``child``'s value for its side to move: the value of
        one action, searched with the full window (a probe that fell short of a
        cut still tightens the bounds the other probes and the Star1 pass use)."""
        d = self.domain
        if depth <= 0:
            if d.in_check(child):
                return None  # in check quiescence may score below the static value
            return d.evaluate(child)  # stand-pat: quiescence never scores below it
        entry = self.tt.get(d.key(child))
        tt_move = entry[3] if entry is not None else None
        moves = d.moves(child)
        if not moves:
            return None
        first = (
            tt_move
            if tt_move is not None and tt_move in moves
            else self.ordered(child, moves, None, ply)[0]
        )
        return self.after(child, first, depth - 1, -INF, INF, ply)

    # ----- ordering ------------------------------------------------------------------

    def ordered(self, node: N, moves: Sequence[A], tt_move: A | None, ply: int) -> list[A]:
        d = self.domain
        killers = self.killers.get(ply, ())
        side = d.side(node)
        history = self.history

        def score(m: A) -> float:
            if m == tt_move:
                return 1e9
            if d.is_noisy(node, m):
                return 1e6 + d.mvv_lva(node, m)
            if m in killers:
                return 5e5
            return history.get((side, m), 0)

        return sorted(moves, key=score, reverse=True)

    def reward(self, node: N, move: A, depth: int, ply: int) -> None:
        d = self.domain
        if d.is_noisy(node, move):
            return
        ks = self.killers.setdefault(ply, [])
        if move not in ks:
            ks.insert(0, move)
            del ks[2:]
        k = (d.side(node), move)
        self.history[k] = self.history.get(k, 0) + depth * depth


def _to_tt(v: float, ply: int) -> float:
    """Wins are stored as distance from this node, not from the root."""
    if v > MATE_BOUND:
        return v + ply * MATE_STEP
    if v < -MATE_BOUND:
        return v - ply * MATE_STEP
    return v


def _from_tt(v: float, ply: int) -> float:
    if v > MATE_BOUND:
        return v - ply * MATE_STEP
    if v < -MATE_BOUND:
        return v + ply * MATE_STEP
    return v


__all__ = ["Domain", "Report", "Search", "Settings", "Timeout"]
