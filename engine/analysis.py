"""Skill and luck: what decided a finished game (issue 29).

    a = engine.analysis.analyse(record, depth=None, progress=None) -> Analysis

Every step of a game is either chance (dice rolled at the start of a turn or
inside an action: Guardener's 2d4 and its ``reroll``, the Tquarc's d4 by ``roll``,
an entry, a teleport or a resurrection, the Jepps Random setup and mediator
rolls) or a decision (an action, a ``pass`` included). Following Douglas Zare's
"A Measure of Luck", as GNU Backgammon does:

- the *luck* of a roll is the equity after it, with best play, minus the
  expected equity before it (the expectation over ``Variant.chances``);
- the *error* of an action is the equity of best play minus the equity of the
  action played.

Equity is the expected score (0..1) of ``engine.equity``, for the side to act,
from the search's value at the variant's analysis depth.

How the accounting adds up exactly (by construction). Each point of the game
gets one number, White's equity there, and every figure is the difference of two
neighbouring numbers:

    B_0  -luck->  F_0  -error->  B_1  -luck->  F_1  ...  B_T  -luck->  F_T

- ``B_{t+1}``, the equity of the action played at decision ``t`` (before the dice
  that follow it), is the expectation over its outcomes (``Variant.chances``, as
  the search's chance nodes list them): the sum of p_i * X_i, where X_i is the
  search's equity of outcome i at the analysis depth, except that the outcome that
  happened counts ``F_{t+1}``, the same number its luck is measured from.
- ``F_t``, the equity at decision ``t`` after its roll with best play, is the
  search's equity of that position, or ``B_{t+1}`` if the action played did
  better than that (an action never gives up less than nothing); a forced action
  (the only legal one) has ``F_t = B_{t+1}``.
- ``F_T`` is the result of a game that ended by the rules (1, 1/2, 0), else the
  search's equity where the players stopped (a resignation, a timeout).

So error = F_t - B_{t+1} >= 0 for the mover, and luck = F_t - B_t for the roller.
For each player, the luck of their own rolls minus the opponent's, plus the
opponent's errors minus their own, telescopes to their final equity minus their
initial one (to float precision: the same numbers are added and subtracted).
Without dice (King's Guard, Stone Garden, the Jepps Random play phase) every
action has one outcome (p = 1), so B_t = F_t and luck is exactly 0.

What the max costs: where the action played turned out better than the search's
value of the position (it saw further through the outcomes), the difference is
counted in the roller's favour in the luck of the roll before, not as a negative
error; this biases luck slightly towards the roller (measured in
``benchmarks/equity_fit.py --report``).

The analysis is pure and picklable in and out (for a process pool); it imports
only ``variants`` and ``engine``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import variants
from variants.base import Result
from variants.dice import ScriptedDice
from variants.position import Move, Position
from variants.record import parse_record

from . import domain as engine_domain
from . import settings_for
from .domain import Node, VariantDomain, scripted
from .equity import Fit, fit_for
from .search import INF, Search

Progress = Callable[[int, int], None]  # (steps done, steps in all)

WHITE, BLACK = 0, 1
SIDES = ("white", "black")
TT_LIMIT = 2_000_000  # transposition entries kept between searches before a clear


@dataclass(frozen=True)
class Turn:
    """One roll (maybe none) and the decision after it (none at the game's end).

    Equities are expected scores 0..1. ``before``/``after``/``luck`` are the
    roller's; ``best_equity``/``played_equity``/``error`` the mover's;
    ``white`` is White's equity after the roll (the graph's line)."""

    ply: int  # 1 for the first action; the final entry has the number after the last
    side: str | None  # who acts now ('white' | 'black'); None at the end
    action: str | None  # the action played, as recorded
    best: str | None  # the search's choice (when it differs from the action)
    roller: str | None  # whose dice led here; None: no dice (luck 0)
    rolled: tuple[int, ...]  # the values rolled on the way here
    before: float
    after: float
    luck: float
    luck_label: str  # 'joker' | 'anti-joker' | ''
    best_equity: float
    played_equity: float
    error: float
    label: str  # '??' | '?' | '?!' | ''
    white: float
    choice: bool  # the mover had more than one legal action


@dataclass(frozen=True)
class PlayerTotals:
    side: str
    decisions: int  # actions with a choice (more than one legal action)
    actions: int
    error: float  # equity given up, in all
    error_rate: float  # per decision
    rolls: int  # rolls of this player's with more than one outcome
    luck: float  # the luck of this player's own rolls, in all
    luck_rate: float  # per roll
    net_luck: float  # own luck minus the opponent's: what the dice did to this player
    net_skill: float  # the opponent's errors minus this player's
    inaccuracies: int
    mistakes: int
    blunders: int
    jokers: int
    anti_jokers: int
    initial: float  # equity at the start
    final: float  # equity at the end
    result: float | None  # 1, 1/2 or 0; None for a game still going
    luck_adjusted: float | None  # result minus net luck


@dataclass(frozen=True)
class Analysis:
    variant: str
    depth: int
    initial: float  # White's equity before the first roll
    final: float  # White's equity at the end
    winner: str | None
    reason: str | None
    turns: tuple[Turn, ...]
    players: tuple[PlayerTotals, PlayerTotals]  # White, Black
    searches: int
    nodes: int
    cpu_s: float
    fitted: bool  # the equity curve is fitted for this variant
    extra: dict[str, Any] = field(default_factory=dict)

    def player(self, side: str) -> PlayerTotals:
        return self.players[SIDES.index(side)]

    def biggest_error(self) -> Turn | None:
        """The action that gave up the most equity (the first of equals), among those
        with a choice; None when nobody had one. Its error may be 0."""
        choices = [t for t in self.turns if t.choice and t.action is not None]
        return max(choices, key=lambda t: t.error, default=None)

    def luckiest_roll(self) -> Turn | None:
        """The roll that gave its roller the most equity; None without a roll that could
        go more than one way. Its board is the one after ``ply - 1`` actions."""
        rolls = [t for t in self.turns if t.roller is not None]
        return max(rolls, key=lambda t: t.luck, default=None)

    def as_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["turns"] = [asdict(t) for t in self.turns]
        return out

    def dumps(self) -> str:
        return json.dumps(self.as_json())

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Analysis:
        """The analysis ``as_json`` wrote (a kept analysis, issue 29)."""
        turns = tuple(
            Turn(**{**t, "rolled": tuple(int(v) for v in t["rolled"])}) for t in data["turns"]
        )
        white, black = (PlayerTotals(**p) for p in data["players"])
        fields = {k: v for k, v in data.items() if k not in ("turns", "players")}
        return cls(**fields, turns=turns, players=(white, black))

    @classmethod
    def loads(cls, text: str) -> Analysis:
        """The analysis ``dumps`` wrote."""
        return cls.from_json(json.loads(text))


# ----- the walk ---------------------------------------------------------------------


@dataclass
class _Outcome:
    p: float
    node: Node
    white: float  # the search's equity (White's)
    best: Move | None  # the search's choice there
    value: float  # the search's value for the side to act there (-1..1)


@dataclass
class _Step:
    """Action ``t``: its node, the move, its outcomes and which one happened."""

    node: Node
    move: Move
    text: str
    mover: int
    kids: list[_Outcome]
    actual: int
    roller: int | None
    rolled: tuple[int, ...]
    measured: float = 0.0  # the search's equity of the node (White's)
    best_text: str | None = None
    choice: bool = False  # more than one legal action


class Analyser:
    """Searches the positions of one game at a fixed depth (one search object, its
    table kept from position to position)."""

    def __init__(self, key: str, depth: int | None = None, fit: Fit | None = None) -> None:
        self.key = key
        self.fit: Fit = fit if fit is not None else fit_for(key)
        self.depth = depth if depth is not None else self.fit.depth
        if self.depth < 1:
            raise ValueError("the analysis depth must be at least 1")
        self.dom: VariantDomain = engine_domain(key)
        settings = replace(
            settings_for(3, 1e9, key=key),
            max_depth=self.depth,
            min_depth=self.depth,
            noise=0.0,
            exact_root=False,
        )
        self.search: Search[Node, Move] = Search(self.dom, settings, clock=time.perf_counter)
        self.searches = 0

    def white(self, node: Node, equity: float) -> float:
        return equity if node.pos.turn == WHITE else 1.0 - equity

    def measure(self, node: Node) -> tuple[float, Move | None, float]:
        """(White's equity, the search's choice, the value for the side to act)."""
        d = self.dom
        t = d.terminal(node, 0, True)
        if t is not None:
            return self.white(node, _result_equity(t)), None, t
        if len(self.search.tt) > TT_LIMIT:
            self.search.tt.clear()
        moves = d.moves(node)
        self.searches += 1
        if len(moves) == 1:
            v = self.search.after(node, moves[0], self.depth - 1, -INF, INF, 0)
            return self.fit.white_equity(v, node.pos.turn == WHITE), moves[0], v
        report = self.search.run(node)
        white = self.fit.white_equity(report.value, node.pos.turn == WHITE)
        return white, report.move, report.value

    def outcomes(self, kids: list[tuple[float, Node]]) -> list[_Outcome]:
        out = []
        for p, node in kids:
            white, best, value = self.measure(node)
            out.append(_Outcome(p, node, white, best, value))
        return out


def _result_equity(value: float) -> float:
    """A finished game's value (-1, 0, 1, a win shortened by its distance) as 0, 1/2, 1."""
    if value > 0:
        return 1.0
    if value < 0:
        return 0.0
    return 0.5


