"""The demo's LED trackers, drawn: a window with one ring of LEDs per tracker.

The trackers are the real firmware on the MicroPython unix port; each sends every frame
its strip shows as a UDP datagram (``"frames": "udp:<host>:<port>"`` in its settings, see
:mod:`companion.firmware.emulator`). This window is where those datagrams go: one
socket, each frame filed under the tracker id it carries, and the rings redrawn at most
``FPS`` times a second from the latest frames (a pulsing LED sends 50 frames a second;
the screen need not draw each).

    python -m companion.demo.leds --trackers 1,2 --ready /tmp/port

It binds a free UDP port and writes its number to the ``--ready`` file once the window
is up: the demo then starts the trackers with that port.
"""

from __future__ import annotations

import argparse
import json
import math
import socket
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from companion.firmware.emulator import Pixel, parse_pixels

__all__ = ["main"]

FPS = 20
RING = 12
"""LEDs drawn per ring until a tracker's first frame says how many it has."""
TITLE = "Rune Table: LED trackers"


class FrameInbox:
    """The latest pixels of each tracker, filled from the UDP socket on its own thread."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.latest: dict[str, tuple[Pixel, ...]] = {}
        self.dirty = threading.Event()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._receive, daemon=True, name="led-frames")

    def start(self) -> None:
        self._thread.start()

    def _receive(self) -> None:
        while True:
            try:
                data = self.sock.recv(65536)
                message = json.loads(data)
                tracker, strip = str(message["id"]), str(message["strip"])
                pixels = parse_pixels(str(message["pixels"]))
            except OSError:
                return  # the socket was closed: the window is going
            except (ValueError, KeyError, TypeError):
                continue  # not a frame: nothing to draw
            if strip != "main":
                continue
            with self._lock:
                self.latest[tracker] = pixels
            self.dirty.set()

    def snapshot(self) -> dict[str, tuple[Pixel, ...]]:
        self.dirty.clear()
        with self._lock:
            return dict(self.latest)


def announce(ready: Path, port: int) -> None:
    """Write the port to ``ready`` whole, by renaming a finished file onto it.

    The demo starts the trackers as soon as ``ready`` exists; a plain write creates the
    file before it fills it, and on a loaded machine the demo read it empty.
    """
    part = ready.with_name(ready.name + ".part")
    part.write_text(str(port))
    part.replace(ready)


def _build(trackers: Sequence[str], inbox: FrameInbox, ready: Path, port: int) -> Any:
    from kivy.app import App
    from kivy.clock import Clock
    from kivy.graphics import Color, Ellipse
    from kivy.uix.gridlayout import GridLayout
    from kivy.uix.label import Label
    from kivy.uix.widget import Widget

    class Ring(Widget):
        """One tracker: its LEDs in a circle, as on the printed ring."""

        def __init__(self, name: str, **kwargs: Any) -> None:
            super().__init__(**kwargs)
            self.name = name
            self.pixels: tuple[Pixel, ...] = ((0, 0, 0),) * RING
            self.label = Label(text=name, font_size="15sp", color=(0.8, 0.8, 0.8, 1))
            self.add_widget(self.label)
            self.bind(pos=self.draw, size=self.draw)

        def show(self, pixels: tuple[Pixel, ...]) -> None:
            if pixels != self.pixels:
                self.pixels = pixels
                self.draw()

        def draw(self, *_: Any) -> None:
            self.canvas.before.clear()
            n = max(1, len(self.pixels))
            cx, cy = self.center_x, self.center_y + 10
            radius = min(self.width, self.height - 30) * 0.38
            led = max(6.0, min(28.0, 2 * math.pi * radius / n * 0.7))
            with self.canvas.before:
                for i, (r, g, b) in enumerate(self.pixels):
                    # LED 0 at the top, clockwise, as the firmware numbers the strip.
                    angle = math.pi / 2 - 2 * math.pi * i / n
                    x, y = cx + radius * math.cos(angle), cy + radius * math.sin(angle)
                    Color(0.12, 0.12, 0.12, 1)
                    Ellipse(pos=(x - led / 2 - 2, y - led / 2 - 2), size=(led + 4, led + 4))
                    Color(r / 255, g / 255, b / 255, 1)
                    Ellipse(pos=(x - led / 2, y - led / 2), size=(led, led))
            self.label.size = (self.width, 24)
            self.label.pos = (self.x, self.y + 4)

    class LedWindow(App):
        title = TITLE

        def build(self) -> Any:
            columns = 2 if len(trackers) > 1 else 1
            grid = GridLayout(cols=columns, padding=8, spacing=8)
            self.rings = {name: Ring(name) for name in trackers}
            for ring in self.rings.values():
                grid.add_widget(ring)
            Clock.schedule_interval(self.refresh, 1 / FPS)
            return grid

        def on_start(self) -> None:
            inbox.start()
            Clock.schedule_once(lambda _: announce(ready, port), 0.5)

        def refresh(self, _: float) -> None:
            if not inbox.dirty.is_set():
                return
            for name, pixels in inbox.snapshot().items():
                if name in self.rings:
                    self.rings[name].show(pixels)

    return LedWindow()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m companion.demo.leds", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--trackers", required=True, help="tracker ids, comma-separated")
    parser.add_argument("--ready", type=Path, required=True,
                        help="write the UDP port here once the window is up")
    parser.add_argument("--left", type=int, default=0, help="window position on the screen")
    args = parser.parse_args(argv)
    trackers = [t for t in args.trackers.split(",") if t]
    rows = math.ceil(len(trackers) / 2)

    from companion.app import configure_kivy

    configure_kivy((440 if len(trackers) > 1 else 230, 20 + 240 * rows))
    from kivy.config import Config  # after configure_kivy: Kivy reads the environment once

    Config.set("graphics", "left", str(args.left))
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    inbox = FrameInbox(sock)
    try:
        _build(trackers, inbox, args.ready, port).run()
    finally:
        sock.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
