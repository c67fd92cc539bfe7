"""The app's adapters over the table's real links: the MQTT bridge and the LED trackers.

The app owns its table like the headless service does, with the same
:class:`~companion.links.Links` (MQTT, Home Assistant, trackers on MQTT,
WLED and serial). Here those links are seen through the app's adapter
interfaces: the status corner follows the broker connection and each
tracker's heartbeat, the setup and settings screens assign and blink real
trackers, and settled readings arrive from the vision process on
``runes/<table>/vision/dice`` and ``…/card``.

The camera preview stays simulated until the vision process offers one (the
camera belongs to that process on the Pi); :func:`linked_hardware` says so
in the log. The button panel is not a link: the app builds it from
``[panel]`` (:mod:`companion.app.buttons`).
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from companion.links import Links

from .adapters import DeviceStatus, Hardware, Reading, SimulatedCamera

__all__ = ["LinkedStatus", "LinkedTrackers", "LinkedVision", "linked_hardware"]

log = logging.getLogger(__name__)


class LinkedStatus:
    """Broker and trackers online or offline, as the links see them (checked every second)."""

    POLL = 1.0

    def __init__(self, links: Links) -> None:
        self.links = links
        self._known: dict[str, bool] = {}
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self, report: Callable[[DeviceStatus], None]) -> None:
        self.links.trackers.when_changed = self._wake.set
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
    """Settled readings from the vision process, over MQTT."""

    def __init__(self, links: Links) -> None:
        self.links = links
        self._deliver: Callable[[Reading], None] | None = None
        self._listening = False

    def start(self, deliver: Callable[[Reading], None]) -> None:
        self._deliver = deliver
        bridge = self.links.bridge
        if bridge is None or self._listening:
            return
        base = f"runes/{self.links.table.table_id}/vision"
        bridge.listen(f"{base}/dice", lambda m: self._received("dice", m.payload))
        bridge.listen(f"{base}/card", lambda m: self._received("card", m.payload))
        self._listening = True

    def stop(self) -> None:
        self._deliver = None

    def _received(self, kind: Any, payload: bytes) -> None:
        try:
            document = json.loads(payload)
            reading = Reading.from_json(kind, _known_cards(document), _photo(document))
        except (ValueError, KeyError, TypeError) as e:
            log.warning("a %s reading that cannot be read was dropped: %s", kind, e)
            return
        if self._deliver is not None and (reading.dice or reading.cards):
            self._deliver(reading)


def _known_cards(document: dict[str, Any]) -> dict[str, Any]:
    """The reading without cards the vision process could not name (``name: null``)."""
    cards = [c for c in document.get("cards", ()) if c.get("name")]
    return {**document, "cards": cards}


def _photo(document: dict[str, Any]) -> np.ndarray:
    """The photo named by ``image`` if the companion can read it, else a blank tray to scale."""
    import cv2

    image = document.get("image")
    if isinstance(image, str) and Path(image).is_file():
        photo = cv2.imread(image)
        if photo is not None:
            return photo  # type: ignore[no-any-return]
    right, bottom = 640, 480
    for die in document.get("dice", ()):
        x, y, w, h = die["box"]
        right, bottom = max(right, x + w + 20), max(bottom, y + h + 20)
    for card in document.get("cards", ()):
        for x, y in card["corners"]:
            right, bottom = max(right, int(x) + 20), max(bottom, int(y) + 20)
    return np.full((int(bottom), int(right), 3), (40, 90, 30), np.uint8)


def linked_hardware(links: Links, *, camera_fps: float = 15.0) -> Hardware:
    """The app's adapters over ``links``; the camera preview is simulated."""
    log.warning("the camera preview in Settings is simulated in the app")
    return Hardware(status=LinkedStatus(links), vision=LinkedVision(links),
                    trackers=LinkedTrackers(links), camera=SimulatedCamera(fps=camera_fps))
