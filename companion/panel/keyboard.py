"""The desktop demo's panel: keyboard keys stand for the buttons and dials.

On a desktop the panel runs on gpiozero's simulated pins, and the keys drive
those pins exactly as the switches would: a button's pin is pulled to GND
while its key is down, a dial key steps the encoder's two pins through one
detent. So the demo runs the same code as the table (debounce, repeats, long
presses, dial counting, the game's mapping) and nothing is faked above the
pins. The keys are in the pin map (``key``, ``key_ccw``, ``key_cw``), named as
Kivy names them (``Keyboard.keycode_to_string``: ``"q"``, ``"spacebar"``,
``"enter"``, ``"f1"``).

The app binds its window's key events to :meth:`KeyboardPanel.key_down` and
:meth:`KeyboardPanel.key_up`; both return whether the key belongs to the
panel, so other keys can go on to the screen.
"""

from __future__ import annotations

from collections.abc import Callable

from gpiozero.pins.mock import MockFactory, MockPin

from .errors import PanelError
from .panel import ButtonPanel
from .pinmap import FUNCTIONS

__all__ = ["KeyboardPanel", "drive_step"]


def drive_step(a: MockPin, b: MockPin, clockwise: bool) -> None:
    """Move a simulated encoder one detent: the pins' quadrature sequence, as the contacts make it.

    At rest both contacts are open and the pull-ups hold A and B high. Clockwise,
    A closes first, then B, then A opens, then B; counter-clockwise B leads.
    """
    first, second = (a, b) if clockwise else (b, a)
    first.drive_low()
    second.drive_low()
    first.drive_high()
    second.drive_high()


def _stepper(a: MockPin, b: MockPin, clockwise: bool) -> Callable[[], None]:
    return lambda: drive_step(a, b, clockwise)


class KeyboardPanel:
    """Keys for a started panel on simulated pins."""

    def __init__(self, panel: ButtonPanel) -> None:
        factory = panel.pin_factory
        if not isinstance(factory, MockFactory) or panel.pinmap is None:
            raise PanelError("keys can stand for the panel's buttons only on simulated pins: "
                             "start the panel first, with [panel] pins = \"mock\"")
        self._down: dict[str, Callable[[], None]] = {}
        self._up: dict[str, Callable[[], None]] = {}
        self.help: dict[str, str] = {}
        """What each key does, for the demo's help overlay: key → "seat 3 +1"."""
        for device in panel.pinmap:
            pins = {role: factory.pin(f"GPIO{gpio}") for role, gpio in device.pins.items()}
            for role, key in device.keys.items():
                if role == "key":
                    pin = pins["pin" if "pin" in pins else "push"]
                    press, release = ((pin.drive_low, pin.drive_high) if device.pull_up
                                      else (pin.drive_high, pin.drive_low))
                    self._down[key], self._up[key] = press, release
                    self.help[key] = device.name + (" push" if device.kind == "encoder" else "")
                else:
                    clockwise = role == "key_cw"
                    self._down[key] = _stepper(pins["a"], pins["b"], clockwise)
                    turn = "clockwise" if clockwise else "counter-clockwise"
                    self.help[key] = f"{device.name} {turn} ({FUNCTIONS[device.function].purpose})"

    def key_down(self, key: str) -> bool:
        """A key went down (or repeats while held: a dial turns on, a button stays down)."""
        action = self._down.get(key.lower())
        if action is None:
            return False
        action()
        return True

    def key_up(self, key: str) -> bool:
        action = self._up.get(key.lower())
        if action is not None:
            action()
        return key.lower() in self._down
