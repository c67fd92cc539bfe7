"""Feedback: the game's answer to a press drives the status LED and the buzzer."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest
from gpiozero.tones import Tone

from companion.panel import PanelConfig
from tests.panel.conftest import Rig


def eventually(check: Callable[[], bool], timeout: float = 3.0) -> None:
    """gpiozero blinks the LED on its own thread, in real time: wait for it, briefly."""
    end = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < end, "the LED did not finish blinking"
        time.sleep(0.01)


def led_states(rig: Rig) -> list[float]:
    return [s.state for s in rig.pin("status_led").states]


def test_an_accepted_action_beeps_high_and_flashes_once(rig: Rig) -> None:
    rig.tap("minus", 3)
    rig.pump()
    buzzer = rig.panel.feedback.buzzer
    assert buzzer is not None
    assert buzzer.tone == Tone("A5")
    rig.clock.advance(0.06)
    assert buzzer.tone is None
    eventually(lambda: len(led_states(rig)) >= 3)
    assert led_states(rig) == [0, 1, 0]


def test_a_refused_action_beeps_low_and_flashes_three_times(rig: Rig) -> None:
    rig.tap("undo")  # nothing to undo at the start of a game
    rig.pump()
    buzzer = rig.panel.feedback.buzzer
    assert buzzer is not None
    assert buzzer.tone == Tone("A3")
    rig.clock.advance(0.3)
    assert buzzer.tone is None
    eventually(lambda: len(led_states(rig)) >= 7)
    assert led_states(rig) == [0, 1, 0, 1, 0, 1, 0]


def test_a_new_tone_is_not_cut_short_by_the_last_ones_stop(rig: Rig) -> None:
    rig.tap("undo")  # 0.2 s
    rig.pump()  # refused: a low tone until 0.5 s
    rig.clock.advance(0.22)
    rig.press("minus", 3)
    rig.clock.advance(0.025)
    rig.release("minus", 3)
    rig.pump()  # accepted at 0.445 s: a high tone until 0.505 s
    buzzer = rig.panel.feedback.buzzer
    assert buzzer is not None
    assert buzzer.tone == Tone("A5")
    rig.clock.advance(0.057)  # 0.502 s: past the low tone's end
    assert buzzer.tone == Tone("A5")
    rig.clock.advance(0.01)
    assert buzzer.tone is None


def test_a_stuck_button_blinks_until_released(rig: Rig) -> None:
    rig.press("plus", 4)
    rig.clock.advance(60)
    led = rig.panel.feedback.led
    assert led is not None
    eventually(lambda: len(led_states(rig)) >= 4)  # still blinking, long after the flashes
    rig.release("plus", 4)
    assert not led.is_lit


@pytest.mark.parametrize("config", [PanelConfig(sound=False)])
def test_sound_can_be_turned_off(rig: Rig) -> None:
    rig.tap("minus", 3)
    rig.pump()
    assert rig.panel.feedback.buzzer is None
    assert rig.pin("buzzer").frequency is None
