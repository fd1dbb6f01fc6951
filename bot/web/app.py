"""The web server: aiohttp routes, the safety middleware, and its start and stop.

Routes (every game address carries its capability token, ``bot.links``)::

    GET /g/{token}                 the game page at its latest step
    GET /g/{token}/{step}          the page at one step (a link per step: works without script)
    GET /g/{token}/board/{step}.png?v={digest}   the board image (immutable with its digest)
    GET /g/{token}/record.txt      the record, with the proof tags
    GET /g/{token}/analysis.png?v={digest}   the errors-and-luck graph, once analysed
    GET /g/{token}/events          server-sent events while the game is live
    GET /s/{token}                 a server's live games, if it opted in
    GET /static/{game.css,game.js}

Anything else, a forged token, or a game the store cannot find: the same plain 404 page.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2
from aiohttp import hdrs, web

from bot.links import Links, configure, current_links
from bot.service import AnalysisReport, GameService, GameSummary, NotFound, ServiceError
from bot.web.analysis import Summary, summary
from bot.web.live import Busy, Channel, Hub, Limits, Watcher
from bot.web.relay import AVAILABLE as RELAY_AVAILABLE
from bot.web.relay import KEEP_ALIVE, OVER, Relay, shut
from bot.web.state import GameState, GameStates, event_json, step_image, step_json

log = logging.getLogger(__name__)

HERE = Path(__file__).parent
STATIC_FILES = {
    "game.css": "text/css",
    "game.js": "text/javascript",
    "icon.svg": "image/svg+xml",
}
CSP = (
    "default-src 'none'; img-src 'self'; style-src 'self'; script-src 'self'; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
IMMUTABLE = "public, max-age=31536000, immutable"
KEPT_ANALYSES = 64  # analysed games (with their graphs, about 40 KB each) kept in memory

# Whether a server listed its live games (``/settings web_list:True``): given by the caller.
IsListed = Callable[[int], Awaitable[bool]]


@dataclass
class RateLimit:
    """A token bucket per address: ``rate`` requests a second, bursts up to ``burst``."""

    rate: float = 20.0
    burst: float = 120.0
    kept: int = 10_000  # addresses remembered

    def __post_init__(self) -> None:
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()

    def allow(self, address: str, now: float | None = None) -> bool:
        now = time.monotonic() if now is None else now
        tokens, since = self._buckets.pop(address, (self.burst, now))
        tokens = min(self.burst, tokens + (now - since) * self.rate)
        allowed = tokens >= 1.0
        self._buckets[address] = (tokens - 1.0 if allowed else tokens, now)
        while len(self._buckets) > self.kept:
            self._buckets.popitem(last=False)
        return allowed


async def _never_listed(guild_id: int) -> bool:
    return False


@dataclass
class Event:
    """A game's newest live event, and its steps as encoded: (digest, JSON) each."""

    version: str
    full: bytes
    delta: bytes
    steps: list[tuple[str, str]]


