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

import itertools
import json
import re
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import discord
from discord.http import Route
from discord.webhook.async_ import AsyncWebhookAdapter

EPHEMERAL = 1 << 6
SUPPRESS_NOTIFICATIONS = 1 << 12
INTERACTION_DEADLINE = 3.0
TOKEN_LIFETIME = 15 * 60.0
ARCHIVE_DURATIONS = (60, 1440, 4320, 10080)
USER_MENTION = re.compile(r"<@!?([0-9]{15,21})>")

_ids = itertools.count(1_100_000_000_000_000_000)


def snowflake() -> int:
    return next(_ids)


def iso_now() -> str:
    return datetime.now(UTC).isoformat()


# ----- Discord's documented limits ------------------------------------------------------

LIMITS = {
    "content": 2000,
    "embeds": 10,
    "embed_total": 6000,
    "title": 256,
    "description": 4096,
    "fields": 25,
    "field_name": 256,
    "field_value": 1024,
    "footer": 2048,
    "author": 256,
    "rows": 5,
    "row_items": 5,
    "custom_id": 100,
    "label": 80,
    "choices": 25,
    "choice_text": 100,
}


def embed_length(embed: dict[str, Any]) -> int:
    """Discord counts title, description, field names and values, footer text, author name."""
    total = len(embed.get("title") or "") + len(embed.get("description") or "")
    total += len((embed.get("footer") or {}).get("text") or "")
    total += len((embed.get("author") or {}).get("name") or "")
    for item in embed.get("fields") or []:
        total += len(item.get("name") or "") + len(item.get("value") or "")
    return total


def message_problems(data: dict[str, Any], files: Sequence[str] = (), *, new: bool) -> list[str]:
    """What Discord would refuse (or silently break) in one message body."""
    problems: list[str] = []
    content = data.get("content")
    if content is not None and len(content) > LIMITS["content"]:
        problems.append(f"content has {len(content)} characters (limit 2000)")
    embeds = data.get("embeds") or []
    if len(embeds) > LIMITS["embeds"]:
        problems.append(f"{len(embeds)} embeds (limit 10)")
    total = 0
    uploaded = set(files) | {a.get("filename") for a in data.get("attachments") or []}
    for n, embed in enumerate(embeds):
        total += embed_length(embed)
        for key, limit in (("title", "title"), ("description", "description")):
            text = embed.get(key) or ""
            if len(text) > LIMITS[limit]:
                problems.append(
                    f"embed {n} {key} has {len(text)} characters (limit {LIMITS[limit]})"
                )
        fields = embed.get("fields") or []
        if len(fields) > LIMITS["fields"]:
            problems.append(f"embed {n} has {len(fields)} fields (limit 25)")
        for item in fields:
            name, value = item.get("name") or "", item.get("value") or ""
            if not name or len(name) > LIMITS["field_name"]:
                problems.append(f"embed {n} field name {name[:30]!r} has {len(name)} characters")
            if not value or len(value) > LIMITS["field_value"]:
                problems.append(
                    f"embed {n} field {name[:30]!r} value has {len(value)} characters (1..1024)"
                )
        footer = (embed.get("footer") or {}).get("text") or ""
        if len(footer) > LIMITS["footer"]:
            problems.append(f"embed {n} footer has {len(footer)} characters (limit 2048)")
        author = (embed.get("author") or {}).get("name") or ""
        if len(author) > LIMITS["author"]:
            problems.append(f"embed {n} author has {len(author)} characters (limit 256)")
        for key in ("image", "thumbnail"):
            url = (embed.get(key) or {}).get("url") or ""
            if url.startswith("attachment://") and url[len("attachment://") :] not in uploaded:
                problems.append(f"embed {n} {key} refers to {url}, which is not attached")
    if total > LIMITS["embed_total"]:
        problems.append(f"embeds have {total} characters in all (limit 6000)")
    problems += component_problems(data.get("components") or [])
    mentions = data.get("allowed_mentions")
    if mentions and "users" in (mentions.get("parse") or []) and mentions.get("users"):
        problems.append("allowed_mentions has both parse=users and a users list")
    if new and not (content or embeds or files or data.get("components") or data.get("poll")):
        problems.append("an empty message")
    return problems


