"""The loopback fake Discord (``loopback_discord.py``), checked with discord.py's own HTTP
client in this process (every fault as discord.py sees it), then with a real
``chessgarden run`` subprocess that logs in, reaches READY and stops on SIGTERM."""

from __future__ import annotations

import asyncio
import io
import json
import signal
import sys
import time
import urllib.request
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import discord
import pytest
from discord.http import HTTPClient, Route, handle_message_parameters

import variants

sys.path.insert(0, str(Path(__file__).parent))  # the fake lives beside this file
from loopback_discord import LoopbackDiscord  # noqa: E402

POST = "POST /channels/{channel_id}/messages"


@pytest.fixture
def fake() -> Iterator[LoopbackDiscord]:
    with LoopbackDiscord() as server:
        yield server


@pytest.fixture
async def client(
    fake: LoopbackDiscord, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[HTTPClient]:
    monkeypatch.setattr(Route, "BASE", fake.api_url)
    http = HTTPClient(asyncio.get_running_loop())
    await http.static_login(fake.token)
    try:
        yield http
    finally:
        await http.close()


async def send(http: HTTPClient, channel_id: int, content: str, **kwargs: object) -> dict:
    with handle_message_parameters(content=content, **kwargs) as params:  # type: ignore[arg-type]
        return await http.send_message(channel_id, params=params)  # type: ignore[return-value]


async def test_login_messages_and_multipart(fake: LoopbackDiscord, client: HTTPClient) -> None:
    assert [r.line for r in fake.requests()] == ["GET /users/@me"]
    plain = await send(client, fake.channel_id, "hello")
    board = discord.File(io.BytesIO(b"\x89PNG..."), filename="board.png")
    with_file = await send(
        client, fake.channel_id, "a board", file=board, embed=discord.Embed(title="Game 1")
    )
    assert with_file["attachments"][0]["filename"] == "board.png"
    posted = fake.messages(fake.channel_id)
    assert [m.content for m in posted] == ["hello", "a board"]
    assert posted[1].files == ["board.png"] and "Game 1" in posted[1].text
    multipart = fake.requests(POST)[1]
    assert multipart.files == ["board.png"] and multipart.body["content"] == "a board"  # type: ignore[index]
    edited = await client.edit_message(fake.channel_id, plain["id"], params=_params("edited"))
    assert edited["content"] == "edited" and fake.messages()[0].edits == 1
    with pytest.raises(discord.NotFound) as unknown:
        await send(client, 12345, "nowhere")
    assert unknown.value.code == 10003  # Unknown Channel
    with pytest.raises(discord.NotFound) as elsewhere:
        await client.request(Route("GET", "/guilds/{guild_id}/audit-logs", guild_id=1))
    assert elsewhere.value.code == 0 and fake.requests()[-1].route is None


def _params(content: str) -> discord.http.MultipartParameters:
    with handle_message_parameters(content=content) as params:
        return params


async def test_a_nonce_used_again_returns_the_original(
    fake: LoopbackDiscord, client: HTTPClient
) -> None:
    first = await send(client, fake.channel_id, "the computer moved", nonce="row-7")
    again = await send(client, fake.channel_id, "the computer moved", nonce="row-7")
    other = await send(client, fake.channel_id, "another", nonce="row-8")
    assert again["id"] == first["id"] != other["id"]
    assert len(fake.messages()) == 2
    assert [r.nonce for r in fake.requests(POST)] == ["row-7", "row-7", "row-8"]
    fake.nonce_window = 0.0  # after the window, the same nonce makes a new message
    later = await send(client, fake.channel_id, "the computer moved", nonce="row-7")
    assert later["id"] != first["id"] and len(fake.messages()) == 3


@pytest.mark.parametrize(
    ("kind", "error", "code"),
    [
        ("503", discord.DiscordServerError, 0),
        ("403-50013", discord.Forbidden, 50013),
        ("403-50001", discord.Forbidden, 50001),
        ("404-10003", discord.NotFound, 10003),
    ],
)
async def test_errors_as_discord_sends_them(
    fake: LoopbackDiscord, client: HTTPClient, kind: str, error: type, code: int
) -> None:
    fake.fault(POST, kind, count=1)
    with pytest.raises(error) as raised:
        await send(client, fake.channel_id, "refused")
    assert raised.value.code == code
    assert fake.messages() == []
    await send(client, fake.channel_id, "the next one passes")
    assert [r.fault for r in fake.requests(POST)] == [kind, None]


async def test_a_502_is_retried_by_discord_py(fake: LoopbackDiscord, client: HTTPClient) -> None:
    fake.fault(POST, "502", count=1)
    started = time.monotonic()
    await send(client, fake.channel_id, "after one retry")
    assert time.monotonic() - started >= 0.9  # discord.py sleeps 1 s before its retry
    assert [r.status for r in fake.requests(POST)] == [502, 200]


@pytest.mark.parametrize("kind", ["429", "429-global"])
async def test_rate_limits_are_honoured(
    fake: LoopbackDiscord, client: HTTPClient, kind: str
) -> None:
    fake.fault(POST, kind, count=1, retry_after=0.3)
    started = time.monotonic()
    await send(client, fake.channel_id, "after the limit")
    assert time.monotonic() - started >= 0.3
    limited, passed = fake.requests(POST)
    assert (limited.status, limited.fault, passed.status) == (429, kind, 200)
    assert len(fake.messages()) == 1


async def test_hang_reset_and_the_unknown_outcome(
    fake: LoopbackDiscord, client: HTTPClient
) -> None:
    fake.fault(POST, "hang")
    with pytest.raises(asyncio.TimeoutError):
        await asyncio.wait_for(send(client, fake.channel_id, "never answered"), 0.3)
    assert fake.held == 1 and fake.messages() == []
    assert fake.release() == 1
    fake.wait_for(lambda: fake.messages())  # a released hang is handled late (slow Discord)

    fake.fault(POST, "reset")
    with pytest.raises((OSError, discord.HTTPException)):
        await send(client, fake.channel_id, "reset")
    assert len(fake.messages()) == 1

    fake.fault(POST, "apply-hang")
    with pytest.raises(asyncio.TimeoutError):
        await asyncio.wait_for(send(client, fake.channel_id, "posted, unanswered", nonce="n1"), 0.3)
    fake.wait_for(lambda: fake.held)
    applied = fake.messages()[-1]
    assert applied.content == "posted, unanswered"
    retried = await send(client, fake.channel_id, "posted, unanswered", nonce="n1")
    assert int(retried["id"]) == applied.id and len(fake.messages()) == 2  # no double post
    fake.release()


async def test_faults_over_http_and_route_globs(fake: LoopbackDiscord, client: HTTPClient) -> None:
    def control(path: str, data: dict[str, object]) -> dict[str, object]:
        request = urllib.request.Request(
            fake.url + path, json.dumps(data).encode(), {"Content-Type": "application/json"}
        )
        with urllib.request.urlopen(request, timeout=5) as answer:
            return json.loads(answer.read())  # type: ignore[no-any-return]

    assert await asyncio.to_thread(
        control,
        "/_fake/fault",
        {"route": f"POST /channels/{fake.channel_id}/*", "kind": "403-50013"},
    ) == {"ok": True}
    with pytest.raises(discord.Forbidden):
        await send(client, fake.channel_id, "refused by glob")
    with pytest.raises(ValueError):
        fake.fault("*", "418")


async def test_a_wrong_token_is_refused(
    fake: LoopbackDiscord, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(Route, "BASE", fake.api_url)
    http = HTTPClient(asyncio.get_running_loop())
    try:
        with pytest.raises(discord.LoginFailure):
            await http.static_login("not-the-token")
    finally:
        await http.close()


def bot_log(path: Path) -> str:
    return path.read_text(errors="replace") if path.exists() else ""


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_the_real_bot_logs_in_reaches_ready_and_stops_on_a_signal(
    fake: LoopbackDiscord, tmp_path: Path, signum: int
) -> None:
    log = tmp_path / "bot.log"
    proc = fake.spawn_bot(str(tmp_path / "db.sqlite3"), log)
    try:
        fake.wait_for(lambda: "logged in as chessgarden; in 1 servers" in bot_log(log), 60)
        proc.send_signal(signum)
        code = proc.wait(15)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    text = bot_log(log)
    assert code == 0, text
    assert "Traceback" not in text and "loopback: refused" not in text, text
    assert [r.line for r in fake.requests()[:2]] == [
        "GET /users/@me",
        "GET /oauth2/applications/@me",
    ]
    assert fake.identifies[0]["intents"] == 1  # guilds only, no privileged intent
    assert fake.gateway_urls[0].startswith("/gateway?v=10&encoding=json")
    assert all(r.route is not None for r in fake.requests()), "a route the fake does not know"
    assert f"shutdown: {signal.Signals(signum).name} received; stopping" in text, text


def test_a_signal_during_login_still_stops_cleanly(fake: LoopbackDiscord, tmp_path: Path) -> None:
    """Discord hangs on the login's second request: SIGTERM ends the wait, exit code 0."""
    log = tmp_path / "bot.log"
    fake.fault("GET /oauth2/applications/@me", "hang")
    proc = fake.spawn_bot(str(tmp_path / "db.sqlite3"), log)
    try:
        fake.wait_for(lambda: fake.held, 60)
        started = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(15)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    text = bot_log(log)
    assert code == 0, text
    assert time.monotonic() - started < 10
    assert "shutdown: the store closed" in text and "Traceback" not in text, text
    assert not fake.identifies  # it never reached the gateway


def test_a_slash_command_through_the_real_bot(fake: LoopbackDiscord, tmp_path: Path) -> None:
    """/play against the computer, sent over the gateway: the bot answers the interaction
    (callback, then follow-ups or edits) and posts the computer's move with its token."""
    log = tmp_path / "bot.log"
    proc = fake.spawn_bot(str(tmp_path / "db.sqlite3"), log)
    human = 987654321987654321
    try:
        fake.wait_for(lambda: "logged in as chessgarden" in bot_log(log), 60)
        play = fake.command(
            human, "play", {"variant": variants.names()[0], "computer": 1, "colour": "black"}
        )
        fake.wait_for(lambda: fake.requests(POST), 60)  # the computer's move, bot token
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(15)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    text = bot_log(log)
    assert code == 0 and "Traceback" not in text, text
    assert play.response in (4, 5), [r.line for r in fake.requests()]
    answer = fake.interaction_messages(play)
    assert answer and "the computer" in "\n".join(m.text for m in answer).lower()
    moved = [m for m in fake.messages(fake.channel_id) if m.interaction_id is None]
    assert moved and f"<@{human}>" in moved[-1].content and "board.png" in moved[-1].files


def test_the_real_bot_as_one_shard_of_two(fake: LoopbackDiscord, tmp_path: Path) -> None:
    """The sharded bot (``AutoShardedBot``) on the shard that has the guild: identified with
    ``[id, 2]``, READY then the guild; it stops gracefully too."""
    log = tmp_path / "bot.log"
    owner = (fake.guild_id >> 22) % 2
    env = {"CHESSGARDEN_SHARDS": "2", "CHESSGARDEN_SHARD_IDS": str(owner)}
    proc = fake.spawn_bot(str(tmp_path / "db.sqlite3"), log, env=env)
    try:
        fake.wait_for(lambda: "logged in as chessgarden; in 1 servers" in bot_log(log), 60)
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(15)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert code == 0, bot_log(log)
    assert [i["shard"] for i in fake.identifies] == [[owner, 2]]
    assert "shutdown: the Discord connection closed" in bot_log(log)
