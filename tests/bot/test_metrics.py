"""``/metrics`` (issue 24): an in-process instance over a real service, scraped over HTTP;
then the real ``chessgarden run`` subprocess (loopback fake Discord) with
``CHESSGARDEN_METRICS_PORT``; and the settings."""

from __future__ import annotations

import asyncio
import random
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import aiohttp
import pytest

import variants
from bot.discord.app import Settings, SettingsError
from bot.discord.metrics import Metrics, MetricsError
from bot.service import GameService
from bot.service.errors import ServiceError

sys.path.insert(0, str(Path(__file__).parent))  # the fake lives beside this file
from loopback_discord import LAUNCHER, LoopbackDiscord  # noqa: E402
from test_run_shutdown import computer_game, row  # noqa: E402

ALICE, BOB = 101, 202


def value(text: str, name: str, labels: str = "") -> float | None:
    """The sample ``name{labels}`` in a Prometheus text page, or None."""
    pattern = "^" + re.escape(name + (("{" + labels + "}") if labels else "")) + r" (\S+)$"
    found = re.search(pattern, text, re.MULTILINE)
    return float(found.group(1)) if found else None


@pytest.fixture
async def service(tmp_path: Path) -> AsyncIterator[GameService]:
    svc = await GameService.open(str(tmp_path / "db.sqlite3"), renderer=None, rng=random.Random(0))
    yield svc
    await svc.close()


@pytest.fixture
async def metrics(service: GameService) -> AsyncIterator[Metrics]:
    watched = Metrics()
    watched.watch_service(service)
    await watched.serve("127.0.0.1", 0)
    yield watched
    await watched.stop()


async def scrape(metrics: Metrics) -> tuple[str, str]:
    async with aiohttp.ClientSession() as session:
        async with session.get(f"http://127.0.0.1:{metrics.port}/metrics") as answer:
            assert answer.status == 200
            return await answer.text(), answer.headers["Content-Type"]


async def play(service: GameService, moves: int) -> int:
    await service.challenge(
        location_id=1,
        challenger_id=ALICE,
        opponent_id=BOB,
        colour="white",
        variant=variants.names()[0],
    )
    outcome = await service.accept(location_id=1, user_id=BOB)
    rng = random.Random(3)
    played = 0
    for _ in range(moves):
        if outcome.game_over:
            break
        legal = await service.legal_moves(location_id=1)
        outcome = await service.act(
            location_id=1, user_id=outcome.next_user_id, text=rng.choice(legal), render=False
        )
        played += 1
    return played


async def test_moves_and_their_latency(service: GameService, metrics: Metrics) -> None:
    text, kind = await scrape(metrics)
    assert kind.startswith("text/plain")
    assert value(text, "chessgarden_moves_total") == 0
    played = await play(service, 6)
    assert played >= 3
    with pytest.raises(ServiceError):  # a refused move is not counted
        await service.act(location_id=1, user_id=ALICE, text="not a move")
    text, _ = await scrape(metrics)
    assert value(text, "chessgarden_moves_total") == played == service.stats.moves
    assert value(text, "chessgarden_move_seconds_count") == played
    assert 0 < value(text, "chessgarden_move_seconds_sum") <= service.stats.seconds + 1e-9  # type: ignore[operator]
    assert value(text, "chessgarden_move_seconds_bucket", 'le="+Inf"') == played


async def test_outbox_failures_and_worker_restarts(service: GameService, metrics: Metrics) -> None:
    text, _ = await scrape(metrics)
    # watch_service wires the service's own outbox: nothing owed in a new store
    assert value(text, "chessgarden_outbox_pending") == 0
    assert value(text, "chessgarden_outbox_failed") == 0
    assert value(text, "chessgarden_worker_restarts_total") == 0
    metrics.set_outbox_source(lambda: (4, 1))
    metrics.outbox_failure("missing_access")
    metrics.outbox_failure("missing_access")
    metrics.outbox_failure("timeout")
    service._workers.restarts = 2  # type: ignore[attr-defined]  # what Workers will count
    text, _ = await scrape(metrics)
    assert value(text, "chessgarden_outbox_pending") == 4
    assert value(text, "chessgarden_outbox_failed") == 1
    assert value(text, "chessgarden_outbox_failures_total", 'reason="missing_access"') == 2
    assert value(text, "chessgarden_outbox_failures_total", 'reason="timeout"') == 1
    assert value(text, "chessgarden_worker_restarts_total") == 2

    async def counted() -> tuple[int, int]:  # a source may be a coroutine (a store query)
        await asyncio.sleep(0)
        return (0, 3)

    metrics.set_outbox_source(counted)
    text, _ = await scrape(metrics)
    assert (
        value(text, "chessgarden_outbox_pending"),
        value(text, "chessgarden_outbox_failed"),
    ) == (0, 3)

    def broken() -> tuple[int, int]:
        raise RuntimeError("the outbox is gone")

    metrics.set_outbox_source(broken)
    text, _ = await scrape(metrics)  # the rest still shows
    assert "chessgarden_outbox_pending" not in text and "chessgarden_moves_total" in text


