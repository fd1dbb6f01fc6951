"""The time budget holds wherever the search spends its time: every costly call
the search makes (generating actions, making a move and its dice outcomes,
scoring, asking the rules for a result) advances a fake clock, and the search must
return within a small number of such calls after its budget, in every variant, at
every level, in positions full of chance (Guardener's Double x2 teleports, the
Jepps Random setup) and in quiet ones. No wall time is read."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import pytest

import engine
import variants
from engine.domain import Node, VariantDomain
from engine.search import Search, Settings

COST = 0.001  # fake seconds per costly call
SLACK = 0.03  # at most 30 costly calls between two looks at the clock


class WorkClock:
    """Time that passes only when work is done."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class Costly:
    """A domain whose costly calls advance the work clock."""

    def __init__(self, inner: VariantDomain, clock: WorkClock) -> None:
        self.inner = inner
        self.clock = clock
        self.calls = 0

    def _spend(self) -> None:
        self.calls += 1
        self.clock.now += COST

    def side(self, node: Node) -> int:
        return self.inner.side(node)

    def key(self, node: Node) -> Hashable:
        return self.inner.key(node)

    def moves(self, node: Node) -> list[Any]:
        self._spend()
        return self.inner.moves(node)

    def noisy(self, node: Node) -> list[Any]:
        self._spend()
        return self.inner.noisy(node)

    def terminal(self, node: Node, ply: int, exact: bool, horizon: bool = False) -> float | None:
        self._spend()
        return self.inner.terminal(node, ply, exact, horizon)

    def evaluate(self, node: Node) -> float:
        self._spend()
        return self.inner.evaluate(node)

    def children(self, node: Node, move: Any) -> list[tuple[float, Node]]:
        self._spend()
        return self.inner.children(node, move)

    def in_check(self, node: Node) -> bool:
        return self.inner.in_check(node)

    def is_noisy(self, node: Node, move: Any) -> bool:
        return self.inner.is_noisy(node, move)

    def mvv_lva(self, node: Node, move: Any) -> float:
        return self.inner.mvv_lva(node, move)


def games() -> list[tuple[str, variants.Game]]:
    out = []
    for key in variants.names():
        for plies, seed in ((0, 1), (9, 2), (30, 3), (60, 4)):
            game = variants.random_playout(key, plies, seed)
            if game.result is None:
                out.append((f"{key}-{plies}", game))
    # Guardener with a Double x2 showing: every piece may teleport.
    fen = (
        "***4***/*rnbqkbnr*/*pppppppp*/10/10/10/10/*PPPPPPPP*/*RNBQKBNR*/***4*** w KQkq - 0 1 33r -"
    )
    out.append(("guardener-double-x2", variants.from_fen("guardener", fen, seed=0)))
    return out


@pytest.mark.parametrize(("name", "game"), games(), ids=lambda v: v if isinstance(v, str) else "")
@pytest.mark.parametrize("lv", [1, 3])
def test_the_search_returns_soon_after_its_budget(name: str, game: variants.Game, lv: int) -> None:
    budget = 0.5
    clock = WorkClock()
    dom = Costly(VariantDomain(game.variant), clock)
    s = engine.settings_for(lv, budget, None, game.variant)
    search = Search(dom, s, clock=clock)  # type: ignore[arg-type]
    report = search.run(dom.inner.root(game))
    assert report.move in dom.inner.rules.legal_moves(game.pos)
    assert clock.now <= s.budget_s + SLACK, (clock.now, dom.calls)


def test_the_work_clock_sees_a_search_that_ignores_it() -> None:
    """The test above can fail: a search that never looks at the clock runs far over."""
    game = variants.random_playout("guardener", 9, 2)
    clock = WorkClock()
    dom = Costly(VariantDomain("guardener"), clock)
    search = Search(dom, Settings(max_depth=2, budget_s=0.5), clock=lambda: 0.0)  # type: ignore[arg-type]
    search.run(dom.inner.root(game))
    assert clock.now > 0.5 + SLACK
