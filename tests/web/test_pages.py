"""The game pages over HTTP (aiohttp's test server, no browser): capability links, the
404 page, the live games list, headers, sizes, images, the record and its offline check,
live events, the bounds and the rate limit."""

from __future__ import annotations

import asyncio
import json
import re
import sys
import threading
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer

import renderers.graph
import variants
from bot.service import GameService, render_board
from bot.service.workers import BACKGROUND_THREAD
from bot.web.app import RateLimit, Site, create_app
from bot.web.live import Limits
from bot.web.proof import check_record

sys.path.insert(0, str(Path(__file__).parent))  # the helpers live beside this file
from webgames import SECRET, make_site, play_moves, start_game  # noqa: E402

SEED = "a-fixed-seed-for-the-web-tests"


@pytest.fixture
async def service(tmp_path: Path) -> AsyncIterator[GameService]:
    service = await GameService.open(tmp_path / "games.sqlite3", cpu_workers=1)
    yield service
    await service.close()


async def client_for(site: Site) -> TestClient:  # type: ignore[type-arg]
    client: TestClient = TestClient(TestServer(create_app(site)))  # type: ignore[type-arg]
    await client.start_server()
    service = site.service
    service.add_row_listener(site.hub.row_committed)
    return client


@pytest.fixture
async def web(service: GameService, tmp_path: Path) -> AsyncIterator[tuple[Site, TestClient]]:  # type: ignore[type-arg]
    site, _ = make_site(service, tmp_path, public_url="https://garden.example")
    client = await client_for(site)
    yield site, client
    await site.hub.stop()
    await client.close()


async def test_a_game_page_shows_its_moves_dice_status_and_players(web, service) -> None:
    site, client = web
    game_id = await start_game(service, "guardener", seed=SEED)
    await play_moves(service, game_id, 6)
    history = await service.history(game_id=game_id)
    _, actions, _ = variants.parse_record(history.record)
    response = await client.get(site.links.game_path(game_id))
    assert response.status == 200
    html = await response.text()
    for text in actions:
        assert f">{text}</a>" in html or f"</span> {text}</a>" in html
    assert html.count('class="dice"') == len(actions)  # Guardener: every action had dice
    view = await service.view(game_id=game_id)
    assert view.commitment and view.commitment in html
    assert "player 11" in html and "player 12" in html
    game = variants.replay(history.record)
    assert variants.describe(game).headline in html
    assert view.seed is None and "seed stays secret" in html
    # one link per step, so that the page works without script
    for step in range(len(actions) + 1):
        assert f'href="{site.links.game_path(game_id)}/{step}"' in html


async def test_every_bad_address_gets_the_same_plain_404(web, service) -> None:
    site, client = web
    game_id = await start_game(service, "tquarchess")
    good = site.links.game_token(game_id)
    other = site.links.game_token(game_id + 1)  # a true token of a game that does not exist
    number, mac = good.split("-")
    forged = [
        f"/g/{number}-{mac[:-1]}{'a' if mac[-1] != 'a' else 'b'}",  # one character off
        f"/g/{int(number) + 1}-{mac}",  # the next id with this game's mac
        f"/g/{number}",
        f"/g/{number}-{mac.upper()}",
        f"/g/{other}",
        f"/g/{good}/999",
        f"/g/{good}/board/999.png",
        "/g/../etc/passwd",
        "/",
        "/admin",
        f"/s/{site.links.guild_token(5)}",  # a server that did not opt in
    ]
    bodies = set()
    for path in forged:
        response = await client.get(path)
        assert response.status == 404, path
        bodies.add(await response.text())
    assert len(bodies) == 1
    assert "Not found" in bodies.pop()
    assert (await client.get(f"/g/{good}")).status == 200  # the true link works
    assert (await client.post(f"/g/{good}")).status in (404, 405)


