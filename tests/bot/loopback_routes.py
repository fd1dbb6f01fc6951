"""The loopback fake Discord's records, faults, HTTP answers and REST route handlers
(``loopback_discord``): one function per route the bot uses, answering the way Discord does.
Handlers run in the fake's thread, under its lock, and raise ``Refused`` for an error."""

from __future__ import annotations

import asyncio
import fnmatch
import json
import math
import socket
import struct
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from aiohttp import web
from discord_payloads import iso_now, message_problems, snowflake, thread_payload, user_payload

if TYPE_CHECKING:
    from loopback_discord import LoopbackDiscord

EPHEMERAL = 1 << 6


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
    interaction_id: int | None = None  # made by an interaction's response or follow-up
    ephemeral: bool = False

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
class Interaction:
    """An interaction the fake sent (``command``) and how the bot answered it."""

    id: int
    token: str
    channel_id: int
    user_id: int
    name: str
    response: int | None = None  # the callback type once answered
    original_id: int | None = None  # the message of the response, if any
    messages: list[int] = field(default_factory=list)  # every message it made


class Refused(Exception):
    def __init__(self, status: int, code: int, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


Handler = Callable[["LoopbackDiscord", Request], Any]


def message_payload(
    message_id: int,
    channel_id: int,
    guild_id: int,
    author: dict[str, Any],
    data: dict[str, Any],
    files: list[str],
) -> dict[str, Any]:
    """A message object as Discord returns it, made from what the bot sent."""
    return {
        "id": str(message_id),
        "channel_id": str(channel_id),
        "guild_id": str(guild_id),
        "author": author,
        "content": data.get("content") or "",
        "timestamp": iso_now(),
        "edited_timestamp": None,
        "tts": False,
        "mention_everyone": False,
        "mentions": [],
        "mention_roles": [],
        "attachments": [attachment_payload(name) for name in files],
        "embeds": list(data.get("embeds") or []),
        "pinned": False,
        "type": 0,
        "flags": int(data.get("flags") or 0),
        "components": list(data.get("components") or []),
    }


def command_payload(
    state: Interaction,
    application_id: int,
    guild_id: int,
    channel: dict[str, Any],
    member: dict[str, Any],
    app_permissions: str,
    options: dict[str, str | int | bool],
) -> dict[str, Any]:
    """An INTERACTION_CREATE of a slash command, as the gateway sends it."""
    kinds = {str: 3, int: 4, bool: 5}
    return {
        "id": str(state.id),
        "application_id": str(application_id),
        "type": 2,
        "token": state.token,
        "version": 1,
        "locale": "en-GB",
        "guild_locale": "en-US",
        "guild_id": str(guild_id),
        "guild": {"id": str(guild_id), "locale": "en-US", "features": []},
        "channel_id": channel["id"],
        "channel": channel,
        "member": member,
        "app_permissions": app_permissions,
        "entitlements": [],
        "authorizing_integration_owners": {"0": str(guild_id)},
        "context": 0,
        "attachment_size_limit": 25 * 1024 * 1024,
        "data": {
            "id": str(snowflake()),
            "name": state.name,
            "type": 1,
            "options": [
                {"name": key, "type": kinds[type(value)], "value": value}
                for key, value in options.items()
            ],
        },
    }


def attachment_payload(name: str) -> dict[str, Any]:
    return {
        "id": str(snowflake()),
        "filename": name,
        "size": 1000,
        "url": f"http://127.0.0.1/attachments/{name}",
        "proxy_url": f"http://127.0.0.1/attachments/{name}",
    }


def match_route(method: str, path: str) -> tuple[str | None, dict[str, str], Handler | None]:
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


def answer_json(
    data: Any, *, status: int = 200, headers: dict[str, str] | None = None
) -> web.Response:
    """A JSON answer with Content-Type exactly ``application/json``, as Discord sends it
    (discord.py parses a body as JSON only then; aiohttp's default adds a charset)."""
    return web.Response(
        body=json.dumps(data).encode(),
        status=status,
        headers={**(headers or {}), "Content-Type": "application/json"},
    )


async def read_body(http: web.Request) -> tuple[Any, list[str]]:
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


def rate_limited(request: Request, fault: Fault) -> web.Response:
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
    return answer_json(body, status=429, headers=headers)


def reset_connection(http: web.Request, request: Request) -> web.Response:
    """Reset the connection (RST, not FIN): no answer ever comes."""
    transport = http.transport
    if transport is not None:
        sock = transport.get_extra_info("socket")
        if sock is not None:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        transport.abort()
    request.status = None
    raise asyncio.CancelledError  # aiohttp drops the handler; nothing is written


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
    return _edit(message, _message_body(request), request.files)


def _edit(message: Message, data: dict[str, Any], files: list[str]) -> dict[str, Any]:
    """The fields given replace the old ones; kept attachments are named by id."""
    for key in ("content", "embeds", "components"):
        if key in data:
            message.payload[key] = data[key] if data[key] is not None else ""
    if "attachments" in data or files:
        kept = {str(a.get("id")) for a in data.get("attachments") or [] if "id" in a}
        old = [a for a in message.payload["attachments"] if str(a["id"]) in kept]
        message.payload["attachments"] = old + [attachment_payload(n) for n in files]
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


def _interaction(fake: LoopbackDiscord, request: Request) -> Interaction:
    state = fake._interactions.get(request.values["token"])
    if state is None:
        raise Refused(401, 50027, "Invalid Webhook Token")
    return state


def _callback(fake: LoopbackDiscord, request: Request) -> Any:
    state = _interaction(fake, request)
    if state.response is not None:
        raise Refused(400, 40060, "Interaction has already been acknowledged.")
    body = request.body if isinstance(request.body, dict) else {}
    kind = int(body.get("type") or 0)
    data = dict(body.get("data") or {})
    message: Message | None = None
    if kind == 4:
        request.body = data  # the message part, checked as a new message
        message = fake.create_message(
            state.channel_id, _message_body(request), request.files, None, state
        )
        request.body = body
    elif kind == 5:  # "thinking…": filled by the first follow-up or an edit of @original
        message = fake.create_message(
            state.channel_id, {"content": "", "flags": data.get("flags")}, [], None, state
        )
    elif kind not in (6, 7, 8, 9):
        raise Refused(400, 50035, "Invalid Form Body")
    state.response = kind
    if message is not None:
        state.original_id = message.id
    answer: dict[str, Any] = {
        "interaction": {
            "id": str(state.id),
            "type": 2,
            "response_message_id": str(message.id) if message else None,
            "response_message_loading": kind == 5,
            "response_message_ephemeral": bool(message and message.ephemeral),
        }
    }
    if message is not None:
        answer["resource"] = {"type": kind, "message": message.payload}
    return answer


def _followup(fake: LoopbackDiscord, request: Request) -> Any:
    state = _interaction(fake, request)
    if state.response is None:
        raise Refused(404, 10015, "Unknown Webhook")
    data = _message_body(request)
    original = fake._messages.get(state.original_id) if state.original_id else None
    if state.response == 5 and original is not None and not original.edits:
        return _edit(original, data, request.files)  # the first follow-up fills "thinking…"
    return fake.create_message(state.channel_id, data, request.files, None, state).payload


def _webhook_message(fake: LoopbackDiscord, request: Request) -> Any:
    state = _interaction(fake, request)
    wanted = request.values["message_id"]
    target = state.original_id if wanted == "@original" else int(wanted)
    message = fake._messages.get(target) if target is not None else None
    if message is None or message.deleted:
        raise Refused(404, 10008, "Unknown Message")
    if request.method == "GET":
        return message.payload
    if request.method == "DELETE":
        message.deleted = True
        return None
    return _edit(message, _message_body(request), request.files)


ROUTES: dict[str, Handler] = {
    "POST /interactions/{interaction_id}/{token}/callback": _callback,
    "POST /webhooks/{application_id}/{token}": _followup,
    "GET /webhooks/{application_id}/{token}/messages/{message_id}": _webhook_message,
    "PATCH /webhooks/{application_id}/{token}/messages/{message_id}": _webhook_message,
    "DELETE /webhooks/{application_id}/{token}/messages/{message_id}": _webhook_message,
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
