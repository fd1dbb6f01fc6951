"""Rows the storage tests make (``tests/storage``): one new game, the same everywhere."""

from __future__ import annotations

from storage import NewGame


def new_game(location: int = 10, **kw: object) -> NewGame:
    """A challenge at ``location`` between players 1 and 2, with ``kw`` changed."""
    fields: dict[str, object] = dict(
        variant="guardener",
        options={"x": 1},
        status="challenge",
        location_id=location,
        guild_id=7,
        challenger_id=1,
        opponent_id=2,
        challenger_colour="white",
        seed="seed",
        commitment="commitment",
    )
    fields.update(kw)
    return NewGame(**fields)  # type: ignore[arg-type]
