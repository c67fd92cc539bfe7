"""The camera's side of a test: a replay folder that changes like the camera's view, the
tray's corner markers, and the pictures inside the vision process's messages."""

from __future__ import annotations

import base64
import os
import shutil
from pathlib import Path

import cv2
import numpy as np

from vision.tray import marker_sheet

TRAY = (60, 110, 50)
"""The colour of the tray the test frames show (BGR)."""


def show(folder: Path, photo: Path) -> None:
    """Put ``photo`` in front of the camera: the replay folder's one frame, replaced at once
    (``runes-vision watch --loop`` never reads a half-written file)."""
    folder.mkdir(exist_ok=True)
    shutil.copy(photo, folder / ".next.png")
    os.replace(folder / ".next.png", folder / "frame.png")


def empty_tray(size: tuple[int, int] = (640, 480), *, markers: bool = False) -> np.ndarray:
    """An empty tray; with ``markers``, the four corner markers at its corners (ids 0-3,
    clockwise from top-left), as ``runes-vision markers`` prints them."""
    w, h = size
    frame = np.full((h, w, 3), TRAY, np.uint8)
    if markers:
        for i, marker in enumerate(marker_sheet(60)):
            side = marker.shape[0]
            x, y = (0, w - side, w - side, 0)[i], (0, 0, h - side, h - side)[i]
            frame[y:y + side, x:x + side] = cv2.cvtColor(marker, cv2.COLOR_GRAY2BGR)
    return frame


def picture(jpeg: str) -> np.ndarray:
    """A picture of a message (``photo_jpeg``, ``overlay_jpeg``): base64 JPEG to BGR."""
    image = cv2.imdecode(np.frombuffer(base64.b64decode(jpeg), np.uint8), cv2.IMREAD_COLOR)
    assert image is not None, "not a JPEG"
    return image  # type: ignore[no-any-return]
