"""The order the suite's workers take the tests in (pytest-xdist, ``--dist worksteal``).

Worksteal first hands each worker one contiguous block of the collected tests (a quarter
each with four workers) and later moves tests from the end of a busy worker's queue to an
idle one. A long test that happens to sit late in a block therefore starts late, and the
whole suite waits for it. So the known long tests (``LONG``, longest first, each a test
function's node id: every parametrized case of it counts) are dealt out in turn to the
heads of the blocks: every worker starts with its share of them, and what is stolen at
the end is short. Nothing is skipped or added; only the order changes.

``LONG`` lists the tests that took 5 s or more in a run of the whole suite, longest first.
A name there that no longer exists fails ``tests/test_suite_order.py``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")

LONG = (
    "tests/test_packaging.py::test_the_image_built_as_the_dockerfile_says_plays_the_computer",
    "tests/bot/test_service_fuzz.py::test_random_notation_is_refused_cleanly_or_played",
    "tests/bot/test_service_crash.py::test_sigkill_at_random_points_loses_nothing_acknowledged",
    "tests/bot/test_console_crash.py::test_killed_console_resumes_exactly",
    "tests/bot/test_migrate_store.py::test_500_games_move_to_postgresql_and_back",
    "tests/bot/test_pg_races.py::test_two_processes_racing_pairs_apply_at_most_one",
    "tests/bot/test_service_ratings.py::test_rebuild_is_exact_after_1000_random_games",
    "tests/bot/test_discord_games.py::test_a_full_game_through_discord_payloads",
    "tests/bot/test_discord_faults.py::test_every_request_of_the_flow_fails_in_turn",
    "tests/bot/test_run_shutdown.py::test_sigterm_while_discord_hangs_on_the_post",
    "tests/bot/test_discord_computer.py::test_a_game_against_the_computer_to_a_result",
    "tests/bot/test_service_races.py::test_racing_pairs_apply_at_most_one",
    "tests/engine/test_analysis.py::test_a_hung_queen_is_the_biggest_blunder_in_tquarchess",
    "tests/bot/test_outbox_kill.py::test_kill_9_between_the_commit_and_its_post",
    "tests/test_packaging.py::test_the_wheel_and_the_sdist_hold_every_runtime_module",
    "tests/bot/test_service_computer.py::test_a_game_against_the_computer_runs_to_a_result",
    "tests/variants/test_oracle.py::test_tquarchess_without_tquarc_is_fide",
    "tests/variants/test_sweep.py::test_random_playouts",
    "tests/tournament/test_swiss_properties.py::test_random_swiss_tournaments_keep_the_rules",
    "tests/bot/test_tournament_crash.py::test_kill_during_pairing_never_pairs_twice",
    "tests/bot/test_pg_server_crash.py::test_a_server_crash_during_moves",
    "tests/bot/test_console_computer.py::test_the_computer_plays_white_and_answers",
    "tests/bot/test_sweep_cli.py::test_sweep_ends_a_console_game_two_days_later",
    "tests/variants/test_threads.py::test_threads_playing_at_once_see_what_one_thread_sees",
    "tests/test_toy_variant.py::test_a_game_through_discord_payloads",
    "tests/renderers/test_gif.py::test_a_1000_ply_gif_stays_under_200_mib",
)


def rank(nodeid: str) -> int | None:
    """Where a test stands in ``LONG`` (its parameters aside), or None if it is short."""
    function = nodeid.split("[", 1)[0]
    try:
        return LONG.index(function)
    except ValueError:
        return None


def block_sizes(count: int, workers: int) -> list[int]:
    """The sizes of the first blocks worksteal hands out (``check_schedule``: each idle
    worker in turn gets the pending tests divided by the workers still to serve)."""
    sizes = []
    left = count
    for served in range(workers):
        size = left // (workers - served)
        sizes.append(size)
        left -= size
    return sizes


def arrange(items: Sequence[T], ids: Sequence[str], workers: int) -> list[T]:
    """``items`` (with node ids ``ids``) reordered: the long ones, longest first, dealt in
    turn to the heads of the ``workers`` blocks; every other test after them, in its
    collected order. With fewer than two workers, the order is left as it is."""
    if workers < 2:
        return list(items)
    ranked = sorted((r, i) for i, nodeid in enumerate(ids) if (r := rank(nodeid)) is not None)
    long_ones = [i for _, i in ranked]
    rest = [i for i in range(len(items)) if rank(ids[i]) is None]
    blocks: list[list[int]] = [[] for _ in range(workers)]
    for turn, index in enumerate(long_ones):
        blocks[turn % workers].append(index)
    sizes = block_sizes(len(items), workers)
    order: list[int] = []
    for block, size in zip(blocks, sizes, strict=True):
        take = max(0, size - len(block))
        order += block + rest[:take]
        rest = rest[take:]
    order += rest
    return [items[i] for i in order]
