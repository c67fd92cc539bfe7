"""Dice rolled so far, and whether they look fair.

Which dice a game has, how many sides show each face, and which actions of
the log record rolls is data (``companion/data/app/dice.toml``), so a table
with different dice corrects a file, not the code.

The test is Pearson's chi-square goodness of fit against the faces' share of
the die's sides (``scipy.stats.chisquare``). It is only trusted once every
face is expected at least five times (the textbook condition for the
chi-square approximation); before that the verdict says how many more rolls
it needs. A die is called suspicious only below p = 0.01, so a fair set is
wrongly accused in about one game in a hundred, not one in twenty.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from companion.core import content
from companion.core.errors import ContentError

from .strings import t

__all__ = ["DieSet", "Fairness", "die_sets", "fairness"]

MIN_EXPECTED = 5
"""Rolls of each face expected before the chi-square verdict is given."""
ALPHA = 0.01
"""Below this p-value a die set is called suspicious."""


@dataclass(frozen=True, slots=True)
class DieSet:
    name: str
    game: str
    faces: Mapping[str, int]
    """Face → how many sides of the die show it."""
    actions: Mapping[str, Mapping[str, str]]
    """Action verb → field → the face that field counts."""

    def count(self, log: Iterable[Mapping[str, Any]]) -> dict[str, int]:
        """Faces rolled in ``log`` (actions in their JSON form), every face listed."""
        counts = dict.fromkeys(self.faces, 0)
        for act in log:
            for name, face in self.actions.get(str(act.get("action")), {}).items():
                value = act.get(name)
                if isinstance(value, int) and not isinstance(value, bool):
                    counts[face] += value
        return counts

    @property
    def needed(self) -> int:
        """Rolls needed before every face is expected :data:`MIN_EXPECTED` times."""
        sides = sum(self.faces.values())
        return math.ceil(MIN_EXPECTED * sides / min(self.faces.values()))


@dataclass(frozen=True, slots=True)
class Fairness:
    die_set: DieSet
    counts: Mapping[str, int]
    verdict: Literal["not enough", "fair", "suspicious"]
    chi2: float | None = None
    p: float | None = None

    @property
    def rolls(self) -> int:
        return sum(self.counts.values())

    def sentence(self) -> str:
        """The verdict in plain words, for the Plots screen."""
        name = self.die_set.name
        if self.verdict == "not enough":
            return t("plots.not_enough", rolls=self.rolls, set=name, needed=self.die_set.needed)
        assert self.chi2 is not None and self.p is not None
        if self.verdict == "fair":
            return t("plots.fair", set=name, rolls=self.rolls, chi2=self.chi2, p=self.p)
        percent = "less than 1 in 1000" if self.p < 0.001 else f"{self.p * 100:.1f}%"
        return t("plots.unfair", set=name, rolls=self.rolls, chi2=self.chi2, p=self.p,
                 percent=percent)


def die_sets(game: str) -> list[DieSet]:
    """The die sets of ``game`` (none for a game without dice, like Runes of Zun)."""
    data = content.load("app/dice.toml")
    out = []
    for i, entry in enumerate(data.get("set", []), 1):
        where = f"app/dice.toml, set {i}"
        if content.require(entry, "game", str, where) != game:
            continue
        faces = content.require(entry, "faces", dict, where)
        if not faces or any(not isinstance(v, int) or v < 1 for v in faces.values()):
            raise ContentError(f"{where}: faces must map each face to its number of sides (1 or more)")
        actions = entry.get("actions", {})
        for verb, fields in actions.items():
            for name, face in fields.items():
                if face not in faces:
                    raise ContentError(f"{where}: {verb}.{name} counts {face!r}, which is not a face")
        out.append(DieSet(content.require(entry, "name", str, where), game, dict(faces), actions))
    return out


def fairness(die_set: DieSet, counts: Mapping[str, int]) -> Fairness:
    """Chi-square test of ``counts`` against the faces' share of the die."""
    from scipy.stats import chisquare  # imported on first use: it costs start-up time

    rolls = sum(counts.values())
    if rolls < die_set.needed:
        return Fairness(die_set, counts, "not enough")
    sides = sum(die_set.faces.values())
    observed = [counts.get(face, 0) for face in die_set.faces]
    expected = [rolls * n / sides for n in die_set.faces.values()]
    result = chisquare(observed, expected)
    chi2, p = float(result.statistic), float(result.pvalue)
    return Fairness(die_set, counts, "suspicious" if p < ALPHA else "fair", chi2, p)
