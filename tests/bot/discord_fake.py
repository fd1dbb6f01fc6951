"""A fake Discord for the payload-level harness (``harness.py``): the far side of the two
network edges discord.py talks to.

- ``FakeDiscord.bot_request`` stands in for ``discord.http.HTTPClient.request`` (every
  bot-token request: channel messages, threads, channel edits, login);
- ``RecordingWebhookAdapter`` stands in for ``discord.webhook.async_.AsyncWebhookAdapter``
  (interaction callbacks and follow-ups, which Discord authenticates by the interaction's
  token, not the bot's).

Everything above those two edges is discord.py's own code. Each request is recorded as a
``Request`` (method, route, JSON body, files, flags), checked against Discord's documented
limits (``limit_problems``), and answered the way Discord would, with what the model below
keeps: channels and threads, messages, and each interaction's response state.

What the model does like Discord (the behaviour the bot must live with):

- the first follow-up after a *deferred* response (type 5) fills the "thinking" message: an
  edit, with the defer's visibility (``ephemeral`` on that follow-up is ignored) and no pings;
  later follow-ups are new messages with their own flags;
- a message pings only when it is new, not ephemeral, and its ``allowed_mentions`` allow the
  user mentioned in its content (no ``allowed_mentions`` at all: every mention pings); an
  edit never pings; embeds never ping;
- the first callback must come within 3 s of the interaction (else 404, code 10062), and an
  interaction token stops working after 15 minutes (401, code 50027);
- the bot's own permissions (from the guild payload, through discord.py's
  ``permissions_for``) decide channel messages and threads (403, code 50013); posting to or
  editing in an archived thread fails (400, code 50083); deleting a thread needs Manage Threads;
  a thread's owner may archive it;
- a 5xx is answered once, as ``DiscordServerError`` (discord.py's own retries, up to 5 with
  1-9 s sleeps, are not replayed: the bot sees the same exception after them).

Assumptions where Discord's documentation is silent are marked "(model)" below.
"""

from __future__ import annotations

import errno
import json
import re
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import aiohttp
import discord
from discord.http import Route
from discord.webhook.async_ import AsyncWebhookAdapter
from discord_payloads import (
    choice_problems,
    iso_now,
    message_problems,
    snowflake,
    user_payload,
)

EPHEMERAL = 1 << 6
SUPPRESS_NOTIFICATIONS = 1 << 12
INTERACTION_DEADLINE = 3.0
TOKEN_LIFETIME = 15 * 60.0
ARCHIVE_DURATIONS = (60, 1440, 4320, 10080)
TIMEOUT = 0  # ``fail(route, TIMEOUT)``: the request gets no answer (aiohttp's timeout)
USER_MENTION = re.compile(r"<@!?([0-9]{15,21})>")

# ----- what was sent ---------------------------------------------------------------------


