"""``chessgarden run`` (start the Discord bot) and ``chessgarden commands`` (list the
slash commands from the real command tree). ``bot.cli`` calls ``add_subcommands``."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import signal
import sys
from typing import Any, cast

from bot.discord.app import DEV_GUILD_VAR, TOKEN_VAR, Settings, SettingsError

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2

log = logging.getLogger(__name__)


def add_subcommands(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "run",
        help="start the Discord bot (needs DISCORD_TOKEN)",
        description=(
            f"Start the Discord bot. Reads {TOKEN_VAR} (required), CHESSGARDEN_DB (the SQLite "
            "file, or a postgresql:// URL), CHESSGARDEN_SHARDS and CHESSGARDEN_SHARD_IDS "
            f"(optional: run these of that many Discord shards; docs/scaling.md) and "
            f"{DEV_GUILD_VAR} (optional: a server id for fast command sync)."
        ),
    )
    p.add_argument(
        "--sync",
        action="store_true",
        help=(
            "push the slash commands to Discord on start (do it after installing or "
            f"upgrading; to {DEV_GUILD_VAR} only, if set)"
        ),
    )
    p.add_argument("--log-level", default="INFO", help="logging level (default: INFO)")
    p.set_defaults(func=run)

    p = subparsers.add_parser(
        "commands",
        help="print the /help guide, with a line per slash command",
        description="Print the text of /help: the guide, then one line per slash command, "
        "read from the bot's command tree (nothing connects to Discord).",
    )
    p.add_argument("--json", action="store_true", help="every command and option, as JSON")
    p.add_argument("--options", action="store_true", help="every command with its options")
    p.set_defaults(func=print_commands)


# ----- run ------------------------------------------------------------------------


def run(args: argparse.Namespace) -> int:
    try:
        settings = Settings.from_env(sync=bool(getattr(args, "sync", False)))
    except SettingsError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_USAGE
    if not settings.token:
        print(
            f"error: {TOKEN_VAR} is not set. Create a bot in the Discord Developer Portal "
            f"(Applications > your app > Bot > Reset Token) and run:\n"
            f"    {TOKEN_VAR}=<token> chessgarden run --sync\n"
            "See docs/discord.md.",
            file=sys.stderr,
        )
        return EXIT_USAGE
    import discord

    from bot.web.cli import WebSettingsError
    from storage import StoreOpenError

    metrics_error: type[Exception] = _NoError
    if settings.metrics_port is not None:
        from bot.discord.metrics import MetricsError as metrics_error
    discord.utils.setup_logging(level=_level(getattr(args, "log_level", "INFO")))
    try:
        asyncio.run(_serve(settings))
    except KeyboardInterrupt:
        return EXIT_OK
    except StoreOpenError as error:  # one line naming the file and the cause; nothing left running
        print(f"error: {error}", file=sys.stderr)
        return EXIT_FAILED
    except metrics_error as error:  # the port is taken, say: one line; the store is closed
        print(f"error: {error}", file=sys.stderr)
        return EXIT_FAILED
    except WebSettingsError as error:  # CHESSGARDEN_WEB: a bad address, or the port is taken
        print(f"error: {error}", file=sys.stderr)
        return EXIT_FAILED
    except discord.LoginFailure:
        print(
            f"error: Discord refused the token in {TOKEN_VAR}; reset it and try again.",
            file=sys.stderr,
        )
        return EXIT_FAILED
    except discord.PrivilegedIntentsRequired:  # we ask for none; kept for clarity
        print("error: Discord says a privileged intent is missing.", file=sys.stderr)
        return EXIT_FAILED
    return EXIT_OK


class _NoError(Exception):
    """Never raised: stands for the metrics' error when there is no metrics endpoint."""


def _level(name: str) -> int:
    value = logging.getLevelName(str(name).upper())
    return value if isinstance(value, int) else logging.INFO


async def _serve(settings: Settings) -> None:
    """Open the store, run the bot until SIGTERM or SIGINT (or a fatal error), then stop
    gracefully: the bot's ``shutdown_steps``, then the store (``bot.discord.shutdown``)."""
    from bot.discord.app import make_bot, open_service
    from bot.discord.shutdown import Deadline, Step, run_step
    from bot.web.cli import start_from_env

    signals = StopSignals()
    signals.install()
    # The store is opened before Discord is contacted: a store that cannot be opened
    # ends the process at once (StoreOpenError), without a login attempt.
    service = await open_service(settings)
    metrics = None
    web = None
    deadline: Deadline | None = None
    try:
        web = await start_from_env(service, settings.db_path)  # CHESSGARDEN_WEB: game pages
        if settings.metrics_port is not None:
            from bot.discord.metrics import Metrics

            metrics = Metrics()
            metrics.watch_service(service)
            await metrics.serve(settings.metrics_host, settings.metrics_port)
            metrics.start_lag_probe()
        # The warm-up starts now, in the background: the renderer's tiles and empty
        # boards, which the bot's setup_hook waits for before it accepts interactions;
        # then the live games, the most recent first, behind the players' requests; then
        # the collector's policy keeps full collections off the loop.
        service.start_warm_up()
        async with make_bot(service, settings) as bot:
            bot.metrics = metrics
            if not signals.received.is_set():
                assert settings.token is not None
                await _run_until_stopped(bot, settings.token, signals)
            deadline = bot.shutdown_deadline = bot.shutdown_deadline or Deadline()
            await bot.close()
    finally:
        deadline = deadline or Deadline()
        if web is not None:
            await run_step(Step("the web pages", web.stop, 2.0, "closed"), deadline)
        if metrics is not None:
            await run_step(Step("the metrics endpoint", metrics.stop, 1.0, "closed"), deadline)
        await run_step(Step("the store", service.close, 5.0, "closed"), deadline)
        signals.remove()
        if signals.received.is_set():
            log.info("shutdown: done in %.2f s", deadline.elapsed())


