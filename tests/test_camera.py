"""The camera process as the companion hears it, on the locked broker: its presence, and
settled readings played at once with ``[vision] auto_confirm``."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest

from companion.camera import CameraLink, CameraReading
from companion.config import ConfigError
from companion.core.journal import Journal
from companion.links import Links
from companion.mqtt import MqttBridge, MqttConfig
from companion.table import Table
from tests.support.broker import SecureBroker
from tests.support.mqtt import Companion, Probe
from tests.support.wait import until
from vision.settings import VisionConfig

RUNECAST = ("runecast players=Ann,Bob,Cid fates=FRR,FRF,FFR seed=1 "
            "boards=\"Frost Giant Vanguard,Hel's Gate,Fenrir Unchained\"")


@pytest.fixture
def companion(tmp_path: Path, locked_broker: SecureBroker) -> Iterator[Companion]:
    c = Companion(tmp_path, locked_broker, setup=RUNECAST,
                  vision=VisionConfig(auto_confirm=True)).start()
    yield c
    c.stop()


@pytest.fixture
def camera(locked_broker: SecureBroker) -> Iterator[Probe]:
    """The vision process's side: its own user, which may only write its readings."""
    p = Probe(locked_broker.host, locked_broker.port, locked_broker.users["vision-t1"])
    p.connect()
    yield p
    p.close()


def dice(camera: Probe, **counts: int) -> None:
    faces = [face for face, n in counts.items() for _ in range(n)]
    reading = {"schema": 1, "seq": 1, "counts": counts,
               "dice": [{"face": f, "box": [10 * i, 10, 8, 8], "confidence": 0.9}
                        for i, f in enumerate(faces)]}
    camera.publish("runes/t1/vision/dice", json.dumps(reading))


def card(camera: Probe, name: str) -> None:
    reading = {"schema": 1, "seq": 2, "cards": [
        {"name": name, "corners": [[0, 0], [9, 0], [9, 9], [0, 9]], "confidence": 0.9}]}
    camera.publish("runes/t1/vision/card", json.dumps(reading))


def state(companion: Companion) -> dict[str, Any]:
    assert companion.table.session is not None
    return companion.table.session.to_json()


def test_readings_are_played_at_once_and_loki_s_roll_is_put_together(
        companion: Companion, camera: Probe, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, "companion.camera")
    link = companion.links.camera
    assert link is not None
    heard: list[CameraReading] = []
    link.when_reading = heard.append  # what a screen hears: every reading, and its fate
    dice(camera, hammer=1, snake=2, tree=5)
    until(lambda: state(companion)["roll"] is not None)
    assert state(companion)["roll"] == {"hammers": 1, "snakes": 2, "trees": 5}
    dice(camera, hammer=1, snake=2, tree=5)  # a hand over the still tray: read again
    until(lambda: caplog.text.count("is left for the screen") == 1)
    assert companion.play("next").ok
    dice(camera, hammer=2, unknown=1, snake=2, tree=3)  # a die it could not read
    until(lambda: caplog.text.count("is left for the screen") == 2)
    assert companion.play("roll 2 2 4").ok, "the unsure reading was not played"
    assert companion.play("next").ok
    dice(camera, hammer=1, snake=2, tree=5)
    until(lambda: state(companion)["roll"] is not None)
    assert companion.play("next").ok
    assert (state(companion)["phase"], state(companion)["loki_pool"]) == ("loki", 6)

    dice(camera, snake=3, tree=1)  # no hammers, no card: played, but 4 dice are not Loki's 6
    until(lambda: "refused" in caplog.text)
    card(camera, "FRR-FRF-FFR")  # drawn before the dice are read: held
    until(lambda: "held until the dice" in caplog.text)
    before = companion.revision
    dice(camera, hammer=2, snake=3, tree=1)
    until(lambda: companion.revision == before + 1)
    loki = state(companion)["last_loki_roll"]
    assert loki["hammers"]["card"] == ["FRR", "FRF", "FFR"] and loki["hammers"]["hit"] == ["Ann"]
    assert state(companion)["round"] == 2
    assert [line for line in caplog.text.splitlines() if "refused" in line
            and "snakes': 3, 'trees': 1}" not in line] == [], "the re-read roll is no second roll"

    until(lambda: len(heard) == 7)
    fates = [("played" if r.result is not None and r.result.ok else "refused" if r.result
              else "held" if r.held else "left") for r in heard]
    assert fates == ["played", "left", "left", "played", "refused", "held", "played"]
    assert [r.settled for r in heard] == [True, False, False, True, False, True, True]
    assert heard[0].played == {"action": "roll", "hammers": 1, "snakes": 2, "trees": 5}
    assert heard[0].result is not None and "Ann rolls" in str(heard[0].result.events[0])
    assert heard[4].result is not None and "6" in (heard[4].result.error or "")
    assert heard[1].document["counts"] == {"hammer": 1, "snake": 2, "tree": 5}


