"""The painter process (issue 26, ``bot.service.painter``): once the warm-up has started
it, a player's board and dice are drawn there, byte for byte what the renderers draw in
this process; and whatever becomes of it (killed, hung, failing, not started), every board
still comes, drawn in a thread, and a new painter takes over."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import os
import random
import signal
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

import bot.service.core as core
import variants
from bot.discord.metrics import worker_restarts
from bot.service import GameService, Outcome
from bot.service.errors import RenderUnavailable
from bot.service.live import paint_board, render_board, render_dice
from bot.service.painter import Painter
from bot.service.workers import paint_or_failure

pytest.importorskip("renderers")

ALICE, BOB = 101, 202


async def start(service: GameService, variant: str, location: int = 1) -> Outcome:
    await service.challenge(
        location_id=location, challenger_id=ALICE, opponent_id=BOB, variant=variant, colour="white"
    )
    return await service.accept(location_id=location, user_id=BOB)


class Threads:
    """Counts the boards drawn in this process (in a thread: never on the loop), not by
    the painter."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.boards = 0
        real = paint_board

        def paint(picture: Any) -> bytes:
            assert threading.current_thread() is not threading.main_thread()
            self.boards += 1
            return real(picture)

        monkeypatch.setattr(core, "paint_board", paint)


@dataclasses.dataclass
class Painted:
    """A service whose warm-up started its painter, and the boards drawn in threads."""

    service: GameService
    painter: Painter
    threads: Threads
    closed: bool = False

    async def close(self) -> None:
        if not self.closed:
            self.closed = True
            await self.service.close()


@pytest.fixture
async def painted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Painted]:
    threads = Threads(monkeypatch)
    service = await GameService.open(str(tmp_path / "p.sqlite3"), rng=random.Random(7))
    painted = Painted(service, service._painter, threads)
    try:
        service.start_warm_up(gc_policy=False)
        await service.drawings_ready(timeout=120)
        assert service._painter.ready, "the painter did not start"
        yield painted
    finally:
        await painted.close()


@pytest.mark.parametrize("variant", variants.names())
async def test_boards_and_dice_from_the_painter_are_the_ones_drawn_here(
    variant: str, painted: Painted
) -> None:
    service, threads = painted.service, painted.threads
    pid = painted.painter.pid()
    assert pid is not None and pid != os.getpid()
    outcome = await start(service, variant)
    rng = random.Random(variant)
    moves = 0
    for _ in range(10):
        moves += 1
        outcome = await service.act(
            game_id=outcome.game.id,
            user_id=outcome.next_user_id,
            text=rng.choice(outcome.legal),
        )
        live = service._cache[outcome.game.id]
        assert outcome.image == render_board(live.game, outcome.orientation)
        if outcome.dice:
            assert outcome.dice_image == render_dice(variant, tuple(outcome.dice))
        if outcome.game_over:
            break
    assert threads.boards == 0, "a board was drawn in a thread although the painter ran"
    assert painter_boards(service) == moves + 1  # the accepted game's board too
    assert painted.painter.pid() == pid
    await painted.close()
    assert not _alive(pid), "the painter outlived the service"


def painter_boards(service: GameService) -> int:
    return service._painter.boards


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, ended but not yet reaped, does not)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


async def _until(check: Any, seconds: float = 20.0) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + seconds
    while not check():
        assert loop.time() < end, "timed out"
        await asyncio.sleep(0.02)


async def _moves(service: GameService, outcome: Outcome, n: int, seed: str) -> Outcome:
    """``n`` moves, each checked against the board drawn here."""
    rng = random.Random(seed)
    for _ in range(n):
        outcome = await service.act(
            game_id=outcome.game.id, user_id=outcome.next_user_id, text=rng.choice(outcome.legal)
        )
        live = service._cache[outcome.game.id]
        assert outcome.image == render_board(live.game, outcome.orientation)
        assert outcome.game_over is False
    return outcome


async def test_a_killed_painter_loses_no_board_and_is_replaced(painted: Painted) -> None:
    service, painter, threads = painted.service, painted.painter, painted.threads
    outcome = await _moves(service, await start(service, "tquarchess"), 3, "a")
    first = painter.pid()
    assert first is not None and threads.boards == 0
    os.kill(first, signal.SIGKILL)
    # the next move's board comes whatever the painter's state: drawn in a thread
    # while no painter takes jobs, else by the new one
    outcome = await _moves(service, outcome, 1, "b")
    await _until(lambda: painter.ready and painter.pid() != first)
    assert painter.restarts == 1
    assert worker_restarts(service) == 1  # chessgarden_worker_restarts_total
    drawn_here = threads.boards
    outcome = await _moves(service, outcome, 4, "c")
    assert threads.boards == drawn_here, "the new painter draws the boards again"


async def test_a_job_in_flight_when_the_painter_dies_is_drawn_here(painted: Painted) -> None:
    service, painter, threads = painted.service, painted.painter, painted.threads
    outcome = await start(service, "stone_garden")
    pid = painter.pid()
    assert pid is not None and painter._run is not None
    os.kill(pid, signal.SIGSTOP)  # the job waits in the pipe
    rng = random.Random(1)
    move = asyncio.create_task(
        service.act(
            game_id=outcome.game.id,
            user_id=outcome.next_user_id,
            text=rng.choice(outcome.legal),
        )
    )
    run = painter._run
    await _until(lambda: bool(run.pending))
    os.kill(pid, signal.SIGKILL)
    outcome = await move
    live = service._cache[outcome.game.id]
    assert outcome.image == render_board(live.game, outcome.orientation)
    assert threads.boards == 1
    await _until(lambda: painter.ready and painter.pid() != pid)


