"""The Kivy application: the screens, the status corner and the main-thread plumbing.

Wiring, once, at start:

* the table's ``wake`` is a Clock trigger that pumps the table's input queue
  on the main thread (buttons and MQTT ``submit`` from their own threads);
* every change of the game marks the screens stale, and one Clock trigger
  redraws them at the next frame, however many changes came in;
* devices report through :mod:`companion.app.bridge`, never straight into Kivy;
* the button panel (:mod:`companion.app.buttons`) starts with the app: its
  requests (read the dice, confirm, cancel) hop to the main thread like every
  device callback; on simulated pins the keyboard and the on-screen panel drive it;
* systemd hears ``READY=1`` once the first frame is on screen, and watchdog pings
  from the Kivy clock, so a UI loop that hangs stops them and systemd restarts
  the app (:class:`~companion.systemd.Watchdog`).

A tap carries the revision the screen was showing when it was drawn: a tap
landing after a change from elsewhere (the button panel, MQTT) that the
screen has not drawn yet is refused by the controller instead of acting on a
state nobody saw. A repeat of the same command within
:attr:`RunesApp.REPEAT_GUARD` seconds is dropped as a double tap.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Any

from kivy.app import App
from kivy.clock import Clock
from kivy.core.window import Keyboard, Window
from kivy.factory import Factory
from kivy.lang import Builder
from kivy.properties import (
    BooleanProperty, DictProperty, NumericProperty, ObjectProperty, StringProperty,
)
from kivy.uix.floatlayout import FloatLayout
from kivy.uix.label import Label
from kivy.uix.screenmanager import NoTransition, Screen
from kivy.uix.textinput import TextInput

from companion.links import Links
from companion.panel import Request
from companion.panel.keyboard import Switch
from companion.panel.pinmap import FUNCTIONS
from companion.systemd import Watchdog

from . import theme
from .adapters import DeviceStatus, Hardware, Reading
from .bridge import on_main_thread
from .buttons import AppPanel
from .controller import Controller
from .strings import t
from .widgets import make

__all__ = ["RunesApp", "Root", "AppScreen"]

log = logging.getLogger(__name__)

KV = Path(__file__).resolve().parent / "kv"

KEY_NAMES = {code: name for name, code in reversed(list(Keyboard.keycodes.items()))}
"""Kivy's key names by key code (the first name of a code, as ``keycode_to_string`` gives)."""
KEY_LABELS = {"spacebar": "space"}
"""Key names written shorter on the on-screen panel's keys."""


class Toast(Label):
    """The message line: errors and notices, over the top of the screen, never in a finger's way.

    It takes no touch: what is under it stays usable, and it goes away by
    itself, or with the next action that lands.
    """


class Root(FloatLayout):
    """The window's content; it also lets only one finger at a time act."""

    STUCK_FINGER = 20.0
    """A finger down longer than this is forgotten (a lost touch-up must not lock the screen)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._finger: Any = None
        self._finger_at = 0.0

    def on_touch_down(self, touch: Any) -> bool:
        if getattr(touch, "is_mouse_scrolling", False):
            return bool(super().on_touch_down(touch))
        now = time.monotonic()
        if self._finger is not None and now - self._finger_at < self.STUCK_FINGER:
            App.get_running_app().say(t("table.one_finger"), error=False)
            return True
        self._finger, self._finger_at = touch.uid, now
        return bool(super().on_touch_down(touch))

    def on_touch_move(self, touch: Any) -> bool:
        if self._finger is not None and touch.uid != self._finger:
            return True
        return bool(super().on_touch_move(touch))

    def on_touch_up(self, touch: Any) -> bool:
        if self._finger is not None and touch.uid != self._finger:
            return True
        self._finger = None
        return bool(super().on_touch_up(touch))


class AppScreen(Screen):
    """A screen of the app: it redraws from the app's state in ``refresh``."""

    title = StringProperty("")

    @property
    def app(self) -> RunesApp:
        return App.get_running_app()  # type: ignore[no-any-return]

    def refresh(self) -> None:
        """Redraw from ``app.state``; called on entering and after every change."""

    def on_pre_enter(self, *_: Any) -> None:
        self.refresh()