@dataclass
class Request:
    """One request as Discord received it."""

    edge: str  # 'bot' (the bot token) or 'webhook' (interaction callbacks and follow-ups)
    method: str
    route: str  # the template, e.g. 'POST /channels/{channel_id}/messages'
    path: str  # with the values filled in
    params: dict[str, str]
    body: dict[str, Any] | None
    files: list[str]
    at: float  # time.monotonic() when it arrived
    interaction_id: int | None = None
    status: int = 200
    problems: list[str] = field(default_factory=list)
    fault: str | None = None  # the injected fault that answered it (``Rule``), if any

    @property
    def message(self) -> dict[str, Any]:
        """The message part of the body (a callback's ``data``, a forum post's ``message``)."""
        body = self.body or {}
        if self.route.endswith("/callback"):
            return dict(body.get("data") or {})
        if "message" in body and self.route.endswith("/threads"):
            return dict(body["message"])
        return body

    @property
    def callback_type(self) -> int | None:
        return (self.body or {}).get("type") if self.route.endswith("/callback") else None

    @property
    def flags(self) -> int:
        return int(self.message.get("flags") or 0)

    def summary(self) -> str:
        """One line: method, route, status, callback type, flags, content and mentions."""
        parts = [f"{self.edge:7} {self.method} {self.path_template_short()} -> {self.status}"]
        if self.callback_type is not None:
            parts.append(f"type={self.callback_type}")
        message = self.message
        if self.flags:
            names = [
                n for n, bit in (("ephemeral", EPHEMERAL), ("silent", 1 << 12)) if self.flags & bit
            ]
            parts.append(f"flags={'+'.join(names) or self.flags}")
        if message.get("content"):
            parts.append(f"content={shorten(message['content'], 70)!r}")
        if "allowed_mentions" in message:
            parts.append(f"allowed_mentions={mentions_summary(message['allowed_mentions'])}")
        embeds = message.get("embeds") or []
        if embeds:
            parts.append(
                f"embed={shorten(embeds[0].get('title') or embeds[0].get('description') or '', 50)!r}"
            )
        if self.files:
            parts.append(f"files={','.join(self.files)}")
        if "components" in message:
            ids = [
                c.get("custom_id")
                for row in message["components"]
                for c in row.get("components", [])
            ]
            parts.append(f"buttons={ids}")
        for key in ("name", "type", "auto_archive_duration", "archived", "locked"):
            if self.body and key in self.body and not self.route.endswith("/callback"):
                parts.append(f"{key}={self.body[key]}")
        if (self.body or {}).get("data", {}).get("choices") is not None:
            parts.append(f"choices={len(self.body['data']['choices'])}")  # type: ignore[index]
        return " ".join(parts)

    def path_template_short(self) -> str:
        return self.route.split(" ", 1)[1]


def shorten(text: str, limit: int) -> str:
    text = text.replace("\n", " / ")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def mentions_summary(allowed: dict[str, Any]) -> str:
    parse = allowed.get("parse") or []
    users = allowed.get("users") or []
    bits = []
    if parse:
        bits.append("parse=" + "+".join(parse))
    if users:
        bits.append("users=" + ",".join(str(u) for u in users))
    return "{" + (" ".join(bits) or "none") + "}"


@dataclass
class StoredMessage:
    """A message as users see it."""

    id: int
    channel_id: int
    payload: dict[str, Any]  # the message object discord.py is given back
    ephemeral: bool
    interaction_id: int | None  # made by an interaction's response or follow-up
    pings: set[int] = field(default_factory=set)  # users notified when it was created
    how: str = "channel"  # 'response' | 'deferred' | 'followup' | 'channel' | 'forum-post'
    edits: int = 0
    deleted: bool = False

    @property
    def content(self) -> str:
        return str(self.payload.get("content") or "")

    @property
    def embeds(self) -> list[dict[str, Any]]:
        return list(self.payload.get("embeds") or [])

    @property
    def text(self) -> str:
        """Content, embed titles, descriptions and fields: what a reader sees."""
        parts = [self.content]
        for embed in self.embeds:
            parts += [embed.get("title") or "", embed.get("description") or ""]
            parts += [f"{f['name']}: {f['value']}" for f in embed.get("fields") or []]
            parts.append((embed.get("footer") or {}).get("text") or "")
        return "\n".join(p for p in parts if p)

    @property
    def files(self) -> list[str]:
        return [a["filename"] for a in self.payload.get("attachments") or []]

    def buttons(self) -> dict[str, str]:
        """label -> custom_id of every button on the message."""
        return {
            str(c.get("label")): str(c.get("custom_id"))
            for row in self.payload.get("components") or []
            for c in row.get("components") or []
        }


@dataclass
class InteractionState:
    id: int
    token: str
    kind: int  # 2 command, 3 component, 4 autocomplete
    user_id: int
    channel_id: int
    fed_at: float
    response: int | None = None  # the callback type once answered
    ephemeral_defer: bool = False
    original_id: int | None = None  # the message of the response, if any
    original_filled: bool = True  # False while a type 5 response shows "thinking"
    first_callback_after: float | None = None
    message_id: int | None = None  # a component's message


