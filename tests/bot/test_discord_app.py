"""The bot class, settings, the CLI (run without a token, commands from the real tree),
and the layering rule."""

from __future__ import annotations

import argparse
import json
import logging
import subprocess
import sys
from pathlib import Path
from typing import Any, cast

import discord
import pytest

from bot.discord import run as discord_cli
from bot.discord.app import (
    ChessGardenBot,
    Settings,
    SettingsError,
    bot_intents,
    invite_permissions,
    invite_url,
)
from bot.discord.cogs import EXTENSIONS
from bot.discord.views import DYNAMIC_ITEMS

EXPECTED_COMMANDS = {
    "play", "accept", "move", "board", "resign", "draw", "pass", "reroll",
    "history", "rules", "games", "verify", "roll", "abort", "extend", "relocate", "leaderboard",
    "profile", "help", "settings", "prefs", "analyse", "tournament",
}  # fmt: skip
# /tournament's subcommands (issue 30): `chessgarden commands` and /help list each one.
SUBCOMMANDS = {
    f"tournament {name}"
    for name in (
        "create", "start", "remove", "cancel", "join", "leave", "withdraw", "pairings",
        "standings", "info",
    )
}  # fmt: skip
LEAF_COMMANDS = (EXPECTED_COMMANDS - {"tournament"}) | SUBCOMMANDS


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    discord_cli.add_subcommands(parser.add_subparsers())
    return parser.parse_args(list(argv))


def test_settings_from_env() -> None:
    settings = Settings.from_env(
        {
            "DISCORD_TOKEN": " abc ",
            "CHESSGARDEN_DB": "/data/x.sqlite3",
            "CHESSGARDEN_DEV_GUILD": "42",
        }
    )
    assert settings == Settings("abc", "/data/x.sqlite3", 42, False)
    assert Settings.from_env({}, sync=True) == Settings(None, None, None, True)
    with pytest.raises(SettingsError, match="CHESSGARDEN_DEV_GUILD"):
        Settings.from_env({"CHESSGARDEN_DEV_GUILD": "my server"})


def test_limits_from_env() -> None:
    assert (Settings().max_challenges, Settings().threads_per_hour) == (3, 10)
    settings = Settings.from_env(
        {"CHESSGARDEN_MAX_CHALLENGES": "5", "CHESSGARDEN_THREADS_PER_HOUR": " 2 "}
    )
    assert (settings.max_challenges, settings.threads_per_hour) == (5, 2)
    for name in ("CHESSGARDEN_MAX_CHALLENGES", "CHESSGARDEN_THREADS_PER_HOUR"):
        for bad in ("0", "-1", "ten", "2.5"):
            with pytest.raises(SettingsError, match=name):
                Settings.from_env({name: bad})


def test_the_token_is_never_in_a_repr() -> None:
    token = "MTIzNDU2Nzg5.secret-token-value"
    settings = Settings.from_env({"DISCORD_TOKEN": token})
    assert settings.token == token
    for text in (repr(settings), str(settings), f"{settings}", repr([settings])):
        assert token not in text and "secret" not in text


def test_invite_asks_for_the_documented_permissions_and_scopes() -> None:
    assert invite_permissions().value == 309237696512
    docs = Path(__file__).parents[2] / "docs" / "discord.md"
    assert "permissions=309237696512" in docs.read_text()
    url = invite_url(123)
    assert "client_id=123" in url and "scope=bot+applications.commands" in url


def test_no_privileged_intents() -> None:
    intents = bot_intents()
    assert intents.guilds
    assert not (intents.members or intents.presences or intents.message_content)


async def test_setup_hook_loads_cogs_and_buttons_and_syncs_only_when_asked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    service = cast(Any, object())
    bot = ChessGardenBot(service, Settings())
    assert bot.service is service and bot.settings == Settings()
    synced: list[Any] = []

    async def fake_sync(*, guild: Any = None) -> list[Any]:
        synced.append(guild)
        return []

    monkeypatch.setattr(bot.tree, "sync", fake_sync)
    await bot.setup_hook()
    assert set(bot.extensions) == set(EXTENSIONS)
    assert {c.name for c in bot.tree.get_commands()} == EXPECTED_COMMANDS
    assert set(bot._connection._view_store._dynamic_items.values()) == set(DYNAMIC_ITEMS)
    assert synced == []  # no sync on an ordinary start

    dev = ChessGardenBot(service, Settings(dev_guild_id=42, sync_commands=True))
    monkeypatch.setattr(dev.tree, "sync", fake_sync)
    await dev.setup_hook()
    assert [g.id for g in synced] == [42]
    assert {c.name for c in dev.tree.get_commands(guild=discord.Object(42))} == EXPECTED_COMMANDS


