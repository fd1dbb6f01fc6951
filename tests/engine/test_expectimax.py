"""The search on tiny hand-built trees: the value equals the one computed by hand,
with and without chance-node pruning (expectimax, Star1, Star2), and the pruning
really prunes. Values are written from White's side; a leaf is a finished game
worth that much to White."""

from __future__ import annotations

from collections.abc import Hashable

import pytest

from engine.search import INF, Search, Settings

# name -> (side to move, {move: [(probability, child)]}) or leaf value (White's view)
Tree = dict[str, "tuple[int, dict[str, list[tuple[float, str]]]] | float"]

W, B = 0, 1

# White chooses a, b, c or d.
#   a: 50% Black X1 {c: +0.2, d: -0.4} -> -0.4; 50% Black X2 {c: 0.6, d: 0.8} -> 0.6
#      = 0.5 * -0.4 + 0.5 * 0.6 = 0.10
#   b: 25% Black Y1 {c: -0.9, d: 0.3} -> -0.9; 75% Black Y2 {c: 0.5} -> 0.5
#      = 0.25 * -0.9 + 0.75 * 0.5 = 0.15
#   c: White moves again (Z: {a: 0.05, b: 0.12}) -> 0.12
#   d: 50% Black V1 {c: -0.8, d: 0.9} -> -0.8; 50% Black V2 {c: 0.7, d: 0.4} -> 0.4
#      = -0.2. After V1, at most 0.5 * -0.8 + 0.5 * 1 = 0.1 < 0.15: Star1 need not
#      look at V2.
# Root: max(0.10, 0.15, 0.12, -0.20) = 0.15, by b.
TREE: Tree = {
    "root": (W, {"a": [(0.5, "X1"), (0.5, "X2")], "b": [(0.25, "Y1"), (0.75, "Y2")],
                 "c": [(1.0, "Z")], "d": [(0.5, "V1"), (0.5, "V2")]}),
    "X1": (B, {"c": [(1.0, "x1c")], "d": [(1.0, "x1d")]}),
    "X2": (B, {"c": [(1.0, "x2c")], "d": [(1.0, "x2d")]}),
    "Y1": (B, {"c": [(1.0, "y1c")], "d": [(1.0, "y1d")]}),
    "Y2": (B, {"c": [(1.0, "y2c")]}),
    "Z": (W, {"a": [(1.0, "za")], "b": [(1.0, "zb")]}),
    "V1": (B, {"c": [(1.0, "v1c")], "d": [(1.0, "v1d")]}),
    "V2": (B, {"c": [(1.0, "v2c")], "d": [(1.0, "v2d")]}),
    "x1c": 0.2, "x1d": -0.4, "x2c": 0.6, "x2d": 0.8,
    "y1c": -0.9, "y1d": 0.3, "y2c": 0.5,
    "za": 0.05, "zb": 0.12,
    "v1c": -0.8, "v1d": 0.9, "v2c": 0.7, "v2d": 0.4,
}  # fmt: skip


class ToyDomain:
    """A hand-built tree as a search domain. Leaves are finished games."""

    def __init__(self, tree: Tree) -> None:
        self.tree = tree
        self.visited: list[str] = []
        self.sides: dict[str, int] = {}
        for spec in tree.values():
            if not isinstance(spec, float):
                side, moves = spec
                for outcomes in moves.values():
                    for _, child in outcomes:
                        self.sides[child] = side if isinstance(tree[child], float) else -1
        for name, spec in tree.items():
            if not isinstance(spec, float):
                self.sides[name] = spec[0]

    def side(self, node: str) -> int:
        spec = self.tree[node]
        if isinstance(spec, float):
            # A leaf: the side to move there is the other side of whoever moved into it.
            return 1 - self.sides[node] if self.sides[node] >= 0 else W
        return spec[0]

    def key(self, node: str) -> Hashable:
        return node

    def moves(self, node: str) -> list[str]:
        spec = self.tree[node]
        assert not isinstance(spec, float)
        return list(spec[1])

    def terminal(self, node: str, ply: int, exact: bool, horizon: bool = False) -> float | None:
        self.visited.append(node)
        spec = self.tree[node]
        if isinstance(spec, float):
            return spec if self.side(node) == W else -spec
        return None

    def evaluate(self, node: str) -> float:
        assert not isinstance(self.tree[node], float)
        return 0.0  # inner nodes, at the horizon of the first iteration

    def children(self, node: str, move: str) -> list[tuple[float, str]]:
        spec = self.tree[node]
        assert not isinstance(spec, float)
        return spec[1][move]

    def is_noisy(self, node: str, move: str) -> bool:
        return False

    def mvv_lva(self, node: str, move: str) -> float:
        return 0.0

    def noisy(self, node: str) -> list[str]:
        return []

    def in_check(self, node: str) -> bool:
        return False