class RunesApp(App):
    """The companion on the touchscreen."""

    REPEAT_GUARD = 0.35
    """Seconds within which the same command tapped again counts as one tap."""
    READING_WAITS = ("home", "setup", "settings")
    """Screens a camera reading does not take the players away from (calibrating the tray
    with the markers in view, say): it waits behind the Camera button."""
    MESSAGE_SECONDS = 6.0

    u = NumericProperty(1.0)
    """Scale of the layout: 1 on the 800×480 touchscreen."""
    state = DictProperty({})
    """``Session.to_json()`` of the game in play as last drawn."""
    revision = NumericProperty(-1)
    """The revision the screens show; taps carry it."""
    game = StringProperty("")
    title_text = StringProperty("")
    message = StringProperty("")
    message_is_error = BooleanProperty(True)
    devices = DictProperty({})
    """Status corner: device key → online."""
    reading = ObjectProperty(None, allownone=True)
    """The last settled camera reading waiting for confirmation."""
    reading_as = StringProperty("")
    """The action the camera screen should offer first (a panel's ``@read_dice VERB``)."""
    panel_strip = BooleanProperty(False)
    """Whether the on-screen panel's handle shows (simulated pins, unless ``[app]`` says no)."""
    panel_open = BooleanProperty(False)
    """Whether the on-screen panel's drawer is open."""

    def __init__(self, controller: Controller, hardware: Hardware, panel: AppPanel, *,
                 links: Links | None = None, onscreen_panel: bool = True,
                 watchdog: Watchdog | None = None,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.links = links
        """The table's MQTT bridge and trackers, started and stopped with the app."""
        self.panel = panel
        """The button panel, started and stopped with the app."""
        self.onscreen_panel = onscreen_panel
        self.watchdog = watchdog or Watchdog()
        self.title = "Rune Table"
        self.controller = controller
        self.hardware = hardware
        self.latest_dice: Reading | None = None
        """The last settled dice reading not yet entered, for the panel's Read dice."""
        self._redraw = Clock.create_trigger(self.redraw, 0)
        self._message_timeout = Clock.create_trigger(lambda *_: self.clear_message(),
                                                     self.MESSAGE_SECONDS)
        self._last_command: tuple[str, float] = ("", 0.0)
        self._screens: dict[str, AppScreen] = {}
        self.first_frame_at: float | None = None
        self.first_frame_wall: float | None = None
        """When the first frame was up (``time.time()``), for the start-up benchmark."""

    # -- building ------------------------------------------------------------------

    def build(self) -> Root:
        from . import screens  # registers the screen classes with the Factory

        theme.register_font()
        # The shared widgets first: a screen's rule for its own kind of button comes later,
        # so it wins where both set a property.
        for kv in sorted(KV.glob("*.kv"), key=lambda path: (path.name != "widgets.kv", path.name)):
            Builder.load_file(str(kv))
        Window.clearcolor = theme.BACKGROUND
        Window.bind(size=self._rescale)
        self._rescale(Window, Window.size)
        root = Root()
        sm = root.ids.sm
        sm.transition = NoTransition()
        for name, cls in screens.SCREENS.items():
            screen = getattr(Factory, cls)(name=name)
            self._screens[name] = screen
            sm.add_widget(screen)
        sm.bind(current=lambda *_: self._retitle())
        return root

    def on_start(self) -> None:
        table = self.controller.table
        table.wake = Clock.create_trigger(lambda *_: table.pump(), 0)
        self.controller.subscribe(lambda *_: self._redraw())
        if self.links is not None:
            self.links.start()
        self.hardware.status.start(on_main_thread(self.on_device_status))
        self.hardware.vision.start(on_main_thread(self.show_reading))
        self._start_panel()
        self.redraw()
        self.go("table" if self.controller.session is not None else "home")
        if self.panel.problem is not None:
            self.say(t("panel.off", problem=self.panel.problem))
        Window.bind(on_flip=self._first_frame)

    def on_stop(self) -> None:
        self.watchdog.stopping()
        Window.unbind(on_key_down=self._key_down, on_key_up=self._key_up)
        self.panel.stop()
        self.hardware.status.stop()
        self.hardware.vision.stop()
        self.hardware.camera.stop()
        if self.links is not None:
            self.links.stop()
        self.controller.table.wake = None

    def _first_frame(self, *_: Any) -> None:
        """The first frame is on screen: the table is up, and systemd may start what waits."""
        Window.unbind(on_flip=self._first_frame)
        self.first_frame_at = time.perf_counter()
        self.first_frame_wall = time.time()
        session = self.controller.session
        game = f", game {session.game_id} ({session.rules.name})" if session is not None else ""
        self.watchdog.ready(f"table {self.controller.table.table_id}{game}")
        if self.watchdog.interval is not None:
            # From the Kivy clock, twice per interval: the pings prove the UI loop turns.
            Clock.schedule_interval(lambda _dt: self.watchdog.ping(), self.watchdog.interval / 2)

    def _rescale(self, _window: Any, size: tuple[int, int]) -> None:
        w, h = size
        self.u = min(w / theme.BASE_SIZE[0], h / theme.BASE_SIZE[1])

    # -- navigation and state ----------------------------------------------------------

    @property
    def sm(self) -> Any:
        return self.root.ids.sm

    def screen(self, name: str) -> AppScreen:
        return self._screens[self._resolve(name)]

    def _resolve(self, name: str) -> str:
        if name == "table":
            return f"table_{self.game}" if f"table_{self.game}" in self._screens else "home"
        return name

    def go(self, name: str) -> None:
        """Show a screen: ``home``, ``setup``, ``table`` (the game's own), ``history``..."""
        target = self._resolve(name)
        if self.sm.current == target:
            self._screens[target].refresh()
        else:
            self.sm.current = target
        self._retitle()

    def _retitle(self) -> None:
        screen = self._screens.get(self.sm.current)
        self.title_text = screen.title if screen is not None else ""

    def redraw(self, *_: Any) -> None:
        self.state = self.controller.state()
        self.game = self.controller.game or ""
        self.revision = self.controller.revision if self.controller.revision is not None else -1
        current = self._screens.get(self.sm.current) if self.root is not None else None
        if current is not None:
            current.refresh()
            self._retitle()
        if self.panel_strip:
            self.draw_panel_keys()

    def t(self, key: str, **params: Any) -> str:
        """UI text for kv rules."""
        return t(key, **params)

    # -- acting ----------------------------------------------------------------------------

    def act(self, command: str | dict[str, Any], *, guard: bool = True) -> bool:
        """Play a command from a tap; True if it was applied. Errors go to the message line."""
        key = command if isinstance(command, str) else repr(sorted(command.items()))
        now = time.monotonic()
        if guard and key == self._last_command[0] and now - self._last_command[1] < self.REPEAT_GUARD:
            return False
        result = self.controller.play(command, seen=self.revision if guard else None)
        if not result.ok:
            self.say(result.error or "?")
            return False
        self._last_command = (key, now)
        self.clear_message()
        self.redraw()
        return True

    def say(self, text: str, *, error: bool = True) -> None:
        """Show ``text`` on the message line for ``MESSAGE_SECONDS`` from now. (Kivy's
        trigger, called while pending, keeps its first time: a message said just before an
        earlier one's time was up would be wiped at once.)"""
        self.message = text
        self.message_is_error = error
        self._message_timeout.cancel()
        self._message_timeout()

    def clear_message(self) -> None:
        self.message = ""

    # -- devices (main thread, through the bridge) ------------------------------------------

    def on_device_status(self, status: DeviceStatus) -> None:
        self.devices[status.key] = status.online
        self._draw_status()

    def _draw_status(self) -> None:
        lights = self.root.ids.status_lights
        lights.clear_widgets()
        for key in sorted(self.devices, key=_device_order):
            label = {"broker": t("status.broker"), "camera": t("status.camera")}.get(
                key, t("status.tracker", id=key.partition(":")[2]))
            lights.add_widget(make("StatusLight", online=self.devices[key], label=label))

    def show_reading(self, reading: Reading) -> None:
        """A settled reading from the vision service: show it for confirmation, unless the
        companion already played it (``[vision] auto_confirm``): then a notice says what it
        did, and the History has it. A reading the game refused is shown with the reason."""
        if reading.outcome == "played":
            self.say(t("camera.played", what=reading.said), error=False)
            return
        if reading.outcome == "held":
            self.say(t(f"camera.held_{reading.kind}"), error=False)
            return
        if reading.kind == "dice":
            self.latest_dice = reading
        self.reading = reading
        if self.controller.session is None or self.sm.current in self.READING_WAITS:
            return  # kept: the Camera button (or the panel's Read dice) shows it
        self.go("camera")
        if reading.outcome == "refused":
            self.say(t("camera.refused", error=reading.said))

    # -- the button panel (main thread) -------------------------------------------------------

    def _start_panel(self) -> None:
        self.panel.start(on_main_thread(self.on_panel_request))
        keys = self.panel.keys
        if keys is None:
            return
        Window.bind(on_key_down=self._key_down, on_key_up=self._key_up)
        drawer = self.root.ids.panel_drawer.ids.panel_keys
        for switch in keys.switches:
            drawer.add_widget(make("PanelKey", tag=f"panel:{switch.name}", switch=switch,
                                   title=_switch_title(switch),
                                   key=KEY_LABELS.get(switch.key or "", switch.key or "")))
        self.panel_strip = self.onscreen_panel

    def _key_down(self, _window: Any, key: int, _scancode: int, _text: Any,
                  modifiers: list[str]) -> bool:
        keys = self.panel.keys
        name = KEY_NAMES.get(key)
        if keys is None or name is None or {"ctrl", "alt", "meta"} & set(modifiers):
            return False
        if self._typing():
            return False  # a name typed into a field is not a button press
        return keys.key_down(name)

    def _key_up(self, _window: Any, key: int, _scancode: int) -> bool:
        keys = self.panel.keys
        name = KEY_NAMES.get(key)
        # A release is always passed on: it only lets go of a pin that is down.
        return keys is not None and name is not None and keys.key_up(name)

    @staticmethod
    def _typing() -> bool:
        return any(isinstance(w, TextInput) and w.focus
                   for top in Window.children for w in top.walk(restrict=True))

    def on_panel_request(self, request: Request) -> None:
        """Read dice, Confirm or Cancel from the panel; its LED and buzzer say how it went."""
        if request.kind == "read_dice":
            ok = self.read_dice(request.action or "")
        elif self.sm.current == "camera" and self.reading is not None:
            camera = self.screen("camera")
            ok = camera.confirm() if request.kind == "confirm" else camera.discard()
        else:
            self.say(t("panel.nothing_asked", button=t(f"panel.{request.kind}")), error=False)
            ok = False
        self.panel.answered(ok)

    def read_dice(self, verb: str) -> bool:
        """Open the camera screen on the latest settled dice reading, offering it as ``verb``."""
        if self.controller.session is None:
            self.say(t("error.no_game"))
            return False
        if self.latest_dice is None:
            self.say(t("panel.no_dice"))
            return False
        self.reading_as = verb
        self.reading = self.latest_dice
        self.go("camera")
        return True

    def draw_panel_keys(self) -> None:
        """Dim the on-screen panel's keys that mean nothing in this game."""
        panel = self.panel.panel
        for key in self.root.ids.panel_drawer.ids.panel_keys.children:
            function = key.switch.device.function
            key.idle = (panel is not None and function not in ("confirm", "cancel")
                        and panel.meaning(function) is None)


def _switch_title(switch: Switch) -> str:
    device = switch.device
    title = {"ccw": "↺", "cw": "↻", "push": t("panel.push")}.get(
        switch.role, FUNCTIONS[device.function].title)
    return f"{t('panel.seat', seat=device.seat)} {title}" if device.seat is not None else title


def _device_order(key: str) -> tuple[int, str]:
    return ({"broker": 0, "camera": 1}.get(key, 2), key.rjust(12))
