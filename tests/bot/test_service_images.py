"""Board images through the service, drawn by the real renderer."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

import variants
from bot.service import GameService, InvalidInput, RenderUnavailable

render_png = pytest.importorskip("renderers").render_png
Image = pytest.importorskip("PIL.Image")

PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture
async def service(tmp_path: Path):
    svc = await GameService.open(str(tmp_path / "img.sqlite3"))
    yield svc
    await svc.close()


@pytest.mark.parametrize("variant", variants.names())
async def test_every_command_that_shows_the_board_returns_a_png(
    service: GameService, variant: str
) -> None:
    await service.challenge(
        location_id=1, challenger_id=1, opponent_id=2, colour="white", variant=variant
    )
    started = await service.accept(location_id=1, user_id=2)
    assert started.image is not None and started.image.startswith(PNG)
    legal = await service.legal_moves(location_id=1)
    moved = await service.act(location_id=1, user_id=1, text=legal[0])
    assert moved.image is not None and moved.image.startswith(PNG)
    quiet = await service.act(
        location_id=1,
        user_id=moved.next_user_id,
        text=(await service.legal_moves(location_id=1))[0],
        render=False,
    )
    assert quiet.image is None
    board = await service.board(location_id=1, orientation="black")
    assert board.image is not None
    assert Image.open(io.BytesIO(board.image)).size[0] > 100
    with pytest.raises(InvalidInput):
        await service.board(location_id=1, orientation="sideways")


async def test_orientation_follows_the_viewer(service: GameService, tmp_path: Path) -> None:
    await service.challenge(
        location_id=1, challenger_id=1, opponent_id=2, colour="white", variant="tquarchess"
    )
    await service.accept(location_id=1, user_id=2)
    as_white = (await service.board(location_id=1, user_id=1)).image
    as_black = (await service.board(location_id=1, user_id=2)).image
    assert as_white == (await service.board(location_id=1, orientation="white")).image
    assert as_black == (await service.board(location_id=1, orientation="black")).image
    assert as_white != as_black


async def test_no_renderer_means_no_image_but_the_action_still_counts(tmp_path: Path) -> None:
    svc = await GameService.open(str(tmp_path / "none.sqlite3"), renderer=None)
    try:
        await svc.challenge(
            location_id=1, challenger_id=1, opponent_id=2, colour="white", variant="tquarchess"
        )
        started = await svc.accept(location_id=1, user_id=2)
        assert started.image is None
        moved = await svc.act(location_id=1, user_id=1, text="e4")
        assert moved.image is None and moved.recorded == "e4"
        with pytest.raises(RenderUnavailable):
            await svc.board(location_id=1)
    finally:
        await svc.close()
