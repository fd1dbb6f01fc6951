"""``chessgarden link`` and ``chessgarden verify-record``, the secret file, and the
address ``CHESSGARDEN_WEB`` takes."""

from __future__ import annotations

import asyncio
import logging
import os
import stat
import sys
from pathlib import Path

import pytest

from bot.cli import main
from bot.links import SECRET_VAR, Links, load_secret, secret_path
from bot.service import GameService
from bot.web.cli import WebSettingsError, parse_address, start_server

sys.path.insert(0, str(Path(__file__).parent))  # the helpers live beside this file
from webgames import play_moves, start_game  # noqa: E402


def test_the_secret_file_is_made_once_private_and_reused(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.delenv(SECRET_VAR, raising=False)
    db = tmp_path / "games.sqlite3"
    first = load_secret(db)
    path = secret_path(db)
    assert path == tmp_path / "games.sqlite3.web-secret"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert load_secret(db) == first and len(first) >= 32
    assert load_secret(db, env={SECRET_VAR: "s" * 20}) == b"s" * 20
    with pytest.raises(ValueError, match="too short"):
        load_secret(db, env={SECRET_VAR: "short"})


def _game(db: Path, finished: bool) -> int:
    async def make() -> int:
        service = await GameService.open(db, cpu_workers=1)
        try:
            game_id = await start_game(service, "guardener", seed="cli-seed")
            await play_moves(service, game_id, 5)
            if finished:
                await service.resign(user_id=11, game_id=game_id)
            return game_id
        finally:
            await service.close()

    return asyncio.run(make())


def test_link_prints_the_page_address(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.setenv(SECRET_VAR, "a-secret-for-the-cli-test")
    monkeypatch.setenv("CHESSGARDEN_PUBLIC_URL", "https://garden.example/")
    db = tmp_path / "games.sqlite3"
    game_id = _game(db, finished=False)
    assert main(["link", str(game_id), "--db", str(db)]) == 0
    links = Links(b"a-secret-for-the-cli-test", "https://garden.example")
    assert capsys.readouterr().out.strip() == links.game_url(game_id)
    assert main(["link", "999", "--db", str(db)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and "999" in err


def test_verify_record_checks_a_downloaded_record(tmp_path: Path, capsys) -> None:
    from bot.web.app import record_text
    from bot.web.state import GameStates

    db = tmp_path / "games.sqlite3"
    game_id = _game(db, finished=True)

    async def record() -> str:
        service = await GameService.open(db, cpu_workers=1)
        try:
            state = await GameStates(service).state(game_id)
            return record_text(state, (await service.history(game_id=game_id)).record)
        finally:
            await service.close()

    text = asyncio.run(record())
    good = tmp_path / f"game-{game_id}.txt"
    good.write_text(text)
    assert main(["verify-record", str(good)]) == 0
    out = capsys.readouterr().out
    assert "matches" in out and out.rstrip().endswith("verified")
    bad = tmp_path / "bad.txt"
    bad.write_text(text.replace('[Seed "', '[Seed "0'))
    assert main(["verify-record", str(bad)]) == 1
    assert "does not hash to the commitment" in capsys.readouterr().out
    assert main(["verify-record", str(tmp_path / "missing.txt")]) == 2


def test_the_web_address_is_host_and_port() -> None:
    assert parse_address("0.0.0.0:8080") == ("0.0.0.0", 8080)
    assert parse_address("8081") == ("127.0.0.1", 8081)
    assert parse_address("[::1]:9000") == ("::1", 9000)
    for bad in ("host:", "host:port", "1:99999"):
        with pytest.raises(WebSettingsError):
            parse_address(bad)


async def test_the_secret_is_never_logged(tmp_path: Path, monkeypatch, caplog) -> None:
    secret = "a-secret-that-must-never-be-logged"
    monkeypatch.setenv(SECRET_VAR, secret)
    caplog.set_level(logging.DEBUG)
    service = await GameService.open(tmp_path / "g.sqlite3", cpu_workers=1)
    try:
        server = await start_server(service, tmp_path / "g.sqlite3", "127.0.0.1", 0)
        game_id = await start_game(service, "tquarchess")
        await play_moves(service, game_id, 2)
        text = repr(server.site.links) + repr(server.site)
        await server.stop()
    finally:
        await service.close()
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert "web pages on http://127.0.0.1:" in logged  # the log was captured
    assert secret not in logged and secret not in text
    assert os.environ[SECRET_VAR] == secret


def test_a_board_message_gets_a_watch_link_when_pages_are_served() -> None:
    import discord

    from bot.discord.views import board_view
    from bot.links import configure
    from bot.service import GameView

    game = GameView(
        id=42, variant="tquarchess", variant_title="Tquarchess", options={},
        status="active", location_id=1, guild_id=5, challenger_id=11, opponent_id=12,
        white_id=11, black_id=12, turn="white", to_move_id=11, dice=None, ply=0,
        last_move=None, result=None, winner=None, result_reason=None, draw_offer=None,
        commitment="c" * 64, seed=None,
    )  # fmt: skip

    def links_of(view: discord.ui.View) -> list[str]:
        return [i.url for i in view.children if isinstance(i, discord.ui.Button) and i.url]

    assert links_of(board_view(game, ["e4"], "white")) == []  # no pages: no button
    links = Links(b"a-secret-for-the-watch-button", "https://garden.example")
    configure(links)
    try:
        assert links_of(board_view(game, ["e4"], "white")) == [links.game_url(42)]
    finally:
        configure(None)


async def test_history_gets_a_watch_link_when_pages_are_served(tmp_path: Path) -> None:
    import discord

    from bot.discord.adapter import history_post
    from bot.links import configure

    service = await GameService.open(tmp_path / "h.sqlite3", renderer=None)
    try:
        game_id = await start_game(service, "tquarchess")
        history = await service.history(game_id=game_id)
    finally:
        await service.close()
    assert history_post(history).view is None  # no pages: no button
    links = Links(b"a-secret-for-the-watch-button", "https://garden.example")
    configure(links)
    try:
        view = history_post(history).view
        assert view is not None
        buttons = [i for i in view.children if isinstance(i, discord.ui.Button)]
        assert [(b.label, b.url) for b in buttons] == [("Watch", links.game_url(game_id))]
    finally:
        configure(None)
