"""The dice reader: a frame in, every die's top face, box and confidence out."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Protocol

import cv2
import numpy as np

from vision.dice.find import Blobs, DieRegion, find_blobs, find_dice, pip_side
from vision.dice.layout import PIP_FACES
from vision.dice.pips import READ_SIDE, FaceRead, read_pip_faces
from vision.tray import Tray

__all__ = ["UNKNOWN", "DiceReader", "DiceReading", "Die", "FaceReader"]

UNKNOWN = "unknown"
_SMALLER = 0.7  # of the die size learnt: pips telling a die smaller than this are believed
_FIT = 0.5  # faces read smaller than this share of the die (median) ask the pips (55-100%)


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
        self._read_face = faces
        if faces is None:
            self.names = names or PIP_FACES
        else:
            self.names = names or tuple(getattr(faces, "names", ()))

    def read(self, frame: np.ndarray) -> DiceReading:
        faces = self._read_face
        if faces is None or hasattr(faces, "read_view"):
            dice = self._read_view(frame)
        else:
            dice = [die for region in find_dice(frame, self.tray)
                    if (die := self._read(frame, region)) is not None]
        return DiceReading(tuple(dice), (frame.shape[1], frame.shape[0]), self.names)

    def _read_view(self, frame: np.ndarray) -> list[Die]:
        """The whole frame at once: blobs found, then every face read on a copy scaled so
        that a die is a set size (enough for its marks; the cost no longer grows with the
        camera's resolution)."""
        blobs = find_blobs(frame, self.tray)
        if not len(blobs):
            return []
        dice, fit = self._read_blobs(frame, blobs)
        if fit < _FIT and self._read_face is None:
            # Faces far smaller than the dice, or none at all: the die size learnt may be
            # wrong, clusters of small dice taken for single dice (their pips then too
            # small to read, their faces a third of the die). If the pips tell a die much
            # smaller, the blobs are read again at their size, and that reading is kept if
            # it names more faces.
            side = pip_side(frame, blobs)
            if side is not None and side < _SMALLER * blobs.side:
                again, _ = self._read_blobs(frame, find_blobs(frame, self.tray, die_side=side))
                if _named(again) > _named(dice):
                    dice = again
        return dice

    def _read_blobs(self, frame: np.ndarray, blobs: Blobs) -> tuple[list[Die], float]:
        """The faces on ``blobs``, read on a copy of ``frame`` scaled to their die size, and
        for pip faces how well that size fits them (see :func:`_pip_fit`; taught faces are
        read at one size whatever it fits, so 1.0)."""
        faces = self._read_face
        if faces is None:
            view = blobs.view(frame, READ_SIDE)
            reads = read_pip_faces(view, threshold=self.threshold)
            fit = _pip_fit([face for _, face in reads], view.side)
        else:
            view = blobs.view(frame, faces.read_side)  # type: ignore[attr-defined]
            reads = faces.read_view(view, threshold=self.threshold)  # type: ignore[attr-defined]
            fit = 1.0
        size = (frame.shape[1], frame.shape[0])
        f = view.scale
        return [Die(face.face, _box(0, 0, (face.centre[0] / f, face.centre[1] / f), face.side / f,
                                    size), float(face.confidence))
                for _, face in reads], fit

    def _read(self, frame: np.ndarray, region: DieRegion) -> Die | None:
        assert self._read_face is not None
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
        centre = (read.centre[0] / f, read.centre[1] / f)
        return Die(read.face, _box(x, y, centre, region.side, (w, h)), float(read.confidence))


def _pip_fit(reads: list[FaceRead], side: float) -> float:
    """How well a die ``side`` fits the pip faces read at it: their median side over the
    die's (0: none measured). A 1 is left out: its grid is its pip's size or the die's as
    found, no measure of its face (a cluster of six dice taken for one die read only its
    two 1s, at half the die, and was not read again at its pips' size)."""
    sides = [face.side for face in reads if face.side > 0 and face.face != PIP_FACES[0]]
    return float(np.median(sides)) / side if sides else 0.0


def _named(dice: list[Die]) -> int:
    """How many of ``dice`` are read as a face (not unknown)."""
    return sum(die.face != UNKNOWN for die in dice)


def _box(x: int, y: int, centre: tuple[float, float], side: float,
         size: tuple[int, int]) -> tuple[int, int, int, int]:
    """A box one die ``side`` wide around a face's ``centre`` (crop coordinates at crop
    origin ``x, y``), kept inside the crop of ``size``."""
    half = side / 2
    x0, y0 = max(0.0, centre[0] - half), max(0.0, centre[1] - half)
    x1, y1 = min(float(size[0]), centre[0] + half), min(float(size[1]), centre[1] + half)
    return int(round(x + x0)), int(round(y + y0)), int(round(x1 - x0)), int(round(y1 - y0))
