"""The steps a game page shows, kept per game and grown by the new log entries only
(issue 28): after every move they equal a build of the whole log, and a take-back, a
relocation or a log that is not the one read before are handled."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

import variants
from bot.service import GameService
from bot.web.state import GameStates
from bot.web.timeline import Timeline

sys.path.insert(0, str(Path(__file__).parent))  # the helpers live beside this file
from webgames import BLACK, WHITE, make_site, play_moves, start_game  # noqa: E402


@pytest.fixture
async def service(tmp_path: Path) -> AsyncIterator[GameService]:
    service = await GameService.open(tmp_path / "games.sqlite3", cpu_workers=1)
    yield service
    await service.close()


async def whole(service: GameService, game_id: int) -> Timeline:
    """The steps built from the whole log, by a reader that kept nothing."""
    timeline = (await GameStates(service).state(game_id)).timeline
    assert timeline is not None
    return timeline


async def record_moves(service: GameService, game_id: int) -> list[str]:
    """The moves as a replay of the record plays them (forced placements included)."""
    history: list[str] = variants.replay((await service.history(game_id=game_id)).record).history
    return history


@pytest.mark.parametrize("variant", ["guardener", "tquarchess", "jepps_random"])
async def test_steps_grown_move_by_move_equal_a_build_of_the_whole_log(
    service: GameService, variant: str
) -> None:
    game_id = await start_game(service, variant, seed="grown-" + variant)
    states = GameStates(service)
    first = await states.state(game_id)
    assert first.timeline is not None and first.timeline.last == 0
    builder = states._builders[game_id]
    for _ in range(12):
        await play_moves(service, game_id, 1)
        state = await states.state(game_id)
        assert state.timeline == await whole(service, game_id)
        assert list(state.timeline.actions) == await record_moves(service, game_id)
        assert states._builders[game_id] is builder  # grown, not built anew
    assert state.timeline.last == 12
    headline = variants.describe(variants.replay((await service.history(game_id=game_id)).record))
    assert state.timeline.steps[-1].headline == headline.headline


async def test_a_take_back_builds_the_steps_anew(service: GameService) -> None:
    game_id = await start_game(service, "kings_guard", seed="undo")
    states = GameStates(service)
    await play_moves(service, game_id, 3)
    before = await states.state(game_id)
    assert before.timeline is not None and before.timeline.last == 3
    kept = states._builders[game_id]
    await service.undo(user_id=WHITE, game_id=game_id)  # takes back the third move
    after = await states.state(game_id)
    assert after.timeline == await whole(service, game_id)
    assert after.timeline is not None and after.timeline.last == 2
    assert after.timeline.steps == before.timeline.steps[:3]
    assert states._builders[game_id] is not kept
    # another move in its place: the same number of steps as before the take-back
    legal = await service.legal_moves(game_id=game_id)
    other = next(m for m in legal if m != before.timeline.steps[3].text)
    await service.act(user_id=WHITE, text=other, game_id=game_id)
    again = await states.state(game_id)
    assert again.timeline == await whole(service, game_id)
    assert again.timeline is not None and again.timeline.steps[3].text == other
    assert again.timeline.steps[3].digest != before.timeline.steps[3].digest
    assert again.version != before.version


async def test_a_relocation_keeps_the_steps_and_changes_the_version(service: GameService) -> None:
    game_id = await start_game(service, "tquarchess", location_id=40, seed="moved")
    states = GameStates(service)
    await play_moves(service, game_id, 4)
    before = await states.state(game_id)
    kept = states._builders[game_id]
    await service.relocate(user_id=99, moderator=True, channel_id=41, game_id=game_id)
    moved = await states.state(game_id)
    assert moved.version != before.version and moved.view.location_id == 41
    assert moved.timeline == before.timeline
    await play_moves(service, game_id, 2)
    later = await states.state(game_id)
    assert later.timeline == await whole(service, game_id)
    assert states._builders[game_id] is kept


async def test_a_log_that_is_not_the_one_read_before_is_read_whole(service: GameService) -> None:
    """The kept steps stand for the log up to an entry's chain digest: when the store's
    entry there has another (a store put back from elsewhere), all is built anew."""
    game_id = await start_game(service, "guardener", seed="other-log")
    states = GameStates(service)
    await play_moves(service, game_id, 3)
    await states.state(game_id)
    kept = states._builders[game_id]
    kept.digest = "0" * 64  # as if it had read another log
    await play_moves(service, game_id, 1)
    state = await states.state(game_id)
    assert states._builders[game_id] is not kept
    assert state.timeline == await whole(service, game_id)


async def test_an_unchanged_game_is_not_read_again(service: GameService) -> None:
    game_id = await start_game(service, "guardener", seed="same")
    states = GameStates(service)
    await play_moves(service, game_id, 2)
    one = await states.state(game_id)
    assert await states.state(game_id) is one


async def test_a_call_during_a_reading_gets_one_that_began_after_it(
    service: GameService, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A reading in flight began before a move was stored; a call made after the move
    (the page asking for the new step's image, told of it by a live event) must not be
    given that reading, but the next one, which the calls made meanwhile share."""
    game_id = await start_game(service, "kings_guard", seed="late")
    await play_moves(service, game_id, 2)
    states = GameStates(service)
    real = service.log_tail
    gate = asyncio.Event()
    calls = 0

    async def slow_first(**kwargs: object) -> object:
        nonlocal calls
        calls += 1
        tail = await real(**kwargs)  # type: ignore[arg-type]
        if calls == 1:
            await gate.wait()  # read before the move below, answered after it
        return tail

    monkeypatch.setattr(service, "log_tail", slow_first)
    loop = asyncio.get_running_loop()
    first = loop.create_task(states.state(game_id))
    while calls == 0:
        await asyncio.sleep(0.001)
    await play_moves(service, game_id, 1)
    second = loop.create_task(states.state(game_id))
    third = loop.create_task(states.state(game_id))
    await asyncio.sleep(0.01)
    gate.set()
    old, new, same = await asyncio.gather(first, second, third)
    assert old.timeline is not None and new.timeline is not None
    assert (old.timeline.last, new.timeline.last) == (2, 3)
    assert same is new


