"""The app's adapters over the table's real links: the MQTT bridge, the LED trackers and
the camera process.

The app owns its table like the headless service does, with the same
:class:`~companion.links.Links` (MQTT, Home Assistant, trackers on MQTT,
WLED and serial). Here those links are seen through the app's adapter
interfaces: the status corner follows the broker connection, the camera
process's ``vision/status`` and each tracker's heartbeat; the setup and
settings screens assign and blink real trackers; settled readings arrive from
the vision process (through :class:`~companion.camera.CameraLink`, which has
already played the sure ones with ``[vision] auto_confirm``); and the Settings
screen's preview and tray calibration are asked of the vision process on
``runes/<table>/vision/cmd``, since the camera is that process's, not the app's.

Pictures are JPEGs inside the messages; they are decoded here, off Kivy's main
thread, and reach the screens through the app's one main-thread hop
(:mod:`companion.app.bridge`). The button panel is not a link: the app builds it
from ``[panel]`` (:mod:`companion.app.buttons`).
"""

from __future__ import annotations

import base64
import itertools
import logging
import threading
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from companion.camera import CameraLink, CameraReading
from companion.links import Links

from .adapters import Calibration, DeviceStatus, Hardware, Reading

__all__ = ["LinkedCamera", "LinkedStatus", "LinkedTrackers", "LinkedVision", "linked_hardware"]

log = logging.getLogger(__name__)


class LinkedStatus:
    """Broker, camera and trackers online or offline, as the links see them (checked every
    second, and at once when the camera or a tracker changes)."""

    POLL = 1.0

    def __init__(self, links: Links) -> None:
        self.links = links
        self._known: dict[str, bool] = {}
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self, report: Callable[[DeviceStatus], None]) -> None:
        self.links.trackers.when_changed = self._wake.set
        if self.links.camera is not None:
            self.links.camera.when_changed = self._wake.set
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, args=(report,), daemon=True,
                                        name="app-status")
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=2)

    def _run(self, report: Callable[[DeviceStatus], None]) -> None:
        while not self._stop.is_set():
            now: dict[str, bool] = {}
            if self.links.bridge is not None:
                now["broker"] = self.links.bridge.is_connected
            if self.links.camera is not None:
                # Not heard from yet is offline: no camera process has said it is there.
                now["camera"] = bool(self.links.camera.online)
            for tracker in self.links.trackers.trackers():
                now[f"tracker:{tracker.id}"] = tracker.online
            for key, online in now.items():
                if self._known.get(key) != online:
                    report(DeviceStatus(key, online))
            self._known = now
            self._wake.wait(self.POLL)
            self._wake.clear()


class LinkedTrackers:
    """The table's LED trackers, for the setup and settings screens."""

    DEFAULT_BRIGHTNESS = 1.0
    """Shown while no tracker has a brightness from the companion or in its heartbeat."""

    def __init__(self, links: Links) -> None:
        self.links = links

    def trackers(self) -> list[str]:
        return [t.id for t in self.links.trackers.trackers()]

    def assignments(self) -> dict[str, int | None]:
        return {t.id: t.seat for t in self.links.trackers.trackers()}

    def assign(self, tracker: str, seat: int | None) -> None:
        self.links.trackers.assign(tracker, seat)

    def blink(self, tracker: str) -> None:
        self.links.trackers.blink(tracker)

    def set_brightness(self, level: float) -> None:
        """Every tracker at ``level``: the slider of Settings is the table's, not one tracker's."""
        level = min(1.0, max(0.0, level))
        for tracker in self.links.trackers.trackers():
            self.links.trackers.set_brightness(tracker.id, level)
        log.info("LED trackers at %.0f%% brightness", level * 100)

    def brightness(self) -> float:
        """The level the companion gave the trackers, else the one a tracker reports."""
        infos = self.links.trackers.trackers()
        for level in [i.brightness for i in infos] + [i.details.get("brightness") for i in infos]:
            if isinstance(level, (int, float)) and not isinstance(level, bool):
                return float(level)
        return self.DEFAULT_BRIGHTNESS


