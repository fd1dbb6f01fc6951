"""The analysis component of the service (issue 29), on both stores: analyses run in a
worker process, kept by the log's digest (they survive a restart), at most
``max_analyses`` at once with the rest queued and told their places, and the boards
each ply was shown on."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import pytest

from bot.service import GameService, InvalidInput, InvalidState
from bot.service.analysis import AnalysisProgress
from engine.analysis import identity_gap

DEPTH = 1
WHITE, BLACK = 11, 12
GUILD = 900


async def open_service(target: str) -> GameService:
    service = await GameService.open(target, renderer=None, dice_renderer=None)
    service.analyses.depth = DEPTH
    return service


async def played(
    service: GameService,
    location: int,
    moves: Sequence[tuple[int, str]],
    *,
    guild_id: int | None = None,
    end: bool = True,
) -> tuple[int, list[Any]]:
    """A Tquarchess game at ``location`` with ``moves`` ((user, text) or (user, 'undo')),
    resigned by White at the end: its id and each move's outcome."""
    await service.challenge(
        location_id=location,
        challenger_id=WHITE,
        opponent_id=BLACK,
        colour="white",
        variant="tquarchess",
        guild_id=guild_id,
        rated=True,
    )
    accepted = await service.accept(location_id=location, user_id=BLACK, render=False)
    outcomes = [accepted]
    for user, text in moves:
        if text == "undo":
            outcomes.append(await service.undo(location_id=location, user_id=user))
        else:
            outcomes.append(
                await service.act(location_id=location, user_id=user, text=text, render=False)
            )
    if end:
        await service.resign(location_id=location, user_id=WHITE)
    return accepted.game.id, outcomes


HUNG_QUEEN = ((WHITE, "e4"), (BLACK, "d6"), (WHITE, "Qg4"), (BLACK, "Bxg4"))


async def test_an_analysis_runs_once_and_is_kept_across_a_restart(store_target: str) -> None:
    service = await open_service(store_target)
    try:
        game_id, _ = await played(service, 100, HUNG_QUEEN)
        news: list[AnalysisProgress] = []
        report = await service.analyse(game_id=game_id, progress=news.append)
        assert not report.cached and service.analyses.runs == 1
        a = report.analysis
        assert a.depth == DEPTH and identity_gap(a) < 1e-9
        assert [t.action for t in a.turns] == ["e4", "d6", "Qg4", "Bxg4", None]
        assert a.turns[2].label == "??" and a.winner == "black"
        assert report.image is not None and report.image.startswith(b"\x89PNG")  # the graph
        # progress: running, the steps in order up to all of them, then done
        assert news[0].state == "running" and news[-1].state == "done"
        steps = [n.done for n in news if n.state == "running" and n.total]
        assert steps == sorted(steps) and steps[-1] == 5 and news[-2].total == 5
        again = await service.analyse(location_id=100)
        assert again.cached and again.analysis == a and service.analyses.runs == 1
        assert await service.repo.analyses_of_game(game_id) == 1
    finally:
        await service.close()
    reopened = await open_service(store_target)
    try:
        kept = await reopened.analyse(game_id=game_id, render=False)
        assert kept.cached and kept.analysis == a and reopened.analyses.runs == 0
        # another depth is another analysis
        deeper = await reopened.analyse(game_id=game_id, depth=2, render=False)
        assert not deeper.cached and deeper.analysis.depth == 2
        assert await reopened.repo.analyses_of_game(game_id) == 2
    finally:
        await reopened.close()


async def test_only_a_game_that_is_over_is_analysed(store_target: str) -> None:
    service = await open_service(store_target)
    try:
        active, _ = await played(service, 100, HUNG_QUEEN[:2], end=False)
        with pytest.raises(InvalidState, match="still being played"):
            await service.analyse(game_id=active)
        await service.challenge(
            location_id=101, challenger_id=WHITE, opponent_id=BLACK, variant="tquarchess"
        )
        with pytest.raises(InvalidState, match="no moves to analyse"):
            await service.analyse(location_id=101)
        with pytest.raises(InvalidInput, match="depth"):
            await service.analyse(game_id=active, depth=0)
        assert service.analyses.runs == 0
    finally:
        await service.close()


