"""Seat colours: one reading of ``#rrggbb`` for the screen (theme) and the LEDs (WLED)."""

from __future__ import annotations

import pytest

from companion.app.theme import hex_rgba
from companion.colours import hex_rgb
from companion.trackers.wled import rgb


@pytest.mark.parametrize("colour, expected", [
    ("#ff8000", (255, 128, 0)),
    ("#FF8000", (255, 128, 0)),
    (" #0a0b0c ", (10, 11, 12)),
    ("0a0b0c", (10, 11, 12)),
])
def test_a_colour_is_read_alike_for_the_screen_and_the_leds(
        colour: str, expected: tuple[int, int, int]) -> None:
    assert hex_rgb(colour) == expected
    assert rgb(colour) == list(expected)
    assert hex_rgba(colour, 0.5) == (*(c / 255 for c in expected), 0.5)


@pytest.mark.parametrize("colour", [
    "", "#", "red", "#fff", "#ff80000", "ffffff0", "#12_345", "#-12345", "+1+2+3", "-1-2-3",
    "#gg0000", "##ff8000",
])
def test_anything_else_is_white_on_the_leds_and_grey_on_the_screen(colour: str) -> None:
    assert hex_rgb(colour) is None
    assert rgb(colour) == [255, 255, 255]
    assert hex_rgba(colour) == (0.5, 0.5, 0.5, 1.0)


def test_a_missing_colour_is_not_an_error() -> None:
    assert hex_rgb(None) is None and rgb(None) == [255, 255, 255]  # type: ignore[arg-type]
