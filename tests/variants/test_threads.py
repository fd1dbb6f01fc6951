"""The engine shared between threads: the service plays on the event loop's thread and
reads legal lists, status and images in worker threads, all on one rules object per
variant (with its memos and tables). Threads playing at once, switching as often as
the interpreter allows, must see the same lists as one thread alone."""

from __future__ import annotations

import random
import threading

import variants
from variants.snapshot import restore

KEYS = variants.names()
PLIES = 200


def _play(key: str, seed: int, seen: list[tuple[str, str, list[str]]], errors: list[str]) -> None:
    rng = random.Random(seed)
    game = variants.new_game(key, seed=f"threads-{seed}")
    try:
        for _ in range(PLIES):
            if game.result is not None:
                break
            if rng.random() < 0.1:  # a cache miss: the service restores the snapshot
                game = restore(game.snapshot(), game.dice_source)
            texts = game.legal_moves()
            seen.append((key, game.fen(), sorted(texts)))
            game.play(rng.choice(texts))  # every offered text must play
    except Exception as error:  # reported by the test, with the position
        errors.append(f"{key} seed {seed} at {game.fen()}: {type(error).__name__}: {error}")


def test_threads_playing_at_once_see_what_one_thread_sees(switch_often: None) -> None:
    seen: list[tuple[str, str, list[str]]] = []
    errors: list[str] = []
    threads = [
        threading.Thread(target=_play, args=(key, seed, seen, errors))
        for seed in range(4)
        for key in KEYS
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    checked = 0
    for key, fen, texts in seen:
        try:
            alone = variants.from_fen(key, fen, seed=1)
        except ValueError:  # a Jepps Random setup position has no FEN to read back
            continue
        assert sorted(alone.legal_moves()) == texts, (key, fen)
        checked += 1
    assert checked > len(seen) // 2
