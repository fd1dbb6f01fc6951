"""The payload-level Discord harness: the real ``ChessGardenBot`` fed raw gateway payloads.

- The bot logs in (``Client.login``: ``GET /users/@me``, the application, then its own
  ``setup_hook``, which loads the cogs and registers the dynamic buttons);
- a guild is parsed by discord.py from a raw ``GUILD_CREATE`` payload: roles, the bot's
  member, text, announcement, forum and voice channels, overwrites;
- interactions are raw ``INTERACTION_CREATE`` payloads parsed by ``ConnectionState``: slash
  commands with typed options (checked against the real command tree: names, choices,
  ranges), autocomplete, and button presses carrying the message they were on.

Only the two network edges are replaced (``discord_fake``): the bot-token
``HTTPClient.request`` and the webhook adapter of interaction callbacks and follow-ups.
Every request is recorded and checked against Discord's limits, and after each interaction
``World.feed`` checks what Discord would show: an answer within 3 s, no "thinking…" left,
no request over a limit.

    world = await World.open(tmp_path)
    alice, bob = world.user("alice"), world.user("bob")
    ex = await world.command(alice, "play", variant="kings_guard", opponent=bob, colour="white")
    ex = await world.press(bob, ex.public[0], "Accept")
"""

from __future__ import annotations

import asyncio
import itertools
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

import discord
from discord import app_commands
from discord.webhook.async_ import async_context
from discord_fake import (
    EPHEMERAL,
    FakeDiscord,
    InteractionState,
    RecordingWebhookAdapter,
    Request,
    StoredMessage,
)
from discord_payloads import (
    channel_payload,
    guild_payload,
    member_payload,
    overwrite,
    role_payload,
    snowflake,
    thread_payload,
    user_payload,
)
from PIL import Image

from bot.discord.app import ChessGardenBot, Settings, make_bot, service_label
from bot.service import GameService, ManualClock

P = discord.Permissions
EVERYONE_PERMS = P(
    view_channel=True,
    send_messages=True,
    read_message_history=True,
    embed_links=True,
    attach_files=True,
    use_application_commands=True,
    create_public_threads=True,
    send_messages_in_threads=True,
    connect=True,
    speak=True,
)
BOT_PERMS = P(
    send_messages=True,
    embed_links=True,
    attach_files=True,
    create_public_threads=True,
    send_messages_in_threads=True,
)  # the five of the invite link (docs/discord.md)


def tiny_png(colour: tuple[int, int, int] = (200, 180, 140)) -> bytes:
    import io

    out = io.BytesIO()
    Image.new("RGB", (8, 8), colour).save(out, format="PNG")
    return out.getvalue()


PNG = tiny_png()


@dataclass(frozen=True)
class Person:
    id: int
    name: str
    roles: tuple[int, ...] = ()
    locale: str = "en-GB"  # the person's Discord language, sent with each interaction

    @property
    def mention(self) -> str:
        return f"<@{self.id}>"

    def payload(self) -> dict[str, Any]:
        return user_payload(self.id, self.name)


@dataclass
class Exchange:
    """One interaction and everything the bot sent while handling it."""

    interaction: InteractionState
    requests: list[Request]
    created: list[StoredMessage]  # messages that appeared (new, or a filled "thinking")
    edited: list[StoredMessage]
    choices: list[dict[str, Any]] | None = None  # an autocomplete answer

    @property
    def public(self) -> list[StoredMessage]:
        return [m for m in self.created if not m.ephemeral]

    @property
    def private(self) -> list[StoredMessage]:
        return [m for m in self.created if m.ephemeral]

    @property
    def bot_requests(self) -> list[Request]:
        return [r for r in self.requests if r.edge == "bot"]

    @property
    def pings(self) -> set[int]:
        return set().union(*(m.pings for m in self.created)) if self.created else set()

    @property
    def text(self) -> str:
        return "\n".join(m.text for m in self.created)

    def only_private(self) -> StoredMessage:
        """The one message this produced, which must be private to the caller."""
        assert not self.public, (
            f"expected only a private answer, got public: {self.public[0].text!r}"
        )
        assert len(self.private) == 1, f"expected one private answer, got {len(self.private)}"
        return self.private[0]

    def summary(self) -> str:
        return "\n".join(r.summary() for r in self.requests)


