"""The interface every game's rules engine offers, and the registry of games.

A rules engine is pure: ``apply(state, action)`` returns the new state and the
events it caused, or raises a :class:`~companion.core.errors.RuleError`. It
reads no clock, does no I/O and draws no random number that is not seeded by
the action itself, so replaying a game's log always gives the same state.
States are immutable; the session keeps every one of them.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any, Protocol, TypeVar

from .actions import Action, ActionSet
from .errors import UnknownGame
from .events import Event

__all__ = ["Rules", "Setup", "GAMES", "rules_for"]

State = TypeVar("State")


class Setup(Action):
    """The options a game starts from.

    A setup is declared and parsed exactly like an action (its verb is the
    game's name), so ``zun players=Ann,Bob hp=12`` and
    ``{"action": "zun", "players": ["Ann", "Bob"], "hp": 12}`` both work and
    the journal stores it as JSON.
    """

    __slots__ = ()


class Rules(Protocol[State]):
    """One game's rules; the modules in :mod:`companion.games` provide them."""

    name: str
    """Short id used in files, topics and the journal: ``zun``."""
    title: str
    """The game's name for people: ``Runes of Zun``."""
    actions: ActionSet
    setup_type: type[Setup]

    def new_game(self, setup: Setup) -> State:
        """The state before the first action; raises SetupError for a setup the rules forbid."""
        ...

    def apply(self, state: State, action: Action) -> tuple[State, tuple[Event, ...]]:
        """The state after ``action`` and what happened, or a RuleError."""
        ...

    def finished(self, state: State) -> bool:
        """True once the game has a result and no further action is accepted."""
        ...

    def to_json(self, state: State) -> dict[str, Any]:
        """The state as JSON-ready data (the ``state`` MQTT topic and ``state --json``)."""
        ...

    def seats(self, state: State) -> list[dict[str, Any]]:
        """Per seat, just what an LED tracker shows (the ``seat/<n>`` MQTT topics).

        Every game gives, for each seat in order: ``seat`` (1-based), ``name``,
        ``colour`` (``#rrggbb``, the team's colour in team games), ``team``,
        ``hp`` and ``max`` (``None`` in a game without HP), ``tier`` (1 for
        1-4 HP, 2 for 5-8, ...; 0 when down), ``defeated``, ``active`` (their
        turn), ``winner`` (they, or their team, won) and ``over``. Runecast
        adds ``alive``, ``loki`` (agent of Loki), ``thrall`` and
        ``loki_pool``; the Rune Market adds ``runes``.
        """
        ...


GAMES: Mapping[str, str] = {
    "zun": "companion.games.zun",
    "runecast": "companion.games.runecast",
    "market": "companion.games.market",
}
"""Game id → module that defines ``RULES``; imported only when first used."""


def rules_for(name: str) -> Rules[Any]:
    """The rules engine of the game called ``name`` (``zun``, ``runecast``, ``market``)."""
    try:
        module = GAMES[name.strip().lower()]
    except KeyError:
        raise UnknownGame(f"unknown game {name!r}; the games are: {', '.join(GAMES)}") from None
    rules: Rules[Any] = importlib.import_module(module).RULES
    return rules
