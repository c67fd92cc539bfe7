"""LED HP trackers: the interface, the table's set of them, and one driver per kind.

``base`` holds :class:`Tracker` and :class:`Trackers`; the drivers are
``firmware`` (our MicroPython trackers on Wi-Fi), ``wled`` (WLED devices),
``serial`` (a tracker on USB) and ``simulated``. Drivers are imported by the
code that builds them (``companion.links``), so pyserial or paho are only
loaded when a table uses them.
"""

from .base import Tracker, TrackerInfo, Trackers, TrackerStore, UnknownTracker

__all__ = ["Tracker", "TrackerInfo", "TrackerStore", "Trackers", "UnknownTracker"]
