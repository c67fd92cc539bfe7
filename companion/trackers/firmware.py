"""Our own tracker firmware, on Wi-Fi: it reads its seat's topic straight from the broker.

The companion only tells each tracker which seat it shows and how bright
(retained on ``runes/<table>/tracker/<id>/seat``; cleared, the tracker shows the
seat of its own settings), and asks it to blink; the seat documents themselves are the
bridge's ``runes/<table>/seat/<n>`` topics, which every tracker of the table
reads (the firmware keeps them all, so a new assignment shows at once). A tracker announces itself with a retained
heartbeat on ``runes/<table>/tracker/<id>/status`` (and ``offline`` as its last
will); an id the companion has not seen before is added, and given a seat.
"""

from __future__ import annotations

import logging
from typing import Any

import paho.mqtt.client as mqtt

from companion.mqtt.bridge import MqttBridge
from companion.payloads import PAYLOAD_SCHEMA, dumps, read_object

from .base import Seat, Tracker, Trackers, assignment

__all__ = ["FirmwareTracker", "FirmwareTrackers"]

log = logging.getLogger(__name__)

STATUS_LIMIT = 2048
"""Longest heartbeat taken; anything longer is not from our firmware."""


class FirmwareTracker(Tracker):
    """A tracker running our firmware, reached through the broker."""

    kind = "firmware"

    def __init__(self, tracker_id: str, bridge: MqttBridge) -> None:
        super().__init__(tracker_id)
        self.bridge = bridge
        self._topics = bridge.topics

    def assign(self, seat: int | None, brightness: float | None = None) -> None:
        topic = self._topics.tracker(self.id, "seat")
        if seat is None:
            self.bridge.forget(topic)  # a cleared assignment: the seat of its own settings
        else:
            self.bridge.retain(topic, dumps(assignment(seat, brightness)))

    def show(self, seat: Seat | None) -> None:
        """Nothing to do: the tracker reads ``runes/<table>/seat/<n>`` itself."""

    def blink(self, seconds: float) -> None:
        self.bridge.send(self._topics.tracker(self.id, "blink"),
                         dumps({"schema": PAYLOAD_SCHEMA, "seconds": seconds}), qos=1)


class FirmwareTrackers:
    """Listens for firmware trackers announcing themselves, and adds them to ``trackers``."""

    def __init__(self, bridge: MqttBridge, trackers: Trackers) -> None:
        self.bridge = bridge
        self.trackers = trackers
        # Trackers assigned in an earlier run get their retained assignment back at once,
        # even before they next say hello.
        for tracker_id in trackers.known(FirmwareTracker.kind):
            trackers.add(FirmwareTracker(tracker_id, bridge))
        bridge.listen(bridge.topics.trackers("status"), self._on_status)

    def _on_status(self, message: mqtt.MQTTMessage) -> None:
        tracker_id = self.bridge.topics.tracker_of(message.topic)
        if tracker_id is None or not message.payload:
            return
        try:
            online, details = parse_status(message.payload, tracker_id)
        except ValueError as e:
            log.warning("ignoring a bad status from tracker %s: %s", tracker_id, e)
            return
        if tracker_id not in self.trackers:
            if not online:
                return  # a retained "offline" of a tracker we never assigned: nothing to do
            self.trackers.add(FirmwareTracker(tracker_id, self.bridge))
        self.trackers.seen(tracker_id, online=online, details=details)


def parse_status(payload: bytes | bytearray, tracker_id: str) -> tuple[bool, dict[str, Any] | None]:
    """``(online, heartbeat)`` from a status payload: a heartbeat object, or ``offline``."""
    if payload == b"offline":
        return False, None
    if len(payload) > STATUS_LIMIT:
        raise ValueError(f"{len(payload)} bytes, at most {STATUS_LIMIT}")
    try:
        document = read_object(payload)
    except ValueError as e:
        raise ValueError(f"neither 'offline' nor a heartbeat: it {e}") from None
    if document.get("id", tracker_id) != tracker_id:
        raise ValueError(f"it calls itself {document['id']!r} on the topic of {tracker_id!r}")
    return True, document
