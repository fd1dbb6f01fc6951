"""The suite's order for the xdist workers (``tests/suite_order.py``)."""

from __future__ import annotations

import re
from pathlib import Path

import suite_order
from suite_order import LONG, arrange, block_sizes

ROOT = Path(__file__).resolve().parents[1]


def test_every_long_test_named_exists() -> None:
    missing = []
    for nodeid in LONG:
        path, _, function = nodeid.partition("::")
        source = (ROOT / path).read_text(encoding="utf-8") if (ROOT / path).is_file() else ""
        if not re.search(rf"^(async )?def {re.escape(function)}\(", source, re.M):
            missing.append(nodeid)
    assert missing == []
    assert len(set(LONG)) == len(LONG)


def test_the_blocks_are_worksteals_first_split() -> None:
    assert block_sizes(2402, 4) == [600, 600, 601, 601]
    assert block_sizes(3, 4) == [0, 1, 1, 1]
    assert sum(block_sizes(1001, 3)) == 1001


def test_the_long_tests_head_every_block_longest_first() -> None:
    ids = [f"tests/x.py::t{i}" for i in range(40)]
    ids[5] = LONG[2] + "[a]"
    ids[9] = LONG[0]
    ids[30] = LONG[1]
    ids[31] = LONG[2] + "[b]"
    ids[39] = LONG[3]
    order = arrange(ids, ids, 4)
    assert sorted(order) == sorted(ids)  # a permutation: nothing dropped, nothing added
    heads = [order[start] for start in (0, 10, 20, 30)]
    assert heads == [LONG[0], LONG[1], LONG[2] + "[a]", LONG[2] + "[b]"]
    assert order[1] == LONG[3]  # the fifth long test: the first block's second
    shorts = [i for i in order if suite_order.rank(i) is None]
    assert shorts == [i for i in ids if suite_order.rank(i) is None]  # kept in order


def test_one_worker_keeps_the_collected_order() -> None:
    ids = [LONG[1], "tests/x.py::a", LONG[0]]
    assert arrange(ids, ids, 0) == ids and arrange(ids, ids, 1) == ids
