"""Game content from data files that users can extend.

Locations, battle boards, characters, prices and defaults are TOML files under
``companion/data/<game>/``. A table can add its own expansions or house rules
without touching the code: a file with the same name in a user data folder
is merged over the built-in one:

* ``$RUNES_DATA`` (folders separated by ``:``), then
* ``$XDG_CONFIG_HOME/runes`` (normally ``~/.config/runes``).

Merging: a table merges key by key; an array of tables whose entries have a
``name`` merges by name (a user entry with a known name replaces the built-in
one, a new name is added); any other value is replaced.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from .errors import ContentError

__all__ = ["data_dirs", "load", "require"]

BUILTIN = Path(__file__).resolve().parent.parent / "data"


def data_dirs() -> list[Path]:
    """Folders searched for data files, built-in first, so later ones win."""
    dirs = [BUILTIN]
    config = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    dirs.append(Path(config) / "runes")
    dirs.extend(Path(p) for p in os.environ.get("RUNES_DATA", "").split(os.pathsep) if p)
    return dirs


def _merge(base: Any, extra: Any) -> Any:
    if isinstance(base, dict) and isinstance(extra, dict):
        out = dict(base)
        for key, value in extra.items():
            out[key] = _merge(base[key], value) if key in base else value
        return out
    if _named_list(base) and _named_list(extra):
        by_name = {entry["name"]: entry for entry in base}
        for entry in extra:
            by_name[entry["name"]] = entry
        return list(by_name.values())
    return extra


def _named_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(e, dict) and "name" in e for e in value)


def _files(relative: str) -> Iterator[Path]:
    for folder in data_dirs():
        path = folder / relative
        if path.is_file():
            yield path


def load(relative: str) -> dict[str, Any]:
    """The merged content of ``relative`` (e.g. ``zun/locations.toml``) across all data folders."""
    merged: dict[str, Any] = {}
    found = False
    for path in _files(relative):
        found = True
        try:
            with path.open("rb") as f:
                merged = _merge(merged, tomllib.load(f))
        except (OSError, tomllib.TOMLDecodeError) as e:
            raise ContentError(f"{path}: {e}") from e
    if not found:
        raise ContentError(f"no data file {relative} in {', '.join(map(str, data_dirs()))}")
    return merged


def require(entry: Mapping[str, Any], key: str, kind: type, where: str) -> Any:
    """``entry[key]`` checked to be of ``kind``; the error names the file and entry."""
    if key not in entry:
        raise ContentError(f"{where}: missing {key!r}")
    value = entry[key]
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise ContentError(f"{where}: {key!r} must be {kind.__name__}, got {value!r}")
    return value
