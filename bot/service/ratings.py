"""Glicko-2 ratings, exactly as in Mark Glickman's "Example of the Glicko-2 system".

Pure arithmetic: no store, no clock, no I/O. The service calls it inside the transaction
that finishes a game, and ``chessgarden ratings rebuild`` calls the same functions in the
same order, so the two give bit-for-bit the same numbers (float arithmetic is
deterministic for the same operations in the same order).

How Chess Garden uses it (issue 15):

- everybody starts at 1500, RD 350, volatility 0.06 (``NEW_RATING``), with τ = 0.5;
- every rated game is its own rating period, as on lichess: after each game both players'
  ratings are updated with ``update`` against the other's rating *before* the game;
- a rating's RD grows while its player does not play: before a game, ``rd_after_idle``
  widens it for the days since the player's previous rated game (Glicko's step 1 with a
  time constant ``C_PER_DAY``), never beyond 350.

The time constant. Glickman's rule is ``RD' = min(sqrt(RD² + c²·t), 350)`` for ``t``
periods of inactivity; our period for this purpose is one day. We want an established
player (RD 50) to be as uncertain as a newcomer (RD 350) after about a year away:

    50² + c²·365 = 350²   =>   c = sqrt((350² − 50²) / 365) = sqrt(120000 / 365) ≈ 18.13

so ``C_PER_DAY = sqrt(120000 / 365)`` (RD 50 → 350 after exactly 365 days; RD 50 → about
108 after 30 days). Days are counted in fractions (milliseconds / one day), so the same
game times always give the same RD.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

SCALE = 173.7178  # Glicko-2's conversion factor between the two scales (step 2)
BASE = 1500.0
MAX_RD = 350.0
DEFAULT_TAU = 0.5
EPSILON = 0.000001  # the convergence tolerance of step 5
DAY_MS = 86_400_000

# RD 50 grows back to 350 after 365 days without a rated game (see the module docstring).
C_PER_DAY = math.sqrt((MAX_RD**2 - 50.0**2) / 365.0)

PROVISIONAL_RD = 110.0  # above this a rating is provisional, shown with "?" (as lichess)


@dataclass(frozen=True)
class Rating:
    """A Glicko-2 rating on the Glicko scale: rating, rating deviation (RD), volatility."""

    rating: float
    rd: float
    volatility: float

    @property
    def is_provisional(self) -> bool:
        return self.rd > PROVISIONAL_RD


NEW_RATING = Rating(BASE, MAX_RD, 0.06)


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _expected(mu: float, mu_j: float, phi_j: float) -> float:
    return 1.0 / (1.0 + math.exp(-_g(phi_j) * (mu - mu_j)))


def _new_volatility(sigma: float, phi: float, v: float, delta: float, tau: float) -> float:
    """Step 5: the new volatility, by the Illinois algorithm (a regula falsi that halves
    the stale end's function value)."""
    a = math.log(sigma * sigma)
    phi2 = phi * phi

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta * delta - phi2 - v - ex) / (2.0 * (phi2 + v + ex) ** 2) - (x - a) / (
            tau * tau
        )

    big_a = a
    if delta * delta > phi2 + v:
        big_b = math.log(delta * delta - phi2 - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a = f(big_a)
    f_b = f(big_b)
    while abs(big_b - big_a) > EPSILON:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2.0
        big_b, f_b = big_c, f_c
    return math.exp(big_a / 2.0)


def update(player: Rating, results: list[tuple[Rating, float]], tau: float = DEFAULT_TAU) -> Rating:
    """The player's rating after one rating period (Glickman, steps 1 to 8).

    ``results``: each game of the period as (the opponent's rating before the period, the
    player's score: 1 a win, 0.5 a draw, 0 a loss). With no games only the RD grows
    (step 6 alone)."""
    for _, score in results:
        if score not in (0.0, 0.5, 1.0):
            raise ValueError(f"a score is 1, 0.5 or 0, not {score!r}")
    mu = (player.rating - BASE) / SCALE
    phi = player.rd / SCALE
    sigma = player.volatility
    if not results:
        return Rating(player.rating, SCALE * math.sqrt(phi * phi + sigma * sigma), sigma)
    # Step 3 and 4: the estimated variance v and the estimated improvement delta.
    inverse_v = 0.0
    total = 0.0
    for opponent, score in results:
        mu_j = (opponent.rating - BASE) / SCALE
        phi_j = opponent.rd / SCALE
        g = _g(phi_j)
        e = _expected(mu, mu_j, phi_j)
        inverse_v += g * g * e * (1.0 - e)
        total += g * (score - e)
    v = 1.0 / inverse_v
    delta = v * total
    # Step 5: the new volatility; step 6: the pre-period deviation.
    new_sigma = _new_volatility(sigma, phi, v, delta, tau)
    phi_star = math.sqrt(phi * phi + new_sigma * new_sigma)
    # Step 7: the new deviation and rating; step 8: back to the Glicko scale.
    new_phi = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    new_mu = mu + new_phi * new_phi * total
    return Rating(SCALE * new_mu + BASE, SCALE * new_phi, new_sigma)


def rd_after_idle(rating: Rating, idle_ms: int) -> Rating:
    """The rating as it stands after ``idle_ms`` milliseconds without a rated game: the
    RD grows by ``C_PER_DAY`` per day (in fractions of a day), up to 350."""
    if idle_ms <= 0 or rating.rd >= MAX_RD:
        return rating
    days = idle_ms / DAY_MS
    rd = min(math.sqrt(rating.rd * rating.rd + C_PER_DAY * C_PER_DAY * days), MAX_RD)
    return Rating(rating.rating, rd, rating.volatility)


def rate_game(white: Rating, black: Rating, white_score: float) -> tuple[Rating, Rating]:
    """One game as its own rating period: both new ratings, each against the other's
    rating before the game (already widened for idleness by the caller)."""
    return (
        update(white, [(black, white_score)]),
        update(black, [(white, 1.0 - white_score)]),
    )
