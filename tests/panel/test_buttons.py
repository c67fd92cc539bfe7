"""Buttons: each control's action, bounce, hold-repeat, stuck buttons, long presses, two at once."""

from __future__ import annotations

import logging

import pytest

from companion.panel import GameMapping, PanelConfig, Request
from tests.panel.conftest import Rig


def test_a_press_of_minus_damages_that_seat(rig: Rig) -> None:
    rig.tap("minus", 3)
    assert rig.sent == ["damage 3 1"]
    assert rig.pump() == 1
    assert rig.hp(3) == 11


@pytest.mark.parametrize(("function", "seat", "command"), [
    ("plus", 4, "heal 4 1"),
    ("minus", 5, "damage 5 1"),
    ("next", None, "next"),
    ("undo", None, "undo"),
    ("redo", None, "redo"),
])
def test_each_button_sends_its_command(rig: Rig, function: str, seat: int | None,
                                       command: str) -> None:
    rig.tap(function, seat)
    assert rig.sent == [command]


def test_next_undo_and_redo_move_the_game(rig: Rig) -> None:
    session = rig.table.session
    assert session is not None
    rig.tap("next")
    rig.pump()
    assert session.state.phase == "action"
    rig.tap("undo")
    rig.pump()
    assert session.state.phase == "start"
    rig.tap("redo")
    rig.pump()
    assert session.state.phase == "action"


def test_bounce_within_the_debounce_time_is_one_press(rig: Rig) -> None:
    pin = rig.pin("minus", 6)
    for _ in range(4):  # the contacts chatter for a few milliseconds
        pin.drive_low()
        rig.clock.advance(0.002)
        pin.drive_high()
        rig.clock.advance(0.002)
    pin.drive_low()
    rig.clock.advance(0.3)
    pin.drive_high()  # and again on release
    rig.clock.advance(0.002)
    pin.drive_low()
    rig.clock.advance(0.002)
    pin.drive_high()
    rig.clock.advance(0.5)
    assert rig.sent == ["damage 6 1"]


@pytest.mark.parametrize("config", [PanelConfig(bounce_time=0)])
def test_without_debounce_the_same_chatter_would_be_many_presses(rig: Rig) -> None:
    pin = rig.pin("next")
    for _ in range(3):
        pin.drive_low()
        rig.clock.advance(0.002)
        pin.drive_high()
        rig.clock.advance(0.002)
    assert rig.sent == ["next"] * 3


def test_presses_further_apart_than_the_debounce_time_all_count(rig: Rig) -> None:
    for _ in range(3):
        rig.tap("next", seconds=0.05)
    assert rig.sent == ["next"] * 3


def test_holding_plus_repeats_faster_and_faster(rig: Rig) -> None:
    rig.press("plus", 3)
    # Defaults: first repeat after 0.6 s, then 0.3 s, 0.225 s, 0.169 s, 0.127 s, 0.1 s...
    rig.clock.advance(0.59)
    assert len(rig.sent) == 1
    rig.clock.advance(0.01)
    assert len(rig.sent) == 2
    rig.clock.advance(0.9)  # 1.5 s in all: repeats at 0.6, 0.9, 1.125, 1.294, 1.420
    assert rig.sent == ["heal 3 1"] * 6
    rig.release("plus", 3)
    rig.clock.advance(5)
    assert len(rig.sent) == 6


@pytest.mark.parametrize("config", [PanelConfig(repeat_delay=0.5, repeat_interval=0.25,
                                                repeat_acceleration=1.0)])
def test_hold_repeat_follows_the_settings(rig: Rig) -> None:
    rig.press("plus", 5)
    rig.clock.advance(2.0)  # repeats at 0.5, 0.75, 1.0, ..., 2.0: seven
    rig.release("plus", 5)
    assert len(rig.sent) == 8


def test_held_repeats_change_hp_one_by_one(rig: Rig) -> None:
    rig.table.submit("set 4 5")
    rig.pump()
    rig.press("plus", 4)
    rig.clock.advance(1.0)  # the press and two repeats
    rig.release("plus", 4)
    rig.pump()
    assert rig.hp(4) == 8


