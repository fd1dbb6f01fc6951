"""The compose files (issues 16 and 24): no Docker engine runs in CI, so each file is read
as Compose reads it (YAML with merge keys, ``${VAR:?message}`` from the environment) and
held to what the bot needs:

- ``compose.yaml``, the quick path: one bot on SQLite, its store on a named volume;
- ``compose.postgres.yaml``: one PostgreSQL with its data in a named volume, and bot
  processes whose settings the bot itself accepts, covering every shard exactly once.

Both say that they need Compose v2 (or docker-compose 1.27+), and neither has the top-level
``name:`` that docker-compose 1.29 (Debian 12) rejects."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import yaml

from bot.discord.app import Settings
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


QUICK, POSTGRES = "compose.yaml", "compose.postgres.yaml"


def compose(env: dict[str, str], name: str = POSTGRES) -> dict[str, Any]:
    data = yaml.safe_load((ROOT / name).read_text(encoding="utf-8"))
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


def test_the_quick_path_is_one_bot_on_sqlite_in_a_named_volume() -> None:
    from test_packaging import ignore_rules, is_ignored, parse_dockerfile

    data = compose({}, QUICK)  # nothing is taken from the shell: the settings are in .env
    (service,) = bots(data["services"]).values()
    assert set(data["services"]) == set(bots(data["services"]))  # nothing but the bot
    assert service["env_file"] == ".env" and "environment" not in service
    assert ".env" in (ROOT / ".gitignore").read_text(encoding="utf-8").split()  # not committed
    rules = ignore_rules((ROOT / ".dockerignore").read_text(encoding="utf-8"))
    assert is_ignored(".env", rules)  # and not in the image
    image = parse_dockerfile((ROOT / "Dockerfile").read_text(encoding="utf-8"))
    example = (ROOT / ".env.example").read_text(encoding="utf-8")
    dotenv = dict(
        line.split("=", 1) for line in example.splitlines() if "=" in line and line[0] != "#"
    )
    dotenv["DISCORD_TOKEN"] = ENV["DISCORD_TOKEN"]  # as the operator fills it in
    settings = Settings.from_env({**image.env, **dotenv})  # what `chessgarden run` reads
    assert settings.token == ENV["DISCORD_TOKEN"] and settings.shards is None
    (volume,) = service["volumes"]
    name, _, mount = volume.partition(":")
    assert name in data["volumes"]
    assert (settings.db_path or "").startswith(mount.rstrip("/") + "/")  # the store persists
    assert mount in image.volumes
    assert "healthcheck" not in service  # the image's HEALTHCHECK applies


@pytest.mark.parametrize("name", [QUICK, POSTGRES])
def test_each_file_says_which_compose_it_needs(name: str) -> None:
    text = (ROOT / name).read_text(encoding="utf-8")
    assert "name" not in yaml.safe_load(text)  # docker-compose 1.29 rejects a top-level name
    header = " ".join(line.lstrip("# ") for line in text.splitlines() if line.startswith("#"))
    assert "Needs Docker Compose v2" in header and "docker-compose 1.27 or newer" in header
    for service in yaml.safe_load(text)["services"].values():
        assert "container_name" not in service  # fixed names clash between projects


def test_a_missing_secret_stops_compose_with_its_message() -> None:
    with pytest.raises(LookupError, match="set POSTGRES_PASSWORD"):
        compose({"DISCORD_TOKEN": "x"})
    with pytest.raises(LookupError, match="set DISCORD_TOKEN"):
        compose({"POSTGRES_PASSWORD": "x"})


def test_the_image_runs_the_bot_so_compose_run_takes_its_flags() -> None:
    # `docker compose run --rm SERVICE --sync` appends to the entrypoint (docs).
    dockerfile = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    assert 'ENTRYPOINT ["chessgarden", "run"]' in dockerfile
    scaling = (ROOT / "docs" / "scaling.md").read_text(encoding="utf-8")
    assert "docker compose -f compose.postgres.yaml run --rm shard-0 --sync" in scaling
    for doc in ("README.md", "docs/discord.md"):
        assert "docker compose run --rm chessgarden --sync" in (ROOT / doc).read_text()
    from bot.cli import build_parser

    args = build_parser().parse_args(["run", "--sync"])
    assert args.sync is True
    example = (ROOT / ".env.example").read_text(encoding="utf-8")
    keys = {line.split("=")[0] for line in example.splitlines() if "=" in line and line[0] != "#"}
    assert keys == set(ENV)
