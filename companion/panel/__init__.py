"""The button panel: GPIO buttons, seat dials, a status LED and a buzzer, through gpiozero.

* :mod:`.pinmap`: which pin is which control (``hardware/panel/pinmap.toml``), checked
  before any pin is touched;
* :mod:`.mapping`: what each control does in each game (``companion/data/panel/``);
* :mod:`.controls`: presses, repeats, long presses and dial turns;
* :mod:`.panel`: :class:`ButtonPanel`, which feeds the table's queue;
* :mod:`.feedback`, :mod:`.factory`, :mod:`.clock`, :mod:`.keyboard`, :mod:`.docs`.

Importing this package touches no pin: the pin factory is chosen when a panel starts.
See docs/panel.md.
"""

from .clock import Clock, ManualClock, SystemClock
from .config import PanelConfig, panel_config
from .errors import MappingError, PanelError, PanelWarning, PinMapError
from .mapping import GameMapping, Meaning, Request
from .panel import ButtonPanel
from .pinmap import PinMap, load_pinmap, parse_pinmap

__all__ = [
    "ButtonPanel", "Clock", "GameMapping", "ManualClock", "MappingError", "Meaning",
    "PanelConfig", "PanelError", "PanelWarning", "PinMap", "PinMapError", "Request",
    "SystemClock", "load_pinmap", "panel_config", "parse_pinmap",
]
