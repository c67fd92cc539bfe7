"""A tracker with no hardware: it remembers what it was told, for the demo and the tests.

On a table without LEDs the simulated trackers still log what each seat would
show, which makes the rest of the chain (assignment, blinking, changes) visible.
"""

from __future__ import annotations

import logging
from collections import deque

from .base import Seat, Tracker

__all__ = ["SimulatedTracker"]

log = logging.getLogger(__name__)


class SimulatedTracker(Tracker):
    """Keeps its seat and brightness, the last documents it was shown, and its blinks."""

    kind = "simulated"
    HISTORY = 100

    def __init__(self, tracker_id: str) -> None:
        super().__init__(tracker_id)
        self.seat: int | None = None
        self.brightness: float | None = None
        self.shown: Seat | None = None
        self.history: deque[Seat | None] = deque(maxlen=self.HISTORY)
        self.blinks: list[float] = []

    def assign(self, seat: int | None, brightness: float | None = None) -> None:
        self.seat = seat
        self.brightness = brightness

    def show(self, seat: Seat | None) -> None:
        self.shown = seat
        self.history.append(seat)
        if seat is None:
            log.debug("tracker %s: dark", self.id)
        else:
            log.debug("tracker %s: seat %s %s hp=%s tier=%s", self.id, seat.get("seat"),
                      seat.get("name"), seat.get("hp"), seat.get("tier"))

    def blink(self, seconds: float) -> None:
        self.blinks.append(seconds)
        log.info("tracker %s blinks for %.1f s", self.id, seconds)
