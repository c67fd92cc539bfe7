"""Small pieces of the card finder: how far apart two outlines are, and which channel's
gradient an edge is followed by."""

from __future__ import annotations

import numpy as np

from vision.cards.find import FoundCard, _corners_apart, _gradients


def test_one_outline_numbered_from_another_corner_is_no_distance_from_itself() -> None:
    corners = np.array([[10, 10], [50, 12], [48, 90], [8, 88]], np.float32)
    for k in range(4):
        assert _corners_apart(FoundCard(corners, 1.0), FoundCard(np.roll(corners, k, axis=0), 1.0)) == 0.0
    moved = corners.copy()
    moved[2] += (3.0, -1.5)  # one corner 3 pixels off
    assert _corners_apart(FoundCard(np.roll(corners, 1, axis=0), 1.0), FoundCard(moved, 1.0)) == 3.0


def test_each_pixels_gradient_is_its_steepest_channels() -> None:
    """A step in brightness down the left half and one in colour across the right half:
    each half is followed by the channel that steps there, whichever comes first."""
    bright = np.zeros((40, 60), np.uint8)
    bright[:, 10:] = 120  # a vertical edge at x = 10 (on the left)
    colour = np.zeros((40, 60), np.uint8)
    colour[20:, 30:] = 200  # a horizontal edge at y = 20 on the right, steeper
    for channels in ([bright, colour], [colour, bright]):
        gx, gy = _gradients(channels)
        assert gx.dtype == gy.dtype == np.float32
        assert gx[10, 10] > 0 and gy[10, 10] == 0  # the brightness edge
        assert gy[20, 45] > 0 and gx[20, 45] == 0  # the colour edge
        assert gx[5, 45] == gy[5, 45] == 0  # plain in both
    # Where both step, the steeper wins.
    both = bright.copy()
    both[20:, :] += 100
    gx, gy = _gradients([bright, both])
    assert gy[20, 20] > 0
