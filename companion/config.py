"""The companion's settings file, validated once, at load.

One TOML file holds every subsystem's settings, one table per subsystem
(``[broker]``, ``[panel]``, ``[camera]``...). The file knows nothing of the
subsystems: each declares its own frozen dataclass of typed fields with
defaults, and :func:`read_section` checks a table against it, so a typo, a
wrong type or a number out of its :class:`Range` is reported with the table and
the key before anything starts, never as a crash half-way through a game::

    @dataclass(frozen=True)
    class BrokerConfig:
        host: str = "localhost"
        port: Annotated[int, Range(1, 65535)] = 1883
        keepalive: Annotated[Seconds, Range(0)] = 30.0

    broker = read_section(BrokerConfig, load_config().section("broker"), "broker")

A check that needs more than one field, or more than a range, goes in the
dataclass's ``__post_init__``, raising :class:`ConfigError` naming the key.

Where the file is: ``$RUNES_CONFIG``, else ``$XDG_CONFIG_HOME/runes/companion.toml``
(normally ``~/.config/runes/companion.toml``), else ``/etc/runes/companion.toml``.
A missing file means every default.
"""

from __future__ import annotations

import dataclasses
import os
import re
import tomllib
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, TypeVar

from companion.core.errors import CompanionError

__all__ = ["Config", "ConfigError", "JournalConfig", "Range", "Seconds", "config_path",
           "journal_path", "load_config", "read_section"]


class ConfigError(CompanionError, ValueError):
    """The settings file is unreadable, or a setting has the wrong type or value."""


class _Duration:
    """Annotated marker: a number of seconds, also written ``"500ms"``, ``"15s"``, ``"2min"``."""


Seconds = Annotated[float, _Duration()]


@dataclass(frozen=True)
class Range:
    """Annotated marker: a number from ``minimum`` to ``maximum`` (either may be None: no
    bound); with ``exclusive_minimum``, more than ``minimum`` rather than at least it::

        port: Annotated[int, Range(1, 65535)] = 1883
        retry: Annotated[Seconds, Range(0, exclusive_minimum=True)] = 2.0
    """

    minimum: float | None = None
    maximum: float | None = None
    exclusive_minimum: bool = False

    def check(self, value: float, where: str) -> None:
        low, high = self.minimum, self.maximum
        too_low = low is not None and (value <= low if self.exclusive_minimum else value < low)
        if not too_low and (high is None or value <= high):
            return
        if low is not None and high is not None:
            wanted = (f"more than {low:g} and at most {high:g}" if self.exclusive_minimum
                      else f"from {low:g} to {high:g}")
        elif low is not None:
            wanted = f"more than {low:g}" if self.exclusive_minimum else f"at least {low:g}"
        else:
            wanted = f"at most {high:g}"
        raise ConfigError(f"{where}: must be {wanted}, got {value!r}")

_UNITS = {"ms": 0.001, "s": 1.0, "sec": 1.0, "min": 60.0, "h": 3600.0}
_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(ms|s|sec|min|h)?\s*$")


def _seconds(value: Any, where: str) -> float:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, str) and (m := _DURATION.match(value)):
        return float(m.group(1)) * _UNITS[m.group(2) or "s"]
    raise ConfigError(f"{where}: must be a duration such as 15, \"500ms\", \"15s\" or \"2min\", "
                      f"got {value!r}")


def config_path() -> Path:
    if env := os.environ.get("RUNES_CONFIG"):
        return Path(env)
    home = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    user = Path(home) / "runes" / "companion.toml"
    system = Path("/etc/runes/companion.toml")
    return user if user.exists() or not system.exists() else system


@dataclass(frozen=True)
class Config:
    """The settings file as read: one table per subsystem."""

    path: Path
    data: Mapping[str, Any] = field(default_factory=dict)

    def section(self, name: str) -> Mapping[str, Any]:
        value = self.data.get(name, {})
        if not isinstance(value, Mapping):
            raise ConfigError(f"{self.path}: [{name}] must be a table of settings")
        return value


def load_config(path: str | Path | None = None) -> Config:
    """Read the settings file (a missing file is an empty one)."""
    path = Path(path) if path is not None else config_path()
    try:
        with path.open("rb") as f:
            return Config(path, tomllib.load(f))
    except FileNotFoundError:
        return Config(path)
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise ConfigError(f"{path}: {e}") from e


T = TypeVar("T")


def read_section(cls: type[T], data: Mapping[str, Any], name: str) -> T:
    """Build the dataclass ``cls`` from the table ``[name]``, checking every key and type."""
    hints = typing.get_type_hints(cls, include_extras=True)
    fields = {f.name: f for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    unknown = sorted(set(data) - set(fields))
    if unknown:
        raise ConfigError(f"[{name}]: unknown setting {unknown[0]!r}; the settings are: "
                          + ", ".join(sorted(fields)))
    values = {key: _check(hints[key], value, f"[{name}] {key}") for key, value in data.items()}
    return cls(**values)


def _check(hint: Any, value: Any, where: str) -> Any:
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        members = [a for a in typing.get_args(hint) if a is not type(None)]
        if len(members) == 1:
            hint = members[0]
    if typing.get_origin(hint) is Annotated:
        base, *meta = typing.get_args(hint)
        if any(isinstance(m, _Duration) for m in meta):
            value = _seconds(value, where)
        else:
            value = _check(base, value, where)
        for m in meta:
            if isinstance(m, Range):
                m.check(value, where)
        return value
    origin = typing.get_origin(hint)
    if origin is typing.Literal:
        choices = typing.get_args(hint)
        if value not in choices:
            raise ConfigError(f"{where}: must be one of {', '.join(map(repr, choices))}, "
                              f"got {value!r}")
        return value
    if origin in (tuple, list):
        if not isinstance(value, list):
            raise ConfigError(f"{where}: must be a list, got {value!r}")
        (item,) = typing.get_args(hint)[:1]
        return tuple(_check(item, v, f"{where}[{i}]") for i, v in enumerate(value))
    if hint is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if hint is Path and isinstance(value, str):
        return Path(os.path.expanduser(value))
    if isinstance(hint, type) and (not isinstance(value, hint) or
                                   (hint is int and isinstance(value, bool))):
        raise ConfigError(f"{where}: must be {_TYPE_NAMES.get(hint, hint.__name__)}, "
                          f"got {value!r}")
    return value


_TYPE_NAMES = {int: "a whole number", float: "a number", str: "text", bool: "true or false",
               Path: "a path"}


@dataclass(frozen=True)
class JournalConfig:
    """``[journal]``: where the games are kept."""

    path: Path | None = None


def journal_path(config: Config | None = None) -> Path:
    """The journal file: ``$RUNES_DB``, else ``[journal] path``, else the state directory.

    The state directory is systemd's ``$STATE_DIRECTORY`` for the installed service, or
    ``$XDG_STATE_HOME/runes`` (normally ``~/.local/state/runes``) for a person at a desktop.
    """
    if env := os.environ.get("RUNES_DB"):
        return Path(env)
    config = config if config is not None else load_config()
    configured = read_section(JournalConfig, config.section("journal"), "journal").path
    if configured is not None:
        return configured
    if state_dir := os.environ.get("STATE_DIRECTORY"):
        return Path(state_dir.split(":")[0]) / "journal.sqlite"
    home = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local",
                                                             "state")
    return Path(home) / "runes" / "journal.sqlite"
