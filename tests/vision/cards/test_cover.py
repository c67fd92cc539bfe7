"""Where something lies over a card: the stretches of hidden edge it is looked for from."""

from __future__ import annotations

import numpy as np

from vision.cards.cover import _stretches
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