def _no_roll(sides: int) -> int:
    raise ValueError("the start of this record rolls dice before the first action")


def start_node(rules: variants.Variant, headers: dict[str, str]) -> tuple[Position, Node]:
    """The position before any die is rolled, and its node."""
    options = rules.check_options(json.loads(headers.get("Options", "{}")))
    fen = headers.get("FEN")
    pos = rules.from_fen(fen) if fen is not None else rules.initial_position(options, _no_roll)
    return pos, Node(pos, (rules.repetition_key(pos),))


def start_outcomes(dom: VariantDomain, node: Node) -> list[tuple[float, Node]]:
    """The first turn's roll (``Variant.chances`` at the start), as (p, node)."""
    rules = dom.rules
    pos = node.pos
    if pos.dice is not None or rules.outcome(pos, node.keys) is not None:
        return [(1.0, node)]
    table = dom.table(pos, None, rules.repetition_key(pos))
    if not table:
        return [(1.0, node)]
    out = []
    for q, rolls in table:
        rolled = pos.copy()
        rules.start_turn(rolled, scripted(rolls))
        out.append((q, Node(rolled, node.keys)))
    return out


def _match(rules: variants.Variant, kids: list[tuple[float, Node]], pos: Position) -> int:
    """The outcome that is ``pos`` (outcomes that differ only in the order of the
    last two dice were merged under the sorted order)."""
    keys = {rules.repetition_key(pos)}
    dice = pos.dice
    if dice is not None and len(dice) >= 2:
        swapped = pos.copy()
        swapped.dice = dice[:-2] + tuple(sorted(dice[-2:]))
        keys.add(rules.repetition_key(swapped))
    for i, (_, node) in enumerate(kids):
        if rules.repetition_key(node.pos) in keys:
            return i
    raise RuntimeError("the record's position is not among the outcomes the search lists")


