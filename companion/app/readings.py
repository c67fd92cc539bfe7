"""What a confirmed camera reading becomes: the same actions as manual entry.

Each game says which actions a dice or card reading can stand for, given the
game as it is; the camera screen offers them and plays the one chosen.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from companion.core.content import load as load_content

from .strings import t

__all__ = ["card_names", "dice_faces", "reading_actions"]

Choice = tuple[str, dict[str, Any]]


def reading_actions(game: str, state: Mapping[str, Any], *, counts: Mapping[str, int],
                    cards: Sequence[str]) -> list[Choice]:
    """(label, action) pairs the reading can be entered as, best first; [] if none."""
    if game == "zun" and cards:
        if state.get("locations", {}).get("mode") != "normal":
            return []
        card = cards[0]
        verbs = ["travel"] if state.get("phase") == "start" else []
        verbs += ["purge", "scramble", "swap"] if state.get("phase") == "action" else []
        return [(f"{t('loc.' + verb)}: {card}", {"action": verb, "to": card}) for verb in verbs]
    if game == "runecast":
        return _runecast(state, counts, cards)
    return []


def _runecast(state: Mapping[str, Any], counts: Mapping[str, int],
              cards: Sequence[str]) -> list[Choice]:
    faces = {"hammers": counts.get("hammer", 0), "snakes": counts.get("snake", 0),
             "trees": counts.get("tree", 0)}
    if counts and state.get("phase") == "loki":
        # Loki's roll needs the Loki's Chosen card too: the roll pad takes it from here.
        return [(t("rc.loki_roll"), {"action": "loki_roll", **faces})]
    if counts:
        return [(t("rc.roll"), {"action": "roll", **faces})]
    choices: list[Choice] = []
    for name in cards[:1]:
        if "-" in name:
            choices.append((f"{t('rc.card')}: {name}", {"action": "loki_roll", "card": name}))
        else:
            for hero in state.get("players", []):
                choices.append((f"{hero['name']}: {name}",
                                {"action": "fate", "player": str(hero["seat"]), "fate": name}))
    return choices


def dice_faces(game: str) -> list[str]:
    """The faces a die of ``game`` can show, for correcting a misread die."""
    from .dice import die_sets

    faces: list[str] = []
    for die_set in die_sets(game):
        faces += [f for f in die_set.faces if f not in faces]
    return faces


def card_names(game: str) -> list[str]:
    """The cards a card reading can be corrected to."""
    if game == "zun":
        return [entry["name"] for entry in load_content("zun/locations.toml").get("location", [])]
    if game == "runecast":
        return [a + b + c for a in "RF" for b in "RF" for c in "RF"]
    return []
