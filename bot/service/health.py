"""The bot's heartbeat: a small file the running bot rewrites every ``EVERY`` seconds, so
that ``chessgarden doctor --health`` (the Docker image's ``HEALTHCHECK``) can tell a
living bot from a stuck one.

The file is written from the bot's event loop itself, so a loop that is blocked (or a
process that is gone) stops the heartbeat: the check then fails after ``STALE_AFTER``
seconds and Docker marks the container unhealthy. A bot that is only waiting for Discord
(an outage, a reconnect) keeps beating: restarting it would not help.

``CHESSGARDEN_HEARTBEAT`` names the file (the image sets ``/tmp/chessgarden.heartbeat``);
without it there is no heartbeat and the health check skips this part. The file holds one
line of JSON (the time, the process id, whether the gateway is ready) for people reading
it; the check looks only at its modification time. ``stop`` removes it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import time
from collections.abc import Callable, Mapping
from pathlib import Path

log = logging.getLogger(__name__)

HEARTBEAT_VAR = "CHESSGARDEN_HEARTBEAT"
EVERY = 30.0  # seconds between beats
STALE_AFTER = 3 * EVERY  # a heartbeat older than this means the bot is stuck or gone


def heartbeat_path(env: Mapping[str, str] | None = None) -> Path | None:
    """The heartbeat file the environment names, or None."""
    env = os.environ if env is None else env
    raw = (env.get(HEARTBEAT_VAR) or "").strip()
    return Path(raw) if raw else None


def beat(path: Path, *, ready: bool = True) -> None:
    """Write the heartbeat once (a new file put in place, so a reader never sees half)."""
    line = json.dumps({"time": time.time(), "pid": os.getpid(), "ready": ready})
    partial = path.with_name(path.name + ".partial")
    partial.write_text(line + "\n", encoding="utf-8")
    os.replace(partial, path)


def age(path: Path, *, now: float | None = None) -> float | None:
    """Seconds since the last beat, or None when there is no heartbeat file."""
    try:
        written = path.stat().st_mtime
    except FileNotFoundError:
        return None
    return max(0.0, (time.time() if now is None else now) - written)


class Heartbeat:
    """Beats every ``every`` seconds from the running event loop until ``stop``."""

    def __init__(
        self, path: Path, *, every: float = EVERY, is_ready: Callable[[], bool] | None = None
    ) -> None:
        self.path = path
        self.every = every
        self._is_ready = is_ready
        self._task: asyncio.Task[None] | None = None
        self._warned = False

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run(), name="heartbeat")

    async def _run(self) -> None:
        while True:
            try:
                beat(self.path, ready=self._is_ready() if self._is_ready else True)
                self._warned = False
            except OSError as error:  # a full or read-only disk: say so once, keep trying
                if not self._warned:
                    log.warning("cannot write the heartbeat %s: %s", self.path, error)
                    self._warned = True
            await asyncio.sleep(self.every)

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        with contextlib.suppress(OSError):
            self.path.unlink()


def start(is_ready: Callable[[], bool] | None = None) -> Heartbeat | None:
    """Start the heartbeat the environment asks for (None when it asks for none)."""
    path = heartbeat_path()
    if path is None:
        return None
    heartbeat = Heartbeat(path, is_ready=is_ready)
    heartbeat.start()
    return heartbeat


async def stop(heartbeat: Heartbeat | None) -> None:
    if heartbeat is not None:
        await heartbeat.stop()