async def test_the_live_list_shows_only_a_server_that_opted_in_and_only_its_games(
    service: GameService, tmp_path: Path
) -> None:
    site, listing = make_site(service, tmp_path)
    client = await client_for(site)
    try:
        listed = await start_game(service, "tquarchess", location_id=1, guild_id=5)
        other = await start_game(service, "tquarchess", location_id=2, guild_id=6)
        await play_moves(service, listed, 1)
        path5, path6 = site.links.guild_path(5), site.links.guild_path(6)
        assert (await client.get(path5)).status == 404  # nobody opted in yet
        await listing.set_listed(5, True)
        html = await (await client.get(path5)).text()
        assert site.links.game_path(listed) in html
        assert site.links.game_path(other) not in html and f"Game {other}:" not in html
        assert (await client.get(path6)).status == 404  # server 6 never opted in
        forged = path5[:-1] + ("a" if path5[-1] != "a" else "b")
        assert (await client.get(forged)).status == 404
        await listing.set_listed(5, False)
        assert (await client.get(path5)).status == 404
    finally:
        await client.close()


async def test_headers_no_inline_script_and_the_page_is_light(web, service) -> None:
    site, client = web
    game_id = await start_game(service, "guardener", seed=SEED)
    await play_moves(service, game_id, 40)
    response = await client.get(site.links.game_path(game_id))
    html = await response.text()
    csp = response.headers["Content-Security-Policy"]
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp
    assert response.headers["Referrer-Policy"] == "no-referrer"
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    scripts = re.findall(r"<script\b[^>]*>(.*?)</script>", html, re.S)
    assert scripts and all(body.strip() == "" for body in scripts)
    assert re.search(r"<script\b(?![^>]*\bsrc=)", html) is None
    assert re.search(r"\son[a-z]+\s*=", html) is None  # no inline event handlers
    assert "style=" not in html
    total = len(html.encode())
    for asset in re.findall(r'(?:href|src)="(/static/[^"]+)"', html):
        total += len(await (await client.get(asset)).read())
    assert total < 50_000, total


async def test_open_graph_tags_show_the_board_now_and_the_status(web, service) -> None:
    site, client = web
    game_id = await start_game(service, "tquarchess")
    await play_moves(service, game_id, 3)
    html = await (await client.get(site.links.game_path(game_id) + "/1")).text()
    image = re.search(r'<meta property="og:image" content="([^"]+)"', html)
    assert image and image.group(1).startswith("https://garden.example/g/")
    assert "/board/3.png?v=" in image.group(1)  # the board now, even on an older step's page
    assert re.search(r'<meta name="twitter:card" content="summary_large_image"', html)
    description = re.search(r'<meta property="og:description" content="([^"]+)"', html)
    assert description and description.group(1).startswith("Black to move")  # after 3 moves


async def test_board_images_are_the_positions_and_cached_by_version(web, service) -> None:
    site, client = web
    game_id = await start_game(service, "guardener", seed=SEED)
    await play_moves(service, game_id, 4)
    record = (await service.history(game_id=game_id)).record
    headers, actions, rolls = variants.parse_record(record)
    html = await (await client.get(site.links.game_path(game_id))).text()
    for step in (0, 2, 4):
        game = variants.new_game(headers["Variant"], rolls=rolls)
        for text in actions[:step]:
            game.play(text)
        src = re.search(rf'data-img="([^"]*/board/{step}\.png\?v=[0-9a-f]+)"', html)
        assert src
        response = await client.get(src.group(1))
        assert response.status == 200 and response.content_type == "image/png"
        assert await response.read() == render_board(game, "white")
        assert "immutable" in response.headers["Cache-Control"]
        again = await client.get(src.group(1), headers={"If-None-Match": response.headers["ETag"]})
        assert again.status == 304
    stale = await client.get(site.links.game_path(game_id) + "/board/1.png?v=0000")
    assert stale.status == 200 and stale.headers["Cache-Control"] == "no-cache"