async def _run_until_stopped(bot: Any, token: str, signals: StopSignals) -> None:
    """``bot.start`` until it ends by itself (an error: raised) or a signal comes."""
    from bot.discord.shutdown import Deadline

    running = asyncio.ensure_future(bot.start(token))
    stop = asyncio.ensure_future(signals.received.wait())
    try:
        await asyncio.wait({running, stop}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        stop.cancel()
    if running.done():
        running.result()  # LoginFailure and the like end the process with their message
        return
    bot.shutdown_deadline = Deadline()  # one budget for the bot's steps and the store
    await bot.close()  # the graceful steps; then bot.start returns
    try:
        await asyncio.wait_for(running, 3.0)
    except Exception as error:  # a login cut short by the stop, say: nothing to report
        log.info("shutdown: the bot's connection ended with %s", type(error).__name__)


class StopSignals:
    """SIGTERM and SIGINT set ``received`` (once; a second signal is only logged)."""

    def __init__(self) -> None:
        self.received = asyncio.Event()
        self.name: str | None = None

    def install(self) -> None:
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGTERM, signal.SIGINT):
            try:
                loop.add_signal_handler(signum, self._got, signum)
            except (NotImplementedError, RuntimeError):  # not the main thread, or Windows
                pass

    def remove(self) -> None:
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGTERM, signal.SIGINT):
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                loop.remove_signal_handler(signum)

    def _got(self, signum: int) -> None:
        name = signal.Signals(signum).name
        if self.received.is_set():
            log.warning("shutdown: %s received again; still stopping", name)
            return
        self.name = name
        log.info("shutdown: %s received; stopping", name)
        self.received.set()


# ----- commands -------------------------------------------------------------------


def _option_row(param: Any) -> dict[str, Any]:
    return {
        "name": param.display_name,
        "type": param.type.name,
        "required": bool(param.required),
        "description": param.description,
        "choices": [c.value for c in param.choices],
        "autocomplete": bool(param.autocomplete),
    }


def help_text() -> str:
    """The text of /help (``bot.discord.help``), from the bot's command tree."""

    async def build() -> str:
        from bot.discord.app import ChessGardenBot
        from bot.discord.help import help_pages
        from bot.discord.help import help_text as text_of

        bot = ChessGardenBot(cast(Any, None), Settings())
        await bot.load_cogs()
        return text_of(help_pages(bot.tree))

    return asyncio.run(build())


def command_table() -> list[dict[str, Any]]:
    """Every slash command of the bot, from its command tree (cogs loaded, nothing started)."""

    async def build() -> list[dict[str, Any]]:
        from discord import app_commands

        from bot.discord.app import ChessGardenBot

        bot = ChessGardenBot(cast(Any, None), Settings())
        await bot.load_cogs()
        rows: list[dict[str, Any]] = []
        for command in bot.tree.walk_commands():
            if not isinstance(command, app_commands.Command):
                continue
            perms = command.default_permissions
            rows.append(
                {
                    "name": command.qualified_name,
                    "description": command.description,
                    "guild_only": bool(command.guild_only),
                    "default_permissions": [name for name, on in perms if on] if perms else [],
                    "options": [_option_row(p) for p in command.parameters],
                }
            )
        return sorted(rows, key=lambda row: row["name"])

    return asyncio.run(build())


def format_commands(rows: list[dict[str, Any]]) -> str:
    lines: list[str] = []
    for row in rows:
        notes = []
        if row["guild_only"]:
            notes.append("servers only")
        if row["default_permissions"]:
            notes.append("needs " + ", ".join(row["default_permissions"]))
        extra = f"  [{'; '.join(notes)}]" if notes else ""
        lines.append(f"/{row['name']} - {row['description']}{extra}")
        for option in row["options"]:
            need = "required" if option["required"] else "optional"
            how = [option["type"], need]
            if option["autocomplete"]:
                how.append("autocomplete")
            lines.append(f"    {option['name']} ({', '.join(how)}): {option['description']}")
            if option["choices"]:
                lines.append(f"        choices: {', '.join(map(str, option['choices']))}")
    return "\n".join(lines)


def print_commands(args: argparse.Namespace) -> int:
    if getattr(args, "json", False):
        print(json.dumps(command_table(), indent=2))
    elif getattr(args, "options", False):
        print(format_commands(command_table()))
    else:
        print(help_text())
    return EXIT_OK
