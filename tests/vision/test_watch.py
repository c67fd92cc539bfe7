"""``runes-vision watch`` as the service runs it: a real process on the locked broker (TLS,
its own user), dice and cards read from a replay folder that changes like a camera's view,
the camera going away and coming back, and SIGTERM."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np
import pytest

from benchmarks.vision_dice import WEBCAM
from companion.demo.samples import card_photo, deck_folder, dice_photo, face_folder
from tests.support.broker import SecureBroker
from tests.support.camera import empty_tray, picture, show
from tests.support.mqtt import Probe, schema_for, validate
from vision.cards.deck import Deck
from vision.cli import main
from vision.dice.cli import make_reader
from vision.tray import Tray
from vision.watch import TrayReader

DICE = {"hammer": 2, "snake": 3, "tree": 1}
CARD = "FRR-FRF-FFR"


@pytest.fixture(scope="module")
def samples(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("samples")
    faces = face_folder(root / "faces")
    deck = deck_folder(root / "deck", [CARD, "Mirror Lake", "RFR-FFF-FFR"])
    reader = TrayReader(make_reader(str(faces)), Deck.load(deck))
    cv2.imwrite(str(root / "dice.png"), dice_photo(DICE, reader))
    cv2.imwrite(str(root / "card.png"), card_photo(CARD, reader))
    return {"faces": faces, "deck": deck, "dice": root / "dice.png", "card": root / "card.png"}


def settings(tmp_path: Path, broker: SecureBroker, samples: dict[str, Path],
             password: str, vision: str = "") -> Path:
    secret = tmp_path / "vision-password"
    secret.write_text(password + "\n")
    path = tmp_path / "companion.toml"
    path.write_text(f"""
