"""``Outcome.legal`` writes each text only when it is read (``bot.service.live.LegalActions``,
issue 26): it must read exactly as ``Game.legal_moves()`` in every variant, and a move's
drawing and its buttons must not format the whole list."""

from __future__ import annotations

import random
import threading
from typing import Any

import pytest

import variants
from bot.service.live import LegalActions, legal_actions, render_board, render_dice
from bot.service.workers import show

PROBES = ("reroll", "roll", "pass", "O-O", "O-O-O", "e4", "Nf3", "xyz", "", "e8=Q", "T1")


def positions(key: str, seed: int, plies: int = 60) -> list[variants.Game]:
    """Copies of a seeded random game, ply after ply, none with its list formatted."""
    game = variants.new_game(key, seed=seed)
    rng = random.Random(seed)
    out = []
    for _ in range(plies):
        if game.result is not None:
            break
        out.append(game.copy())
        game.play(rng.choice(game.legal_moves()))
    return out


def formatted(game: variants.Game) -> tuple[str, ...]:
    """The list as the engine formats it, from a copy (the game itself stays unformatted)."""
    probe = game.copy()
    probe._legal = None
    return tuple(probe.legal_moves())


@pytest.mark.parametrize("key", variants.names())
def test_it_reads_as_the_engines_list_in_every_variant(key: str) -> None:
    for seed in (1, 2):
        for game in positions(key, seed, 30):
            want = formatted(game)
            # each way of reading it, each on a list nothing else has read yet
            assert [LegalActions(game)[i] for i in range(len(want))] == list(want)
            assert [LegalActions(game)[-i] for i in range(1, len(want) + 1)] == list(want[::-1])
            for text in (*want, *PROBES, *(t + "+" for t in want[:3])):
                assert (text in LegalActions(game)) == (text in want), (key, text)
            lazy = LegalActions(game)
            assert len(lazy) == len(want) and bool(lazy) == bool(want)
            assert lazy == want and want == lazy and lazy == LegalActions(game)
            assert hash(lazy) == hash(want) and repr(lazy) == repr(want)
            assert tuple(lazy) == want and list(lazy) == list(want)
            assert lazy[1:3] == want[1:3]
            assert lazy != list(want)  # like a tuple: not equal to a list
            with pytest.raises(IndexError):
                lazy[len(want)]


def test_it_keeps_saying_what_was_legal_when_the_game_moves_on() -> None:
    game = positions("tquarchess", 3, 12)[-1]
    want = formatted(game)
    lazy = legal_actions(game)
    first = lazy[0]
    game.play(want[-1])
    assert formatted(game) != want
    assert lazy[0] == first and lazy == want and want[-1] in lazy


def test_an_ended_game_has_none() -> None:
    game = variants.new_game("kings_guard", seed=1)
    game.end("white", "resignation")
    assert (
        legal_actions(game) == ()
        and show(game, True, "kings_guard", None, "white", None, None, False).legal == ()
    )


def test_threads_reading_one_list_all_see_the_engines_list() -> None:
    games = positions("stone_garden", 4, 30)[10:]
    for game in games:
        lazy = LegalActions(game)
        want = formatted(game)
        seen: list[Any] = []

        def read(lazy: LegalActions = lazy, seen: list[Any] = seen) -> None:
            seen.append((lazy[len(lazy) // 2], tuple(lazy)))

        threads = [threading.Thread(target=read) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert seen == [(want[len(want) // 2], want)] * 4


@pytest.mark.parametrize("key", variants.names())
def test_a_move_drawn_with_its_buttons_formats_no_legal_text(
    key: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What a move costs the worker thread (``show``: the list, the words, the board and
    the dice) and what the Discord board reads of the list (is ``reroll`` legal?) format
    no action's text, but those a text can name; reading the list formats it once."""
    rules = variants.rules(key)
    calls = {"all": 0, "one": 0}
    format_moves, format_move = rules.format_moves, rules.format_move

    def all_moves(*args: Any) -> Any:
        calls["all"] += 1
        return format_moves(*args)

    def one_move(*args: Any) -> Any:
        calls["one"] += 1
        return format_move(*args)

    monkeypatch.setattr(rules, "format_moves", all_moves)
    monkeypatch.setattr(rules, "format_move", one_move)
    for game in positions(key, 5, 30)[1::3]:
        want = formatted(game)
        dice = tuple(game.dice) if game.dice else None
        calls.update(all=0, one=0)
        shown = show(game, True, key, dice, game.turn, render_board, render_dice, True)
        assert shown.image is not None and shown.status is not None
        "reroll" in shown.legal  # noqa: B015 - the Discord board's only question
        assert calls["all"] == 0
        # only the actions "reroll" can name: those without a square, and castling
        named = [m for m in game.legal_move_list() if m.to < 0 or m.flag == "castle"]
        assert calls["one"] <= len(named)
        texts = tuple(shown.legal)
        assert calls["all"] == 1 and texts == want
        assert tuple(shown.legal) == texts and calls["all"] == 1  # formatted once
