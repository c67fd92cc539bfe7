"""The state of a game of Runes of Zun: immutable records, replaced on every change."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Literal

from .actions import LocationMode


class Phase(StrEnum):
    """The four phases of a turn, in order."""

    START = "start"
    ACTION = "action"
    RECOVERY = "recovery"
    END = "end"

    @property
    def title(self) -> str:  # type: ignore[override]
        return {"start": "Start of Turn", "action": "Action", "recovery": "Recovery",
                "end": "End of Turn"}[self.value]


@dataclass(frozen=True, slots=True)
class Effect:
    """An [Ongoing] card effect affecting a player, surfaced at its phase until discarded."""

    name: str
    when: Literal["start", "end"]
    prevents: bool = False


@dataclass(frozen=True, slots=True)
class Player:
    name: str
    hp: int
    max_hp: int
    team: str | None
    colour: str
    effects: tuple[Effect, ...] = ()

    @property
    def defeated(self) -> bool:
        """The HP Tracker Card is flipped exactly when HP reaches 0."""
        return self.hp == 0


@dataclass(frozen=True, slots=True)
class Team:
    name: str
    colour: str


@dataclass(frozen=True, slots=True)
class Locations:
    """The Location deck (top first), its discard pile (top first) and the active card."""

    mode: LocationMode
    active: str | None = None
    deck: tuple[str, ...] = ()
    discard: tuple[str, ...] = ()
    since_round: int = 1
    """The round in which the active Location was played (for the tourist countdown)."""


@dataclass(frozen=True, slots=True)
class ZunState:
    players: tuple[Player, ...]
    """In seat order, which is turn order."""
    teams: tuple[Team, ...]
    """In order; empty for free-for-all."""
    active: int
    """Seat index (0-based) of the player whose turn it is."""
    first: int
    """Seat index of the player who went first; a round ends when play passes them again."""
    phase: Phase
    round: int
    turn: int
    """Turns started so far, 1-based."""
    locations: Locations
    tier_size: int
    mulligan_used: bool = False
    travelled: bool = False
    """The active player replaced the Location, so this turn's Action phase is skipped."""
    winner: str | None = None
    over: bool = False
    """The game has a result: a ``winner``, or a draw when everyone fell at once."""

    def tier(self, hp: int) -> int:
        """The HP tier (1 for 1-4, 2 for 5-8, ...); 0 when defeated."""
        return 0 if hp <= 0 else (hp - 1) // self.tier_size + 1

    def tier_top(self, hp: int) -> int:
        """The highest HP a heal may reach from ``hp`` without a card allowing more."""
        return max(self.tier(hp), 1) * self.tier_size
