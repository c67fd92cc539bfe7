"""The button panel in the app: the real :class:`~companion.panel.ButtonPanel`, built at start.

The panel is built from ``[panel]`` when the app starts (never at import),
on the owner thread, and feeds the table's queue like every other input. On
a Pi its pins are lgpio's; on a desktop they are gpiozero's simulated pins,
and then keyboard keys and the on-screen panel (a drawer of touchable
buttons) drive those pins the way fingers drive the switches
(:class:`~companion.panel.keyboard.KeyboardPanel`), so the demo runs all of
the panel's own code.

A panel that cannot start (a pin map with a mistake, a pin another program
holds, lgpio missing where it was asked for) is logged and kept as
:attr:`AppPanel.problem`, which Settings shows in its pin check; the app goes
on without buttons.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable

from gpiozero.pins.mock import MockFactory

from companion.config import Config
from companion.core.errors import CompanionError
from companion.panel import ButtonPanel, PanelConfig, Request, panel_config
from companion.panel.keyboard import KeyboardPanel
from companion.panel.panel import PinState
from companion.table import Table

__all__ = ["AppPanel"]

log = logging.getLogger(__name__)


class AppPanel:
    """The table's button panel as the app sees it; see the module docstring.

    ``simulated``: run on simulated pins whatever ``[panel] pins`` says (the
    app's made-up hardware, or an on-screen panel asked for in ``[app]``).
    """

    def __init__(self, table: Table, settings: Config, *, simulated: bool = False) -> None:
        self.table = table
        self.settings = settings
        self.simulated = simulated
        self.panel: ButtonPanel | None = None
        self.keys: KeyboardPanel | None = None
        """Keys and on-screen switches, when the pins are simulated."""
        self.problem: str | None = None
        """Why there is no panel, in words; None while it runs."""

    def start(self, on_request: Callable[[Request], None]) -> None:
        """Build and start the panel (owner thread); ``on_request`` may be called on any thread."""
        try:
            config = self._config()
            panel = ButtonPanel(self.table, config=config)
            panel.when_request = on_request
            panel.start()
        except CompanionError as e:
            self.problem = str(e)
            log.error("the button panel is off: %s", e)
            return
        self.panel = panel
        if isinstance(panel.pin_factory, MockFactory):
            self.keys = KeyboardPanel(panel)

    def _config(self) -> PanelConfig:
        config = panel_config(self.settings)
        if self.simulated and config.pins != "mock":
            if config.pins == "lgpio":
                log.warning("[panel] pins = \"lgpio\" is overridden: the app's panel runs on "
                            "simulated pins ([app] hardware or onscreen_panel)")
            config = dataclasses.replace(config, pins="mock")
        return config

    def stop(self) -> None:
        if self.panel is not None:
            self.panel.close()
            self.panel = None
        self.keys = None

    def pins(self) -> list[PinState]:
        """Every input pin and whether it is closed now, for Settings' pin check."""
        return self.panel.pins() if self.panel is not None else []

    def answered(self, ok: bool) -> None:
        """How the app dealt with a request: the panel's accepted or refused flash and tone."""
        if self.panel is not None:
            if ok:
                self.panel.feedback.accepted()
            else:
                self.panel.feedback.refused()
