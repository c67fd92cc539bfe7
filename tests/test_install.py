"""What the installer writes on a Pi: a settings file every subsystem accepts."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.config import JournalConfig, load_config, read_section
from companion.firmware.install import TrackerSetup
from companion.links import TrackersConfig
from companion.mqtt.bridge import MqttConfig
from companion.panel.config import PanelConfig
from companion.table import TableConfig
from vision.settings import load_settings

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def installed_settings(tmp_path: Path) -> Path:
    path = tmp_path / "companion.toml"
    path.write_text((ROOT / "systemd" / "companion.toml").read_text().replace("@TABLE@", "kitchen"))
    return path


def test_every_subsystem_accepts_the_installed_settings(installed_settings: Path) -> None:
    config = load_config(installed_settings)
    assert read_section(TableConfig, config.section("table"), "table").id == "kitchen"
    mqtt = read_section(MqttConfig, config.section("mqtt"), "mqtt")
    assert (mqtt.username, mqtt.password_file) == ("companion-kitchen",
                                                   Path("/etc/runes/mqtt-password"))
    read_section(TrackersConfig, config.section("trackers"), "trackers")
    read_section(TrackerSetup, config.section("tracker_setup"), "tracker_setup")
    read_section(PanelConfig, config.section("panel"), "panel")
    read_section(JournalConfig, config.section("journal"), "journal")
    camera, vision = load_settings(installed_settings)
    assert camera.source == "pi"
    # The camera process: the companion's broker, as the user the installer makes for it.
    assert (vision.username, vision.password_file) == ("vision-kitchen",
                                                       Path("/etc/runes/vision-password"))
    assert not vision.auto_confirm


UNITS = sorted((ROOT / "systemd" / "units").iterdir())


@pytest.mark.parametrize("unit", UNITS, ids=lambda p: p.name)
def test_every_unit_passes_systemd_analyze_verify(unit: Path, tmp_path: Path) -> None:
    """The units as the installer writes them (pointing at this checkout's virtualenv)."""
    import subprocess

    for source in UNITS:  # a timer is verified together with its service
        (tmp_path / source.name).write_text(source.read_text().replace("@PREFIX@", str(ROOT)))
    done = subprocess.run(["systemd-analyze", "verify", str(tmp_path / unit.name)],
                          capture_output=True, text=True)
    # Unknown keys and bad values are only warnings (exit 0): any output is a failure.
    assert done.returncode == 0 and not done.stderr.strip() and not done.stdout.strip(), (
        done.stdout + done.stderr)


def test_the_units_ask_for_what_the_issue_names() -> None:
    text = {p.name: p.read_text() for p in UNITS}
    for name in ("runes-companion.service", "runes-service.service", "runes-vision.service"):
        for line in ("Type=notify", "Restart=on-failure", "WatchdogSec=", "ProtectSystem=strict",
                     "ProtectHome=yes", "NoNewPrivileges=yes", "StateDirectory=runes",
                     "After=mosquitto.service", "Wants=mosquitto.service"):
            assert line in text[name], f"{name} lacks {line}"