async def test_event_loop_lag(metrics: Metrics) -> None:
    metrics.start_lag_probe(interval=0.05)
    await asyncio.sleep(0.12)
    time.sleep(0.3)  # the loop is held: the probe wakes late by about this much
    await asyncio.sleep(0.12)
    text, _ = await scrape(metrics)
    assert value(text, "chessgarden_event_loop_lag_seconds_count") >= 2  # type: ignore[operator]
    assert value(text, "chessgarden_event_loop_lag_seconds_sum") >= 0.2  # type: ignore[operator]
    assert value(text, "chessgarden_event_loop_lag_seconds_bucket", 'le="0.1"') < value(  # type: ignore[operator]
        text, "chessgarden_event_loop_lag_seconds_count"
    )


async def test_a_taken_port_is_one_line(metrics: Metrics) -> None:
    other = Metrics()
    with pytest.raises(MetricsError, match=f"cannot serve metrics on 127.0.0.1:{metrics.port}"):
        await other.serve("127.0.0.1", metrics.port)  # type: ignore[arg-type]
    await other.stop()


def test_settings() -> None:
    assert Settings.from_env({}).metrics_port is None
    on = Settings.from_env({"CHESSGARDEN_METRICS_PORT": "9464"})
    assert (on.metrics_port, on.metrics_host) == (9464, "127.0.0.1")
    anywhere = Settings.from_env(
        {"CHESSGARDEN_METRICS_PORT": "9464", "CHESSGARDEN_METRICS_HOST": "0.0.0.0"}
    )
    assert anywhere.metrics_host == "0.0.0.0"
    for bad in ("0", "70000", "http", "-1"):
        with pytest.raises(SettingsError, match="CHESSGARDEN_METRICS_PORT must be a port number"):
            Settings.from_env({"CHESSGARDEN_METRICS_PORT": bad})


# ----- the real subprocess ------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def fetch(port: int) -> str:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as answer:
        return str(answer.read().decode())


@pytest.fixture
def fake() -> Iterator[LoopbackDiscord]:
    with LoopbackDiscord() as server:
        yield server


def test_the_real_bot_serves_metrics(fake: LoopbackDiscord, tmp_path: Path) -> None:
    db, log = str(tmp_path / "db.sqlite3"), tmp_path / "bot.log"
    game_id = computer_game(db, fake)
    port = free_port()
    proc = fake.spawn_bot(db, log, env={"CHESSGARDEN_METRICS_PORT": str(port)})
    try:
        fake.wait_for(lambda: row(db, game_id)[0] >= 1, 60)  # the computer moved

        def moved() -> str | None:
            try:
                text = fetch(port)
            except OSError:
                return None
            return text if (value(text, "chessgarden_moves_total") or 0) >= 1 else None

        text = fake.wait_for(moved, 20)
        assert value(text, "chessgarden_move_seconds_count") >= 1  # type: ignore[operator]
        assert value(text, "chessgarden_worker_restarts_total") == 0
        fake.wait_for(
            lambda: (value(fetch(port), "chessgarden_event_loop_lag_seconds_count") or 0) >= 1
        )
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(15)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    output = log.read_text(errors="replace")
    assert code == 0, output
    assert f"metrics: serving http://127.0.0.1:{port}/metrics" in output
    assert "shutdown: the metrics endpoint closed" in output, output
    with pytest.raises(OSError):
        fetch(port)


def test_a_taken_port_ends_the_bot_with_one_line(fake: LoopbackDiscord, tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            [sys.executable, str(LAUNCHER)],
            env=fake.bot_env(str(tmp_path / "db.sqlite3"), CHESSGARDEN_METRICS_PORT=str(port)),
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert done.returncode == 1, done.stderr
    assert (
        f"error: cannot serve metrics on 127.0.0.1:{port}: Address already in use\n" in done.stderr
    )
    assert "Traceback" not in done.stderr
    assert fake.requests() == []  # Discord was not contacted


async def test_every_metric_is_documented(metrics: Metrics) -> None:
    metrics.set_outbox_source(lambda: (0, 0))
    metrics.outbox_failure("timeout")
    text, _ = await scrape(metrics)
    families = set(re.findall(r"^# TYPE (\S+)", text, re.MULTILINE))
    docs = (Path(__file__).parents[2] / "docs" / "discord.md").read_text(encoding="utf-8")
    assert len(families) >= 8
    for name in families:
        assert f"`{name}" in docs, f"{name} is not in docs/discord.md"
    for variable in ("CHESSGARDEN_METRICS_PORT", "CHESSGARDEN_METRICS_HOST"):
        assert f"| `{variable}` |" in docs
