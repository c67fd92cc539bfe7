"""A test-only window into the running app, over a Unix socket.

Started only when ``RUNES_APP_PROBE`` names a socket path (never on a real
table). Tests drive the app with real X input events (xdotool clicks); the
probe tells them where a tagged widget is on the screen, what the game's state
is, and whether the screen has caught up, and lets them play a device
(a vision reading, a tracker going offline) through the same simulated
adapters the demo uses, from a thread of its own like a real device.

One JSON request per line, one JSON answer per line::

    {"op": "find", "tag": "minus:Ann"}   → {"ok": true, "x": 212, "y": 301, ...}

Coordinates are screen pixels of the widget's centre, origin top left, as
xdotool takes them.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import threading
import time
from concurrent.futures import Future
from pathlib import Path
from typing import Any, Callable

from kivy.clock import Clock
from kivy.core.window import Window

from . import layout
from .adapters import SimulatedStatus, SimulatedVision, demo_card, demo_dice

__all__ = ["Probe"]

log = logging.getLogger(__name__)


class Probe:
    def __init__(self, app: Any, path: Path) -> None:
        self.app = app
        self.path = path
        self._server: socket.socket | None = None

    def start(self) -> None:
        if self.path.exists():
            self.path.unlink()
        self._server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._server.bind(str(self.path))
        self._server.listen(4)
        threading.Thread(target=self._serve, daemon=True, name="app-probe").start()

    def _serve(self) -> None:
        assert self._server is not None
        while True:
            conn, _ = self._server.accept()
            threading.Thread(target=self._client, args=(conn,), daemon=True).start()

    def _client(self, conn: socket.socket) -> None:
        with conn, conn.makefile("rwb") as stream:
            for line in stream:
                try:
                    request = json.loads(line)
                    answer = self._handle(request)
                except Exception as e:  # a test's bad request must not kill the app
                    answer = {"ok": False, "error": f"{type(e).__name__}: {e}"}
                stream.write(json.dumps(answer).encode() + b"\n")
                stream.flush()

    def _on_main(self, fn: Callable[[], Any]) -> Any:
        """Run ``fn`` on Kivy's main thread and wait for its answer."""
        future: Future[Any] = Future()

        def run(*_: Any) -> None:
            try:
                future.set_result(fn())
            except Exception as e:
                future.set_exception(e)

        Clock.schedule_once(run, 0)
        return future.result(timeout=20)

    def _handle(self, request: dict[str, Any]) -> dict[str, Any]:
        op = request.get("op")
        hardware = self.app.hardware
        # Device events come from this thread, as a real device's would.
        if op == "reading":
            vision: SimulatedVision = hardware.vision
            if request["kind"] == "dice":
                vision.show(demo_dice(request["faces"]))
            else:
                vision.show(demo_card(request["name"]))
            return {"ok": True}
        if op == "device":
            status: SimulatedStatus = hardware.status
            status.set(request["key"], bool(request["online"]))
            return {"ok": True}
        if op == "submit":
            return {"ok": self.app.controller.table.submit(request["command"], source="probe")}
        if op == "sync":
            # Two frames: input events queued before this request are dispatched by then.
            for _ in range(3):
                self._on_main(lambda: None)
            return {"ok": True}
        if op == "stop":
            Clock.schedule_once(lambda *_: self.app.stop(), 0)
            return {"ok": True}
        handler = getattr(self, f"_op_{op}", None)
        if handler is None:
            return {"ok": False, "error": f"unknown op {op!r}"}
        return self._on_main(lambda: handler(request))  # type: ignore[no-any-return]

    # -- answered on the main thread -------------------------------------------------------

    def _op_ping(self, _: dict[str, Any]) -> dict[str, Any]:
        return {"ok": True, "ready": self.app.first_frame_at is not None, "pid": os.getpid(),
                "first_frame_wall": self.app.first_frame_wall}

    def _op_frames_start(self, _: dict[str, Any]) -> dict[str, Any]:
        """Record the time between frames until ``frames_stop`` (for the benchmark)."""
        self._frames: list[float] = []
        self._last = time.perf_counter()

        def tick(_dt: float) -> None:
            now = time.perf_counter()
            self._frames.append(now - self._last)
            self._last = now

        self._ticker = Clock.schedule_interval(tick, 0)
        return {"ok": True}

    def _op_frames_stop(self, _: dict[str, Any]) -> dict[str, Any]:
        self._ticker.cancel()
        screen = self.app.screen("settings")
        return {"ok": True, "frames": self._frames, "camera_shown": screen.frames_shown,
                "camera_dropped": screen._frames.dropped}

    def _op_state(self, _: dict[str, Any]) -> dict[str, Any]:
        return {"ok": True, "state": self.app.controller.state(), "screen": self.app.sm.current,
                "message": self.app.message, "revision": self.app.revision,
                "devices": dict(self.app.devices),
                "preview_frames": self.app.screen("settings").frames_shown,
                "blinked": getattr(
                    self.app.hardware.trackers, "blinked", []),
                "modal": any(type(w).__name__.endswith("Sheet") for w in Window.children)}

    def _op_released(self, _: dict[str, Any]) -> dict[str, Any]:
        """Whether every tap has reached its widget: none waits in a ScrollView's delayed
        release (Kivy's ScrollView releases a tap 0.2 s after the finger lifts)."""
        waiting = any(getattr(getattr(event.get_callback(), "func", None), "__name__", "")
                      == "_do_touch_up" for event in Clock.get_events())
        return {"ok": True, "released": not waiting}

    def _op_find(self, request: dict[str, Any]) -> dict[str, Any]:
        tag = request["tag"]
        for widget in reversed(list(layout.visible_widgets())):
            if getattr(widget, "tag", None) == tag:
                return {"ok": True, **self._screen_rect(widget), "text": getattr(widget, "text", ""),
                        "disabled": widget.disabled, "in_scroll": any(layout.scroll_views(widget))}
        return {"ok": False, "error": f"no visible widget tagged {tag!r} on {self.app.sm.current}"}

    def _op_tags(self, _: dict[str, Any]) -> dict[str, Any]:
        return {"ok": True, "tags": [w.tag for w in layout.visible_widgets() if getattr(w, "tag", "")]}

    def _op_check(self, _: dict[str, Any]) -> dict[str, Any]:
        return {"ok": True, "problems": [str(p) for p in layout.check(self.app.u)]}

    def _op_freeze(self, request: dict[str, Any]) -> dict[str, Any]:
        """Hang the UI loop for ``seconds``, as a bug would (the watchdog test)."""
        time.sleep(float(request["seconds"]))
        return {"ok": True}

    def _op_go(self, request: dict[str, Any]) -> dict[str, Any]:
        self.app.go(request["screen"])
        if "tab" in request:
            self.app.screen(request["screen"]).show_tab(request["tab"])
        return {"ok": True}

    def _op_screenshot(self, request: dict[str, Any]) -> dict[str, Any]:
        saved = Window.screenshot(name=request["path"])
        Path(saved).replace(request["path"])
        return {"ok": True}

    @staticmethod
    def _screen_rect(widget: Any) -> dict[str, float]:
        """The widget's size, and the middle of the part of it that can be seen, in screen
        pixels (origin top left): where a tap lands on it."""
        x, y, w, h = layout.seen_rect(widget)
        left, top = Window.left, Window.top
        return {"x": left + x + w / 2, "y": top + Window.height - (y + h / 2),
                "w": widget.width, "h": widget.height}

