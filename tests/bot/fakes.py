"""Fake Discord objects for testing the cogs and buttons without a network.

They implement only what the bot uses, and record every call, in order, in one shared
``CallLog``: ``("defer", ...)``, ``("send_message", ...)``, ``("followup", ...)``,
``("render", ...)`` (from the fake renderer), ``("create_thread", ...)`` and so on.

Use a ``Table``: it opens a real ``GameService`` on a temporary SQLite file with a fake
renderer, and makes guilds, channels, members and interactions::

    table = await Table.open(tmp_path)
    alice, bob = table.member("alice"), table.member("bob")
    inter = table.interaction(alice)
    await cog.play.callback(cog, inter, "kings_guard", bob)
    await table.press(table.last_sent().button("Accept"), table.interaction(bob))
"""

from __future__ import annotations

import io
import itertools
import random
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import discord
from PIL import Image

from bot.discord_app import Settings, service_label
from bot.service import GameService
from bot.views import DYNAMIC_ITEMS

_ids = itertools.count(1_000_000_000_000_000)


def snowflake() -> int:
    return next(_ids)


def tiny_png() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (8, 8), (200, 180, 140)).save(out, format="PNG")
    return out.getvalue()


PNG = tiny_png()


class CallLog(list[tuple[Any, ...]]):
    """Every call on the fakes, in order. Thread-safe appends (the renderer runs in a thread)."""

    def __init__(self) -> None:
        super().__init__()
        self._lock = threading.Lock()

    def add(self, *entry: Any) -> None:
        with self._lock:
            self.append(entry)

    def names(self) -> list[str]:
        return [str(entry[0]) for entry in self]

    def index_of(self, name: str) -> int:
        return self.names().index(name)


@dataclass
class Sent:
    """One message sent by the bot, wherever it went."""

    how: str  # 'send_message' | 'followup' | 'channel'
    where: int  # channel id
    content: str | None
    embed: discord.Embed | None
    files: list[discord.File]
    view: discord.ui.View | None
    ephemeral: bool

    @property
    def text(self) -> str:
        parts = [self.content or ""]
        if self.embed is not None:
            parts.append(self.embed.title or "")
            parts.append(self.embed.description or "")
            parts += [f"{f.name}: {f.value}" for f in self.embed.fields]
        return "\n".join(parts)

    def custom_ids(self) -> list[str]:
        if self.view is None:
            return []
        return [str(getattr(item, "custom_id", "")) for item in self.view.children]

    def button(self, label: str) -> str:
        """The custom_id of the button with this label."""
        assert self.view is not None, "no buttons on this message"
        for item in self.view.children:
            inner = getattr(item, "item", item)
            if getattr(inner, "label", None) == label:
                return str(inner.custom_id)
        labels = [getattr(getattr(i, "item", i), "label", "?") for i in self.view.children]
        raise AssertionError(f"no button {label!r}; have {labels}")

    def filenames(self) -> list[str]:
        return [f.filename for f in self.files]


def _sent(how: str, where: int, kwargs: dict[str, Any], content: str | None) -> Sent:
    files = list(kwargs.get("files") or [])
    if kwargs.get("file") is not None:
        files.append(kwargs["file"])
    embed = kwargs.get("embed")
    if embed is None and kwargs.get("embeds"):
        embed = kwargs["embeds"][0]
    return Sent(
        how,
        where,
        content if content is not None else kwargs.get("content"),
        embed,
        files,
        kwargs.get("view"),
        bool(kwargs.get("ephemeral", False)),
    )


class FakeMessage:
    def __init__(self, table: Table, sent: Sent) -> None:
        self.id = snowflake()
        self.table = table
        self.sent = sent
        self.channel_id = sent.where
        self.edits: list[dict[str, Any]] = []

    async def edit(self, **kwargs: Any) -> FakeMessage:
        self.table.log.add("message_edit", self.id, kwargs)
        self.edits.append(kwargs)
        if "view" in kwargs:
            self.sent.view = kwargs["view"]
        return self


@dataclass(eq=False)
class FakeMember:
    id: int
    name: str
    bot: bool = False

    @property
    def display_name(self) -> str:
        return self.name.capitalize()

    @property
    def mention(self) -> str:
        return f"<@{self.id}>"

    def __str__(self) -> str:
        return self.name


@dataclass(eq=False)
class FakeGuild:
    id: int
    name: str = "Garden"
    channels: dict[int, FakeChannel] = field(default_factory=dict)


class FakeChannel:
    type = discord.ChannelType.text

    def __init__(self, table: Table, guild: FakeGuild | None, name: str) -> None:
        self.id = snowflake()
        self.table = table
        self.guild = guild
        self.name = name
        if guild is not None:
            guild.channels[self.id] = self

    @property
    def mention(self) -> str:
        return f"<#{self.id}>"

    @property
    def jump_url(self) -> str:
        guild = self.guild.id if self.guild is not None else "@me"
        return f"https://discord.com/channels/{guild}/{self.id}"

    async def send(self, content: str | None = None, **kwargs: Any) -> FakeMessage:
        self.table.log.add("channel_send", self.id)
        return self.table.record(_sent("channel", self.id, kwargs, content))

    async def create_thread(self, *, name: str, **kwargs: Any) -> FakeThread:
        self.table.log.add("create_thread", self.id, name, kwargs)
        if self.table.thread_error is not None:
            raise self.table.thread_error
        thread = FakeThread(self.table, self.guild, name, self)
        self.table.threads.append(thread)
        return thread


class FakeThread(FakeChannel):
    type = discord.ChannelType.public_thread

    def __init__(
        self, table: Table, guild: FakeGuild | None, name: str, parent: FakeChannel
    ) -> None:
        super().__init__(table, guild, name)
        self.parent = parent

    async def create_thread(self, *, name: str, **kwargs: Any) -> FakeThread:
        raise AssertionError("Discord has no threads inside threads")


