"""Settings: broker and table id, camera and tray, the LED trackers, the button pin map.

Each is a tab of its own, so none hides below another (the pin check used to
be found only by scrolling past the rest). The camera preview runs only while
the Camera tab shows: frames come from the camera's thread (in links mode,
from the vision process, which owns the camera: :class:`~companion.app.wired.LinkedCamera`)
through :class:`~companion.app.bridge.LatestFrame`, so a camera faster than
the screen drops frames instead of piling up work. A tray calibration is asked
for, and its answer, which comes later from another thread, is shown through
the same main-thread hop.

The pin check lists the real panel's input pins, each marked while its
contact is closed, or says why the panel is off (the pin map's error, naming
its line). The brightness slider sets every LED tracker once the finger
settles (a drag would otherwise send, and save, every step on the way).
"""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
from kivy.clock import Clock
from kivy.properties import BooleanProperty, OptionProperty, StringProperty

from companion.config import ConfigError, load_config
from companion.core.actions import whole_number

from ..adapters import Calibration
from ..app import AppScreen
from ..bridge import LatestFrame, on_main_thread
from ..settings import save_settings
from ..strings import t
from ..widgets import make
from .camera import texture_of

__all__ = ["SettingsScreen"]


class SettingsScreen(AppScreen):
    tab = OptionProperty("broker", options=["broker", "camera", "trackers", "pins"])
    calibration = StringProperty("")
    calibration_failed = BooleanProperty(False)
    calibrating = BooleanProperty(False)
    previewing = BooleanProperty(False)
    """Whether a preview frame has come since the Camera tab opened."""
    brightness_text = StringProperty("")
    pins_note = StringProperty("")
    """Why the panel is off, or that its pins are simulated."""

    BRIGHTNESS_SETTLE = 0.3
    """Seconds the slider must rest before the trackers are told."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._frames = LatestFrame(self._show_frame)
        self._pins_poll = None
        self._camera_on = False
        self.frames_shown = 0
        self._level = -1.0
        """The brightness (percent) the trackers have, as the slider last showed or sent it."""
        self._send_brightness = Clock.create_trigger(lambda *_: self._apply_brightness(),
                                                     self.BRIGHTNESS_SETTLE)

    def refresh(self) -> None:
        self.title = t("settings.title")

    def on_pre_enter(self, *_: Any) -> None:
        self.refresh()
        try:
            config = load_config()
            broker = config.section("mqtt")
            table = config.section("table")
        except ConfigError as e:
            self.app.say(str(e))
            broker, table = {}, {}
        self.ids.host.text = str(broker.get("host", "localhost"))
        self.ids.port.text = str(broker.get("port", 1883))
        self.ids.table_id.text = str(table.get("id", self.app.controller.table.table_id))
        trackers = self.app.hardware.trackers
        self._level = round(trackers.brightness() * 20) * 5.0  # the slider's 5% steps
        self.ids.brightness.value = self._level
        self.brightness_text = t("settings.brightness", percent=int(self._level))
        box = self.ids.trackers
        box.clear_widgets()
        for tracker, seat in trackers.assignments().items():
            row = make("SettingsTrackerRow", tracker=tracker)
            row.seat_text = t("setup.seat_none") if seat is None else t("setup.seat", seat=seat)
            box.add_widget(row)
        panel = self.app.panel
        self.pins_note = (t("panel.off", problem=panel.problem) if panel.problem
                          else t("settings.pins_simulated") if panel.keys else "")
        self._draw_pins()
        self._pins_poll = Clock.schedule_interval(lambda *_: self._draw_pins(), 0.2)
        self._camera(self.tab == "camera")

    def on_leave(self, *_: Any) -> None:
        self._camera(False)
        if self._pins_poll is not None:
            self._pins_poll.cancel()
        if self._send_brightness.is_triggered:
            self._send_brightness.cancel()
            self._apply_brightness()

    def on_tab(self, _screen: Any, tab: str) -> None:
        if "pages" in self.ids:
            self.ids.pages.current = tab

    def show_tab(self, tab: str) -> None:
        """Show one tab; the camera's preview runs while the Camera tab shows."""
        self.tab = tab
        self._camera(tab == "camera" and self.manager is not None
                     and self.manager.current == self.name)

    def _camera(self, on: bool) -> None:
        camera = self.app.hardware.camera
        if on and not self._camera_on:
            self.previewing = False
            camera.start(self._frames.put)
        elif not on and self._camera_on:
            camera.stop()
        self._camera_on = on

    def _show_frame(self, frame: np.ndarray) -> None:
        if not self._camera_on:
            return  # a frame that was on its way when the preview stopped
        self.previewing = True
        preview = self.ids.preview
        # Uploaded at the size it is shown: a full camera frame costs the GPU (or, under
        # Xvfb, the CPU) several times more for the same picture.
        h, w = frame.shape[:2]
        scale = min(1.0, preview.width / w, preview.height / h)
        if scale < 1.0:
            frame = cv2.resize(frame, (max(1, int(w * scale)), max(1, int(h * scale))),
                               interpolation=cv2.INTER_AREA)
        preview.texture = texture_of(frame, preview.texture)
        preview.canvas.ask_update()
        self.frames_shown += 1

    def _draw_pins(self) -> None:
        box = self.ids.pins
        pins = self.app.panel.pins()
        if len(box.children) != len(pins):
            box.clear_widgets()
            for pin in pins:
                box.add_widget(make("PinLine", tag=f"pin:{pin.pin}"))
        for line, pin in zip(reversed(box.children), pins):
            line.text = t("settings.pin_pressed" if pin.pressed else "settings.pin_line",
                          name=pin.name, pin=pin.pin)
            line.pressed = pin.pressed

    def save(self) -> None:
        port = self.ids.port.text.strip()
        number = whole_number(port)
        if number is None or not 0 < number < 65536:
            self.app.say(f"{t('settings.port')}: {port!r} is not a port number (1-65535)")
            return
        table_id = self.ids.table_id.text.strip()
        if not table_id or any(c in table_id for c in "/+#"):
            self.app.say(f"{t('settings.table_id')}: {table_id!r} cannot be empty or contain / + #")
            return
        try:
            path = save_settings({"mqtt": {"host": self.ids.host.text.strip() or "localhost",
                                             "port": int(port)},
                                  "table": {"id": table_id}})
        except ConfigError as e:
            self.app.say(str(e))
            return
        self.app.say(t("settings.saved", path=path), error=False)

    def calibrate(self, kind: str) -> None:
        """Ask for a tray calibration (``tray`` or ``empty``); the answer shows when it comes."""
        self.calibrating, self.calibration_failed = True, False
        self.calibration = t("settings.calibrating")
        self.app.hardware.camera.calibrate(kind, on_main_thread(self._calibrated))

    def _calibrated(self, result: Calibration) -> None:
        self.calibrating = False
        self.calibration_failed = not result.ok
        if not result.ok:
            self.calibration = t("settings.calibration_failed", error=result.error)
        elif result.markers and result.size is not None:
            self.calibration = t("settings.calibrated_markers", width=result.size[0],
                                 height=result.size[1])
        else:
            self.calibration = t("settings.calibrated_empty")

    def brightness_moved(self, percent: float) -> None:
        """The slider moved: say so at once, tell the trackers once it rests."""
        self.brightness_text = t("settings.brightness", percent=int(percent))
        if percent != self._level:
            self._send_brightness.cancel()  # from now: it fires once the slider rests
            self._send_brightness()

    def _apply_brightness(self) -> None:
        percent = float(self.ids.brightness.value)
        if percent != self._level:
            self._level = percent
            self.app.hardware.trackers.set_brightness(percent / 100)

    def cycle_tracker(self, row: Any) -> None:
        trackers = self.app.hardware.trackers
        seats = len(self.app.state.get("players", [])) or 8
        seat = trackers.assignments().get(row.tracker)
        seat = 1 if seat is None else (None if seat >= seats else seat + 1)
        trackers.assign(row.tracker, seat)
        row.seat_text = t("setup.seat_none") if seat is None else t("setup.seat", seat=seat)

    def blink(self, tracker: str) -> None:
        self.app.hardware.trackers.blink(tracker)
