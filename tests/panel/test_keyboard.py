"""The desktop demo: keys drive the simulated pins, so the panel's own code does the rest."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from companion.core.journal import Journal
from companion.panel import ButtonPanel, ManualClock, PanelConfig, PanelError
from companion.panel.keyboard import KeyboardPanel
from companion.table import Table


@pytest.fixture
def demo() -> Iterator[tuple[KeyboardPanel, list[str], Table]]:
    table = Table(Journal(":memory:"))
    table.start("zun", "players=Ann,Bob,Cid")
    sent: list[str] = []
    submit = table.submit

    def spy(command: Any, **kwargs: Any) -> bool:
        sent.append(str(command))
        return submit(command, **kwargs)

    table.submit = spy  # type: ignore[method-assign]
    panel = ButtonPanel(table, config=PanelConfig(pins="mock"), clock=ManualClock()).start()
    yield KeyboardPanel(panel), sent, table
    factory = panel.pin_factory
    panel.close()
    assert factory is not None
    factory.close()


def test_a_key_presses_its_button(demo: tuple[KeyboardPanel, list[str], Table]) -> None:
    keys, sent, _ = demo
    assert keys.key_down("spacebar")
    assert keys.key_up("spacebar")
    assert sent == ["next"]


def test_a_held_key_that_the_system_repeats_is_one_press(
        demo: tuple[KeyboardPanel, list[str], Table]) -> None:
    keys, sent, _ = demo
    for _ in range(5):
        keys.key_down("A")  # seat 3 -1: acts on release
    keys.key_up("a")
    assert sent == ["damage 3 1"]


def test_dial_keys_turn_and_push(demo: tuple[KeyboardPanel, list[str], Table]) -> None:
    keys, sent, table = demo
    for _ in range(4):
        keys.key_down("q")
        keys.key_up("q")
    keys.key_down("w")
    keys.key_down("e")
    keys.key_up("e")
    assert sent == ["damage 1 3"]
    table.pump()
    assert table.session is not None
    assert table.session.state.players[0].hp == 9


def test_other_keys_are_left_to_the_screen(demo: tuple[KeyboardPanel, list[str], Table]) -> None:
    keys, sent, _ = demo
    assert not keys.key_down("p")
    assert not keys.key_up("p")
    assert sent == []


def test_the_help_says_what_each_key_is(demo: tuple[KeyboardPanel, list[str], Table]) -> None:
    keys, _, _ = demo
    assert keys.help["s"] == "seat 3 +1"
    assert keys.help["e"] == "seat 1 HP dial push"
    assert keys.help["q"].startswith("seat 1 HP dial counter-clockwise")


def test_keys_need_a_started_panel_on_simulated_pins() -> None:
    with pytest.raises(PanelError, match="only on simulated pins"):
        KeyboardPanel(ButtonPanel(Table(Journal(":memory:"))))


def test_every_control_is_a_switch_for_the_screen(
        demo: tuple[KeyboardPanel, list[str], Table]) -> None:
    keys, sent, _ = demo
    names = [s.name for s in keys.switches]
    assert len(names) == len(set(names)) == 22, "every button, and three per dial"
    assert names[:3] == ["seat 1 HP dial ccw", "seat 1 HP dial push", "seat 1 HP dial cw"]
    switch = {s.name: s for s in keys.switches}
    for _ in range(2):
        switch["seat 2 HP dial ccw"].press()
        switch["seat 2 HP dial ccw"].release()
    switch["seat 2 HP dial push"].press()
    switch["seat 2 HP dial push"].release()
    switch["Undo"].press()
    switch["Undo"].release()
    assert sent == ["damage 2 2", "undo"]
    assert switch["Next"].key == "spacebar" and switch["seat 3 +1"].key == "s"
