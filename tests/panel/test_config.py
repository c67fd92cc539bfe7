"""The [panel] settings: typed, with defaults, errors naming the key."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.config import ConfigError, load_config
from companion.panel import PanelConfig, panel_config


def test_no_settings_file_means_every_default(tmp_path: Path) -> None:
    assert panel_config(load_config(tmp_path / "none.toml")) == PanelConfig()


def test_settings_are_read_with_units(tmp_path: Path) -> None:
    path = tmp_path / "companion.toml"
    path.write_text('[panel]\npins = "mock"\nbounce_time = "5ms"\nrepeat_limit = 8\n'
                    'pinmap = "~/panel.toml"\n')
    config = panel_config(load_config(path))
    assert config.pins == "mock"
    assert config.bounce_time == pytest.approx(0.005)
    assert config.repeat_limit == 8
    assert config.pinmap == Path("~/panel.toml").expanduser()


@pytest.mark.parametrize(("line", "message"), [
    ('pins = "gpio"', r"\[panel\] pins: must be one of"),
    ("repeat_limit = 0", r"\[panel\] repeat_limit: must be at least 1"),
    ("repeat_acceleration = 1.5", r"\[panel\] repeat_acceleration"),
    ("repeat_fastest = 0", r"\[panel\] repeat_fastest: must be more than 0"),
    ("bounce = 0.1", "unknown setting 'bounce'"),
])
def test_a_bad_setting_names_its_key(tmp_path: Path, line: str, message: str) -> None:
    path = tmp_path / "companion.toml"
    path.write_text(f"[panel]\n{line}\n")
    with pytest.raises(ConfigError, match=message):
        panel_config(load_config(path))
