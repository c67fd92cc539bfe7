"""End to end: a real Mosquitto, the companion playing a game and publishing its seats, and the
real tracker firmware on the MicroPython unix port subscribed as a tracker.

After every action the tracker's fake strip (its frames arrive over UDP, see
companion/firmware/emulator.py) must show the right pixels; the broker is restarted mid-game
and the tracker must converge again. The blink goes through the companion's real bridge and
tracker driver on the locked-down broker.
"""

from __future__ import annotations

import json
import queue
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion
import pytest

from companion.core.journal import Journal
from companion.core.session import Change, Session
from companion.firmware.emulator import Frame, TrackerEmulator
from companion.table import Table
from tests.support.broker import Broker, SecureBroker
from tests.support.mqtt import Companion as LinkedCompanion
from tests.support.wait import until
from tests.support.seats import publish_seats

TABLE = "e2e"
OFF, WHITE = (0, 0, 0), (255, 255, 255)
RED, AMBER, GREEN = (255, 0, 0), (255, 160, 0), (0, 224, 0)
DEFEAT, OFFLINE = (64, 0, 0), (0, 48, 255)
ANN_GLOW, BOB_GLOW, BOB = (14, 3, 3), (2, 8, 14), (30, 136, 229)


def hp(n: int, colour: tuple[int, int, int], glow: tuple[int, int, int]) -> list[Any]:
    return [colour] * n + [glow] * (12 - n)


