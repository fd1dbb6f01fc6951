"""Glicko-2 as in Glickman's "Example of the Glicko-2 system" (bot.service.ratings)."""

from __future__ import annotations

import math

import pytest

from bot.service.ratings import (
    C_PER_DAY,
    DAY_MS,
    MAX_RD,
    NEW_RATING,
    Rating,
    rate_game,
    rd_after_idle,
    update,
)


def test_glickmans_worked_example_to_the_printed_precision() -> None:
    # The paper: 1500 / 200 / 0.06, tau 0.5, against 1400/30 (won), 1550/100 (lost),
    # 1700/300 (lost) in one period -> 1464.06 / 151.52 / 0.05999.
    player = Rating(1500, 200, 0.06)
    games = [
        (Rating(1400, 30, 0.06), 1.0),
        (Rating(1550, 100, 0.06), 0.0),
        (Rating(1700, 300, 0.06), 0.0),
    ]
    after = update(player, games, tau=0.5)
    # The paper works on the Glicko-2 scale and prints mu' = -0.2069, phi' = 0.8722 and
    # sigma' = 0.05999, then converts the *rounded* mu' and phi': 173.7178 * -0.2069 +
    # 1500 = 1464.06 and 173.7178 * 0.8722 = 151.52. So: the Glicko-2 figures to the
    # paper's four (five) printed decimals, and the paper's conversion of them.
    mu = (after.rating - 1500) / 173.7178
    phi = after.rd / 173.7178
    assert f"{mu:.4f}" == "-0.2069"
    assert f"{phi:.4f}" == "0.8722"
    # sigma' is 0.0599960 (Glickman's own code gives the same), printed as its first five
    # decimals: 0.05999.
    assert f"{after.volatility:.7f}".startswith("0.05999")
    assert after.volatility == pytest.approx(0.05999, abs=0.00001)
    assert f"{173.7178 * round(mu, 4) + 1500:.2f}" == "1464.06"
    assert f"{173.7178 * round(phi, 4):.2f}" == "151.52"
    # Unrounded, the same figures to within the paper's rounding of mu' (0.00005 * 173.7).
    assert after.rating == pytest.approx(1464.06, abs=0.01)
    assert f"{after.rd:.2f}" == "151.52"


def test_the_volatility_search_takes_the_illinois_branch_for_a_big_surprise() -> None:
    # A newcomer beating a far stronger, settled player: delta^2 > phi^2 + v, the step-5
    # branch that starts from B = ln(delta^2 - phi^2 - v). The volatility rises.
    after = update(Rating(1500, 60, 0.06), [(Rating(2400, 40, 0.06), 1.0)])
    assert after.volatility > 0.06
    assert after.rating > 1500


def test_a_draw_between_equals_moves_no_rating_and_shrinks_rd() -> None:
    white, black = rate_game(NEW_RATING, NEW_RATING, 0.5)
    assert white == black
    assert white.rating == pytest.approx(1500.0, abs=1e-9)
    assert white.rd < 350


def test_a_draw_against_a_stronger_player_gains() -> None:
    low, high = Rating(1400, 80, 0.06), Rating(1700, 80, 0.06)
    low_after, high_after = rate_game(low, high, 0.5)
    assert low_after.rating > 1400
    assert high_after.rating < 1700
    assert low_after.rating - 1400 == pytest.approx(1700 - high_after.rating, rel=1e-9)


def test_a_win_and_a_loss_mirror_each_other_between_equals() -> None:
    white, black = rate_game(NEW_RATING, NEW_RATING, 1.0)
    assert white.rating - 1500 == pytest.approx(1500 - black.rating)
    assert white.rating > 1600  # a newcomer's first game moves a lot (RD 350)


def test_rd_grows_with_idle_days_back_to_350_after_a_year() -> None:
    settled = Rating(1800, 50, 0.06)
    assert C_PER_DAY == pytest.approx(math.sqrt((350**2 - 50**2) / 365))
    assert C_PER_DAY == pytest.approx(18.13, abs=0.005)
    assert rd_after_idle(settled, 0) == settled
    month = rd_after_idle(settled, 30 * DAY_MS)
    assert month.rd == pytest.approx(math.sqrt(50**2 + C_PER_DAY**2 * 30))
    assert 100 < month.rd < 115
    assert month.rating == 1800 and month.volatility == 0.06
    year = rd_after_idle(settled, 365 * DAY_MS)
    assert year.rd == pytest.approx(MAX_RD)
    assert rd_after_idle(settled, 3 * 365 * DAY_MS).rd == MAX_RD  # never beyond 350
    half_day = rd_after_idle(settled, DAY_MS // 2)
    assert 50 < half_day.rd < rd_after_idle(settled, DAY_MS).rd


def test_a_period_without_games_only_widens_rd() -> None:
    after = update(Rating(1500, 200, 0.06), [])
    assert after.rating == 1500
    assert after.rd == pytest.approx(math.sqrt(200**2 + (0.06 * 173.7178) ** 2))


def test_a_score_must_be_one_half_or_zero() -> None:
    with pytest.raises(ValueError, match="1, 0.5 or 0"):
        update(NEW_RATING, [(NEW_RATING, 0.7)])
