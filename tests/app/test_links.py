"""The app on a real broker: status corner, MQTT commands, vision readings, the panel's
requests and the trackers' brightness.

The app owns the table as the headless service does, with the same links, so a
command from MQTT (paho's thread) lands through the table's queue on Kivy's
main thread, and a settled reading from the vision process opens the camera
confirmation screen.
"""

from __future__ import annotations

import json
from pathlib import Path

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from companion.app.display import VirtualScreen
from companion.core.journal import Journal
from companion.table import Table
from tests.app.conftest import AppDriver
from tests.support.broker import Broker
from tests.support.wait import until


def test_the_app_on_a_real_broker(broker: Broker, tmp_path: Path) -> None:
    settings = (f'[app]\nhardware = "links"\n[table]\nid = "t1"\n'
                f'[mqtt]\nhost = "{broker.host}"\nport = {broker.port}\nhomeassistant = false\n'
                f'[trackers]\nsimulated = 2\n')
    with VirtualScreen() as screen:
        app = AppDriver(screen, tmp_path, settings=settings, extra_args=("--demo",))
        try:
            until(lambda: app.view()["devices"].get("broker") is True, timeout=15)
            devices = app.view()["devices"]
            # Simulated trackers send no heartbeat: listed, and offline, as the links see them.
            assert devices["tracker:sim-1"] is False and devices["tracker:sim-2"] is False

            client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="test-table-client")
            client.connect(broker.host, broker.port)
            client.loop_start()
            try:
                # A command from MQTT: applied on the app's main thread, drawn on the screen.
                client.publish("runes/t1/cmd", json.dumps(
                    {"action": "damage", "player": "Ann", "amount": 2}), qos=1).wait_for_publish()
                until(lambda: app.find("hp:Ann")["text"] == "10")
                assert app.engine()["players"][0]["hp"] == 10

                # A settled card reading from the vision process opens the confirmation screen.
                reading = {"cards": [{"name": "Mirror Lake", "corners": [[200, 80], [440, 80],
                           [440, 420], [200, 420]], "confidence": 0.93},
                           {"name": None, "corners": [[0, 0], [9, 0], [9, 9], [0, 9]],
                            "confidence": 0.9}]}
                client.publish("runes/t1/vision/card", json.dumps(reading), qos=1).wait_for_publish()
                until(lambda: app.view()["screen"] == "camera")
                app.find("card:0")
                assert not app.ask("find", tag="card:1")["ok"], "an unnamed card is left out"
                app.click("discard")
                assert app.view()["screen"] == "table_zun"
            finally:
                client.loop_stop()
                client.disconnect()

            # The setup screen's trackers are the real ones.
            app.click("home")
            app.click("new:zun")
            app.reveal("blink:sim-1", near="setup_options")
            app.click("blink:sim-1")
            assert "blink" not in app.view()["message"].lower()

            # The broker goes away: shown in the corner, the game goes on.
            broker.stop()
            until(lambda: app.view()["devices"].get("broker") is False, timeout=15)
            app.click("setup_back")
            app.click("resume_last")
            app.click("plus:Ann")
            app.click("ok:Ann")
            assert app.engine()["players"][0]["hp"] == 11
        finally:
            app.close()


def dice(*faces: str) -> dict[str, object]:
    """A settled dice reading as the vision process publishes it."""
    return {"dice": [{"face": face, "box": [30 + 90 * i, 40, 80, 80], "confidence": 0.95}
                     for i, face in enumerate(faces)]}


def test_panel_requests_and_tracker_brightness_on_a_real_broker(broker: Broker,
                                                               tmp_path: Path) -> None:
    """The panel's Read dice, Confirm and Cancel (real X key presses on simulated pins) act on
    the camera screen with the vision process's latest reading; the Settings slider sets the
    trackers' brightness, kept in trackers.json."""
    table = Table(Journal(tmp_path / "journal.sqlite"), table_id="t1")
    table.start("runecast", "runecast players=Ann,Bob,Cid seed=5")
    table.journal.close()
    settings = (f'[app]\nhardware = "links"\n[table]\nid = "t1"\n[panel]\npins = "mock"\n'
                f'[mqtt]\nhost = "{broker.host}"\nport = {broker.port}\nhomeassistant = false\n'
                f'[trackers]\nsimulated = 2\n')
    with VirtualScreen() as screen:
        app = AppDriver(screen, tmp_path, settings=settings)
        try:
            until(lambda: app.view()["devices"].get("broker") is True, timeout=15)
            app.press("c")  # Read dice: nothing read yet
            until(lambda: app.view()["message"].startswith("No dice reading"))
            assert app.view()["screen"] == "table_runecast"

            client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="test-vision")
            client.connect(broker.host, broker.port)
            client.loop_start()
            try:
                roll = dice("hammer", "hammer", "snake", "tree", "snake", "hammer", "snake", "tree")
                client.publish("runes/t1/vision/dice", json.dumps(roll), qos=1).wait_for_publish()
                until(lambda: app.view()["screen"] == "camera")
            finally:
                client.loop_stop()
                client.disconnect()
            app.press("BackSpace")  # Cancel
            until(lambda: app.view()["screen"] == "table_runecast")
            assert app.engine()["roll"] is None
            app.press("F1")  # Loki's roll: not what a hero's turn can take
            until(lambda: app.view()["message"].startswith(
                "This reading cannot be entered as loki_roll"))
            assert app.view()["screen"] == "camera"
            app.press("BackSpace")
            until(lambda: app.view()["screen"] == "table_runecast")
            app.press("c")  # Read dice: the reading again, as the mapping's roll
            until(lambda: app.view()["screen"] == "camera")
            assert app.find("as:0")["text"] == "Enter roll"
            app.press("Return")  # Confirm
            until(lambda: app.engine()["roll"] == {"hammers": 3, "snakes": 3, "trees": 2})
            until(lambda: app.view()["screen"] == "table_runecast")
            app.press("Return")
            until(lambda: app.view()["message"] == "Confirm: the screen is not asking anything.")
            app.press("c")  # a roll is entered once: Read dice has nothing left to show
            until(lambda: app.view()["message"].startswith("No dice reading"))

            # The brightness slider, a quarter of the way along: both trackers, kept on disk.
            app.click("status_corner")
            app.click("tab:trackers")
            slider = app.find("brightness")
            left = slider["x"] - slider["w"] / 2 + 16  # Kivy's slider keeps 16 px at each end
            x = left + (slider["w"] - 32) * 0.25
            app.xdotool("mousemove", str(round(x)), str(round(slider["y"])))
            app.xdotool("click", "1")
            app.sync()
            saved = tmp_path / "trackers.json"
            until(lambda: {t.get("brightness") for t in
                              json.loads(saved.read_text())["trackers"].values()} == {0.25})
            app.click("back")
        finally:
            app.close()