def test_a_stuck_button_stops_repeating_at_the_cap_and_warns(
        rig: Rig, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="companion.panel")
    rig.press("plus", 6)
    rig.clock.advance(600)  # ten minutes
    assert len(rig.sent) == 1 + rig.panel.config.repeat_limit
    assert rig.clock.waiting == 0
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1
    assert "seat 6 +1" in warnings[0].getMessage()
    assert "is it stuck" in warnings[0].getMessage()
    rig.release("plus", 6)
    assert "released after 600 s" in caplog.records[-1].getMessage()
    assert rig.pump() == 21


def test_a_stuck_button_does_not_stop_the_others(rig: Rig) -> None:
    rig.press("plus", 6)
    rig.clock.advance(600)
    rig.sent.clear()
    rig.tap("minus", 3)
    assert rig.sent == ["damage 3 1"]


def test_holding_minus_for_two_seconds_defeats_instead(rig: Rig) -> None:
    rig.press("minus", 4)
    rig.clock.advance(1.99)
    assert rig.sent == []
    rig.clock.advance(0.01)
    assert rig.sent == ["defeat 4"]
    rig.clock.advance(30)
    rig.release("minus", 4)
    assert rig.sent == ["defeat 4"]
    rig.pump()
    assert rig.hp(4) == 0


def test_minus_released_before_the_long_press_damages_on_release(rig: Rig) -> None:
    rig.press("minus", 5)
    rig.clock.advance(1.5)
    assert rig.sent == []
    rig.release("minus", 5)
    assert rig.sent == ["damage 5 1"]


def test_two_buttons_pressed_at_once_both_count(rig: Rig) -> None:
    rig.press("minus", 3)
    rig.press("plus", 4)
    rig.clock.advance(0.1)
    rig.release("plus", 4)
    rig.release("minus", 3)
    assert sorted(rig.sent) == ["damage 3 1", "heal 4 1"]


def test_two_buttons_held_at_once_repeat_and_long_press_independently(rig: Rig) -> None:
    rig.press("plus", 3)
    rig.press("plus", 4)
    rig.clock.advance(0.3)
    rig.press("minus", 5)
    rig.clock.advance(2.2)  # plus: 2.5 s held; minus: 2.2 s held
    for function, seat in (("plus", 3), ("plus", 4), ("minus", 5)):
        rig.release(function, seat)
    assert rig.sent.count("heal 3 1") == rig.sent.count("heal 4 1") == 16
    assert rig.sent.count("defeat 5") == 1
    assert "damage 5 1" not in rig.sent


def test_a_control_the_game_does_not_map_is_refused_and_sends_nothing(rig: Rig) -> None:
    rig.tap("f2")
    assert rig.sent == []
    assert rig.panel.feedback.buzzer is not None
    assert rig.panel.feedback.buzzer.tone == rig.panel.feedback.REFUSED[0]


def test_read_dice_asks_the_app(rig: Rig) -> None:
    asked: list[Request] = []
    rig.panel.when_request = asked.append
    rig.panel.use(GameMapping.from_data("zun", {"read_dice": {"press": "@read_dice roll"}}))
    rig.tap("read_dice")
    assert asked == [Request("read_dice", "roll")]
    assert rig.sent == []


def test_a_request_with_nothing_wired_is_refused(rig: Rig,
                                                 caplog: pytest.LogCaptureFixture) -> None:
    rig.tap("confirm")
    assert "nothing is wired" in caplog.text
    assert rig.panel.feedback.buzzer is not None
    assert rig.panel.feedback.buzzer.tone == rig.panel.feedback.REFUSED[0]


def test_a_failing_request_handler_does_not_break_the_panel(
        rig: Rig, caplog: pytest.LogCaptureFixture) -> None:
    def broken(request: Request) -> None:
        raise RuntimeError("the broker is down")

    rig.panel.when_request = broken
    rig.tap("cancel")
    assert "when_request failed" in caplog.text
    rig.tap("next")
    assert rig.sent == ["next"]



def test_pins_show_which_contacts_are_closed(rig: Rig) -> None:
    rig.press("plus", 3)
    rig.press("encoder", 2, "b")
    closed = [(p.name, p.pin) for p in rig.panel.pins() if p.pressed]
    assert closed == [("seat 2 HP dial B", 6), ("seat 3 +1", 24)]
    assert len(rig.panel.pins()) == 22  # every input; not the LED nor the buzzer