def component_problems(rows: list[dict[str, Any]]) -> list[str]:
    problems: list[str] = []
    if len(rows) > LIMITS["rows"]:
        problems.append(f"{len(rows)} action rows (limit 5)")
    seen: set[str] = set()
    for r, row in enumerate(rows):
        items = row.get("components") or []
        if row.get("type") != 1:
            problems.append(f"row {r} is not an action row")
        if len(items) > LIMITS["row_items"]:
            problems.append(f"row {r} has {len(items)} buttons (limit 5)")
        for item in items:
            custom_id = item.get("custom_id")
            if item.get("style") != 5:  # every button but a link needs a custom_id
                if not custom_id or len(custom_id) > LIMITS["custom_id"]:
                    problems.append(f"custom_id {custom_id!r} is empty or over 100 characters")
                elif custom_id in seen:
                    problems.append(f"custom_id {custom_id!r} appears twice")
                else:
                    seen.add(custom_id)
            label = item.get("label") or ""
            if len(label) > LIMITS["label"]:
                problems.append(f"button label {label[:30]!r} has {len(label)} characters")
    return problems


def choice_problems(choices: list[dict[str, Any]]) -> list[str]:
    problems: list[str] = []
    if len(choices) > LIMITS["choices"]:
        problems.append(f"{len(choices)} autocomplete choices (limit 25)")
    for choice in choices:
        name, value = str(choice.get("name", "")), choice.get("value")
        if not 1 <= len(name) <= LIMITS["choice_text"]:
            problems.append(f"choice name {name[:30]!r} has {len(name)} characters (1..100)")
        if isinstance(value, str) and len(value) > LIMITS["choice_text"]:
            problems.append(f"choice value {value[:30]!r} has {len(value)} characters")
    return problems


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

    def matches(self, route: str, values: dict[str, str]) -> bool:
        if self.route not in ("*", route):
            return False
        if self.times is not None and self.used >= self.times:
            return False
        return self.where is None or self.where(values)


ERROR_TEXT = {
    403: ("Forbidden", 50013, "Missing Permissions"),
    404: ("Not Found", 10003, "Unknown Channel"),
    500: ("Internal Server Error", 0, "500: Internal Server Error"),
    502: ("Bad Gateway", 0, "502: Bad Gateway"),
}


class _Response:
    """What ``discord.HTTPException`` reads from an aiohttp response."""

    def __init__(self, status: int, reason: str) -> None:
        self.status = status
        self.reason = reason
        self.headers: dict[str, str] = {}


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


# ----- payloads ----------------------------------------------------------------------------


def user_payload(user_id: int, name: str, *, bot: bool = False) -> dict[str, Any]:
    return {
        "id": str(user_id),
        "username": name,
        "discriminator": "0",
        "global_name": name.capitalize(),
        "avatar": None,
        "bot": bot,
        "public_flags": 0,
    }


def member_payload(
    user: dict[str, Any], roles: Iterable[int], *, permissions: int | None = None
) -> dict[str, Any]:
    data: dict[str, Any] = {
        "user": user,
        "roles": [str(r) for r in roles],
        "joined_at": "2024-01-01T00:00:00+00:00",
        "deaf": False,
        "mute": False,
        "flags": 0,
        "nick": None,
        "avatar": None,
        "premium_since": None,
        "pending": False,
        "communication_disabled_until": None,
    }
    if permissions is not None:
        data["permissions"] = str(permissions)
    return data


def role_payload(role_id: int, name: str, permissions: int, position: int) -> dict[str, Any]:
    return {
        "id": str(role_id),
        "name": name,
        "permissions": str(permissions),
        "position": position,
        "color": 0,
        "hoist": False,
        "managed": False,
        "mentionable": False,
        "flags": 0,
    }


def overwrite(
    target: int, *, allow: int = 0, deny: int = 0, member: bool = False
) -> dict[str, Any]:
    return {"id": str(target), "type": 1 if member else 0, "allow": str(allow), "deny": str(deny)}


def channel_payload(
    channel_id: int,
    guild_id: int,
    name: str,
    kind: int,
    *,
    position: int = 0,
    overwrites: Sequence[dict[str, Any]] = (),
) -> dict[str, Any]:
    data: dict[str, Any] = {
        "id": str(channel_id),
        "type": kind,
        "guild_id": str(guild_id),
        "name": name,
        "position": position,
        "permission_overwrites": list(overwrites),
        "parent_id": None,
        "nsfw": False,
        "rate_limit_per_user": 0,
        "last_message_id": None,
        "topic": None,
        "default_auto_archive_duration": 1440,
        "flags": 0,
    }
    if kind == 15:  # forum
        data.update(
            available_tags=[],
            default_reaction_emoji=None,
            default_sort_order=None,
            default_forum_layout=0,
            default_thread_rate_limit_per_user=0,
        )
    if kind in (2, 13):  # voice, stage
        data.update(bitrate=64000, user_limit=0, rtc_region=None, video_quality_mode=1)
    return data


