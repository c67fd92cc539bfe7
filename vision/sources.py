"""Frame sources behind one interface: a USB camera, the Pi camera, or a replay of a
folder of images or a video file.

``open_source(spec)`` chooses at first use, never at import: ``"usb"`` / ``"usb:N"``
(``cv2.VideoCapture``), ``"pi"`` (``picamera2``, imported only then), or a path to replay.
A camera that is missing or unplugged is not an error that stops the process: ``read()``
returns ``None``, the problem is logged once (and kept in ``error``), and the camera is
opened again every ``retry`` seconds until it comes back.
"""

from __future__ import annotations

import logging
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from companion.core.actions import whole_number
from vision.settings import Turn

__all__ = ["CameraSource", "FrameSource", "PiCameraSource", "ReplaySource", "open_source", "turned"]

log = logging.getLogger(__name__)

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff")


class FrameSource(ABC):
    """Where frames come from. ``read()`` gives the next BGR frame, or ``None`` when there
    is none right now (a camera away, or a replay at its end: see ``finished``)."""

    finished = False
    error: str | None = None
    """Why there are no frames right now (a camera away); None while frames come."""

    @abstractmethod
    def read(self) -> np.ndarray | None: ...

    def close(self) -> None:
        """Let go of the device."""

    def frames(self, idle: float = 0.1) -> Iterator[np.ndarray]:
        """Frames until the source is finished (a camera never is), waiting when none."""
        while not self.finished:
            frame = self.read()
            if frame is None:
                if not self.finished:
                    time.sleep(idle)
                continue
            yield frame

    def __enter__(self) -> FrameSource:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _Reconnecting(FrameSource):
    """A camera opened on demand, and again ``retry`` seconds after each failure."""

    def __init__(self, name: str, retry: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.name = name
        self.retry = retry
        self.error: str | None = None
        self._clock = clock
        self._next_try = 0.0
        self._device: Any = None

    @property
    def connected(self) -> bool:
        return self._device is not None

    @abstractmethod
    def _open(self) -> Any: ...

    @abstractmethod
    def _grab(self, device: Any) -> np.ndarray | None: ...

    def _release(self, device: Any) -> None:
        """Close the device object."""

    def _fail(self, message: str) -> None:
        if message != self.error:
            log.warning("%s: %s; trying again every %g s", self.name, message, self.retry)
        self.error = message
        self._next_try = self._clock() + self.retry
        if self._device is not None:
            try:
                self._release(self._device)
            except Exception:  # the device is already gone; nothing more to release
                log.debug("%s: release failed", self.name, exc_info=True)
            self._device = None

    def read(self) -> np.ndarray | None:
        if self._device is None:
            if self._clock() < self._next_try:
                return None
            try:
                self._device = self._open()
            except (OSError, RuntimeError, ImportError, cv2.error) as e:
                self._fail(str(e) or type(e).__name__)
                return None
        try:
            frame = self._grab(self._device)
        except (OSError, RuntimeError, cv2.error) as e:
            self._fail(str(e) or type(e).__name__)
            return None
        if frame is None:
            self._fail("no frame (unplugged?)")
            return None
        if self.error is not None:
            log.warning("%s: back", self.name)
            self.error = None
        return frame

    def close(self) -> None:
        if self._device is not None:
            self._release(self._device)
            self._device = None


class CameraSource(_Reconnecting):
    """A USB (V4L2) camera through ``cv2.VideoCapture``."""

    def __init__(self, device: int = 0, *, width: int = 1280, height: int = 720,
                 retry: float = 2.0, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__(f"camera {device}", retry, clock)
        self.device = device
        self.width, self.height = width, height

    def _open(self) -> cv2.VideoCapture:
        capture = cv2.VideoCapture(self.device)
        if not capture.isOpened():
            capture.release()
            raise OSError(f"cannot open camera {self.device} (missing or busy)")
        capture.set(cv2.CAP_PROP_FRAME_WIDTH, self.width)
        capture.set(cv2.CAP_PROP_FRAME_HEIGHT, self.height)
        return capture

    def _grab(self, device: cv2.VideoCapture) -> np.ndarray | None:
        ok, frame = device.read()
        return frame if ok else None

    def _release(self, device: cv2.VideoCapture) -> None:
        device.release()


class PiCameraSource(_Reconnecting):
    """The Raspberry Pi camera through ``picamera2`` (imported when first opened)."""

    def __init__(self, *, width: int = 1280, height: int = 720, retry: float = 2.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__("Pi camera", retry, clock)
        self.width, self.height = width, height

    def _open(self) -> Any:
        try:
            from picamera2 import Picamera2  # only on the Pi
        except ImportError as e:
            raise ImportError("picamera2 is not installed (it comes with Raspberry Pi OS)") from e
        camera = Picamera2()
        camera.configure(camera.create_video_configuration(
            main={"size": (self.width, self.height), "format": "RGB888"}))
        camera.start()
        return camera

    def _grab(self, device: Any) -> np.ndarray | None:
        frame = device.capture_array()
        # picamera2's "RGB888" is laid out B, G, R in memory: what OpenCV calls BGR.
        return np.ascontiguousarray(frame[..., :3]) if frame is not None else None

    def _release(self, device: Any) -> None:
        device.stop()
        device.close()


class ReplaySource(FrameSource):
    """A folder of images (in name order) or a video file, played once or in a ``loop``.

    Unreadable files in a folder are skipped with a warning. With ``fps`` the replay is
    paced like a camera; without, frames come as fast as they are asked for.

    A folder played in a loop is listed again at each pass, so it acts like a camera that
    another program feeds (the demo, the end-to-end tests): frames added meanwhile are
    shown, and a folder that is emptied or removed is a camera away (``read()`` gives
    None and ``error`` says why) until images are there again.
    """

    def __init__(self, path: str | Path, *, loop: bool = False, fps: float | None = None) -> None:
        self.path = Path(path)
        self.loop = loop
        self.fps = fps
        self._last = 0.0
        self._files: list[Path] = []
        self._video: cv2.VideoCapture | None = None
        self._index = 0
        if self.path.is_dir():
            self._files = self._list()
            if not self._files:
                raise FileNotFoundError(f"{self.path}: no images to replay")
        elif self.path.is_file():
            self._video = cv2.VideoCapture(str(self.path))
            if not self._video.isOpened():
                raise ValueError(f"{self.path}: not a video OpenCV can read")
        else:
            raise FileNotFoundError(f"{self.path}: no such folder or video")

    def _pace(self) -> None:
        if self.fps:
            wait = self._last + 1 / self.fps - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            self._last = time.monotonic()

    def read(self) -> np.ndarray | None:
        if self.finished:
            return None
        self._pace()
        if self._video is not None:
            ok, frame = self._video.read()
            if ok:
                return frame
            if self.loop and self._video.set(cv2.CAP_PROP_POS_FRAMES, 0):
                ok, frame = self._video.read()
                if ok:
                    return frame
            self.finished = True
            return None
        for _ in range(len(self._files) + 1):
            if self._index >= len(self._files):
                if not self.loop:
                    break
                self._index = 0
                self._files = self._list()
                if not self._files:
                    self._away("no images to replay")
                    return None
            path = self._files[self._index]
            self._index += 1
            image = cv2.imread(str(path), cv2.IMREAD_COLOR)
            if image is not None:
                if self.error is not None:
                    log.warning("%s: images again", self.path)
                    self.error = None
                return image
            if path.exists():
                log.warning("%s: not an image, skipped", path)
        if self.loop:
            self._away("no readable image")
            return None
        self.finished = True
        return None

    def _list(self) -> list[Path]:
        try:
            return sorted(p for p in self.path.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        except OSError:
            return []

    def _away(self, why: str) -> None:
        if self.error is None:
            log.warning("%s: %s; waiting for images", self.path, why)
        self.error = why

    def close(self) -> None:
        if self._video is not None:
            self._video.release()
            self._video = None


_QUARTER_TURNS = {90: cv2.ROTATE_90_CLOCKWISE, 180: cv2.ROTATE_180,
                  270: cv2.ROTATE_90_COUNTERCLOCKWISE}


def turned(frame: np.ndarray, degrees: Turn) -> np.ndarray:
    """``frame`` turned clockwise by ``degrees``. The dice readers take the tray's far side
    to be at the top of the picture (a side face shows below its die's top face); a camera
    mounted at another side of the tray is turned to match, as ``[camera] turn`` says.
    Measured in docs/vision.md: read upside down, the webcam set loses six points."""
    return frame if degrees == 0 else cv2.rotate(frame, _QUARTER_TURNS[degrees])


def open_source(spec: str, *, width: int = 1280, height: int = 720, retry: float = 2.0,
                fps: float | None = None, loop: bool = False) -> FrameSource:
    """The source named by ``spec``: ``usb``, ``usb:N``, ``pi``, or a path to replay."""
    if spec == "usb" or spec.startswith("usb:"):
        index = whole_number(spec.partition(":")[2] or "0")
        if index is None:
            raise ValueError(f"camera source {spec!r}: the device after 'usb:' must be a number")
        return CameraSource(index, width=width, height=height, retry=retry)
    if spec == "pi":
        return PiCameraSource(width=width, height=height, retry=retry)
    return ReplaySource(spec, loop=loop, fps=fps)
