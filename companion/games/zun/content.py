"""Runes of Zun content: the Locations and the defaults, read from data files."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from companion.core import content
from companion.core.errors import ContentError, UnknownName

EffectPhase = Literal["start", "end", "turn", "played", "discarded", "always"]


@dataclass(frozen=True, slots=True)
class LocationEffect:
    timing: str
    """The bold timing text printed on the card."""
    phase: EffectPhase
    text: str


@dataclass(frozen=True, slots=True)
class Location:
    name: str
    challenge: int
    keywords: tuple[str, ...] = ()
    effects: tuple[LocationEffect, ...] = ()

    def effects_at(self, phase: EffectPhase) -> tuple[LocationEffect, ...]:
        return tuple(e for e in self.effects if e.phase == phase)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "challenge": self.challenge,
            "keywords": list(self.keywords),
            "effects": [{"timing": e.timing, "phase": e.phase, "text": e.text} for e in self.effects],
        }


@dataclass(frozen=True)
class ZunContent:
    locations: Mapping[str, Location]
    starting_hp: int = 12
    tier_size: int = 4
    revive_heal: int = 2
    hand_limit: int = 10
    tourist_rounds: int = 3
    mulligan_draw: int = 3
    palette: tuple[str, ...] = ("#e53935", "#1e88e5")
    colour_names: Mapping[str, str] = field(default_factory=dict)

    def location(self, name: str) -> Location:
        """The Location called ``name`` (any case)."""
        found = self._by_folded().get(name.strip().casefold())
        if found is None:
            known = ", ".join(sorted(self.locations)) or "none"
            raise UnknownName(f"unknown Location {name!r}; the known Locations are: {known}")
        return found

    def _by_folded(self) -> dict[str, Location]:
        return {n.casefold(): loc for n, loc in self.locations.items()}

    def colour(self, text: str) -> str:
        """``#rrggbb`` as given, or the hex value of a colour name from the data file."""
        word = text.strip().lower()
        if word in self.colour_names:
            return self.colour_names[word]
        if len(word) == 7 and word[0] == "#" and all(c in "0123456789abcdef" for c in word[1:]):
            return word
        raise ValueError(f"unknown colour {text!r}; use #rrggbb or one of: "
                         + ", ".join(sorted(self.colour_names)))

    @classmethod
    def load(cls) -> ZunContent:
        """Read ``zun/defaults.toml`` and ``zun/locations.toml`` from the data folders."""
        defaults = content.load("zun/defaults.toml")
        where = "zun/defaults.toml"
        numbers = {
            key: content.require(defaults, key, int, where)
            for key in ("starting_hp", "tier_size", "revive_heal", "hand_limit",
                        "tourist_rounds", "mulligan_draw")
        }
        for key, value in numbers.items():
            if value < 1:
                raise ContentError(f"{where}: {key} must be at least 1, got {value}")
        colours = content.require(defaults, "colours", dict, where)
        palette = tuple(content.require(colours, "palette", list, where + " [colours]"))
        names = content.require(colours, "names", dict, where + " [colours]")
        return cls(
            locations=_locations(content.load("zun/locations.toml")),
            palette=palette,
            colour_names={str(k).lower(): str(v) for k, v in names.items()},
            **numbers,
        )


def _locations(data: Mapping[str, Any]) -> dict[str, Location]:
    out: dict[str, Location] = {}
    for i, entry in enumerate(data.get("location", []), 1):
        where = f"zun/locations.toml, location {i}"
        name = content.require(entry, "name", str, where)
        where = f"zun/locations.toml, location {name!r}"
        challenge = content.require(entry, "challenge", int, where)
        if not 0 <= challenge <= 3:
            raise ContentError(f"{where}: challenge must be 0 to 3 diamonds, got {challenge}")
        effects = []
        for effect in entry.get("effect", []):
            phase = content.require(effect, "phase", str, where)
            if phase not in get_args(EffectPhase):
                raise ContentError(f"{where}: unknown effect phase {phase!r}; use one of "
                                   + ", ".join(get_args(EffectPhase)))
            effects.append(LocationEffect(content.require(effect, "timing", str, where), phase,
                                          content.require(effect, "text", str, where)))
        if name.casefold() in (n.casefold() for n in out):
            raise ContentError(f"{where}: two Locations share this name")
        out[name] = Location(name, challenge, tuple(entry.get("keywords", [])), tuple(effects))
    return out