[table]
id = "{broker.table}"
[mqtt]
host = "{broker.host}"
port = {broker.tls_port}
tls = true
ca_certs = "{broker.ca}"
[vision]
username = "vision-{broker.table}"
password_file = "{secret}"
faces = "{samples['faces']}"
overlay_width = 320
{vision}
[cards]
deck = "{samples['deck']}"
""")
    return path


@pytest.fixture
def probe(locked_broker: SecureBroker) -> Iterator[Probe]:
    p = Probe(locked_broker.host, locked_broker.port, locked_broker.users["companion-t1"])
    p.connect()
    p.subscribe("runes/t1/vision/#")
    yield p
    p.close()


def test_watch_publishes_dice_and_cards_and_the_camera_s_presence(
        tmp_path: Path, locked_broker: SecureBroker, samples: dict[str, Path],
        probe: Probe) -> None:
    live = tmp_path / "live"
    show(live, samples["dice"])
    config = settings(tmp_path, locked_broker, samples, locked_broker.users["vision-t1"].password)
    log = (tmp_path / "vision.log").open("wb")
    process = subprocess.Popen(
        [sys.executable, "-m", "vision", "watch", "--publish", "--loop", "--fps", "8",
         "--source", str(live), "--config", str(config)],
        stdout=subprocess.PIPE, stderr=log)
    try:
        dice = probe.wait_for(lambda m: m.topic.endswith("/dice"), timeout=60)
        assert json.loads(dice.payload)["counts"] == DICE
        assert probe.latest("runes/t1/vision/status") == "online"

        show(live, samples["card"])
        card = probe.wait_for(lambda m: m.topic.endswith("/card"), timeout=30)
        payload = json.loads(card.payload)
        assert [c["name"] for c in payload["cards"]] == [CARD]
        for key in ("overlay_jpeg", "photo_jpeg"):
            assert picture(payload[key]).shape[1] == 320
        assert len(probe.on("runes/t1/vision/dice")) == 1, "the card's print is no die"
        for message in (dice, card):
            validate(schema_for(message.topic) or "?", json.loads(message.payload))
        # The photo is the plain frame the boxes are in: the screen draws its own outlines.
        frame = cv2.imread(str(samples["card"]))
        photo = picture(payload["photo_jpeg"])
        plain = cv2.resize(frame, (photo.shape[1], photo.shape[0]), interpolation=cv2.INTER_AREA)
        assert np.abs(photo.astype(int) - plain.astype(int)).mean() < 4
        assert payload["size"] == [frame.shape[1], frame.shape[0]]

        shutil.rmtree(live)  # the camera is gone
        probe.latest("runes/t1/vision/status", timeout=10, where=lambda s: s == "offline")
        seen = len(probe.messages)
        show(live, samples["dice"])  # and back, looking at dice
        probe.wait_for(lambda m: m.topic.endswith("/status") and m.payload == b"online",
                       timeout=10, after=seen)
        probe.wait_for(lambda m: m.topic.endswith("/dice"), timeout=30, after=seen)

        process.send_signal(signal.SIGTERM)
        assert process.wait(15) == 0
        probe.latest("runes/t1/vision/status", timeout=5, where=lambda s: s == "offline")
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        log.close()
    lines = [json.loads(line) for line in process.stdout.read().splitlines()]  # type: ignore[union-attr]
    assert [line["counts"] for line in lines if line["dice"]] == [DICE, DICE]
    assert [[c["name"] for c in line["cards"]] for line in lines if line["cards"]] == [[CARD]]


def test_watch_answers_the_companion_s_requests_for_a_preview_and_a_calibration(
        tmp_path: Path, locked_broker: SecureBroker, samples: dict[str, Path],
        probe: Probe) -> None:
    """The Settings screen's side of the camera, which belongs to the vision process: a
    preview while asked for, and tray calibrations from the next frame, answered and kept."""
    live = tmp_path / "live"
    cv2.imwrite(str(tmp_path / "markers.png"), empty_tray(markers=True))
    show(live, tmp_path / "markers.png")
    tray_file = tmp_path / "state" / "tray.json"
    config = settings(tmp_path, locked_broker, samples, locked_broker.users["vision-t1"].password,
                      vision=f'tray = "{tray_file}"\npreview_fps = 10')
    log = (tmp_path / "vision.log").open("wb")
    process = subprocess.Popen(
        [sys.executable, "-m", "vision", "watch", "--publish", "--loop", "--fps", "8",
         "--source", str(live), "--config", str(config)],
        stdout=subprocess.DEVNULL, stderr=log)

    def ask(request: dict[str, object], ident: str) -> dict[str, object]:
        seen = len(probe.messages)
        probe.publish("runes/t1/vision/cmd", json.dumps({"schema": 1, **request, "id": ident}))
        answer = probe.wait_for(lambda m: m.topic.endswith("/cmd/result")
                                and json.loads(m.payload).get("id") == ident,
                                timeout=20, after=seen)
        document: dict[str, object] = json.loads(answer.payload)
        validate("vision-cmd-result", document)
        return document

    try:
        probe.latest("runes/t1/vision/status", timeout=30, where=lambda s: s == "online")
        assert not probe.on("runes/t1/vision/preview"), "no preview until one is asked for"
        assert ask({"preview": 600}, "p1") == {"schema": 1, "ok": True, "id": "p1",
                                                "preview": 60.0}
        frame = probe.wait_for(lambda m: m.topic.endswith("/preview"), timeout=10)
        preview = json.loads(frame.payload)
        validate("vision-preview", preview)
        assert preview["size"] == [640, 480] and picture(preview["photo_jpeg"]).shape == (360, 480, 3)

        calibrated = ask({"calibrate": "tray"}, "c1")
        assert calibrated["ok"] and calibrated["markers"] and calibrated["empty"], calibrated
        assert calibrated["file"] == str(tray_file)
        tray = Tray.load(tray_file)
        assert tray.homography is not None and list(tray.size or ()) == calibrated["size"]
        retaken = ask({"calibrate": "empty"}, "c2")
        assert retaken["ok"] and retaken["markers"], "the markers' warp is kept"

        refused = ask({"calibrate": "table"}, "c3")
        assert not refused["ok"] and "tray, empty" in str(refused["error"])
        assert not ask({"focus": 3}, "x")["ok"]
        assert not ask({"preview": "long"}, "p2")["ok"]

        stopped = ask({"preview": 0}, "p3")
        assert stopped["ok"] and stopped["preview"] == 0
        after_stop = len(probe.messages)
        ask({"calibrate": "empty"}, "c4")  # served with a later frame
        late = [m for m in probe.messages[after_stop:] if m.topic.endswith("/preview")]
        assert len(late) <= 1, "the preview stops (one frame may have been on its way)"
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(15)
        log.close()
    assert "tray calibrated" in (tmp_path / "vision.log").read_text()


def test_a_vision_user_without_its_password_is_a_clear_error(
        tmp_path: Path, locked_broker: SecureBroker, samples: dict[str, Path],
        capsys: pytest.CaptureFixture[str]) -> None:
    config = settings(tmp_path, locked_broker, samples, "x")
    (tmp_path / "vision-password").unlink()
    assert main(["watch", "--publish", "--source", str(tmp_path), "--config", str(config)]) == 2
    assert "[vision] password_file" in capsys.readouterr().err


def test_watch_tells_systemd_it_is_ready_and_alive_even_without_a_camera(
        tmp_path: Path, samples: dict[str, Path]) -> None:
    """The unit is Type=notify with WatchdogSec=: READY once the source is open, pings from
    the loop itself (also while the camera is away), STOPPING on SIGTERM."""
    notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    notify.bind(str(tmp_path / "notify"))
    notify.settimeout(30)
    live = tmp_path / "live"
    show(live, samples["dice"])
    config = tmp_path / "companion.toml"
    config.write_text(f'[vision]\nfaces = "{samples["faces"]}"\n')
    process = subprocess.Popen(
        [sys.executable, "-m", "vision", "watch", "--loop", "--fps", "20", "--source", str(live),
         "--config", str(config)],
        env={**os.environ, "NOTIFY_SOCKET": str(tmp_path / "notify"), "WATCHDOG_USEC": "200000"},
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        assert notify.recv(200).decode().startswith("READY=1")
        assert notify.recv(200) == b"WATCHDOG=1"
        shutil.rmtree(live)  # no frames: the loop still turns, and says so
        for _ in range(3):
            assert notify.recv(200) == b"WATCHDOG=1"
        process.send_signal(signal.SIGTERM)
        while (message := notify.recv(200)) == b"WATCHDOG=1":
            pass
        assert message == b"STOPPING=1"
        assert process.wait(15) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        notify.close()


@pytest.mark.parametrize(("setting", "named"), [
    ('[mqtt]\ntls = true\nca_certs = "{tmp}/no-such-ca.crt"\n', "[mqtt] ca_certs"),
    ("[vision]\nsettle_frames = 0\n", "[vision] settle_frames"),
    ("[camera]\nfps = -1\n", "[camera] fps"),
    ('[table]\nid = "a/b"\n', "[table] id"),
])
def test_a_wrong_setting_is_named_not_a_traceback(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], setting: str, named: str) -> None:
    config = tmp_path / "companion.toml"
    config.write_text(setting.format(tmp=tmp_path))
    assert main(["watch", "--publish", "--source", str(tmp_path), "--config", str(config)]) == 2
    assert named in capsys.readouterr().err


def test_a_camera_at_the_far_side_is_turned_as_the_settings_say(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``[camera] turn = 180``: every frame is turned before it is read (and calibrated,
    and previewed), so a camera on the far side reads as one on the near side: two 1s that
    read otherwise upside down (a front face above one, and no die alone in its blob nor a
    face plainly flatter above another to say that the camera is at the top)."""
    replay = tmp_path / "replay"
    replay.mkdir()
    far_side = cv2.rotate(cv2.imread(str(WEBCAM / "Train" / "dice_13.jpg")), cv2.ROTATE_180)
    for name in ("a.png", "b.png"):
        cv2.imwrite(str(replay / name), far_side)
    counts = {}
    for turn in (0, 180):
        config = tmp_path / f"turn-{turn}.toml"
        config.write_text(f'[journal]\npath = "{tmp_path / "journal.sqlite"}"\n'
                          f"[camera]\nturn = {turn}\n")  # (no tray calibration beside it)
        assert main(["watch", "--source", str(replay), "--config", str(config), "--frames", "1"]) == 0
        (line,) = capsys.readouterr().out.splitlines()
        counts[turn] = json.loads(line)["counts"]
    assert counts[180] == {"1": 2}
    assert counts[0] != counts[180]