def analyse(
    record: str,
    depth: int | None = None,
    progress: Progress | None = None,
    fit: Fit | None = None,
) -> Analysis:
    """Analyse the game ``record`` (``variants.Game.record()``); ``progress(done, total)``
    is called after each step; ``fit``: another equity curve than the variant's stored
    one (``benchmarks/equity_fit.py`` measures a curve it has just fitted). Raises
    ValueError for a record that does not replay."""
    cpu0 = time.process_time()
    headers, actions, rolls = parse_record(record)
    key = headers["Variant"]
    rules = variants.rules(key)
    final_game = variants.replay(record)  # the record replays, and its result
    an = Analyser(key, depth, fit)
    dom = an.dom
    dom.source.clear()
    total = len(actions) + 1

    # The game itself, action by action, for the positions and the rolls of each step.
    game = variants.Game(
        rules,
        options=json.loads(headers.get("Options", "{}")),
        dice=ScriptedDice(rolls),
        fen=headers.get("FEN"),
    )
    _, pre = start_node(rules, headers)
    first = start_outcomes(dom, pre)
    k0 = _match(rules, first, game.pos) if len(first) > 1 else 0
    start = an.outcomes(first)
    start_roller = start[k0].node.pos.turn if len(first) > 1 else None
    start_rolled = tuple(v for _, v in game.rolls)
    if progress:
        progress(1, total)
    steps: list[_Step] = []
    node = start[k0].node
    here = start[k0]
    for i, text in enumerate(actions):
        n_rolls = len(game.rolls)
        mover = node.pos.turn
        game.play(text)
        move = game.moves[-1]
        kids_raw = dom.children(node, move)
        actual = _match(rules, kids_raw, game.pos) if len(kids_raw) > 1 else 0
        kids = an.outcomes(kids_raw)
        inner = bool(rules.chances(node.pos, move))
        roller = mover if inner else kids[actual].node.pos.turn if len(kids_raw) > 1 else None
        step = _Step(
            node=node,
            move=move,
            text=game.history[-1],
            mover=mover,
            kids=kids,
            actual=actual,
            roller=roller,
            rolled=tuple(v for _, v in game.rolls[n_rolls:]),
        )
        step.choice = len(dom.moves(node)) > 1
        step.measured = here.white
        if step.choice and here.best is not None and here.best != move:
            step.best_text = rules.format_move(node.pos, here.best, rules.legal_moves(node.pos))
        steps.append(step)
        node = kids[actual].node
        here = kids[actual]
        if progress:
            progress(i + 2, total)

    # The end: the result of a finished game, or the search's equity where it stopped.
    result = final_game.result
    end_white = here.white
    if result is not None and final_game.ended_by_players is False:
        end_white = {"white": 1.0, "black": 0.0, None: 0.5}[result.winner]
    a = _account(an, start, k0, start_roller, start_rolled, steps, end_white, result)
    return replace(a, cpu_s=time.process_time() - cpu0)


