"""Which pins the panel drives: real GPIO through lgpio, or gpiozero's simulated ones.

Chosen when the panel starts, never at import, so the companion imports and
runs on any laptop:

* a factory already installed in ``gpiozero.Device.pin_factory`` (a test
  fixture, or a program that chose one) is used as it is;
* ``[panel] pins = "lgpio"``: lgpio, the driver for a Pi 5 and for earlier Pis
  on Raspberry Pi OS Bookworm; failing to load it is an error;
* ``pins = "mock"``: gpiozero's ``MockFactory``, for the desktop demo, where
  keys stand for the buttons (:mod:`companion.panel.keyboard`);
* ``pins = "auto"`` (the default): ``$GPIOZERO_PIN_FACTORY`` if set, else
  lgpio, else the mock **with a loud warning**, because a panel that silently
  does nothing on a Pi is the worst outcome.
"""

from __future__ import annotations

import logging
import os
import warnings

from gpiozero import Device
from gpiozero.pins import Factory
from gpiozero.pins.mock import MockFactory, MockPWMPin

from .config import PinsChoice
from .errors import PanelError, PanelWarning

__all__ = ["choose_pin_factory", "simulated_pins"]

log = logging.getLogger(__name__)


def simulated_pins() -> MockFactory:
    """gpiozero's simulated pins, PWM-capable so the LED can fade and the buzzer sing."""
    return MockFactory(pin_class=MockPWMPin)


def choose_pin_factory(choice: PinsChoice = "auto") -> Factory:
    """The pin factory for the panel, chosen now (see the module docstring)."""
    if choice == "mock":
        return simulated_pins()
    if choice == "lgpio":
        try:
            return _lgpio()
        except Exception as e:
            raise PanelError(f"[panel] pins = \"lgpio\", but lgpio cannot drive the pins "
                             f"here: {e}") from e
    if Device.pin_factory is not None:
        return Device.pin_factory
    if os.environ.get("GPIOZERO_PIN_FACTORY"):
        Device.ensure_pin_factory()
        assert Device.pin_factory is not None
        return Device.pin_factory
    try:
        return _lgpio()
    except Exception as e:
        # Like gpiozero's own fallback: any failure of the driver (not installed, no
        # /dev/gpiochip, not a Pi) means "no GPIO here"; what matters is saying so.
        message = (f"no GPIO here (lgpio: {e}); the button panel runs on simulated pins "
                   "and its buttons do nothing. On a Pi, install lgpio "
                   "(pip install '.[pi]'); on a desktop, set [panel] pins = \"mock\".")
        warnings.warn(message, PanelWarning, stacklevel=2)
        log.warning(message)
        return simulated_pins()


def _lgpio() -> Factory:
    from gpiozero.pins.lgpio import LGPIOFactory

    factory: Factory = LGPIOFactory()
    return factory
