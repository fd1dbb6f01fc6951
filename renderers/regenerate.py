"""Write the renderer's derived data files again: ``python -m renderers.regenerate``.

Run it after changing anything the stored palettes are drawn from (themes, sprites,
dice, the palette's rules); tests/renderers/test_palette_data.py fails until then.
"""

from __future__ import annotations

from pathlib import Path

from .palette import palette_data_source


def main() -> int:
    target = Path(__file__).with_name("palette_data.py")
    target.write_text(palette_data_source())
    print(f"wrote {target}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
