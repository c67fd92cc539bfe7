"""Simulated pins that keep the panel's time and honour debounce, for the panel tests.

gpiozero's ``MockPin`` stores a pin's ``bounce`` but ignores it, and stamps
its edges with the wall clock. The real drivers do drop bounce (lgpio in the
kernel, gpiozero's ``NativePin`` in software), so to test that the panel asks
for debouncing, these pins drop an edge that comes within ``bounce`` seconds
of the last one reported, as ``NativePin`` does, on the test's
:class:`ManualClock`. Everything else is gpiozero's own mock.
"""

from __future__ import annotations

from typing import Any

from gpiozero.pins.mock import MockFactory, MockPWMPin
from gpiozero.pins.pi import PiPin

from companion.panel.clock import ManualClock

__all__ = ["ClockedMockFactory", "DebouncedMockPin"]


class DebouncedMockPin(MockPWMPin):  # type: ignore[misc]
    """A simulated pin (PWM-capable, for the LED and buzzer) that drops bounce."""

    def __init__(self, factory: Any, info: Any) -> None:
        super().__init__(factory, info)
        self._last_call: float | None = None

    def _call_when_changed(self) -> None:
        ticks = self.factory.ticks()
        if (self._bounce is not None and self._last_call is not None
                and ticks - self._last_call < self._bounce):
            return
        self._last_call = ticks
        PiPin._call_when_changed(self, ticks, self._state)


class ClockedMockFactory(MockFactory):  # type: ignore[misc]
    """gpiozero's MockFactory, on the test's clock, making :class:`DebouncedMockPin` pins."""

    def __init__(self, clock: ManualClock) -> None:
        super().__init__(pin_class=DebouncedMockPin)
        self.clock = clock

    def ticks(self) -> float:
        return self.clock.monotonic()
