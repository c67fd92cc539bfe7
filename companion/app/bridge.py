"""The one place where hardware threads hand over to Kivy's main thread.

Buttons, MQTT, the vision service and the camera call back on their own
threads; Kivy may only be touched on its main thread. Every callback the app
gives a device goes through here: :func:`on_main_thread` schedules the call
on the next frame, and :class:`LatestFrame` keeps only the newest camera
frame, so a camera faster than the screen never piles up work.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np
from kivy.clock import Clock

__all__ = ["LatestFrame", "on_main_thread"]

T = TypeVar("T")


def on_main_thread(fn: Callable[[T], None]) -> Callable[[T], None]:
    """A callback for any thread that runs ``fn`` on Kivy's main thread at the next frame."""

    def hop(value: T) -> None:
        Clock.schedule_once(lambda _dt: fn(value), 0)

    return hop


class LatestFrame:
    """A mailbox for camera frames: the camera thread puts, the main thread gets the newest."""

    def __init__(self, show: Callable[[np.ndarray], None]) -> None:
        self._show = show
        self._lock = threading.Lock()
        self._frame: np.ndarray | None = None
        self.dropped = 0
        """Frames replaced before the screen showed them (the camera outran the screen)."""

    def put(self, frame: np.ndarray) -> None:
        with self._lock:
            waiting = self._frame is not None
            if waiting:
                self.dropped += 1
            self._frame = frame
        if not waiting:
            Clock.schedule_once(self._deliver, 0)

    def _deliver(self, *_: Any) -> None:
        with self._lock:
            frame, self._frame = self._frame, None
        if frame is not None:
            self._show(frame)
