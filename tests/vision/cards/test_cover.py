"""Where something lies over a card: the stretches of hidden edge it is looked for from."""

from __future__ import annotations

import numpy as np

from vision.cards.cover import REACH, _beside, _colour, _colours, _off, _stretches
from vision.cards.find import SAMPLES


def test_a_finger_over_a_corner_is_one_stretch_round_it() -> None:
    # Two samples hidden at the end of side 2 and two at the start of side 3: neither
    # is long enough alone, together they are a thing lying over the corner.
    hidden = np.zeros((4, SAMPLES), bool)
    hidden[2, -2:] = True
    hidden[3, :2] = True
    assert _stretches(hidden) == [(2, SAMPLES - 2, SAMPLES), (3, 0, 2)]


def test_a_short_gap_in_a_side_is_no_stretch() -> None:
    # The table's pattern matching the card's edge here and there.
    hidden = np.zeros((4, SAMPLES), bool)
    hidden[1, 10:12] = True
    hidden[0, -2:] = True  # at a corner, but the next side shows there
    assert _stretches(hidden) == []


def test_the_colours_beside_a_card_are_taken_just_outside_and_just_inside_its_edge() -> None:
    """The pixels beside every sample of a card's sides are worked out once
    (:func:`_beside`), out or in, and the colours of those wanted picked from them."""
    corners = np.array([[20, 10], [60, 10], [60, 80], [20, 80]], np.float32)
    picture = np.zeros((100, 90, 3), np.uint8)
    picture[10:81, 20:61] = (200, 200, 200)  # the card, white on black
    picture[:10, 20:61] = (0, 0, 255)  # something red lying just above its top side
    col = _colour(picture)
    assert col.shape == (3, 100, 90)
    out, inner = _beside(corners, inward=False), _beside(corners, inward=True)
    assert out.shape == inner.shape == (4, SAMPLES, REACH[1] - REACH[0] + 1, 2)
    assert (out[0, ..., 1] == 10 - np.arange(REACH[0], REACH[1] + 1)).all()  # above the top side
    assert (inner[0, ..., 1] == 10 + np.arange(REACH[0], REACH[1] + 1)).all()
    top = np.zeros((4, SAMPLES), bool)
    top[0] = True
    red, white = _colour(np.array([[[0, 0, 255]], [[200, 200, 200]]], np.uint8))[:, :, 0].T
    assert np.array_equal(_colours(col, out, top), np.tile(red, (top.sum() * (REACH[1] - REACH[0] + 1), 1)))
    assert np.array_equal(_colours(col, inner, ~top), np.tile(white, ((~top).sum() * (REACH[1] - REACH[0] + 1), 1)))
    # How far each pixel's colour is from red's, plane by plane, as from one pixel's.
    off = _off(col, red[None], spread=False)
    assert off[5, 40] == 0 and off[40, 40] > 1
