"""Taught faces: the part of a view that is read."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.dice import faces
from vision.dice.faces import TaughtFaces
from vision.dice.find import find_blobs
from vision.dice.reader import DiceReader
from vision.dice.render import DIE_STYLES, render_scene


def _dice_in_a_corner() -> np.ndarray:
    """A 1280×720 frame whose dice are all in its top-left corner (a 640×480 scene), the
    rest plain tray of the scene's median colour."""
    scene = render_scene(31, count=4, kind="runes", style=DIE_STYLES[6], width=640, height=480,
                         tilt=0.0)
    tray = np.median(scene.image.reshape(-1, 3), 0).tolist()
    return cv2.copyMakeBorder(scene.image, 0, 240, 0, 640, cv2.BORDER_CONSTANT, value=tray)


def test_only_the_part_of_a_view_holding_the_dice_is_read_as_the_whole_view_is(
        rune_faces: TaughtFaces, monkeypatch: pytest.MonkeyPatch) -> None:
    """Taught faces look at the part of the view that holds the blobs (and the marks'
    kernel's reach around them), not the bare tray around it, and read there what they
    read on the whole view: the same dice, where they are, as sure."""
    frame = _dice_in_a_corner()
    view = find_blobs(frame).view(frame, rune_faces.read_side)
    x0, y0, x1, y1 = faces._holding(view.boxes, view.side, (view.image.shape[1], view.image.shape[0]))
    assert (x1 - x0) * (y1 - y0) < 0.5 * view.image.shape[0] * view.image.shape[1]
    reader = DiceReader(rune_faces)
    dice = reader.read(frame).dice
    assert len(dice) == 4
    monkeypatch.setattr(faces, "_holding", lambda boxes, side, size: (0, 0, *size))
    whole = reader.read(frame).dice
    assert [(d.face, d.box) for d in dice] == [(d.face, d.box) for d in whole]
    assert np.allclose([d.confidence for d in dice], [d.confidence for d in whole], atol=1e-6)
