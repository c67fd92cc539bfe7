"""Seat colours as the games write them, ``#rrggbb``, read once for the screen and the LEDs.

A colour comes from a game's data or a seat document; a bad one must never stop
the table, so :func:`hex_rgb` answers None and each caller picks its own stand-in
(the LED trackers white, the screen a neutral grey).
"""

from __future__ import annotations

import re

__all__ = ["hex_rgb"]

_HEX = re.compile(r"#?([0-9A-Fa-f]{6})")


def hex_rgb(colour: object) -> tuple[int, int, int] | None:
    """``#rrggbb`` (the ``#`` optional, spaces around it ignored) as red, green and blue
    from 0 to 255; None for anything else."""
    if not isinstance(colour, str) or not (match := _HEX.fullmatch(colour.strip())):
        return None
    value = int(match.group(1), 16)
    return (value >> 16) & 255, (value >> 8) & 255, value & 255
