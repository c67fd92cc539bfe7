"""The panel's clocks: the real one calls back on time, the manual one exactly when told."""

from __future__ import annotations

import threading

import pytest

from companion.panel import ManualClock, SystemClock
from tests.panel.conftest import Rig


def test_the_system_clock_calls_back_and_can_be_cancelled() -> None:
    clock = SystemClock()
    called = threading.Event()
    cancelled = threading.Event()
    start = clock.monotonic()
    clock.call_later(0.02, called.set)
    clock.call_later(0.02, cancelled.set).cancel()
    assert called.wait(5)
    assert clock.monotonic() - start >= 0.02
    assert not cancelled.wait(0.1)


def test_the_manual_clock_runs_due_calls_in_order_at_their_own_time() -> None:
    clock = ManualClock()
    seen: list[tuple[str, float]] = []

    def first() -> None:
        seen.append(("a", clock.monotonic()))
        clock.call_later(0.5, lambda: seen.append(("a2", clock.monotonic())))

    clock.call_later(2, lambda: seen.append(("b", clock.monotonic())))
    clock.call_later(1, first)
    clock.call_later(3, lambda: seen.append(("late", clock.monotonic()))).cancel()
    clock.advance(2.5)
    assert seen == [("a", 1), ("a2", 1.5), ("b", 2)]
    assert clock.monotonic() == 2.5
    assert clock.waiting == 0
    with pytest.raises(ValueError):
        clock.advance(-1)


def test_closing_the_panel_ends_a_held_buttons_repeats(rig: Rig) -> None:
    rig.press("plus", 3)
    rig.panel.close()
    rig.clock.advance(5)
    assert rig.sent == ["heal 3 1"]