async def test_at_most_n_at_once_the_rest_queued_with_their_places(store_target: str) -> None:
    service = await open_service(store_target)
    try:
        ids = [(await played(service, 200 + n, HUNG_QUEEN))[0] for n in range(3)]
        assert service.max_analyses == 1
        news: dict[int, list[AnalysisProgress]] = {i: [] for i in ids}
        busy = []  # analyses running at once, as each piece of news came

        def listener(game_id: int) -> Any:
            def told(item: AnalysisProgress) -> None:
                news[game_id].append(item)
                busy.append(service.analyses.running)

            return told

        reports = await asyncio.gather(
            *(service.analyse(game_id=i, progress=listener(i), render=False) for i in ids),
            # the same game asked twice at once: one run, shared
            service.analyse(game_id=ids[0], render=False),
        )
        assert service.analyses.runs == 3 and max(busy) == 1
        assert all(r.analysis.turns[2].label == "??" for r in reports)
        places = sorted([n.position for n in news[i] if n.state == "queued"] for i in ids)
        assert places == [[], [1], [2, 1]]  # the third moved up when the first finished
        for i in ids:
            assert news[i][-1].state == "done"
        assert service.analyses.queued == 0 and service.analyses.running == 0
    finally:
        await service.close()


async def test_two_at_once_when_the_setting_allows(store_target: str) -> None:
    service = await open_service(store_target)
    try:
        service.max_analyses = 2
        ids = [(await played(service, 300 + n, HUNG_QUEEN))[0] for n in range(2)]
        news: list[AnalysisProgress] = []
        await asyncio.gather(
            *(service.analyse(game_id=i, progress=news.append, render=False) for i in ids)
        )
        assert not [n for n in news if n.state == "queued"]
    finally:
        await service.close()


async def test_the_boards_of_each_ply_skip_a_move_taken_back(store_target: str) -> None:
    service = await open_service(store_target)
    service.hold_boards_ms = 60_000  # the Discord layer's: each board is an outbox row
    try:
        moves = (
            (WHITE, "e4"),
            (BLACK, "d6"),
            (WHITE, "Qg4"),
            (WHITE, "undo"),
            (WHITE, "Nf3"),
            (BLACK, "Bg4"),
        )
        game_id, outcomes = await played(service, 400, moves, guild_id=GUILD)
        for n, outcome in enumerate(outcomes):
            if outcome.owed is not None:  # a board an interaction posted: message 1000 + n
                await service.set_board_message(
                    game_id=game_id, channel_id=400, message_id=1000 + n, owed=outcome.owed
                )
        report = await service.analyse(game_id=game_id, render=False)
        assert [t.action for t in report.analysis.turns] == ["e4", "d6", "Nf3", "Bg4", None]
        # the start (0 actions), then e4, d6, Nf3 (not the Qg4 taken back), Bg4
        assert report.boards == {0: (400, 1000), 1: (400, 1001), 2: (400, 1002),
                                 3: (400, 1005), 4: (400, 1006)}  # fmt: skip
        assert report.last_board == (400, 1006)
    finally:
        await service.close()


async def test_the_graph_speaks_the_locale_asked_for(
    store_target: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``locale=`` (else the pictures' language set for the work) says the graph's words;
    the graph is drawn per call, so the same kept analysis is drawn in each language."""
    from drawn_words import record_drawn_text

    from bot import i18n

    seen = record_drawn_text(monkeypatch)
    service = await open_service(store_target)
    try:
        game_id, _ = await played(service, 100, HUNG_QUEEN)
        english = await service.analyse(game_id=game_id)
        assert f"Game {game_id} · Tquarchess" in seen and "Luck" in seen and "White" in seen
        seen.clear()
        german = await service.analyse(game_id=game_id, locale="de")
        assert german.cached and german.image is not None and german.image != english.image
        assert f"Partie {game_id} · Tquarchess" in seen and "Glück" in seen and "Weiß" in seen
        assert "Luck" not in seen and "White" not in seen
        seen.clear()
        token = i18n.set_pictures("de")
        try:
            default = await service.analyse(game_id=game_id)
        finally:
            i18n._pictures.reset(token)
        assert default.image == german.image and "Glück" in seen
    finally:
        await service.close()
