from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from renderers import prebuilt


@pytest.fixture(autouse=True, scope="session")
def _render_cache_in_a_temporary_directory(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Path]:
    """The renderer tests keep drawings in a directory of their own, not the user's cache."""
    where = tmp_path_factory.mktemp("render-cache")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(prebuilt.ENV, str(where))
        prebuilt.reset()
        yield where
    prebuilt.reset()
