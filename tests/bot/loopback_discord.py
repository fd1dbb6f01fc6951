"""A fake Discord on 127.0.0.1 that a REAL ``chessgarden run`` subprocess talks to.

The in-process harness (``harness.py``) replaces discord.py's two network edges; this one
leaves discord.py whole and answers it over real sockets: REST under ``/api/v10`` and the
gateway websocket under ``/gateway``, from an aiohttp server in its own thread. The bot
is pointed at it by ``run_bot_loopback.py`` (it sets ``discord.http.Route.BASE`` and
discord.py's default gateway URL, then calls ``bot.cli.main(["run", ...])``); product
code has no test hook.

    fake = LoopbackDiscord().start()
    proc = fake.spawn_bot(db_path, log_path)            # the real subprocess
    fake.wait_for(lambda: fake.identified)             # IDENTIFY came in
    fake.fault("POST /channels/{channel_id}/messages", "503", count=2)
    ...
    fake.requests(); fake.messages(channel_id)
    fake.release(); fake.stop()

What it answers (the way Discord does, for what the bot uses):

- ``GET /users/@me`` and ``GET /oauth2/applications/@me`` (login), ``GET /gateway`` and
  ``GET /gateway/bot`` (a ``ws://`` URL on the same server), the command syncs (``PUT
  .../commands``, echoed with ids);
- ``POST /channels/{id}/messages`` as JSON or multipart (``payload_json`` plus
  ``files[n]``), ``GET``/``PATCH``/``DELETE`` of a message, ``GET``/``PATCH``/``DELETE
  /channels/{id}`` (a thread's archive and lock), ``POST /channels/{id}/threads``;
- a message's ``nonce`` with ``enforce_nonce``: a POST with a nonce used in that channel
  within ``nonce_window`` seconds returns the ORIGINAL message (same id), nothing new;
- anything else: recorded, and 404 with Discord's error body ``{"message", "code"}``;
- every request must carry ``Authorization: Bot <token>`` (else 401, as Discord).

Faults (``fault(route, kind, count)``) answer the next ``count`` matching requests with
``kind``: ``500``, ``502``, ``503``; ``429`` (per-route) and ``429-global`` with Discord's
body and headers (``retry_after``, ``Retry-After``, ``X-RateLimit-*``, ``Via``);
``403-50013`` (Missing Permissions), ``403-50001`` (Missing Access), ``404-10003``
(Unknown Channel); ``hang`` (no answer until ``release()``, then handled as usual);
``reset`` (the connection is reset, no answer); ``apply-hang`` (the request takes effect,
then no answer until ``release()``: the unknown outcome). A route is a template as in
``ROUTES`` (``"POST /channels/{channel_id}/messages"``), a glob on the concrete request
(``"POST /channels/123/*"``) or ``"*"``. Faults can also be set over HTTP (``POST
/_fake/fault`` with ``{"route", "kind", "count"}``, ``POST /_fake/release``) by a process
that does not hold the object.

The gateway speaks v10 in plain JSON text frames: HELLO, heartbeat ACKs, READY (the bot's
user, its application, the guild as unavailable) then GUILD_CREATE (one guild, a text
channel ``chess``, the bot's role with the five permissions of the invite), RESUMED for a
RESUME. discord.py asks for ``zlib-stream`` or ``zstd-stream`` transport compression in
the URL but decompresses only binary frames (``DiscordWebSocket.received_message``), so
text frames need no compression. ``dispatch(event, data)`` sends any event later.
"""

from __future__ import annotations

import asyncio
import fnmatch
import itertools
import json
import math
import os
import socket
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aiohttp import WSMsgType, web
from discord_payloads import (
    channel_payload,
    guild_payload,
    iso_now,
    member_payload,
    message_problems,
    role_payload,
    snowflake,
    thread_payload,
    user_payload,
)

