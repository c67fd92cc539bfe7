"""The app's settings, and writing back the ones the Settings screen changes.

Reading goes through :mod:`companion.config` like every subsystem. Writing
uses tomlkit, which keeps the file's comments and layout, so a table's
hand-edited settings file survives a change made on the touchscreen.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

import tomlkit

from companion.config import Config, ConfigError, Range, config_path, read_section

__all__ = ["AppConfig", "load_app_config", "save_settings"]


@dataclass(frozen=True)
class AppConfig:
    """``[app]`` in the settings file (the journal is ``[journal]``, the table ``[table]``)."""

    hardware: Literal["links", "simulated"] = "links"
    """``links``: the broker and LED trackers of ``[mqtt]`` and ``[trackers]``, as the
    headless service uses them; ``simulated``: made-up devices (the demo, the tests)."""
    fullscreen: bool = False
    """True on the Pi's kiosk; a window of ``width`` × ``height`` elsewhere."""
    width: Annotated[int, Range(1)] = 800
    height: Annotated[int, Range(1)] = 480
    strings: Path | None = None
    """A TOML file of UI strings (a translation) loaded over the built-in English ones."""
    sentences: Path | None = None
    """A TOML file of event sentences (``kind = "template"``, a translation of what the
    engines say happened) loaded over the built-in English ones."""
    trackers: Annotated[int, Range(0)] = 4
    """How many LED trackers the simulated hardware offers."""
    camera_fps: Annotated[float, Range(0, exclusive_minimum=True)] = 15.0
    """Frames a second of the simulated camera."""
    onscreen_panel: Literal["auto", "show", "hide"] = "auto"
    """The on-screen button panel (a drawer of touchable buttons, for the demo). ``auto``:
    shown when the panel runs on simulated pins (a desktop), hidden on a Pi's real pins;
    ``show``: the panel runs on simulated pins and the drawer shows, even on a Pi (a table
    without a wired panel); ``hide``: never (the keyboard still drives simulated pins)."""


def load_app_config(config: Config) -> AppConfig:
    return read_section(AppConfig, config.section("app"), "app")


def save_settings(updates: Mapping[str, Mapping[str, Any]], path: str | Path | None = None) -> Path:
    """Set ``{section: {key: value}}`` in the settings file, keeping everything else as it was."""
    path = Path(path) if path is not None else config_path()
    try:
        document = tomlkit.parse(path.read_text("utf-8")) if path.exists() else tomlkit.document()
        for section, values in updates.items():
            table = document.get(section)
            if table is None:
                table = tomlkit.table()
                document[section] = table
            for key, value in values.items():
                table[key] = value
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(tomlkit.dumps(document), "utf-8")
        tmp.replace(path)
    except (OSError, tomlkit.exceptions.TOMLKitError) as e:
        raise ConfigError(f"cannot save settings to {path}: {e}") from e
    return path
