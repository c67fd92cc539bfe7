"""What a card means to a game: a card's name, read in a deck of a known kind,
becomes text the companion understands.

A deck says its kind in ``deck.toml`` (``kind = "lokis-chosen"``); its cards are
named for what they mean:

* ``lokis-chosen``: the rune sets, top to bottom, ``RFR-RRF-FFR`` (sets split by
  ``-``, ``_``, ``,`` or spaces). Meaning: the ``card=`` argument of Loki's roll,
  ``card=RFR,RRF,FFR``, to add to the dice read for ``loki_roll``.
* ``heros-fate``: the card's rune set, ``RFR``. Meaning: ``fate=RFR``, to add to the
  action that deals it (the Runecast engine names that action).
* ``locations``: the Location's name as in ``zun/locations.toml`` (any case).
  Meaning: the whole action ``travel to="Ritual Grounds"``.

This stays a thin mapping on purpose: the Runecast engine is written elsewhere and
owns its actions; only the text forms above are agreed.
"""

from __future__ import annotations

import re

from companion.core.errors import UnknownName

__all__ = ["KINDS", "card_action", "meaning_of"]

KINDS = ("lokis-chosen", "heros-fate", "locations")

_RUNES = re.compile(r"^[RF]{3}$")


def card_action(name: str, kind: str) -> str:
    """The text a card called ``name`` in a ``kind`` deck stands for.

    Raises :class:`ValueError` for a kind it does not know or a name that does not
    say what the card means (the message names both).
    """
    folded = kind.strip().lower().replace("_", "-").replace("'", "")
    if folded == "lokis-chosen":
        return "card=" + ",".join(_rune_sets(name, kind))
    if folded == "heros-fate":
        sets = _rune_sets(name, kind)
        if len(sets) != 1:
            raise ValueError(f"card {name!r}: a Hero's Fate card has one rune set, like RFR")
        return f"fate={sets[0]}"
    if folded == "locations":
        # Quoted the way the action parser (shlex) reads it back: "Ritual Grounds".
        place = _location(name).replace("\\", "\\\\").replace('"', '\\"')
        return f'travel to="{place}"'
    raise ValueError(f"unknown deck kind {kind!r}; use one of {', '.join(KINDS)}")


def meaning_of(name: str | None, kind: str) -> str | None:
    """:func:`card_action`, or None for an unknown card or a name that means nothing
    for ``kind`` (a reading reports it rather than failing)."""
    if name is None:
        return None
    try:
        return card_action(name, kind)
    except ValueError:
        return None


def _rune_sets(name: str, kind: str) -> list[str]:
    sets = [part for part in re.split(r"[-_,\s]+", name.strip().upper()) if part]
    bad = [s for s in sets if not _RUNES.match(s)]
    if not sets or bad:
        raise ValueError(f"card {name!r} in a {kind} deck: name it by its rune sets, "
                         "three letters R or F each, like RFR-RRF-FFR")
    return sets


def _location(name: str) -> str:
    # Imported here: only a Location deck needs the Runes of Zun data.
    from companion.games.zun.content import ZunContent

    try:
        return ZunContent.load().location(name).name
    except UnknownName as e:
        raise ValueError(f"card {name!r} in a Location deck: {e}") from e
