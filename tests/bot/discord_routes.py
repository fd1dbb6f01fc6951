"""The fake Discord's route handlers: one function per REST route the bot uses, answering
the way Discord does (see ``discord_fake`` for the model and its assumptions)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from discord_fake import ARCHIVE_DURATIONS, EPHEMERAL, INTERACTION_DEADLINE, Refused
from discord_payloads import (
    snowflake,
    thread_payload,
    user_payload,
)

if TYPE_CHECKING:
    from discord_fake import FakeDiscord, Request


NONCE_WINDOW = 300.0  # (model) "the past few minutes" of Discord's enforce_nonce


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
        if state.kind != 4:
            request.problems.append("an autocomplete answer to something that is not autocomplete")
        if request.problems:
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
    nonce = data.get("nonce")
    if nonce is not None and data.get("enforce_nonce"):
        # Discord: with enforce_nonce, a nonce used by the same author in the past few
        # minutes returns that message, and no new one is created.
        known = fake.nonces.get((channel_id, str(nonce)))
        if known is not None and fake.now() - known[1] < NONCE_WINDOW:
            return fake.messages[known[0]].payload
    stored = fake.new_message(
        channel_id, data, request.files, how="channel", interaction=None, ephemeral=False
    )
    if nonce is not None:
        stored.payload["nonce"] = str(nonce)
        fake.nonces[(channel_id, str(nonce))] = (stored.id, fake.now())
    return stored.payload


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
    request.problems += problems
    if request.problems:
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
