"""The state of a game of The Rune Market: immutable records, replaced on every change.

Runes are counted, never listed: a rune is red or blue and lies either in the
market, free in front of a player, or in one of a player's shelters.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Literal

from companion.core.records import evolve

from .actions import Colour

COLOURS: tuple[Colour, ...] = ("red", "blue")

ShelterKind = Literal["main", "outpost", "ruin"]
TieBreak = Literal["I", "II", "III", "IV"]


class Phase(StrEnum):
    """Where the active player is in their turn, or where the game is after it ended."""

    INTEREST = "interest"
    """Interest is due and shown; the player collects or declines it."""
    PURCHASE = "purchase"
    """No hand card played yet: purchases with runes are still allowed."""
    CARDS = "cards"
    """A hand card has been played: no more purchases with runes."""
    TIE_BREAK = "tie_break"
    """The game has ended in a tie that only the players' hands or a game of
    rock-paper-scissors can break."""
    OVER = "over"


@dataclass(frozen=True, slots=True)
class Runes:
    """A count of red and blue runes."""

    red: int = 0
    blue: int = 0

    def __getitem__(self, colour: Colour) -> int:
        return self.red if colour == "red" else self.blue

    def plus(self, colour: Colour, count: int) -> Runes:
        return evolve(self, **{colour: self[colour] + count})

    @property
    def total(self) -> int:
        return self.red + self.blue


@dataclass(frozen=True, slots=True)
class Market:
    """The table cards in the middle: runes, outpost shelters and bandits."""

    red: int
    blue: int
    outposts: int
    bandits: int

    @property
    def runes(self) -> Runes:
        return Runes(self.red, self.blue)

    def plus(self, what: Literal["red", "blue", "outposts", "bandits"], count: int) -> Market:
        return evolve(self, **{what: getattr(self, what) + count})


@dataclass(frozen=True, slots=True)
class Shelter:
    """A place in front of a player where runes earn interest.

    ``main``: a red or blue main shelter card, perhaps with an outpost joined
    to it (``outpost``). ``outpost``: a stand-alone outpost shelter, whose
    colour is that of the runes in it (none while empty). ``ruin``: the runes
    of a stand-alone outpost that a bandit destroyed; the bandit stays on them.
    """

    label: str
    kind: ShelterKind
    colour: Colour | None
    runes: int = 0
    outpost: bool = False
    bandit: str | None = None
    """The player who owns the bandit occupying this shelter."""

    @property
    def occupied(self) -> bool:
        return self.bandit is not None

    @property
    def outposts(self) -> int:
        """Outpost shelter cards here (each worth points and breaking ties)."""
        return int(self.kind == "outpost" or (self.kind == "main" and self.outpost))

    @property
    def counts_as_shelter(self) -> bool:
        """Counts towards the limit of two shelters (a ruin is no shelter card any more)."""
        return self.kind != "ruin"


@dataclass(frozen=True, slots=True)
class Player:
    name: str
    colour: str
    """Seat colour, ``#rrggbb``."""
    free: Runes
    """Runes in front of the player outside any shelter."""
    shelters: tuple[Shelter, ...]
    hand: int
    """How many cards the player holds (the companion never knows which)."""

    def shelter(self, label: str) -> Shelter | None:
        folded = label.strip().casefold()
        return next((s for s in self.shelters if s.label == folded), None)

    def runes(self, colour: Colour) -> int:
        """Every rune of ``colour`` the player has, free, sheltered or frozen."""
        return self.free[colour] + sum(s.runes for s in self.shelters if s.colour == colour)

    @property
    def total_runes(self) -> int:
        return self.runes("red") + self.runes("blue")

    def spendable(self, colour: Colour) -> int:
        """Runes of ``colour`` the player may spend or lose to a thief: all but frozen ones."""
        return self.free[colour] + sum(s.runes for s in self.shelters
                                       if s.colour == colour and not s.occupied)

    def frozen(self, colour: Colour) -> int:
        return sum(s.runes for s in self.shelters if s.colour == colour and s.occupied)

    @property
    def outposts(self) -> int:
        return sum(s.outposts for s in self.shelters)

    @property
    def mains(self) -> int:
        return sum(s.kind == "main" for s in self.shelters)

    @property
    def bandits(self) -> int:
        """Bandits occupying this player's shelters."""
        return sum(s.occupied for s in self.shelters)

    @property
    def shelter_count(self) -> int:
        """Shelters towards the limit of two: main shelters and stand-alone outposts."""
        return sum(s.counts_as_shelter for s in self.shelters)

    def with_shelter(self, shelter: Shelter) -> Player:
        """This player with ``shelter`` replacing the one of the same label, or added."""
        if any(s.label == shelter.label for s in self.shelters):
            return evolve(self, shelters=tuple(shelter if s.label == shelter.label else s
                                               for s in self.shelters))
        return evolve(self, shelters=self.shelters + (shelter,))

    def without_shelter(self, label: str) -> Player:
        return evolve(self, shelters=tuple(s for s in self.shelters if s.label != label))


@dataclass(frozen=True, slots=True)
class Interest:
    """Interest due this turn: ``runes`` of ``colour`` into the shelter ``shelter``."""

    shelter: str
    colour: Colour
    runes: int


@dataclass(frozen=True, slots=True)
class Outcome:
    """The result, once the market's last rune is gone."""

    scores: tuple[int, ...]
    """Rune points, in seat order."""
    tied: tuple[str, ...]
    """The players who share the highest score (one name when there is no tie)."""
    contenders: tuple[str, ...]
    """Who is still in the running after the tie-breaks so far."""
    winner: str | None = None
    tie_break: TieBreak | None = None
    """The tie-break that decided it; None when the scores alone did."""
    high_cards: tuple[tuple[str, int], ...] = ()
    """Tie-break III: each contender's highest number card in hand, once entered."""

    @property
    def waiting_for(self) -> Literal["high_cards", "rps"] | None:
        """The tie-break result the table must enter next."""
        if self.winner is not None:
            return None
        return "rps" if self.high_cards else "high_cards"


@dataclass(frozen=True, slots=True)
class MarketState:
    players: tuple[Player, ...]
    """In seat order, which is turn order (play passes to the left)."""
    market: Market
    start: Market
    """The market at the start: every rune, outpost and bandit of the game."""
    active: int
    """Seat index (0-based) of the player whose turn it is."""
    first: int
    """Seat index of the player who started; a round ends when play comes back to them."""
    phase: Phase
    round: int
    turn: int
    """Turns started so far, 1-based."""
    interest: tuple[Interest, ...] = ()
    """Interest due to the active player, computed at the beginning of the turn."""
    duelled: tuple[str, ...] = ()
    """Players the active player has challenged this turn (once each per round)."""
    outcome: Outcome | None = None

    @property
    def over(self) -> bool:
        """The game has ended (its winner may still wait for a tie-break)."""
        return self.outcome is not None

    def with_player(self, seat: int, player: Player) -> MarketState:
        return evolve(self, players=self.players[:seat] + (player,) + self.players[seat + 1:])
