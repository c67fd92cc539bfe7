"""The desktop demo's panel: keys, or buttons on the screen, stand for the panel's controls.

On a desktop the panel runs on gpiozero's simulated pins, and a :class:`Switch`
drives those pins exactly as the control's contacts would: a button's pin is
pulled to GND while it is held, a dial's turn steps the encoder's two pins
through one detent. So the demo runs the same code as the table (debounce,
repeats, long presses, dial counting, the game's mapping) and nothing is faked
above the pins.

:class:`KeyboardPanel` lists one switch per thing a finger can do (press a
button, push a dial, turn it one way or the other) and maps keyboard keys to
them. The keys are in the pin map (``key``, ``key_ccw``, ``key_cw``), named as
Kivy names them (``Keyboard.keycode_to_string``: ``"q"``, ``"spacebar"``,
``"enter"``, ``"f1"``). The app binds its window's key events to
:meth:`KeyboardPanel.key_down` and :meth:`KeyboardPanel.key_up` (both return
whether the key belongs to the panel, so other keys can go on to the screen),
and shows :attr:`KeyboardPanel.switches` as on-screen buttons.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from gpiozero.pins.mock import MockFactory, MockPin

from .errors import PanelError
from .panel import ButtonPanel
from .pinmap import FUNCTIONS, Device

__all__ = ["KeyboardPanel", "Switch", "drive_step"]


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


def _stepper(a: MockPin, b: MockPin, *, clockwise: bool) -> Callable[[], None]:
    return lambda: drive_step(a, b, clockwise)


def _nothing() -> None:
    """Letting go of a dial: a turn happens all at once, on the way down."""


@dataclass(frozen=True, slots=True)
class Switch:
    """One thing a finger can do to the panel: press a button or a dial's push, or turn a dial.

    ``role`` is ``pin`` (a button), ``push``, ``ccw`` or ``cw`` (a dial).
    ``press`` and ``release`` drive the simulated pins, from any thread.
    """

    device: Device
    role: str
    key: str | None
    press: Callable[[], None]
    release: Callable[[], None]

    @property
    def name(self) -> str:
        """``seat 3 +1``, ``Next``, ``seat 1 HP dial cw``: unique within a pin map."""
        return self.device.name if self.role == "pin" else f"{self.device.name} {self.role}"


class KeyboardPanel:
    """Keys and switches for a started panel on simulated pins."""

    _ROLES = {"pin": "key", "push": "key", "ccw": "key_ccw", "cw": "key_cw"}
    """Each switch's key in the pin map."""

    def __init__(self, panel: ButtonPanel) -> None:
        factory = panel.pin_factory
        if not isinstance(factory, MockFactory) or panel.pinmap is None:
            raise PanelError("keys can stand for the panel's buttons only on simulated pins: "
                             "start the panel first, with [panel] pins = \"mock\"")
        self.switches: list[Switch] = []
        """Every switch, in the pin map's order (a dial: counter-clockwise, push, clockwise)."""
        for device in panel.pinmap:
            if device.kind == "encoder":
                a, b = (factory.pin(f"GPIO{device.pins[r]}") for r in ("a", "b"))
                self._add(device, "ccw", _stepper(a, b, clockwise=False), _nothing)
                if "push" in device.pins:
                    self._contact(device, "push", factory.pin(f"GPIO{device.pins['push']}"))
                self._add(device, "cw", _stepper(a, b, clockwise=True), _nothing)
            elif device.kind == "button":
                self._contact(device, "pin", factory.pin(f"GPIO{device.pins['pin']}"))
        self._by_key = {s.key: s for s in self.switches if s.key is not None}
        self.help: dict[str, str] = {key: _help(s) for key, s in self._by_key.items()}
        """What each key does, for the demo's help overlay: key → "seat 3 +1"."""

    def _contact(self, device: Device, role: str, pin: MockPin) -> None:
        if device.pull_up:
            self._add(device, role, pin.drive_low, pin.drive_high)
        else:
            self._add(device, role, pin.drive_high, pin.drive_low)

    def _add(self, device: Device, role: str, press: Callable[[], None],
             release: Callable[[], None]) -> None:
        key = device.keys.get(self._ROLES[role])
        self.switches.append(Switch(device, role, key, press, release))

    def key_down(self, key: str) -> bool:
        """A key went down (or repeats while held: a dial turns on, a button stays down)."""
        switch = self._by_key.get(key.lower())
        if switch is None:
            return False
        switch.press()
        return True

    def key_up(self, key: str) -> bool:
        switch = self._by_key.get(key.lower())
        if switch is None:
            return False
        switch.release()
        return True


def _help(switch: Switch) -> str:
    device = switch.device
    if switch.role == "push":
        return f"{device.name} push"
    if switch.role in ("ccw", "cw"):
        turn = "clockwise" if switch.role == "cw" else "counter-clockwise"
        return f"{device.name} {turn} ({FUNCTIONS[device.function].purpose})"
    return device.name
