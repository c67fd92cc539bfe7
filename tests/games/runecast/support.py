"""Runecast test content: the rule book's tables with small, predictable boards and characters.

Unit tests use this instead of the shipped sample data, so that editing a sample board or
a user's own data folder can never change what a rule test means.
"""

from __future__ import annotations

from collections.abc import Iterable

from companion.core.events import Event
from companion.core.session import Session, parse_setup
from companion.games.runecast.content import (
    BattleBoard, Character, RunecastContent, Table, Trigger,
)
from companion.games.runecast.engine import RunecastRules
from companion.games.runecast.state import RunecastState

RULEBOOK_TABLES = {
    2: Table(fate_cards=10, battles=4, dice=12),
    3: Table(fate_cards=8, battles=6, dice=8),
    4: Table(fate_cards=7, battles=8, dice=6),
    5: Table(fate_cards=6, battles=10, dice=4),
    6: Table(fate_cards=6, battles=12, dice=4),
}
"""Table-1 (Fate cards), Table-2 (battle boards) and Table-3 (dice pool), by characters."""


def _board(name: str, wounds: int, snakes: int, trees: int) -> BattleBoard:
    return BattleBoard(name, wounds, Trigger(snakes, f"{name} strikes"),
                       Trigger(trees, f"{name} blesses"))


BOARDS = [
    _board("Small", 4, 3, 2),
    _board("Medium", 6, 4, 3),
    _board("Large", 8, 5, 4),
    _board("Endless", 99, 4, 3),
    *(_board(f"Board {i}", 5 + i, 3 + i % 3, 2 + i % 3) for i in range(1, 11)),
]

CHARACTERS = [
    Character("Astrid", 10, "Rally: a hero adds 1 die to their pool.", "#e53935"),
    Character("Bjorn", 12, "Berserker: add 1 die to your pool.", "#1e88e5"),
    Character("Eira", 9, "Heal another hero 2 HP."),
    Character("Gunnar", 11, "Deal 1 wound."),
    Character("Sigrun", 10, "Look at a Fate card."),
    Character("Ulf", 8, "Take a die back from Loki."),
]

CONTENT = RunecastContent(
    boards={b.name: b for b in BOARDS},
    characters={c.name: c for c in CHARACTERS},
    tables=RULEBOOK_TABLES,
    palette=("#111111", "#222222", "#333333", "#444444", "#555555", "#666666"),
)

RULES = RunecastRules(CONTENT)


def game(setup: str, *actions: str) -> Session[RunecastState]:
    """A new unsaved game of the test content, after ``actions``."""
    session: Session[RunecastState] = Session(RULES, parse_setup(RULES, setup))
    for line in actions:
        session.play(line)
    return session


def kinds(events: Iterable[Event]) -> list[str]:
    return [e.kind for e in events]


def round_of(session: Session[RunecastState], *rolls: str) -> list[Event]:
    """Every living hero in turn rolls one of ``rolls`` (``"3 2 1"``) and ends the turn."""
    out: list[Event] = []
    for faces in rolls:
        out.extend(session.play(f"roll {faces}"))
        out.extend(session.play("next"))
    return out