class Site:
    """Everything the handlers share."""

    def __init__(
        self,
        service: GameService,
        links: Links,
        *,
        is_listed: IsListed = _never_listed,
        limits: Limits | None = None,
        rate: RateLimit | None = None,
        poll_s: float | None = None,
    ) -> None:
        self.service = service
        self.links = links
        self.is_listed = is_listed
        self.rate = rate or RateLimit()
        self.states = GameStates(service)
        self.hub = Hub(self._event, limits, poll_s=poll_s, yield_to=service.acting_on_a_game)
        self._events: dict[int, Event] = {}
        self.templates = jinja2.Environment(
            loader=jinja2.FileSystemLoader(HERE / "templates"),
            autoescape=True,
            trim_blocks=True,
            lstrip_blocks=True,
        )
        # analyses as kept for a game's log head (they never change), the graphs drawn
        self._analyses: OrderedDict[tuple[int, str], AnalysisReport] = OrderedDict()
        self.static: dict[str, tuple[bytes, str, str]] = {}
        for name, kind in STATIC_FILES.items():
            data = (HERE / "static" / name).read_bytes()
            self.static[name] = (data, kind, hashlib.sha256(data).hexdigest()[:12])

    def asset(self, name: str) -> str:
        return f"/static/{name}?v={self.static[name][2]}"

    async def _event(self, game_id: int) -> tuple[bytes, bytes, str]:
        """The live event of a game as stored now: the whole state, and only the new steps
        since the event before (the whole state again when steps were taken back). Each
        step is encoded once and kept (with its digest), so a move encodes its new step
        alone."""
        state = await self.states.state(game_id)
        kept = self._events.get(game_id)
        if kept is None or kept.version != state.version:
            steps = state.timeline.steps if state.timeline else ()
            old = kept.steps if kept is not None else []
            same = 0
            for (digest, _), step in zip(old, steps, strict=False):
                if digest != step.digest:
                    break
                same += 1
            path = self.links.game_path(game_id)
            grown = same == len(old)  # only new steps: a page that has the old ones appends
            encoded = old if grown else old[:same]
            encoded.extend((step.digest, step_json(path, step)) for step in steps[same:])
            texts = [text for _, text in encoded]
            over = OVER + b"\n" if state.view.is_over else b""
            full = over + f"data: {event_json(state, texts)}\n\n".encode()
            delta = full  # a take-back: the whole list again
            if grown and kept is not None:
                delta = over + f"data: {event_json(state, texts[same:], same)}\n\n".encode()
            kept = self._events[game_id] = Event(state.version, full, delta, encoded)
        if len(self._events) > 4 * len(self.hub.channels) + 64:
            self._events = {g: e for g, e in self._events.items() if g in self.hub.channels}
        return kept.full, kept.delta, kept.version

    async def analysis(self, state: GameState, *, graph: bool = False) -> AnalysisReport | None:
        """The kept analysis of a finished game (with its graph, drawn once, if ``graph``);
        None while it is live or has none. Found ones are kept: a kept analysis belongs
        to its log head. The page speaks English, so does the graph."""
        view = state.view
        if not view.is_over or not view.chain_head:
            return None
        key = (view.id, view.chain_head)
        report = self._analyses.get(key)
        if report is None or (graph and report.image is None):
            names = (state.white, state.black)
            found = await self.service.analyses.kept(
                view.id, render=graph, names=names, locale="en"
            )
            if found is None:
                return None
            report = self._analyses[key] = found
        self._analyses.move_to_end(key)
        while len(self._analyses) > KEPT_ANALYSES:
            self._analyses.popitem(last=False)
        return report

    def page(self, name: str, status: int = 200, **values: Any) -> web.Response:
        html = self.templates.get_template(name).render(asset=self.asset, **values)
        return web.Response(text=html, status=status, content_type="text/html", charset="utf-8")

    def not_found(self) -> web.Response:
        response = self.page("404.html", status=404)
        response.headers["Cache-Control"] = "no-store"
        return response


SITE = web.AppKey("site", Site)


def _site(request: web.Request) -> Site:
    site: Site = request.app[SITE]
    return site


# ----- middleware ---------------------------------------------------------------


@web.middleware
async def guard(
    request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
) -> web.StreamResponse:
    """Rate limit per address, the same 404 for every unknown address, and the safety
    headers on every answer."""
    site = _site(request)
    if not site.rate.allow(request.remote or "?"):
        response: web.StreamResponse = web.Response(
            text="Too many requests; slow down and try again in a moment.\n",
            status=429,
            headers={"Retry-After": "2"},
        )
    else:
        try:
            response = await handler(request)
        except web.HTTPNotFound:
            response = site.not_found()
        except web.HTTPMethodNotAllowed:
            response = web.Response(text="Only GET is served here.\n", status=405)
    if not response.prepared:
        _secure(response)
    return response