class LinkedVision:
    """Settled readings from the vision process, with what the companion did with them."""

    def __init__(self, links: Links) -> None:
        self.links = links
        self._deliver: Callable[[Reading], None] | None = None
        # One worker decodes the photos: never Kivy's thread, nor paho's (which would
        # hold up every other message meanwhile).
        self._photos: ThreadPoolExecutor | None = None

    def start(self, deliver: Callable[[Reading], None]) -> None:
        self._deliver = deliver
        if self.links.camera is not None:
            self._photos = ThreadPoolExecutor(max_workers=1, thread_name_prefix="app-photos")
            self.links.camera.when_reading = self._received

    def stop(self) -> None:
        self._deliver = None
        if self.links.camera is not None:
            self.links.camera.when_reading = None
        if self._photos is not None:
            self._photos.shutdown(wait=False, cancel_futures=True)
            self._photos = None

    def _received(self, heard: CameraReading) -> None:
        """Any thread: the reading goes to the worker, which decodes and delivers it."""
        photos = self._photos
        if photos is not None:
            try:
                photos.submit(self._decode, heard)
            except RuntimeError:
                pass  # stopping

    def _decode(self, heard: CameraReading) -> None:
        try:
            reading = _reading(heard)
        except (ValueError, KeyError, TypeError) as e:
            log.warning("a %s reading that cannot be read was dropped: %s", heard.kind, e)
            return
        deliver = self._deliver
        if deliver is not None and (reading.dice or reading.cards):
            deliver(reading)


def _reading(heard: CameraReading) -> Reading:
    """The app's reading of a heard one: its photo decoded (unless it was played: nobody
    will look at it), boxes in the photo's pixels, and what became of it."""
    document = _known_cards(heard.document)
    result = heard.result
    if heard.settled:
        reading = Reading.from_json(heard.kind, document, np.zeros((1, 1, 3), np.uint8))
    else:
        photo, scale = _photo(document)
        reading = Reading.from_json(heard.kind, document, photo, scale=scale)
    if result is not None and result.ok:
        return replace(reading, outcome="played", said=" · ".join(str(e) for e in result.events))
    if result is not None:
        return replace(reading, outcome="refused", said=result.error or "")
    return replace(reading, outcome="held") if heard.held else reading


def _known_cards(document: Mapping[str, Any]) -> dict[str, Any]:
    """The reading without cards the vision process could not name (``name: null``)."""
    cards = [c for c in document.get("cards", ()) if c.get("name")]
    return {**document, "cards": cards}


def _decoded(text: Any) -> np.ndarray | None:
    """A base64 JPEG as a BGR image, or None if it is not one."""
    import cv2

    if not isinstance(text, str):
        return None
    try:
        data = np.frombuffer(base64.b64decode(text, validate=True), np.uint8)
    except ValueError:
        return None
    image = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
    return image


def _photo(document: Mapping[str, Any]) -> tuple[np.ndarray, float]:
    """The reading's picture and the scale from the reading's frame to it.

    The plain photo (``photo_jpeg``) first: the screen outlines the dice on it itself.
    Else the overlay (outlines drawn in by the vision process), else a photo file named
    by ``image``, else a blank tray big enough for the outlines.
    """
    import cv2

    size = document.get("size")
    width = float(size[0]) if isinstance(size, list) and size and \
        isinstance(size[0], (int, float)) and size[0] > 0 else None
    for key in ("photo_jpeg", "overlay_jpeg"):
        picture = _decoded(document.get(key))
        if picture is not None:
            return picture, picture.shape[1] / width if width else 1.0
    image = document.get("image")
    if isinstance(image, str) and Path(image).is_file():
        photo = cv2.imread(image)
        if photo is not None:
            return photo, photo.shape[1] / width if width else 1.0
    right, bottom = 640, 480
    for die in document.get("dice", ()):
        x, y, w, h = die["box"]
        right, bottom = max(right, x + w + 20), max(bottom, y + h + 20)
    for card in document.get("cards", ()):
        for x, y in card["corners"]:
            right, bottom = max(right, int(x) + 20), max(bottom, int(y) + 20)
    return np.full((int(bottom), int(right), 3), (40, 90, 30), np.uint8), 1.0


