"""The settings file: typed sections, validated at load, errors naming the key."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Literal

import pytest

from companion.app.settings import AppConfig
from companion.config import ConfigError, Range, Seconds, journal_path, load_config, read_section
from companion.firmware.install import TrackerSetup
from companion.links import TrackersConfig
from companion.mqtt.client import MqttConfig, make_client
from companion.table import TableConfig


@dataclass(frozen=True)
class Example:
    host: str = "localhost"
    port: int = 1883
    keepalive: Seconds = 30.0
    ratio: float = 1.0
    mode: Literal["fast", "slow"] = "fast"
    ids: tuple[str, ...] = ()
    ca: Path | None = None


@dataclass(frozen=True)
class Ranged:
    level: Annotated[int, Range(0, 255)] = 96
    count: Annotated[int, Range(1)] = 1
    wait: Annotated[Seconds, Range(0, exclusive_minimum=True)] = 1.0
    most: Annotated[float, Range(maximum=1)] = 0.5


def test_defaults_and_conversions() -> None:
    got = read_section(Example, {"keepalive": "500ms", "ratio": 2, "ids": ["a"], "ca": "/x"},
                       "net")
    assert got == Example(keepalive=0.5, ratio=2.0, ids=("a",), ca=Path("/x"))
    assert read_section(Example, {"keepalive": "2min"}, "net").keepalive == 120.0


@pytest.mark.parametrize("data, message", [
    ({"prot": 1}, r"\[net\]: unknown setting 'prot'; the settings are: ca, host"),
    ({"port": "1883"}, r"\[net\] port: must be a whole number, got '1883'"),
    ({"port": True}, r"\[net\] port: must be a whole number"),
    ({"keepalive": "soon"}, r"\[net\] keepalive: must be a duration"),
    ({"mode": "medium"}, r"\[net\] mode: must be one of 'fast', 'slow'"),
    ({"ids": "a"}, r"\[net\] ids: must be a list"),
    ({"ids": [1]}, r"\[net\] ids\[0\]: must be text"),
])
def test_every_bad_setting_is_named(data: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        read_section(Example, data, "net")


def test_a_missing_file_is_all_defaults_and_a_broken_one_is_reported(tmp_path: Path) -> None:
    assert load_config(tmp_path / "none.toml").section("net") == {}
    broken = tmp_path / "broken.toml"
    broken.write_text("[net\nport = 1")
    with pytest.raises(ConfigError, match="broken.toml"):
        load_config(broken)
    wrong = tmp_path / "wrong.toml"
    wrong.write_text("net = 3\n")
    with pytest.raises(ConfigError, match=r"\[net\] must be a table"):
        load_config(wrong).section("net")


def test_the_journal_lives_where_the_environment_and_settings_say(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("RUNES_DB", "STATE_DIRECTORY", "XDG_STATE_HOME", "RUNES_CONFIG"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    assert journal_path() == tmp_path / "state" / "runes" / "journal.sqlite"
    monkeypatch.setenv("STATE_DIRECTORY", "/var/lib/runes")
    assert journal_path() == Path("/var/lib/runes/journal.sqlite")
    settings = tmp_path / "companion.toml"
    settings.write_text(f'[journal]\npath = "{tmp_path / "mine.sqlite"}"\n')
    monkeypatch.setenv("RUNES_CONFIG", str(settings))
    assert journal_path() == tmp_path / "mine.sqlite"
    monkeypatch.setenv("RUNES_DB", "/tmp/x.sqlite")
    assert journal_path() == Path("/tmp/x.sqlite")


@pytest.mark.parametrize("data, message", [
    ({"level": 256}, r"\[net\] level: must be from 0 to 255, got 256"),
    ({"level": -1}, r"\[net\] level: must be from 0 to 255, got -1"),
    ({"level": "dim"}, r"\[net\] level: must be a whole number, got 'dim'"),
    ({"count": 0}, r"\[net\] count: must be at least 1, got 0"),
    ({"wait": "0s"}, r"\[net\] wait: must be more than 0, got 0.0"),
    ({"most": 1.5}, r"\[net\] most: must be at most 1, got 1.5"),
])
def test_a_number_out_of_its_range_is_named(data: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        read_section(Ranged, data, "net")


def test_ranges_let_their_bounds_through() -> None:
    got = read_section(Ranged, {"level": 255, "count": 1, "wait": "1ms", "most": 1}, "net")
    assert (got.level, got.count, got.wait, got.most) == (255, 1, 0.001, 1.0)
    assert read_section(Ranged, {"level": 0}, "net").level == 0


@pytest.mark.parametrize("cls, name, data, message", [
    (MqttConfig, "mqtt", {"port": 0}, r"\[mqtt\] port: must be from 1 to 65535, got 0"),
    (MqttConfig, "mqtt", {"port": 65536}, r"\[mqtt\] port: must be from 1 to 65535"),
    (MqttConfig, "mqtt", {"keepalive": -5}, r"\[mqtt\] keepalive: must be from 0 to 65535"),
    (MqttConfig, "mqtt", {"reconnect": -1}, r"\[mqtt\] reconnect: must be at least 0"),
    (MqttConfig, "mqtt", {"command_limit": 0}, r"\[mqtt\] command_limit: must be at least 1"),
    (TrackersConfig, "trackers", {"wled_dim": 256},
     r"\[trackers\] wled_dim: must be from 0 to 255, got 256"),
    (TrackersConfig, "trackers", {"wled_dim": -1}, r"\[trackers\] wled_dim: must be from 0 to 255"),
    (TrackersConfig, "trackers", {"wled_leds": -3},
     r"\[trackers\] wled_leds: must be at least 1, got -3"),
    (TrackersConfig, "trackers", {"blink": "1min"},
     r"\[trackers\] blink: must be more than 0 and at most 30"),
    (TrackersConfig, "trackers", {"simulated": -1}, r"\[trackers\] simulated: must be at least 0"),
    (TrackersConfig, "trackers", {"baudrate": 0}, r"\[trackers\] baudrate: must be at least 1"),
    (AppConfig, "app", {"width": 0}, r"\[app\] width: must be at least 1"),
    (AppConfig, "app", {"camera_fps": 0}, r"\[app\] camera_fps: must be more than 0"),
    (AppConfig, "app", {"trackers": -1}, r"\[app\] trackers: must be at least 0"),
    (TrackerSetup, "tracker_setup", {"port": 0},
     r"\[tracker_setup\] port: must be from 1 to 65535"),
])
def test_numbers_out_of_range_are_named_at_load(cls: type, name: str, data: dict[str, object],
                                                message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        read_section(cls, data, name)


@pytest.mark.parametrize("table_id", ["a/b", "+", "#", "", "table 1", "x" * 33])
def test_a_table_id_that_is_not_one_topic_level_is_a_config_error(table_id: str) -> None:
    # Checked by TableConfig itself, so every reader of [table] (the app, whose links
    # used to fail later with a plain ValueError from the topics) reports it by its key.
    with pytest.raises(ConfigError, match=r"\[table\] id must be 1 to 32 letters"):
        read_section(TableConfig, {"id": table_id}, "table")
    assert read_section(TableConfig, {"id": "Table_2-b"}, "table").id == "Table_2-b"


@pytest.mark.parametrize("content", [None, "not a certificate\n", "directory"])
def test_a_tls_ca_that_cannot_be_used_is_named(tmp_path: Path, content: str | None) -> None:
    ca = tmp_path / "ca.pem"
    if content == "directory":
        ca.mkdir()
    elif content is not None:
        ca.write_text(content)
    with pytest.raises(ConfigError, match=r"\[mqtt\] ca_certs: cannot use .*ca.pem"):
        make_client(MqttConfig(tls=True, ca_certs=ca), client_id="test")
