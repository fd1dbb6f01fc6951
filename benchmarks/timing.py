"""Helpers the service benchmark shares: the machine's speed, and figures per window.

    calibrate() -> float          # ms for a fixed workload: set figures against the machine
    windows(samples, blocks, seconds, width=10.0) -> list[Window]

- **Calibration.** The same pure-Python work every time: python-chess (a test
  dependency) lists the legal moves of one middlegame position and writes each in SAN,
  ``CALIBRATION_ROUNDS`` times. A machine that is busy with other work, or slower, takes
  longer; a benchmark prints it before and after its runs, so that its figures can be
  set against the speed the machine had then.
- **Windows.** A run's latencies, each stamped with its arrival (seconds since the load
  started), and the event loop's largest block in each window, grouped in windows of
  ``width`` seconds: the first ten seconds after a restart are not averaged away by the
  quiet minute after them. Beside each block, the most CPU the loop's own thread spent
  in one block: on a busy machine a block is mostly a wait (for a core, or for the
  interpreter held by a worker thread); the CPU is the loop's own work.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

# A middlegame with every kind of move (castling both ways, captures, promotions
# nearby, checks): "Kiwipete", the perft test position.
CALIBRATION_FEN = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
CALIBRATION_ROUNDS = 200


def calibrate(rounds: int = CALIBRATION_ROUNDS) -> float:
    """Milliseconds for ``rounds`` times: the position's legal moves, each in SAN."""
    import chess  # python-chess: a test dependency (pyproject's ``test`` extra)

    started = time.perf_counter()
    for _ in range(rounds):
        board = chess.Board(CALIBRATION_FEN)
        for move in board.legal_moves:
            board.san(move)
    return (time.perf_counter() - started) * 1000


@dataclass(frozen=True)
class Window:
    """The figures of one window: ``start`` to ``end`` seconds after the load started."""

    start: float
    end: float
    n: int
    p50: float
    p99: float
    max: float
    block_ms: float  # the event loop's largest block that began in the window
    work_ms: float  # the most CPU the loop's thread spent in one block (its own work)


def quantile(ms: list[float], p: float) -> float:
    """The ``p`` quantile of the sorted ``ms`` (nan for none)."""
    return ms[min(len(ms) - 1, int(p * len(ms)))] if ms else float("nan")


def windows(
    samples: list[tuple[float, float]],
    blocks: list[float],
    work: list[float],
    seconds: float,
    width: float = 10.0,
) -> list[Window]:
    """``samples``: (arrival in seconds since the load started, latency in ms);
    ``blocks``: the loop's largest block (ms) per window, by index; ``work``: the most
    CPU its thread spent in one block, likewise. One ``Window`` per ``width`` seconds of
    the ``seconds`` timed (the last may be shorter)."""
    count = max(1, int(-(-seconds // width)))
    grouped: list[list[float]] = [[] for _ in range(count)]
    for at, ms in samples:
        grouped[min(count - 1, max(0, int(at // width)))].append(ms)
    out = []
    for k, ms in enumerate(grouped):
        ms.sort()
        out.append(
            Window(
                start=k * width,
                end=min(seconds, (k + 1) * width),
                n=len(ms),
                p50=quantile(ms, 0.50),
                p99=quantile(ms, 0.99),
                max=ms[-1] if ms else float("nan"),
                block_ms=blocks[k] if k < len(blocks) else 0.0,
                work_ms=work[k] if k < len(work) else 0.0,
            )
        )
    return out