class LinkedCamera:
    """The vision process's camera, for the Settings screen: a preview asked for while the
    screen shows it, and tray calibrations (``runes/<table>/vision/cmd``)."""

    PREVIEW_ASK = 30.0
    """Seconds of preview asked for at a time: a screen that dies stops it soon after."""
    PREVIEW_AGAIN = 20.0
    """Asked again this often while the preview shows."""
    ANSWER_WAIT = 15.0
    """A calibration not answered by then has failed (no camera process)."""

    def __init__(self, camera: CameraLink | None) -> None:
        self.camera = camera
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._waiting: dict[str, tuple[Callable[[Calibration], None], threading.Timer]] = {}
        self._asking: threading.Event | None = None
        if camera is not None:
            camera.when_answer = self._answered

    def start(self, deliver: Callable[[np.ndarray], None]) -> None:
        camera = self.camera
        if camera is None:
            return
        camera.when_preview = lambda message: self._preview(message, deliver)
        stop = self._asking = threading.Event()

        def ask() -> None:
            while not stop.is_set():
                camera.ask({"preview": self.PREVIEW_ASK})
                stop.wait(self.PREVIEW_AGAIN)

        threading.Thread(target=ask, daemon=True, name="app-preview").start()

    def stop(self) -> None:
        if self.camera is None or self._asking is None:
            return
        self._asking.set()
        self._asking = None
        self.camera.when_preview = None
        self.camera.ask({"preview": 0})

    @staticmethod
    def _preview(message: Mapping[str, Any], deliver: Callable[[np.ndarray], None]) -> None:
        frame = _decoded(message.get("photo_jpeg"))
        if frame is not None:
            deliver(frame)

    def calibrate(self, kind: str, done: Callable[[Calibration], None]) -> None:
        if self.camera is None:
            done(Calibration(False, error="no camera process: [mqtt] enabled = false"))
            return
        ident = f"app-{next(self._ids)}"
        timer = threading.Timer(self.ANSWER_WAIT, self._no_answer, (ident,))
        timer.daemon = True
        with self._lock:
            self._waiting[ident] = (done, timer)
        if not self.camera.ask({"calibrate": kind, "id": ident}):
            self._finish(ident, Calibration(False, error="the broker is away"))
            return
        timer.start()

    def _no_answer(self, ident: str) -> None:
        self._finish(ident, Calibration(False, error="the camera process did not answer"))

    def _answered(self, answer: Mapping[str, Any]) -> None:
        ident = answer.get("id")
        if not isinstance(ident, str) or "calibrate" not in answer:
            return  # a preview's acknowledgement, or another client's request
        size = answer.get("size")
        self._finish(ident, Calibration(
            answer.get("ok") is True, markers=answer.get("markers") is True,
            empty=answer.get("empty") is True,
            size=(int(size[0]), int(size[1])) if isinstance(size, list) and len(size) == 2 else None,
            error=str(answer.get("error", ""))))

    def _finish(self, ident: str, calibration: Calibration) -> None:
        with self._lock:
            waiting = self._waiting.pop(ident, None)
        if waiting is not None:
            done, timer = waiting
            timer.cancel()
            done(calibration)


def linked_hardware(links: Links) -> Hardware:
    """The app's adapters over ``links``."""
    return Hardware(status=LinkedStatus(links), vision=LinkedVision(links),
                    trackers=LinkedTrackers(links), camera=LinkedCamera(links.camera))
