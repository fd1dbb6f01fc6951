"""Discord's side of the data for the harness: raw gateway payloads (users, members, roles,
channels, threads, a guild) and Discord's documented limits on what a bot may send
(``message_problems``, ``choice_problems``). Used by ``discord_fake`` and ``harness``."""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import Any

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
