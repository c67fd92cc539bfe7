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


@pytest.mark.parametrize("grow", [1, 2, 3])
def test_a_shapes_box_from_its_marks_is_the_box_of_its_pixels_joined(grow: int) -> None:
    """A joined shape's box, worked out from its marks grown by the joining kernel's reach,
    is the box of its pixels as joined (OpenCV's ellipse reaches ``grow`` pixels along its
    middle row and column), cut at the image's edge too; a shape reaching past the square
    it is cut out of is boxed within the square, as its pixels there give it."""
    marks = np.zeros((60, 90), np.uint8)
    cv2.line(marks, (10, 10), (30, 22), 1, 2)  # a stroke aslant
    cv2.circle(marks, (60, 30), 4, 1, -1)
    marks[35:38, 58] = 1  # a speck a little below it, joined to it
    cv2.line(marks, (0, 50), (12, 59), 1, 1)  # at the image's corner
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * grow + 1, 2 * grow + 1))
    n, joined = cv2.connectedComponents(cv2.dilate(marks, kernel), connectivity=8)
    points = cv2.findNonZero(marks).reshape(-1, 2)
    xs, ys = points[:, 0], points[:, 1]
    grown = faces._grown_boxes(xs, ys, joined[ys, xs], n, grow, (90, 60))
    assert n == 4
    for k in range(1, n):
        square = (0, 0, 90, 60)
        whole = cv2.boundingRect((joined == k).view(np.uint8))
        assert faces._own_box(joined, k, grown, square) == whole
        # A square cutting the shape: its pixels within the square.
        x, y, w, h = whole
        cut = (x + w // 2, y, x + w + 5, y + h)
        inside = cv2.boundingRect((joined[y:y + h, x + w // 2:x + w + 5] == k).view(np.uint8))
        assert faces._own_box(joined, k, grown, cut) == inside


def test_a_kind_of_marks_no_die_has_is_not_looked_for(monkeypatch: pytest.MonkeyPatch) -> None:
    """Marks are looked for only of the kinds the dice have, as their grey levels tell
    (dark marks on the Runecast dice's light faces); a die whose grey levels do not tell
    (read with both kinds when unsure) has both looked for."""
    frame = _dice_in_a_corner()
    view = find_blobs(frame).view(frame, faces.FACE_SIDE)
    looked: list[bool] = []
    respond = faces.mark_response

    def response(gray: np.ndarray, side: float, *, dark: bool) -> np.ndarray:
        looked.append(dark)
        return respond(gray, side, dark=dark)

    monkeypatch.setattr(faces, "mark_response", response)
    shapes = faces._shapes(view, both_when_unsure=True)
    assert looked == [True]
    assert shapes and all(shape.dark for shape in shapes)
    looked.clear()
    monkeypatch.setattr(faces, "mark_lean", lambda gray, body, side, count: np.zeros(count))
    faces._shapes(view, both_when_unsure=True)
    assert looked == [True, False]
