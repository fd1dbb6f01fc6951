"""The integration API (``engine.choose``, ``engine.choose_for_game``), levels and
the time budget. Time-budget tests use a fake clock, never wall time."""

from __future__ import annotations

import pickle
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context

import pytest

import engine
import variants
from engine.domain import VariantDomain
from engine.search import Search, Settings, Timeout

KEYS = variants.names()


def unfinished(key: str, plies: int, seed: int) -> variants.Game:
    """A seeded random game ``plies`` actions in that has not ended (next seeds if it has)."""
    for s in range(seed, seed + 50):
        game = variants.random_playout(key, plies, s)
        if game.result is None:
            return game
    raise AssertionError("every random game ended early")


class FakeClock:
    """Advances ``step`` seconds each time it is read."""

    def __init__(self, step: float) -> None:
        self.now = 100.0
        self.step = step
        self.reads = 0

    def __call__(self) -> float:
        self.now += self.step
        self.reads += 1
        return self.now


def test_the_budget_stops_the_search_inside_an_iteration() -> None:
    game = unfinished("tquarchess", 16, 2)
    clock = FakeClock(0.001)  # every node costs a millisecond
    dom = VariantDomain("tquarchess")
    search = Search(dom, Settings(budget_s=0.5), clock=clock)
    report = search.run(dom.root(game))
    assert report.move in dom.moves(dom.root(game))
    assert 1 <= report.depth < 64
    assert report.time_s <= 0.5 + 0.002  # the node that found the clock run out
    assert report.nodes <= 500


def test_the_last_completed_iteration_is_kept() -> None:
    """Cut off in the middle of depth 3, the choice is that of depth 2 (unless
    depth 3 already proved a better one): compare with a depth-2 search."""
    game = unfinished("kings_guard", 10, 3)
    dom = VariantDomain("kings_guard")
    full2 = Search(dom, Settings(max_depth=2), clock=lambda: 0.0).run(dom.root(game))
    # Depth 1 and 2 take `full2.nodes` nodes; allow a few more of depth 3.
    clock = FakeClock(0.0)
    limited = Search(dom, Settings(budget_s=1.0), clock=clock)
    original = limited.tick

    def tick() -> None:
        original()
        if limited.nodes > full2.nodes + 5:
            raise Timeout

    limited.tick = tick  # type: ignore[method-assign]
    report = limited.run(dom.root(game))
    assert report.depth == 2
    assert report.move == full2.move or limited.partial is not None


def test_a_forced_action_needs_no_search() -> None:
    game = variants.from_fen("tquarchess", "k7/8/1Q6/8/8/8/8/7K b - - 0 1 - -/- - - 0", seed=0)
    assert len(game.legal_moves()) == 1
    choice = engine.choose_for_game(game, 3, clock=FakeClock(0.0))
    assert choice.depth == 0 and choice.nodes == 0 and choice.action == game.legal_moves()[0]


@pytest.mark.parametrize("key", KEYS)
@pytest.mark.parametrize("lv", [1, 2, 3])
def test_every_level_and_variant_gives_a_legal_action(key: str, lv: int) -> None:
    game = unfinished(key, 9, lv)
    clock = FakeClock(0.0002)  # a fifth of a millisecond a node, slower than the real pace
    choice = engine.choose_for_game(game, lv, budget_s=1.0, seed=1, clock=clock)
    assert choice.action in game.legal_moves()
    assert choice.level == lv and choice.depth >= 1 and choice.nodes > 0
    cap = engine.LEVELS[lv].budget_cap_s or 1.0
    assert choice.time_s <= cap + 0.01
    game.copy().play(choice.action)


def test_fake_clock_searches_are_deterministic() -> None:
    game = unfinished("stone_garden", 12, 5)
    a = engine.choose_for_game(game, 2, seed=7, clock=FakeClock(0.001))
    b = engine.choose_for_game(game, 2, seed=7, clock=FakeClock(0.001))
    assert a == b


def test_bad_levels_and_budgets_and_finished_games_are_refused() -> None:
    game = variants.new_game("kings_guard", seed=1)
    with pytest.raises(ValueError, match="no level 4"):
        engine.choose_for_game(game, 4)
    with pytest.raises(ValueError, match="positive"):
        engine.choose_for_game(game, 1, budget_s=0)
    game.end("white", "resignation")
    with pytest.raises(ValueError, match="over"):
        engine.choose_for_game(game, 1)


def test_choose_does_not_change_the_game() -> None:
    game = unfinished("guardener", 7, 1)
    before = (game.record(), game.fen(), list(game.legal_moves()))
    engine.choose_for_game(game, 1, clock=FakeClock(0.001))
    assert (game.record(), game.fen(), list(game.legal_moves())) == before


def test_choose_on_a_record_round_trips_through_pickle() -> None:
    game = unfinished("jepps_random", 20, 4)
    record = game.record()
    call = pickle.loads(pickle.dumps((engine.choose, (record, 1), {"budget_s": 1.0, "seed": 3})))
    fn, args, kwargs = call
    assert fn is engine.choose
    choice = fn(*args, **kwargs)
    again = pickle.loads(pickle.dumps(choice))
    assert again == choice and isinstance(again, engine.Choice)
    assert choice.action in game.legal_moves()
    replayed = variants.replay(record)
    replayed.play(choice.action)


def test_choose_runs_in_a_process_pool() -> None:
    """What the service will do: submit the record, get a Choice back."""
    game = unfinished("tquarchess", 6, 2)
    with ProcessPoolExecutor(max_workers=1, mp_context=get_context("forkserver")) as pool:
        choice = pool.submit(engine.choose, game.record(), 1, budget_s=1.0, seed=1).result(
            timeout=120
        )
    assert choice.action in game.legal_moves()
    assert choice.time_s > 0 and choice.nodes > 0


def test_levels_are_ordered() -> None:
    one, two, three = (engine.LEVELS[n] for n in (1, 2, 3))
    assert one.max_depth < two.max_depth < three.max_depth
    assert one.noise > two.noise > three.noise == 0


def test_setting_up_counts_in_the_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    """A variant's first search in a process builds its tables before the search starts:
    that time comes out of the budget, so the whole call still ends within it."""
    game = unfinished("kings_guard", 10, 3)
    clock = FakeClock(0.005)  # slow nodes: the search would use its whole budget
    real = engine.domain

    def slow_domain(key: str) -> VariantDomain:
        clock.now += 0.6  # the tables of a variant new to this process
        return real(key)

    monkeypatch.setattr(engine, "domain", slow_domain)
    choice = engine.choose_for_game(game, 3, budget_s=1.0, seed=1, clock=clock)
    assert choice.action in game.legal_moves()
    assert choice.time_s <= 1.0, choice.time_s