def _secure(response: web.StreamResponse) -> None:
    headers = response.headers
    headers["Content-Security-Policy"] = CSP
    headers["X-Content-Type-Options"] = "nosniff"
    headers["Referrer-Policy"] = "no-referrer"  # a capability link never leaks onward
    headers["X-Frame-Options"] = "DENY"
    headers.setdefault("Cache-Control", "no-cache")


# ----- the game ---------------------------------------------------------------------


async def _game(request: web.Request) -> tuple[Site, GameState]:
    site = _site(request)
    game_id = site.links.game_of(request.match_info["token"])
    if game_id is None:
        raise web.HTTPNotFound()
    try:
        state = await site.states.state(game_id)
    except NotFound:
        raise web.HTTPNotFound() from None
    return site, state


def _step(request: web.Request, state: GameState) -> int:
    last = state.timeline.last if state.timeline else 0
    text = request.match_info.get("step")
    if text is None:
        return last
    if len(text) > 6 or not text.isdigit() or int(text) > last:
        raise web.HTTPNotFound()
    return int(text)


async def game_page(request: web.Request) -> web.Response:
    site, state = await _game(request)
    step = _step(request, state)
    view = state.view
    links = site.links
    base = links.game_path(view.id)
    steps = state.timeline.steps if state.timeline else ()
    shown = steps[step] if steps else None
    image = step_image(links, view.id, shown) if shown else None
    last_image = step_image(links, view.id, steps[-1]) if steps else None
    title = f"Game {view.id}: {view.variant_title}, {state.white} v {state.black}"
    report = await site.analysis(state)
    analysed: Summary | None = None
    if report is not None:
        analysed = summary(report, (state.white, state.black), len(steps) - 1)
    public = links.public_url or f"{request.scheme}://{request.host}"
    response = site.page(
        "game.html",
        view=view,
        state=state,
        title=title,
        base=base,
        step=step,
        shown=shown,
        image=image,
        turns=state.timeline.turns() if state.timeline else [],
        last=len(steps) - 1,
        live=not view.is_over and view.status != "challenge",
        og_image=public + last_image if last_image else None,
        og_url=public + base,
        data=json.dumps({"v": state.version}),
        verify_command=verify_command(view.id),
        analysis=analysed,
    )
    return response


def verify_command(game_id: int) -> str:
    return f"chessgarden verify-record game-{game_id}.txt"


async def board_image(request: web.Request) -> web.Response:
    site, state = await _game(request)
    if state.timeline is None:
        raise web.HTTPNotFound()
    step = _step(request, state)
    digest = state.timeline.steps[step].digest
    etag = f'"{digest}"'
    cache = IMMUTABLE if request.query.get("v") == digest else "no-cache"
    headers = {"ETag": etag, "Cache-Control": cache}
    if request.headers.get("If-None-Match") == etag:
        return web.Response(status=304, headers=headers)
    try:
        png = await site.states.image(state, step)
    except ServiceError:  # no renderer here
        raise web.HTTPNotFound() from None
    return web.Response(body=png, content_type="image/png", headers=headers)


async def analysis_graph(request: web.Request) -> web.Response:
    site, state = await _game(request)
    report = await site.analysis(state, graph=True)
    if report is None or report.image is None:
        raise web.HTTPNotFound()
    etag = f'"{report.digest[:16]}-{report.analysis.depth}"'
    cache = IMMUTABLE if request.query.get("v") == report.digest[:16] else "no-cache"
    headers = {"ETag": etag, "Cache-Control": cache}
    if request.headers.get("If-None-Match") == etag:
        return web.Response(status=304, headers=headers)
    return web.Response(body=report.image, content_type="image/png", headers=headers)


