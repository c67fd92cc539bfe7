"""What a settled camera reading stands for: the same actions as manual entry.

The vision process reports what lies on the tray (dice counted per face, cards by
name); it knows nothing of the game. Here each game says which actions such a
reading can be entered as, given the game as it is now (``Session.to_json()``):

* Runes of Zun: a Location card is Travel in the Start phase, or Purge, Scramble or
  Swap in the Action phase (``to=`` the card).
* Runecast: dice are the active hero's ``roll``, or Loki's roll in Loki's phase; a
  Loki's Chosen card (``RFR-RRF-FFR``) is the card of Loki's roll; a Hero's Fate card
  (``RFR``) is some hero's ``fate``.

Both owners of a table use it: the touchscreen offers the :func:`choices` and plays
the one tapped; the headless companion with ``[vision] auto_confirm`` plays a reading
at once through :class:`AutoConfirm`, which also puts Loki's roll together from its
two readings (the dice and the card are read apart). Nothing here draws or
translates: a :class:`Choice` carries a key of the app's strings for its label.

What a card's name means for its deck's kind (:func:`card_meaning`) is also here, so
the camera's own ``runes-vision card`` output and the companion agree on it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from companion.core.errors import UnknownName

__all__ = ["AutoConfirm", "CARD_KINDS", "Choice", "LABELS", "card_meaning", "card_names",
           "choices"]

CARD_KINDS = ("lokis-chosen", "heros-fate", "locations")
"""The kinds of deck a card camera can be taught (``kind`` in a deck's ``deck.toml``)."""

LABELS = ("loc.travel", "loc.purge", "loc.scramble", "loc.swap", "rc.roll", "rc.loki_roll",
          "rc.card")
"""Every label key a :class:`Choice` can carry (the app has words for each)."""

_RUNES = re.compile(r"^[RF]{3}$")
_FACES = ("hammer", "snake", "tree")


def _roll(counts: Mapping[str, int]) -> dict[str, int]:
    """A dice reading's counts (``{"hammer": 2, ...}``) as a Runecast roll's arguments."""
    return {f"{face}s": counts.get(face, 0) for face in _FACES}


@dataclass(frozen=True, slots=True)
class Choice:
    """One way to enter a reading: the action, and how to name it on a button.

    The label is ``label`` (a key of the app's strings) followed by ``": subject"``
    when there is a subject (the card's or the hero's name).
    """

    label: str
    action: dict[str, Any]
    subject: str = ""


def choices(game: str | None, state: Mapping[str, Any], *, counts: Mapping[str, int],
            cards: Sequence[str]) -> list[Choice]:
    """The actions the reading can be entered as, best first; [] if none."""
    if game == "zun" and cards:
        return _zun(state, cards[0])
    if game == "runecast":
        return _runecast(state, counts, cards)
    return []


def _zun(state: Mapping[str, Any], card: str) -> list[Choice]:
    if state.get("locations", {}).get("mode") != "normal":
        return []
    try:
        card = card_meaning(card, "locations")["to"]
    except ValueError:
        return []  # not a Location (a Runecast card on the tray): it means nothing here
    verbs = ["travel"] if state.get("phase") == "start" else []
    verbs += ["purge", "scramble", "swap"] if state.get("phase") == "action" else []
    return [Choice(f"loc.{verb}", {"action": verb, "to": card}, card) for verb in verbs]


def _runecast(state: Mapping[str, Any], counts: Mapping[str, int],
              cards: Sequence[str]) -> list[Choice]:
    faces = _roll(counts)
    if counts and state.get("phase") == "loki":
        # Loki's roll needs the Loki's Chosen card too: the roll pad takes it from here.
        return [Choice("rc.loki_roll", {"action": "loki_roll", **faces})]
    if counts:
        return [Choice("rc.roll", {"action": "roll", **faces})]
    out: list[Choice] = []
    for name in cards[:1]:
        kind = "lokis-chosen" if len(_rune_sets(name)) > 1 else "heros-fate"
        try:
            meaning = card_meaning(name, kind)
        except ValueError:
            continue
        if kind == "lokis-chosen":
            out.append(Choice("rc.card", {"action": "loki_roll", **meaning}, name))
        else:
            out += [Choice("", {"action": "fate", "player": str(hero["seat"]), **meaning},
                           f"{hero['name']}: {name}")
                    for hero in state.get("players", [])]
    return out


def card_names(game: str | None) -> list[str]:
    """The cards a card reading of ``game`` can be corrected to."""
    if game == "zun":
        from companion.games.zun.content import ZunContent

        return list(ZunContent.load().locations)
    if game == "runecast":
        return [a + b + c for a in "RF" for b in "RF" for c in "RF"]
    return []


# -- what a card means for its deck ---------------------------------------------------------


def card_meaning(name: str, kind: str) -> dict[str, str]:
    """The fields a card called ``name`` in a ``kind`` deck gives an action.

    ``lokis-chosen``: ``{"card": "RFR,RRF,FFR"}`` (the card's rune sets, for Loki's roll);
    ``heros-fate``: ``{"fate": "RFR"}``; ``locations``: the whole action,
    ``{"action": "travel", "to": "Ritual Grounds"}`` (the name as the game data spells it).
    Raises :class:`ValueError` naming the card and the kind when the name means nothing.
    """
    folded = kind.strip().lower().replace("_", "-").replace("'", "")
    if folded == "lokis-chosen":
        return {"card": ",".join(_checked_sets(name, kind))}
    if folded == "heros-fate":
        sets = _checked_sets(name, kind)
        if len(sets) != 1:
            raise ValueError(f"card {name!r}: a Hero's Fate card has one rune set, like RFR")
        return {"fate": sets[0]}
    if folded == "locations":
        return {"action": "travel", "to": _location(name)}
    raise ValueError(f"unknown deck kind {kind!r}; use one of {', '.join(CARD_KINDS)}")


def _rune_sets(name: str) -> list[str]:
    return [part for part in re.split(r"[-_,\s]+", name.strip().upper()) if part]


def _checked_sets(name: str, kind: str) -> list[str]:
    sets = _rune_sets(name)
    if not sets or not all(_RUNES.match(s) for s in sets):
        raise ValueError(f"card {name!r} in a {kind} deck: name it by its rune sets, "
                         "three letters R or F each, like RFR-RRF-FFR")
    return sets


def _location(name: str) -> str:
    # Imported here: only a Location card needs the Runes of Zun data.
    from companion.games.zun.content import ZunContent

    try:
        return ZunContent.load().location(name).name
    except UnknownName as e:
        raise ValueError(f"card {name!r} in a Location deck: {e}") from e


# -- playing readings at once ---------------------------------------------------------------


class AutoConfirm:
    """Settled readings played at once, without a tap: ``[vision] auto_confirm = true``.

    Only a reading with one sure meaning is played: dice that are all Runecast faces
    (none ``unknown``) as the active hero's roll, if they have not rolled yet; a Zun
    Location card in the Start phase as Travel. Anything that needs a person's choice
    (which hero's Fate card, Purge or Swap) is left for the screen or a command.

    Loki's roll comes from two readings, the dice and the Loki's Chosen card drawn for
    the hammers, in either order: the first is held until the other completes it.
    A roll that needs no card (no hammers, all hammers, the two-character game) is
    played from its dice alone. Held readings belong to one Loki's phase of one game,
    and are forgotten when it ends. One instance per table; not thread-safe.
    """

    def __init__(self) -> None:
        self._dice: dict[str, int] | None = None
        self._card: str | None = None
        self._phase: tuple[Any, ...] | None = None
        self.held = False
        """Whether the last reading given was held (it waits for its other half)."""

    @property
    def waiting(self) -> str | None:
        """What a held reading waits for: ``"card"``, ``"dice"``, or None."""
        if self._dice is not None:
            return "card"
        return "dice" if self._card is not None else None

    def dice(self, state: Mapping[str, Any], counts: Mapping[str, int]) -> dict[str, Any] | None:
        """The action a dice reading stands for now, or None (held, or not sure)."""
        self.held = False
        if state.get("game") != "runecast" or state.get("over"):
            return None
        if not counts or any(face not in _FACES for face in counts):
            return None  # an unknown die, or pips: a person must look
        faces = _roll(counts)
        if state.get("phase") == "turn":
            return None if state.get("roll") is not None else {"action": "roll", **faces}
        if state.get("phase") != "loki":
            return None
        self._follow(state)
        if not _needs_card(state, faces):
            self._card = None
            return {"action": "loki_roll", **faces}
        if self._card is None:
            self._dice, self.held = faces, True
            return None
        card, self._card = self._card, None
        return {"action": "loki_roll", **faces, "card": card}

    def card(self, state: Mapping[str, Any], name: str) -> dict[str, Any] | None:
        """The action a card reading stands for now, or None (held, or not sure)."""
        self.held = False
        if state.get("over"):
            return None
        if state.get("game") == "zun":
            found = [c for c in _zun(state, name) if c.action["action"] == "travel"]
            return found[0].action if found else None
        if state.get("game") != "runecast" or state.get("phase") != "loki":
            return None
        try:
            card = card_meaning(name, "lokis-chosen")["card"]
        except ValueError:
            return None
        if card.count(",") + 1 != state.get("rules", {}).get("card_sets", 3):
            return None  # a Hero's Fate card, or a card of another game
        self._follow(state)
        if self._dice is None:
            self._card, self.held = card, True
            return None
        dice, self._dice = self._dice, None
        return {"action": "loki_roll", **dice, "card": card}

    def _follow(self, state: Mapping[str, Any]) -> None:
        """Forget held readings from another Loki's phase or another game."""
        phase = (state.get("game_id"), state.get("round"), state.get("phase"))
        if phase != self._phase:
            self._phase, self._dice, self._card = phase, None, None


def _needs_card(state: Mapping[str, Any], faces: Mapping[str, int]) -> bool:
    """Whether Loki's hammers draw a Loki's Chosen card (Runecast's rules, as the engine has them)."""
    hammers = faces["hammers"]
    return (0 < hammers < sum(faces.values())
            and state.get("mode") != "two characters")