async def test_a_finished_game_shows_its_proof_and_its_record_verifies_offline(
    web, service
) -> None:
    site, client = web
    game_id = await start_game(service, "guardener", seed=SEED)
    await play_moves(service, game_id, 8)
    await service.resign(user_id=12, game_id=game_id)
    view = await service.view(game_id=game_id)
    html = await (await client.get(site.links.game_path(game_id))).text()
    assert view.seed and view.seed in html and view.chain_head and view.chain_head in html
    assert "Verified by this server." in html
    assert f"chessgarden verify-record game-{game_id}.txt" in html
    assert "White won (resignation), 1-0." in html or "White won" in html
    response = await client.get(site.links.game_path(game_id) + "/record.txt")
    assert f'filename="game-{game_id}.txt"' in response.headers["Content-Disposition"]
    text = await response.text()
    assert f'[Seed "{view.seed}"]' in text and f'[Chain "{view.chain_head}"]' in text
    check = check_record(text)
    assert check.ok, check.lines
    # one roll changed, or another seed: the offline check says so
    body = text.split("\n\n", 1)
    rolled = re.search(r"\[(\d) (\d)\]", body[1])
    assert rolled
    face = "1" if rolled.group(1) != "1" else "2"
    tampered = body[0] + "\n\n" + body[1].replace(rolled.group(0), f"[{face} {rolled.group(2)}]", 1)
    assert not check_record(tampered).ok
    other_seed = text.replace(view.seed, "0" * len(view.seed))
    assert not check_record(other_seed).ok


async def test_a_finished_game_shows_its_errors_luck_and_graph_once_analysed(
    web, service, monkeypatch: pytest.MonkeyPatch
) -> None:
    site, client = web
    game_id = await start_game(service, "guardener", seed=SEED)
    live_path = site.links.game_path(game_id)
    html = await (await client.get(live_path)).text()
    assert "Skill and luck" not in html  # a live game is not analysed
    await play_moves(service, game_id, 8)
    await service.resign(user_id=12, game_id=game_id)
    path = site.links.game_path(game_id)
    html = await (await client.get(path)).text()
    assert "This game has not been analysed yet" in html
    assert f"/analyse game:{game_id}" in html and f"chessgarden analyse {game_id}" in html
    assert (await client.get(path + "/analysis.png")).status == 404  # never runs one
    assert service.analyses.runs == 0

    report = await service.analyse(game_id=game_id, render=False)
    drawn_on: list[str] = []
    real_graph = renderers.graph.graph_png

    def graph_png(*args: Any, **kwargs: Any) -> bytes:
        drawn_on.append(threading.current_thread().name)
        return real_graph(*args, **kwargs)

    monkeypatch.setattr(renderers.graph, "graph_png", graph_png)
    html = await (await client.get(path)).text()
    assert "not been analysed" not in html and service.analyses.runs == 1
    a = report.analysis
    for p in a.players:
        assert f"{100 * p.error_rate:.1f}%" in html
        assert f"{100 * p.luck_rate:+.1f}%" in html
    assert "White: " in html and "Black: " in html and "Luck-adjusted result" in html
    assert "Biggest error:" in html and "Luckiest roll:" in html
    rolls = [t for t in a.turns if t.roller is not None]
    luckiest = max(rolls, key=lambda t: t.luck)
    assert f'href="{path}/{luckiest.ply - 1}">See the board' in html
    src = re.search(r'<img id="graph" src="([^"]+)"', html)
    assert src and src.group(1).startswith(path + "/analysis.png?v=")
    graph = await client.get(src.group(1))
    assert graph.status == 200 and graph.content_type == "image/png"
    assert "immutable" in graph.headers["Cache-Control"]
    png = await graph.read()
    assert png.startswith(b"\x89PNG") and len(png) > 5_000
    again = await client.get(src.group(1), headers={"If-None-Match": graph.headers["ETag"]})
    assert again.status == 304
    # drawn once, on the background thread: never on the threads that serve players
    assert [name.rsplit("_", 1)[0] for name in drawn_on] == [BACKGROUND_THREAD]
    assert service.analyses.runs == 1  # the page read the kept one: nothing ran again


