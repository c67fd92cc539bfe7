"""Settled readings to MQTT: ``runes/<table>/vision/<kind>`` (``dice``, ``card``).

One JSON message per settled reading, not retained (a reading is an event: the companion
turns it into a roll once the players confirm). It carries the reading's own JSON (for dice:
``counts`` and ``dice``), a sequence number, the time, the frame size and, unless switched
off, two pictures as base64 JPEGs: the plain photo the reading was made from
(``photo_jpeg``), on which the touchscreen draws its own outlines (so a die corrected by a
tap is drawn with its new face), and the confirmation overlay with the outlines drawn in
(``overlay_jpeg``), for anything that just shows a picture. The pictures travel inside the
message rather than on a topic of their own so that a reading and its picture can never
be paired wrongly; at 960 px wide each is some 60-120 kB, nothing for a LAN broker.

The camera's presence is ``runes/<table>/vision/status`` (retained): ``online`` once
connected while the camera delivers frames, ``offline`` while it does not (unplugged, a
replay folder gone) and as the last will. The broker being away is logged and retried by
paho's own reconnect loop; readings published meanwhile are queued by paho (QoS 1).

The companion may ask things of the camera on ``runes/<table>/vision/cmd`` (a preview, a
calibration: :mod:`vision.watch` answers them); the publisher hands each request to its
``on_command`` and sends answers on ``…/vision/cmd/result`` and preview frames on
``…/vision/preview`` (QoS 0: a lost preview frame is replaced by the next).
"""

from __future__ import annotations

import base64
import json
import logging
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any

import cv2
import numpy as np
import paho.mqtt.client as mqtt

from companion.mqtt.client import MqttConfig, make_client
from vision.overlay import encode_jpeg
from vision.settings import VisionConfig
from vision.settle import Settled
from vision.sources import FrameSource

__all__ = ["SCHEMA", "VisionPublisher", "picture_payload", "reading_payload", "report_settled",
           "scaled"]

log = logging.getLogger(__name__)

SCHEMA = 1


def scaled(frame: np.ndarray, width: int) -> np.ndarray:
    """``frame`` at most ``width`` pixels wide (the same frame when it is narrower)."""
    h, w = frame.shape[:2]
    if w <= width:
        return frame
    return cv2.resize(frame, (width, max(1, round(h * width / w))), interpolation=cv2.INTER_AREA)


def _jpeg(image: np.ndarray, quality: int) -> str:
    return base64.b64encode(encode_jpeg(image, quality)).decode("ascii")


def reading_payload(reading: dict[str, Any], *, seq: int, size: tuple[int, int],
                    overlay: np.ndarray | None = None, photo: np.ndarray | None = None,
                    quality: int = 80, when: float | None = None) -> dict[str, Any]:
    """The message for one settled reading (``reading`` is the reading's JSON form).

    ``size`` is the frame's, in whose pixels the reading's boxes and corners are given;
    the pictures may be smaller (a reader scales by their width over ``size``).
    """
    payload = picture_payload(seq=seq, size=size, when=when)
    payload.update(reading)
    if photo is not None:
        payload["photo_jpeg"] = _jpeg(photo, quality)
    if overlay is not None:
        payload["overlay_jpeg"] = _jpeg(overlay, quality)
    return payload


def picture_payload(*, seq: int, size: tuple[int, int], photo: np.ndarray | None = None,
                    quality: int = 80, when: float | None = None) -> dict[str, Any]:
    """The envelope every picture message shares (a preview frame is just this)."""
    payload: dict[str, Any] = {"schema": SCHEMA, "seq": seq,
                               "time": round(time.time() if when is None else when, 3),
                               "size": list(size)}
    if photo is not None:
        payload["photo_jpeg"] = _jpeg(photo, quality)
    return payload


