"""An off-the-shelf WLED device as tracker(s), through WLED's MQTT JSON API.

WLED listens on ``<device topic>/api`` and, since 0.11, takes there the same
JSON state object as its HTTP ``/json/state`` (kno.wled.ge, "MQTT" and "JSON
API"); it says ``online``/``offline`` on ``<device topic>/status``. Each seat is
one segment: a strip cut into one segment per seat is one device with
``segments`` trackers, and a device per seat is a device with one.

How a seat looks (the LEDs of its segment, ``leds`` of them):

* HP as a bar in the seat's colour: ``ceil(hp / max * leds)`` LEDs lit, the rest
  dark (individual LED control, the segment's ``i`` ranges); runes the same,
  one LED per rune, in a game without HP;
* the seat whose turn it is at full brightness, the others at ``dim``, both scaled
  by the tracker's brightness (:meth:`Trackers.set_brightness`, WLED's segment ``bri``);
* a defeated seat dim red all along; the winner breathing in their colour;
* no seat assigned: the segment off.

The whole device's state is one retained message (WLED reads at most 1024
bytes a message; ten segments fit), so a WLED that reboots gets every segment
back from the broker. Because WLED ignores individual LEDs sent in the same
request that turns the light on, ``{"on": true}`` goes alone first whenever the
device comes online.
"""

from __future__ import annotations

import logging
import math
import threading
from collections.abc import Mapping
from typing import Any

import paho.mqtt.client as mqtt

from companion.colours import hex_rgb
from companion.mqtt.bridge import MqttBridge
from companion.payloads import dumps

from .base import Seat, Tracker, Trackers

__all__ = ["MAX_SEGMENTS", "WLED_MESSAGE_LIMIT", "WledDevice", "WledSegment", "segment_state"]

log = logging.getLogger(__name__)

WLED_MESSAGE_LIMIT = 1024
"""WLED drops MQTT messages longer than this (kno.wled.ge, MQTT)."""
MAX_SEGMENTS = 10
"""The most segments whose state fits in one message."""

SOLID, BLINK, BREATHE = 0, 1, 2
"""WLED effect ids."""
DARK = [0, 0, 0]
DOWN = [64, 0, 0]
WHITE = [255, 255, 255]


def rgb(colour: str) -> list[int]:
    """``#rrggbb`` → ``[r, g, b]``; anything else is white, never an error on the table."""
    parsed = hex_rgb(colour)
    return list(parsed) if parsed is not None else list(WHITE)


def segment_state(segment: int, seat: Seat | None, *, leds: int, dim: int,
                  level: float = 1.0) -> dict[str, Any]:
    """The WLED segment object showing ``seat`` (see the module docstring), its
    brightness scaled by ``level`` (the tracker's brightness, 0 to 1)."""
    if seat is None:
        return {"id": segment, "on": False}
    colour = rgb(seat.get("colour", ""))
    if seat.get("over") and seat.get("winner"):
        return {"id": segment, "on": True, "bri": round(255 * level), "frz": False,
                "fx": BREATHE, "sx": 128, "col": [colour, DARK]}
    bright = round((255 if seat.get("active") else dim) * level)
    if seat.get("defeated"):
        return {"id": segment, "on": True, "bri": round(dim * level), "i": [0, leds, DOWN]}
    hp, top, runes = seat.get("hp"), seat.get("max"), seat.get("runes")
    if isinstance(hp, int) and isinstance(top, int) and top > 0:
        lit = min(leds, math.ceil(max(hp, 0) * leds / top))
    elif isinstance(runes, int):
        lit = min(leds, max(runes, 0))
    else:
        lit = leds
    ranges: list[Any] = [0, lit, colour] if lit else []
    if lit < leds:
        ranges += [lit, leds, DARK]
    return {"id": segment, "on": True, "bri": bright, "i": ranges}


