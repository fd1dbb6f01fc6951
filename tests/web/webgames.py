"""Helpers of the web tests: games played through the service, and the web server run
in a thread of its own (so that a blocking browser driver can talk to it)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from concurrent.futures import Future
from pathlib import Path
from typing import Any, TypeVar

from bot.links import Links
from bot.service import GameService, Outcome
from bot.web.app import RateLimit, Site, WebServer
from bot.web.listing import listed_by_settings
from bot.web.live import Limits

T = TypeVar("T")
SECRET = b"test-secret-of-the-web-pages-0123456789"
WHITE, BLACK = 11, 12


async def start_game(
    service: GameService,
    variant: str,
    *,
    location_id: int = 100,
    guild_id: int | None = 5,
    seed: str | None = None,
) -> int:
    challenge = await service.challenge(
        location_id=location_id,
        challenger_id=WHITE,
        opponent_id=BLACK,
        variant=variant,
        colour="white",
        guild_id=guild_id,
    )
    await service.accept(user_id=BLACK, game_id=challenge.game.id, seed=seed)
    return challenge.game.id


async def play_moves(service: GameService, game_id: int, count: int) -> Outcome | None:
    """``count`` actions, each the first legal one (deterministic for a given seed)."""
    outcome = None
    for _ in range(count):
        view = await service.view(game_id=game_id)
        if view.is_over:
            break
        legal = await service.legal_moves(game_id=game_id)
        assert view.to_move_id is not None
        outcome = await service.act(
            user_id=view.to_move_id, text=legal[0], game_id=game_id, render=False
        )
    return outcome


def make_site(
    service: GameService,
    tmp: Path,
    *,
    limits: Limits | None = None,
    rate: RateLimit | None = None,
    public_url: str = "",
) -> tuple[Site, Listing]:
    listing = Listing(service)
    site = Site(
        service,
        Links(SECRET, public_url),
        is_listed=listed_by_settings(service),
        limits=limits,
        rate=rate or RateLimit(rate=1000.0, burst=5000.0),
    )
    return site, listing


class Listing:
    """A server's moderator turning ``/settings web_list`` on or off."""

    def __init__(self, service: GameService) -> None:
        self.service = service

    async def set_listed(self, guild_id: int, on: bool) -> None:
        await self.service.server_settings.change(
            guild_id=guild_id, actor_id=MODERATOR, values={"web_list": on}
        )


MODERATOR = 42


class ServerThread:
    """A service and its web server on an event loop in another thread."""

    def __init__(self, db: Path) -> None:
        self.db = db
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.service: GameService = self.run(GameService.open(db, cpu_workers=1))
        self.site, self.listing = make_site(self.service, db.parent)
        self.server = WebServer(self.site, "127.0.0.1", 0)
        self.run(self.server.start())
        self.base = f"http://127.0.0.1:{self.server.port}"

    def run(self, work: Coroutine[Any, Any, T], timeout: float = 60.0) -> T:
        future: Future[T] = asyncio.run_coroutine_threadsafe(work, self.loop)
        return future.result(timeout)

    def url(self, game_id: int, step: int | None = None) -> str:
        path = self.site.links.game_path(game_id)
        return self.base + path + ("" if step is None else f"/{step}")

    def close(self) -> None:
        self.run(self.server.stop())
        self.run(self.service.close())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()
