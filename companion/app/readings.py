"""What a confirmed camera reading becomes, in the app's words.

Which actions a reading stands for is the game's business (:mod:`companion.readings`,
shared with the headless companion); here each choice gets its label in the app's
language, and the camera screen learns which faces a misread die can be cycled to.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from companion.readings import card_names, choices

from .strings import t

__all__ = ["card_names", "dice_faces", "reading_actions"]

Choice = tuple[str, dict[str, Any]]


def reading_actions(game: str, state: Mapping[str, Any], *, counts: Mapping[str, int],
                    cards: Sequence[str]) -> list[Choice]:
    """(label, action) pairs the reading can be entered as, best first; [] if none."""
    return [(": ".join(part for part in (t(c.label) if c.label else "", c.subject) if part),
             c.action)
            for c in choices(game, state, counts=counts, cards=cards)]


def dice_faces(game: str) -> list[str]:
    """The faces a die of ``game`` can show, for correcting a misread die."""
    from .dice import die_sets

    faces: list[str] = []
    for die_set in die_sets(game):
        faces += [f for f in die_set.faces if f not in faces]
    return faces
