"""Settled readings: from a stream of frames, report a reading once the things on the tray
have stopped moving, and only once per throw.

The detector is generic: a reading is anything with a ``summary`` that two readings of the
same still scene share (the dice reading's counts per face; a card reading's card). A
reading settles when ``frames`` consecutive readings have the same summary and nothing in
the picture moved between them (:class:`MotionMeter`); it is then reported once. It is
reported again only after something moved, so a die rolled again to the same face counts,
while a still tray watched for an hour gives one reading. Empty readings (nothing on the
tray) are not reported unless asked for.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

import cv2
import numpy as np

__all__ = ["MotionMeter", "Settled", "Settler", "Summarised", "settled_stream"]


class Summarised(Protocol):
    @property
    def summary(self) -> Hashable: ...


R = TypeVar("R", bound=Summarised)


@dataclass(frozen=True)
class Settled(Generic[R]):
    """A settled reading, the frame it was read from, and the frame's number in the stream."""

    reading: R
    frame: np.ndarray
    index: int


class MotionMeter:
    """The share of the picture that changed since the previous frame (0-1).

    Frames are compared small (``width`` px wide) and blurred, so sensor noise and JPEG
    artefacts do not count as motion; a pixel counts as changed when its grey level moved
    by more than ``level``.
    """

    def __init__(self, width: int = 160, level: int = 18) -> None:
        self.width = width
        self.level = level
        self._previous: np.ndarray | None = None

    def __call__(self, frame: np.ndarray) -> float:
        h, w = frame.shape[:2]
        small = cv2.resize(frame, (self.width, max(1, round(h * self.width / w))),
                           interpolation=cv2.INTER_AREA)
        gray = cv2.GaussianBlur(cv2.cvtColor(small, cv2.COLOR_BGR2GRAY) if small.ndim == 3 else small,
                                (5, 5), 0)
        previous, self._previous = self._previous, gray
        if previous is None or previous.shape != gray.shape:
            return 1.0
        return float(np.count_nonzero(cv2.absdiff(gray, previous) > self.level)) / gray.size


class Settler(Generic[R]):
    """Turns a stream of (reading, motion) into settled readings; see the module's doc."""

    def __init__(self, frames: int = 3, motion: float = 0.004, *, report_empty: bool = False) -> None:
        if frames < 1:
            raise ValueError(f"frames must be at least 1, got {frames}")
        self.frames = frames
        self.motion = motion
        self.report_empty = report_empty
        self._summary: Hashable = None
        self._streak = 0
        self._moved = True  # nothing reported yet: the first still scene counts
        self._count = 0

    @property
    def is_still(self) -> bool:
        return self._streak >= self.frames

    def update(self, reading: R, frame: np.ndarray, motion: float) -> Settled[R] | None:
        """Feed one frame's reading; returns it as settled when it just settled."""
        self._count += 1
        summary = reading.summary
        if motion > self.motion:
            self._moved = True
            self._streak = 0
            self._summary = None
            return None
        self._streak = self._streak + 1 if summary == self._summary else 1
        self._summary = summary
        if self._streak < self.frames or not self._moved:
            return None
        if not summary and not self.report_empty:
            return None
        self._moved = False
        return Settled(reading, frame, self._count - 1)


def settled_stream(frames: Iterable[np.ndarray], read: Callable[[np.ndarray], R],
                   settler: Settler[R], *, meter: MotionMeter | None = None
                   ) -> Iterator[Settled[R]]:
    """Read every frame and yield the readings as they settle."""
    meter = meter or MotionMeter()
    for frame in frames:
        motion = meter(frame)
        # A moving picture is not read at all: it costs a whole read and can only disagree.
        if motion > settler.motion:
            settler.update(_MOVING, frame, motion)  # type: ignore[arg-type]
            continue
        settled = settler.update(read(frame), frame, motion)
        if settled is not None:
            yield settled


class _Moving:
    summary = None


_MOVING = _Moving()