API = "/api/v10"
TOKEN = "loopback-token"
NONCE_WINDOW_S = 300.0  # Discord: "checked for uniqueness in the past few minutes"
HEARTBEAT_MS = 41250
LAUNCHER = Path(__file__).with_name("run_bot_loopback.py")
REPO = Path(__file__).resolve().parents[2]

# The invite's five (docs/discord.md) plus viewing the channel; @everyone as on a server.
VIEW, SEND, EMBED, ATTACH, HISTORY = 1 << 10, 1 << 11, 1 << 14, 1 << 15, 1 << 16
PUBLIC_THREADS, SEND_IN_THREADS, APP_COMMANDS = 1 << 35, 1 << 38, 1 << 31
EVERYONE_PERMS = VIEW | SEND | HISTORY | APP_COMMANDS | EMBED | ATTACH
BOT_PERMS = SEND | EMBED | ATTACH | PUBLIC_THREADS | SEND_IN_THREADS

FAULT_KINDS = (
    "500", "502", "503", "429", "429-global", "403-50013", "403-50001", "404-10003",
    "hang", "reset", "apply-hang",
)  # fmt: skip
ERRORS = {
    "403-50013": (403, 50013, "Missing Permissions"),
    "403-50001": (403, 50001, "Missing Access"),
    "404-10003": (404, 10003, "Unknown Channel"),
    "500": (500, 0, "500: Internal Server Error"),
    "502": (502, 0, "502: Bad Gateway"),
    "503": (503, 0, "503: Service Unavailable"),
}


@dataclass
class Request:
    """One request as the fake received it."""

    method: str
    path: str  # after /api/v10, without the query
    route: str | None  # the template it matched, e.g. 'POST /channels/{channel_id}/messages'
    values: dict[str, str]
    query: dict[str, str]
    body: dict[str, Any] | list[Any] | None  # the JSON body, or multipart's payload_json
    files: list[str]
    at: float  # time.time()
    status: int | None = None  # what it was answered (None: not answered, e.g. hung)
    fault: str | None = None  # the fault kind that answered it

    @property
    def nonce(self) -> str | None:
        if isinstance(self.body, dict) and self.body.get("nonce") is not None:
            return str(self.body["nonce"])
        return None

    @property
    def line(self) -> str:
        return f"{self.method} {self.path}"


@dataclass
class Message:
    """A message as channel readers see it."""

    id: int
    channel_id: int
    payload: dict[str, Any]
    nonce: str | None
    created_at: float  # time.time()
    edits: int = 0
    deleted: bool = False

    @property
    def content(self) -> str:
        return str(self.payload.get("content") or "")

    @property
    def files(self) -> list[str]:
        return [a["filename"] for a in self.payload.get("attachments") or []]

    @property
    def text(self) -> str:
        parts = [self.content]
        for embed in self.payload.get("embeds") or []:
            parts += [embed.get("title") or "", embed.get("description") or ""]
            parts += [f"{f['name']}: {f['value']}" for f in embed.get("fields") or []]
        return "\n".join(p for p in parts if p)


@dataclass
class Fault:
    route: str
    kind: str
    count: int
    retry_after: float
    used: int = 0

    def matches(self, request: Request) -> bool:
        if self.used >= self.count:
            return False
        if self.route in ("*", request.route):
            return True
        return fnmatch.fnmatchcase(request.line, self.route)


