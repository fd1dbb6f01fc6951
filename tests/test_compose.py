"""compose.yaml (docs/scaling.md, issue 16): no Docker engine runs in CI, so the file is
read as Compose reads it (YAML with merge keys, ``${VAR:?message}`` from the environment)
and held to what the bot needs: one PostgreSQL with its data in a named volume, and bot
processes whose settings the bot itself accepts, covering every shard exactly once."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import yaml

from bot.discord_app import Settings
from storage import Shards

ROOT = Path(__file__).resolve().parent.parent
ENV = {"DISCORD_TOKEN": "token-from-env-file", "POSTGRES_PASSWORD": "s3cret"}
_VAR = re.compile(r"\$\{(\w+)(?::\?([^}]*))?\}")


def interpolate(value: Any, env: dict[str, str]) -> Any:
    """Compose's ``${VAR}`` and ``${VAR:?message}`` (a missing one stops Compose)."""
    if isinstance(value, dict):
        return {k: interpolate(v, env) for k, v in value.items()}
    if isinstance(value, list):
        return [interpolate(v, env) for v in value]
    if isinstance(value, str):

        def one(m: re.Match[str]) -> str:
            if m.group(1) not in env:
                raise LookupError(m.group(2) or m.group(1))
            return env[m.group(1)]

        return _VAR.sub(one, value)
    return value


def compose(env: dict[str, str]) -> dict[str, Any]:
    data = yaml.safe_load((ROOT / "compose.yaml").read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return interpolate(data, env)  # type: ignore[no-any-return]


def bots(services: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {name: s for name, s in services.items() if s.get("build") == "."}


def test_postgres_keeps_its_data_in_a_named_volume() -> None:
    data = compose(ENV)
    pg = data["services"]["postgres"]
    assert pg["image"].startswith("postgres:15")
    assert "chessgarden-pg:/var/lib/postgresql/data" in pg["volumes"]
    assert "chessgarden-pg" in data["volumes"]
    assert pg["environment"]["POSTGRES_PASSWORD"] == ENV["POSTGRES_PASSWORD"]
    assert "pg_isready" in " ".join(pg["healthcheck"]["test"])


def test_the_bot_processes_cover_every_shard_once_on_the_shared_database() -> None:
    services = compose(ENV)["services"]
    pg_env = services["postgres"]["environment"]
    processes = bots(services)
    assert len(processes) == 2
    covered: list[int] = []
    for name, service in processes.items():
        assert service["depends_on"]["postgres"]["condition"] == "service_healthy", name
        env = {k: str(v) for k, v in service["environment"].items()}
        settings = Settings.from_env(env)  # what `chessgarden run` reads
        assert settings.token == ENV["DISCORD_TOKEN"]
        url = urlsplit(settings.db_path or "")
        assert url.scheme == "postgresql" and url.hostname == "postgres", name
        assert url.username == pg_env["POSTGRES_USER"]
        assert url.password == pg_env["POSTGRES_PASSWORD"]
        assert url.path == "/" + pg_env["POSTGRES_DB"]
        shards = settings.shards
        assert isinstance(shards, Shards) and shards.count == 2, name
        covered.extend(shards.ids)
    assert sorted(covered) == [0, 1]


def test_a_missing_secret_stops_compose_with_its_message() -> None:
    with pytest.raises(LookupError, match="set POSTGRES_PASSWORD"):
        compose({"DISCORD_TOKEN": "x"})
    with pytest.raises(LookupError, match="set DISCORD_TOKEN"):
        compose({"POSTGRES_PASSWORD": "x"})


def test_the_image_runs_the_bot_so_compose_run_takes_its_flags() -> None:
    # docs/scaling.md: `docker compose run --rm shard-0 --sync` appends to the entrypoint.
    dockerfile = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    assert 'ENTRYPOINT ["chessgarden", "run"]' in dockerfile
    assert "docker compose run --rm shard-0 --sync" in (ROOT / "docs" / "scaling.md").read_text()
    from bot.cli import build_parser

    args = build_parser().parse_args(["run", "--sync"])
    assert args.sync is True
    example = (ROOT / ".env.example").read_text(encoding="utf-8")
    assert {line.split("=")[0] for line in example.splitlines() if "=" in line} == set(ENV)
