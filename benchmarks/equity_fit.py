"""Fit the equity curves of ``engine/equity.py`` and report their calibration.

    python -m benchmarks.equity_fit [--variants K,...] [--games N] [--seed S] [--write]
    python -m benchmarks.equity_fit --report      # the committed constants, held-out games

For each variant: N self-play games between ``ai:1`` players (the dice and the
players' noise seeded: game i uses seed S + i; the search runs on a frozen clock, so
a game depends on its seed only). A game that reaches ``--max-plies`` is left out
(it has no result). Every ``--every``-th position of a game is searched at the
variant's analysis depth (``engine.analysis.Analyser``), giving the search's value
for the side to act and, as the target, that side's score in the game (1, 1/2, 0).

- The first two thirds of the games fit ``equity = 1 / (1 + exp(-(a * value + b +
  w * side)))`` (side +1 with White to act, -1 with Black: ``b`` is the side to
  act's offset, ``w`` White's edge; see ``engine.equity``) by maximum likelihood
  (Newton's method; the targets may be 1/2). ``w`` is fitted only when a fifth of
  the positions have each side to act: with an even ``--every`` in a variant without
  dice, every sampled position has White to act, and the two cannot be told apart
  (an odd ``--every`` samples both). Values beyond ``MATE_BOUND`` (a win or loss
  seen) are worth 1 or 0 and are not fitted.
- The last third is held out: the expected calibration error (10 equal bins of
  predicted equity; the positions' weighted mean of |mean prediction - mean score|),
  the Brier score and the log loss of the fitted curve there.
- The held-out ECE comes with a 90 % interval from resampling the held-out games (a
  game's positions share its result, so the games, not the positions, are the
  sample), with the ECE of the fitting games themselves (a held-out ECE above its
  target but with a low one on the fitting games points at too few games, a high one
  on both at the curve), and with the ECE a perfectly calibrated curve would show on
  the same positions (``ece_if_calibrated``: the results drawn from the curve): what
  the sample's size alone gives.
- ``--cache DIR`` keeps each game's record and samples, so that a refit or a report
  reads them back instead of playing and searching again.
- ``--label-games`` held-out games are analysed in full (``engine.analysis``) with the
  fitted curve. The errors the analysis gives the actions that were its own choice
  are the horizon's noise (the accounting puts the difference between a position's
  value and its successor's into the mover's error, so that error and luck add up).
  The thresholds are set from that noise: an inaccuracy above its 95th percentile
  (what the analysis cannot tell from its own horizon), a mistake 1.5 times that and
  a blunder 1.5 times a mistake, with floors 0.04, 0.08 and 0.16. (Not the noise's
  99th percentile for a blunder: from a few hundred own choices that is the largest
  one, which moves with every game added. The noise's tail is not all noise either:
  an own choice whose next position shows a Queen lost is the horizon's own blunder.)
  The 99th percentile and the largest are printed; so is the mean luck per roll (the
  accounting's bias, see the module).

``--write`` stores the constants in ``engine/equity_fit.json``; ``--report`` fits
nothing and reports the stored constants on the held-out games (the same seeds).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import variants
from engine import players
from engine.analysis import Analyser, analyse
from engine.domain import Node
from engine.equity import TABLE_PATH, Fit, fit_for, read_table
from engine.search import MATE_BOUND
from variants.dice import ScriptedDice
from variants.record import parse_record

BINS = 10


@dataclass
class Sample:
    value: float  # the search's value for the side to act
    score: float  # that side's score in the game
    game: int = 0  # which game it comes from (the interval resamples games)
    white: bool = True  # White is to act (for White's edge, see engine.equity)


FLOORS = (0.04, 0.08, 0.16)  # the thresholds' least values (?!, ?, ??)
STEP = 1.5  # each threshold at least this times the one below
RESAMPLES = 1000  # the ECE interval's resamples of the held-out games


def frozen() -> float:
    return 0.0


def self_play(key: str, seed: int, max_plies: int) -> players.Played:
    ai = players.parse("ai:1")
    return players.play_game(key, ai, ai, seed=seed, max_plies=max_plies, search_clock=frozen)


def positions(key: str, record: str, every: int) -> Iterator[Node]:
    """Every ``every``-th position of the game (from the first), while it goes on."""
    headers, actions, rolls = parse_record(record)
    game = variants.Game(
        variants.rules(key),
        options=json.loads(headers.get("Options", "{}")),
        dice=ScriptedDice(rolls),
        fen=headers.get("FEN"),
    )
    for i, text in enumerate([*actions, None]):
        if i % every == 0 and game.result is None:
            yield Node(game.pos.copy(), tuple(game.keys))
        if text is not None:
            game.play(text)


def samples(key: str, record: str, every: int, depth: int, index: int = 0) -> list[Sample]:
    """The search's value of every ``every``-th position of the game, with its score."""
    winner = variants.replay(record).result
    assert winner is not None
    an = Analyser(key, depth)
    out = []
    for node in positions(key, record, every):
        _, _, value = an.measure(node)
        side = "white" if node.pos.turn == 0 else "black"
        score = 0.5 if winner.winner is None else float(winner.winner == side)
        out.append(Sample(value, score, index, side == "white"))
    return out


