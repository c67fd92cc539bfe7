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

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
FIRMWARE_DIR = REPO / "firmware"
"""The MicroPython program: ``main.py`` and the ``tracker`` package."""
CACHE_DIR = REPO / ".cache"
"""Downloaded, never committed (git-ignored)."""