def _expect(kids: list[_Outcome], actual: int, f_actual: float) -> float:
    """The expectation over the outcomes, with the one that happened counted as
    ``f_actual`` (White's)."""
    if len(kids) == 1:
        return f_actual
    total = 0.0
    for i, k in enumerate(kids):
        total += k.p * (f_actual if i == actual else k.white)
    return total


def _account(
    an: Analyser,
    start: list[_Outcome],
    k0: int,
    start_roller: int | None,
    start_rolled: tuple[int, ...],
    steps: list[_Step],
    end_white: float,
    result: Result | None,
) -> Analysis:
    fit = an.fit
    n = len(steps)
    # Backward: F_t (White's equity at decision t) and B_t (before its dice).
    f = [0.0] * (n + 1)
    b = [0.0] * (n + 1)
    f[n] = end_white
    for t in range(n - 1, -1, -1):
        s = steps[t]
        b[t + 1] = _expect(s.kids, s.actual, f[t + 1])
        if not s.choice:
            f[t] = b[t + 1]  # a forced action gives up nothing
        elif s.mover == WHITE:
            f[t] = max(s.measured, b[t + 1])
        else:
            f[t] = min(s.measured, b[t + 1])
    b[0] = _expect(start, k0, f[0])

    def mine(side: int | None, white: float) -> float:
        return white if side in (None, WHITE) else 1.0 - white

    def signed(side: int | None, white_diff: float) -> float:
        return white_diff if side in (None, WHITE) else -white_diff

    turns: list[Turn] = []
    rollers = [start_roller] + [s.roller for s in steps]
    rolled = [start_rolled] + [s.rolled for s in steps]
    for t in range(n + 1):
        roller = rollers[t]
        luck = signed(roller, f[t] - b[t]) if roller is not None else 0.0
        if t < n:
            s = steps[t]
            mover: int | None = s.mover
            error = signed(mover, f[t] - b[t + 1]) + 0.0  # no -0.0
            best_eq = mine(mover, f[t])
            played_eq = mine(mover, b[t + 1])
            action: str | None = s.text
            best = s.best_text
        else:
            mover, error, action, best = None, 0.0, None, None
            best_eq = played_eq = mine(WHITE, f[t])
        turns.append(
            Turn(
                ply=t + 1,
                side=SIDES[mover] if mover is not None else None,
                action=action,
                best=best,
                roller=SIDES[roller] if roller is not None else None,
                rolled=rolled[t],
                before=mine(roller, b[t]),
                after=mine(roller, f[t]),
                luck=luck,
                luck_label=fit.luck_label(luck) if roller is not None else "",
                best_equity=best_eq,
                played_equity=played_eq,
                error=error,
                label=fit.label(error) if t < n and steps[t].choice else "",
                white=f[t],
                choice=t < n and steps[t].choice,
            )
        )
    players = _totals(turns, steps, b[0], f[n], result)
    return Analysis(
        variant=an.key,
        depth=an.depth,
        initial=b[0],
        final=f[n],
        winner=result.winner if result is not None else None,
        reason=result.reason if result is not None else None,
        turns=tuple(turns),
        players=players,
        searches=an.searches,
        nodes=an.search.nodes,
        cpu_s=0.0,
        fitted=fit.fitted,
    )


