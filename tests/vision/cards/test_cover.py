"""Where something lies over a card: the stretches of hidden edge it is looked for from."""

from __future__ import annotations

import numpy as np

from vision.cards.cover import REACH, RIM_ZONE, _beside, _colour, _colours, _off, _stretches, covering, touched
from vision.cards.find import SAMPLES, FoundCard


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


_CORNERS = np.array([[50, 40], [241, 40], [241, 311], [50, 311]], np.float32)
"""The corners of the card :func:`_card_on` draws."""


def _card_on(table: tuple[int, int, int] | int) -> np.ndarray:
    """A white card (192 x 272 pixels, a dark frame printed 6 pixels in) on a table of
    colour ``table``, as a float frame (BGR) to draw more on."""
    frame = np.full((400, 360, 3), table, np.float32)
    frame[40:312, 50:242] = 235  # the card's white paper
    frame[46:306, 56:236] = 40  # a dark frame printed 6 pixels in...
    frame[50:302, 60:232] = 235  # ...round the paper
    return frame


def _hidden_top(first: int, end: int) -> FoundCard:
    """:func:`_card_on`'s card, found with its top side hidden from sample ``first`` to ``end``."""
    seen = np.ones((4, SAMPLES), bool)
    seen[0, first:end] = False
    return FoundCard(_CORNERS, 0.95, seen)


def _across_the_middle(lying: np.ndarray) -> bool:
    """Whether what lies over a card (a mask) lies only across its middle third or so."""
    cols = np.nonzero(lying)[1]
    return bool(cols.min() > 0.3 * lying.shape[1] and cols.max() < 0.7 * lying.shape[1])


