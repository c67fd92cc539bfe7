"""Seat dials: steps add up, however fast, and a push sends the net turn as one action."""

from __future__ import annotations

import pytest

from companion.panel import Request
from tests.panel.conftest import Rig


def test_turning_back_five_steps_and_pushing_damages_five(rig: Rig) -> None:
    rig.turn(1, -5)
    assert rig.sent == []
    assert rig.panel.pending() == {1: -5}
    rig.tap("encoder", 1, "push")
    assert rig.sent == ["damage 1 5"]
    rig.pump()
    assert rig.hp(1) == 7
    assert rig.panel.pending() == {}


def test_a_fast_spin_between_two_reads_of_the_loop_counts_every_step(rig: Rig) -> None:
    rig.turn(2, -9)  # no clock time passes: faster than anything reads it
    rig.turn(2, 3)
    rig.tap("encoder", 2, "push")
    rig.turn(2, -1)  # after the push: the next turn
    assert rig.sent == ["damage 2 6"]
    rig.pump()
    assert rig.hp(2) == 6
    assert rig.panel.pending() == {2: -1}


def test_clockwise_heals(rig: Rig) -> None:
    rig.table.submit("set 1 5")
    rig.pump()
    rig.turn(1, 2)
    rig.tap("encoder", 1, "push")
    assert rig.sent[-1] == "heal 1 2"
    rig.pump()
    assert rig.hp(1) == 7


def test_contact_jiggle_that_never_completes_a_step_counts_nothing(rig: Rig) -> None:
    a, b = rig.pin("encoder", 1, "a"), rig.pin("encoder", 1, "b")
    for _ in range(5):  # A closes and opens again, half-way into a detent
        a.drive_low()
        a.drive_high()
    a.drive_low()  # B bounces in the middle of a real step, which still counts once
    b.drive_low()
    b.drive_high()
    b.drive_low()
    a.drive_high()
    b.drive_high()
    assert rig.panel.pending() == {1: 1}


def test_a_push_without_a_turn_does_nothing(rig: Rig) -> None:
    rig.tap("encoder", 1, "push")
    assert rig.sent == []


def test_confirm_sends_every_dial_and_cancel_forgets(rig: Rig) -> None:
    rig.turn(1, -2)
    rig.turn(2, -3)
    rig.tap("confirm")
    assert sorted(rig.sent) == ["damage 1 2", "damage 2 3"]
    rig.turn(1, -4)
    rig.tap("cancel")
    assert rig.panel.pending() == {}
    rig.tap("confirm")  # nothing pending: the request goes to the app
    assert len(rig.sent) == 2


@pytest.mark.parametrize("button", ["confirm", "cancel"])
def test_confirm_and_cancel_with_nothing_pending_ask_the_app(rig: Rig, button: str) -> None:
    asked: list[Request] = []
    rig.panel.when_request = asked.append
    rig.tap(button)
    assert asked == [Request(button)]  # type: ignore[arg-type]


def test_a_new_game_drops_turns_not_yet_sent(rig: Rig) -> None:
    rig.turn(1, -3)
    rig.table.start("zun", "players=Ann,Bob")
    rig.tap("encoder", 1, "push")
    assert rig.sent == []