def _totals(
    turns: list[Turn], steps: list[_Step], initial: float, final: float, result: Result | None
) -> tuple[PlayerTotals, PlayerTotals]:
    own_luck = [0.0, 0.0]
    own_error = [0.0, 0.0]
    rolls = [0, 0]
    decisions = [0, 0]
    actions = [0, 0]
    labels = [{"?!": 0, "?": 0, "??": 0}, {"?!": 0, "?": 0, "??": 0}]
    jokers = [{"joker": 0, "anti-joker": 0}, {"joker": 0, "anti-joker": 0}]
    for t, turn in enumerate(turns):
        if turn.roller is not None:
            r = SIDES.index(turn.roller)
            own_luck[r] += turn.luck
            rolls[r] += 1
            if turn.luck_label:
                jokers[r][turn.luck_label] += 1
        if turn.side is not None:
            m = SIDES.index(turn.side)
            actions[m] += 1
            own_error[m] += turn.error
            if steps[t].choice:
                decisions[m] += 1
            if turn.label:
                labels[m][turn.label] += 1
    out = []
    for me in (WHITE, BLACK):
        other = 1 - me
        score: float | None = None
        if result is not None:
            score = 0.5 if result.winner is None else float(result.winner == SIDES[me])
        net_luck = own_luck[me] - own_luck[other]
        out.append(
            PlayerTotals(
                side=SIDES[me],
                decisions=decisions[me],
                actions=actions[me],
                error=own_error[me],
                error_rate=own_error[me] / decisions[me] if decisions[me] else 0.0,
                rolls=rolls[me],
                luck=own_luck[me],
                luck_rate=own_luck[me] / rolls[me] if rolls[me] else 0.0,
                net_luck=net_luck,
                net_skill=own_error[other] - own_error[me],
                inaccuracies=labels[me]["?!"],
                mistakes=labels[me]["?"],
                blunders=labels[me]["??"],
                jokers=jokers[me]["joker"],
                anti_jokers=jokers[me]["anti-joker"],
                initial=initial if me == WHITE else 1.0 - initial,
                final=final if me == WHITE else 1.0 - final,
                result=score,
                luck_adjusted=None if score is None else score - net_luck,
            )
        )
    return out[0], out[1]


def identity_gap(a: Analysis) -> float:
    """The largest, over the two players, of |net skill + net luck - (final - initial)|:
    0 to float precision (the module's accounting)."""
    return max(abs(p.net_skill + p.net_luck - (p.final - p.initial)) for p in a.players)


__all__ = [
    "Analysis",
    "Analyser",
    "PlayerTotals",
    "Turn",
    "analyse",
    "identity_gap",
]
