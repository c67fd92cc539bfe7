"""The actions of Runecast and its setup.

A PLAYER is a hero: the seat's name (any case), its seat number, or its
character's name: ``ability Ann``, ``ability 1`` and ``ability Astrid`` are the
same when Ann plays Astrid in seat 1.

A roll is entered as counts per face, by hand or from the camera:
``roll hammers=3 snakes=1 trees=2`` (or ``roll 3 1 2``). Loki's roll also
takes the Loki's Chosen card drawn for his hammers, as its rune sets in
order: ``card=RFR,RRF,FFR``, ``card=RFR-RRF-FFR`` (the camera's card name) or
``card="RFR RRF FFR"``.
"""

from __future__ import annotations

from typing import Annotated, Literal

from companion.core.actions import Action, ActionSet, Max, Min, NonNegative, Positive, action
from companion.core.rules import Setup

ItemKind = Literal["weapon", "armour", "armor"]


@action("runecast")
class RunecastSetup(Setup):
    """A game of Runecast.

    PLAYERS in turn order (seat 1 first), 2 to 6. CHARACTERS, one per hero in seat order
    (default: the first ones of characters.toml). With 2 players, EXTRA gives each player
    1 or 2 additional characters (``extra=Ann,Bob`` or ``extra=Ann,Ann,Bob,Bob``): they
    sit after the players as ``Ann 2``, ``Bob 2``, ``Ann 3``...; without EXTRA two players
    play two characters, runes ignored. FATES are the Hero's Fate cards in seat order
    (default: dealt); ``all_fates`` keeps RFR, RRF and RFF in a 3-character game. BOARDS
    is the battle stack, top first (default: shuffled, Table-2's number). House rules:
    BATTLES deals that many random battles, LOKI_MAX caps Loki's pool, ``unlimited_lives``
    returns every fallen hero at the next battle. HP sets every hero's starting HP, HIT
    the damage of a Loki hit. FIRST is who starts (default: seat 1).
    """

    players: tuple[str, ...]
    characters: tuple[str, ...] = ()
    extra: tuple[str, ...] = ()
    fates: tuple[str, ...] = ()
    all_fates: bool = False
    boards: tuple[str, ...] = ()
    battles: Annotated[int, Min(1)] | None = None
    loki_max: Annotated[int, Min(1)] | None = None
    unlimited_lives: bool = False
    hp: Annotated[int, Min(1)] | None = None
    hit: Annotated[int, Min(1)] | None = None
    first: str | None = None
    seed: int | None = None


@action("flip")
class Flip(Action):
    """PLAYER, at the start of their turn, turns over the top card of their Fate hand: a
    ``weapon`` or ``armour`` goes into play (replacing the one of that kind), a ``fate``
    card is resolved at once and discarded. CARD is its name, for the screen."""

    player: str
    kind: Literal["weapon", "armour", "armor", "fate"]
    card: str | None = None


@action("ability")
class UseAbility(Action):
    """PLAYER uses their hero ability: -1 HP, at any time, never their last HP."""

    player: str


@action("roll")
class Roll(Action):
    """The active player's roll to attack, as counts per face; every die of their pool."""

    hammers: NonNegative = 0
    snakes: NonNegative = 0
    trees: NonNegative = 0


@action("tree_heal")
class TreeHeal(Action):
    """The active player sets COUNT tree dice of their roll aside to heal 1 HP each (at
    most 2 per turn); the dice come back at the end of their next turn."""

    count: Annotated[int, Min(1), Max(2)] = 1


@action("next")
class Next(Action):
    """End the active player's turn. After the last turn of a round, Loki's roll comes."""


@action("loki_roll")
class LokiRoll(Action):
    """Loki's Thrall rolls every die of Loki's pool, entered as counts per face. CARD is the
    Loki's Chosen card drawn for the hammers (its rune sets in order), when one is drawn."""

    hammers: NonNegative = 0
    snakes: NonNegative = 0
    trees: NonNegative = 0
    card: str | None = None


@action("fate")
class SetFate(Action):
    """PLAYER's Hero's Fate card shows the runes FATE (three of R and F, e.g. ``fate Ann RFR``,
    or ``fate Ann fate=RFR`` with the card camera's reading): as dealt, or a correction."""

    player: str
    fate: str


@action("damage")
class Damage(Action):
    """PLAYER loses AMOUNT HP from a special attack or a card."""

    player: str
    amount: Positive


@action("heal")
class Heal(Action):
    """PLAYER gains AMOUNT HP from a boon, an ability or a card, up to their starting HP."""

    player: str
    amount: Positive


@action("wound")
class Wound(Action):
    """The battle board takes AMOUNT wounds from a boon, an ability or a card."""

    amount: Positive = 1


@action("dice")
class AdjustDice(Action):
    """An ability or card adds (``+2``) or removes (``-1``) dice from PLAYER's pool; the dice
    come from, or go back to, the box."""

    player: str
    amount: int


@action("loki_dice")
class AdjustLokiDice(Action):
    """An ability or boon adds (``+1``) or removes (``-3``) dice from Loki's pool; the dice
    come from, or go back to, the box."""

    amount: int


@action("discard")
class Discard(Action):
    """PLAYER discards their ``weapon`` or ``armour`` in play (a special attack or card)."""

    player: str
    kind: ItemKind


@action("reincarnate")
class Reincarnate(Action):
    """The group spends the Community Death Token on PLAYER, who fell with no Death Token
    left: they return at the start of the next battle."""

    player: str


ACTIONS = ActionSet(
    Flip, UseAbility, Roll, TreeHeal, Next, LokiRoll, SetFate, Damage, Heal, Wound,
    AdjustDice, AdjustLokiDice, Discard, Reincarnate,
)