def test_the_camera_s_presence_is_followed(companion: Companion, camera: Probe,
                                           caplog: pytest.LogCaptureFixture) -> None:
    link = companion.links.camera
    assert link is not None and link.online is None
    camera.publish("runes/t1/vision/status", "online", retain=True)
    until(lambda: link.online is True)
    camera.publish("runes/t1/vision/status", "offline", retain=True)
    until(lambda: link.online is False)
    until(lambda: "the camera is offline" in caplog.text)  # logged on paho's thread, just after
    # Readings that are no JSON, or not what a reading holds, change nothing.
    revision = companion.revision
    camera.publish("runes/t1/vision/dice", b"\xff not json")
    camera.publish("runes/t1/vision/dice", json.dumps({"counts": {"hammer": "three"}}))
    camera.publish("runes/t1/vision/card", json.dumps({"cards": "FRR"}))
    assert companion.play("roll 1 2 5").ok and companion.revision == revision + 1


def test_the_companion_asks_the_camera_process_and_hears_its_answers(
        companion: Companion, camera: Probe) -> None:
    link = companion.links.camera
    assert link is not None
    answers: list[dict[str, Any]] = []
    frames: list[dict[str, Any]] = []
    link.when_answer, link.when_preview = answers.append, frames.append
    camera.subscribe("runes/t1/vision/cmd")
    assert link.ask({"calibrate": "empty", "id": "a"})
    assert camera.latest("runes/t1/vision/cmd") == {"schema": 1, "calibrate": "empty", "id": "a"}
    camera.publish("runes/t1/vision/cmd/result", json.dumps(
        {"schema": 1, "ok": True, "id": "a", "calibrate": "empty", "markers": False,
         "empty": True, "size": [640, 480], "file": "/tmp/tray.json"}))
    camera.publish("runes/t1/vision/preview", json.dumps(
        {"schema": 1, "seq": 1, "time": 1.0, "size": [640, 480], "photo_jpeg": "/9j/"}))
    until(lambda: len(answers) == 1 and len(frames) == 1)
    assert answers[0]["id"] == "a" and frames[0]["size"] == [640, 480]


def test_auto_confirm_needs_mqtt(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "journal.sqlite")
    try:
        with pytest.raises(ConfigError, match="auto_confirm"):
            Links(Table(journal), mqtt=MqttConfig(enabled=False),
                  vision=VisionConfig(auto_confirm=True))
    finally:
        journal.close()


@pytest.mark.parametrize("payload, why", [
    (b"[" * 100_000, "is not JSON"),             # nested past Python's recursion limit
    (b"\xff\xfe", "is not UTF-8 text"),
    (b"not json", "is not JSON"),
    (b"[1, 2]", "is not a JSON object"),
])
def test_a_broken_reading_is_dropped_with_a_warning(tmp_path: Path, payload: bytes, why: str,
                                                     caplog: pytest.LogCaptureFixture) -> None:
    journal = Journal(tmp_path / "journal.sqlite")
    try:
        table = Table(journal)
        link = CameraLink(MqttBridge(table, MqttConfig()), table)   # never connected
        heard: list[CameraReading] = []
        link.when_reading = heard.append
        for topic in ("dice", "card"):
            message = mqtt.MQTTMessage(topic=f"runes/table1/vision/{topic}".encode())
            message.payload = payload
            with caplog.at_level(logging.WARNING, logger="companion.camera"):
                (link._on_dice if topic == "dice" else link._on_card)(message)
        assert heard == []
        said = [r.getMessage() for r in caplog.records]
        assert len(said) == 2
        for topic, line in zip(("dice", "card"), said):
            assert line.startswith(f"a camera reading on runes/table1/vision/{topic} that {why}")
    finally:
        journal.close()
