"""The geometry a lone pip is judged by: a top face seen from the tray's near side."""

from __future__ import annotations

import numpy as np
import pytest

from vision.dice.pips import _upright_roundness


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