class World:
    """A guild, a bot, a fake Discord and a game service on a temporary database."""

    def __init__(self, bot: ChessGardenBot, fake: FakeDiscord, service: GameService) -> None:
        self.bot = bot
        self.discord = fake
        self.service = service
        self.expect_answers = True  # ``feed``: every interaction must be answered
        self.adapter = RecordingWebhookAdapter(fake)
        self.guild_id = snowflake()
        self.owner = Person(snowflake(), "owner")
        self.everyone_role = self.guild_id
        self.bot_role = snowflake()
        self.mod_role = snowflake()
        self.admin_role = snowflake()  # Manage Server (/settings, issue 27)
        self.people: dict[str, Person] = {}
        self.guild_locale = "en-US"  # the server's language, sent with each interaction
        self.channels: dict[str, int] = {}
        self.exchanges: list[Exchange] = []
        self.render_delay = 0.0
        self._command_ids: dict[str, int] = {}
        self._roles: list[dict[str, Any]] = []
        self._dm_channels: dict[int, int] = {}
        self.open_service: Any = None  # opens the service again (``restart(service=True)``)

    # ----- opening -----------------------------------------------------------------------

    @classmethod
    async def open(
        cls,
        tmp_path: Path,
        *,
        seed: int = 7,
        real_images: bool = False,
        settings: Settings | None = None,
        defer_after: float | None = None,
        clock: Any = None,
        target: str | None = None,
    ) -> World:
        """``target``: the store (an SQLite path or a PostgreSQL URL; default a file in
        ``tmp_path``)."""
        holder: list[World] = []

        def renderer(
            game: Any, orientation: str, theme: str = "classic", *, locale: str = "en"
        ) -> bytes:
            if holder and holder[0].render_delay:
                time.sleep(holder[0].render_delay)
            if real_images:  # the service's own drawing (its words in ``locale``)
                from bot.service.live import render_board

                return render_board(game, orientation, theme, locale=locale)
            return PNG

        seeds = itertools.count()
        settings = settings or Settings()

        async def open_service() -> GameService:
            return await GameService.open(
                target or str(tmp_path / "harness.sqlite3"),
                renderer=renderer,
                label=service_label,
                rng=random.Random(seed),
                seed_factory=lambda: f"harness-seed-{seed}-{next(seeds)}",
                max_open_challenges=settings.max_challenges,
                challenge_hours=settings.challenge_hours,
                shards=settings.shards,
                clock=clock,  # a bot.service.ManualClock: days pass in a moment (issue 13)
            )

        service = await open_service()
        bot = make_bot(service, settings)  # sharded with settings.shard_count (issue 16)
        if defer_after is not None:
            bot.defer_after = defer_after
        fake = FakeDiscord(
            bot_id=snowflake(), application_id=snowflake(), state_of=lambda: bot._connection
        )
        world = cls(bot, fake, service)
        world.open_service = open_service
        holder.append(world)
        bot.http.request = fake.bot_request  # type: ignore[method-assign]
        async_context.set(world.adapter)
        await bot.login("harness-token")  # GET /users/@me, the application, then setup_hook
        world._create_guild()
        return world

    async def close(self) -> None:
        await self.bot.close()
        await self.service.close()

    def _create_guild(self, *, again: bool = False) -> None:
        fake = self.discord
        if again:  # the same guild, as the gateway describes it after a restart
            self._guild_create(
                list(fake.channels.values()),
                [t for t in fake.threads.values() if not t["thread_metadata"]["archived"]],
            )
            return
        fake.guild_id = self.guild_id
        g = self.guild_id
        roles = [
            role_payload(self.everyone_role, "@everyone", EVERYONE_PERMS.value, 0),
            role_payload(self.bot_role, "Chess Garden", BOT_PERMS.value, 1),
            role_payload(self.mod_role, "Moderator", P(manage_messages=True).value, 2),
            role_payload(self.admin_role, "Admin", P(manage_guild=True).value, 3),
        ]
        deny_threads = P(create_public_threads=True, send_messages_in_threads=True).value
        specs = [
            ("chess", 0, ()),
            ("lobby", 0, ()),
            ("news", 5, ()),
            ("forum", 15, ()),
            ("voice", 2, ()),
            # the bot may not make threads here
            ("nothreads", 0, (overwrite(self.bot_role, deny=deny_threads),)),
            # the bot may make threads but not post in them (a misconfigured server)
            (
                "quiet",
                0,
                (overwrite(self.bot_role, deny=P(send_messages_in_threads=True).value),),
            ),
        ]
        channels = []
        for position, (name, kind, overwrites) in enumerate(specs):
            channel_id = snowflake()
            self.channels[name] = channel_id
            data = channel_payload(
                channel_id, g, name, kind, position=position, overwrites=overwrites
            )
            fake.channels[channel_id] = data
            channels.append(data)
        self._roles = roles
        self._guild_create(channels, [])

    def _guild_create(self, channels: list[dict[str, Any]], threads: list[dict[str, Any]]) -> None:
        fake = self.discord
        bot_user = user_payload(fake.bot_id, "chessgarden", bot=True)
        members = [
            member_payload(bot_user, [self.bot_role]),
            member_payload(self.owner.payload(), []),
        ]
        payload = guild_payload(
            self.guild_id,
            "Garden",
            roles=self._roles,
            channels=channels,
            threads=threads,
            members=members,
            owner_id=self.owner.id,
        )
        fake.dispatch("GUILD_CREATE", payload)

    def grant_bot(self, **perms: bool) -> None:
        """Give the bot's role more permissions (Discord sends GUILD_ROLE_UPDATE)."""
        role = next(r for r in self._roles if r["id"] == str(self.bot_role))
        value = P(int(role["permissions"]))
        value.update(**perms)
        role["permissions"] = str(value.value)
        self.discord.dispatch("GUILD_ROLE_UPDATE", {"guild_id": str(self.guild_id), "role": role})

    # ----- people and places -------------------------------------------------------------------

    def user(
        self,
        name: str,
        *,
        moderator: bool = False,
        admin: bool = False,
        locale: str = "en-GB",
        roles: tuple[int, ...] = (),
    ) -> Person:
        """A member; ``roles``: further roles of this server (``add_role``)."""
        if name not in self.people:
            own = ((self.mod_role,) if moderator else ()) + ((self.admin_role,) if admin else ())
            self.people[name] = Person(snowflake(), name, own + roles, locale)
        return self.people[name]

    def add_role(self, name: str, **perms: bool) -> int:
        """A new role on the server, with these permissions (Discord sends GUILD_ROLE_CREATE)."""
        role_id = snowflake()
        role = role_payload(role_id, name, P(**perms).value, len(self._roles))
        self._roles.append(role)
        self.discord.dispatch("GUILD_ROLE_CREATE", {"guild_id": str(self.guild_id), "role": role})
        return role_id

    @property
    def chess(self) -> int:
        return self.channels["chess"]

    def threads(self) -> list[dict[str, Any]]:
        return list(self.discord.threads.values())

    def messages_in(self, channel_id: int) -> list[StoredMessage]:
        return [
            m
            for m in self.discord.messages.values()
            if m.channel_id == channel_id and not m.deleted
        ]

    def with_buttons(self, channel_id: int | None = None) -> list[StoredMessage]:
        """Public messages that still carry buttons (what a reader could press)."""
        return [
            m
            for m in self.discord.messages.values()
            if not m.deleted
            and not m.ephemeral
            and m.buttons()
            and (channel_id is None or m.channel_id == channel_id)
        ]

    # ----- interactions ------------------------------------------------------------------------

    def _member(self, person: Person) -> discord.Member:
        guild = self.discord.guild()
        data = member_payload(person.payload(), person.roles)
        return discord.Member(data=data, guild=guild, state=self.bot._connection)  # type: ignore[arg-type]

    def _base(self, person: Person, channel_id: int | None, kind: int) -> dict[str, Any]:
        interaction_id = snowflake()
        payload: dict[str, Any] = {
            "id": str(interaction_id),
            "application_id": str(self.discord.application_id),
            "type": kind,
            "token": f"token-{interaction_id}",
            "version": 1,
            "locale": person.locale,
            "entitlements": [],
            "attachment_size_limit": 25 * 1024 * 1024,
        }
        if channel_id is None:  # a DM with the bot
            dm = self._dm_channels.setdefault(person.id, snowflake())
            self.discord.dm_channels.add(dm)
            payload.update(
                channel={"id": str(dm), "type": 1, "recipients": [person.payload()]},
                channel_id=str(dm),
                user=person.payload(),
                context=1,
                authorizing_integration_owners={"0": str(self.discord.application_id)},
                app_permissions=str(
                    P(send_messages=True, embed_links=True, attach_files=True).value
                ),
            )
            return payload
        place = self.discord.place(channel_id)
        assert place is not None, f"no channel {channel_id}"
        raw = self.discord.threads.get(channel_id) or self.discord.channels[channel_id]
        member = self._member(person)
        payload.update(
            guild_id=str(self.guild_id),
            guild={"id": str(self.guild_id), "locale": self.guild_locale, "features": []},
            guild_locale=self.guild_locale,
            channel=dict(raw),
            channel_id=str(channel_id),
            member=member_payload(
                person.payload(), person.roles, permissions=place.permissions_for(member).value
            ),
            app_permissions=str(place.permissions_for(self.discord.guild().me).value),
            context=0,
            authorizing_integration_owners={"0": str(self.guild_id)},
        )
        return payload

    def _command_options(
        self, name: str, options: dict[str, Any], focused: str | None = None
    ) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        """Options the way Discord sends them, after checking what Discord's client would allow."""
        command = self._slash(name)
        params = {p.display_name: p for p in command.parameters}
        unknown = set(options) - set(params)
        assert not unknown, f"/{name} has no option {unknown}"
        missing = [p for p in params.values() if p.required and p.display_name not in options]
        assert focused is not None or not missing, f"/{name} needs {[p.name for p in missing]}"
        out: list[dict[str, Any]] = []
        resolved: dict[str, Any] = {}
        for key, value in options.items():
            param = params[key]
            kind = param.type
            item: dict[str, Any] = {"name": key, "type": kind.value}
            if key == focused:
                item.update(value=str(value), focused=True)
                out.append(item)
                continue
            if kind is discord.AppCommandOptionType.channel:
                channel_id = self._channel(value)  # a channel's name here, or an id
                assert channel_id is not None
                raw = self.discord.threads.get(channel_id) or self.discord.channels[channel_id]
                allowed = [t.value for t in param.channel_types]
                assert not allowed or raw["type"] in allowed, (
                    f"Discord offers only channel types {allowed} for {key}"
                )
                item["value"] = str(channel_id)
                resolved.setdefault("channels", {})[str(channel_id)] = {
                    **{k: raw[k] for k in ("id", "type", "name") if k in raw},
                    "permissions": str(EVERYONE_PERMS.value),
                    **({"parent_id": raw["parent_id"]} if raw.get("parent_id") else {}),
                    **(
                        {"thread_metadata": raw["thread_metadata"]}
                        if "thread_metadata" in raw
                        else {}
                    ),
                }
            elif kind is discord.AppCommandOptionType.role:
                role = next(r for r in self._roles if r["id"] == str(value))  # a role's id
                item["value"] = role["id"]
                resolved.setdefault("roles", {})[role["id"]] = role
            elif kind in (discord.AppCommandOptionType.user,):
                person: Person = value
                item["value"] = str(person.id)
                resolved.setdefault("users", {})[str(person.id)] = person.payload()
                data = member_payload(person.payload(), person.roles, permissions=0)
                data.pop("user")
                resolved.setdefault("members", {})[str(person.id)] = data
            else:
                if param.choices:
                    allowed = [c.value for c in param.choices]
                    assert value in allowed, f"Discord offers only {allowed} for {key}"
                if kind is discord.AppCommandOptionType.string:
                    assert isinstance(value, str)
                    low, high = param.min_value, param.max_value
                    if low is not None:
                        assert len(value) >= low, f"Discord requires {key} >= {low} characters"
                    if high is not None:
                        assert len(value) <= high, f"Discord allows {key} <= {high} characters"
                elif kind is discord.AppCommandOptionType.integer:
                    assert isinstance(value, int) and -(2**53) <= value <= 2**53
                    if param.min_value is not None:
                        assert value >= param.min_value, (
                            f"Discord requires {key} >= {param.min_value}"
                        )
                    if param.max_value is not None:
                        assert value <= param.max_value, (
                            f"Discord requires {key} <= {param.max_value}"
                        )
                item["value"] = value
            out.append(item)
        return out, resolved

    async def command(
        self,
        person: Person,
        name: str,
        *,
        channel: int | None | str = "chess",
        stale_client: bool = False,
        **options: Any,
    ) -> Exchange:
        """``/name option=value ...`` by ``person`` in ``channel`` (a name, an id, or None: a DM).

        ``stale_client``: send it even where Discord's client would not offer it (a
        guild-only command in a DM): what a stale command cache or a forged payload sends,
        as Discord does not check ``guild_only`` itself (the DM variant of the payload: no
        ``guild_id``, a channel of type 1, ``user`` instead of ``member``)."""
        channel_id = self._channel(channel)
        opts, resolved = self._command_options(name, options)
        top = name.split()[0]
        command = self.bot.tree.get_command(top)
        if channel_id is None and getattr(command, "guild_only", False) and not stale_client:
            raise AssertionError(f"/{name} works only in servers: Discord offers it in no DM")
        payload = self._base(person, channel_id, 2)
        if " " in name:  # a subcommand ("tournament join"): Discord nests its options
            opts = [{"name": name.split()[1], "type": 1, "options": opts}]
        data: dict[str, Any] = {
            "id": str(self._command_ids.setdefault(top, snowflake())),
            "name": top,
            "type": 1,
            "options": opts,
        }
        if resolved:
            data["resolved"] = resolved
        payload["data"] = data
        return await self.feed(payload)

    def _slash(self, name: str) -> app_commands.Command[Any, ..., Any]:
        """The command ``name`` names: ``play``, or a group's subcommand ``tournament join``."""
        top, _, sub = name.partition(" ")
        command = self.bot.tree.get_command(top)
        if sub:
            assert isinstance(command, app_commands.Group), f"/{top} has no subcommands"
            command = command.get_command(sub)
        assert isinstance(command, app_commands.Command), f"/{name} is not a slash command"
        return command

    async def autocomplete(
        self,
        person: Person,
        name: str,
        focused: str,
        *,
        channel: int | None | str = "chess",
        **options: Any,
    ) -> list[dict[str, Any]]:
        channel_id = self._channel(channel)
        opts, resolved = self._command_options(name, options, focused=focused)
        payload = self._base(person, channel_id, 4)
        payload["data"] = {
            "id": str(self._command_ids.setdefault(name, snowflake())),
            "name": name,
            "type": 1,
            "options": opts,
        }
        exchange = await self.feed(payload)
        assert exchange.choices is not None, "autocomplete got no answer"
        return exchange.choices

    async def press(self, person: Person, message: StoredMessage, label: str) -> Exchange:
        """Press the button labelled ``label`` on ``message`` (which must still show it)."""
        stored = self.discord.messages[message.id]
        assert not stored.deleted, "that message was deleted"
        buttons = stored.buttons()
        assert label in buttons, f"no {label!r} button on that message; it has {list(buttons)}"
        return await self.press_id(person, stored, buttons[label])

    async def press_id(self, person: Person, message: StoredMessage, custom_id: str) -> Exchange:
        channel: int | None = message.channel_id
        if message.channel_id in self.discord.dm_channels:
            channel = None
        payload = self._base(person, channel, 3)
        payload["data"] = {"custom_id": custom_id, "component_type": 2}
        payload["message"] = dict(self.discord.messages[message.id].payload)
        return await self.feed(payload, message_id=message.id)

    async def press_in_dm(self, person: Person, message: StoredMessage, label: str) -> Exchange:
        """Press ``label`` of ``message`` as if the message were in ``person``'s DM with the
        bot (a forged payload: the bot never posts game buttons in a DM)."""
        stored = self.discord.messages[message.id]
        buttons = stored.buttons()
        assert label in buttons, f"no {label!r} button on that message; it has {list(buttons)}"
        payload = self._base(person, None, 3)
        payload["data"] = {"custom_id": buttons[label], "component_type": 2}
        payload["message"] = {**stored.payload, "channel_id": payload["channel_id"]}
        return await self.feed(payload, message_id=message.id)

    def _channel(self, channel: int | None | str) -> int | None:
        if isinstance(channel, str):
            return self.channels[channel]
        return channel

    def raw_interaction(
        self, person: Person, channel: int | str | None = "chess"
    ) -> discord.Interaction[Any]:
        """A component interaction built by discord.py from a payload but not dispatched:
        for checking the fake's model with discord.py's own response calls."""
        payload = self._base(person, self._channel(channel), 3)
        payload["data"] = {"custom_id": "harness:probe", "component_type": 2}
        self._register(payload, None)
        async_context.set(self.adapter)
        return discord.Interaction(data=payload, state=self.bot._connection)  # type: ignore[arg-type]

    def _register(self, payload: dict[str, Any], message_id: int | None) -> InteractionState:
        state = InteractionState(
            id=int(payload["id"]),
            token=payload["token"],
            kind=int(payload["type"]),
            user_id=int((payload.get("member") or {}).get("user", payload.get("user"))["id"]),
            channel_id=int(payload["channel_id"]),
            fed_at=self.discord.now(),
            message_id=message_id,
        )
        self.discord.interactions[state.id] = state
        self.discord.by_token[state.token] = state
        return state

    def user_thread(self, parent: str, name: str, owner: Person) -> int:
        """A thread (a forum post, in a forum) that a member made: Discord tells the bot."""
        thread_id = snowflake()
        kind = 10 if self.discord.channels[self.channels[parent]]["type"] == 5 else 11
        data = thread_payload(
            thread_id, self.guild_id, self.channels[parent], owner.id, name, kind=kind
        )
        self.discord.threads[thread_id] = data
        self.discord.dispatch("THREAD_CREATE", {**data, "newly_created": True})
        return thread_id

    async def deliver(self) -> int:
        """The bot's outbox worker (``bot.discord.delivery``), run until nothing is due:
        the posts owed by what happened so far (the worker's task itself runs only after
        the gateway's READY, which the harness does not send). How many rows it took."""
        taken = 0
        while count := await self.bot.delivery.run_once():
            taken += count
        return taken

    def advance(self, seconds: float) -> None:
        """Move Discord's clock on: interaction tokens older than 15 minutes stop working."""
        self.discord.clock_offset += seconds

    async def restart(self, *, service: bool = False) -> None:
        """Stop the bot and start a new one on the same database and the same Discord;
        ``service``: a new game service too, opened again on the same store."""
        await self.bot.close()
        if service:
            await self.service.close()
            self.service = await self.open_service()
        bot = make_bot(self.service, self.bot.settings)
        bot.defer_after = self.bot.defer_after
        self.bot = bot
        bot.http.request = self.discord.bot_request  # type: ignore[method-assign]
        self.discord._state_of = lambda: bot._connection
        async_context.set(self.adapter)
        await bot.login("harness-token")
        self._create_guild(again=True)

    async def feed(
        self,
        payload: dict[str, Any],
        *,
        message_id: int | None = None,
        answered: bool | None = None,
    ) -> Exchange:
        """Hand the payload to discord.py as the gateway would; wait until the bot is done.
        ``answered``: check that the interaction got its answer (default
        ``self.expect_answers``; a fault test that fails the answer itself turns it off)."""
        if answered is None:
            answered = self.expect_answers
        fake = self.discord
        state = self._register(payload, message_id)
        first_request = len(fake.requests)
        before = {m.id: m.edits for m in fake.messages.values()}
        async_context.set(self.adapter)  # the tasks discord.py creates below inherit it
        baseline = asyncio.all_tasks()
        self.bot._connection.parsers["INTERACTION_CREATE"](payload)
        await settle(baseline)
        await self.deliver()  # what the interaction's work owes (the computer's move)
        requests = fake.requests[first_request:]
        created = [
            m
            for m in fake.messages.values()
            if m.id not in before or (m.how == "deferred-filled" and m.id == state.original_id)
        ]
        created = [m for m in created if m.how != "deferred"]
        edited = [
            m
            for m in fake.messages.values()
            if m.id in before and m.edits > before[m.id] and m not in created
        ]
        choices = None
        for request in requests:
            if request.callback_type == 8 and request.interaction_id == state.id:
                choices = list((request.body or {}).get("data", {}).get("choices") or [])
        exchange = Exchange(state, requests, created, edited, choices)
        self.exchanges.append(exchange)
        problems = [f"{r.summary()}: {p}" for r in requests for p in r.problems]
        if answered and state.response is None:
            problems.append(
                "the interaction was never answered (Discord shows 'interaction failed')"
            )
        if answered and state.response == 5 and not state.original_filled:
            problems.append("a deferred response was never filled: 'thinking…' spins forever")
        assert not problems, "\n".join(problems)
        return exchange

    # ----- reading what happened --------------------------------------------------------------------

    async def game(self, channel: int | str = "chess") -> Any:
        return await self.service.view(location_id=self._channel(channel))


