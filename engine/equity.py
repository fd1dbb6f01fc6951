"""Equity: the search's value turned into an expected score for the side to act.

The search scores a position from -1 (lost) to 1 (won), a squashed material count
in between (``engine.evaluate``). The analysis (``engine.analysis``) needs an
expected score between 0 and 1, where a draw counts 1/2, so that errors and luck
are in the units of the result. Per variant, a logistic curve

    equity = 1 / (1 + exp(-(slope * value + offset + white_edge)))   (White to act)
    equity = 1 / (1 + exp(-(slope * value + offset - white_edge)))   (Black to act)

is fitted on self-play games, at the depth the analysis searches, by
``benchmarks/equity_fit.py`` (which also reports the calibration on held-out
games). The two terms beside the slope are different things:

- ``offset`` belongs to the side to act, whichever it is: the search's own lean at
  its depth (a search that ends on the mover's own move sees its threats and not the
  answers). Every position has one side to act, so it is still one number per
  position, and correcting it keeps the equity chain of ``engine.analysis`` level.
- ``white_edge`` is White's, and counts against Black: White scoring more (or less)
  than the values say, whoever is on move (the first move's worth, in self-play).
  Booked to the side to act instead, an edge of White's would make every position
  worth more on move than to the side that made it, and the analysis would charge
  each action sigmoid(w) - sigmoid(-w) as an error (King's Guard's first fit: 0.34
  for the median move of the search's own choosing).

The fit can tell them apart only from positions of both sides to act; on samples
of one side it fits ``offset`` alone (``benchmarks/equity_fit.py``).

Its constants, the analysis depth and the label thresholds are kept in
``equity_fit.json`` beside this module, by variant key; a variant without an
entry (one registered by a test) gets the defaults below. A value beyond
``MATE_BOUND`` is a win or a loss the search has seen, and is worth 1 or 0.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from .search import MATE_BOUND

TABLE_PATH = Path(__file__).with_name("equity_fit.json")

# Without a fitted entry: the search value read as a score (its slope at 0 near the
# identity map (v + 1) / 2), the analysis depth 2, and plain thresholds.
DEFAULT_SLOPE = 2.2
DEFAULT_OFFSET = 0.0
DEFAULT_DEPTH = 2
# Equity given up by one action: an inaccuracy, a mistake, a blunder.
DEFAULT_LABELS = (0.04, 0.08, 0.16)
JOKER = 0.30  # the luck of a roll that is a "joker" (and minus it, an anti-joker)


@dataclass(frozen=True)
class Fit:
    """One variant's equity curve, analysis depth and labels."""

    slope: float = DEFAULT_SLOPE
    offset: float = DEFAULT_OFFSET  # the side to act's
    white_edge: float = 0.0  # White's (against Black's)
    depth: int = DEFAULT_DEPTH
    labels: tuple[float, float, float] = DEFAULT_LABELS  # ?!, ?, ??
    joker: float = JOKER
    fitted: bool = False  # from the table (False: the defaults)

    def equity(self, value: float, white: bool) -> float:
        """The expected score (0..1) for the side to act of a search value (-1..1),
        ``white`` telling whether White is to act (see the module)."""
        if value >= MATE_BOUND:
            return 1.0
        if value <= -MATE_BOUND:
            return 0.0
        edge = self.white_edge if white else -self.white_edge
        x = self.slope * value + self.offset + edge
        if x >= 0:
            return 1.0 / (1.0 + math.exp(-x))
        e = math.exp(x)
        return e / (1.0 + e)

    def white_equity(self, value: float, white: bool) -> float:
        """White's expected score of a search value for the side to act."""
        e = self.equity(value, white)
        return e if white else 1.0 - e

    def label(self, error: float) -> str:
        """``??``, ``?`` or ``?!`` for an action that gave up ``error``; else ''."""
        inaccuracy, mistake, blunder = self.labels
        if error >= blunder:
            return "??"
        if error >= mistake:
            return "?"
        if error >= inaccuracy:
            return "?!"
        return ""

    def luck_label(self, luck: float) -> str:
        """``joker`` or ``anti-joker`` for a roll worth ``luck``; else ''."""
        if luck >= self.joker:
            return "joker"
        if luck <= -self.joker:
            return "anti-joker"
        return ""


def read_table(path: Path = TABLE_PATH) -> dict[str, Any]:
    """The fitted table as stored (an empty one if the file is missing)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {"variants": {}}
    table: dict[str, Any] = json.loads(text)
    return table


@cache
def fit_for(key: str) -> Fit:
    """The variant's fitted curve, depth and labels (the defaults if it has none)."""
    entry = read_table().get("variants", {}).get(key)
    if not entry:
        return Fit()
    labels = entry.get("labels", DEFAULT_LABELS)
    return Fit(
        slope=float(entry["slope"]),
        offset=float(entry["offset"]),
        white_edge=float(entry.get("white_edge", 0.0)),
        depth=int(entry.get("depth", DEFAULT_DEPTH)),
        labels=(float(labels[0]), float(labels[1]), float(labels[2])),
        joker=float(entry.get("joker", JOKER)),
        fitted=bool(entry.get("fitted", True)),
    )


def equity(key: str, value: float, white: bool) -> float:
    """The expected score (0..1) for the side to act of a search value, in ``key``
    (``white``: White is to act)."""
    return fit_for(key).equity(value, white)


__all__ = ["Fit", "JOKER", "TABLE_PATH", "equity", "fit_for", "read_table"]
