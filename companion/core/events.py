"""Events: what an accepted action did, as data and as a sentence.

Engines return events as a ``kind`` plus parameters, never as finished text:
the sentence comes from a message catalogue, so the screen, the MQTT event
stream and the log can all show "Ann takes 3 damage: 12 → 9", and a
translation only swaps the catalogue.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

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
        """Override templates from a TOML file of ``kind = "template"`` lines (a translation)."""
        with path.open("rb") as f:
            for kind, template in tomllib.load(f).items():
                if isinstance(template, str):
                    self._templates[kind] = template

    def kinds(self) -> frozenset[str]:
        return frozenset(self._templates)

    def render(self, kind: str, params: Mapping[str, Any]) -> str:
        template = self._templates.get(kind)
        if template is None:
            return f"{kind}: " + ", ".join(f"{k}={v}" for k, v in params.items())
        return template.format(**params)


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
