"""The self-play players' names (``engine.players.parse``), with a budget of their own."""

from __future__ import annotations

import pytest

from engine import players


def test_an_ai_player_may_have_its_own_budget() -> None:
    assert players.parse("ai:3") == players.Player("ai:3", 3, None)
    assert players.parse(" AI:3@2 ") == players.Player("ai:3@2", 3, 2.0)
    assert players.parse("ai:1@0.25").budget_s == 0.25
    for bad, words in (("ai:3@", "positive"), ("ai:3@-1", "positive"), ("ai:4@2", "no AI level")):
        with pytest.raises(ValueError, match=words):
            players.parse(bad)


def test_its_own_budget_is_the_one_it_plays_with(monkeypatch: pytest.MonkeyPatch) -> None:
    import engine

    seen: list[float] = []
    real = engine.choose_for_game

    def choose_for_game(game, level, *, budget_s, seed, clock):  # type: ignore[no-untyped-def]
        seen.append(budget_s)
        return real(game, 1, budget_s=0.05, seed=seed, clock=lambda: 0.0)

    monkeypatch.setattr(engine, "choose_for_game", choose_for_game)
    players.play_game(
        "kings_guard", players.parse("ai:3@1.5"), players.parse("ai:3"), seed=1, max_plies=4,
        budget_s=0.7,
    )  # fmt: skip
    assert seen == [1.5, 0.7, 1.5, 0.7]