async def test_a_hung_painter_is_replaced_and_its_board_drawn_here(
    caplog: pytest.LogCaptureFixture, painted: Painted
) -> None:
    service, painter, threads = painted.service, painted.painter, painted.threads
    painter.job_timeout_s = 0.5
    outcome = await start(service, "guardener")
    pid = painter.pid()
    assert pid is not None
    os.kill(pid, signal.SIGSTOP)
    with caplog.at_level(logging.WARNING, logger="bot.service.painter"):
        outcome = await _moves(service, outcome, 1, "h")
    assert threads.boards == 1
    assert "took over" in caplog.text
    await _until(lambda: painter.ready and painter.pid() != pid)
    await _until(lambda: not _alive(pid))
    await _moves(service, outcome, 2, "i")
    assert threads.boards == 1


async def test_what_the_painter_cannot_draw_is_drawn_here_with_its_own_error(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    from renderers.board import picture

    painter = Painter()
    painter.start()
    try:
        assert await painter.wait_ready()
        game = variants.new_game("kings_guard", seed=1)
        good = picture(game)
        bad = dataclasses.replace(good, variant="no_such_variant")
        with caplog.at_level(logging.WARNING, logger="bot.service.painter"):
            lost = painter.send_board(bad)
            assert lost is not None
            assert await painter.receive(lost) is None
        assert "no_such_variant" in caplog.text
        # the painter goes on, and the service's thread says what is wrong
        kept = painter.send_board(good)
        assert kept is not None and await painter.receive(kept) == render_board(game, "white")
        failure = paint_or_failure(paint_board, bad)
        assert isinstance(failure, RenderUnavailable)
        assert painter.restarts == 0
    finally:
        await painter.close()


async def test_painters_that_keep_dying_back_off_and_threads_draw_meanwhile(
    painted: Painted,
) -> None:
    service, painter, threads = painted.service, painted.painter, painted.threads
    painter.backoff_s = painter.backoff_cap_s = 3.0
    outcome = await start(service, "jepps_random")
    # The first painter drew the new game's board: the next one starts at once, and
    # so does the one after the first that drew nothing; then they wait.
    for deaths in (1, 2, 3):
        pid = painter.pid()
        assert pid is not None
        os.kill(pid, signal.SIGKILL)
        await _until(lambda deaths=deaths: painter.restarts == deaths)
        if deaths < 3:
            await _until(lambda: painter.ready)
    assert not painter.ready  # waiting out the backoff
    before = painter.boards
    outcome = await _moves(service, outcome, 2, "j")
    assert painter.boards == before  # drawn in threads meanwhile
    await _until(lambda: painter.ready, seconds=10)
    await _moves(service, outcome, 2, "k")
    assert painter.boards == before + 2
    assert threads.boards == 0  # no painter had failed a job


async def test_a_service_that_never_warms_up_draws_in_threads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    threads = Threads(monkeypatch)
    service = await GameService.open(str(tmp_path / "cold.sqlite3"), rng=random.Random(3))
    try:
        await _moves(service, await start(service, "kings_guard"), 3, "cold")
        assert not service._painter.started
        assert threads.boards == 0  # ``show`` draws through the renderer itself
    finally:
        await service.close()


def test_the_painter_ends_with_the_process_that_started_it(tmp_path: Path) -> None:
    script = tmp_path / "owner.py"
    script.write_text(
        "import asyncio, os, sys, time\n"
        "from bot.service.painter import Painter\n"
        "async def main():\n"
        "    painter = Painter(warm=False)\n"
        "    painter.start()\n"
        "    assert await painter.wait_ready()\n"
        "    print(painter.pid(), flush=True)\n"
        "    await asyncio.sleep(60)\n"
        "if __name__ == '__main__':\n"
        "    asyncio.run(main())\n"
    )
    owner = subprocess.Popen(
        [sys.executable, str(script)],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    try:
        assert owner.stdout is not None
        pid = int(owner.stdout.readline())
        assert _alive(pid)
        owner.kill()
        owner.wait()
        deadline = time.monotonic() + 10
        while _alive(pid):
            assert time.monotonic() < deadline, "the painter outlived its owner"
            time.sleep(0.05)
    finally:
        owner.kill()


def test_the_warm_up_readies_the_pictures_here_before_the_first_player(tmp_path: Path) -> None:
    """With the painter drawing, this process still makes each picture: its modules are
    imported and its layouts made before the bot accepts interactions, never by a player's
    first move on the loop (that import held the loop for tens of milliseconds)."""
    script = tmp_path / "warm.py"
    script.write_text(
        "import asyncio, sys\n"
        "from bot.service import GameService\n"
        "async def main():\n"
        f"    service = await GameService.open({str(tmp_path / 'w.sqlite3')!r})\n"
        "    before = 'renderers.board' in sys.modules\n"
        "    service.start_warm_up(gc_policy=False)\n"
        "    await service.drawings_ready(timeout=120)\n"
        "    after = 'renderers.board' in sys.modules\n"
        "    from renderers.layout import layout\n"
        "    print(before, after, service._painter.ready, layout.cache_info().currsize)\n"
        "    await service.close()\n"
        "if __name__ == '__main__':\n"
        "    asyncio.run(main())\n"
    )
    done = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    before, after, ready, layouts = done.stdout.split()
    assert (before, after, ready) == ("False", "True", "True")
    geometries = {
        (type(variants.rules(key).geometry), variants.rules(key).geometry.width)
        for key in variants.names()
    }
    assert int(layouts) >= 2 * len(geometries)  # both ways up
