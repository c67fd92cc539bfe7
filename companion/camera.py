"""The camera process, as the companion hears it: online or not, settled readings, and
what the companion asks of it.

The vision process (``runes-vision watch``) publishes on the table's broker:
``runes/<table>/vision/status`` (``online`` while its camera gives frames; ``offline``
when the camera is away, and as its last will) and one message per settled reading on
``…/vision/dice`` and ``…/vision/card``. :class:`CameraLink` follows them for one
table: a camera going offline or coming back is logged (and kept in ``online`` for a
screen's status corner), and with ``[vision] auto_confirm = true`` each reading is
played at once as the action it surely stands for (:class:`companion.readings.AutoConfirm`,
the same mapping the touchscreen offers). Every reading is then handed to
``when_reading`` as a :class:`CameraReading` that says what became of it (played,
refused, held for the other half of Loki's roll, or left for a person), so that a
screen asks for a confirmation only of what nobody has played.

The camera belongs to the vision process, so what a settings screen needs of it is asked
for on ``…/vision/cmd`` (:meth:`CameraLink.ask`): a preview, whose frames arrive on
``…/vision/preview`` (``when_preview``), and a tray calibration, answered on
``…/vision/cmd/result`` (``when_answer``).

Threads: the readings arrive on paho's thread, which never touches the session. It
reads the game from a snapshot the table's owner thread leaves at every change (the
rules and an immutable state), decides, and ``submit``s the action like any input.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

import paho.mqtt.client as mqtt

from companion.core.session import Change, Session
from companion.mqtt.bridge import MqttBridge
from companion.payloads import read_object
from companion.readings import AutoConfirm
from companion.table import Result, Table

__all__ = ["CameraLink", "CameraReading"]

log = logging.getLogger(__name__)

READING_LIMIT = 1 << 20
"""Longest reading taken (with its photo and overlay, a reading is some 250 kB)."""


@dataclass(frozen=True)
class CameraReading:
    """A settled reading as the companion heard it, and what it did with it."""

    kind: Literal["dice", "card"]
    document: Mapping[str, Any]
    """The vision process's message, pictures included (``docs/schemas/vision-dice.json``)."""
    played: Mapping[str, Any] | None = None
    """The action played at once (``[vision] auto_confirm``); None: nothing was played."""
    result: Result | None = None
    """The game's answer to ``played``: refused when ``result.ok`` is false."""
    held: bool = False
    """Held until the other half of Loki's roll (its dice, or its card) is read."""

    @property
    def settled(self) -> bool:
        """Whether the companion took care of it: played and accepted, or held."""
        return self.held or (self.result is not None and self.result.ok)


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
        self.when_reading: Callable[[CameraReading], None] | None = None
        """Called with every settled reading and what became of it (any thread)."""
        self.when_preview: Callable[[dict[str, Any]], None] | None = None
        """Called (on paho's thread) with each preview frame's message."""
        self.when_answer: Callable[[dict[str, Any]], None] | None = None
        """Called (on paho's thread) with each answer to :meth:`ask`."""
        self._confirm = AutoConfirm()
        self._lock = threading.Lock()
        self._game: tuple[Any, Any, dict[str, Any]] | None = None
        self._detach: Callable[[], None] | None = None
        self.topic = f"{bridge.topics.base}/vision"
        bridge.listen(f"{self.topic}/status", self._on_status)
        bridge.listen(f"{self.topic}/dice", self._on_dice)
        bridge.listen(f"{self.topic}/card", self._on_card)
        bridge.listen(f"{self.topic}/preview", self._on_preview, qos=0)
        bridge.listen(f"{self.topic}/cmd/result", self._on_answer)

    def ask(self, request: Mapping[str, Any]) -> bool:
        """Ask the vision process for something: ``{"preview": seconds}`` or
        ``{"calibrate": "tray" | "empty"}``; False while the broker is away."""
        return self.bridge.send(f"{self.topic}/cmd", json.dumps({"schema": 1, **request}).encode(),
                                qos=1)

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
        if reading is None:
            return
        counts = reading.get("counts")
        state = self._state() if self.auto_confirm else None
        if state is None or not isinstance(counts, dict) or not all(
                isinstance(k, str) and isinstance(v, int) for k, v in counts.items()):
            self._tell(CameraReading("dice", reading))
            return
        self._play("dice", reading, self._confirm.dice(state, counts), f"dice {counts}")

    def _on_card(self, message: mqtt.MQTTMessage) -> None:
        reading = self._reading(message)
        if reading is None:
            return
        cards = reading.get("cards")
        names = [c["name"] for c in cards if isinstance(c, dict) and isinstance(c.get("name"), str)] \
            if isinstance(cards, list) else []
        state = self._state() if self.auto_confirm else None
        if state is not None and len(names) == 1:
            self._play("card", reading, self._confirm.card(state, names[0]), f"card {names[0]}")
            return
        if state is not None and len(names) > 1:
            log.info("a reading of %d cards (%s) is left for the screen: which one counts?",
                     len(names), ", ".join(names))
        self._tell(CameraReading("card", reading))

    def _on_preview(self, message: mqtt.MQTTMessage) -> None:
        if self.when_preview is not None and (frame := self._reading(message)) is not None:
            self.when_preview(frame)

    def _on_answer(self, message: mqtt.MQTTMessage) -> None:
        if self.when_answer is not None and (answer := self._reading(message)) is not None:
            self.when_answer(answer)

    def _reading(self, message: mqtt.MQTTMessage) -> dict[str, Any] | None:
        if len(message.payload) > READING_LIMIT:
            log.warning("a camera reading of %d bytes was dropped", len(message.payload))
            return None
        try:
            return read_object(message.payload)
        except ValueError as e:
            log.warning("a camera reading on %s that %s was dropped", message.topic, e)
            return None

    def _play(self, kind: Literal["dice", "card"], reading: Mapping[str, Any],
              action: dict[str, Any] | None, what: str) -> None:
        if action is None:
            held = self._confirm.held
            log.info("camera: %s %s", what, f"held until the {self._confirm.waiting} is read"
                     if held else "is left for the screen or a command")
            self._tell(CameraReading(kind, reading, held=held))
            return
        log.info("camera: %s played as %s", what, action)

        def reply(result: Result) -> None:
            if not result.ok:
                log.warning("camera: %s refused: %s", action, result.error)
            self._tell(CameraReading(kind, reading, played=action, result=result))

        self.table.submit(action, source="camera", reply=reply)

    def _tell(self, reading: CameraReading) -> None:
        if self.when_reading is not None:
            self.when_reading(reading)