class WledSegment(Tracker):
    """One segment of a WLED device: one seat."""

    kind = "wled"

    def __init__(self, device: WledDevice, segment: int) -> None:
        super().__init__(f"wled:{device.topic}:{segment}")
        self.device = device
        self.segment = segment
        self.level = 1.0
        """The brightness the companion gave this seat, scaling the segment's ``bri``."""

    def assign(self, seat: int | None, brightness: float | None = None) -> None:
        # The seat's document comes with show(); only the brightness is kept here.
        self.level = 1.0 if brightness is None else brightness

    def show(self, seat: Seat | None) -> None:
        self.device.update(self.segment, segment_state(self.segment, seat, leds=self.device.leds,
                                                       dim=self.device.dim, level=self.level))

    def blink(self, seconds: float) -> None:
        self.device.blink(self.segment, seconds)

    def close(self) -> None:
        self.device.close()


class WledDevice:
    """One WLED controller on the broker, as ``segments`` trackers added to ``trackers``."""

    def __init__(self, bridge: MqttBridge, trackers: Trackers, topic: str, *,
                 segments: int = 1, leds: int = 12, dim: int = 96) -> None:
        if not 1 <= segments <= MAX_SEGMENTS:
            raise ValueError(f"a WLED device drives 1 to {MAX_SEGMENTS} seats, got {segments}")
        if not topic or any(c in topic for c in "+#") or topic.endswith("/"):
            raise ValueError(f"{topic!r} is not a WLED device topic (such as wled/table1)")
        self.bridge = bridge
        self.trackers = trackers
        self.topic = topic
        self.leds = leds
        self.dim = dim
        self._lock = threading.Lock()
        self._segments: dict[int, dict[str, Any]] = {k: {"id": k, "on": False}
                                                     for k in range(segments)}
        self._timers: dict[int, threading.Timer] = {}
        self.members = [WledSegment(self, k) for k in range(segments)]
        bridge.listen(f"{topic}/status", self._on_status)
        for member in self.members:
            trackers.add(member)

    @property
    def api(self) -> str:
        return f"{self.topic}/api"

    def state(self) -> dict[str, Any]:
        """The device's whole state: what is retained on its ``api`` topic."""
        with self._lock:
            return {"on": True, "seg": [self._segments[k] for k in sorted(self._segments)]}

    def update(self, segment: int, state: Mapping[str, Any]) -> None:
        with self._lock:
            self._segments[segment] = dict(state)
            blinking = segment in self._timers
        if not blinking:
            self.bridge.retain(self.api, dumps(self.state()))

    def blink(self, segment: int, seconds: float) -> None:
        """White blinking on one segment, then back to the seat it shows."""
        with self._lock:
            previous = self._timers.pop(segment, None)
            timer = self._timers[segment] = threading.Timer(seconds, self._unblink, (segment,))
            timer.daemon = True
        if previous is not None:
            previous.cancel()
        self.bridge.send(self.api, dumps({"seg": [
            {"id": segment, "on": True, "bri": 255, "frz": False, "fx": BLINK, "sx": 200,
             "col": [WHITE, DARK]}]}))
        timer.start()

    def _unblink(self, segment: int) -> None:
        with self._lock:
            self._timers.pop(segment, None)
        self._restore()

    def _restore(self) -> None:
        """Send the whole state again, past the retained copy (which the device already has)."""
        payload = dumps(self.state())
        self.bridge.retain(self.api, payload)
        self.bridge.send(self.api, payload)

    def _on_status(self, message: mqtt.MQTTMessage) -> None:
        online = message.payload == b"online"
        if online:
            # Lit first, alone: WLED ignores individual LEDs in the request that turns it on.
            self.bridge.send(self.api, dumps({"on": True}))
            self._restore()
        for member in self.members:
            self.trackers.seen(member.id, online=online)

    def close(self) -> None:
        with self._lock:
            timers, self._timers = list(self._timers.values()), {}
        for timer in timers:
            timer.cancel()
