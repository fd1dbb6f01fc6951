"""The fitting script's label rule and calibration figures (``benchmarks/equity_fit.py``):
the constants in ``engine/equity_fit.json`` come from these."""

from __future__ import annotations

import json
import random
from pathlib import Path

import variants
from benchmarks.equity_fit import (
    FLOORS,
    Sample,
    both_sides,
    cached,
    calibration,
    ece_if_calibrated,
    ece_of,
    fit_logistic,
    keep,
    samples,
    thresholds,
)
from engine.equity import Fit


def test_thresholds_sit_above_the_noise_of_the_analysiss_own_choices() -> None:
    # 200 own choices: most cost nothing, a tail up to 0.40 (the horizon's swings)
    noise = [0.0] * 170 + [0.01 * i for i in range(1, 26)] + [0.30, 0.33, 0.36, 0.38, 0.40]
    inaccuracy, mistake, blunder = thresholds(noise)
    assert inaccuracy == 0.21  # above the 95th percentile: 1 in 20 of the search's best moves
    assert (mistake, blunder) == (0.32, 0.48)  # 1.5 times each, rounded up to the cent
    assert sum(e >= inaccuracy for e in noise) <= 10
    assert not any(e >= blunder for e in noise)


def test_thresholds_never_fall_below_the_floors() -> None:
    assert thresholds([0.0] * 100) == FLOORS
    assert thresholds([]) == FLOORS


def test_a_calibrated_curve_has_a_small_ece_and_a_shifted_one_does_not() -> None:
    rng = random.Random(5)
    fit = Fit(slope=3.0, offset=0.0)
    data = []
    for game in range(4000):  # one position per game, its score drawn from the curve
        value = rng.uniform(-0.9, 0.9)
        data.append(Sample(value, float(rng.random() < fit.equity(value, True)), game))
    good = calibration(fit, data)
    bad = calibration(Fit(slope=3.0, offset=1.0), data)
    assert good["ece"] < 0.03 and bad["ece"] > 0.12
    low, high = good["ece_90"]
    assert low <= good["ece"] <= high < bad["ece_90"][0]
    assert good["games"] == 4000


def test_ece_is_the_weighted_gap_per_bin() -> None:
    # two bins: predictions 0.15 (scores 0, 1: mean 0.5) and 0.85 (scores 1, 1)
    assert abs(ece_of([(0.15, 0.0), (0.15, 1.0), (0.85, 1.0), (0.85, 1.0)]) - 0.25) < 1e-12


def test_samples_carry_their_games_index_and_score() -> None:
    fen = "***4***/*3k4*/*8*/10/10/3n6/10/*PPP5*/*4K2R*/***4*** w - - 0 30 - -"
    game = variants.from_fen("guardener", fen, rolls=[1, 3, 2, 3])
    game.play("Kd2")
    game.play("Nxd2")  # Black takes the King
    found = samples("guardener", game.record(), 1, 1, 7)
    # White's position, then Black's
    assert [(s.game, s.score, s.white) for s in found] == [(7, 0.0, True), (7, 1.0, False)]
    one = calibration(Fit(), found)
    assert one["games"] == 1 and one["ece_90"] is None  # no interval from one game


def test_the_fit_tells_whites_edge_from_the_side_to_acts_offset() -> None:
    rng = random.Random(3)
    # White wins more than the values say; the side to act less (the search's lean)
    truth = Fit(slope=3.0, offset=-0.4, white_edge=0.8)
    data = []
    for game in range(8000):
        value, white = rng.uniform(-0.9, 0.9), game % 2 == 0
        data.append(Sample(value, float(rng.random() < truth.equity(value, white)), game, white))
    assert both_sides(data)
    a, b, w = fit_logistic(data)
    assert abs(a - 3.0) < 0.3 and abs(b + 0.4) < 0.12 and abs(w - 0.8) < 0.12
    # one side only: the two cannot be told apart, and the edge is not fitted
    whites = [s for s in data if s.white]
    assert not both_sides(whites)
    a, b, w = fit_logistic(whites)
    assert w == 0.0 and abs(b - 0.4) < 0.15  # -0.4 + 0.8: all of it as the offset
    # one value read from either side gives White one equity: the edge is White's
    edge = Fit(slope=3.0, white_edge=0.8)
    for v in (-0.5, 0.0, 0.3):
        assert abs(edge.white_equity(v, True) - edge.white_equity(-v, False)) < 1e-12
    assert edge.equity(0.0, True) > 0.5 > edge.equity(0.0, False)


def test_a_kept_game_from_before_the_side_was_kept_gets_it_from_its_record(
    tmp_path: Path,
) -> None:
    fen = "***4***/*3k4*/*8*/10/10/3n6/10/*PPP5*/*4K2R*/***4*** w - - 0 30 - -"
    game = variants.from_fen("guardener", fen, rolls=[1, 3, 2, 3])
    game.play("Kd2")
    game.play("Nxd2")
    found = samples("guardener", game.record(), 1, 1, 7)
    keep(tmp_path, "guardener", 5, 160, 1, 1, game.record(), found)
    path = next(tmp_path.iterdir())
    kept = json.loads(path.read_text(encoding="utf-8"))
    kept["samples"] = [row[:3] for row in kept["samples"]]  # the old form
    path.write_text(json.dumps(kept), encoding="utf-8")
    again = cached(tmp_path, "guardener", 5, 160, 1, 1)
    assert again is not None and again[1] == found


def test_the_ece_a_calibrated_curve_would_show_is_what_the_sample_size_gives() -> None:
    rng = random.Random(9)
    fit = Fit(slope=3.0, offset=0.0)
    few = [Sample(rng.uniform(-0.9, 0.9), 0.0, g) for g in range(60)]
    many = [Sample(rng.uniform(-0.9, 0.9), 0.0, g) for g in range(3000)]
    # 60 games' results are noisier than 3,000 games': a calibrated curve shows more ECE
    assert ece_if_calibrated(fit, few) > 2 * ece_if_calibrated(fit, many)
    # positions that share their game's draw count as fewer: a game of 20 positions
    grouped = [Sample(rng.uniform(-0.9, 0.9), 0.0, g // 20) for g in range(3000)]
    assert ece_if_calibrated(fit, grouped) > 1.3 * ece_if_calibrated(fit, many)


def test_the_cache_gives_back_a_game_as_kept(tmp_path: Path) -> None:
    data = [Sample(0.25, 1.0, 3), Sample(-0.5, 0.0, 3)]
    assert cached(tmp_path, "guardener", 1003, 160, 4, 1) is None
    keep(tmp_path, "guardener", 1003, 160, 4, 1, "[Variant ...]", data)
    keep(tmp_path, "guardener", 1004, 160, 4, 1, None, [])  # reached the cap
    assert cached(tmp_path, "guardener", 1003, 160, 4, 1) == ("[Variant ...]", data)
    assert cached(tmp_path, "guardener", 1004, 160, 4, 1) == (None, [])
    assert cached(tmp_path, "guardener", 1003, 160, 4, 2) is None  # another depth
