"""The camera process, as the companion hears it: online or not, and settled readings.

The vision process (``runes-vision watch``) publishes on the table's broker:
``runes/<table>/vision/status`` (``online`` while its camera gives frames; ``offline``
when the camera is away, and as its last will) and one message per settled reading on
``…/vision/dice`` and ``…/vision/card``. :class:`CameraLink` follows them for one
table: a camera going offline or coming back is logged (and kept in ``online`` for a
screen's status corner), and with ``[vision] auto_confirm = true`` each reading is
played at once as the action it surely stands for (:class:`companion.readings.AutoConfirm`,
the same mapping the touchscreen offers).

Threads: the readings arrive on paho's thread, which never touches the session. It
reads the game from a snapshot the table's owner thread leaves at every change (the
rules and an immutable state), decides, and ``submit``s the action like any input.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable, Mapping
from typing import Any

import paho.mqtt.client as mqtt

from companion.core.session import Change, Session
from companion.mqtt.bridge import MqttBridge
from companion.readings import AutoConfirm
from companion.table import Result, Table

__all__ = ["CameraLink"]

log = logging.getLogger(__name__)

READING_LIMIT = 1 << 20
"""Longest reading taken (with its overlay picture, a reading is some 100 kB)."""


class CameraLink:
    """One table's camera, heard through ``bridge``; see the module docstring."""

    def __init__(self, bridge: MqttBridge, table: Table, *, auto_confirm: bool = False) -> None:
        self.bridge = bridge
        self.table = table
        self.auto_confirm = auto_confirm
        self.online: bool | None = None
        """Whether the camera gives frames; None until the camera process is heard from."""
        self.when_changed: Callable[[], None] | None = None
        """Called (on paho's thread) when ``online`` changes."""
        self._confirm = AutoConfirm()
        self._lock = threading.Lock()
        self._game: tuple[Any, Any, dict[str, Any]] | None = None
        self._detach: Callable[[], None] | None = None
        base = f"{bridge.topics.base}/vision"
        bridge.listen(f"{base}/status", self._on_status)
        if auto_confirm:
            bridge.listen(f"{base}/dice", self._on_dice)
            bridge.listen(f"{base}/card", self._on_card)

    def start(self) -> None:
        """Follow the game (owner thread), for deciding what readings stand for."""
        if self.auto_confirm:
            self._detach = self.table.subscribe(self._on_change)
            if self.table.session is not None:
                self._on_change(self.table.session, None)

    def stop(self) -> None:
        if self._detach is not None:
            self._detach()
            self._detach = None

    # -- the owner thread ------------------------------------------------------------

    def _on_change(self, session: Session[Any], change: Change[Any] | None) -> None:
        envelope = {"game": session.rules.name, "game_id": session.game_id,
                    "revision": session.revision}
        with self._lock:
            self._game = (session.rules, session.state, envelope)

    def _state(self) -> Mapping[str, Any] | None:
        """The game as ``Session.to_json()`` shows it (rules' part from the immutable state)."""
        with self._lock:
            game = self._game
        if game is None:
            return None
        rules, state, envelope = game
        return {**envelope, **rules.to_json(state)}

    # -- paho's thread ------------------------------------------------------------------

    def _on_status(self, message: mqtt.MQTTMessage) -> None:
        online = message.payload == b"online"
        if online == self.online or not message.payload:
            return
        self.online = online
        if online:
            log.info("the camera is online")
        else:
            log.warning("the camera is offline: readings stop until it is back; "
                        "enter rolls and cards by hand")
        if self.when_changed is not None:
            self.when_changed()

    def _on_dice(self, message: mqtt.MQTTMessage) -> None:
        reading = self._reading(message)
        counts = reading.get("counts") if reading is not None else None
        if not isinstance(counts, dict) or not all(
                isinstance(k, str) and isinstance(v, int) for k, v in counts.items()):
            return
        state = self._state()
        if state is not None:
            self._play(self._confirm.dice(state, counts), f"dice {counts}")

    def _on_card(self, message: mqtt.MQTTMessage) -> None:
        reading = self._reading(message)
        cards = reading.get("cards") if reading is not None else None
        names = [c["name"] for c in cards if isinstance(c, dict) and isinstance(c.get("name"), str)] \
            if isinstance(cards, list) else []
        state = self._state()
        if state is not None and len(names) == 1:
            self._play(self._confirm.card(state, names[0]), f"card {names[0]}")
        elif len(names) > 1:
            log.info("a reading of %d cards (%s) is left for the screen: which one counts?",
                     len(names), ", ".join(names))

    def _reading(self, message: mqtt.MQTTMessage) -> dict[str, Any] | None:
        if len(message.payload) > READING_LIMIT:
            log.warning("a camera reading of %d bytes was dropped", len(message.payload))
            return None
        try:
            document = json.loads(message.payload)
        except ValueError:
            document = None
        if not isinstance(document, dict):
            log.warning("a camera reading on %s that is not a JSON object was dropped",
                        message.topic)
            return None
        return document

    def _play(self, action: dict[str, Any] | None, what: str) -> None:
        if action is None:
            waiting = self._confirm.waiting
            log.info("camera: %s %s", what, f"held until the {waiting} is read" if waiting
                     else "is left for the screen or a command")
            return
        log.info("camera: %s played as %s", what, action)
        self.table.submit(action, source="camera", reply=lambda result: _report(action, result))


def _report(action: Mapping[str, Any], result: Result) -> None:
    if not result.ok:
        log.warning("camera: %s refused: %s", action, result.error)
