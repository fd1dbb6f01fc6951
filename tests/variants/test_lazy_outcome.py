"""The end-of-turn test is made when something asks (issue 12).

``Game`` leaves ``Variant.outcome`` until ``result`` is read or ``play`` needs it; ``play``
makes it knowing that the text's action is legal (``Variant.outcome_with_action``: the
side to act has a legal action, so it is neither mated nor stalemated). These tests hold
the lazy path against the full test: the same results, the same refusals after the end,
the same records, in every variant.
"""

from __future__ import annotations

import random

import pytest

import variants
from variants import Game
from variants.base import Variant
from variants.position import Position
from variants.tquarchess import FIDE_EXTRAS

KEYS = ("guardener", "tquarchess", "kings_guard", "stone_garden", "jepps_random")


def _choose(game: Game, rng: random.Random) -> str:
    """A random legal action, often undoing the mover's last move (repetitions)."""
    pairs = game.legal_actions()
    if len(game.moves) >= 2 and rng.random() < 0.6:
        mine = game.moves[-2]
        back = [t for m, t in pairs if m.frm == mine.to and m.to == mine.frm and m.frm >= 0]
        if back:
            return back[0]
    return rng.choice(pairs)[1]


def _eager(game: Game) -> None:
    """Read the result as the game used to at every turn: the full end-of-turn test."""
    game.rules._memo = None
    assert game.result == game.rules.outcome(game.pos, game.keys)


@pytest.mark.parametrize("key", KEYS)
def test_the_test_with_an_action_found_is_the_full_test(key: str) -> None:
    rules: Variant = variants.rules(key)
    checked = 0
    for n in range(4):
        rng = random.Random(f"lazy-{key}-{n}")
        game = variants.new_game(key, seed=f"lazy-{key}-{n}")
        seen: list[tuple[Position, list[object]]] = []
        for _ in range(120):
            seen.append((game.pos, game.keys[:]))
            if game.result is not None:
                break
            game.play(_choose(game, rng))
        for pos, keys in seen:
            rules._memo = None
            full = rules.outcome(pos, keys)
            rules._memo = None
            if not rules.legal_moves(pos):
                continue  # no action to find: play never asks for the shortcut here
            rules._memo = None
            assert rules.outcome_with_action(pos, keys) == full
            checked += 1
    assert checked > 40


@pytest.mark.parametrize("key", KEYS)
def test_lazy_and_eager_games_agree_every_ply(key: str) -> None:
    ended = 0
    for n in range(6):
        rng = random.Random(f"agree-{key}-{n}")
        lazy = variants.new_game(key, seed=n)
        eager = variants.new_game(key, seed=n)
        last: list[str] = []
        for _ in range(160):
            _eager(eager)
            if eager.result is not None:
                break
            last = eager.legal_moves()
            text = _choose(eager, rng)
            assert lazy.play(text) == eager.play(text)
        assert lazy.history == eager.history
        assert lazy.result == eager.result
        assert lazy.record() == eager.record()
        if eager.result is not None:
            ended += 1
            # After the end, any action is refused alike, even one legal a ply ago.
            for text in last[:5]:
                fresh = variants.replay(lazy.record())
                with pytest.raises(variants.IllegalMove) as lazy_err:
                    fresh.play(text)
                with pytest.raises(variants.IllegalMove) as eager_err:
                    eager.play(text)
                assert str(lazy_err.value) == str(eager_err.value)
                assert lazy_err.value.refusal.cause == "game-over"
                assert fresh.record() == eager.record()
    if key in ("guardener", "kings_guard", "tquarchess"):
        assert ended  # some games end (king captured, no pawns, repetition)


def _fide(fen: str) -> Game:
    return variants.from_fen("tquarchess", f"{fen} {FIDE_EXTRAS}", seed=0)


def _refused_after_the_end(game: Game, text: str, reason: str) -> None:
    record = game.record()
    with pytest.raises(variants.GameOver) as err:
        game.play(text)
    assert str(err.value) == f"the game is over: {game.result}"
    assert game.result is not None and game.result.reason == reason
    assert game.record() == record  # unchanged
    # A record with an action after the end does not replay.
    head, _, body = record.partition("\n\n")
    score = game.result.score
    broken = f"{head}\n\n{body.strip().removesuffix(score).strip()} {text} {score}\n"
    with pytest.raises(variants.GameOver):
        variants.replay(broken)
    assert variants.replay(record).result == game.result


def test_checkmate_ends_the_game_without_anyone_asking() -> None:
    game = _fide("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")
    for text in ("f3", "e5", "g4", "Qh4#"):
        game.play(text)
    _refused_after_the_end(game, "a3", "checkmate")
    assert game.result == variants.replay(game.record()).result


def test_stalemate_ends_the_game() -> None:
    game = _fide("7k/5Q2/6K1/8/8/8/8/8 w - - 0 1")
    game.play("Qf6")  # not yet: Black has Kg8
    game.play("Kg8")
    game.play("Qe7")
    game.play("Kh8")
    game.play("Qf7")
    assert game.result is not None and game.result.reason == "stalemate"
    _refused_after_the_end(game, "Kg8", "stalemate")


def test_a_repetition_refuses_the_next_action_though_it_is_legal() -> None:
    game = _fide("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")
    for text in ("Nf3", "Nf6", "Ng1", "Ng8") * 2:
        game.play(text)
    # Nf3 is a legal action here, but the position stands for the third time.
    assert "Nf3" in game.rules.format_moves(game.pos, game.rules.legal_moves(game.pos))
    fresh = variants.replay(game.record())
    with pytest.raises(variants.GameOver):
        fresh.play("Nf3")  # nobody read the result before
    _refused_after_the_end(game, "Nf3", "threefold repetition")


@pytest.mark.parametrize(
    ("fen", "last", "reason"),
    [
        ("8/8/8/4k3/8/8/4K3/7R w - - 99 60", "Rh2", "fifty-move rule"),
        ("8/8/8/4k3/8/3r4/4K3/8 w - - 0 60", "Kxd3", "insufficient material"),
    ],
)
def test_a_draw_by_rule_refuses_the_next_action(fen: str, last: str, reason: str) -> None:
    game = _fide(fen)
    game.play(last)
    with pytest.raises(variants.GameOver):
        game.play("Kd5")
    assert game.result is not None and game.result.reason == reason


def test_a_result_is_tested_once_per_turn() -> None:
    rules = variants.rules("tquarchess")
    calls = []
    original = type(rules).outcome

    def counting(self: Variant, pos: Position, history: list[object]) -> object:
        calls.append(pos)
        return original(self, pos, history)  # type: ignore[arg-type]

    game = _fide("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")
    type(rules).outcome = counting  # type: ignore[method-assign]
    try:
        for text in ("e4", "e5", "Nf3", "Nc6"):
            game.play(text)
        assert game.result is None
        assert game.result is None
        assert game.legal_moves()
    finally:
        type(rules).outcome = original  # type: ignore[method-assign]
    assert len(calls) == 5  # four actions, then one test for the position now
    assert len(set(map(id, calls))) == 5
