"""The button panel in the app, on simulated pins: real X key presses and taps on the on-screen
panel drive the pins, and the panel's own code (debounce, long presses, dials, the game's
mapping) turns them into the game's actions, which the journal on disk shows."""

from __future__ import annotations

import time
from pathlib import Path

from companion.app.display import VirtualScreen
from tests.app.conftest import AppDriver
from tests.support.wait import until


def hp(app: AppDriver) -> list[int]:
    return [p["hp"] for p in app.engine()["players"]]


def test_keys_and_the_on_screen_panel_play_the_game(screen: VirtualScreen, tmp_path: Path) -> None:
    app = AppDriver(screen, tmp_path, extra_args=("--demo",))  # Ann, Bob, Cid, Dee at 12 HP
    try:
        assert app.engine()["phase"] == "start"
        # The pin map's keys: a is seat 3's -1 (it acts on release: held, it defeats),
        # q turns seat 1's dial back a step, e pushes it, space is Next.
        app.press("a")
        app.press("q", "q", "e")
        until(lambda: hp(app) == [10, 12, 11, 12])
        app.press("space")
        until(lambda: app.engine()["phase"] == "action")

        # A key typed into a text field is text, not a button.
        app.click("status_corner")
        app.type_into("host", "as")
        assert app.find("host")["text"] == "as"
        assert hp(app) == [10, 12, 11, 12]
        # Settings' pin check shows the panel's real pins, each marked while it is closed.
        app.click("tab:pins")  # a tap elsewhere: the field lets go of the keyboard
        assert app.find("pin:26")["text"] == "Undo: GPIO 26"
        app.xdotool("keydown", "z")  # Undo, held; Settings redraws the pins every 0.2 s
        until(lambda: app.find("pin:26")["text"] == "● Undo: GPIO 26", timeout=3)
        app.xdotool("keyup", "z")
        until(lambda: app.find("pin:26")["text"] == "Undo: GPIO 26", timeout=3)
        until(lambda: app.engine()["phase"] == "start")  # Undo took Next back
        assert "simulated" in app.find("pins_note")["text"].lower()
        app.click("back")

        # The on-screen panel: a drawer of the same controls, opened from the title bar.
        assert not app.ask("find", tag="panel:Next")["ok"]
        app.click("panel")
        app.click("panel:seat 4 −1")
        app.click("panel:seat 2 HP dial ccw", times=2)
        app.click("panel:seat 2 HP dial push")
        assert hp(app) == [10, 10, 11, 11]
        app.click("panel:Undo")
        assert hp(app) == [10, 12, 11, 11]
        # A finger held on a key holds the switch down: seat 4's -1 held 2 s defeats.
        where = app.find("panel:seat 4 −1")
        app.xdotool("mousemove", str(round(where["x"])), str(round(where["y"])))
        app.xdotool("mousedown", "1")
        time.sleep(2.5)
        app.xdotool("mouseup", "1")
        app.sync()
        assert app.engine()["players"][3]["defeated"] is True
        app.click("panel")
        assert not app.ask("find", tag="panel:Next")["ok"], "the drawer closed"
    finally:
        app.close()
