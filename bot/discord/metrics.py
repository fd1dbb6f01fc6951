"""``/metrics`` in Prometheus text format (issue 24), for ``chessgarden run`` when
``CHESSGARDEN_METRICS_PORT`` is set (``CHESSGARDEN_METRICS_HOST``: the address, default
127.0.0.1). Served by aiohttp on the bot's own event loop, with prometheus-client's
registry and text encoder.

What it shows:

- ``chessgarden_moves_total``: moves stored (the players' and the computer's);
  ``rate(chessgarden_moves_total[1m])`` is moves per second;
- ``chessgarden_move_seconds``: a histogram of the service's ``act`` call for each stored
  move, from the call to its answer: the checks, the transaction and its commit, and
  drawing the board (``bot.service.stats``). It does not include Discord's side (the
  interaction's trip to the bot, the answer's upload);
- ``chessgarden_event_loop_lag_seconds``: a histogram of how late a probe task wakes from
  ``asyncio.sleep(interval)``: anything holding the loop delays every player's answer by
  as much; ``chessgarden_event_loop_lag_last_seconds`` is the latest;
- ``chessgarden_outbox_pending`` and ``chessgarden_outbox_failed``: owed posts not yet
  delivered, and those given up (Missing Access, Unknown Channel, ...), from the callable
  given to ``set_outbox_source`` (it returns ``(pending, failed)``, or an awaitable of
  it, and is called once per scrape on the loop); absent until one is set;
- ``chessgarden_outbox_failures_total{reason}``: delivery failures, counted by
  ``outbox_failure(reason)``;
- ``chessgarden_worker_restarts_total``: worker processes replaced after dying, read from
  the service's workers and its painter (``restarts``; 0 where they do not count them).

No module of ``bot.service`` imports this one: the service keeps plain counters and
hooks, and this module reads them.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import os
from collections.abc import Awaitable, Callable, Iterator
from typing import TYPE_CHECKING, Any

from aiohttp import web
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    disable_created_metrics,
    generate_latest,
)
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric

if TYPE_CHECKING:
    from bot.service import GameService

log = logging.getLogger(__name__)

# No `*_created` sample beside each counter and histogram: Prometheus does not need them,
# and they double the page.
disable_created_metrics()  # type: ignore[no-untyped-call]

LAG_INTERVAL_S = 0.5
SOURCE_TIMEOUT_S = 2.0
MOVE_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
LAG_BUCKETS = (0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)

OutboxSource = Callable[[], "tuple[int, int] | Awaitable[tuple[int, int]]"]


class MetricsError(Exception):
    """The endpoint cannot be served (the port is taken, the address is wrong). One line."""


class Metrics:
    """The bot's metrics and their endpoint; see the module."""

    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        self.registry = registry or CollectorRegistry()
        self.moves = Counter(
            "chessgarden_moves",
            "Moves stored (players' and the computer's); rate() gives moves per second.",
            registry=self.registry,
        )
        self.move_seconds = Histogram(
            "chessgarden_move_seconds",
            "Duration of the service's act call for each stored move (checks, the "
            "transaction and its commit, the board image).",
            buckets=MOVE_BUCKETS,
            registry=self.registry,
        )
        self.loop_lag = Histogram(
            "chessgarden_event_loop_lag_seconds",
            "How late a probe task woke from asyncio.sleep: the event loop's lag.",
            buckets=LAG_BUCKETS,
            registry=self.registry,
        )
        self.loop_lag_last = Gauge(
            "chessgarden_event_loop_lag_last_seconds",
            "The event loop's lag at the latest probe.",
            registry=self.registry,
        )
        self.outbox_failures = Counter(
            "chessgarden_outbox_failures",
            "Owed posts whose delivery failed, by reason.",
            ["reason"],
            registry=self.registry,
        )
        self._outbox_source: OutboxSource | None = None
        self._outbox_counts: tuple[int, int] | None = None
        self._restarts_source: Callable[[], int] | None = None
        self.registry.register(_Sources(self))
        self._service: GameService | None = None
        self._probe: asyncio.Task[None] | None = None
        self._runner: web.AppRunner | None = None
        self.port: int | None = None  # the port served (useful with port 0)

    # ----- what the bot and the service report -----------------------------------------

    def observe_move(self, seconds: float) -> None:
        self.moves.inc()
        self.move_seconds.observe(seconds)

    def set_outbox_source(self, source: OutboxSource | None) -> None:
        """``source()`` -> ``(pending, failed)`` (or an awaitable of it), read per scrape."""
        self._outbox_source = source

    def outbox_failure(self, reason: str) -> None:
        """One more delivery failure, e.g. ``"missing_access"``, ``"timeout"``, ``"5xx"``."""
        self.outbox_failures.labels(reason=reason).inc()

    def set_restarts_source(self, source: Callable[[], int] | None) -> None:
        self._restarts_source = source

    def watch_service(self, service: GameService) -> None:
        """Count the service's moves and read its workers' restarts."""
        self._service = service
        service.stats.add_observer(self.observe_move)
        self.set_restarts_source(lambda: worker_restarts(service))
        self.set_outbox_source(service.outbox_depth)

    # ----- the event loop's lag -----------------------------------------------------------

    def start_lag_probe(self, interval: float = LAG_INTERVAL_S) -> asyncio.Task[None]:
        if self._probe is None or self._probe.done():
            self._probe = asyncio.get_running_loop().create_task(
                self._measure_lag(interval), name="chessgarden-loop-lag"
            )
        return self._probe

    async def _measure_lag(self, interval: float) -> None:
        loop = asyncio.get_running_loop()
        while True:
            asked = loop.time()
            await asyncio.sleep(interval)
            lag = max(0.0, loop.time() - asked - interval)
            self.loop_lag.observe(lag)
            self.loop_lag_last.set(lag)

    # ----- the endpoint -------------------------------------------------------------------

    async def render(self) -> bytes:
        """The text a scrape gets (the outbox's counts read first)."""
        await self._read_outbox()
        return bytes(generate_latest(self.registry))

    async def _read_outbox(self) -> None:
        source = self._outbox_source
        if source is None:
            self._outbox_counts = None
            return
        try:
            value = source()
            if inspect.isawaitable(value):
                value = await asyncio.wait_for(value, SOURCE_TIMEOUT_S)
            pending, failed = value
            self._outbox_counts = (int(pending), int(failed))
        except Exception:  # a scrape shows the rest; the log says why this is missing
            log.warning("metrics: could not read the outbox's counts", exc_info=True)
            self._outbox_counts = None

    async def _handle(self, request: web.Request) -> web.Response:
        body = await self.render()
        return web.Response(body=body, headers={"Content-Type": CONTENT_TYPE_LATEST})

    async def serve(self, host: str, port: int) -> None:
        """Serve ``GET /metrics`` on ``host:port`` (``MetricsError`` if it cannot)."""
        app = web.Application()
        app.router.add_get("/metrics", self._handle)
        runner = web.AppRunner(app, handle_signals=False, access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, host, port)
        try:
            await site.start()
        except OSError as error:
            await runner.cleanup()
            reason = os.strerror(error.errno) if error.errno else str(error)
            raise MetricsError(f"cannot serve metrics on {host}:{port}: {reason}") from error
        self._runner = runner
        server = site._server
        sockets = getattr(server, "sockets", None) or []
        self.port = sockets[0].getsockname()[1] if sockets else port
        log.info("metrics: serving http://%s:%s/metrics", host, self.port)

    async def stop(self) -> None:
        if self._probe is not None:
            self._probe.cancel()
            await asyncio.gather(self._probe, return_exceptions=True)
            self._probe = None
        if self._service is not None:
            self._service.stats.remove_observer(self.observe_move)
            self._service = None
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None


def worker_restarts(service: Any) -> int:
    """The service's worker restarts (``Workers.restarts``) and painter restarts
    (``Painter.restarts``), 0 where they are not counted."""
    return sum(
        int(getattr(getattr(service, part, None), "restarts", 0) or 0)
        for part in ("_workers", "_painter")
    )


class _Sources:
    """The values read from elsewhere at each scrape: the outbox, the worker restarts."""

    def __init__(self, metrics: Metrics) -> None:
        self.metrics = metrics

    def collect(self) -> Iterator[Metric]:
        counts = self.metrics._outbox_counts
        if counts is not None:
            yield GaugeMetricFamily(
                "chessgarden_outbox_pending", "Owed posts not delivered yet.", value=counts[0]
            )
            yield GaugeMetricFamily(
                "chessgarden_outbox_failed",
                "Owed posts given up for good (no access, unknown channel, ...).",
                value=counts[1],
            )
        source = self.metrics._restarts_source
        if source is not None:
            try:
                restarts = int(source())
            except Exception:
                log.warning("metrics: could not read the worker restarts", exc_info=True)
            else:
                yield CounterMetricFamily(
                    "chessgarden_worker_restarts",
                    "Worker processes replaced after they died.",
                    value=restarts,
                )
