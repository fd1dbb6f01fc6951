"""The words a picture draws: every text Pillow's ``ImageDraw.text`` is given while a
test runs, in the order drawn (the pictures' words are tested by what they draw, not by
reading pixels)."""

from __future__ import annotations

from typing import Any

import pytest
from PIL import ImageDraw


def record_drawn_text(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """A list that fills with each text drawn from now on, until the test ends."""
    seen: list[str] = []
    real = ImageDraw.ImageDraw.text

    def record(self: ImageDraw.ImageDraw, xy: Any, text: Any, *args: Any, **kwargs: Any) -> Any:
        seen.append(str(text))
        return real(self, xy, text, *args, **kwargs)

    monkeypatch.setattr(ImageDraw.ImageDraw, "text", record)
    return seen