def record_text(state: GameState, record: str) -> str:
    """The record with the page's facts as tags (a replay ignores them): who played, the
    commitment, and once over the seed, the result and the log's chain head."""
    view = state.view
    tags = [("Game", str(view.id)), ("White", state.white), ("Black", state.black)]
    if view.commitment:
        tags.append(("Commitment", view.commitment))
    if view.seed:
        tags.append(("Seed", view.seed))
    if view.chain_head:
        tags.append(("Chain", view.chain_head))
    if state.result_line:
        tags.append(("Outcome", state.result_line))
    lines = record.split("\n")
    count = 0
    while count < len(lines) and lines[count].startswith("[") and lines[count].endswith('"]'):
        count += 1
    extra = [f'[{name} "{json.dumps(value, ensure_ascii=False)[1:-1]}"]' for name, value in tags]
    text = "\n".join([*lines[:count], *extra, *lines[count:]])
    return text if text.endswith("\n") else text + "\n"


async def record_download(request: web.Request) -> web.Response:
    site, state = await _game(request)
    if not state.started:
        raise web.HTTPNotFound()
    try:  # the whole log, read for the download alone
        record = (await site.service.history(game_id=state.view.id)).record
    except NotFound:
        raise web.HTTPNotFound() from None
    if not record:
        raise web.HTTPNotFound()
    return web.Response(
        text=record_text(state, record),
        content_type="text/plain",
        charset="utf-8",
        headers={"Content-Disposition": f'attachment; filename="game-{state.view.id}.txt"'},
    )


async def events(request: web.Request) -> web.StreamResponse:
    site, state = await _game(request)
    game_id = state.view.id
    address = request.remote or "?"
    try:
        channel = site.hub.join(game_id, address)
    except Busy as error:
        return web.Response(text=f"{error}\n", status=503, headers={"Retry-After": "30"})
    watcher: Watcher | None = None
    try:
        response = web.StreamResponse(
            headers={
                "Content-Type": "text/event-stream",
                "Cache-Control": "no-store",
                "X-Accel-Buffering": "no",
            }
        )
        _secure(response)
        await response.prepare(request)
        await response.write(b"retry: 3000\n\n")  # the headers go out with it
        # the hub's waves write this page's events straight to its connection when the
        # body is plainly chunked (HTTP/1.1, not compressed); else all go through here
        chunked = response.headers.get(hdrs.TRANSFER_ENCODING, "").lower() == "chunked"
        direct = chunked and not response.compression
        relay = site.hub.relay
        if direct and relay is not None and request.transport is not None:
            left = relay.watch(game_id, request.transport, channel.state())
            if left is not None:  # the relay writes this page's events from now on
                await _relayed(site, game_id, channel, request.transport, left)
                return response
        watcher = Watcher(request.transport, direct)
        channel.add(watcher)
        if channel.version == 0:
            site.hub.refresh(game_id)
        while not watcher.over:
            if watcher.seen != channel.version:  # its first event, or it fell behind
                payload = channel.payload_after(watcher.seen)
                watcher.seen = channel.version
                await _write(response, watcher, payload)
                if payload.startswith(OVER):
                    break
            elif watcher.ping:  # a keep-alive the waves could not write
                watcher.ping = False
                await _write(response, watcher, KEEP_ALIVE)
            else:
                await watcher.wait()
        return response
    except (ConnectionResetError, asyncio.CancelledError):
        raise
    finally:
        if watcher is not None:
            channel.remove(watcher)
        site.hub.leave(game_id, address, channel)


async def _relayed(
    site: Site, game_id: int, channel: Channel, transport: Any, left: asyncio.Future[None]
) -> None:
    """Wait while the relay writes the page; then close the bot's end of it without a
    byte more (the relay has ended the stream, or the browser has gone)."""
    if channel.version == 0:
        site.hub.refresh(game_id)
    try:
        await left
    finally:
        if not left.done():  # the bot stops: the page ends, its browser reconnects
            shut(transport)
        transport.abort()


async def _write(response: web.StreamResponse, watcher: Watcher, data: bytes) -> None:
    """A page's write through aiohttp, waiting for its connection to drain; the waves
    leave the page alone meanwhile."""
    watcher.busy = True
    try:
        await response.write(data)
    finally:
        watcher.busy = False


