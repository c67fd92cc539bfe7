"""Frame sources, the tray calibration and publishing, with real files and a real broker."""

from __future__ import annotations

import base64
import json
import threading
from pathlib import Path

import cv2
import numpy as np
import paho.mqtt.client as mqtt
import pytest

from companion.mqtt.client import MqttConfig
from tests.support.broker import Broker
from vision.cli import main
from vision.dice.cli import overlay
from vision.dice.reader import DiceReader
from vision.dice.render import render_scene
from vision.publish import VisionPublisher
from vision.sources import CameraSource, ReplaySource, open_source
from vision.tray import Tray, calibrate, marker_sheet


def test_a_missing_camera_is_reported_and_retried_never_raised() -> None:
    now = [0.0]
    camera = CameraSource(97, retry=2.0, clock=lambda: now[0])
    assert camera.read() is None and camera.error and not camera.connected
    error = camera.error
    now[0] = 1.0
    assert camera.read() is None  # not tried again before `retry` seconds
    now[0] = 2.5
    assert camera.read() is None and camera.error == error
    camera.close()


def test_replay_of_a_folder_skips_unreadable_files(tmp_path: Path) -> None:
    for i in range(3):
        cv2.imwrite(str(tmp_path / f"f{i}.png"), np.full((8, 8, 3), i * 50, np.uint8))
    (tmp_path / "f1b.png").write_text("broken")
    frames = list(ReplaySource(tmp_path).frames())
    assert [int(f[0, 0, 0]) for f in frames] == [0, 50, 100]


def test_replay_of_a_video(tmp_path: Path) -> None:
    path = tmp_path / "roll.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10, (64, 48))
    for i in range(5):
        writer.write(np.full((48, 64, 3), i * 40, np.uint8))
    writer.release()
    assert len(list(open_source(str(path)).frames())) == 5
    with pytest.raises(FileNotFoundError):
        open_source(str(tmp_path / "none"))
    with pytest.raises(ValueError):
        open_source("usb:x")


def marked_tray_photo() -> np.ndarray:
    """A photo, at a slant, of an empty tray with the four corner markers."""
    tray = np.full((600, 800, 3), 200, np.uint8)
    for marker, (x, y) in zip(marker_sheet(80), [(0, 0), (688, 0), (688, 488), (0, 488)]):
        tray[y:y + 112, x:x + 112] = cv2.cvtColor(marker, cv2.COLOR_GRAY2BGR)
    src = np.float32([[0, 0], [800, 0], [800, 600], [0, 600]])
    dst = np.float32([[60, 40], [760, 80], [720, 580], [90, 520]])
    return cv2.warpPerspective(tray, cv2.getPerspectiveTransform(src, dst), (820, 620),
                               borderValue=(90, 90, 90))


def test_aruco_calibration_gives_a_top_down_view(tmp_path: Path) -> None:
    frame = marked_tray_photo()
    calibrated = calibrate(frame, width=480)
    assert calibrated.homography is not None and calibrated.empty is not None
    w, h = calibrated.size  # type: ignore[misc]
    assert w == 480 and abs(h / w - 408 / 608) < 0.03  # the inner corners' rectangle
    calibrated.save(tmp_path / "tray.json")
    loaded = Tray.load(tmp_path / "tray.json")
    assert np.allclose(loaded.homography, calibrated.homography)  # type: ignore[arg-type]
    assert loaded.view(frame).shape == (h, w, 3)


def test_turning_frames_with_a_marker_calibration_is_said_to_change_nothing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The markers' warp gives the same view however the frame was turned: ``--turn``
    would do nothing, and says so (it is honoured without markers)."""
    frame = marked_tray_photo()
    calibrate(frame, width=480).save(tmp_path / "tray.json")
    cv2.imwrite(str(tmp_path / "tray.png"), frame)
    for turn, said in (("0", False), ("180", True)):
        assert main(["dice", str(tmp_path / "tray.png"), "--tray", str(tmp_path / "tray.json"),
                     "--turn", turn, "--json"]) == 0
        assert ("the markers decide which way is up" in capsys.readouterr().err) == said


def test_publisher_sends_settled_readings_with_the_overlay(broker: Broker) -> None:
    scene = render_scene(13, count=5, width=640, height=480, blur=0.0, glare=0.0)
    reading = DiceReader().read(scene.image)
    got: list[mqtt.MQTTMessage] = []
    done = threading.Event()
    sub = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
    sub.on_message = lambda c, u, m: (got.append(m), done.set() if m.topic.endswith("dice") else None)
    sub.on_connect = lambda c, u, f, r, p: c.subscribe("runes/t1/vision/#", qos=1)
    sub.connect(broker.host, broker.port)
    sub.loop_start()
    publisher = VisionPublisher("t1", MqttConfig(host=broker.host, port=broker.port))
    publisher.start()
    try:
        for _ in range(100):
            if publisher.connected and sub.is_connected():
                break
            threading.Event().wait(0.05)
        publisher.publish("dice", reading.to_json(), size=reading.size,
                          overlay=overlay(scene.image, reading))
        assert done.wait(10)
    finally:
        publisher.stop()
        sub.loop_stop()
    message = next(m for m in got if m.topic == "runes/t1/vision/dice")
    payload = json.loads(message.payload)
    assert payload["counts"] == reading.counts and payload["seq"] == 1
    assert len(payload["dice"]) == len(reading.dice) and payload["size"] == [640, 480]
    picture = cv2.imdecode(np.frombuffer(base64.b64decode(payload["overlay_jpeg"]), np.uint8),
                           cv2.IMREAD_COLOR)
    assert picture.shape == (480, 640, 3)
    assert any(m.topic == "runes/t1/vision/status" and m.payload == b"online" for m in got)
