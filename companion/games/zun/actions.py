"""The actions of Runes of Zun and its setup.

A PLAYER is a name (any case) or a seat number: ``damage Ann 3`` and
``damage 1 3`` are the same when Ann sits in seat 1.
"""

from __future__ import annotations

from typing import Annotated, Literal

from companion.core.actions import Action, ActionSet, Min, Positive, action
from companion.core.rules import Setup

LocationMode = Literal["none", "normal", "simplified", "tourist"]


@action("zun")
class ZunSetup(Setup):
    """A game of Runes of Zun.

    PLAYERS in turn order (seat 1 first). TEAMS as ``Name:Ann+Cid`` groups
    (leave out for free-for-all). HP is the starting and maximum HP. COLOURS
    per player (``#rrggbb`` or a colour name). LOCATIONS is the Location mode,
    DECK the Locations used (normal: shuffled; tourist: in this order;
    simplified: exactly one). FIRST is who starts (default: seat 1).
    """

    players: tuple[str, ...]
    teams: tuple[str, ...] = ()
    hp: Annotated[int, Min(1)] | None = None
    colours: tuple[str, ...] = ()
    locations: LocationMode = "none"
    deck: tuple[str, ...] = ()
    first: str | None = None
    seed: int | None = None


@action("damage")
class Damage(Action):
    """PLAYER loses AMOUNT HP from a card. An effect that prevents HP loss (like Defend)
    stops it, unless the card is ``immune``. PLAYER ``all`` is an "All Players" card:
    everyone standing loses AMOUNT at once."""

    player: str
    amount: Positive
    immune: bool = False


@action("heal")
class Heal(Action):
    """PLAYER gains AMOUNT HP, but never above the top of their current tier (1-4, 5-8,
    9-12) unless ``uptier`` says a card allows it."""

    player: str
    amount: Positive
    uptier: bool = False


@action("set")
class SetHp(Action):
    """Set PLAYER's HP to HP (a card that sets HP, or a correction). 0 defeats; setting a
    defeated player above 0 brings them back."""

    player: str
    hp: Annotated[int, Min(0)]


@action("defeat")
class Defeat(Action):
    """Mark PLAYER as defeated (HP 0), e.g. from a long press on their button."""

    player: str


@action("revive")
class Revive(Action):
    """Play Revive on PLAYER: a defeated player comes back with AMOUNT HP (default 2);
    on a standing player it heals like ``heal``, within the tier."""

    player: str
    amount: Positive | None = None
    uptier: bool = False


@action("overdraw")
class Overdraw(Action):
    """PLAYER put CARDS cards into a hand already holding 10: -1 HP each. Overdraw comes
    first in the Rule Priority, so nothing prevents it."""

    player: str
    cards: Positive


@action("underdraw")
class Underdraw(Action):
    """PLAYER had to produce CARDS cards they lack: -1 HP each. Nothing prevents it."""

    player: str
    cards: Positive


@action("next")
class Next(Action):
    """End the current phase: Start → Action → Recovery → End → the next player's Start."""


@action("mulligan")
class Mulligan(Action):
    """The active player, holding no Action cards, discards their hand and draws 3.
    Start phase only, once per turn."""


@action("effect")
class AddEffect(Action):
    """Record an ongoing card effect NAME on PLAYER, triggering at the ``start`` of their
    next turn or the ``end`` of their turn; ``prevents`` if it stops HP loss (Defend)."""

    player: str
    name: str
    when: Literal["start", "end"] = "start"
    prevents: bool = False


@action("discard_effect")
class DiscardEffect(Action):
    """Discard PLAYER's ongoing effect NAME."""

    player: str
    name: str


@action("travel")
class Travel(Action):
    """The active player skips their Action phase to replace the Location with the top of
    the Location deck (or TO, the card actually drawn). Start phase, Normal rules."""

    to: str | None = None
    seed: int | None = None


@action("purge")
class Purge(Action):
    """Purge used on the Locations: discard the active one and play the top of the deck
    (or TO). Action phase, Normal rules."""

    to: str | None = None
    seed: int | None = None


@action("scramble")
class Scramble(Action):
    """Scramble used on the Locations: discard the active one, shuffle discard and deck
    together, play the top (or TO). Action phase, Normal rules."""

    to: str | None = None
    seed: int | None = None


@action("scry")
class Scry(Action):
    """Scry used on the Locations: discard the active one, look at the top 3, play CHOSEN,
    put the others on the bottom in the order BOTTOM (default: as they were)."""

    chosen: str
    bottom: tuple[str, ...] = ()


@action("swap")
class Swap(Action):
    """Swap used on the Locations: the discard pile, shuffled, becomes the deck; the old
    deck, flipped, becomes the discard pile, and its top card is played (or TO)."""

    to: str | None = None
    seed: int | None = None


ACTIONS = ActionSet(
    Damage, Heal, SetHp, Defeat, Revive, Overdraw, Underdraw, Next, Mulligan,
    AddEffect, DiscardEffect, Travel, Purge, Scramble, Scry, Swap,
)