# ----- a server's live games ----------------------------------------------------------


async def live_list(request: web.Request) -> web.Response:
    site = _site(request)
    guild_id = site.links.guild_of(request.match_info["token"])
    if guild_id is None or not await site.is_listed(guild_id):
        raise web.HTTPNotFound()
    games = await site.service.list_games(guild_id=guild_id, statuses=("active",), limit=50)
    listed = await listed_games(site, guild_id, games)
    return site.page("list.html", games=listed)


async def listed_games(site: Site, guild_id: int, games: tuple[GameSummary, ...]) -> list[Any]:
    """The server's live games, the most recent move first (only its own: the service
    lists that server alone, and each game is checked again)."""
    rows = []
    for game in sorted(games, key=lambda g: g.updated_at, reverse=True):
        if game.guild_id != guild_id:
            continue
        try:
            state = await site.states.state(game.id)
        except ServiceError:
            continue
        rows.append({"state": state, "url": site.links.game_path(game.id)})
    return rows


async def static_file(request: web.Request) -> web.Response:
    site = _site(request)
    entry = site.static.get(request.match_info["name"])
    if entry is None:
        raise web.HTTPNotFound()
    data, kind, digest = entry
    cache = IMMUTABLE if request.query.get("v") == digest else "no-cache"
    return web.Response(
        body=data, content_type=kind, headers={"ETag": f'"{digest}"', "Cache-Control": cache}
    )


async def nothing(request: web.Request) -> web.Response:
    raise web.HTTPNotFound()


def create_app(site: Site) -> web.Application:
    app = web.Application(middlewares=[guard], client_max_size=1024)
    app[SITE] = site
    token = r"{token:[0-9a-z-]{1,64}}"
    app.router.add_get(f"/g/{token}", game_page)
    app.router.add_get(f"/g/{token}/{{step:[0-9]{{1,6}}}}", game_page)
    app.router.add_get(f"/g/{token}/board/{{step:[0-9]{{1,6}}}}.png", board_image)
    app.router.add_get(f"/g/{token}/record.txt", record_download)
    app.router.add_get(f"/g/{token}/analysis.png", analysis_graph)
    app.router.add_get(f"/g/{token}/events", events)
    app.router.add_get(f"/s/{token}", live_list)
    app.router.add_get("/static/{name}", static_file)
    app.router.add_route("*", "/{tail:.*}", nothing)
    return app


class WebServer:
    """The pages served beside a running service: ``await start()`` / ``await stop()``.
    It hooks the service's commits (``add_row_listener``) for the live pages."""

    def __init__(self, site: Site, host: str, port: int, *, relay: bool = True) -> None:
        self.site = site
        self.host = host
        self.port = port
        # the live pages are written by another process where it can run (``bot.web.relay``)
        self.relay = relay and RELAY_AVAILABLE
        self._runner: web.AppRunner | None = None

    async def start(self) -> None:
        self.site.service.add_row_listener(self.site.hub.row_committed)
        self.site.hub.start()
        if self.relay:
            self.site.hub.relay = Relay(keep_alive_s=self.site.hub.keep_alive_s)
        runner = web.AppRunner(
            create_app(self.site), access_log=None, handle_signals=False, shutdown_timeout=1.0
        )
        await runner.setup()
        try:
            tcp = web.TCPSite(runner, self.host, self.port)
            await tcp.start()
        except BaseException:
            await runner.cleanup()
            raise
        self._runner = runner
        if self.port == 0 and runner.addresses:
            self.port = int(runner.addresses[0][1])
        log.info("web pages on http://%s:%s", self.host, self.port)

    async def stop(self) -> None:
        if current_links() is self.site.links:  # no more "Watch" links to pages not served
            configure(None)
        await self.site.hub.stop()
        relay, self.site.hub.relay = self.site.hub.relay, None
        if relay is not None:
            await relay.close()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
