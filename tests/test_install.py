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
    camera, _ = load_settings(installed_settings)
    assert camera.source == "pi"
