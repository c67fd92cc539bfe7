"""Sizes, colours and the font: how the app looks, in one place.

Sizes are written for the Pi's 7" touchscreen (800×480, about 5.2 pixels a
millimetre) and multiplied by the app's scale ``u`` (``min(width/800,
height/480)``), so a 1280×800 or 1920×1080 screen shows the same layout,
larger, which is what a table that reads it from across the room wants.

Tiers are shown twice: by colour (green, amber, red as HP falls) and by a
row of bars like the HP Tracker Card's (three bars at 9-12, two at 5-8,
one at 1-4), so a colour-blind player reads them as easily.
"""

from __future__ import annotations

from pathlib import Path

from companion.colours import hex_rgb

__all__ = ["BASE_SIZE", "FONT", "MIN_TARGET_MM", "PX_PER_MM", "hex_rgba", "tier_rgba"]

BASE_SIZE = (800, 480)
"""The official 7" display, in pixels: the layout's design size."""
PX_PER_MM = 800 / 154.0
"""Its active area is about 154 × 86 mm."""
MIN_TARGET_MM = 9.0
"""The smallest touch target a finger hits reliably."""

FONT = "RuneSans"
"""DejaVu Sans (shipped with Kivy): it has the arrows, minus sign and dots the screens use."""

BACKGROUND = (0.07, 0.08, 0.10, 1)
PANEL = (0.14, 0.15, 0.19, 1)
PANEL_LIGHT = (0.20, 0.22, 0.27, 1)
TEXT = (0.95, 0.95, 0.95, 1)
MUTED = (0.65, 0.67, 0.72, 1)
ACCENT = (0.98, 0.75, 0.25, 1)
ERROR = (0.85, 0.22, 0.20, 1)
OK = (0.25, 0.68, 0.35, 1)
BUTTON = (0.26, 0.29, 0.36, 1)
BUTTON_DOWN = (0.40, 0.44, 0.52, 1)

_TIERS = {
    0: (0.30, 0.30, 0.32, 1),   # defeated: grey
    1: (0.80, 0.20, 0.18, 1),   # 1-4: red
    2: (0.85, 0.55, 0.10, 1),   # 5-8: amber
    3: (0.20, 0.60, 0.30, 1),   # 9-12: green
}
_HIGH_TIER = (0.15, 0.50, 0.65, 1)  # above 12 (a house rule with more HP): teal


def tier_rgba(tier: int) -> tuple[float, float, float, float]:
    """The colour of an HP tier (0 is defeated)."""
    return _TIERS.get(tier, _HIGH_TIER)


def hex_rgba(colour: str, alpha: float = 1.0) -> tuple[float, float, float, float]:
    """``#rrggbb`` as Kivy's 0-1 RGBA; anything else is a neutral grey."""
    parsed = hex_rgb(colour)
    if parsed is None:
        return (0.5, 0.5, 0.5, alpha)
    r, g, b = (c / 255 for c in parsed)
    return (r, g, b, alpha)


def register_font() -> None:
    """Register :data:`FONT`: DejaVu Sans, with the system's bold face if there is one.

    Every label uses it through the ``<Label>`` rule in ``widgets.kv``.
    """
    from kivy.core.text import LabelBase
    from kivy.resources import resource_find

    regular = resource_find("data/fonts/DejaVuSans.ttf")
    bold = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf")
    LabelBase.register(FONT, regular, fn_bold=str(bold) if bold.exists() else None)
