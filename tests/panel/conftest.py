"""Fixtures for the panel: simulated pins on a manual clock, a Zun table, a started panel."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockPin

from companion.core.journal import Journal
from companion.panel import ButtonPanel, ManualClock, PanelConfig
from companion.panel.keyboard import drive_step
from companion.table import Table
from tests.support.pins import ClockedMockFactory

PLAYERS = "Ann,Bob,Cid,Dan,Eve,Fay"
"""Six players, one per seat of the shipped pin map."""


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def mock_factory(clock: ManualClock) -> Iterator[ClockedMockFactory]:
    """gpiozero's MockFactory installed as the pin factory, the previous one restored after."""
    saved = Device.pin_factory
    factory = ClockedMockFactory(clock)
    Device.pin_factory = factory
    yield factory
    factory.reset()
    Device.pin_factory = saved


@pytest.fixture
def table() -> Iterator[Table]:
    journal = Journal(":memory:")
    table = Table(journal)
    table.start("zun", f"players={PLAYERS}")
    yield table
    journal.close()


class Rig:
    """A started panel on simulated pins, with hands to press its buttons and eyes on the game."""

    def __init__(self, panel: ButtonPanel, table: Table, clock: ManualClock,
                 factory: ClockedMockFactory) -> None:
        self.panel, self.table, self.clock, self.factory = panel, table, clock, factory
        self.sent: list[str] = []
        submit = table.submit

        def spy(command: Any, **kwargs: Any) -> bool:
            self.sent.append(str(command))
            return submit(command, **kwargs)

        table.submit = spy  # type: ignore[method-assign]

    def pin(self, function: str, seat: int | None = None, role: str = "pin") -> MockPin:
        assert self.panel.pinmap is not None
        device = self.panel.pinmap.find(function, seat)
        assert device is not None, f"no {function} {seat} in the pin map"
        return self.factory.pin(f"GPIO{device.pins[role]}")

    def press(self, function: str, seat: int | None = None, role: str = "pin") -> None:
        self.pin(function, seat, role).drive_low()

    def release(self, function: str, seat: int | None = None, role: str = "pin") -> None:
        self.pin(function, seat, role).drive_high()

    def tap(self, function: str, seat: int | None = None, role: str = "pin",
            seconds: float = 0.1) -> None:
        """Press, hold for ``seconds`` (well under any repeat or long press), release."""
        self.press(function, seat, role)
        self.clock.advance(seconds)
        self.release(function, seat, role)
        self.clock.advance(seconds)

    def turn(self, seat: int, steps: int) -> None:
        """Turn seat's dial ``steps`` detents (negative: counter-clockwise), without pausing."""
        a, b = self.pin("encoder", seat, "a"), self.pin("encoder", seat, "b")
        for _ in range(abs(steps)):
            drive_step(a, b, clockwise=steps > 0)

    def pump(self) -> int:
        return self.table.pump()

    def hp(self, seat: int) -> int:
        assert self.table.session is not None
        hp: int = self.table.session.state.players[seat - 1].hp
        return hp


@pytest.fixture
def config() -> PanelConfig:
    return PanelConfig()


@pytest.fixture
def rig(table: Table, clock: ManualClock, mock_factory: ClockedMockFactory,
        config: PanelConfig) -> Iterator[Rig]:
    panel = ButtonPanel(table, config=config, clock=clock).start()
    yield Rig(panel, table, clock, mock_factory)
    panel.close()
