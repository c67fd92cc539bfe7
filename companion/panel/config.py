"""The ``[panel]`` settings: which pins, which pin map, and how buttons feel under the finger."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from companion.config import Config, ConfigError, Seconds, load_config, read_section

__all__ = ["PanelConfig", "panel_config"]

PinsChoice = Literal["auto", "lgpio", "mock"]


@dataclass(frozen=True)
class PanelConfig:
    """How the panel runs; every field is a key of ``[panel]`` in the settings file."""

    pins: PinsChoice = "auto"
    """``lgpio`` (a Pi), ``mock`` (a desktop: simulated pins, no warning), or ``auto``."""
    pinmap: Path | None = None
    """The pin map file; by default ``hardware/panel/pinmap.toml`` of the installed tree."""
    bounce_time: Seconds = 0.02
    """gpiozero's debounce for buttons: edges this soon after the last one are contact bounce."""
    repeat_delay: Seconds = 0.6
    """How long a button is held before it starts repeating."""
    repeat_interval: Seconds = 0.3
    """The time between the first repeats ..."""
    repeat_acceleration: float = 0.75
    """... multiplied by this after each repeat, so a held button speeds up ..."""
    repeat_fastest: Seconds = 0.1
    """... down to this."""
    repeat_limit: int = 20
    """Repeats per press at most; then the button is taken to be stuck and a warning given."""
    sound: bool = True
    """Tones on the buzzer (the status LED flashes either way)."""

    def __post_init__(self) -> None:
        for key in ("bounce_time", "repeat_delay"):
            if getattr(self, key) < 0:
                raise ConfigError(f"[panel] {key}: must not be negative")
        for key in ("repeat_interval", "repeat_fastest"):
            if getattr(self, key) <= 0:
                raise ConfigError(f"[panel] {key}: must be more than 0")
        if not 0 < self.repeat_acceleration <= 1:
            raise ConfigError("[panel] repeat_acceleration: must be more than 0 and at most 1 "
                              f"(1 repeats at a steady rate), got {self.repeat_acceleration}")
        if self.repeat_limit < 1:
            raise ConfigError(f"[panel] repeat_limit: must be at least 1, got {self.repeat_limit}")


def panel_config(config: Config | None = None) -> PanelConfig:
    """The ``[panel]`` table of the settings file (default: the one in use), checked."""
    config = config if config is not None else load_config()
    return read_section(PanelConfig, config.section("panel"), "panel")
