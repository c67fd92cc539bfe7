"""Runecast content: setup tables, battle boards, characters and rune decks, from data files.

Everything the rule book leaves to the printed components lives in
``companion/data/runecast/`` (``defaults.toml``, ``battles.toml``,
``characters.toml``), so a table can bring its own boards and characters, or
change a default it disagrees with, without touching the code.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from companion.core import content
from companion.core.errors import ContentError, UnknownName
from companion.core.players import RESERVED

RUNES = frozenset("RF")
"""The two runes: R and F."""

FOILED = "FFF"
"""The Loki's Chosen rune set that foils Loki and empties his pool."""

EVERYONE = "RRR"
"""The Loki's Chosen rune set that hits every hero."""


@dataclass(frozen=True, slots=True)
class Trigger:
    """A battle board's special attack (on snakes) or Fate's boon (on trees)."""

    needed: int
    """Dice showing the face that Loki's roll needs for it to trigger."""
    text: str


@dataclass(frozen=True, slots=True)
class BattleBoard:
    name: str
    wounds: int
    """Wounds to defeat it."""
    special: Trigger
    boon: Trigger

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "wounds_needed": self.wounds,
            "special": {"snakes": self.special.needed, "text": self.special.text},
            "boon": {"trees": self.boon.needed, "text": self.boon.text},
        }


@dataclass(frozen=True, slots=True)
class Character:
    name: str
    hp: int
    """Starting and highest HP."""
    ability: str
    colour: str | None = None


@dataclass(frozen=True, slots=True)
class Table:
    """One row of the setup tables, for one number of characters in play."""

    fate_cards: int
    """Table-1: Fate cards dealt to each player (and the number a returning hero refills to)."""
    battles: int
    """Table-2: battle boards in the stack."""
    dice: int
    """Table-3: dice in each player's pool."""


Named = TypeVar("Named", BattleBoard, Character)


@dataclass(frozen=True)
class RunecastContent:
    boards: Mapping[str, BattleBoard]
    characters: Mapping[str, Character]
    tables: Mapping[int, Table]
    dice_total: int = 32
    loki_hit: int | None = None
    """Damage of one Loki hit; None: one per hammer rolled."""
    refill_dice: bool = True
    card_sets: int = 3
    hero_fates: tuple[str, ...] = ("RRF", "RFR", "FRR", "RFF", "FRF", "FFR")
    three_player_removed: tuple[str, ...] = ("RFR", "RRF", "RFF")
    palette: tuple[str, ...] = ("#e53935",)

    def board(self, name: str) -> BattleBoard:
        """The battle board called ``name`` (any case)."""
        return _find(self.boards, name, "battle board")

    def character(self, name: str) -> Character:
        """The character called ``name`` (any case)."""
        return _find(self.characters, name, "character")

    def fate_deck(self, characters: int, *, all_fates: bool = False) -> tuple[str, ...]:
        """The Hero's Fate deck for this many characters (3 lose RFR, RRF and RFF)."""
        if characters == 3 and not all_fates:
            return tuple(f for f in self.hero_fates if f not in self.three_player_removed)
        return self.hero_fates

    @classmethod
    def load(cls) -> RunecastContent:
        """Read the three ``runecast/*.toml`` files from the data folders."""
        where = "runecast/defaults.toml"
        defaults = content.load(where)
        starting_hp = _positive(defaults, "starting_hp", where)
        hit = content.require(defaults, "loki_hit", object, where)
        if hit != "hammers" and not (isinstance(hit, int) and not isinstance(hit, bool) and hit > 0):
            raise ContentError(f"{where}: loki_hit must be \"hammers\" or a whole number of at "
                               f"least 1, got {hit!r}")
        hero_fates = tuple(_runes(f, where, "hero_fates")
                           for f in content.require(defaults, "hero_fates", list, where))
        if len(set(hero_fates)) != len(hero_fates) or {FOILED, EVERYONE} & set(hero_fates):
            raise ContentError(f"{where}: hero_fates must be different triplets, "
                               f"never {FOILED} or {EVERYONE}")
        removed = tuple(_runes(f, where, "three_player_removed")
                        for f in content.require(defaults, "three_player_removed", list, where))
        return cls(
            boards=_boards(content.load("runecast/battles.toml")),
            characters=_characters(content.load("runecast/characters.toml"), starting_hp),
            tables=_tables(content.require(defaults, "characters", dict, where), where),
            dice_total=_positive(defaults, "dice_total", where),
            loki_hit=None if hit == "hammers" else hit,
            refill_dice=content.require(defaults, "refill_dice", bool, where),
            card_sets=_positive(defaults, "card_sets", where),
            hero_fates=hero_fates,
            three_player_removed=removed,
            palette=tuple(content.require(defaults, "palette", list, where)) or ("#e53935",),
        )


