"""The settings file: typed sections, validated at load, errors naming the key."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import pytest

from companion.config import ConfigError, Seconds, journal_path, load_config, read_section


@dataclass(frozen=True)
class Example:
    host: str = "localhost"
    port: int = 1883
    keepalive: Seconds = 30.0
    ratio: float = 1.0
    mode: Literal["fast", "slow"] = "fast"
    ids: tuple[str, ...] = ()
    ca: Path | None = None


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
