"""The stored palettes (renderers/palette_data.py) are what the palette code computes now."""

from __future__ import annotations

import dataclasses

import pytest

from renderers.palette import palette_data_source, palette_entries, palette_image
from renderers.palette_data import PALETTES
from renderers.themes import CLASSIC, THEMES


@pytest.mark.parametrize("name", sorted(THEMES))
@pytest.mark.parametrize("terraces", [False, True])
def test_the_stored_palette_is_the_computed_one(name: str, terraces: bool) -> None:
    computed = bytes(palette_entries(THEMES[name], terraces))
    assert PALETTES[(name, terraces)] == computed, (
        "the drawing changed: run `python -m renderers.regenerate` and commit palette_data.py"
    )


def test_the_data_file_is_exactly_what_regenerate_writes() -> None:
    from pathlib import Path

    import renderers.palette_data as data

    assert Path(data.__file__).read_text() == palette_data_source()


def test_palette_image_reads_the_stored_palette_of_a_registered_theme() -> None:
    palette_image.cache_clear()
    pal = palette_image(CLASSIC, True)
    assert bytes(pal.getpalette() or []) == PALETTES[("classic", True)]


def test_an_unregistered_theme_gets_its_own_palette_computed() -> None:
    # same name as a registered theme but other colours: not the stored palette
    odd = dataclasses.replace(CLASSIC, light_square=(200, 230, 250))
    pal = palette_image(odd, False)
    entries = bytes(pal.getpalette() or [])
    assert entries == bytes(palette_entries(odd, False))
    assert entries != PALETTES[("classic", False)]
    assert (200, 230, 250) in {tuple(entries[i : i + 3]) for i in range(0, len(entries), 3)}