def sigmoid(x: float) -> float:
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


def both_sides(data: list[Sample]) -> bool:
    """Whether the samples have enough positions of each side to act to tell White's
    edge from the side to act's offset (``engine.equity``): a fifth of them, and 50."""
    white = sum(s.white for s in data)
    return min(white, len(data) - white) >= max(50, len(data) // 5)


def fit_logistic(data: list[Sample], edge: bool | None = None) -> tuple[float, float, float]:
    """Maximum likelihood (a, b, w) of score ~ sigmoid(a * value + b + w * side), side
    +1 with White to act and -1 with Black: b the side to act's offset, w White's edge
    (see ``engine.equity``). ``edge``: fit w (default: if ``both_sides``); else w = 0.
    Newton's method with a little ridge (so that a one-sided set stays finite)."""
    if edge is None:
        edge = both_sides(data)
    n = 3 if edge else 2
    theta = [2.2, 0.0, 0.0][:n]
    ridge = 1e-3
    for _ in range(50):
        grad = [ridge * t for t in theta]
        hess = [[ridge if i == j else 0.0 for j in range(n)] for i in range(n)]
        for s in data:
            f = (s.value, 1.0, 1.0 if s.white else -1.0)[:n]
            p = sigmoid(sum(t * x for t, x in zip(theta, f, strict=True)))
            r = p - s.score
            w = p * (1.0 - p)
            for i in range(n):
                grad[i] += r * f[i]
                for j in range(n):
                    hess[i][j] += w * f[i] * f[j]
        step = solve(hess, grad)
        if step is None:
            break
        theta = [t - d for t, d in zip(theta, step, strict=True)]
        if sum(abs(d) for d in step) < 1e-9:
            break
    a, b, *w = theta
    return a, b, (w[0] if w else 0.0)


def solve(m: list[list[float]], y: list[float]) -> list[float] | None:
    """x with m x = y (Gaussian elimination with partial pivoting); None if singular."""
    n = len(y)
    rows = [[*m[i], y[i]] for i in range(n)]
    for c in range(n):
        pivot = max(range(c, n), key=lambda r: abs(rows[r][c]))
        if abs(rows[pivot][c]) < 1e-15:
            return None
        rows[c], rows[pivot] = rows[pivot], rows[c]
        for r in range(c + 1, n):
            k = rows[r][c] / rows[c][c]
            rows[r] = [x - k * z for x, z in zip(rows[r], rows[c], strict=True)]
    x = [0.0] * n
    for c in range(n - 1, -1, -1):
        x[c] = (rows[c][n] - sum(rows[c][j] * x[j] for j in range(c + 1, n))) / rows[c][c]
    return x


def ece_of(pairs: list[tuple[float, float]]) -> float:
    """Expected calibration error of (predicted, score) pairs: 10 equal bins of the
    prediction, the pairs' weighted mean of |mean prediction - mean score|."""
    bins: list[list[tuple[float, float]]] = [[] for _ in range(BINS)]
    for p, y in pairs:
        bins[min(BINS - 1, int(p * BINS))].append((p, y))
    n = max(len(pairs), 1)
    ece = 0.0
    for b in bins:
        if b:
            ece += len(b) / n * abs(sum(p for p, _ in b) / len(b) - sum(y for _, y in b) / len(b))
    return ece


def by_game(fit: Fit, data: list[Sample]) -> dict[int, list[tuple[float, float]]]:
    """Each game's (predicted score, score) pairs: a game's positions share its result,
    so the calibration figures resample and redraw whole games."""
    games: dict[int, list[tuple[float, float]]] = {}
    for s in data:
        games.setdefault(s.game, []).append((fit.equity(s.value, s.white), s.score))
    return games


def ece_interval(
    fit: Fit, data: list[Sample], seed: int = 0, resamples: int = RESAMPLES
) -> tuple[float, float]:
    """A 90 % interval of the ECE, from resampling whole games with replacement."""
    games = by_game(fit, data)
    if len(games) < 2:
        return (math.nan, math.nan)
    rng = random.Random(seed)
    keys = sorted(games)
    eces = []
    for _ in range(resamples):
        pairs: list[tuple[float, float]] = []
        for _ in keys:
            pairs.extend(games[rng.choice(keys)])
        eces.append(ece_of(pairs))
    return quantile(eces, 0.05), quantile(eces, 0.95)


def ece_if_calibrated(
    fit: Fit, data: list[Sample], seed: int = 0, draws: int = RESAMPLES // 4
) -> float:
    """The median ECE that a perfectly calibrated curve would show on these positions
    and games: each game's result drawn again from the curve itself (one uniform number
    per game, so that a game's positions share their luck as they share a result: a
    position scores 1 if the number is below its predicted score). What the sample's
    size alone gives; a measured ECE near it cannot be told from a calibrated one."""
    games = by_game(fit, data)
    if not games:
        return math.nan
    rng = random.Random(seed)
    found = []
    for _ in range(draws):
        pairs: list[tuple[float, float]] = []
        for game in games.values():
            u = rng.random()
            pairs.extend((p, float(u < p)) for p, _ in game)
        found.append(ece_of(pairs))
    return quantile(found, 0.5)


def cache_file(folder: Path, key: str, seed: int, max_plies: int, every: int, depth: int) -> Path:
    return folder / f"{key}-{seed}-{max_plies}-{every}-{depth}.json"


def cached(
    folder: Path | None, key: str, seed: int, max_plies: int, every: int, depth: int
) -> tuple[str | None, list[Sample]] | None:
    """A game kept by ``keep`` (``--cache``): its record (None: it reached the cap) and
    samples; None if there is none."""
    if folder is None:
        return None
    path = cache_file(folder, key, seed, max_plies, every, depth)
    try:
        kept = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    record, rows = kept["record"], kept["samples"]
    if rows and len(rows[0]) == 3:  # kept before the side was: the record tells it
        sides = [node.pos.turn == 0 for node in positions(key, record, every)]
        rows = [[*row, white] for row, white in zip(rows, sides, strict=True)]
    return record, [Sample(v, y, g, bool(w)) for v, y, g, w in rows]


def keep(
    folder: Path | None,
    key: str,
    seed: int,
    max_plies: int,
    every: int,
    depth: int,
    record: str | None,
    data: list[Sample],
) -> None:
    if folder is None:
        return
    folder.mkdir(parents=True, exist_ok=True)
    rows = [[s.value, s.score, s.game, s.white] for s in data]
    text = json.dumps({"record": record, "samples": rows})
    cache_file(folder, key, seed, max_plies, every, depth).write_text(text, encoding="utf-8")


def calibration(fit: Fit, data: list[Sample]) -> dict[str, float]:
    """Expected calibration error (10 equal bins) with its interval over games, Brier
    score and log loss."""
    pairs = [(fit.equity(s.value, s.white), s.score) for s in data]
    brier = logloss = 0.0
    for p, y in pairs:
        brier += (p - y) ** 2
        q = min(max(p, 1e-6), 1 - 1e-6)
        logloss -= y * math.log(q) + (1 - y) * math.log(1 - q)
    n = max(len(data), 1)
    low, high = ece_interval(fit, data)
    return {
        "positions": len(data),
        "games": len({s.game for s in data}),
        "ece": round(ece_of(pairs), 4),
        "ece_90": None if math.isnan(low) else [round(low, 4), round(high, 4)],
        "brier": round(brier / n, 4),
        "log_loss": round(logloss / n, 4),
    }


def quantile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def thresholds(noise: list[float]) -> tuple[float, float, float]:
    """?!, ? and ?? from the errors of the analysis's own choices (see the module)."""

    def up(x: float) -> float:  # to the cent above (1e-9: a float's noise is not a cent)
        return math.ceil(x * 100 - 1e-9) / 100

    inaccuracy = up(max(FLOORS[0], quantile(noise, 0.95)))
    mistake = up(max(FLOORS[1], STEP * inaccuracy))
    blunder = up(max(FLOORS[2], STEP * mistake))
    return inaccuracy, mistake, blunder


def labels_from(
    records: list[str], depth: int, fit: Fit
) -> tuple[tuple[float, float, float], dict[str, Any]]:
    """Thresholds above the horizon's noise (with ``fit``'s curve), and the analyses'
    figures."""
    noise: list[float] = []
    lucks: list[float] = []
    cpu = 0.0
    plies = 0
    for record in records:
        a = analyse(record, depth, fit=fit)
        cpu += a.cpu_s
        plies += len(a.turns) - 1
        for t in a.turns:
            if t.choice and t.best is None:  # the search's own choice
                noise.append(t.error)
            if t.roller is not None:
                lucks.append(t.luck)
    figures = {
        "analysed_games": len(records),
        "analysed_plies": plies,
        "cpu_s_per_100_plies": round(100 * cpu / max(plies, 1), 1),
        "own_choices": len(noise),
        "best_move_error_mean": round(sum(noise) / max(len(noise), 1), 4),
        "best_move_error_q95": round(quantile(noise, 0.95), 4),
        "best_move_error_q99": round(quantile(noise, 0.99), 4),
        "best_move_error_max": round(max(noise, default=0.0), 4),
        "rolls": len(lucks),
        "mean_luck_per_roll": round(sum(lucks) / max(len(lucks), 1), 4),
    }
    return thresholds(noise), figures


def run_variant(key: str, args: argparse.Namespace, stored: Fit) -> dict[str, Any]:
    depth = stored.depth
    t0 = time.perf_counter()
    train: list[Sample] = []
    test: list[Sample] = []
    test_records: list[str] = []
    capped = 0
    n_train = (2 * args.games) // 3
    for i in range(args.games):
        seed = args.seed + i
        kept = cached(args.cache, key, seed, args.max_plies, args.every, depth)
        if kept is None:
            played = self_play(key, seed, args.max_plies)
            record = played.record if not played.capped else None
            data = samples(key, record, args.every, depth, i) if record is not None else []
            keep(args.cache, key, seed, args.max_plies, args.every, depth, record, data)
        else:
            record, data = kept
        if record is None:
            capped += 1
            continue
        if i < n_train:
            train.extend(data)
        else:
            test.extend(data)
            test_records.append(record)
        print(f"  {key} game {i + 1}/{args.games}: {len(data)} positions", file=sys.stderr)
    if args.report:
        fit = stored
    else:
        fitted = [s for s in train if abs(s.value) < MATE_BOUND]
        a, b, w = fit_logistic(fitted)
        fit = Fit(slope=a, offset=b, white_edge=w, depth=depth, labels=stored.labels, fitted=True)
    held_out = calibration(fit, test)
    held_out["ece_if_calibrated"] = round(ece_if_calibrated(fit, test), 4)
    fitting = calibration(fit, train)
    labels, figures = labels_from(test_records[: args.label_games], depth, fit)
    if not args.report:
        fit = replace(fit, labels=labels)
    return {
        "slope": round(fit.slope, 4),
        "offset": round(fit.offset, 4),
        "white_edge": round(fit.white_edge, 4),
        "white_to_act": round(sum(s.white for s in train) / max(len(train), 1), 3),
        "depth": depth,
        "labels": list(fit.labels),
        "games": args.games,
        "capped_games_left_out": capped,
        "train_games": n_train,
        "train_positions": len(train),
        "held_out": held_out,
        "fitting_games_ece": fitting["ece"],
        "analysis": figures,
        "seconds": round(time.perf_counter() - t0, 1),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--variants", default=",".join(variants.names()))
    p.add_argument("--games", type=int, default=24)
    p.add_argument("--seed", type=int, default=1000)
    p.add_argument("--every", type=int, default=4, help="sample every K-th position (4)")
    p.add_argument("--max-plies", type=int, default=160)
    p.add_argument("--label-games", type=int, default=20)
    p.add_argument("--write", action="store_true", help="store the fit in engine/equity_fit.json")
    p.add_argument(
        "--cache",
        type=Path,
        default=None,
        help="keep each game's record and samples here, and read them back on a later run "
        "(the same seed, cap, --every and depth): a refit without replaying",
    )
    p.add_argument("--report", action="store_true", help="report the stored constants only")
    args = p.parse_args(argv)
    table = read_table()
    out: dict[str, Any] = {}
    for key in args.variants.split(","):
        stored = fit_for(key)
        row = run_variant(key, args, stored)
        out[key] = row
        h = row["held_out"]
        a = row["analysis"]
        print(
            f"{key:13} a={row['slope']:.3f} b={row['offset']:+.3f} "
            f"w={row['white_edge']:+.3f} (White to act in {row['white_to_act']:.0%}) "
            f"depth={row['depth']} "
            f"train={row['train_games']}g/{row['train_positions']}p "
            f"held-out={h['games']}g/{h['positions']}p ECE={h['ece']:.4f} "
            f"(90% over games {'-'.join(f'{x:.3f}' for x in h['ece_90'] or ())}; "
            f"a calibrated curve's on these games {h['ece_if_calibrated']:.4f}; "
            f"fitting games {row['fitting_games_ece']:.4f}) Brier={h['brier']:.4f} "
            f"labels={row['labels']} luck/roll={a['mean_luck_per_roll']:+.4f} "
            f"cpu/100 plies={a['cpu_s_per_100_plies']}s ({row['seconds']}s)",
            flush=True,
        )
    if args.write and not args.report:
        entries = table.setdefault("variants", {})
        entries.update(out)
        table["command"] = "python -m benchmarks.equity_fit " + " ".join(sys.argv[1:])
        table["note"] = (
            "Fitted by benchmarks/equity_fit.py on ai:1 self-play games; 'held_out' is the "
            "calibration on the last third of the games."
        )
        Path(TABLE_PATH).write_text(json.dumps(table, indent=2) + "\n", encoding="utf-8")
        print(f"wrote {TABLE_PATH}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
