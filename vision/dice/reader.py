"""The dice reader: a frame in, every die's top face, box and confidence out."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Protocol

import cv2
import numpy as np

from vision.dice.find import DieRegion, find_dice
from vision.dice.pips import FaceRead, read_pips
from vision.tray import Tray

__all__ = ["UNKNOWN", "DiceReader", "DiceReading", "Die", "FaceReader"]

UNKNOWN = "unknown"
READ_SIDE = 56.0


class FaceReader(Protocol):
    """Reads one die's top face from its crop (BGR), mask and expected side in pixels."""

    def __call__(self, crop: np.ndarray, mask: np.ndarray, side: float) -> FaceRead: ...


@dataclass(frozen=True)
class Die:
    """One die as read: its top face (or ``"unknown"``), box ``(x, y, w, h)`` in frame pixels
    around the top face, and how sure the reader is (0-1)."""

    face: str
    box: tuple[int, int, int, int]
    confidence: float

    @property
    def centre(self) -> tuple[float, float]:
        x, y, w, h = self.box
        return x + w / 2, y + h / 2

    def to_json(self) -> dict[str, Any]:
        return {"face": self.face, "box": list(self.box), "confidence": round(self.confidence, 3)}


@dataclass(frozen=True)
class DiceReading:
    """Every die in one frame."""

    dice: tuple[Die, ...] = ()
    size: tuple[int, int] = (0, 0)
    faces: tuple[str, ...] = field(default=(), compare=False)

    @property
    def counts(self) -> dict[str, int]:
        """How many dice show each face, ``unknown`` included, faces in the reader's order."""
        counts = Counter(d.face for d in self.dice)
        order = [f for f in self.faces if f in counts] + sorted(set(counts) - set(self.faces))
        return {f: counts[f] for f in order}

    @property
    def summary(self) -> tuple[tuple[str, int], ...]:
        """What two readings of the same roll share: the count of each face."""
        return tuple(sorted(self.counts.items()))

    def to_json(self) -> dict[str, Any]:
        return {"dice": [d.to_json() for d in self.dice], "counts": self.counts}


class DiceReader:
    """Finds the dice in frames and reads their top faces.

    ``faces`` reads one die's face: the built-in pip reader by default, or a
    :class:`~vision.dice.faces.TaughtFaces` for custom symbols. ``tray`` is the optional
    calibration (frames are expected already in the tray's view: see :meth:`Tray.view`).
    """

    def __init__(self, faces: FaceReader | None = None, *, tray: Tray | None = None,
                 threshold: float = 0.5, names: tuple[str, ...] | None = None) -> None:
        self.tray = tray
        self.threshold = threshold
        if faces is None:
            self._read_face: FaceReader = lambda crop, mask, side: read_pips(
                crop, mask, side, threshold=threshold)
            self.names = names or ("1", "2", "3", "4", "5", "6")
        else:
            self._read_face = faces
            self.names = names or tuple(getattr(faces, "names", ()))

    def read(self, frame: np.ndarray) -> DiceReading:
        dice = []
        for region in find_dice(frame, self.tray):
            die = self._read(frame, region)
            if die is not None:
                dice.append(die)
        return DiceReading(tuple(dice), (frame.shape[1], frame.shape[0]), self.names)

    def _read(self, frame: np.ndarray, region: DieRegion) -> Die | None:
        x, y, w, h = region.box
        crop, mask = frame[y:y + h, x:x + w], region.mask
        # Faces are read at about READ_SIDE pixels a side: enough for pips and symbols,
        # and the cost per die no longer grows with the camera's resolution.
        f = min(1.0, READ_SIDE / region.side)
        if f < 1.0:
            size = (max(1, round(w * f)), max(1, round(h * f)))
            crop = cv2.resize(crop, size, interpolation=cv2.INTER_AREA)
            mask = cv2.resize(mask, size, interpolation=cv2.INTER_NEAREST)
        read = self._read_face(crop, mask, region.side * f)
        if read.face == UNKNOWN and read.marks == 0:
            return None  # no mark at all: a blank blob, not a die
        half = region.side / 2
        cx, cy = read.centre[0] / f, read.centre[1] / f
        x0, y0 = max(0.0, cx - half), max(0.0, cy - half)
        x1, y1 = min(float(w), cx + half), min(float(h), cy + half)
        box = (int(round(x + x0)), int(round(y + y0)), int(round(x1 - x0)), int(round(y1 - y0)))
        return Die(read.face, box, float(read.confidence))
