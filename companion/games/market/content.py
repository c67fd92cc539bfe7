"""The Rune Market's numbers: the deck, prices, interest and points, from ``market/deck.toml``."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from companion.core import content
from companion.core.errors import ContentError

WHERE = "market/deck.toml"


@dataclass(frozen=True)
class MarketContent:
    """Everything numeric about the game (the rule book's numbers are in the data file)."""

    red: int
    blue: int
    outposts: int
    bandits: int
    min_players: int
    max_players: int
    hand_size: int
    number_min: int
    number_max: int
    price_runes: Mapping[int, int]
    """Runes of one colour for an outpost or a bandit, by number of players."""
    price_cards: int
    rune_sums: Mapping[int, int]
    """Number-card sum → runes it buys."""
    ransom_cards: int
    ransom_runes: int
    interest: int
    interest_with_outpost: int
    rune_points: int
    main_shelter_points: int
    outpost_points: int
    bandit_points: int
    palette: tuple[str, ...]

    def price(self, players: int) -> int:
        """Runes of one colour that an outpost or a bandit costs at a table of ``players``."""
        return self.price_runes[players]

    @classmethod
    def load(cls) -> MarketContent:
        """Read ``market/deck.toml`` from the data folders (user files override keys)."""
        data = content.load(WHERE)

        def number(table: str, key: str, minimum: int | None = 0) -> int:
            section = content.require(data, table, dict, WHERE)
            value: int = content.require(section, key, int, f"{WHERE} [{table}]")
            if minimum is not None and value < minimum:
                raise ContentError(f"{WHERE} [{table}]: {key} must be at least {minimum}, "
                                   f"got {value}")
            return value

        min_players = number("players", "min", 2)
        max_players = number("players", "max", min_players)
        prices = content.require(data, "prices", dict, WHERE)
        price_runes = _by_number(content.require(prices, "runes", dict, WHERE + " [prices]"),
                                 "[prices] runes", key_name="player count")
        missing = [n for n in range(min_players, max_players + 1) if n not in price_runes]
        if missing:
            raise ContentError(f"{WHERE} [prices] runes: no price for "
                               f"{', '.join(map(str, missing))} players")
        rune_sums = _by_number(content.require(prices, "rune_sums", dict, WHERE + " [prices]"),
                               "[prices] rune_sums", key_name="sum")
        number_min = number("hand", "number_min")
        palette = content.require(content.require(data, "colours", dict, WHERE), "palette", list,
                                  WHERE + " [colours]")
        if not palette or not all(isinstance(c, str) for c in palette):
            raise ContentError(f"{WHERE} [colours]: palette must be a list of #rrggbb strings")
        return cls(
            red=number("market", "red"),
            blue=number("market", "blue"),
            outposts=number("market", "outposts"),
            bandits=number("market", "bandits"),
            min_players=min_players,
            max_players=max_players,
            hand_size=number("hand", "size", 1),
            number_min=number_min,
            number_max=number("hand", "number_max", number_min),
            price_runes=price_runes,
            price_cards=number("prices", "cards", 1),
            rune_sums=rune_sums,
            ransom_cards=number("ransom", "cards", 1),
            ransom_runes=number("ransom", "runes", 1),
            interest=number("interest", "shelter"),
            interest_with_outpost=number("interest", "with_outpost"),
            rune_points=number("points", "rune", None),
            main_shelter_points=number("points", "main_shelter", None),
            outpost_points=number("points", "outpost", None),
            bandit_points=number("points", "bandit", None),
            palette=tuple(palette),
        )


def _by_number(table: Mapping[str, Any], where: str, *, key_name: str) -> dict[int, int]:
    """A TOML table with whole-number keys (``{ 2 = 4, 3 = 3 }``) and positive values."""
    out: dict[int, int] = {}
    for key, value in table.items():
        if not str(key).isdigit():
            raise ContentError(f"{WHERE} {where}: the key {key!r} must be a {key_name}")
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise ContentError(f"{WHERE} {where}: {key} = {value!r} must be a whole number "
                               "of at least 1")
        out[int(key)] = value
    if not out:
        raise ContentError(f"{WHERE} {where}: must not be empty")
    return out