class Refused(Exception):
    def __init__(self, status: int, code: int, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


Handler = Callable[["LoopbackDiscord", Request], Any]


class LoopbackDiscord:
    """The fake; see the module. Its state is read and changed under ``self.lock``."""

    def __init__(self, *, token: str = TOKEN, nonce_window: float = NONCE_WINDOW_S) -> None:
        self.token = token
        self.nonce_window = nonce_window
        self.bot_id = snowflake()
        self.application_id = snowflake()
        self.guild_id = snowflake()
        self.owner_id = snowflake()
        self.bot_role = snowflake()
        self.channel_id = snowflake()  # the text channel 'chess'
        self.lock = threading.Lock()
        self.channels: dict[int, dict[str, Any]] = {
            self.channel_id: channel_payload(self.channel_id, self.guild_id, "chess", 0)
        }
        self.threads: dict[int, dict[str, Any]] = {}
        self._requests: list[Request] = []
        self._messages: dict[int, Message] = {}
        self._nonces: dict[tuple[int, str], int] = {}
        self._faults: list[Fault] = []
        self.identifies: list[dict[str, Any]] = []  # IDENTIFY payloads (token masked)
        self.gateway_urls: list[str] = []  # the URL of each websocket (query: compression)
        self.heartbeats = 0
        self._sessions: list[web.WebSocketResponse] = []
        self._seq = itertools.count(1)
        self._held: list[asyncio.Event] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._runner: web.AppRunner | None = None
        self.port = 0

    # ----- life ----------------------------------------------------------------------

    def start(self) -> LoopbackDiscord:
        """Serve on 127.0.0.1 (a free port) from a thread with its own event loop."""
        ready = threading.Event()
        failure: list[BaseException] = []

        def serve() -> None:
            loop = asyncio.new_event_loop()
            self._loop = loop
            try:
                loop.run_until_complete(self._open())
            except BaseException as error:  # reported to start()
                failure.append(error)
                ready.set()
                return
            ready.set()
            loop.run_forever()
            loop.run_until_complete(self._close())
            loop.close()

        self._thread = threading.Thread(target=serve, name="loopback-discord", daemon=True)
        self._thread.start()
        ready.wait(10)
        if failure:
            raise failure[0]
        return self

    async def _open(self) -> None:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_get("/gateway", self._gateway)
        app.router.add_post("/_fake/fault", self._control_fault)
        app.router.add_post("/_fake/release", self._control_release)
        app.router.add_route("*", API + "/{tail:.*}", self._rest)
        app.router.add_route("*", "/{tail:.*}", self._elsewhere)
        self._runner = web.AppRunner(app, handle_signals=False, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        server = site._server
        assert server is not None
        self.port = server.sockets[0].getsockname()[1]  # type: ignore[union-attr]

    async def _close(self) -> None:
        for event in self._held:
            event.set()
        for ws in list(self._sessions):
            await ws.close(code=1001)
        if self._runner is not None:
            await self._runner.cleanup()

    def stop(self) -> None:
        loop, thread = self._loop, self._thread
        if loop is None or thread is None:
            return
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        self._loop = self._thread = None

    def __enter__(self) -> LoopbackDiscord:
        return self.start()

    def __exit__(self, *_: object) -> None:
        self.stop()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def api_url(self) -> str:
        return self.url + API

    @property
    def gateway_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/gateway"

    # ----- the test's API ------------------------------------------------------------

    def requests(self, route: str | None = None) -> list[Request]:
        """Every request so far (those matching ``route``: a template, glob or '*')."""
        with self.lock:
            found = list(self._requests)
        if route is None:
            return found
        probe = Fault(route, "", 1, 0)
        return [r for r in found if probe.matches(r)]

    def messages(self, channel_id: int | None = None) -> list[Message]:
        """Every message created (deleted ones too, marked), oldest first."""
        with self.lock:
            found = list(self._messages.values())
        return [m for m in found if channel_id is None or m.channel_id == channel_id]

    def fault(self, route: str, kind: str, count: int = 1, *, retry_after: float = 0.5) -> Fault:
        """Answer the next ``count`` requests matching ``route`` with ``kind`` (module doc)."""
        if kind not in FAULT_KINDS:
            raise ValueError(f"unknown fault {kind!r}; one of {', '.join(FAULT_KINDS)}")
        rule = Fault(route, kind, count, retry_after)
        with self.lock:
            self._faults.append(rule)
        return rule

    def clear_faults(self) -> None:
        with self.lock:
            self._faults.clear()

    def release(self) -> int:
        """Let every held request ('hang', 'apply-hang') go on; how many were held."""
        loop = self._loop
        with self.lock:
            held, self._held = self._held, []
        if loop is not None:
            for event in held:
                loop.call_soon_threadsafe(event.set)
        return len(held)

    @property
    def held(self) -> int:
        with self.lock:
            return len(self._held)

    @property
    def identified(self) -> bool:
        with self.lock:
            return bool(self.identifies)

    def add_thread(self, name: str = "game", *, parent_id: int | None = None) -> int:
        """A thread the bot made earlier (in GUILD_CREATE if added before IDENTIFY)."""
        thread_id = snowflake()
        data = thread_payload(
            thread_id, self.guild_id, parent_id or self.channel_id, self.bot_id, name
        )
        with self.lock:
            self.threads[thread_id] = data
        return thread_id

    def dispatch(self, event: str, data: dict[str, Any]) -> None:
        """Send a gateway event (e.g. INTERACTION_CREATE) to every open session."""
        loop = self._loop
        assert loop is not None, "the fake is not running"
        asyncio.run_coroutine_threadsafe(self._dispatch(event, data), loop).result(5)

    def wait_for(self, check: Callable[[], object], timeout: float = 20.0) -> Any:
        """Poll ``check`` until it returns something true; that value (or AssertionError)."""
        end = time.monotonic() + timeout
        while True:
            value = check()
            if value:
                return value
            if time.monotonic() > end:
                raise AssertionError(f"timed out after {timeout} s waiting for {check}")
            time.sleep(0.02)

    def bot_env(self, db: str, **extra: str) -> dict[str, str]:
        """The environment of a bot subprocess against this fake."""
        env = {k: v for k, v in os.environ.items() if not k.startswith("CHESSGARDEN_")}
        env.pop("DISCORD_TOKEN", None)
        env.update(
            DISCORD_TOKEN=self.token,
            CHESSGARDEN_DB=db,
            LOOPBACK_DISCORD_URL=self.url,
            PYTHONPATH=os.pathsep.join([str(REPO), env.get("PYTHONPATH", "")]).rstrip(os.pathsep),
            PYTHONUNBUFFERED="1",
        )
        env.update(extra)
        return env

    def spawn_bot(
        self, db: str, log: Path, *args: str, env: dict[str, str] | None = None
    ) -> subprocess.Popen[bytes]:
        """``chessgarden run`` as a real subprocess against this fake; its output in ``log``."""
        with open(log, "wb") as out:
            return subprocess.Popen(
                [sys.executable, str(LAUNCHER), *args],
                env=self.bot_env(db, **(env or {})),
                stdout=out,
                stderr=subprocess.STDOUT,
                cwd=str(REPO),
            )

    # ----- REST ----------------------------------------------------------------------

    async def _rest(self, http: web.Request) -> web.StreamResponse:
        path = "/" + http.match_info["tail"]
        body, files = await _read_body(http)
        route, values, handler = _match(http.method, path)
        request = Request(
            http.method, path, route, values, dict(http.query), body, files, time.time()
        )
        with self.lock:
            self._requests.append(request)
            fault = next((f for f in self._faults if f.matches(request)), None)
            if fault is not None:
                fault.used += 1
                request.fault = fault.kind
        try:
            if http.headers.get("Authorization") != f"Bot {self.token}":
                raise Refused(401, 0, "401: Unauthorized")
            if fault is not None and fault.kind == "reset":
                return _reset(http, request)
            if fault is not None and fault.kind == "hang":
                await self._hold()
            elif fault is not None and fault.kind in ERRORS:
                raise Refused(*ERRORS[fault.kind])
            elif fault is not None and fault.kind.startswith("429"):
                return _rate_limited(request, fault)
            if handler is None:
                raise Refused(404, 0, "404: Not Found")
            with self.lock:
                answer = handler(self, request)
            if fault is not None and fault.kind == "apply-hang":
                await self._hold()
        except Refused as refused:
            request.status = refused.status
            return _json({"message": refused.message, "code": refused.code}, status=refused.status)
        if answer is None:
            request.status = 204
            return web.Response(status=204)
        request.status = 200
        return _json(answer)

    async def _hold(self) -> None:
        event = asyncio.Event()
        with self.lock:
            self._held.append(event)
        await event.wait()

    async def _elsewhere(self, http: web.Request) -> web.Response:
        with self.lock:
            self._requests.append(
                Request(http.method, http.path, None, {}, dict(http.query), None, [], time.time())
            )
            self._requests[-1].status = 404
        return _json({"message": "404: Not Found", "code": 0}, status=404)

    async def _control_fault(self, http: web.Request) -> web.Response:
        data = await http.json()
        try:
            self.fault(
                str(data["route"]),
                str(data["kind"]),
                int(data.get("count", 1)),
                retry_after=float(data.get("retry_after", 0.5)),
            )
        except (KeyError, ValueError) as error:
            return _json({"error": str(error)}, status=400)
        return _json({"ok": True})

    async def _control_release(self, http: web.Request) -> web.Response:
        return _json({"released": self.release()})

    # ----- state (called under self.lock by the handlers) ----------------------------

    def known_channel(self, channel_id: int) -> dict[str, Any]:
        data = self.threads.get(channel_id) or self.channels.get(channel_id)
        if data is None:
            raise Refused(404, 10003, "Unknown Channel")
        return data

    def create_message(
        self, channel_id: int, data: dict[str, Any], files: list[str], nonce: str | None
    ) -> Message:
        message_id = snowflake()
        payload: dict[str, Any] = {
            "id": str(message_id),
            "channel_id": str(channel_id),
            "guild_id": str(self.guild_id),
            "author": user_payload(self.bot_id, "chessgarden", bot=True),
            "content": data.get("content") or "",
            "timestamp": iso_now(),
            "edited_timestamp": None,
            "tts": False,
            "mention_everyone": False,
            "mentions": [],
            "mention_roles": [],
            "attachments": [_attachment(name) for name in files],
            "embeds": list(data.get("embeds") or []),
            "pinned": False,
            "type": 0,
            "flags": int(data.get("flags") or 0),
            "components": list(data.get("components") or []),
        }
        if nonce is not None:
            payload["nonce"] = nonce
        message = Message(message_id, channel_id, payload, nonce, time.time())
        self._messages[message_id] = message
        return message

    def message_in(self, channel_id: int, message_id: int) -> Message:
        message = self._messages.get(message_id)
        if message is None or message.deleted or message.channel_id != channel_id:
            raise Refused(404, 10008, "Unknown Message")
        return message

    # ----- the gateway ---------------------------------------------------------------

    async def _gateway(self, http: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(max_msg_size=0)
        await ws.prepare(http)
        with self.lock:
            self.gateway_urls.append(str(http.rel_url))
            self._sessions.append(ws)
        await _send(ws, {"op": 10, "d": {"heartbeat_interval": HEARTBEAT_MS}})
        try:
            async for frame in ws:
                if frame.type != WSMsgType.TEXT:
                    continue
                message = json.loads(frame.data)
                op, data = message.get("op"), message.get("d")
                if op == 1:
                    with self.lock:
                        self.heartbeats += 1
                    await _send(ws, {"op": 11})
                elif op == 2:
                    await self._identify(ws, data)
                elif op == 6:
                    await self._event(ws, "RESUMED", {})
        finally:
            with self.lock:
                if ws in self._sessions:
                    self._sessions.remove(ws)
        return ws

    async def _identify(self, ws: web.WebSocketResponse, data: dict[str, Any]) -> None:
        if data.get("token") != self.token:
            await ws.close(code=4004, message=b"Authentication failed.")
            return
        shown = dict(data, token="***")
        with self.lock:
            self.identifies.append(shown)
            threads = [dict(t) for t in self.threads.values()]
            channels = [dict(c) for c in self.channels.values()]
        ready: dict[str, Any] = {
            "v": 10,
            "user": user_payload(self.bot_id, "chessgarden", bot=True),
            "guilds": [{"id": str(self.guild_id), "unavailable": True}],
            "session_id": f"loopback-{snowflake()}",
            "resume_gateway_url": self.gateway_url,
            "application": {"id": str(self.application_id), "flags": 0},
            "private_channels": [],
            "relationships": [],
        }
        if data.get("shard") is not None:
            ready["shard"] = data["shard"]
        await self._event(ws, "READY", ready)
        bot_user = user_payload(self.bot_id, "chessgarden", bot=True)
        guild = guild_payload(
            self.guild_id,
            "Loopback",
            roles=[
                role_payload(self.guild_id, "@everyone", EVERYONE_PERMS, 0),
                role_payload(self.bot_role, "Chess Garden", BOT_PERMS, 1),
            ],
            channels=channels,
            threads=threads,
            members=[member_payload(bot_user, [self.bot_role])],
            owner_id=self.owner_id,
        )
        await self._event(ws, "GUILD_CREATE", guild)

    async def _event(self, ws: web.WebSocketResponse, event: str, data: dict[str, Any]) -> None:
        await _send(ws, {"op": 0, "t": event, "s": next(self._seq), "d": data})

    async def _dispatch(self, event: str, data: dict[str, Any]) -> None:
        for ws in list(self._sessions):
            await self._event(ws, event, data)

    def gateway_dispatch_soon(self, event: str, data: dict[str, Any]) -> None:
        """From a REST handler (in the fake's loop): send an event after the answer."""
        loop = self._loop
        if loop is not None and self._sessions:
            loop.create_task(self._dispatch(event, data))


# ----- helpers -----------------------------------------------------------------------------


def _json(data: Any, *, status: int = 200, headers: dict[str, str] | None = None) -> web.Response:
    """A JSON answer with Content-Type exactly ``application/json``, as Discord sends it
    (discord.py parses a body as JSON only then; aiohttp's default adds a charset)."""
    return web.Response(
        body=json.dumps(data).encode(),
        status=status,
        headers={**(headers or {}), "Content-Type": "application/json"},
    )


async def _send(ws: web.WebSocketResponse, payload: dict[str, Any]) -> None:
    payload.setdefault("s", None)
    payload.setdefault("t", None)
    payload.setdefault("d", None)
    await ws.send_str(json.dumps(payload))


async def _read_body(http: web.Request) -> tuple[Any, list[str]]:
    """The JSON body, or multipart's ``payload_json`` and the names of its files."""
    if not http.can_read_body:
        return None, []
    kind = http.content_type
    if kind.startswith("multipart/"):
        body: Any = None
        files: list[str] = []
        reader = await http.multipart()
        async for part in reader:
            if part.name == "payload_json":  # type: ignore[union-attr]
                body = json.loads(await part.text())  # type: ignore[union-attr]
            else:
                await part.read()  # type: ignore[union-attr]
                files.append(part.filename or str(part.name))  # type: ignore[union-attr]
        return body, files
    raw = await http.read()
    if not raw:
        return None, []
    try:
        return json.loads(raw), []
    except ValueError:
        return {"raw": raw.decode("utf-8", "replace")}, []


def _attachment(name: str) -> dict[str, Any]:
    return {
        "id": str(snowflake()),
        "filename": name,
        "size": 1000,
        "url": f"http://127.0.0.1/attachments/{name}",
        "proxy_url": f"http://127.0.0.1/attachments/{name}",
    }


def _rate_limited(request: Request, fault: Fault) -> web.Response:
    """A 429 the way Discord sends it: the body's retry_after (seconds, float) decides;
    ``Via`` tells discord.py that it is not a Cloudflare ban."""
    scope = "global" if fault.kind == "429-global" else "user"
    request.status = 429
    headers = {
        "Retry-After": str(max(1, math.ceil(fault.retry_after))),
        "X-RateLimit-Limit": "5",
        "X-RateLimit-Remaining": "0",
        "X-RateLimit-Reset": f"{time.time() + fault.retry_after:.3f}",
        "X-RateLimit-Reset-After": f"{fault.retry_after:.3f}",
        "X-RateLimit-Bucket": "loopback-" + (request.route or request.path).replace(" ", "_"),
        "X-RateLimit-Scope": scope,
        "Via": "1.1 google",
    }
    if scope == "global":
        headers["X-RateLimit-Global"] = "true"
    body = {
        "message": "You are being rate limited.",
        "retry_after": fault.retry_after,
        "global": scope == "global",
        "code": 0,
    }
    return _json(body, status=429, headers=headers)


def _reset(http: web.Request, request: Request) -> web.Response:
    """Reset the connection (RST, not FIN): no answer ever comes."""
    transport = http.transport
    if transport is not None:
        sock = transport.get_extra_info("socket")
        if sock is not None:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        transport.abort()
    request.status = None
    raise asyncio.CancelledError  # aiohttp drops the handler; nothing is written


def _match(method: str, path: str) -> tuple[str | None, dict[str, str], Handler | None]:
    parts = path.strip("/").split("/")
    for template, handler in ROUTES.items():
        verb, pattern = template.split(" ", 1)
        names = pattern.strip("/").split("/")
        if verb != method or len(names) != len(parts):
            continue
        values: dict[str, str] = {}
        for name, part in zip(names, parts, strict=True):
            if name.startswith("{"):
                values[name[1:-1]] = part
            elif name != part:
                break
        else:
            return template, values, handler
    return None, {}, None


def _channel_id(request: Request) -> int:
    try:
        return int(request.values["channel_id"])
    except ValueError:
        raise Refused(404, 10003, "Unknown Channel") from None


def _message_body(request: Request) -> dict[str, Any]:
    body = request.body if isinstance(request.body, dict) else {}
    problems = message_problems(body, request.files, new=request.method == "POST")
    if problems:
        raise Refused(400, 50035, "Invalid Form Body: " + "; ".join(problems))
    return body


# ----- routes (called under the fake's lock) -----------------------------------------------


def _me(fake: LoopbackDiscord, request: Request) -> Any:
    return user_payload(fake.bot_id, "chessgarden", bot=True)


def _application(fake: LoopbackDiscord, request: Request) -> Any:
    return {
        "id": str(fake.application_id),
        "name": "Chess Garden",
        "icon": None,
        "description": "",
        "rpc_origins": [],
        "bot_public": True,
        "bot_require_code_grant": False,
        "owner": user_payload(fake.owner_id, "owner"),
        "summary": "",
        "verify_key": "0" * 64,
        "flags": 0,
        "interactions_endpoint_url": None,
    }


def _gateway_url(fake: LoopbackDiscord, request: Request) -> Any:
    answer: dict[str, Any] = {"url": fake.gateway_url}
    if request.path.endswith("/bot"):
        answer["shards"] = 1
        answer["session_start_limit"] = {
            "total": 1000,
            "remaining": 1000,
            "reset_after": 0,
            "max_concurrency": 1,
        }
    return answer


def _sync_commands(fake: LoopbackDiscord, request: Request) -> Any:
    commands = request.body if isinstance(request.body, list) else []
    return [
        dict(c, id=str(snowflake()), application_id=str(fake.application_id), version="1")
        for c in commands
    ]


def _no_commands(fake: LoopbackDiscord, request: Request) -> Any:
    return []


def _post_message(fake: LoopbackDiscord, request: Request) -> Any:
    channel_id = _channel_id(request)
    fake.known_channel(channel_id)
    data = _message_body(request)
    nonce = request.nonce
    if nonce is not None and data.get("enforce_nonce"):
        earlier = fake._nonces.get((channel_id, nonce))
        original = fake._messages.get(earlier) if earlier is not None else None
        if original is not None and time.time() - original.created_at <= fake.nonce_window:
            return original.payload  # Discord answers with the message the nonce made
    message = fake.create_message(channel_id, data, request.files, nonce)
    if nonce is not None:
        fake._nonces[(channel_id, nonce)] = message.id
    return message.payload


def _message(fake: LoopbackDiscord, request: Request) -> Any:
    channel_id = _channel_id(request)
    fake.known_channel(channel_id)
    message = fake.message_in(channel_id, int(request.values["message_id"]))
    if request.method == "GET":
        return message.payload
    if request.method == "DELETE":
        message.deleted = True
        return None
    data = _message_body(request)
    for key in ("content", "embeds", "components", "flags"):
        if key in data:
            message.payload[key] = data[key] if data[key] is not None else ""
    if "attachments" in data or request.files:
        kept = {str(a.get("id")) for a in data.get("attachments") or [] if "id" in a}
        old = [a for a in message.payload["attachments"] if str(a["id"]) in kept]
        message.payload["attachments"] = old + [_attachment(n) for n in request.files]
    message.payload["edited_timestamp"] = iso_now()
    message.edits += 1
    return message.payload


def _channel(fake: LoopbackDiscord, request: Request) -> Any:
    channel_id = _channel_id(request)
    data = fake.known_channel(channel_id)
    if request.method == "GET":
        return data
    if channel_id not in fake.threads:
        raise Refused(403, 50013, "Missing Permissions")  # the bot edits only its threads
    if request.method == "DELETE":
        del fake.threads[channel_id]
        return data
    body = request.body if isinstance(request.body, dict) else {}
    meta = data["thread_metadata"]
    if meta["archived"] and body.get("archived") is not False:
        raise Refused(400, 50083, "Thread is archived")
    for key in ("archived", "locked", "auto_archive_duration"):
        if key in body:
            meta[key] = body[key]
    if "name" in body:
        data["name"] = body["name"]
    fake.gateway_dispatch_soon("THREAD_UPDATE", dict(data))
    return data


def _create_thread(fake: LoopbackDiscord, request: Request) -> Any:
    parent_id = _channel_id(request)
    if parent_id not in fake.channels:
        raise Refused(404, 10003, "Unknown Channel")
    body = request.body if isinstance(request.body, dict) else {}
    thread_id = snowflake()
    data = thread_payload(
        thread_id,
        fake.guild_id,
        parent_id,
        fake.bot_id,
        str(body.get("name") or "thread"),
        kind=int(body.get("type") or 11),
        auto_archive_duration=int(body.get("auto_archive_duration") or 1440),
    )
    fake.threads[thread_id] = data
    fake.gateway_dispatch_soon("THREAD_CREATE", {**data, "newly_created": True})
    return data


ROUTES: dict[str, Handler] = {
    "GET /users/@me": _me,
    "GET /oauth2/applications/@me": _application,
    "GET /applications/@me": _application,
    "GET /gateway": _gateway_url,
    "GET /gateway/bot": _gateway_url,
    "PUT /applications/{application_id}/commands": _sync_commands,
    "PUT /applications/{application_id}/guilds/{guild_id}/commands": _sync_commands,
    "GET /applications/{application_id}/commands": _no_commands,
    "GET /applications/{application_id}/guilds/{guild_id}/commands": _no_commands,
    "POST /channels/{channel_id}/messages": _post_message,
    "GET /channels/{channel_id}/messages/{message_id}": _message,
    "PATCH /channels/{channel_id}/messages/{message_id}": _message,
    "DELETE /channels/{channel_id}/messages/{message_id}": _message,
    "GET /channels/{channel_id}": _channel,
    "PATCH /channels/{channel_id}": _channel,
    "DELETE /channels/{channel_id}": _channel,
    "POST /channels/{channel_id}/threads": _create_thread,
}


def run_forever() -> None:
    """``python loopback_discord.py``: serve until interrupted, printing the URL (by hand)."""
    fake = LoopbackDiscord().start()
    print(f"loopback Discord at {fake.url} (token {fake.token!r}, channel {fake.channel_id})")
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        fake.stop()


if __name__ == "__main__":
    run_forever()