class Companion:
    """The companion's side: a table playing Runes of Zun, its seats published on every change
    (and again on every reconnect, as the real publisher must), and the trackers' status."""

    def __init__(self, broker: Broker, journal: Path) -> None:
        self.table = Table(Journal(journal), table_id=TABLE)
        self.statuses: queue.Queue[tuple[str, str]] = queue.Queue()
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="companion")
        self.client.reconnect_delay_set(min_delay=1, max_delay=1)
        self.client.on_connect = self._connected
        self.client.message_callback_add(f"runes/{TABLE}/tracker/+/status", self._status)
        # A snapshot is read and published under one lock: else paho's thread, publishing
        # the seats on connecting, could send a snapshot read before an action after the
        # action's own seats, and the stale one would stay retained (seen under load).
        self._publishing = threading.Lock()
        self.table.subscribe(self._changed)
        self.table.start("zun", "players=Ann,Bob,Cid")
        self.client.connect(broker.host, broker.port, keepalive=5)
        self.client.loop_start()

    def _changed(self, session: Session[Any], change: Change[Any] | None) -> None:
        with self._publishing:
            publish_seats(self.client, TABLE, session)

    def _connected(self, client: mqtt.Client, *args: Any) -> None:
        client.subscribe(f"runes/{TABLE}/tracker/+/status")
        with self._publishing:
            assert self.table.session is not None
            publish_seats(client, TABLE, self.table.session)

    def _status(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        self.statuses.put((message.topic, message.payload.decode()))

    def play(self, command: str) -> None:
        result = self.table.execute(command)
        assert result.ok, result.error

    def assign(self, tracker: str, seat: int) -> None:
        self.client.publish(f"runes/{TABLE}/tracker/{tracker}/seat", json.dumps({"seat": seat}),
                            qos=1, retain=True)

    def wait_status(self, predicate: Any, timeout: float = 10) -> Any:
        """The next status (JSON, or the text "offline") of which ``predicate`` is true."""
        while True:
            topic, text = self.statuses.get(timeout=timeout)
            value = text if text == "offline" else json.loads(text)
            if predicate(value):
                return value

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()
        self.table.journal.close()


@pytest.fixture
def companion(broker: Broker, tmp_path: Path) -> Iterator[Companion]:
    c = Companion(broker, tmp_path / "journal.sqlite")
    yield c
    c.close()


def settings(broker: Broker, **changes: Any) -> dict[str, Any]:
    """A tracker on the test broker, at full brightness and without the pulse, so that the
    frames settle on exact colours; quick to reconnect."""
    return {"id": "t1", "table": TABLE, "broker": broker.host, "port": broker.port,
            "brightness": 1.0, "pulse_ms": 0, "heartbeat_s": 2,
            "backoff_min_ms": 100, "backoff_max_ms": 1000, **changes}


@pytest.fixture
def tracker(broker: Broker, companion: Companion, tmp_path: Path) -> Iterator[TrackerEmulator]:
    companion.assign("t1", 1)
    with TrackerEmulator(settings(broker, seats=2), tmp_path / "t1") as t:
        yield t


def test_the_strip_follows_the_game(companion: Companion, tracker: TrackerEmulator) -> None:
    def shows(ann: list[Any], bob: list[Any]) -> None:
        tracker.wait_for(lambda pixels: list(pixels) == ann + bob)

    full_bob = hp(12, GREEN, BOB_GLOW)
    shows(hp(12, GREEN, ANN_GLOW), full_bob)
    companion.play("damage Ann 3")
    shows(hp(9, GREEN, ANN_GLOW), full_bob)
    companion.play("damage Ann 4")
    shows(hp(5, AMBER, ANN_GLOW), full_bob)
    companion.play("heal Ann 2")
    shows(hp(7, AMBER, ANN_GLOW), full_bob)
    companion.play("defeat Ann")
    shows([DEFEAT] + [OFF] * 11, full_bob)
    companion.play("revive Ann")
    shows(hp(2, RED, ANN_GLOW), full_bob)
    companion.play("undo")
    shows([DEFEAT] + [OFF] * 11, full_bob)
    companion.play("damage Bob 3")
    shows([DEFEAT] + [OFF] * 11, hp(9, GREEN, BOB_GLOW))
    companion.play("defeat Cid")
    # Bob wins: his unlit LEDs chase in his colour, one in three at any time.
    tracker.wait_for(lambda pixels: list(pixels[12:21]) == [GREEN] * 9
                     and sorted(pixels[21:]) == sorted([BOB, BOB_GLOW, BOB_GLOW]))


def test_the_tracker_converges_after_the_broker_restarts(
        broker: Broker, companion: Companion, tracker: TrackerEmulator) -> None:
    tracker.wait_for(lambda pixels: list(pixels[:12]) == hp(12, GREEN, ANN_GLOW))
    companion.play("damage Ann 3")
    tracker.wait_for(lambda pixels: list(pixels[:12]) == hp(9, GREEN, ANN_GLOW))

    broker.kill()
    # Offline: the last state stays, with the offline mark blinking on each segment's last LED.
    tracker.wait_for(lambda pixels: list(pixels[:12]) == hp(9, GREEN, ANN_GLOW)[:11] + [OFFLINE])
    companion.play("damage Ann 4")      # while the broker is away
    broker.start()

    status = companion.wait_status(lambda s: isinstance(s, dict) and s["connects"] == 2)
    assert status["error"].startswith("connection lost") and status["errors"] == 0
    frame = tracker.wait_for(lambda pixels: list(pixels[:12]) == hp(5, AMBER, ANN_GLOW))
    companion.play("heal Ann 1")
    tracker.wait_for(lambda pixels: list(pixels[:12]) == hp(6, AMBER, ANN_GLOW),
                     since=frame.number)


def test_the_companion_assigns_the_seat(broker: Broker, companion: Companion,
                                        tmp_path: Path) -> None:
    companion.play("damage Bob 8")
    companion.assign("t2", 2)
    with TrackerEmulator(settings(broker, id="t2"), tmp_path / "t2") as t2:
        t2.wait_for(lambda pixels: list(pixels) == hp(4, RED, BOB_GLOW))
        companion.assign("t2", 1)
        t2.wait_for(lambda pixels: list(pixels) == hp(12, GREEN, ANN_GLOW))
        status = companion.wait_status(lambda s: isinstance(s, dict) and s["seat"] == 1)
        assert status["id"] == "t2"


def test_bad_payloads_are_reported_on_the_status_topic(
        broker: Broker, companion: Companion, tracker: TrackerEmulator) -> None:
    companion.play("damage Ann 3")
    tracker.wait_for(lambda pixels: list(pixels[:12]) == hp(9, GREEN, ANN_GLOW))
    companion.client.publish(f"runes/{TABLE}/seat/1", "not json")
    status = companion.wait_status(lambda s: isinstance(s, dict) and s["errors"] == 1)
    assert status["error"] == "seat/1: not JSON: b'not json'"
    too_many = {"schema": 1, "game": "zun", "revision": 99, "seat": 1, "colour": "#e53935",
                "hp": 20, "max": 20, "tier": 5}
    companion.client.publish(f"runes/{TABLE}/seat/1", json.dumps(too_many))
    status = companion.wait_status(lambda s: isinstance(s, dict) and s["errors"] == 2)
    assert status["error"] == "seat/1: hp 20 is more than the 12 LEDs of the strip"
    assert list(tracker.frame().pixels[:12]) == hp(9, GREEN, ANN_GLOW)  # type: ignore[union-attr]


def test_the_companion_makes_the_tracker_blink(mqtt_companion: LinkedCompanion,
                                              locked_broker: SecureBroker, tmp_path: Path) -> None:
    """``Trackers.blink`` through the real bridge, on the locked broker with the tracker's own
    credentials: the strip flashes, hides a change made meanwhile, then shows its seat again."""
    c = mqtt_companion
    me = locked_broker.users["tracker-t1-tr1"]
    frames: list[Frame] = []
    settings = {"id": "tr1", "table": "t1", "broker": locked_broker.host,
                "port": locked_broker.port, "user": me.user, "password": me.password,
                "brightness": 1.0, "pulse_ms": 0, "heartbeat_s": 2,
                "backoff_min_ms": 100, "backoff_max_ms": 1000}
    with TrackerEmulator(settings, tmp_path / "tr1", on_frame=frames.append) as board:
        until(lambda: "tr1" in c.links.trackers, timeout=20)
        board.wait_for(lambda pixels: list(pixels) == hp(12, GREEN, ANN_GLOW), timeout=20)

        c.links.trackers.blink("tr1", 3)
        white = board.wait_for(lambda pixels: list(pixels) == [WHITE] * 12)
        assert c.play("damage Ann 3").ok          # while it blinks
        back = board.wait_for(lambda pixels: list(pixels) == hp(9, GREEN, ANN_GLOW),
                              since=white.number, timeout=15)

        during = [f.pixels for f in frames if white.number <= f.number < back.number]
        assert set(during) == {(WHITE,) * 12, (OFF,) * 12}, "only the flash shows meanwhile"
        assert during.count((WHITE,) * 12) >= 3, "it flashes on and off, several times"
        assert back.at - white.at > 2.0, "for about 3 s (frames arrive late on a busy machine)"
        status = c.links.trackers.trackers()[0].details
        assert status["id"] == "tr1" and status["errors"] == 0, board.log()


def test_the_companion_sets_the_brightness(mqtt_companion: LinkedCompanion,
                                           locked_broker: SecureBroker, tmp_path: Path) -> None:
    """``Trackers.set_brightness`` through the real bridge: the retained assignment carries
    the level, the firmware scales every LED by it and reports it in its heartbeat, and a
    tracker that restarts gets it back from the broker."""
    c = mqtt_companion
    me = locked_broker.users["tracker-t1-tr1"]
    settings = {"id": "tr1", "table": "t1", "broker": locked_broker.host,
                "port": locked_broker.port, "user": me.user, "password": me.password,
                "brightness": 1.0, "pulse_ms": 0, "heartbeat_s": 2,
                "backoff_min_ms": 100, "backoff_max_ms": 1000}
    half = hp(12, (0, 112, 0), (7, 2, 2))
    with TrackerEmulator(settings, tmp_path / "tr1") as board:
        until(lambda: "tr1" in c.links.trackers, timeout=20)
        board.wait_for(lambda pixels: list(pixels) == hp(12, GREEN, ANN_GLOW), timeout=20)
        c.links.trackers.set_brightness("tr1", 0.5)
        board.wait_for(lambda pixels: list(pixels) == half)
        until(lambda: c.links.trackers.trackers()[0].details.get("brightness") == 0.5)
    with TrackerEmulator(settings, tmp_path / "tr1-again") as board:
        board.wait_for(lambda pixels: list(pixels) == half, timeout=20)
        assert c.links.trackers.trackers()[0].details["errors"] == 0, board.log()


def test_heartbeat_and_last_will(broker: Broker, companion: Companion,
                                 tracker: TrackerEmulator) -> None:
    status = companion.wait_status(lambda s: isinstance(s, dict))
    assert status["id"] == "t1" and status["table"] == TABLE and status["link"] == "mqtt"
    assert status["firmware"] == "0.1.0" and status["free"] > 0 and "rssi" in status
    assert tracker.process is not None
    tracker.process.kill()
    assert companion.wait_status(lambda s: s == "offline") == "offline"