async def test_the_event_after_a_move_carries_only_its_step_and_the_whole_one_all(
    service: GameService, tmp_path: Path
) -> None:
    site, _ = make_site(service, tmp_path)
    game_id = await start_game(service, "kings_guard", seed="events")
    await play_moves(service, game_id, 2)

    async def event() -> tuple[dict, dict]:  # type: ignore[type-arg]
        full, delta, _ = await site._event(game_id)
        return json.loads(full.split(b"data: ", 1)[1]), json.loads(delta.split(b"data: ", 1)[1])

    await event()
    await play_moves(service, game_id, 1)
    full, delta = await event()
    whole_steps = (await whole(service, game_id)).steps
    assert [s["text"] for s in full["steps"]] == [s.text for s in whole_steps]
    assert [s["img"].rsplit("=", 1)[1] for s in full["steps"]] == [s.digest for s in whole_steps]
    assert delta["first"] == 3 and [s["i"] for s in delta["steps"]] == [3]
    assert full["last"] == delta["last"] == 3 and full["v"] == delta["v"]
    # a take-back: every page gets the whole list again
    await service.undo(user_id=BLACK, game_id=game_id)
    full, delta = await event()
    assert full["last"] == 2 and delta == full and len(full["steps"]) == 3
    await play_moves(service, game_id, 1)
    full, delta = await event()
    assert full["last"] == 3 and delta["first"] == 3 and len(delta["steps"]) == 1
    assert delta["steps"][0]["img"] == full["steps"][3]["img"]


async def test_no_event_is_built_for_a_game_nobody_watches(
    service: GameService, tmp_path: Path
) -> None:
    from aiohttp.test_utils import TestClient, TestServer

    from bot.web.app import create_app

    site, _ = make_site(service, tmp_path)
    built: list[int] = []
    build = site.hub._build

    async def counted(game_id: int) -> object:
        built.append(game_id)
        return await build(game_id)

    site.hub._build = counted
    service.add_row_listener(site.hub.row_committed)
    client: TestClient = TestClient(TestServer(create_app(site)))  # type: ignore[type-arg]
    await client.start_server()
    try:
        watched = await start_game(service, "tquarchess", location_id=1, seed="w")
        alone = await start_game(service, "tquarchess", location_id=2, seed="a")
        await play_moves(service, alone, 3)
        assert built == [] and alone not in site.states._states and site._events == {}
        stream = await client.get(site.links.game_path(watched) + "/events")
        async for line in stream.content:
            if line.startswith(b"data: "):
                break
        await play_moves(service, watched, 2)
        await play_moves(service, alone, 2)
        for _ in range(100):  # the hub's reads run after the commits, on the loop
            if built.count(watched) >= 2 and not site.hub._refreshing:
                break
            await asyncio.sleep(0.01)
        assert alone not in built and built.count(watched) >= 2
        assert alone not in site.states._states and alone not in site._events
        stream.close()
    finally:
        await site.hub.stop()
        await client.close()


async def test_a_take_back_and_a_relocation_tell_the_live_pages(service: GameService) -> None:
    """The hub hears of every commit through the row listeners: a take-back and a
    relocation too (before, neither was announced, and an open page missed them)."""
    game_id = await start_game(service, "kings_guard", location_id=50, seed="told")
    await play_moves(service, game_id, 2)
    told: list[int] = []
    service.add_row_listener(lambda row: told.append(row.log_count))
    await service.undo(user_id=WHITE, game_id=game_id)
    assert told == [3]
    await service.relocate(user_id=99, moderator=True, channel_id=51, game_id=game_id)
    assert told == [3, 4]
