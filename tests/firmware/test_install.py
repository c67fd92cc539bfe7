"""The setup script puts the firmware and a board's settings on a board with mpremote.

The board is the MicroPython unix port's REPL behind a pty (mpremote opens the other end as it
opens /dev/ttyACM0); its working directory plays the board's flash.
"""

from __future__ import annotations

import json
import os
import pty
import subprocess
import tty
from collections.abc import Iterator
from pathlib import Path

import pytest

from companion.firmware import FIRMWARE_DIR
from companion.firmware.emulator import micropython_command
from companion.firmware.install import InstallError, TrackerSetup, board_settings, main
from tests.support.firmware import run_micropython


@pytest.fixture(autouse=True)
def no_settings_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The user's own settings file must not leak into these tests."""
    monkeypatch.setenv("RUNES_CONFIG", str(tmp_path / "absent.toml"))


@pytest.fixture
def board(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    flash = tmp_path / "flash"
    flash.mkdir()
    (flash / "main.py").write_text("print('the old firmware')\n")
    usb, host = pty.openpty()
    tty.setraw(host)
    process = subprocess.Popen([micropython_command()], stdin=usb, stdout=usb,
                               stderr=subprocess.DEVNULL, cwd=flash)
    os.close(usb)
    yield os.ttyname(host), flash
    process.kill()
    process.wait()
    os.close(host)


def test_the_firmware_and_settings_land_on_the_board(board: tuple[str, Path],
                                                     monkeypatch: pytest.MonkeyPatch,
                                                     tmp_path: Path) -> None:
    port, flash = board
    settings_file = tmp_path / "companion.toml"
    settings_file.write_text('[table]\nid = "kitchen"\n[tracker_setup]\nbroker = "10.0.0.2"\n'
                             'wifi_ssid = "home"\nwifi_password = "secret"\n')
    monkeypatch.setenv("RUNES_CONFIG", str(settings_file))
    assert main(["--port", port, "--id", "ann", "--seat", "2", "--set", "leds=16",
                 "--set", "tier_colours=[\"#110000\", \"#001100\", \"#000011\"]",
                 "--no-libs", "--no-reset"]) == 0

    assert (flash / "main.py").read_bytes() == (FIRMWARE_DIR / "main.py").read_bytes()
    for module in (FIRMWARE_DIR / "tracker").glob("*.py"):
        assert (flash / "tracker" / module.name).read_bytes() == module.read_bytes()
    assert not (flash / "tracker" / "__pycache__").exists()
    assert json.loads((flash / "secrets.json").read_text()) == {
        "id": "ann", "mode": "mqtt", "seat": 2, "leds": 16, "table": "kitchen",
        "broker": "10.0.0.2", "port": 1883, "wifi_ssid": "home", "wifi_password": "secret",
        "tier_colours": ["#110000", "#001100", "#000011"]}
    # The firmware reads them back without a complaint.
    loaded = run_micropython(f"""
c, problems = config.load({str(flash / "secrets.json")!r}, "esp32")
report(id=c["id"], table=c["table"], broker=c["broker"], leds=c["leds"], pin=c["pin"],
       problems=problems)
""")
    assert loaded == {"id": "ann", "table": "kitchen", "broker": "10.0.0.2", "leds": 16,
                      "pin": 18, "problems": []}


def test_nothing_is_copied_when_a_setting_is_wrong(board: tuple[str, Path],
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    port, flash = board
    assert main(["--port", port, "--id", "t1", "--mode", "serial", "--set", "leds=many",
                 "--no-reset"]) == 1
    assert "secrets.json: leds must be like 12, got 'many'" in capsys.readouterr().err
    assert sorted(p.name for p in flash.iterdir()) == ["main.py"]


@pytest.mark.parametrize(("tracker_id", "mode", "error"), [
    ("a/b", "serial", "tracker id 'a/b': use 1 to 32 letters"),
    ("t1", "mqtt", "no Wi-Fi network"),
])
def test_bad_board_settings(tracker_id: str, mode: str, error: str) -> None:
    with pytest.raises(InstallError, match=error):
        board_settings(TrackerSetup(), tracker_id, mode=mode)


def test_dry_run_lists_the_steps(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--id", "t9", "--wifi-ssid", "home", "--port", "/dev/ttyACM0",
                 "--dry-run"]) == 0
    out = capsys.readouterr().out
    steps = [line for line in out.splitlines() if line.startswith("mpremote ")]
    assert len(steps) == 3
    assert "os.remove" in steps[0] and steps[0].endswith("+ reset")
    assert "mip install umqtt.simple" in steps[1] and steps[1].endswith(":main.py")
    assert steps[2] == "mpremote connect /dev/ttyACM0 resume reset"