async def settle(baseline: set[asyncio.Task[Any]], timeout: float = 60.0) -> None:
    """Wait for every task started since ``baseline`` (and the tasks they start)."""
    current = asyncio.current_task()
    deadline = time.monotonic() + timeout
    while True:
        pending = [
            t
            for t in asyncio.all_tasks()
            if t is not current and t not in baseline and not t.done() and not _owes_nothing(t)
        ]
        if not pending:
            return
        left = deadline - time.monotonic()
        if left <= 0:
            raise AssertionError(f"the bot is still busy after {timeout} s: {pending}")
        await asyncio.wait(pending, timeout=left)


# Tasks that are no answer the bot owes, by their coroutine's name: discord.py's
# 15-minute timer for a view sent ephemerally, and the service's delayed write of the
# snapshots it took (``_flush_later``: half a second after a move, then one transaction),
# a cache the next command does not need (a test that reads it waits with
# ``service.idle()``).
NOT_OWED = ("timeout_task_impl", "_flush_later")


def _owes_nothing(task: asyncio.Task[Any]) -> bool:
    name = getattr(task.get_coro(), "__qualname__", "")
    return any(marker in name for marker in NOT_OWED)


def prompts(exchange: Exchange, user_id: int) -> list[StoredMessage]:
    """New public messages in this exchange that ping ``user_id``."""
    return [m for m in exchange.public if user_id in m.pings]