def test_run_without_a_token_fails_clearly(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("DISCORD_TOKEN", raising=False)
    args = parse("run", "--sync")
    assert args.func(args) == 2
    err = capsys.readouterr().err
    assert "DISCORD_TOKEN is not set" in err and "docs/discord.md" in err


def test_commands_lists_the_real_tree(capsys: pytest.CaptureFixture[str]) -> None:
    args = parse("commands", "--json")
    assert args.func(args) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {row["name"] for row in rows} == LEAF_COMMANDS
    by_name = {row["name"]: row for row in rows}
    play = {o["name"]: o for o in by_name["play"]["options"]}
    assert list(play) == [
        "variant",
        "opponent",
        "colour",
        "thread",
        "options",
        "days",
        "computer",
        "rated",
    ]
    assert play["computer"]["choices"] == [1, 2, 3]
    assert play["rated"]["type"] == "boolean" and not play["rated"]["required"]
    assert play["days"]["choices"] == [*range(1, 15), 0]  # 0: no time limit
    assert play["variant"]["required"] and len(play["variant"]["choices"]) == 5
    assert by_name["move"]["options"][0]["autocomplete"]
    assert by_name["abort"]["default_permissions"] == ["manage_messages"]
    assert by_name["extend"]["default_permissions"] == ["manage_messages"]
    assert by_name["relocate"]["default_permissions"] == ["manage_messages"]
    for row in rows:  # Discord's limits: every command and option described, <= 100 characters
        assert 0 < len(row["description"]) <= 100, row["name"]
        for option in row["options"]:
            assert 0 < len(option["description"]) <= 100, (row["name"], option["name"])
            assert "…" not in option["description"]
    assert by_name["settings"]["default_permissions"] == ["manage_guild"]
    args = parse("commands", "--options")
    assert args.func(args) == 0
    text = capsys.readouterr().out
    assert "/play - " in text and "    notation (string, required, autocomplete)" in text


def test_layering_service_engine_storage_renderers_do_not_import_discord() -> None:
    code = (
        "import sys, variants, renderers, storage, bot.service\n"
        "assert 'discord' not in sys.modules, sorted(m for m in sys.modules if 'discord' in m)\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_a_refused_token_appears_in_no_log_line_or_message(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    token = "MTIzNDU2Nzg5.never-print-me"
    monkeypatch.setenv("DISCORD_TOKEN", token)
    monkeypatch.setenv("CHESSGARDEN_DB", str(tmp_path / "bot.sqlite3"))
    monkeypatch.setattr(discord.utils, "setup_logging", lambda **_: None)  # caplog listens

    class Unauthorized:
        status, reason = 401, "Unauthorized"

    async def refuse(self: Any, route: Any, **kwargs: Any) -> Any:
        logging.getLogger("test").debug("request %s %s", route.method, route.url)
        raise discord.HTTPException(Unauthorized(), {"message": "401: Unauthorized", "code": 0})  # type: ignore[arg-type]

    monkeypatch.setattr(discord.http.HTTPClient, "request", refuse)
    caplog.set_level(logging.DEBUG)
    args = parse("run")
    assert args.func(args) == 1
    captured = capsys.readouterr()
    assert "Discord refused the token" in captured.err
    for text in (captured.out, captured.err, caplog.text):
        assert token not in text and "never-print-me" not in text


def test_docs_keep_the_token_in_a_private_environment_file() -> None:
    docs = (Path(__file__).parents[2] / "docs" / "discord.md").read_text()
    assert (
        "EnvironmentFile=/etc/chessgarden/env" in docs and "install -m 600 -o chessgarden" in docs
    )
    assert "--env-file chessgarden.env" in docs and "env_file: .env" in docs  # compose.yaml
    for leak in (
        "Environment=DISCORD_TOKEN",
        "docker run --rm -e DISCORD_TOKEN",
        "DISCORD_TOKEN: ${",
    ):
        assert leak not in docs, leak
    for name in (
        "CHESSGARDEN_MAX_CHALLENGES",
        "CHESSGARDEN_THREADS_PER_HOUR",
        "/accept",
        "Rematch",
    ):
        assert name in docs, name


async def test_options_have_discords_bounds() -> None:
    bot = ChessGardenBot(cast(Any, None), Settings())
    await bot.load_cogs()

    def option(command: str, name: str) -> Any:
        found = bot.tree.get_command(command)
        assert isinstance(found, discord.app_commands.Command)
        return next(p for p in found.parameters if p.name == name)

    for command in ("history", "verify", "accept"):
        game = option(command, "game")
        assert (game.min_value, game.max_value) == (1, 2**53)
    for command, name, most in (
        ("play", "options", 200),
        ("move", "notation", 100),
        ("abort", "reason", 200),
        ("extend", "reason", 200),
        ("relocate", "reason", 200),
        ("roll", "expression", 100),
    ):
        text = option(command, name)
        assert (text.min_value, text.max_value) == (1, most), (command, name)
