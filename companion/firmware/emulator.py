"""The real tracker firmware, run on the MicroPython unix port, with its LEDs in view.

On the unix port the firmware drives a ``FakeStrip``; given the setting
``"frames": "udp:<host>:<port>"`` it sends every frame it shows there as one
UDP datagram of JSON::

    {"id": "t1", "strip": "main", "seq": 17, "pixels": "ff0000ff0000..."}

(``strip`` is ``main``, or ``pool`` for Loki's pool; ``pixels`` is 6 hex digits
per LED, after brightness). :class:`TrackerEmulator` starts the firmware with
such a setting and a UDP socket of its own, and keeps the frames it receives:
the tests wait for expected pixels, the benchmark times them, and the desktop
demo draws them (``on_frame`` is called on the receiving thread; hop to the UI
thread before drawing).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from . import FIRMWARE_DIR
from .libs import micropython_lib

__all__ = ["Frame", "Pixel", "TrackerEmulator", "micropython_command", "parse_pixels"]

Pixel = tuple[int, int, int]


@dataclass(frozen=True, slots=True)
class Frame:
    """One write of one strip, as received."""

    number: int
    """Counts every frame received from this tracker, across strips."""
    strip: str
    pixels: tuple[Pixel, ...]
    at: float
    """``time.perf_counter()`` when it arrived."""


def parse_pixels(text: str) -> tuple[Pixel, ...]:
    """``"ff0000000000"`` → ``((255, 0, 0), (0, 0, 0))``."""
    return tuple((int(text[i:i + 2], 16), int(text[i + 2:i + 4], 16), int(text[i + 4:i + 6], 16))
                 for i in range(0, len(text), 6))


def micropython_command(micropython: str | Path | None = None) -> str:
    """The unix port: the ``micropython`` beside this Python (the venv's), else on PATH."""
    if micropython is not None:
        return str(micropython)
    beside = Path(sys.executable).with_name("micropython")
    return str(beside) if beside.exists() else "micropython"


def micropython_path(paths: Sequence[Path]) -> dict[str, str]:
    """The environment that puts ``paths`` (and nothing of the user's) on MicroPython's sys.path."""
    return {**os.environ, "MICROPYPATH": ":".join(str(p) for p in paths)}


class TrackerEmulator:
    """The firmware as a process of the unix port; see the module docstring.

    ``settings`` are the tracker's local settings (what ``secrets.json`` holds on
    a board); ``frames`` is filled in. In serial mode pass the file descriptors
    of the serial line as ``stdin``/``stdout``.
    """

    HISTORY = 2000

    def __init__(self, settings: Mapping[str, Any], workdir: Path, *,
                 stdin: int | IO[bytes] | None = None, stdout: int | IO[bytes] | None = None,
                 micropython: str | Path | None = None,
                 on_frame: Callable[[Frame], None] | None = None) -> None:
        self.workdir = Path(workdir)
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self._sock.bind(("127.0.0.1", 0))
        self._sock.settimeout(0.2)
        port = self._sock.getsockname()[1]
        self.settings = {**settings, "frames": f"udp:127.0.0.1:{port}"}
        self.settings_path = self.workdir / "secrets.json"
        self.log_path = self.workdir / "tracker.log"
        self._stdin = stdin
        self._stdout = stdout
        self._micropython = micropython_command(micropython)
        self.on_frame = on_frame
        self.process: subprocess.Popen[bytes] | None = None
        self._frames: deque[Frame] = deque(maxlen=self.HISTORY)
        self._count = 0
        self._changed = threading.Condition()
        self._receiver: threading.Thread | None = None
        self._running = False

    # -- running ----------------------------------------------------------------

    def start(self) -> TrackerEmulator:
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.settings_path.write_text(json.dumps(self.settings, indent=1))
        paths = [FIRMWARE_DIR]
        if self.settings.get("mode", "mqtt") == "mqtt":
            paths.append(micropython_lib())
        self._running = True
        self._receiver = threading.Thread(target=self._receive, name="tracker-frames", daemon=True)
        self._receiver.start()
        with self.log_path.open("ab") as log:
            self.process = subprocess.Popen(
                [self._micropython, str(FIRMWARE_DIR / "main.py"), str(self.settings_path)],
                cwd=self.workdir, env=micropython_path(paths), stdin=self._stdin,
                stdout=self._stdout if self._stdout is not None else subprocess.DEVNULL,
                stderr=log)
        return self

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._running = False
        if self._receiver is not None:
            self._receiver.join()
        self._sock.close()

    def __enter__(self) -> TrackerEmulator:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def log(self) -> str:
        """What the firmware printed on stderr (its log)."""
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    # -- frames -----------------------------------------------------------------------

    def _receive(self) -> None:
        while self._running:
            try:
                data = self._sock.recv(65536)
            except TimeoutError:
                continue
            except OSError:
                return
            message = json.loads(data)
            with self._changed:
                self._count += 1
                frame = Frame(self._count, message["strip"], parse_pixels(message["pixels"]),
                              time.perf_counter())
                self._frames.append(frame)
                self._changed.notify_all()
            if self.on_frame is not None:
                self.on_frame(frame)

    def frame(self, strip: str = "main") -> Frame | None:
        """The last frame received of ``strip``."""
        with self._changed:
            return next((f for f in reversed(self._frames) if f.strip == strip), None)

    @property
    def count(self) -> int:
        """Frames received so far; pass it as ``since`` to wait only for later ones."""
        with self._changed:
            return self._count

    def wait_for(self, predicate: Callable[[tuple[Pixel, ...]], bool], *, strip: str = "main",
                 since: int | None = None, timeout: float = 10.0) -> Frame:
        """The first frame of ``strip`` numbered after ``since`` (default: the last
        one already received) whose pixels satisfy ``predicate``."""
        deadline = time.monotonic() + timeout
        with self._changed:
            if since is None:
                last = self.frame(strip)
                since = last.number - 1 if last is not None else 0
            while True:
                for f in self._frames:
                    if f.number > since and f.strip == strip and predicate(f.pixels):
                        return f
                if self._frames:
                    since = max(since, self._frames[-1].number)
                left = deadline - time.monotonic()
                if left <= 0 or (self.process is not None and self.process.poll() is not None):
                    last = self.frame(strip)
                    raise TimeoutError(
                        f"no frame of the {strip} strip matched in {timeout} s; the last was "
                        f"{last.pixels if last else None}\n--- tracker log ---\n{self.log()}")
                self._changed.wait(left)
