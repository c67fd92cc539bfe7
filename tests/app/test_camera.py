"""The camera in the app, on the locked broker with the real camera process.

``runes-vision watch --publish`` replays a folder the test changes like the camera's
view; the app, in links mode, shows its presence in the status corner, its settled
readings as the photo with each die outlined and labelled (a tap corrects a die, one
tap confirms), its preview on Settings' Camera tab, and the tray calibration it makes
when asked. With ``[vision] auto_confirm``, a reading the companion played is a notice,
not a question.
"""

from __future__ import annotations

import base64
import json
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.app.display import VirtualScreen
from companion.core.journal import Journal
from companion.demo.samples import dice_photo, face_folder
from companion.table import Table
from tests.app.conftest import AppDriver
from tests.support.broker import SecureBroker
from tests.support.camera import empty_tray, show
from tests.support.mqtt import Probe
from tests.support.wait import until
from vision.dice.cli import make_reader
from vision.tray import Tray
from vision.watch import TrayReader

RUNECAST = "runecast players=Ann,Bob,Cid seed=5"
ROLL = {"hammer": 2, "snake": 3, "tree": 3}
"""Ann's eight dice, as the camera sees them."""


@pytest.fixture(scope="module")
def photos(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("photos")
    faces = face_folder(root / "faces")
    cv2.imwrite(str(root / "dice.png"), dice_photo(ROLL, TrayReader(make_reader(str(faces)))))
    cv2.imwrite(str(root / "empty.png"), empty_tray())
    cv2.imwrite(str(root / "markers.png"), empty_tray(markers=True))
    return {"faces": faces, "dice": root / "dice.png", "markers": root / "markers.png",
            "empty": root / "empty.png"}


def settings(tmp_path: Path, broker: SecureBroker, faces: Path, *, auto_confirm: bool = False
             ) -> str:
    """One settings file for the app and the camera process, each as its own broker user."""
    for user in ("companion-t1", "vision-t1"):
        (tmp_path / f"{user}.password").write_text(broker.users[user].password)
    return f"""
[app]
hardware = "links"
[table]
id = "t1"
[mqtt]
host = "{broker.host}"
port = {broker.broker.port}
username = "companion-t1"
password_file = "{tmp_path / 'companion-t1.password'}"
homeassistant = false
[vision]
username = "vision-t1"
password_file = "{tmp_path / 'vision-t1.password'}"
auto_confirm = {str(auto_confirm).lower()}
faces = "{faces}"
tray = "{tmp_path / 'state' / 'tray.json'}"
overlay_width = 320
preview_fps = 5
"""


def runecast(tmp_path: Path, *commands: str) -> None:
    """The game the app resumes: Runecast, with ``commands`` played."""
    table = Table(Journal(tmp_path / "journal.sqlite"), table_id="t1")
    table.start("runecast", RUNECAST)
    for command in commands:
        assert table.execute(command).ok, command
    table.journal.close()


@pytest.fixture
def camera(tmp_path: Path, locked_broker: SecureBroker, photos: dict[str, Path]
           ) -> Iterator[tuple[AppDriver, Path, subprocess.Popen[bytes]]]:
    """The app on a Runecast game and the camera process watching ``live``, the folder."""
    runecast(tmp_path)
    text = settings(tmp_path, locked_broker, photos["faces"])
    (tmp_path / "companion.toml").write_text(text)
    live = tmp_path / "live"
    show(live, photos["empty"])  # an empty tray: nothing to read
    log = (tmp_path / "vision.log").open("wb")
    process = subprocess.Popen(
        [sys.executable, "-m", "vision", "watch", "--publish", "--loop", "--fps", "8",
         "--source", str(live), "--config", str(tmp_path / "companion.toml")],
        stdout=subprocess.DEVNULL, stderr=log)
    with VirtualScreen() as screen:
        app = AppDriver(screen, tmp_path, settings=text)
        try:
            yield app, live, process
        finally:
            app.close()
            if process.poll() is None:
                process.kill()
                process.wait()
            log.close()


def shown_photo(app: AppDriver, path: Path, size: tuple[int, int]) -> np.ndarray:
    """What the camera screen shows of a photo of ``size``, from a screenshot of the window."""
    assert app.ask("screenshot", path=str(path))["ok"]
    window = cv2.imread(str(path))
    where = app.find("photo")
    scale = min(where["w"] / size[0], where["h"] / size[1])
    w, h = round(size[0] * scale), round(size[1] * scale)
    x, y = round(where["x"] - w / 2), round(where["y"] - h / 2)
    return window[y:y + h, x:x + w]  # type: ignore[no-any-return]


def likeness(a: np.ndarray, b: np.ndarray) -> float:
    """How alike two pictures are, coarsely: the correlation of their small grey versions."""
    small = [cv2.resize(cv2.cvtColor(p, cv2.COLOR_BGR2GRAY), (32, 24),
                        interpolation=cv2.INTER_AREA).astype(float).ravel() for p in (a, b)]
    return float(np.corrcoef(small[0], small[1])[0, 1])


def test_the_camera_s_photo_status_preview_and_calibration(
        camera: tuple[AppDriver, Path, subprocess.Popen[bytes]], photos: dict[str, Path],
        tmp_path: Path) -> None:
    app, live, process = camera
    # The status corner follows the camera process's vision/status.
    until(lambda: app.view()["devices"].get("camera") is True, timeout=30)
    assert app.view()["screen"] == "table_runecast"

    # Dice on the tray: the photo itself, each die outlined and labelled.
    show(live, photos["dice"])
    until(lambda: app.view()["screen"] == "camera", timeout=30)
    faces = [app.find(f"die:{i}")["text"].rstrip("?") for i in range(8)]
    assert sorted(faces) == sorted(f for f, n in ROLL.items() for _ in range(n))
    assert not app.ask("find", tag="die:8")["ok"]
    expected = cv2.imread(str(photos["dice"]))
    seen = shown_photo(app, tmp_path / "window.png", (640, 480))
    assert likeness(seen, expected) > 0.8, "the screen shows the photo the dice were read from"
    # The photo came at half the frame's width: the boxes were scaled to it.
    photo = app.find("photo")
    left, right = photo["x"] - seen.shape[1] / 2, photo["x"] + seen.shape[1] / 2
    top, bottom = photo["y"] - seen.shape[0] / 2, photo["y"] + seen.shape[0] / 2
    for i in range(8):
        die = app.find(f"die:{i}")
        assert left < die["x"] < right and top < die["y"] < bottom, f"die {i} off the photo"

    # A misread die corrected with taps, then one tap enters the roll.
    first = faces[0]
    app.click("die:0")
    corrected = app.find("die:0")["text"]
    assert corrected != first and not corrected.endswith("?")
    app.click("confirm")
    counts = {"hammers": ROLL["hammer"], "snakes": ROLL["snake"], "trees": ROLL["tree"]}
    counts[f"{first}s"] -= 1
    counts[f"{corrected}s"] += 1
    assert app.engine()["roll"] == counts
    assert app.view()["screen"] == "table_runecast"

    # Settings: the camera's preview, and the tray calibrated from it (with the corner
    # markers in view: whatever the camera makes of them waits behind the Camera button).
    app.click("status_corner")
    show(live, photos["markers"])
    app.click("tab:camera")
    until(lambda: app.view()["preview_frames"] >= 2, timeout=20)
    app.click("calibrate")
    until(lambda: app.find("calibration")["text"].startswith("Tray calibrated"), timeout=20)
    assert "corner markers were found" in app.find("calibration")["text"]
    tray = Tray.load(tmp_path / "state" / "tray.json")
    assert tray.homography is not None and tray.empty is not None
    app.click("calibrate_empty")
    until(lambda: "corner markers were found" in app.find("calibration")["text"]
          and not app.find("calibrate_empty")["disabled"], timeout=20)
    app.click("tab:trackers")  # the preview stops with the Camera tab
    frames = app.view()["preview_frames"]
    app.click("tab:broker")
    assert app.view()["preview_frames"] <= frames + 1

    # The camera process stops: the corner says so, and the game goes on.
    process.send_signal(signal.SIGTERM)
    assert process.wait(15) == 0
    until(lambda: app.view()["devices"].get("camera") is False, timeout=10)


def reading(faces: dict[str, int], photo: Path) -> bytes:
    """A settled dice reading with its photo, as the camera process sends it."""
    listed = [face for face, n in faces.items() for _ in range(n)]
    jpeg = base64.b64encode(cv2.imencode(".jpg", cv2.imread(str(photo)))[1].tobytes()).decode()
    return json.dumps({"schema": 1, "seq": 1, "time": 0.0, "size": [640, 480],
                       "dice": [{"face": f, "box": [20 + 70 * i, 30, 60, 60], "confidence": 0.9}
                                for i, f in enumerate(listed)],
                       "counts": faces, "photo_jpeg": jpeg}).encode()


@pytest.fixture
def auto_played(tmp_path: Path, locked_broker: SecureBroker, photos: dict[str, Path]
                ) -> Iterator[tuple[AppDriver, Probe]]:
    """The app on a Runecast game with ``[vision] auto_confirm``, connected to the broker,
    and a probe publishing as the camera process."""
    runecast(tmp_path)
    text = settings(tmp_path, locked_broker, photos["faces"], auto_confirm=True)
    camera = Probe(locked_broker.host, locked_broker.port, locked_broker.users["vision-t1"])
    camera.connect()
    with VirtualScreen() as screen:
        app = AppDriver(screen, tmp_path, settings=text)
        try:
            until(lambda: app.view()["devices"].get("broker") is True, timeout=15)
            yield app, camera
        finally:
            app.close()
            camera.close()


SHOWN = 6.0
"""How long the app shows a message (``RunesApp.MESSAGE_SECONDS``; the app runs in its own
process, so Kivy is not imported here)."""


def test_a_message_said_just_before_the_last_ones_time_is_up_stays_its_own_time(
        auto_played: tuple[AppDriver, Probe], photos: dict[str, Path]) -> None:
    """A notice, then an error said before the notice's time is up: the error is shown for
    its own time, not wiped when the notice's runs out (a CI run lost a message this way,
    said just after a played roll's notice)."""
    app, camera = auto_played
    camera.publish("runes/t1/vision/dice", reading(ROLL, photos["dice"]))
    until(lambda: app.view()["message"].startswith("Camera: Ann rolls"))
    notice, notice_text = time.monotonic(), app.view()["message"]
    time.sleep(SHOWN - 3)
    # A second roll for Ann, asked (not the game's to play), confirmed: refused.
    camera.publish("runes/t1/vision/dice", reading({"snake": 1}, photos["dice"]))
    until(lambda: app.view()["screen"] == "camera")
    app.click("confirm")
    until(lambda: app.view()["message"] not in ("", notice_text))
    error = app.view()["message"]
    assert time.monotonic() < notice + SHOWN, "said before the notice's time was up"
    time.sleep(notice + SHOWN + 1 - time.monotonic())
    assert app.view()["message"] == error


def test_readings_the_companion_played_are_told_not_asked(
        auto_played: tuple[AppDriver, Probe], photos: dict[str, Path]) -> None:
    """[vision] auto_confirm: a sure reading is played at once, and the screen says what it
    did; half of Loki's roll is held; a reading the game refuses is shown with the reason."""
    app, camera = auto_played
    camera.publish("runes/t1/vision/dice", reading({"hammer": 1, "snake": 2, "tree": 5},
                                                   photos["dice"]))
    until(lambda: app.engine()["roll"] == {"hammers": 1, "snakes": 2, "trees": 5})
    until(lambda: app.view()["message"].startswith("Camera: Ann rolls"))
    assert app.view()["screen"] == "table_runecast", "played: nothing to confirm"
    app.click("history")
    assert "Ann rolls" in app.find("goto:1")["text"]
    app.click("back")

    for _ in range(3):  # Bob and Cid roll by hand: Loki's phase
        app.click("next")
        if app.engine()["phase"] == "turn":
            app.click("roll")
            pool = next(h for h in app.engine()["players"] if h["active"])["dice_pool"]
            app.click("trees:plus", times=pool, delay_ms=40)
            app.click("enter_roll")
    assert app.engine()["phase"] == "loki"
    pool = app.engine()["loki_pool"]

    # Loki's dice without hammers need no card: played, but too few for the pool.
    camera.publish("runes/t1/vision/dice", reading({"snake": 1}, photos["dice"]))
    until(lambda: app.view()["screen"] == "camera")
    assert app.view()["message"].startswith("The camera's reading was not played")
    assert f"{pool} dice" in app.view()["message"]
    app.click("discard")

    # Loki's dice with hammers wait for the Loki's Chosen card: held, and said so.
    camera.publish("runes/t1/vision/dice", reading(
        {"hammer": 1, "snake": 1, "tree": pool - 2}, photos["dice"]))
    until(lambda: "kept until the Loki's Chosen card" in app.view()["message"])
    assert app.view()["screen"] == "table_runecast"
    camera.publish("runes/t1/vision/card", json.dumps({
        "schema": 1, "seq": 2, "time": 0.0, "size": [640, 480],
        "cards": [{"name": "FRR-FRF-FFR", "corners": [[0, 0], [9, 0], [9, 9], [0, 9]],
                   "confidence": 0.9}]}))
    until(lambda: app.engine()["phase"] == "turn" and app.engine()["round"] == 2)
    until(lambda: app.view()["message"].startswith("Camera: Loki")
          and "kept" not in app.view()["message"])
    assert app.view()["screen"] == "table_runecast"
