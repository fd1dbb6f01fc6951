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
    play = fake.command(user_id, "play", {"variant": ..., "computer": 1})
    fake.requests(); fake.messages(channel_id); fake.interaction_messages(play)
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
- interactions: ``command(user_id, name, options)`` sends a slash command's
  INTERACTION_CREATE over the gateway; its callback (``POST /interactions/{id}/{token}/
  callback``, types 4 to 9), follow-ups (``POST /webhooks/{app}/{token}``) and the
  ``@original`` and follow-up messages (GET, PATCH, DELETE) are answered and recorded
  (``Interaction.response``, ``interaction_messages``);
- anything else: recorded, and 404 with Discord's error body ``{"message", "code"}``;
- every bot-token request must carry ``Authorization: Bot <token>`` (else 401, as Discord).

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
import itertools
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from aiohttp import WSMsgType, web
from discord_payloads import (
    channel_payload,
    guild_payload,
    member_payload,
    role_payload,
    snowflake,
    thread_payload,
    user_payload,
)
from loopback_routes import (
    EPHEMERAL,
    ERRORS,
    FAULT_KINDS,
    Fault,
    Interaction,
    Message,
    Refused,
    Request,
    answer_json,
    command_payload,
    match_route,
    message_payload,
    rate_limited,
    read_body,
    reset_connection,
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
        self._interactions: dict[str, Interaction] = {}  # by token
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

    def command(
        self,
        user_id: int,
        name: str,
        options: dict[str, str | int | bool] | None = None,
        *,
        channel_id: int | None = None,
    ) -> Interaction:
        """A slash command ``/name`` by ``user_id`` (a member with @everyone's permissions)
        in the text channel (or ``channel_id``), sent over the gateway as Discord does:
        INTERACTION_CREATE. Options are strings, integers or booleans."""
        interaction_id = snowflake()
        channel_id = channel_id or self.channel_id
        with self.lock:
            channel = dict(self.known_channel(channel_id))
        state = Interaction(interaction_id, f"token-{interaction_id}", channel_id, user_id, name)
        payload = command_payload(
            state,
            self.application_id,
            self.guild_id,
            channel,
            member_payload(
                user_payload(user_id, f"user{user_id % 1000}"), [], permissions=EVERYONE_PERMS
            ),
            str(BOT_PERMS | EVERYONE_PERMS),
            options or {},
        )
        with self.lock:
            self._interactions[state.token] = state
        self.dispatch("INTERACTION_CREATE", payload)
        return state

    def interaction_messages(self, interaction: Interaction) -> list[Message]:
        with self.lock:
            return [self._messages[m] for m in interaction.messages]

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
        body, files = await read_body(http)
        route, values, handler = match_route(http.method, path)
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
            interaction = path.startswith(("/interactions/", "/webhooks/"))  # their own token
            if not interaction and http.headers.get("Authorization") != f"Bot {self.token}":
                raise Refused(401, 0, "401: Unauthorized")
            if fault is not None and fault.kind == "reset":
                return reset_connection(http, request)
            if fault is not None and fault.kind == "hang":
                await self._hold()
            elif fault is not None and fault.kind in ERRORS:
                raise Refused(*ERRORS[fault.kind])
            elif fault is not None and fault.kind.startswith("429"):
                return rate_limited(request, fault)
            if handler is None:
                raise Refused(404, 0, "404: Not Found")
            with self.lock:
                answer = handler(self, request)
            if fault is not None and fault.kind == "apply-hang":
                await self._hold()
        except Refused as refused:
            request.status = refused.status
            return answer_json(
                {"message": refused.message, "code": refused.code}, status=refused.status
            )
        if answer is None:
            request.status = 204
            return web.Response(status=204)
        request.status = 200
        return answer_json(answer)

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
        return answer_json({"message": "404: Not Found", "code": 0}, status=404)

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
            return answer_json({"error": str(error)}, status=400)
        return answer_json({"ok": True})

    async def _control_release(self, http: web.Request) -> web.Response:
        return answer_json({"released": self.release()})

    # ----- state (called under self.lock by the handlers) ----------------------------

    def known_channel(self, channel_id: int) -> dict[str, Any]:
        data = self.threads.get(channel_id) or self.channels.get(channel_id)
        if data is None:
            raise Refused(404, 10003, "Unknown Channel")
        return data

    def create_message(
        self,
        channel_id: int,
        data: dict[str, Any],
        files: list[str],
        nonce: str | None,
        interaction: Interaction | None = None,
    ) -> Message:
        message_id = snowflake()
        author = user_payload(self.bot_id, "chessgarden", bot=True)
        payload = message_payload(message_id, channel_id, self.guild_id, author, data, files)
        if nonce is not None:
            payload["nonce"] = nonce
        message = Message(message_id, channel_id, payload, nonce, time.time())
        if interaction is not None:
            payload["webhook_id"] = payload["application_id"] = str(self.application_id)
            payload["type"] = 20
            message.interaction_id = interaction.id
            message.ephemeral = bool(payload["flags"] & EPHEMERAL)
            interaction.messages.append(message_id)
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
        shard = data.get("shard")  # [id, count]: the guild is on shard (id >> 22) % count
        ours = shard is None or (self.guild_id >> 22) % int(shard[1]) == int(shard[0])
        ready: dict[str, Any] = {
            "v": 10,
            "user": user_payload(self.bot_id, "chessgarden", bot=True),
            "guilds": [{"id": str(self.guild_id), "unavailable": True}] if ours else [],
            "session_id": f"loopback-{snowflake()}",
            "resume_gateway_url": self.gateway_url,
            "application": {"id": str(self.application_id), "flags": 0},
            "private_channels": [],
            "relationships": [],
        }
        if shard is not None:
            ready["shard"] = shard
        await self._event(ws, "READY", ready)
        if not ours:
            return
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


async def _send(ws: web.WebSocketResponse, payload: dict[str, Any]) -> None:
    payload.setdefault("s", None)
    payload.setdefault("t", None)
    payload.setdefault("d", None)
    await ws.send_str(json.dumps(payload))


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