def test_a_camera_at_the_far_side_is_learnt_with_turn_auto(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``[camera] turn = "auto"``: a camera on the far side is read as it
    comes until its rolls have said which way is up, then turned: every roll after that
    reads as the same photo upright does, six that read otherwise upside down too. The
    turn is kept in the state directory: started again, the camera reads right at once."""
    replay = tmp_path / "replay"
    replay.mkdir()
    photos = sorted((WEBCAM / "Valid").glob("*.jpg"))[:30] + [
        WEBCAM / "Train" / f"{name}.jpg"
        for name in ("dice_20", "four_15", "dice_31", "six_61", "dice_13", "dice_27")]
    reader = make_reader()
    upright, upside_down = [], []
    for k, path in enumerate(photos):
        image = cv2.imread(str(path))
        upright.append(reader.read(image).counts)
        far_side = cv2.rotate(image, cv2.ROTATE_180)
        upside_down.append(reader.read(far_side).counts)
        for copy in "ab":  # a roll: the dice moving in, then still
            cv2.imwrite(str(replay / f"{k:02d}{copy}.png"), far_side)
    config = tmp_path / "auto.toml"
    config.write_text(f'[journal]\npath = "{tmp_path / "journal.sqlite"}"\n'
                      '[camera]\nturn = "auto"\n')
    assert main(["watch", "--source", str(replay), "--config", str(config), "--frames", "1"]) == 0
    out = capsys.readouterr()
    (learnt,) = re.findall(r"frames are turned 180° clockwise after frame (\d+)", out.err)
    read = {roll["frame"] // 2: roll["counts"] for roll in map(json.loads, out.out.splitlines())}
    after = range(int(learnt) // 2 + 1, len(photos))
    assert len(after) >= 6
    assert [read[k] for k in after] == [upright[k] for k in after]
    assert all(upside_down[k] != upright[k] for k in range(30, len(photos)))

    assert (tmp_path / "camera-turn.txt").read_text() == "180\n"
    for name in sorted(replay.iterdir())[:60]:
        name.unlink()
    assert main(["watch", "--source", str(replay), "--config", str(config), "--frames", "1"]) == 0
    out = capsys.readouterr()
    assert "frames are turned" not in out.err
    assert [roll["counts"] for roll in map(json.loads, out.out.splitlines())] == upright[30:]


@pytest.mark.parametrize("kept", [b"\xff\xfe\x00garbage", b"45\n", b""])
def test_a_garbled_turn_learnt_starts_from_no_turn(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], kept: bytes) -> None:
    """``camera-turn.txt`` is only a head start: one that holds bytes that are no text, a
    turn that is none, or nothing, is read as no turn, and the camera reads as it comes."""
    replay = tmp_path / "replay"
    replay.mkdir()
    image = cv2.imread(str(WEBCAM / "Valid" / "valid_1.jpg"))
    for copy in "ab":
        cv2.imwrite(str(replay / f"{copy}.png"), image)
    (tmp_path / "camera-turn.txt").write_bytes(kept)
    config = tmp_path / "auto.toml"
    config.write_text(f'[journal]\npath = "{tmp_path / "journal.sqlite"}"\n'
                      '[camera]\nturn = "auto"\n')
    assert main(["watch", "--source", str(replay), "--config", str(config), "--frames", "1"]) == 0
    (line,) = capsys.readouterr().out.splitlines()
    assert json.loads(line)["counts"] == make_reader().read(image).counts
