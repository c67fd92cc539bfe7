"""The companion's side of the LED tracker firmware.

The firmware itself is MicroPython and lives in ``firmware/`` at the top of the
repository; this package holds what runs on the companion (or a laptop) to
use it: :mod:`.setup` writes a board's settings and copies the firmware with
``mpremote``, :mod:`.libs` fetches the MicroPython libraries it depends on for
the unix port, and :mod:`.emulator` runs the real firmware under the
MicroPython unix port with its LEDs reported over UDP (tests, benchmark, the
desktop demo).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parents[2]
FIRMWARE_DIR = REPO / "firmware"
"""The MicroPython program: ``main.py`` and the ``tracker`` package."""
CACHE_DIR = REPO / ".cache"
"""Downloaded, never committed (git-ignored)."""


def firmware_config() -> ModuleType:
    """The firmware's settings module, ``firmware/tracker/config.py``, loaded in CPython.

    It is MicroPython code that CPython runs as well, so the setup script checks a board's
    settings and the wiring diagrams take their pins from the one place the firmware does.
    """
    spec = importlib.util.spec_from_file_location("_tracker_config",
                                                  FIRMWARE_DIR / "tracker" / "config.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    # No __pycache__ in firmware/: nothing there may be copied to a board by mistake.
    dont_write, sys.dont_write_bytecode = sys.dont_write_bytecode, True
    try:
        spec.loader.exec_module(module)
    finally:
        sys.dont_write_bytecode = dont_write
    return module
