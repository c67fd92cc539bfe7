"""Players at the table: finding them by name or seat, and checking names at setup.

Every game refers to players the same way, so a button, the camera, MQTT and a
typed command all agree: a name in any case (``ann``), or a seat number
(``2``). Names may therefore never be numbers.
"""

from __future__ import annotations

from collections.abc import Sequence

from .actions import whole_number
from .errors import SetupError, UnknownPlayer

__all__ = ["check_names", "find_seat"]

RESERVED = ",+:="
"""Characters that separate players in setup text, so they cannot appear in names."""


def find_seat(names: Sequence[str], ref: str) -> int:
    """The 0-based seat of the player ``ref`` (a name in any case, or a 1-based seat number)."""
    text = ref.strip()
    seat = whole_number(text)
    if seat is not None:
        if 1 <= seat <= len(names):
            return seat - 1
        raise UnknownPlayer(f"there is no seat {seat}; the seats are 1 to {len(names)}")
    folded = text.casefold()
    for seat, name in enumerate(names):
        if name.casefold() == folded:
            return seat
    raise UnknownPlayer(f"no player called {ref!r} at the table (players: {', '.join(names)})")


def check_names(names: Sequence[str], *, minimum: int, maximum: int | None = None,
                game: str) -> tuple[str, ...]:
    """Player names for a new game, stripped, or a SetupError saying what is wrong."""
    clean = tuple(n.strip() for n in names)
    if len(clean) < minimum:
        raise SetupError(f"{game} needs at least {minimum} players, got {len(clean)}")
    if maximum is not None and len(clean) > maximum:
        raise SetupError(f"{game} is for at most {maximum} players, got {len(clean)}")
    seen: set[str] = set()
    for name in clean:
        if not name:
            raise SetupError("a player's name cannot be empty")
        if whole_number(name) is not None:
            raise SetupError(f"a player's name cannot be a number ({name!r}): numbers mean seats")
        if any(c in RESERVED for c in name):
            raise SetupError(f"a player's name cannot contain any of {' '.join(RESERVED)}: {name!r}")
        if name.casefold() in seen:
            raise SetupError(f"two players are called {name!r}; give one of them another name")
        seen.add(name.casefold())
    return clean