def thread_payload(
    thread_id: int,
    guild_id: int,
    parent_id: int,
    owner_id: int,
    name: str,
    *,
    kind: int = 11,
    archived: bool = False,
    locked: bool = False,
    auto_archive_duration: int = 1440,
) -> dict[str, Any]:
    return {
        "id": str(thread_id),
        "type": kind,
        "guild_id": str(guild_id),
        "parent_id": str(parent_id),
        "owner_id": str(owner_id),
        "name": name,
        "last_message_id": None,
        "rate_limit_per_user": 0,
        "message_count": 0,
        "member_count": 1,
        "flags": 0,
        "applied_tags": [],
        "thread_metadata": {
            "archived": archived,
            "auto_archive_duration": auto_archive_duration,
            "archive_timestamp": iso_now(),
            "locked": locked,
            "create_timestamp": iso_now(),
        },
    }


def guild_payload(
    guild_id: int,
    name: str,
    *,
    roles: list[dict[str, Any]],
    channels: list[dict[str, Any]],
    threads: list[dict[str, Any]],
    members: list[dict[str, Any]],
    owner_id: int,
) -> dict[str, Any]:
    """A GUILD_CREATE event's data, as the gateway sends it."""
    return {
        "id": str(guild_id),
        "name": name,
        "icon": None,
        "owner_id": str(owner_id),
        "afk_timeout": 300,
        "verification_level": 0,
        "default_message_notifications": 1,
        "explicit_content_filter": 0,
        "roles": roles,
        "emojis": [],
        "stickers": [],
        "features": [],
        "mfa_level": 0,
        "system_channel_id": None,
        "system_channel_flags": 0,
        "rules_channel_id": None,
        "premium_tier": 0,
        "preferred_locale": "en-US",
        "nsfw_level": 0,
        "premium_progress_bar_enabled": False,
        "joined_at": "2024-01-01T00:00:00+00:00",
        "large": False,
        "unavailable": False,
        "member_count": len(members),
        "voice_states": [],
        "members": members,
        "channels": channels,
        "threads": threads,
        "presences": [],
        "stage_instances": [],
        "guild_scheduled_events": [],
        "soundboard_sounds": [],
    }


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
        return self.discord.handle("webhook", route, body, names, params or {})


# ----- Discord ----------------------------------------------------------------------------


