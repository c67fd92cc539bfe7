"""The state of a game of Runecast: immutable records, replaced on every change.

The state carries the battle boards and characters it was dealt, so a game in
progress never changes when someone edits the data files.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Literal

from .content import BattleBoard, Character

Outcome = Literal["victory", "defeat"]


class Phase(StrEnum):
    TURN = "turn"
    """A hero's turn: Draw (flip), Use (ability), Roll, then tree heals."""
    LOKI = "loki"
    """The end of the round: Loki's Thrall (or an agent of Loki) rolls Loki's pool."""


@dataclass(frozen=True, slots=True)
class Hero:
    """One character in play, in one seat."""

    name: str
    """The seat's name: the player's, or ``Ann 2`` for a 2-player game's extra character."""
    controller: str
    """The person playing this character."""
    character: Character
    hp: int
    colour: str
    fate: str | None
    """The Hero's Fate runes (``RFR``); None in the two-character game, which ignores them."""
    pool: int
    """Dice ready to roll."""
    hand: int
    """Face-down Fate cards left in the hand."""
    set_aside: int = 0
    """Tree dice set aside on this hero's current turn."""
    waiting: int = 0
    """Tree dice set aside on the previous turn: back at the end of this hero's next turn."""
    weapon: str | None = None
    armour: str | None = None
    alive: bool = True
    death_token: bool = True
    returning: bool = False
    """Fallen, with a Death Token spent: back at the start of the next battle."""

    @property
    def max_hp(self) -> int:
        return self.character.hp

    @property
    def dice(self) -> int:
        """Every die this hero holds: the pool and the dice set aside by tree heals."""
        return self.pool + self.set_aside + self.waiting


@dataclass(frozen=True, slots=True)
class Rolled:
    """The active hero's roll this turn."""

    hammers: int
    snakes: int
    trees: int


@dataclass(frozen=True, slots=True)
class LokiOutcome:
    """What each step of the last Loki's roll did, for the screen."""

    round: int
    roller: str
    agent: bool
    """The roller is an agent of Loki (a fallen hero), not the round's Thrall."""
    hammers: int
    snakes: int
    trees: int
    card: tuple[str, ...] = ()
    hammer_result: Literal["none", "hit", "everyone", "all_hammers", "foiled", "missed",
                           "target"] = "none"
    """none: no hammers; hit: a rune set matched a hero; everyone: RRR; all_hammers: every
    die a hammer; foiled: FFF; missed: no rune set matched; target: the two-character game."""
    matched: str | None = None
    """The rune set that decided the hammers (a hero's runes, RRR or FFF)."""
    hit: tuple[str, ...] = ()
    damage: int = 0
    fallen: tuple[str, ...] = ()
    special: bool = False
    special_needed: int = 0
    boon: bool = False
    boon_needed: int = 0
    resolved: bool = True
    """False when every hero fell to the hammers, so snakes and trees were never looked at."""


@dataclass(frozen=True, slots=True)
class Options:
    """How this game is played: the variants and house rules chosen at setup."""

    duo: bool
    """Two characters in all: runes ignored, Thrall and target alternate."""
    dice: int
    """Table-3: each hero's starting pool."""
    fate_cards: int
    """Table-1: each hero's starting Fate hand."""
    card_sets: int
    refill_dice: bool
    hit: int | None
    """Damage of a Loki hit; None: one per hammer."""
    loki_max: int | None = None
    unlimited_lives: bool = False
    dice_total: int = 32
    fate_deck: tuple[str, ...] = ()
    """The Hero's Fate cards of this game (empty in the two-character game)."""


@dataclass(frozen=True, slots=True)
class RunecastState:
    heroes: tuple[Hero, ...]
    """In seat order, which is turn order."""
    battles: tuple[BattleBoard, ...]
    """The battle stack as dealt, top first; the one in play is ``battles[battle]``."""
    battle: int
    wounds: int
    loki_pool: int
    box: int
    """Dice out of play: never dealt, or discarded from Loki's pool or a pool."""
    active: int
    """Seat of the hero whose turn it is (in the Loki phase: who had the last turn)."""
    first: int
    """Seat that went first; a round ends when play comes back past it."""
    thrall: int
    """Seat of this round's Loki's Thrall among the living (agents of Loki roll first)."""
    options: Options
    phase: Phase = Phase.TURN
    round: int = 1
    turn: int = 1
    rolled: Rolled | None = None
    flipped: bool = False
    tree_heals: int = 0
    last_agent: int = -1
    """Seat of the agent of Loki who rolled last, so fallen heroes take turns rolling."""
    community_token: bool = True
    outcome: Outcome | None = None
    last_loki: LokiOutcome | None = None

    @property
    def board(self) -> BattleBoard:
        return self.battles[self.battle]

    @property
    def battles_left(self) -> int:
        """Battles still to win, the one in play included."""
        return 0 if self.outcome == "victory" else len(self.battles) - self.battle

    @property
    def final_battle(self) -> bool:
        return self.battle == len(self.battles) - 1

    @property
    def living(self) -> tuple[int, ...]:
        return tuple(seat for seat, h in enumerate(self.heroes) if h.alive)

    def dice_in_play(self) -> int:
        """Every die on the table and in the box: always ``options.dice_total``."""
        return sum(h.dice for h in self.heroes) + self.loki_pool + self.box

    def with_hero(self, seat: int, **changes: object) -> RunecastState:
        hero = replace(self.heroes[seat], **changes)  # type: ignore[arg-type]
        return replace(self, heroes=self.heroes[:seat] + (hero,) + self.heroes[seat + 1:])

    def next_seat(self, seat: int, *, alive: bool = True) -> int | None:
        """The next seat after ``seat`` (round the table, ``seat`` itself last) whose hero is
        alive (or fallen, with ``alive=False``), or None if there is none."""
        n = len(self.heroes)
        return next((s for s in ((seat + k) % n for k in range(1, n + 1))
                     if self.heroes[s].alive is alive), None)

    def roller(self) -> int:
        """Who rolls Loki's pool this round: the next agent of Loki (a fallen hero) in turn,
        or, with none, the round's Thrall."""
        start = self.last_agent if self.last_agent >= 0 else len(self.heroes) - 1
        agent = self.next_seat(start, alive=False)
        return self.thrall if agent is None else agent