@dataclass
class Rule:
    """Make matching requests fail: ``status`` with Discord's error ``code`` and message."""

    route: str  # 'POST /channels/{channel_id}/messages', or '*' for every route
    status: int
    code: int = 0
    message: str = ""
    where: Callable[[dict[str, str]], bool] | None = None  # on the route's filled values
    times: int | None = None  # None: every time
    used: int = 0
    # Faults beyond an HTTP status (issue 24): 'timeout' (no answer in time), 'reset' (the
    # connection dropped). ``applied``: Discord did it, then the answer was lost (the
    # outcome is unknown to the bot). ``retry_after``/``is_global``: a 429's.
    error: str | None = None
    applied: bool = False
    retry_after: float = 1.5
    is_global: bool = False
    skip: int = 0  # let this many matching requests through first

    def matches(self, route: str, values: dict[str, str]) -> bool:
        if self.route not in ("*", route):
            return False
        if self.times is not None and self.used >= self.times:
            return False
        if self.where is not None and not self.where(values):
            return False
        if self.skip > 0:
            self.skip -= 1
            return False
        return True

    def exception(self) -> BaseException:
        """What discord.py raises to the bot for this fault (after its own retries)."""
        if self.error == "timeout" or (self.status == TIMEOUT and self.error is None):
            return TimeoutError("the request timed out (model)")
        if self.error == "reset":
            return aiohttp.ClientOSError(errno.ECONNRESET, "Connection reset by peer")
        if self.status == 429:
            return rate_limited(self.retry_after, self.is_global)
        return http_error(self.status, self.code, self.message)


ERROR_TEXT = {
    403: ("Forbidden", 50013, "Missing Permissions"),
    404: ("Not Found", 10003, "Unknown Channel"),
    500: ("Internal Server Error", 0, "500: Internal Server Error"),
    502: ("Bad Gateway", 0, "502: Bad Gateway"),
}


def limit_problems(request: Request) -> list[str]:
    """What breaks Discord's limits in a request's body, whatever its route."""
    body = request.body or {}
    if request.route.endswith("/callback"):
        kind = body.get("type")
        if kind == 8:
            return choice_problems(list((body.get("data") or {}).get("choices") or []))
        if kind in (4, 7):
            return message_problems(request.message, request.files, new=kind == 4)
        return []
    if request.route == "POST /channels/{channel_id}/threads":
        if "message" in body:
            return message_problems(request.message, request.files, new=True)
        return []
    if request.method in ("POST", "PATCH") and (
        "/messages" in request.route
        or request.route == "POST /webhooks/{webhook_id}/{webhook_token}"
    ):
        return message_problems(request.message, request.files, new=request.method == "POST")
    return []


class _Response:
    """What ``discord.HTTPException`` reads from an aiohttp response."""

    def __init__(self, status: int, reason: str) -> None:
        self.status = status
        self.reason = reason
        self.headers: dict[str, str] = {}


def rate_limited(retry_after: float, is_global: bool) -> discord.HTTPException:
    """A 429 as discord.py raises it once its own retries are spent: the body and the
    headers Discord sends (``retry_after``, ``global``; ``X-RateLimit-Scope``)."""
    response = _Response(429, "Too Many Requests")
    response.headers = {
        "Retry-After": f"{retry_after:g}",
        "X-RateLimit-Scope": "global" if is_global else "user",
    }
    if is_global:
        response.headers["X-RateLimit-Global"] = "true"
    body = {"message": "You are being rate limited.", "retry_after": retry_after,
            "global": is_global, "code": 0}  # fmt: skip
    return discord.HTTPException(response, body)  # type: ignore[arg-type]


