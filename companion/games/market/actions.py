"""The actions of The Rune Market and its setup.

Every action but the tie-break results is taken by the player whose turn it
is, and names them first (a name in any case or a seat number), so the log
reads like the table talk and a slip of the finger is caught: ``buy_rune Ann
red cards=5,10`` is refused on Bob's turn.

The companion counts the cards in each hand but does not know which they are.
Number cards are therefore entered by value where they pay for something
(``cards=10,11``), so their sum can be checked; every other card is simply
trusted to be what the player says it is.

A SHELTER is named by its label, as shown on the screen: ``red`` and ``blue``
for the main shelters, ``outpost`` (then ``outpost2``...) for stand-alone
outpost shelters and for the runes a bandit sits on after destroying one.
"""

from __future__ import annotations

from typing import Literal

from companion.core.actions import Action, ActionSet, NonNegative, Positive, action
from companion.core.rules import Setup

Colour = Literal["red", "blue"]
Take = Literal["red", "blue", "card"]
"""What a thief takes from a player: a rune of that colour, or a hand card."""
DuelTake = Literal["red", "blue", "card", "nothing"]


@action("market")
class MarketSetup(Setup):
    """A game of The Rune Market for 2-5 PLAYERS in turn order.

    FIRST starts: the winner of the last round, or the youngest player in a
    first round (default: seat 1). RED, BLUE, OUTPOSTS and BANDITS set how many
    of those cards lie in the market at the start (default: the deck
    description in ``market/deck.toml``).
    """

    players: tuple[str, ...]
    first: str | None = None
    red: NonNegative | None = None
    blue: NonNegative | None = None
    outposts: NonNegative | None = None
    bandits: NonNegative | None = None


# -- phase 1: interest ------------------------------------------------------------


@action("collect")
class Collect(Action):
    """PLAYER takes the interest the companion shows: one matching rune from the market for
    each shelter holding a rune (two for a main shelter with its outpost), into that shelter."""

    player: str


@action("decline")
class Decline(Action):
    """PLAYER lets this turn's interest go (interest is a right, not a duty)."""

    player: str


# -- phase 2: purchases, and what may happen before the first hand card -----------------


@action("buy_outpost")
class BuyOutpost(Action):
    """PLAYER buys an outpost shelter from the market, paying the price in RUNES of one colour
    (4 with 2 players, 3 with 3, 2 with 4 or more) or number CARDS summing to 21 or more.
    It stands alone, or joins the main shelter TO (it must, once there are two shelters)."""

    player: str
    runes: Colour | None = None
    cards: tuple[NonNegative, ...] = ()
    to: Colour | None = None


@action("buy_bandit")
class BuyBandit(Action):
    """PLAYER buys a bandit (same price as an outpost) and places it in VICTIM's SHELTER."""

    player: str
    victim: str
    shelter: str
    runes: Colour | None = None
    cards: tuple[NonNegative, ...] = ()


@action("ransom")
class Ransom(Action):
    """PLAYER frees their SHELTER from its bandit: number CARDS summing to 21 or more, or 3
    runes (RED + BLUE) returned to the market from outside the occupied shelter."""

    player: str
    shelter: str
    cards: tuple[NonNegative, ...] = ()
    red: NonNegative = 0
    blue: NonNegative = 0


@action("neutralise")
class Neutralise(Action):
    """PLAYER neutralises the bandit in their SHELTER with an outpost shelter: one they own
    (OUTPOST: its label, or the main shelter it is joined to), or one bought now with RUNES
    or CARDS. The bandit and the outpost both go back to the market."""

    player: str
    shelter: str
    outpost: str | None = None
    runes: Colour | None = None
    cards: tuple[NonNegative, ...] = ()


# -- any time on one's own turn -------------------------------------------------------


@action("store")
class Store(Action):
    """PLAYER puts COUNT of their free runes into their SHELTER (of its colour; an empty
    stand-alone outpost takes COLOUR, or the only colour PLAYER has free)."""

    player: str
    shelter: str
    count: Positive = 1
    colour: Colour | None = None


@action("attach")
class Attach(Action):
    """PLAYER joins their stand-alone OUTPOST to their main shelter MAIN, where it stays."""

    player: str
    outpost: str
    main: Colour


# -- phase 3: hand cards ------------------------------------------------------------------


@action("buy_rune")
class BuyRune(Action):
    """PLAYER buys a COLOUR rune from the market with number CARDS summing to 5, 10 or 15."""

    player: str
    colour: Colour
    cards: tuple[NonNegative, ...]


@action("shelter")
class PlayShelter(Action):
    """PLAYER plays a main shelter card of COLOUR from their hand onto the table. With two
    shelters already, a stand-alone OUTPOST must join a main shelter TO (asked only if the
    companion cannot tell which)."""

    player: str
    colour: Colour
    outpost: str | None = None
    to: Colour | None = None


@action("thief")
class Thief(Action):
    """PLAYER plays a Thief card and steals from VICTIM a red or blue rune, or a hand card."""

    player: str
    victim: str
    take: Take


@action("double_steal")
class DoubleSteal(Action):
    """PLAYER discards a main shelter card as a double steal: two thefts, from VICTIM (TAKE)
    and from VICTIM2 (TAKE2, who may be VICTIM again). TABLE: the card is the main shelter of
    that colour on the table, discarded at the beginning of the turn, not a hand card."""

    player: str
    victim: str
    take: Take
    victim2: str | None = None
    take2: Take | None = None
    table: Colour | None = None


@action("duel")
class Duel(Action):
    """PLAYER attacks DEFENDER with a number card ATTACK. The defender shows DEFENCE, or
    ``conceded`` (gave up). A higher attack wins and PLAYER steals TAKE from the defender."""

    player: str
    defender: str
    attack: Positive
    defence: Positive | None = None
    conceded: bool = False
    take: DuelTake | None = None


# -- phase 4: fill up -------------------------------------------------------------------


@action("end_turn")
class EndTurn(Action):
    """PLAYER fills their hand up to 3 cards and play passes to the left. At least one hand
    card must have been played, unless PLAYER's hand is empty or ``cannot_play`` says that
    none of its cards could be played."""

    player: str
    cannot_play: bool = False


# -- the end: tie-breaks III and IV ---------------------------------------------------------


@action("high_cards")
class HighCards(Action):
    """Tie-break III: each tied player's highest number card in hand, as PLAYER:VALUE
    (0 for a hand without number cards)."""

    cards: tuple[str, ...]


@action("rps")
class RockPaperScissors(Action):
    """Tie-break IV: WINNER won the best of 3 rock-paper-scissors."""

    winner: str


ACTIONS = ActionSet(
    Collect, Decline, BuyOutpost, BuyBandit, Ransom, Neutralise, Store, Attach, BuyRune,
    PlayShelter, Thief, DoubleSteal, Duel, EndTurn, HighCards, RockPaperScissors,
)