def test_a_fingertip_the_light_clips_as_white_is_followed_across_the_rim_not_into_the_paper() -> None:
    """A fingertip as white as a glare spot on a grey table, across a white card's top
    side (seed 31 f79): the card's rim under it is covered, as for any finger, and its
    paper, as white as the fingertip, is not taken for it (as for a glare spot)."""
    frame = _card_on(70)  # a grey table
    frame[:120, 126:166] = 255  # the fingertip, clipped white, 80 pixels over the card
    lying = covering(frame.astype(np.uint8), _hidden_top(12, 20))
    assert lying is not None
    # Under the fingertip, across the rim, and no further in than the rim's zone (and
    # the blur beside a thing lying on the card).
    assert _across_the_middle(lying)
    assert lying[:RIM_ZONE, lying.shape[1] // 2].all()
    assert np.nonzero(lying)[0].max() < 2 * RIM_ZONE


def test_a_glare_spot_on_a_coloured_table_is_not_followed_into_the_paper() -> None:
    """A glare spot on a green-grey table over a white card's top side (seed 40 f97): the
    light added pales the table towards white, so the spot is not of the table's own
    tint, yet it is the table lit; it is followed no further than the card's rim."""
    frame = _card_on((153, 174, 160))  # a green-grey table
    yy, xx = np.mgrid[0:400, 0:360]
    frame += 200 * np.exp(-((xx - 146) ** 2 + (yy - 40) ** 2) / (2 * 40.0 ** 2))[..., None]
    lying = covering(np.clip(frame, 0, 255).astype(np.uint8), _hidden_top(11, 21))
    assert lying is None or np.nonzero(lying)[0].max() < 2 * RIM_ZONE


def _finger_across_the_top() -> np.ndarray:
    """:func:`_card_on`'s card on a grey table, a skin-coloured finger over its top side."""
    frame = _card_on(70)
    frame[:120, 126:166] = (120, 150, 210)
    return frame.astype(np.uint8)


def test_a_card_beside_whose_outline_only_touches_the_edge_does_not_lie_over_it() -> None:
    """A finger across a card's top side, from a card beside whose outline was run along
    the finger to this card's edge (seed 41 f67): that outline only touches the edge at
    the stretch the finger hides, so the finger is followed, not the other card's outline
    (which covers nothing of this card). A card found lying over the edge still covers."""
    frame, found = _finger_across_the_top(), _hidden_top(12, 20)
    beside = FoundCard(np.array([[140, 42], [140, 0], [340, 0], [340, 42]], np.float32), 0.9)
    lying = covering(frame, found, [beside])
    assert lying is not None and _across_the_middle(lying)
    over = FoundCard(np.array([[140, 0], [340, 0], [340, 100], [140, 100]], np.float32), 0.9)
    lying = covering(frame, found, [over])
    assert lying is not None and lying[:, -1].any()  # the card over it, to its right side


def test_a_card_beside_that_only_touches_the_edge_gives_a_second_reading_as_a_card_on_top() -> None:
    """Where the finger followed leaves a card unknown, a card beside outlined to its edge
    is a second reading of what lies over it (seed 36 f40): ``touched`` says there is
    one, and the covering that takes it for a card on top lies where its outline does,
    not where the finger does. A card on top, or one below, gives no second reading."""
    frame, found = _finger_across_the_top(), _hidden_top(12, 20)
    # Its outline over this card's edge, short of the point inside at the stretch's
    # middle, deeper to the right.
    beside = FoundCard(np.array([[140, 44], [140, 0], [340, 0], [340, 120]], np.float32), 0.9)
    assert touched(found, [beside])
    lying = covering(frame, found, [beside], touching=True)
    assert lying is not None and lying[:, -1].any() and not lying[:, lying.shape[1] // 2 - 8].any()
    over = FoundCard(np.array([[140, 0], [340, 0], [340, 100], [140, 100]], np.float32), 0.9)
    below = FoundCard(np.array([[0, 42], [200, 42], [200, 330], [0, 330]], np.float32), 0.9)
    assert not touched(found, [over]) and not touched(found, [below])


def test_a_second_look_follows_the_finger_beyond_a_card_beside_outlined_onto_the_rim() -> None:
    """A finger across a card's top side, and a card beside whose outline was run along
    the finger onto this card's rim (seed 81 f27): that outline holds the edge and the
    point inside it, so it is taken for a card on top, covering the rim only, and the
    fingertip beyond it, over the print, is left as print. The second look at a card
    left unknown (``following``) follows what lies outside that stretch too."""
    frame, found = _finger_across_the_top(), _hidden_top(12, 20)
    beside = FoundCard(np.array([[140, 56], [140, 0], [340, 0], [340, 56]], np.float32), 0.9)
    rim = covering(frame, found, [beside])
    again = covering(frame, found, [beside], following=True)
    assert rim is not None and again is not None
    depth = np.nonzero(rim)[0].max()
    assert depth < 2 * RIM_ZONE  # the other card's outline, not the finger
    assert np.nonzero(again[:, again.shape[1] // 2])[0].max() > depth + 2 * RIM_ZONE
    assert (again >= rim).all()  # the other card's outline still covers


def test_a_second_look_follows_a_fingertip_darker_than_the_finger_to_its_end() -> None:
    """A finger across a card's top side whose rounded end lies in its own shade, darker
    than its middle by more than ``LIGHT`` (seed 84 f47): followed from outside, the
    finger stops where its end begins, and the end is print that no card shows. The
    second look at a card left unknown (``following``) follows it to its end."""
    frame = _card_on(70)
    frame[:120, 126:166] = (120, 150, 210)
    frame[95:135, 126:166] = (120 * 0.6, 150 * 0.6, 210 * 0.6)  # the end, 0.49 darker in log
    frame = frame.astype(np.uint8)
    first = covering(frame, _hidden_top(12, 20))
    again = covering(frame, _hidden_top(12, 20), following=True)
    assert first is not None and again is not None
    assert np.nonzero(again)[0].max() > np.nonzero(first)[0].max() + RIM_ZONE
    assert _across_the_middle(again)


def test_a_card_below_whose_outline_runs_on_under_this_one_does_not_lie_over_it() -> None:
    """A finger across a card's top side, and a card below this one whose outline runs on
    under it just inside the edge the finger hides (seed 6 f16): that card holds the
    point just inside the stretch but not the edge itself, which a card on top covers;
    so the finger is followed, not the other card's outline."""
    below = FoundCard(np.array([[0, 42], [200, 42], [200, 330], [0, 330]], np.float32), 0.9)
    lying = covering(_finger_across_the_top(), _hidden_top(12, 20), [below])
    assert lying is not None and _across_the_middle(lying)


def test_a_fingertip_the_light_clips_as_white_on_a_coloured_table_is_followed_as_a_finger() -> None:
    """A fingertip clipped white on a pink table, across a card's top side and on over
    its picture (seed 3 f75): white lies between grey and any table's tint, but a glare
    spot on so pink a table would keep some of its tint; so it is a finger, followed into
    the card, not stopped at the rim as a glare spot is."""
    frame = _card_on((165, 125, 215))  # a pink table
    frame[100:180, 110:180] = (90, 70, 60)  # a dark picture
    frame[:160, 126:166] = 255  # the fingertip, clipped white, 120 pixels over the card
    lying = covering(frame.astype(np.uint8), _hidden_top(12, 20))
    assert lying is not None and _across_the_middle(lying)
    assert np.nonzero(lying)[0].max() > 4 * RIM_ZONE  # over the picture, past the rim