def frozen() -> float:
    return 0.0


def searcher(method: str, tree: Tree = TREE) -> tuple[Search[str, str], ToyDomain]:
    dom = ToyDomain(tree)
    settings = Settings(max_depth=2, budget_s=1.0, chance=method, qdepth=0)
    return Search(dom, settings, clock=frozen), dom


@pytest.mark.parametrize("method", ["expectimax", "star1", "star2"])
def test_root_value_and_choice_equal_the_hand_computed_ones(method: str) -> None:
    search, _ = searcher(method)
    report = search.run("root")
    assert report.move == "b"
    assert report.value == pytest.approx(0.15)
    assert report.depth == 2


@pytest.mark.parametrize("method", ["expectimax", "star1", "star2"])
@pytest.mark.parametrize(("move", "value"), [("a", 0.10), ("b", 0.15), ("c", 0.12), ("d", -0.20)])
def test_each_action_with_the_full_window(method: str, move: str, value: float) -> None:
    search, _ = searcher(method)
    assert search.after("root", move, 1, -INF, INF, 0) == pytest.approx(value)


@pytest.mark.parametrize("method", ["expectimax", "star1", "star2"])
@pytest.mark.parametrize("move", ["a", "b", "c", "d"])
@pytest.mark.parametrize(("alpha", "beta"), [(0.12, 0.2), (-0.5, 0.0), (0.0, 0.11), (0.14, 0.16)])
def test_narrow_windows_give_correct_bounds(
    method: str, move: str, alpha: float, beta: float
) -> None:
    """Fail-soft: at or below alpha means the value is at most that; at or above
    beta, at least that; in between, exact."""
    true = {"a": 0.10, "b": 0.15, "c": 0.12, "d": -0.20}[move]
    search, _ = searcher(method)
    v = search.after("root", move, 1, alpha, beta, 0)
    if v <= alpha:
        assert true <= v + 1e-12
    elif v >= beta:
        assert true >= v - 1e-12
    else:
        assert v == pytest.approx(true)
    if true <= alpha:
        assert v <= alpha + 1e-12
    if true >= beta:
        assert v >= beta - 1e-12


def test_star1_cuts_a_chance_node_that_cannot_reach_alpha() -> None:
    plain, plain_dom = searcher("expectimax")
    star1, star1_dom = searcher("star1")
    assert plain.run("root").move == star1.run("root").move == "b"
    assert "v2c" in plain_dom.visited and "v2d" in plain_dom.visited
    assert "v2c" not in star1_dom.visited and "v2d" not in star1_dom.visited
    assert len(star1_dom.visited) < len(plain_dom.visited)


def test_star2_probes_prove_a_cut_before_any_full_search() -> None:
    # White's e: two equally likely Black replies, each with a first move that is
    # already bad enough for White: the probes alone show e < alpha (0.15 from b).
    tree = dict(TREE)
    tree["root"] = (W, {**TREE["root"][1], "e": [(0.5, "E1"), (0.5, "E2")]})  # type: ignore[index]
    tree["E1"] = (B, {"c": [(1.0, "e1c")], "d": [(1.0, "e1d")]})
    tree["E2"] = (B, {"c": [(1.0, "e2c")], "d": [(1.0, "e2d")]})
    tree.update({"e1c": -0.5, "e1d": 0.9, "e2c": -0.3, "e2d": 0.8})
    star2, dom2 = searcher("star2", tree)
    star1, dom1 = searcher("star1", tree)
    assert star2.run("root").move == star1.run("root").move == "b"
    # e's value is 0.5*-0.5 + 0.5*-0.3 = -0.4: Star2 needs only the two probes.
    assert "e1d" not in dom2.visited and "e2d" not in dom2.visited
    assert star2.after("root", "e", 1, -INF, INF, 0) == pytest.approx(-0.4)


def test_a_side_that_moves_twice_is_not_negated() -> None:
    # c leads to White moving again: its value is White's best there, 0.12.
    for method in ("expectimax", "star1", "star2"):
        search, _ = searcher(method)
        assert search.after("root", "c", 1, -INF, INF, 0) == pytest.approx(0.12)
