"""Events: what an accepted action did, as data and as a sentence.

Engines return events as a ``kind`` plus parameters, never as finished text:
the sentence comes from a message catalogue, so the screen, the MQTT event
stream and the log can all show "Ann takes 3 damage: 12 → 9", and a
translation only swaps the catalogue.
"""

from __future__ import annotations

import string
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import ContentError

__all__ = ["Catalogue", "Event", "MESSAGES", "event"]


class Catalogue:
    """Message templates by event kind (``str.format`` with named fields)."""

    def __init__(self) -> None:
        self._templates: dict[str, str] = {}

    def register(self, templates: Mapping[str, str]) -> None:
        """Add an engine's templates; a kind may be registered once."""
        for kind, template in templates.items():
            if self._templates.get(kind, template) != template:
                raise ValueError(f"event kind {kind!r} already has another message")
            self._templates[kind] = template

    def load(self, path: Path) -> None:
        """Override templates from a TOML file of ``kind = "template"`` lines (a translation).

        Checked whole before anything changes: a key that is no known kind, a value that is
        not text, or a ``{field}`` the original does not have (it would fail when shown,
        mid-game) is a ContentError naming the key.
        """
        try:
            with path.open("rb") as f:
                translation = tomllib.load(f)
        except (OSError, tomllib.TOMLDecodeError) as e:
            raise ContentError(f"{path}: {e}") from e
        for kind, template in translation.items():
            original = self._templates.get(kind)
            if original is None:
                raise ContentError(f"{path}: {kind!r} is not a known sentence or string")
            if not isinstance(template, str):
                raise ContentError(f"{path}: {kind} must be text, got {template!r}")
            extra = _fields(template) - _fields(original)
            if extra:
                raise ContentError(f"{path}: {kind} uses {{{sorted(extra)[0]}}}, which "
                                   f"{original!r} does not have")
        self._templates.update(translation)

    def kinds(self) -> frozenset[str]:
        return frozenset(self._templates)

    def render(self, kind: str, params: Mapping[str, Any]) -> str:
        template = self._templates.get(kind)
        if template is None:
            return f"{kind}: " + ", ".join(f"{k}={v}" for k, v in params.items())
        return template.format(**params)


def _fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


MESSAGES = Catalogue()


@dataclass(frozen=True, slots=True)
class Event:
    """One thing that happened; ``str(event)`` is the sentence for players."""

    kind: str
    params: Mapping[str, Any] = field(default_factory=dict)

    def __str__(self) -> str:
        return MESSAGES.render(self.kind, self.params)

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "text": str(self), **self.params}


def event(kind: str, **params: Any) -> Event:
    """Shorthand used by the engines: ``event("damage", player="Ann", amount=3)``."""
    return Event(kind, params)