def is_ephemeral(message: StoredMessage) -> bool:
    return bool(int(message.payload.get("flags") or 0) & EPHEMERAL)


__all__: Sequence[str] = (
    "Exchange",
    "Person",
    "World",
    "PNG",
    "prompts",
    "is_ephemeral",
)


# ----- common steps ----------------------------------------------------------------------------


async def start_game(
    world: World,
    white: Person,
    black: Person,
    *,
    variant: str = "kings_guard",
    channel: int | str = "chess",
) -> tuple[Any, Exchange]:
    """``white`` challenges ``black`` (white chosen), ``black`` presses Accept.

    Returns the game's view and the exchange of the Accept press (its first board).
    """
    made = await world.command(
        white, "play", channel=channel, variant=variant, opponent=black, colour="white"
    )
    challenge = next(m for m in made.created if "Accept" in m.buttons())
    game_id = game_of(challenge)
    accepted = await world.press(black, challenge, "Accept")
    view = await world.service.view(game_id=game_id)
    return view, accepted


async def reminder_refused(world: World, white: Person, black: Person) -> Any:
    """A game in #chess (``white`` has played e3) whose reminder to ``black`` Discord
    refuses for good (403 Missing Permissions: the server took the bot's right to post
    there away); the scheduler and the outbox have run. The game's view. The world's clock
    must be a ``ManualClock`` started at the game's start."""
    view, _ = await start_game(world, white, black)
    await world.command(white, "move", notation="e3")
    chess = world.chess
    world.discord.fail(
        "POST /channels/{channel_id}/messages", 403, code=50013, message="Missing Permissions",
        where=lambda values: values["channel_id"] == str(chess),
    )  # fmt: skip
    clock = world.service.clock
    assert isinstance(clock, ManualClock)
    clock.set(clock.now() + timedelta(days=3) - timedelta(hours=18))
    await world.bot.scheduler.run_once()
    await world.deliver()
    return view


def game_of(message: StoredMessage) -> int:
    """The game a message's buttons belong to."""
    for custom_id in message.buttons().values():
        return int(custom_id.split(":")[2])
    raise AssertionError("no game buttons on that message")


def latest_board(world: World, game_id: int) -> StoredMessage:
    """The public message of this game that still has its buttons."""
    boards = [
        m
        for m in world.with_buttons()
        if any(cid.split(":")[2] == str(game_id) for cid in m.buttons().values())
    ]
    assert len(boards) == 1, f"game {game_id} has {len(boards)} messages with buttons"
    return boards[0]


async def assert_no_orphans(world: World) -> None:
    """Every live game can be seen and answered where it lives: a challenge shows its Accept
    button there, an active game a board with buttons."""
    games = await world.service.list_games(statuses=("challenge", "active"), limit=100)
    for game in games:
        here = [
            m
            for m in world.with_buttons(game.location_id)
            if any(cid.split(":")[2] == str(game.id) for cid in m.buttons().values())
        ]
        assert here, f"game {game.id} ({game.status}) has no message with buttons where it lives"