class VisionPublisher:
    """Publishes settled readings for one table; connect with :meth:`start`.

    ``config`` is the companion's ``[mqtt]`` connection with the camera's own user
    (:func:`vision.settings.broker_settings`); the client is the companion's
    (:func:`companion.mqtt.client.make_client`), so TLS and passwords work alike.
    """

    COMMAND_LIMIT = 4096
    """Longest request taken on ``vision/cmd`` (a request is a few dozen bytes)."""

    def __init__(self, table: str, config: MqttConfig | None = None, *,
                 keepalive: int = 30,
                 on_command: Callable[[dict[str, Any]], None] | None = None) -> None:
        self.table = table
        self.config = config or MqttConfig()
        self.keepalive = keepalive
        self.on_command = on_command
        """Called on paho's thread with each request (a JSON object) on ``vision/cmd``;
        None: the camera process takes no requests (nothing is subscribed)."""
        self.status_topic = f"runes/{table}/vision/status"
        self.client = make_client(self.config, client_id=self.config.client_id,
                                  will=self.status_topic)
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = self._on_disconnect
        self.client.message_callback_add(self.topic("cmd"), self._on_command)
        self.connected = False
        self._seeing = True
        self._lock = threading.Lock()
        self._seq = 0
        self._preview_seq = 0

    def topic(self, kind: str) -> str:
        return f"runes/{self.table}/vision/{kind}"

    def _status(self) -> str:
        return "online" if self._seeing else "offline"

    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any,
                    properties: Any) -> None:
        if reason.is_failure:
            log.warning("broker %s:%s refused the connection: %s", self.config.host,
                        self.config.port, reason)
            return
        with self._lock:
            self.connected = True
            client.publish(self.status_topic, self._status(), qos=1, retain=True)
        if self.on_command is not None:
            client.subscribe(self.topic("cmd"), qos=1)

    def _on_disconnect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any,
                       properties: Any) -> None:
        if self.connected:
            log.warning("lost the broker %s:%s (%s); reconnecting", self.config.host,
                        self.config.port, reason)
        self.connected = False

    def start(self) -> None:
        """Connect in the background (a broker that is down is retried, not an error)."""
        self.client.connect_async(self.config.host, self.config.port, self.keepalive)
        self.client.loop_start()

    def seeing(self, ok: bool) -> None:
        """Whether the camera delivers frames: the status says ``online`` or ``offline``.

        A camera that is unplugged (or a replay folder that vanished) makes the camera
        process useless to the table although it runs: the companion hears it as offline.
        """
        with self._lock:
            if ok == self._seeing:
                return
            self._seeing = ok
            if self.connected:
                self.client.publish(self.status_topic, self._status(), qos=1, retain=True)

    def _on_command(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        if self.on_command is None:
            return
        if len(message.payload) > self.COMMAND_LIMIT:
            self.answer({"ok": False, "error": f"a request of {len(message.payload)} bytes "
                                               f"(at most {self.COMMAND_LIMIT})"})
            return
        try:
            request = json.loads(message.payload)
        except ValueError:
            request = None
        if not isinstance(request, dict):
            self.answer({"ok": False, "error": "a request is a JSON object, like "
                                               '{"preview": 30} or {"calibrate": "tray"}'})
            return
        self.on_command(request)

    def answer(self, result: dict[str, Any]) -> None:
        """Answer a request on ``vision/cmd/result``."""
        self.client.publish(self.topic("cmd/result"), json.dumps({"schema": SCHEMA, **result}),
                            qos=1)

    def preview(self, frame: np.ndarray, *, size: tuple[int, int], quality: int = 70) -> None:
        """Publish one preview frame on ``vision/preview`` (``size``: the camera's frame)."""
        self._preview_seq += 1
        payload = picture_payload(seq=self._preview_seq, size=size, photo=frame, quality=quality)
        self.client.publish(self.topic("preview"), json.dumps(payload), qos=0)

    def publish(self, kind: str, reading: dict[str, Any], *, size: tuple[int, int],
                overlay: np.ndarray | None = None, photo: np.ndarray | None = None,
                quality: int = 80) -> dict[str, Any]:
        """Publish one settled reading on ``vision/<kind>``; returns the message sent."""
        self._seq += 1
        payload = reading_payload(reading, seq=self._seq, size=size, overlay=overlay,
                                  photo=photo, quality=quality)
        self.client.publish(self.topic(kind), json.dumps(payload), qos=1)
        return payload

    def stop(self) -> None:
        """Say ``offline``, and disconnect."""
        if self.connected:
            self.client.publish(self.status_topic, "offline", qos=1, retain=True).wait_for_publish(2)
        self.connected = False  # leaving is no lost broker
        self.client.disconnect()
        self.client.loop_stop()


def report_settled(settled: Iterable[Settled[Any]], kind: str, publisher: VisionPublisher | None,
                   settings: VisionConfig, *, payload: Callable[[Any], dict[str, Any]],
                   overlay: Callable[[np.ndarray, Any, int], np.ndarray],
                   source: FrameSource | None = None) -> None:
    """The loop of every ``watch`` command: print each settled reading as a JSON line
    (``{"frame": N, ...payload}``) and, with a publisher, publish it on
    ``vision/<kind>`` with its overlay (``overlay(frame, reading, width)``) as the
    settings say; until the frames end or Ctrl-C, then let go of ``source`` and say
    ``offline``."""
    try:
        for s in settled:
            data = payload(s.reading)
            print(json.dumps({"frame": s.index, **data}), flush=True)
            if publisher is not None:
                h, w = s.frame.shape[:2]
                picture = overlay(s.frame, s.reading, settings.overlay_width) if settings.overlay else None
                photo = scaled(s.frame, settings.overlay_width) if settings.photo else None
                publisher.publish(kind, data, size=(w, h), overlay=picture, photo=photo,
                                  quality=settings.overlay_quality)
    except KeyboardInterrupt:
        pass
    finally:
        if source is not None:
            source.close()
        if publisher is not None:
            publisher.stop()
