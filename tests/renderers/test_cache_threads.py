"""The board layers' caches under the service's render threads (two by default).

``renderers.board._Lru`` is shared by every render of a board, and the strip and bar
bands by both orientations of it. A lookup that finds an entry and then moves it to the
end must not meet another thread's eviction of that entry in between (``KeyError``).
"""

from __future__ import annotations

import random
import threading

from renderers.board import _Lru


def test_fetch_under_threads_with_evictions(switch_often: None) -> None:
    cache = _Lru(4)
    errors: list[BaseException] = []
    made = [0]

    def work(seed: int) -> None:
        rng = random.Random(seed)
        try:
            for _ in range(20_000):
                key = rng.randrange(12)

                def make(key: int = key) -> tuple[int]:
                    made[0] += 1
                    return (key,)

                assert cache.fetch(key, make) == (key,)
        except BaseException as error:  # noqa: BLE001 (reported below, from the main thread)
            errors.append(error)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[:3]
    assert len(cache) <= 4
    assert made[0] > 0
