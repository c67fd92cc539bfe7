"""Time for the panel: when a held button repeats, when a long press counts, when a tone stops.

Every timed behaviour of the panel asks one :class:`Clock` for the time and
for a call later, never ``time`` or ``threading`` directly. On the table that
is :class:`SystemClock`; tests and simulations use :class:`ManualClock`, whose
time moves only when told to, so "hold the button for 1.5 seconds" runs
exactly and at once instead of sleeping.
"""

from __future__ import annotations

import heapq
import itertools
import threading
import time
from collections.abc import Callable
from typing import Protocol

__all__ = ["Clock", "ManualClock", "SystemClock", "Timer"]


class Timer(Protocol):
    """A call waiting to happen; cancelling a call that already ran does nothing."""

    def cancel(self) -> None: ...


class Clock(Protocol):
    def monotonic(self) -> float:
        """Seconds from an arbitrary start; never goes backwards."""
        ...

    def call_later(self, delay: float, fn: Callable[[], None]) -> Timer:
        """Call ``fn()`` once, ``delay`` seconds from now, on a thread of the clock's choosing."""
        ...


class SystemClock:
    """The real clock: ``time.monotonic``, and a daemon timer thread per waiting call.

    The panel has at most a few calls waiting at once (one per held button, one
    per sounding tone), so a thread each is cheaper than it sounds and needs no
    scheduler of our own.
    """

    def monotonic(self) -> float:
        return time.monotonic()

    def call_later(self, delay: float, fn: Callable[[], None]) -> Timer:
        timer = threading.Timer(max(0.0, delay), fn)
        timer.daemon = True
        timer.start()
        return timer


class _ManualTimer:
    __slots__ = ("cancelled",)

    def __init__(self) -> None:
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


class ManualClock:
    """A clock that stands still until :meth:`advance` moves it.

    ``advance`` runs every call that falls due, in time order, on the calling
    thread, with :meth:`monotonic` reading each call's own due time, so a call
    that schedules another (a repeat scheduling the next repeat) sees exactly
    the time it would have seen on the table.
    """

    def __init__(self, start: float = 0.0) -> None:
        self._now = start
        self._order = itertools.count()
        self._due: list[tuple[float, int, _ManualTimer, Callable[[], None]]] = []

    def monotonic(self) -> float:
        return self._now

    def call_later(self, delay: float, fn: Callable[[], None]) -> Timer:
        timer = _ManualTimer()
        heapq.heappush(self._due, (self._now + max(0.0, delay), next(self._order), timer, fn))
        return timer

    def advance(self, seconds: float) -> None:
        """Move time forward by ``seconds``, running what falls due on the way."""
        if seconds < 0:
            raise ValueError(f"time only moves forward; cannot advance by {seconds}")
        end = self._now + seconds
        while self._due and self._due[0][0] <= end:
            when, _, timer, fn = heapq.heappop(self._due)
            self._now = max(self._now, when)
            if not timer.cancelled:
                fn()
        self._now = end

    @property
    def waiting(self) -> int:
        """How many calls are still to come (cancelled ones excluded)."""
        return sum(1 for _, _, timer, _ in self._due if not timer.cancelled)
