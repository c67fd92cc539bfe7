"""The geometry a lone pip is judged by: a top face seen from the tray's near side, and a
pip's own outline."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.dice.pips import _upright_roundness, find_pips


def _ellipse(long: float, short: float, degrees: float) -> np.ndarray:
    """The second moments of an ellipse with semi-axes ``long`` and ``short``, its long
    axis turned ``degrees`` from the picture's width."""
    t = np.radians(degrees)
    turn = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
    return turn @ np.diag([long ** 2 / 4, short ** 2 / 4]) @ turn.T


@pytest.mark.parametrize("short", [1.0, 0.7, 0.5, 0.4])
def test_a_top_face_foreshortened_towards_the_camera_keeps_its_pip_round(short: float) -> None:
    # Its pip lies along the picture's width, however low the camera.
    assert _upright_roundness(_ellipse(1.0, short, 0.0)) == pytest.approx(1.0)


@pytest.mark.parametrize(("short", "degrees"), [(0.5, 90.0), (0.5, 45.0), (0.6, 60.0)])
def test_a_side_faces_pip_stays_squashed(short: float, degrees: float) -> None:
    # Upright (a left or right face, squashed across) or tilted: no stretch along the
    # picture's height makes it round.
    assert _upright_roundness(_ellipse(1.0, short, degrees)) < 0.7


def test_a_pips_outline_tells_a_disc_from_a_rectangle() -> None:
    """A 1's pip is a disc, seen at a slant an ellipse; a sticker's dark chip or a key is a
    rectangle, however flat: its corners lie outside its ellipse."""
    gray = np.full((80, 240), 200, np.uint8)
    cv2.circle(gray, (40, 40), 7, 40, -1)  # a pip
    cv2.ellipse(gray, (100, 40), (9, 4), 0, 0, 360, 40, -1)  # a pip at a slant
    cv2.rectangle(gray, (140, 36), (157, 43), 40, -1)  # a flat chip
    cv2.rectangle(gray, (190, 33), (203, 46), 40, -1)  # a square one
    pips = find_pips(gray, np.ones(gray.shape, np.uint8), [(0, 0, 240, 80)], 60.0, dark=True)
    outline = dict(zip((pips.xy[:, 0] // 40).astype(int).tolist(), pips.outline.tolist()))
    assert sorted(outline) == [1, 2, 3, 4]
    assert outline[1] < 1.05 and outline[2] < 1.05
    assert outline[3] > 1.1 and outline[4] > 1.1
