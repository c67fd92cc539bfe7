"""Putting the app together: journal, table, controller, devices, and the last game."""

from __future__ import annotations

import logging
import os
from pathlib import Path

from companion.config import Config, journal_path, read_section
from companion.core.errors import CompanionError
from companion.core.events import MESSAGES
from companion.core.journal import Journal
from companion.links import Links
from companion.table import Table, TableConfig

from .adapters import Hardware, simulated_hardware
from .app import RunesApp
from .buttons import AppPanel
from .controller import Controller
from .settings import load_app_config
from .wired import linked_hardware
from .strings import UI

__all__ = ["build_app", "DEMO_SETUP"]

log = logging.getLogger(__name__)

DEMO_SETUP = "players=Ann,Bob,Cid,Dee locations=tourist"
"""The game ``--demo`` starts when there is nothing to resume."""


def build_app(settings: Config, *, journal: Path | None = None, demo: bool = False,
              hardware: Hardware | None = None) -> RunesApp:
    """The app on ``journal`` with the last unfinished game resumed, ready to ``run()``."""
    config = load_app_config(settings)
    if config.strings is not None:
        UI.load(config.strings)
    if config.sentences is not None:
        MESSAGES.load(config.sentences)
    path = journal or journal_path(settings)
    table = Table(Journal(path), table_id=read_section(TableConfig, settings.section("table"),
                                                         "table").id)
    controller = Controller(table)
    links = None
    if hardware is None and config.hardware == "links":
        links = Links.from_config(table, settings, journal_dir=path.parent)
        hardware = linked_hardware(links)
    elif hardware is None:
        log.warning("[app] hardware = \"simulated\": the app runs on made-up devices")
        hardware = simulated_hardware(trackers=config.trackers, camera_fps=config.camera_fps)
    # Built now, started by the app: the pins are chosen when it starts, on the owner thread.
    panel = AppPanel(table, settings, simulated=config.hardware == "simulated"
                     or config.onscreen_panel == "show")
    if table.journal.latest_unfinished() is not None:
        try:
            table.resume()
        except CompanionError as e:
            log.error("could not resume the last game: %s", e)
    elif demo:
        controller.new_game("zun", DEMO_SETUP)
    app = RunesApp(controller, hardware, panel, links=links,
                   onscreen_panel=config.onscreen_panel != "hide")
    if probe_path := os.environ.get("RUNES_APP_PROBE"):
        from .probe import Probe

        Probe(app, Path(probe_path)).start()
    return app