def http_error(status: int, code: int, message: str) -> discord.HTTPException:
    """The exception discord.py raises for this answer (after its retries, for a 5xx)."""
    reason = ERROR_TEXT.get(status, ("Error", 0, ""))[0]
    response = _Response(status, reason)
    body = {"message": message, "code": code}
    if status == 403:
        return discord.Forbidden(response, body)  # type: ignore[arg-type]
    if status == 404:
        return discord.NotFound(response, body)  # type: ignore[arg-type]
    if status >= 500:
        return discord.DiscordServerError(response, body)  # type: ignore[arg-type]
    return discord.HTTPException(response, body)  # type: ignore[arg-type]


class Refused(Exception):
    """Raised inside a handler: answer with this status, code and message."""

    def __init__(self, status: int, code: int, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


# ----- the webhook edge --------------------------------------------------------------------


class RecordingWebhookAdapter(AsyncWebhookAdapter):
    """discord.py's adapter for interaction callbacks and follow-ups, with the network replaced."""

    def __init__(self, discord_: FakeDiscord) -> None:
        super().__init__()
        self.discord = discord_

    async def request(  # type: ignore[override]
        self,
        route: Route,
        session: Any,
        *,
        payload: dict[str, Any] | None = None,
        multipart: list[dict[str, Any]] | None = None,
        files: Sequence[discord.File] | None = None,
        params: dict[str, Any] | None = None,
        **_: Any,
    ) -> Any:
        body = payload
        if multipart:
            body = next(
                (json.loads(p["value"]) for p in multipart if p["name"] == "payload_json"), None
            )
        names = [f.filename or "file" for f in files or []]
        self.discord.keep_uploads(files)
        return self.discord.handle("webhook", route, body, names, params or {})


# ----- Discord ----------------------------------------------------------------------------


class FakeDiscord:
    """Channels, threads, messages and interactions; answers and records every request."""

    def __init__(self, *, bot_id: int, application_id: int, state_of: Callable[[], Any]) -> None:
        self.bot_id = bot_id
        self.application_id = application_id
        self._state_of = state_of  # the bot's ConnectionState (for permissions and events)
        self.requests: list[Request] = []
        self.uploads: list[tuple[str, bytes]] = []  # every file sent: (name, bytes)
        self.rules: list[Rule] = []
        self.messages: dict[int, StoredMessage] = {}
        self.interactions: dict[int, InteractionState] = {}
        self.by_token: dict[str, InteractionState] = {}
        self.threads: dict[int, dict[str, Any]] = {}  # thread payloads, kept up to date
        self.channels: dict[int, dict[str, Any]] = {}  # guild channel payloads
        self.guild_id = 0
        self.dm_channels: set[int] = set()
        self.clock_offset = 0.0  # seconds added to time.monotonic(): tokens expire
        # enforce_nonce (issue 24): (channel, nonce) -> (message id, when), as Discord keeps
        # them for "the past few minutes" (model: 5 minutes)
        self.nonces: dict[tuple[int, str], tuple[int, float]] = {}

    # ----- time ----------------------------------------------------------------------

    def now(self) -> float:
        return time.monotonic() + self.clock_offset

    # ----- rules -------------------------------------------------------------------------

    def fail(
        self,
        route: str,
        status: int,
        *,
        code: int | None = None,
        message: str | None = None,
        where: Callable[[dict[str, str]], bool] | None = None,
        times: int | None = None,
        error: str | None = None,
        applied: bool = False,
        retry_after: float = 1.5,
        is_global: bool = False,
        skip: int = 0,
    ) -> Rule:
        _, default_code, default_message = ERROR_TEXT.get(status, ("", 0, "error"))
        rule = Rule(
            route,
            status,
            default_code if code is None else code,
            default_message if message is None else message,
            where,
            times,
            error=error,
            applied=applied,
            retry_after=retry_after,
            is_global=is_global,
            skip=skip,
        )
        self.rules.append(rule)
        return rule

    # ----- the bot-token edge --------------------------------------------------------

    async def bot_request(
        self,
        route: Route,
        *,
        files: Sequence[discord.File] | None = None,
        form: Iterable[dict[str, Any]] | None = None,
        **kwargs: Any,
    ) -> Any:
        """Replaces ``HTTPClient.request``: the route and body exactly as discord.py built them."""
        body = kwargs.get("json")
        if form is not None:
            body = next((json.loads(p["value"]) for p in form if p["name"] == "payload_json"), body)
        names = [f.filename or "file" for f in files or []]
        self.keep_uploads(files)
        return self.handle("bot", route, body, names, dict(kwargs.get("params") or {}))

    def keep_uploads(self, files: Sequence[discord.File] | None) -> None:
        """Keep the bytes of every file sent (``uploads``: (file name, bytes), in order)."""
        for file in files or []:
            where = file.fp.tell()
            self.uploads.append((file.filename or "file", file.fp.read()))
            file.fp.seek(where)

    # ----- dispatch ------------------------------------------------------------------

    def handle(
        self,
        edge: str,
        route: Route,
        body: dict[str, Any] | None,
        files: list[str],
        params: dict[str, Any],
    ) -> Any:
        template = f"{route.method} {route.path}"
        path = route.url[len(Route.BASE) :]
        values = fill(route.path, path)
        request = Request(
            edge,
            route.method,
            template,
            path,
            {k: str(v) for k, v in params.items()},
            body,
            files,
            self.now(),
        )
        self.requests.append(request)
        request.problems += limit_problems(request)  # every request, even one a rule fails
        handler = ROUTES.get(template)
        try:
            for rule in self.rules:
                if rule.matches(template, values):
                    rule.used += 1
                    if rule.applied and handler is not None:  # done, but the answer is lost
                        handler(self, request, values)
                    request.status = rule.status
                    request.fault = rule.error or str(rule.status)
                    raise rule.exception()
            if handler is None:
                request.problems.append(f"a route the fake does not know: {template}")
                raise Refused(404, 0, "404: Not Found")
            return handler(self, request, values)
        except Refused as refused:
            request.status = refused.status
            if refused.status == TIMEOUT:  # no answer: discord.py raises the timeout as is
                raise TimeoutError("the request timed out (model)") from None
            raise http_error(refused.status, refused.code, refused.message) from None

    # ----- state helpers ---------------------------------------------------------------

    @property
    def state(self) -> Any:
        return self._state_of()

    def guild(self) -> discord.Guild:
        guild = self.state._get_guild(self.guild_id)
        assert guild is not None
        return guild

    def place(self, channel_id: int) -> Any:
        """The channel or thread, as discord.py knows it from the gateway."""
        guild = self.guild()
        place = guild.get_channel_or_thread(channel_id)
        if place is None and channel_id in self.threads:
            place = discord.Thread(guild=guild, state=self.state, data=self.threads[channel_id])  # type: ignore[arg-type]
        return place

    def bot_can(self, channel_id: int, *names: str) -> None:
        place = self.place(channel_id)
        if place is None:
            raise Refused(404, 10003, "Unknown Channel")
        perms = place.permissions_for(self.guild().me)
        if not perms.view_channel:
            raise Refused(403, 50001, "Missing Access")
        missing = [n for n in names if not getattr(perms, n)]
        if missing:
            raise Refused(403, 50013, "Missing Permissions")

    def is_thread(self, channel_id: int) -> bool:
        return channel_id in self.threads

    def archived(self, channel_id: int) -> bool:
        data = self.threads.get(channel_id)
        return bool(data and data["thread_metadata"]["archived"])

    def dispatch(self, event: str, data: dict[str, Any]) -> None:
        """A gateway event, parsed by discord.py as if it had come over the websocket."""
        self.state.parsers[event](data)

    # ----- messages ----------------------------------------------------------------------

    def pings_of(self, data: dict[str, Any], *, ephemeral: bool) -> set[int]:
        """Who a NEW message notifies: content mentions that allowed_mentions allow."""
        if ephemeral or (int(data.get("flags") or 0) & SUPPRESS_NOTIFICATIONS):
            return set()
        mentioned = {int(m) for m in USER_MENTION.findall(str(data.get("content") or ""))}
        allowed = data.get("allowed_mentions")
        if allowed is None:  # Discord's default: every mention in the content pings
            return mentioned
        if "users" in (allowed.get("parse") or []):
            return mentioned
        return mentioned & {int(u) for u in allowed.get("users") or []}

    def new_message(
        self,
        channel_id: int,
        data: dict[str, Any],
        files: list[str],
        *,
        how: str,
        interaction: InteractionState | None,
        ephemeral: bool,
    ) -> StoredMessage:
        message_id = snowflake()
        payload = self.message_payload(message_id, channel_id, data, files, ephemeral, interaction)
        stored = StoredMessage(
            message_id,
            channel_id,
            payload,
            ephemeral,
            interaction.id if interaction else None,
            self.pings_of(data, ephemeral=ephemeral),
            how,
        )
        self.messages[message_id] = stored
        return stored

    def message_payload(
        self,
        message_id: int,
        channel_id: int,
        data: dict[str, Any],
        files: list[str],
        ephemeral: bool,
        interaction: InteractionState | None,
    ) -> dict[str, Any]:
        flags = int(data.get("flags") or 0) | (EPHEMERAL if ephemeral else 0)
        payload: dict[str, Any] = {
            "id": str(message_id),
            "channel_id": str(channel_id),
            "author": user_payload(self.bot_id, "chessgarden", bot=True),
            "content": data.get("content") or "",
            "timestamp": iso_now(),
            "edited_timestamp": None,
            "tts": False,
            "mention_everyone": False,
            "mentions": [],
            "mention_roles": [],
            "attachments": self.attachments(files),
            "embeds": list(data.get("embeds") or []),
            "pinned": False,
            "type": 0 if interaction is None or interaction.kind == 3 else 20,
            "flags": flags,
            "components": list(data.get("components") or []),
        }
        if channel_id not in self.dm_channels:
            payload["guild_id"] = str(self.guild_id)
        if interaction is not None:
            payload["webhook_id"] = str(self.application_id)
            payload["application_id"] = str(self.application_id)
        return payload

    @staticmethod
    def attachments(files: list[str]) -> list[dict[str, Any]]:
        return [
            {
                "id": str(snowflake()),
                "filename": name,
                "size": 1000,
                "url": f"https://cdn.discordapp.com/attachments/0/0/{name}",
                "proxy_url": f"https://media.discordapp.net/attachments/0/0/{name}",
            }
            for name in files
        ]

    def edit_message(
        self, stored: StoredMessage, data: dict[str, Any], files: list[str]
    ) -> StoredMessage:
        """An edit: the fields given replace the old ones; it never pings."""
        for key in ("content", "embeds", "components"):
            if key in data:
                stored.payload[key] = (
                    data[key] if data[key] is not None else ([] if key != "content" else "")
                )
        if "attachments" in data or files:
            kept = {str(a.get("id")) for a in data.get("attachments") or [] if "id" in a}
            old = [a for a in stored.payload["attachments"] if str(a["id"]) in kept]
            stored.payload["attachments"] = old + self.attachments(files)
        stored.payload["edited_timestamp"] = iso_now()
        stored.edits += 1
        return stored

    def check_body(self, request: Request, *, new: bool) -> None:
        """Refuse a body over Discord's limits (``limit_problems`` recorded them already)."""
        if request.problems:
            raise Refused(400, 50035, "Invalid Form Body")

    # ----- interactions ------------------------------------------------------------------

    def interaction_of(self, request: Request, token: str) -> InteractionState:
        state = self.by_token.get(token)
        if state is None:
            raise Refused(401, 50027, "Invalid Webhook Token")
        request.interaction_id = state.id
        if self.now() - state.fed_at > TOKEN_LIFETIME:
            raise Refused(401, 50027, "Invalid Webhook Token")
        return state


from discord_routes import ROUTES, fill  # noqa: E402  (the handlers need the classes above)
