"""What a card means to a game, as text: a card's name, read in a deck of a known kind,
becomes text the companion understands.

A deck says its kind in ``deck.toml`` (``kind = "lokis-chosen"``); its cards are
named for what they mean:

* ``lokis-chosen``: the rune sets, top to bottom, ``RFR-RRF-FFR`` (sets split by
  ``-``, ``_``, ``,`` or spaces). Meaning: the ``card=`` argument of Loki's roll,
  ``card=RFR,RRF,FFR``, to add to the dice read for ``loki_roll``.
* ``heros-fate``: the card's rune set, ``RFR``. Meaning: ``fate=RFR``, to add to the
  action that deals it.
* ``locations``: the Location's name as in ``zun/locations.toml`` (any case).
  Meaning: the whole action ``travel to="Ritual Grounds"``.

The meaning itself is the companion's (:func:`companion.readings.card_meaning`, which
the companion also uses to enter readings); this module only writes it as text.
"""

from __future__ import annotations

import re

from companion.readings import CARD_KINDS, card_meaning

__all__ = ["KINDS", "card_action", "meaning_of"]

KINDS = CARD_KINDS

_PLAIN = re.compile(r"^[A-Za-z0-9,]+$")


def card_action(name: str, kind: str) -> str:
    """The text a card called ``name`` in a ``kind`` deck stands for.

    Raises :class:`ValueError` for a kind it does not know or a name that does not
    say what the card means (the message names both).
    """
    fields = card_meaning(name, kind)
    words = [fields.pop("action")] if "action" in fields else []
    # Quoted the way the action parser (shlex) reads it back: to="Ritual Grounds".
    words += [f"{key}={value}" if _PLAIN.match(value) else f'{key}="{_escaped(value)}"'
              for key, value in fields.items()]
    return " ".join(words)


def meaning_of(name: str | None, kind: str) -> str | None:
    """:func:`card_action`, or None for an unknown card or a name that means nothing
    for ``kind`` (a reading reports it rather than failing)."""
    if name is None:
        return None
    try:
        return card_action(name, kind)
    except ValueError:
        return None


def _escaped(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')