class FakeResponse:
    def __init__(self, interaction: FakeInteraction) -> None:
        self.interaction = interaction
        self.done = False
        self.deferred: dict[str, Any] | None = None

    def is_done(self) -> bool:
        return self.done

    def _use(self, what: str) -> None:
        if self.done:
            raise AssertionError(f"{what}: the interaction was already responded to")
        self.done = True

    async def defer(self, *, ephemeral: bool = False, thinking: bool = False) -> None:
        self._use("defer")
        self.deferred = {"ephemeral": ephemeral, "thinking": thinking}
        self.interaction.table.log.add("defer", ephemeral, thinking)

    async def send_message(self, content: str | None = None, **kwargs: Any) -> None:
        self._use("send_message")
        table = self.interaction.table
        table.log.add("send_message", bool(kwargs.get("ephemeral")))
        table.record(_sent("send_message", self.interaction.channel_id, kwargs, content))

    async def edit_message(self, **kwargs: Any) -> None:
        self._use("edit_message")
        self.interaction.table.log.add("edit_message", kwargs)


class FakeFollowup:
    def __init__(self, interaction: FakeInteraction) -> None:
        self.interaction = interaction

    async def send(self, content: str | None = None, **kwargs: Any) -> FakeMessage:
        response = self.interaction.response
        if not response.done:
            raise AssertionError("followup.send before the interaction was responded to")
        table = self.interaction.table
        ephemeral = bool(kwargs.get("ephemeral"))
        if response.deferred is not None and not self.interaction.followups:
            ephemeral = bool(response.deferred["ephemeral"])  # the first follow-up fills the defer
        self.interaction.followups += 1
        table.log.add("followup", ephemeral)
        kwargs["ephemeral"] = ephemeral
        return table.record(_sent("followup", self.interaction.channel_id, kwargs, content))


@dataclass
class FakeClient:
    service: GameService
    settings: Settings


class FakeInteraction:
    def __init__(
        self,
        table: Table,
        user: FakeMember,
        channel: FakeChannel,
        *,
        permissions: discord.Permissions | None = None,
        message: FakeMessage | None = None,
    ) -> None:
        self.table = table
        self.id = snowflake()
        self.user = user
        self.channel = channel
        self.channel_id = channel.id
        self.guild = channel.guild
        self.guild_id = channel.guild.id if channel.guild is not None else None
        self.permissions = permissions or discord.Permissions.none()
        self.client = table.client
        self.message = message
        self.response = FakeResponse(self)
        self.followup = FakeFollowup(self)
        self.followups = 0


class Table:
    """One test's world: a service on a temporary database, a guild, a channel, members."""

    def __init__(self, service: GameService, log: CallLog) -> None:
        self.service = service
        self.log = log
        self.client = FakeClient(service, Settings())
        self.guild = FakeGuild(snowflake())
        self.channel = FakeChannel(self, self.guild, "chess")
        self.sent: list[Sent] = []
        self.messages: list[FakeMessage] = []
        self.threads: list[FakeThread] = []
        self.thread_error: Exception | None = None
        self.render_delay = 0.0

    @classmethod
    async def open(cls, tmp_path: Path, *, seed: int = 7) -> Table:
        log = CallLog()
        holder: list[Table] = []

        def renderer(game: Any, orientation: str) -> bytes:
            log.add("render_start", orientation)
            if holder and holder[0].render_delay:
                time.sleep(holder[0].render_delay)
            log.add("render", orientation)
            return PNG

        seeds = itertools.count()
        service = await GameService.open(
            str(tmp_path / "bot-test.sqlite3"),
            renderer=renderer,
            label=service_label,
            rng=random.Random(seed),
            seed_factory=lambda: f"test-seed-{seed}-{next(seeds)}",
        )
        table = cls(service, log)
        holder.append(table)
        return table

    async def close(self) -> None:
        await self.service.close()

    def member(self, name: str, *, bot: bool = False) -> FakeMember:
        return FakeMember(snowflake(), name, bot)

    def interaction(
        self,
        user: FakeMember,
        channel: FakeChannel | None = None,
        *,
        moderator: bool = False,
        message: FakeMessage | None = None,
    ) -> FakeInteraction:
        perms = (
            discord.Permissions(manage_messages=True) if moderator else discord.Permissions.none()
        )
        return FakeInteraction(
            self, user, channel or self.channel, permissions=perms, message=message
        )

    def record(self, sent: Sent) -> FakeMessage:
        self.sent.append(sent)
        message = FakeMessage(self, sent)
        self.messages.append(message)
        return message

    def last_sent(self, *, with_view: bool = False) -> Sent:
        for sent in reversed(self.sent):
            if not with_view or sent.view is not None:
                return sent
        raise AssertionError("nothing sent")

    def message_of(self, sent: Sent) -> FakeMessage:
        return next(m for m in self.messages if m.sent is sent)

    async def press(
        self, custom_id: str, interaction: FakeInteraction
    ) -> discord.ui.DynamicItem[Any]:
        """What discord.py does with a click: match a template, rebuild, call back."""
        for cls in DYNAMIC_ITEMS:
            match = cls.__discord_ui_compiled_template__.fullmatch(custom_id)  # type: ignore[attr-defined]
            if match is not None:
                button = discord.ui.Button[Any](custom_id=custom_id)
                item = await cls.from_custom_id(interaction, button, match)  # type: ignore[arg-type]
                await item.callback(interaction)  # type: ignore[arg-type]
                return item
        raise AssertionError(f"no dynamic item matches {custom_id!r}")