async def test_a_move_reaches_every_open_event_stream(web, service) -> None:
    site, client = web
    game_id = await start_game(service, "tquarchess")
    await play_moves(service, game_id, 2)
    path = site.links.game_path(game_id) + "/events"
    streams = [await client.get(path) for _ in range(3)]
    for stream in streams:
        assert stream.headers["Content-Type"] == "text/event-stream"

    async def next_event(stream, after: int) -> dict:  # type: ignore[no-untyped-def,type-arg]
        async for line in stream.content:
            if line.startswith(b"data: "):
                data = json.loads(line[6:])
                if data["last"] > after:
                    return data  # type: ignore[no-any-return]
        raise AssertionError("the stream ended")

    first = await asyncio.gather(*(asyncio.wait_for(next_event(s, 1), 5) for s in streams))
    assert all(d["last"] == 2 for d in first)  # each stream starts with the game as it is
    assert all("first" not in d and len(d["steps"]) == 3 for d in first)  # all of it
    waiting = [asyncio.ensure_future(next_event(s, 2)) for s in streams]
    outcome = await play_moves(service, game_id, 1)
    assert outcome is not None and outcome.recorded
    events = await asyncio.wait_for(asyncio.gather(*waiting), 5)
    for data in events:
        assert data["last"] == 3 and data["steps"][-1]["text"] == outcome.recorded
        assert data["first"] == 3 and len(data["steps"]) == 1  # only the new step is sent
    for stream in streams:
        stream.close()


async def test_live_pages_are_bounded_per_game_and_in_all(service, tmp_path: Path) -> None:
    site, _ = make_site(service, tmp_path, limits=Limits(per_game=2, per_address=10, total=3))
    client = await client_for(site)
    try:
        one = await start_game(service, "tquarchess", location_id=1)
        two = await start_game(service, "tquarchess", location_id=2)
        three = await start_game(service, "tquarchess", location_id=3)
        events = lambda g: site.links.game_path(g) + "/events"  # noqa: E731
        open_ = [await client.get(events(one)), await client.get(events(one))]
        refused = await client.get(events(one))
        assert refused.status == 503 and "too many live pages" in await refused.text()
        open_.append(await client.get(events(two)))
        full = await client.get(events(three))
        assert full.status == 503 and "too many live pages" in await full.text()
        assert site.hub.total == 3
        for stream in open_:
            stream.close()
        for _ in range(100):  # the server notices the closed streams
            if site.hub.total == 0:
                break
            await asyncio.sleep(0.02)
        assert site.hub.total == 0 and not site.hub.channels
    finally:
        await client.close()


async def test_an_address_past_its_rate_gets_429(service, tmp_path: Path) -> None:
    site, _ = make_site(service, tmp_path, rate=RateLimit(rate=0.001, burst=5))
    client = await client_for(site)
    try:
        game_id = await start_game(service, "tquarchess")
        codes = [(await client.get(site.links.game_path(game_id))).status for _ in range(8)]
        assert codes[:5] == [200] * 5 and codes[5:] == [429] * 3
    finally:
        await client.close()


def test_the_rate_limit_refills() -> None:
    limit = RateLimit(rate=2.0, burst=2.0)
    assert [limit.allow("a", 0.0) for _ in range(3)] == [True, True, False]
    assert limit.allow("b", 0.0)  # per address
    assert limit.allow("a", 0.6) and not limit.allow("a", 0.6)


async def test_a_challenge_has_a_page_without_board_or_dice(web, service) -> None:
    site, client = web
    challenge = await service.challenge(
        location_id=9, challenger_id=11, opponent_id=12, variant="tquarchess", guild_id=5
    )
    response = await client.get(site.links.game_path(challenge.game.id))
    html = await response.text()
    assert response.status == 200 and "has not started" in html and "<img" not in html
    assert (await client.get(site.links.game_path(challenge.game.id) + "/record.txt")).status == 404


def test_links_are_not_the_same_under_another_secret() -> None:
    from bot.links import Links

    a, b = Links(SECRET), Links(SECRET + b"x")
    assert a.game_of(a.game_token(7)) == 7
    assert b.game_of(a.game_token(7)) is None
    assert a.game_of(a.guild_token(7)) is None  # a server's token is not a game's
    assert SECRET.decode() not in repr(a)
