"""Putting the app together: journal, table, controller, devices, and the last game."""

from __future__ import annotations

import logging
import os
from pathlib import Path

from companion.core.errors import CompanionError
from companion.core.journal import Journal
from companion.table import Table

from .adapters import Hardware, simulated_hardware
from .app import RunesApp
from .controller import Controller
from .settings import AppConfig
from .strings import UI

__all__ = ["build_app", "DEMO_SETUP"]

log = logging.getLogger(__name__)

DEMO_SETUP = "players=Ann,Bob,Cid,Dee locations=tourist"
"""The game ``--demo`` starts when there is nothing to resume."""


def build_app(config: AppConfig, *, journal: Path | None = None, demo: bool = False,
              hardware: Hardware | None = None) -> RunesApp:
    """The app on ``journal`` with the last unfinished game resumed, ready to ``run()``."""
    if config.strings is not None:
        UI.load(config.strings)
    table = Table(Journal(journal or config.journal))
    controller = Controller(table)
    if hardware is None:
        # The MQTT, vision and GPIO implementations of the adapters plug in here.
        log.warning("no hardware adapters configured: the app runs on simulated devices")
        hardware = simulated_hardware(trackers=config.trackers, camera_fps=config.camera_fps)
    if table.journal.latest_unfinished() is not None:
        try:
            table.resume()
        except CompanionError as e:
            log.error("could not resume the last game: %s", e)
    elif demo:
        controller.new_game("zun", DEMO_SETUP)
    app = RunesApp(controller, hardware)
    if probe_path := os.environ.get("RUNES_APP_PROBE"):
        from .probe import Probe

        Probe(app, Path(probe_path)).start()
    return app
