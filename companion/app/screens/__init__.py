"""The app's screens; each has its widget tree in ``kv/<screen>.kv``."""

from __future__ import annotations

from .camera import CameraScreen
from .history import HistoryScreen
from .home import HomeScreen
from .market import MarketTableScreen
from .plots import PlotsScreen
from .runecast import RunecastTableScreen
from .settings import SettingsScreen
from .setup import SetupScreen
from .zun import ZunTableScreen

__all__ = ["SCREENS"]

SCREENS = {
    "home": HomeScreen.__name__,
    "setup": SetupScreen.__name__,
    "table_zun": ZunTableScreen.__name__,
    "table_runecast": RunecastTableScreen.__name__,
    "table_market": MarketTableScreen.__name__,
    "history": HistoryScreen.__name__,
    "plots": PlotsScreen.__name__,
    "camera": CameraScreen.__name__,
    "settings": SettingsScreen.__name__,
}
"""Screen name → widget class; ``table_<game>`` is each game's table."""
