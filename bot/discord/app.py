"""The Discord bot: settings from the environment and the ``commands.Bot`` subclass.

The bot gets its dependencies (the game service, the settings) through its constructor
and loads its cogs in ``setup_hook``. It syncs slash commands only when asked
(``chessgarden run --sync``), globally or, with ``CHESSGARDEN_DEV_GUILD``, to one
server at once (global sync can take a while to show up).

It asks for no privileged intent: slash commands and buttons need none.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.discord import actions, answers
from bot.discord.adapter import permission_words
from bot.discord.cogs import EXTENSIONS
from bot.discord.delivery import Delivery
from bot.discord.shutdown import Deadline, Step, run_steps, tasks_named
from bot.discord.threads import ThreadBudget
from bot.discord.translate import GardenTranslator, _
from bot.discord.views import DYNAMIC_ITEMS
from bot.service import ComputerRunner, GameService, Scheduler, health
from bot.service.analysis import DEFAULT_MAX_RUNNING as DEFAULT_MAX_ANALYSES
from storage import Shards

if TYPE_CHECKING:
    from bot.discord.metrics import Metrics

log = logging.getLogger(__name__)

# discord.py's names for the tasks that run a slash command or a button press
INTERACTION_TASKS = ("CommandTree-invoker", "discord-ui-view-dispatch-", "discord-ui-dynamic-item-")

TOKEN_VAR = "DISCORD_TOKEN"
DB_VAR = "CHESSGARDEN_DB"
DEV_GUILD_VAR = "CHESSGARDEN_DEV_GUILD"
MAX_CHALLENGES_VAR = "CHESSGARDEN_MAX_CHALLENGES"
THREADS_VAR = "CHESSGARDEN_THREADS_PER_HOUR"
CHALLENGE_HOURS_VAR = "CHESSGARDEN_CHALLENGE_HOURS"
SHARDS_VAR = "CHESSGARDEN_SHARDS"
SHARD_IDS_VAR = "CHESSGARDEN_SHARD_IDS"
METRICS_PORT_VAR = "CHESSGARDEN_METRICS_PORT"
METRICS_HOST_VAR = "CHESSGARDEN_METRICS_HOST"
MAX_ANALYSES_VAR = "CHESSGARDEN_MAX_ANALYSES"
DEFAULT_METRICS_HOST = "127.0.0.1"
DEFAULT_MAX_CHALLENGES = 3
DEFAULT_THREADS_PER_HOUR = 10
DEFAULT_CHALLENGE_HOURS = 24
HOLD_BOARDS_MS = 60_000  # a player's board, owed while their interaction answers (issue 24)


class SettingsError(ValueError):
    """A setting in the environment is malformed. One line, for the operator."""


@dataclass(frozen=True)
class Settings:
    """What the bot needs from its operator.

    - ``token``: ``DISCORD_TOKEN``, the bot token from the Developer Portal;
    - ``db_path``: ``CHESSGARDEN_DB``, the SQLite file (default ``./chessgarden.sqlite3``), or
      a ``postgresql://`` URL (docs/scaling.md);
    - ``dev_guild_id``: ``CHESSGARDEN_DEV_GUILD``, a server id to sync commands to at once;
    - ``sync_commands``: sync the slash commands on start (``--sync``), else leave them;
    - ``max_challenges``: ``CHESSGARDEN_MAX_CHALLENGES``, open challenges per user (3);
    - ``threads_per_hour``: ``CHESSGARDEN_THREADS_PER_HOUR``, new game threads per channel
      in any hour (10);
    - ``challenge_hours``: ``CHESSGARDEN_CHALLENGE_HOURS``, hours before a challenge nobody
      accepted expires (24);
    - ``shard_count``/``shard_ids``: ``CHESSGARDEN_SHARDS`` (the total number of Discord
      shards) and ``CHESSGARDEN_SHARD_IDS`` (comma-separated, the ones this process runs;
      default all of them). With them the bot is discord.py's ``AutoShardedBot`` on those
      shards, and its deadline scheduler handles only their guilds' games; without them,
      one unsharded client as before (docs/scaling.md);
    - ``metrics_port``/``metrics_host``: ``CHESSGARDEN_METRICS_PORT`` (serve ``/metrics`` in
      Prometheus text format on this port; unset: no endpoint) and
      ``CHESSGARDEN_METRICS_HOST`` (the address it listens on, default 127.0.0.1: this
      machine only) (``bot.discord.metrics``);
    - ``max_analyses``: ``CHESSGARDEN_MAX_ANALYSES``, game analyses (/analyse) run at once,
      each in a worker process; the rest wait in order (1).

    The token never appears in a repr (so not in a log line or a traceback's locals either).
    """

    token: str | None = field(default=None, repr=False)
    db_path: str | None = None
    dev_guild_id: int | None = None
    sync_commands: bool = False
    max_challenges: int = DEFAULT_MAX_CHALLENGES
    threads_per_hour: int = DEFAULT_THREADS_PER_HOUR
    challenge_hours: int = DEFAULT_CHALLENGE_HOURS
    shard_count: int | None = None
    shard_ids: tuple[int, ...] | None = None
    metrics_port: int | None = None
    metrics_host: str = DEFAULT_METRICS_HOST
    max_analyses: int = DEFAULT_MAX_ANALYSES

    @property
    def shards(self) -> Shards | None:
        if self.shard_count is None:
            return None
        ids = self.shard_ids if self.shard_ids is not None else tuple(range(self.shard_count))
        return Shards(self.shard_count, ids)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, *, sync: bool = False) -> Settings:
        env = os.environ if env is None else env
        token = (env.get(TOKEN_VAR) or "").strip() or None
        db_path = (env.get(DB_VAR) or "").strip() or None
        raw_guild = (env.get(DEV_GUILD_VAR) or "").strip()
        guild: int | None = None
        if raw_guild:
            if not raw_guild.isdigit():
                raise SettingsError(
                    f"{DEV_GUILD_VAR} must be a server id (a number), not {raw_guild!r}"
                )
            guild = int(raw_guild)
        return cls(
            token=token,
            db_path=db_path,
            dev_guild_id=guild,
            sync_commands=sync,
            max_challenges=_count(env, MAX_CHALLENGES_VAR, DEFAULT_MAX_CHALLENGES),
            threads_per_hour=_count(env, THREADS_VAR, DEFAULT_THREADS_PER_HOUR),
            challenge_hours=_count(env, CHALLENGE_HOURS_VAR, DEFAULT_CHALLENGE_HOURS),
            max_analyses=_count(env, MAX_ANALYSES_VAR, DEFAULT_MAX_ANALYSES),
            **_shards(env),
            **_metrics(env),
        )

    def __str__(self) -> str:
        return repr(self)


def _shards(env: Mapping[str, str]) -> dict[str, Any]:
    """``shard_count`` and ``shard_ids`` from the environment, checked."""
    raw_ids = (env.get(SHARD_IDS_VAR) or "").strip()
    if not (env.get(SHARDS_VAR) or "").strip():
        if raw_ids:
            raise SettingsError(f"{SHARD_IDS_VAR} needs {SHARDS_VAR}, the total number of shards")
        return {}
    count = _count(env, SHARDS_VAR, 1)
    if not raw_ids:
        return {"shard_count": count}
    ids: list[int] = []
    for part in raw_ids.split(","):
        item = part.strip()
        if not item.isdigit() or int(item) >= count:
            raise SettingsError(
                f"{SHARD_IDS_VAR} must list shard numbers from 0 to {count - 1}, separated "
                f"by commas, not {raw_ids!r}"
            )
        if int(item) not in ids:
            ids.append(int(item))
    return {"shard_count": count, "shard_ids": tuple(sorted(ids))}


def _metrics(env: Mapping[str, str]) -> dict[str, Any]:
    """``metrics_port`` and ``metrics_host`` from the environment, checked."""
    raw = (env.get(METRICS_PORT_VAR) or "").strip()
    host = (env.get(METRICS_HOST_VAR) or "").strip() or DEFAULT_METRICS_HOST
    if not raw:
        return {}
    if not raw.isdigit() or not 1 <= int(raw) <= 65535:
        raise SettingsError(f"{METRICS_PORT_VAR} must be a port number (1 to 65535), not {raw!r}")
    return {"metrics_port": int(raw), "metrics_host": host}


def _count(env: Mapping[str, str], name: str, default: int) -> int:
    raw = (env.get(name) or "").strip()
    if not raw:
        return default
    if not raw.isdigit() or int(raw) < 1:
        raise SettingsError(f"{name} must be a whole number of at least 1, not {raw!r}")
    return int(raw)


def invite_permissions() -> discord.Permissions:
    """What the bot needs in a channel (docs/discord.md lists the same five)."""
    return discord.Permissions(
        send_messages=True,
        embed_links=True,
        attach_files=True,
        create_public_threads=True,
        send_messages_in_threads=True,
    )


def invite_url(application_id: int) -> str:
    return discord.utils.oauth_url(
        application_id,
        permissions=invite_permissions(),
        scopes=("bot", "applications.commands"),
    )


def bot_intents() -> discord.Intents:
    """Guilds only: no members, presences or message content (all privileged)."""
    intents = discord.Intents.none()
    intents.guilds = True
    return intents


class GardenTree(app_commands.CommandTree[Any]):
    """The command tree, with one answer for every command that fails.

    Failed checks get a plain sentence; anything else a private "something went wrong",
    with the traceback (and the game id, when known) in the log. Nobody is left with
    "The application did not respond".
    """

    async def interaction_check(self, interaction: discord.Interaction[Any]) -> bool:
        answers.stamp(interaction)  # Discord's 3 seconds run from here
        command = interaction.command
        if interaction.guild_id is None and getattr(command, "guild_only", False):
            # Before the options are read: a server's channel named in a DM cannot be
            # resolved, and the refusal must be about the DM (answers.refuse_outside_server).
            await answers.refuse(interaction, _(answers.OUTSIDE_SERVER))
            return False
        return True

    async def on_error(
        self, interaction: discord.Interaction[Any], error: app_commands.AppCommandError
    ) -> None:
        answers.stamp(interaction)  # (the locale, if the check did not run)
        if isinstance(error, app_commands.MissingPermissions):
            need = permission_words(error.missing_permissions)
            text = _("You need {permissions} for that.", permissions=need)
        elif isinstance(error, app_commands.NoPrivateMessage):
            text = _("That works only in a server.")
        elif isinstance(error, app_commands.CheckFailure):
            text = _("You cannot use that here.")
        elif isinstance(error, app_commands.TransformerError):
            text = _(
                "I could not read {value} as {kind}.",
                value=repr(str(error.value)[:50]),
                kind=error.type.name,
            )
        else:
            cause = error.original if isinstance(error, app_commands.CommandInvokeError) else error
            name = interaction.command.qualified_name if interaction.command else "?"
            await answers.report_failure(interaction, cause, what=f"/{name}")
            return
        try:
            await answers.refuse(interaction, text)
        except discord.HTTPException as again:
            log.warning("could not report a failed check to the user: %s", again)


class ChessGardenBot(commands.Bot):
    """Chess Garden on Discord. ``service`` plays the games; the bot only translates.

    ``defer_after``: seconds of work after which an answer is deferred (see ``bot.discord.flows``).
    ``thread_budget``: the per-channel limit on new game threads.
    ``scheduler``: the deadline scheduler (``bot.service.scheduler``), which ends games on
    time, reminds players and expires challenges; ``delivery``: the outbox worker
    (``bot.discord.delivery``), which posts what they (and the computer) owe the players.
    Both start once the bot is ready (the posts need the gateway's view of the threads)
    and stop when the bot closes.
    """

    defer_after = 2.0
    # seconds a deadline pass, a computer's move or an interaction may take to finish
    # when the bot stops (the computer thinks for 2 s by default)
    shutdown_grace = 4.0

    def __init__(
        self,
        service: GameService,
        settings: Settings,
        *,
        intents: discord.Intents | None = None,
        **options: Any,
    ) -> None:
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=intents or bot_intents(),
            help_command=None,
            # nothing pings unless a message names the users it may ping (adapter.pings)
            allowed_mentions=discord.AllowedMentions.none(),
            tree_cls=GardenTree,
            **options,
        )
        self.service = service
        self.settings = settings
        self.thread_budget = ThreadBudget(settings.threads_per_hour)
        # Every post the bot owes (the computer's moves, reminders, timeouts, expiries)
        # is an outbox row written with the action that owes it; ``Delivery`` sends them
        # (issue 24). The scheduler and the computer only change the games.
        self.delivery = Delivery(self)
        # A player's board is owed too, held while their interaction's answer carries it:
        # if the answer fails, or the process dies first, the worker posts it.
        if isinstance(service, GameService):  # (some tools build the bot without one)
            service.hold_boards_ms = HOLD_BOARDS_MS
            service.max_analyses = settings.max_analyses  # /analyse at once (issue 29)
            # the environment's limits are the defaults of every server's /settings
            defaults = service.server_settings.defaults
            service.server_settings.defaults = replace(
                defaults,
                max_challenges=settings.max_challenges,
                threads_per_hour=settings.threads_per_hour,
            )
        self.scheduler = Scheduler(service)
        # The computer's moves (issue 14): thought in worker processes. Started in
        # setup_hook: it resumes games waiting for the computer.
        self.computer_runner = ComputerRunner(service)
        self.metrics: Metrics | None = None  # set by `chessgarden run` with a metrics port
        self._shutdown: asyncio.Future[bool] | None = None
        self.shutdown_deadline: Deadline | None = None  # one budget with the store's close
        self.heartbeat: health.Heartbeat | None = (
            None  # bot.service.health: the image's HEALTHCHECK
        )

    async def load_cogs(self) -> None:
        for name in EXTENSIONS:
            if name not in self.extensions:
                await self.load_extension(name)

    async def setup_hook(self) -> None:
        self.actions = actions.registry()  # what each button's action does (bot.discord.actions)
        await self.tree.set_translator(
            GardenTranslator()
        )  # the commands in every catalogued language
        self.add_dynamic_items(*DYNAMIC_ITEMS)  # buttons work after a restart
        await self.load_cogs()
        # Interactions come only after this hook: the warm-up's drawings (started with
        # the service, in the background, as the bot logged in) are done first, so that
        # no player's first board after a restart waits for tiles to be drawn (issue 26).
        if isinstance(self.service, GameService):
            await self.service.drawings_ready()
        try:  # a store that cannot answer now must not keep the bot from starting
            await self.computer_runner.start()
        except Exception:
            log.exception("could not start the computer's moves; games against it wait")
        if self.settings.sync_commands:
            await self.sync_commands()
        self.heartbeat = health.start(is_ready=self.is_ready)

    async def close(self) -> None:
        """Stop gracefully, once (discord.py may call this again): ``shutdown_steps``."""
        if self._shutdown is None:
            self._shutdown = asyncio.ensure_future(
                run_steps(self.shutdown_steps(), self.shutdown_deadline)
            )
        await asyncio.shield(self._shutdown)

    def shutdown_steps(self) -> list[Step]:
        """What stops, in order (``bot.discord.shutdown``): first whatever makes new work (each
        may finish what it is doing), then whatever sends it, then the connection. The
        store is closed after this by whoever opened it (``chessgarden run``)."""
        grace = self.shutdown_grace
        return [
            Step("the heartbeat", lambda: health.stop(self.heartbeat), 1.0),
            Step("the deadline scheduler", self._stop_scheduler, grace + 1),
            Step("the computer's moves", self._stop_computer, grace + 1),
            Step(
                "interactions in flight", lambda: tasks_named(INTERACTION_TASKS), grace, "finished"
            ),
            # posts being sent finish; the rest stay owed in the store for the next start
            Step("the outbox delivery", self._stop_delivery, grace + 1),
            Step("the Discord connection", self._close_connection, 3.0, "closed"),
        ]

    async def _stop_delivery(self) -> str | None:
        pending = await self.delivery.stop(self.shutdown_grace)
        return f"{pending} post(s) stay owed for the next start" if pending else None

    async def _stop_scheduler(self) -> str | None:
        if await self.scheduler.stop(self.shutdown_grace):
            return "a pass was cut short; what it had not handled is still due"
        return None

    async def _stop_computer(self) -> str | None:
        cut = await self.computer_runner.stop(self.shutdown_grace)
        if cut:
            return f"cut short in {cut} game(s); a move not yet stored is made after a restart"
        return None

    async def _close_connection(self) -> None:
        # discord.py waits up to guild_ready_timeout for the guilds after READY, in a task
        # that close() leaves running; once close() has cleared the client's loop, that
        # task's 'ready' dispatch raises. A SIGTERM in those seconds must not leave a
        # traceback, so the waits (one per shard when sharded) are cancelled first.
        state = self._connection
        shards = getattr(state, "_ready_tasks", {})
        for waiting in (getattr(state, "_ready_task", None), *shards.values()):
            if waiting is not None:
                waiting.cancel()
        await super().close()

    async def sync_commands(self) -> list[Any]:
        """Push the slash commands to Discord: to the dev server if set, else globally."""
        guild_id = self.settings.dev_guild_id
        if guild_id is not None:
            guild = discord.Object(id=guild_id)
            self.tree.copy_global_to(guild=guild)
            synced = await self.tree.sync(guild=guild)
            log.info("synced %d commands to server %s", len(synced), guild_id)
        else:
            synced = await self.tree.sync()
            log.info("synced %d global commands (they may take a while to appear)", len(synced))
        return synced

    async def on_ready(self) -> None:
        log.info("logged in as %s; in %d servers", self.user, len(self.guilds))
        if not self.scheduler.running and self._shutdown is None:  # the first READY:
            # catch up, then keep time (not once stopping: the scheduler has been stopped)
            self.scheduler.start()
        self.delivery.start()  # what was owed before a restart goes out first
        if self.application_id is not None:
            log.info("invite link: %s", invite_url(self.application_id))


class ShardedChessGardenBot(ChessGardenBot, commands.AutoShardedBot):
    """The same bot on discord.py's ``AutoShardedClient``: one gateway connection per shard
    in ``settings.shard_ids`` (of ``settings.shard_count``). Several processes, each with
    its own ids, share one PostgreSQL store (docs/scaling.md)."""


def make_bot(service: GameService, settings: Settings, **options: Any) -> ChessGardenBot:
    """The bot the settings ask for: sharded with ``CHESSGARDEN_SHARDS``, else one client."""
    shards = settings.shards
    if shards is None:
        return ChessGardenBot(service, settings, **options)
    return ShardedChessGardenBot(
        service, settings, shard_count=shards.count, shard_ids=list(shards.ids), **options
    )


def service_label(user_id: int) -> str:
    """How the service names users on Discord: a mention."""
    return f"<@{user_id}>"


async def open_service(settings: Settings) -> GameService:
    return await GameService.open(
        settings.db_path,
        label=service_label,
        max_open_challenges=settings.max_challenges,
        challenge_hours=settings.challenge_hours,
        shards=settings.shards,
    )