def parse_runes(text: str) -> str | None:
    """``text`` as an upper-case rune triplet, or None if it is not three R/F runes."""
    word = text.strip().upper()
    return word if len(word) == 3 and set(word) <= RUNES else None


def _runes(value: Any, where: str, key: str) -> str:
    runes = parse_runes(value) if isinstance(value, str) else None
    if runes is None:
        raise ContentError(f"{where}: {key} holds {value!r}; a rune set is three of R and F")
    return runes


def _find(entries: Mapping[str, Named], name: str, what: str) -> Named:
    folded = name.strip().casefold()
    for key, entry in entries.items():
        if key.casefold() == folded:
            return entry
    known = ", ".join(entries) or "none"
    raise UnknownName(f"unknown {what} {name!r}; the known ones are: {known}")


def _positive(entry: Mapping[str, Any], key: str, where: str) -> int:
    value: int = content.require(entry, key, int, where)
    if value < 1:
        raise ContentError(f"{where}: {key} must be at least 1, got {value}")
    return value


def _tables(rows: Mapping[str, Any], where: str) -> dict[int, Table]:
    tables: dict[int, Table] = {}
    for key, row in rows.items():
        here = f"{where} [characters.{key}]"
        if not key.isdigit() or not isinstance(row, dict):
            raise ContentError(f"{here}: each row is a table named for a number of characters")
        tables[int(key)] = Table(*(_positive(row, k, here) for k in ("fate_cards", "battles", "dice")))
    return tables


def _trigger(entry: Mapping[str, Any], key: str, face: str, where: str) -> Trigger:
    table = content.require(entry, key, dict, where)
    return Trigger(_positive(table, face, f"{where} {key}"),
                   content.require(table, "text", str, f"{where} {key}"))


def _boards(data: Mapping[str, Any]) -> dict[str, BattleBoard]:
    boards: dict[str, BattleBoard] = {}
    for i, entry in enumerate(data.get("battle", []), 1):
        name = content.require(entry, "name", str, f"runecast/battles.toml, battle {i}").strip()
        where = f"runecast/battles.toml, battle {name!r}"
        if name.casefold() in (n.casefold() for n in boards):
            raise ContentError(f"{where}: two battles share this name")
        boards[name] = BattleBoard(name, _positive(entry, "wounds", where),
                                   _trigger(entry, "special", "snakes", where),
                                   _trigger(entry, "boon", "trees", where))
    return boards


def _characters(data: Mapping[str, Any], starting_hp: int) -> dict[str, Character]:
    characters: dict[str, Character] = {}
    for i, entry in enumerate(data.get("character", []), 1):
        name = content.require(entry, "name", str, f"runecast/characters.toml, character {i}")
        name = name.strip()
        where = f"runecast/characters.toml, character {name!r}"
        if name.casefold() in (n.casefold() for n in characters):
            raise ContentError(f"{where}: two characters share this name")
        if any(c in RESERVED for c in name) or name.isdigit():
            raise ContentError(f"{where}: a character's name cannot be a number or hold any "
                               f"of {' '.join(RESERVED)}")
        hp = _positive(entry, "hp", where) if "hp" in entry else starting_hp
        colour = content.require(entry, "colour", str, where) if "colour" in entry else None
        characters[name] = Character(name, hp, content.require(entry, "ability", str, where),
                                     colour)
    return characters