class FakeDiscord:
    """Channels, threads, messages and interactions; answers and records every request."""

    def __init__(self, *, bot_id: int, application_id: int, state_of: Callable[[], Any]) -> None:
        self.bot_id = bot_id
        self.application_id = application_id
        self._state_of = state_of  # the bot's ConnectionState (for permissions and events)
        self.requests: list[Request] = []
        self.rules: list[Rule] = []
        self.messages: dict[int, StoredMessage] = {}
        self.interactions: dict[int, InteractionState] = {}
        self.by_token: dict[str, InteractionState] = {}
        self.threads: dict[int, dict[str, Any]] = {}  # thread payloads, kept up to date
        self.channels: dict[int, dict[str, Any]] = {}  # guild channel payloads
        self.guild_id = 0
        self.dm_channels: set[int] = set()
        self.clock_offset = 0.0  # seconds added to time.monotonic(): tokens expire

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
    ) -> Rule:
        _, default_code, default_message = ERROR_TEXT.get(status, ("", 0, "error"))
        rule = Rule(
            route,
            status,
            default_code if code is None else code,
            default_message if message is None else message,
            where,
            times,
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
        return self.handle("bot", route, body, names, dict(kwargs.get("params") or {}))

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
        handler = ROUTES.get(template)
        try:
            for rule in self.rules:
                if rule.matches(template, values):
                    rule.used += 1
                    raise Refused(rule.status, rule.code, rule.message)
            if handler is None:
                request.problems.append(f"a route the fake does not know: {template}")
                raise Refused(404, 0, "404: Not Found")
            return handler(self, request, values)
        except Refused as refused:
            request.status = refused.status
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
        problems = message_problems(request.message, request.files, new=new)
        if problems:
            request.problems += problems
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


def fill(template: str, path: str) -> dict[str, str]:
    """'/channels/{channel_id}/messages/{message_id}' + a path -> the values in it."""
    names = template.strip("/").split("/")
    values = path.split("?")[0].strip("/").split("/")
    return {n[1:-1]: v for n, v in zip(names, values, strict=False) if n.startswith("{")}


# ----- route handlers ----------------------------------------------------------------------


def _login(fake: FakeDiscord, request: Request, values: dict[str, str]) -> Any:
    return user_payload(fake.bot_id, "chessgarden", bot=True)


def _application(fake: FakeDiscord, request: Request, values: dict[str, str]) -> Any:
    return {
        "id": str(fake.application_id),
        "name": "Chess Garden",
        "icon": None,
        "description": "",
        "rpc_origins": [],
        "bot_public": True,
        "bot_require_code_grant": False,
        "owner": user_payload(snowflake(), "owner"),
        "summary": "",
        "verify_key": "0" * 64,
        "flags": 0,
        "interactions_endpoint_url": None,
    }


def _callback(fake: FakeDiscord, request: Request, values: dict[str, str]) -> Any:
    state = fake.interaction_of(request, values["webhook_token"])
    body = request.body or {}
    kind = int(body.get("type", 0))
    data = dict(body.get("data") or {})
    if state.response is not None:
        raise Refused(400, 40060, "Interaction has already been acknowledged.")
    elapsed = fake.now() - state.fed_at
    state.first_callback_after = elapsed
    if elapsed > INTERACTION_DEADLINE:
        request.problems.append(f"first callback after {elapsed:.2f} s (Discord allows 3 s)")
        raise Refused(404, 10062, "Unknown interaction")
    ephemeral = bool(int(data.get("flags") or 0) & EPHEMERAL)
    resource: dict[str, Any] | None = None
    if kind == 8:
        problems = choice_problems(list(data.get("choices") or []))
        if state.kind != 4:
            problems.append("an autocomplete answer to something that is not autocomplete")
        if problems:
            request.problems += problems
            raise Refused(400, 50035, "Invalid Form Body")
    elif kind == 4:
        fake.check_body(request, new=True)
        stored = fake.new_message(
            state.channel_id,
            data,
            request.files,
            how="response",
            interaction=state,
            ephemeral=ephemeral,
        )
        state.original_id = stored.id
        resource = stored.payload
    elif kind == 5:
        stored = fake.new_message(
            state.channel_id,
            {"content": "", "flags": data.get("flags")},
            [],
            how="deferred",
            interaction=state,
            ephemeral=ephemeral,
        )
        stored.pings = set()
        state.original_id = stored.id
        state.ephemeral_defer = ephemeral
        state.original_filled = False
        resource = stored.payload
    elif kind == 6:
        if state.kind != 3:
            request.problems.append("a deferred update for something that is not a component")
    elif kind == 7:
        if state.kind != 3 or state.message_id is None:
            request.problems.append("an update of a message for something that is not a component")
            raise Refused(400, 50035, "Invalid Form Body")
        fake.check_body(request, new=False)
        stored = fake.edit_message(fake.messages[state.message_id], data, request.files)
        resource = stored.payload
    else:
        request.problems.append(f"callback type {kind} is not used by this bot")
        raise Refused(400, 50035, "Invalid Form Body")
    state.response = kind
    answer: dict[str, Any] = {
        "interaction": {
            "id": str(state.id),
            "type": state.kind,
            "response_message_id": str(state.original_id) if state.original_id else None,
            "response_message_loading": kind == 5,
            "response_message_ephemeral": ephemeral,
        }
    }
    if resource is not None:
        answer["resource"] = {"type": kind, "message": resource}
    return answer


def _followup(fake: FakeDiscord, request: Request, values: dict[str, str]) -> Any:
    state = fake.interaction_of(request, values["webhook_token"])
    if state.response is None:
        raise Refused(404, 10015, "Unknown Webhook")
    data = request.message
    if state.response == 5 and not state.original_filled:
        # The first follow-up after a deferred response fills the "thinking" message: an edit
        # with the defer's visibility. Its own ephemeral flag is ignored; it pings nobody.
        fake.check_body(request, new=True)
        stored = fake.messages[state.original_id]  # type: ignore[index]
        fake.edit_message(stored, data, request.files)
        stored.how = "deferred-filled"
        state.original_filled = True
        return stored.payload
    fake.check_body(request, new=True)
    ephemeral = bool(int(data.get("flags") or 0) & EPHEMERAL)
    stored = fake.new_message(
        state.channel_id,
        data,
        request.files,
        how="followup",
        interaction=state,
        ephemeral=ephemeral,
    )
    return stored.payload


def _webhook_message(fake: FakeDiscord, request: Request, values: dict[str, str]) -> Any:
    state = fake.interaction_of(request, values["webhook_token"])
    message_id = values.get("message_id", "@original")
    target = state.original_id if message_id == "@original" else int(message_id)
    stored = fake.messages.get(target) if target is not None else None
    if stored is None or stored.deleted:
        raise Refused(404, 10008, "Unknown Message")
    if request.method == "GET":
        return stored.payload
    if request.method == "DELETE":
        stored.deleted = True
        return None
    if fake.archived(stored.channel_id):
        raise Refused(400, 50083, "Thread is archived")
    fake.check_body(request, new=False)
    if stored.how == "deferred":
        stored.how = "deferred-filled"
        state.original_filled = True
    return fake.edit_message(stored, request.message, request.files).payload


def _channel_message_create(fake: FakeDiscord, request: Request, values: dict[str, str]) -> Any:
    channel_id = int(values["channel_id"])
    thread = fake.is_thread(channel_id)
    need = ["send_messages_in_threads" if thread else "send_messages"]
    data = request.message
    if data.get("embeds"):
        need.append("embed_links")
    if request.files:
        need.append("attach_files")
    fake.bot_can(channel_id, *need)
    if fake.archived(channel_id):  # (model) a bot unarchives before it posts
        raise Refused(400, 50083, "Thread is archived")
    fake.check_body(request, new=True)
    return fake.new_message(
        channel_id, data, request.files, how="channel", interaction=None, ephemeral=False
    ).payload


def _channel_message(fake: FakeDiscord, request: Request, values: dict[str, str]) -> Any:
    channel_id, message_id = int(values["channel_id"]), int(values["message_id"])
    fake.bot_can(channel_id)
    stored = fake.messages.get(message_id)
    if stored is None or stored.deleted or stored.ephemeral or stored.channel_id != channel_id:
        raise Refused(404, 10008, "Unknown Message")  # ephemeral messages exist only for one user
    if request.method == "GET":
        return stored.payload
    if fake.archived(channel_id):
        raise Refused(400, 50083, "Thread is archived")
    if request.method == "DELETE":
        stored.deleted = True
        return None
    fake.check_body(request, new=False)
    return fake.edit_message(stored, request.message, request.files).payload


def _thread_create(fake: FakeDiscord, request: Request, values: dict[str, str]) -> Any:
    parent_id = int(values["channel_id"])
    parent = fake.channels.get(parent_id)
    if parent is None:
        raise Refused(404, 10003, "Unknown Channel")
    body = request.body or {}
    name = str(body.get("name") or "")
    duration = body.get("auto_archive_duration")
    problems = []
    if not 1 <= len(name) <= 100:
        problems.append(f"thread name has {len(name)} characters (1..100)")
    if duration not in ARCHIVE_DURATIONS:
        problems.append(f"auto_archive_duration {duration} is not one of {ARCHIVE_DURATIONS}")
    kind = int(body.get("type") or 11)
    if parent["type"] == 15:  # a forum post: a thread with its first message
        kind = 11
        fake.bot_can(parent_id, "send_messages", "send_messages_in_threads")
        if "message" not in body:
            problems.append("a forum post needs its first message")
        else:
            problems += message_problems(request.message, request.files, new=True)
    elif parent["type"] == 5:
        if kind != 10:
            problems.append(f"a thread of type {kind} in an announcement channel (must be 10)")
        fake.bot_can(parent_id, "create_public_threads")
    elif parent["type"] == 0:
        if kind not in (11, 12):
            problems.append(f"a thread of type {kind} in a text channel")
        fake.bot_can(parent_id, "create_public_threads" if kind == 11 else "create_private_threads")
    else:
        raise Refused(400, 50024, "Cannot execute action on this channel type")
    if problems:
        request.problems += problems
        raise Refused(400, 50035, "Invalid Form Body")
    thread_id = snowflake()
    data = thread_payload(
        thread_id,
        fake.guild_id,
        parent_id,
        fake.bot_id,
        name,
        kind=kind,
        auto_archive_duration=int(duration),  # type: ignore[arg-type]
    )
    fake.threads[thread_id] = data
    fake.dispatch("THREAD_CREATE", {**data, "newly_created": True})
    answer = dict(data)
    if parent["type"] == 15:
        post = fake.new_message(
            thread_id,
            request.message,
            request.files,
            how="forum-post",
            interaction=None,
            ephemeral=False,
        )
        answer["message"] = post.payload
    return answer


def _channel(fake: FakeDiscord, request: Request, values: dict[str, str]) -> Any:
    channel_id = int(values["channel_id"])
    data = fake.threads.get(channel_id)
    if data is None:
        if channel_id in fake.channels:
            request.problems.append("the bot edited or deleted a guild channel")
            raise Refused(403, 50013, "Missing Permissions")
        raise Refused(404, 10003, "Unknown Channel")
    fake.bot_can(channel_id)
    place = fake.place(channel_id)
    perms = place.permissions_for(fake.guild().me)
    owner = int(data["owner_id"]) == fake.bot_id
    meta = data["thread_metadata"]
    if request.method == "DELETE":
        if not perms.manage_threads:
            raise Refused(403, 50013, "Missing Permissions")
        del fake.threads[channel_id]
        fake.dispatch(
            "THREAD_DELETE",
            {
                "id": str(channel_id),
                "guild_id": str(fake.guild_id),
                "parent_id": data["parent_id"],
                "type": data["type"],
            },
        )
        return data
    body = request.body or {}
    if "locked" in body and not perms.manage_threads:
        raise Refused(403, 50013, "Missing Permissions")
    if ("archived" in body or "auto_archive_duration" in body or "name" in body) and not (
        owner or perms.manage_threads
    ):
        if not (body.get("archived") is False and not meta["locked"] and len(body) == 1):
            raise Refused(403, 50013, "Missing Permissions")
    if meta["locked"] and body.get("archived") is False and not perms.manage_threads:
        raise Refused(403, 50013, "Missing Permissions")
    if meta["archived"] and body.get("archived") is not False:
        raise Refused(400, 50083, "Thread is archived")
    duration = body.get("auto_archive_duration")
    if duration is not None and duration not in ARCHIVE_DURATIONS:
        request.problems.append(f"auto_archive_duration {duration}")
        raise Refused(400, 50035, "Invalid Form Body")
    for key in ("archived", "locked", "auto_archive_duration"):
        if key in body:
            meta[key] = body[key]
    if "name" in body:
        data["name"] = body["name"]
    fake.dispatch("THREAD_UPDATE", dict(data))
    return data


ROUTES: dict[str, Callable[[FakeDiscord, Request, dict[str, str]], Any]] = {
    "GET /users/@me": _login,
    "GET /oauth2/applications/@me": _application,
    "POST /interactions/{webhook_id}/{webhook_token}/callback": _callback,
    "POST /webhooks/{webhook_id}/{webhook_token}": _followup,
    "GET /webhooks/{webhook_id}/{webhook_token}/messages/{message_id}": _webhook_message,
    "PATCH /webhooks/{webhook_id}/{webhook_token}/messages/{message_id}": _webhook_message,
    "DELETE /webhooks/{webhook_id}/{webhook_token}/messages/{message_id}": _webhook_message,
    "GET /webhooks/{webhook_id}/{webhook_token}/messages/@original": _webhook_message,
    "PATCH /webhooks/{webhook_id}/{webhook_token}/messages/@original": _webhook_message,
    "DELETE /webhooks/{webhook_id}/{webhook_token}/messages/@original": _webhook_message,
    "POST /channels/{channel_id}/messages": _channel_message_create,
    "GET /channels/{channel_id}/messages/{message_id}": _channel_message,
    "PATCH /channels/{channel_id}/messages/{message_id}": _channel_message,
    "DELETE /channels/{channel_id}/messages/{message_id}": _channel_message,
    "POST /channels/{channel_id}/threads": _thread_create,
    "PATCH /channels/{channel_id}": _channel,
    "DELETE /channels/{channel_id}": _channel,
}
