"""The app under Xvfb, driven by real X input events (xdotool), watched through its probe.

Each test starts its own virtual screen (Xvfb picks a free display) and the
real ``runes-app`` in a subprocess. Clicks and keystrokes go through the X
server exactly as a mouse or a touchscreen's would; the app's test-only probe
(``RUNES_APP_PROBE``) says where a tagged widget is. The engine's state is
read back from the journal on disk, through a second connection, as a
restarted companion would see it.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from tests.support.wait import until

from companion.app.display import VirtualScreen
from companion.core.journal import Journal
from companion.core.session import Session

REPO = Path(__file__).resolve().parents[2]


class AppDriver:
    """The running app: real clicks and keys in, probe and journal out."""

    def __init__(self, screen: VirtualScreen, workdir: Path, *, size: str = "800x480",
                 extra_args: tuple[str, ...] = (),
                 settings: str = '[app]\nhardware = "simulated"\n',
                 env: Mapping[str, str] | None = None) -> None:
        self.screen = screen
        self.workdir = workdir
        self.socket = workdir / "probe.sock"
        self.journal_path = workdir / "journal.sqlite"
        self.env = {**os.environ, "DISPLAY": screen.display, "KIVY_HOME": str(workdir / "kivy"),
                    "RUNES_CONFIG": str(workdir / "companion.toml"),
                    "XDG_CONFIG_HOME": str(workdir / "config"),
                    "XDG_DATA_HOME": str(workdir / "data"),
                    "RUNES_APP_PROBE": str(self.socket), **(env or {})}
        (workdir / "companion.toml").write_text(settings)
        self.log = (workdir / "app.log").open("wb")
        self.process = subprocess.Popen(
            [sys.executable, "-c", "from companion.app import main; main()", "--journal",
             str(self.journal_path), "--size", size, *extra_args],
            env=self.env, cwd=REPO, stdout=self.log, stderr=subprocess.STDOUT)
        self._wait_ready()

    def _wait_ready(self, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the app exited:\n{self.log_text()}")
            if self.socket.exists():
                try:
                    if self.ask("ping").get("ready"):
                        self.sync()
                        return
                except OSError:
                    pass
            time.sleep(0.2)
        raise TimeoutError(f"the app did not show its first frame:\n{self.log_text()}")

    def log_text(self) -> str:
        self.log.flush()
        return (self.workdir / "app.log").read_text(errors="replace")[-4000:]

    def ask(self, op: str, **params: Any) -> dict[str, Any]:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(30)
            s.connect(str(self.socket))
            with s.makefile("rwb") as f:
                f.write(json.dumps({"op": op, **params}).encode() + b"\n")
                f.flush()
                answer: dict[str, Any] = json.loads(f.readline())
        return answer

    def sync(self) -> None:
        """Wait until the app has handled every input event sent so far and redrawn."""
        time.sleep(0.05)
        assert self.ask("sync")["ok"]

    def xdotool(self, *args: str) -> None:
        subprocess.run(["xdotool", *args], env=self.env, check=True, timeout=20)

    def find(self, tag: str) -> dict[str, Any]:
        found = self.ask("find", tag=tag)
        assert found["ok"], f"{found['error']}; visible tags: {self.ask('tags')['tags']}"
        return found

    def click(self, tag: str, *, times: int = 1, delay_ms: int = 80) -> None:
        """Click the widget tagged ``tag`` with the real (X) mouse, ``times`` in a row."""
        where = self.find(tag)
        self.xdotool("mousemove", str(round(where["x"])), str(round(where["y"])))
        self.sync()  # the app sees the pointer arrive before the button goes down
        self.xdotool("click", "--repeat", str(times), "--delay", str(delay_ms), "1")
        self.sync()
        if where["in_scroll"]:  # the release comes later: wait for it, however slow the frames
            until(lambda: self.ask("released")["released"], timeout=10)
            self.sync()

    def press(self, *keys: str) -> None:
        """Press and release keys (X key names: ``a``, ``space``, ``Return``) on the real keyboard.

        The pointer rests on the title bar first: without a window manager, keys go to
        the window under the pointer.
        """
        self.xdotool("mousemove", "40", "20")
        self.xdotool("key", "--delay", "80", *keys)
        self.sync()

    def reveal(self, tag: str, *, near: str) -> None:
        """Scroll with the mouse wheel over the widget tagged ``near`` until ``tag`` shows,
        and until it has come to rest (Kivy's scroll effect glides on after the wheel)."""
        for wheel in ("5", "4"):
            for _ in range(12):
                if self.ask("find", tag=tag)["ok"]:
                    self._settle(tag)
                    return
                where = self.find(near)
                self.xdotool("mousemove", str(round(where["x"])), str(round(where["y"])))
                self.xdotool("click", "--repeat", "3", "--delay", "30", wheel)
                self.sync()
        self.find(tag)

    def _settle(self, tag: str) -> None:
        last: tuple[float, float] | None = None

        def resting() -> bool:
            nonlocal last
            where = self.find(tag)
            here = (where["x"], where["y"])
            still = here == last
            last = here
            time.sleep(0.1)
            return still

        until(resting, timeout=5)

    def type_into(self, tag: str, text: str) -> None:
        """Replace a text field's content by typing, as a keyboard would."""
        self.click(tag)
        self.xdotool("key", "ctrl+a", "BackSpace")
        self.xdotool("type", "--delay", "20", text)
        self.sync()

    def view(self) -> dict[str, Any]:
        """What the app shows: its state, screen, message line and devices."""
        answer = self.ask("state")
        assert answer["ok"], answer
        return answer

    def engine(self) -> dict[str, Any]:
        """The game as the journal on disk holds it, replayed by a fresh session."""
        with Journal(self.journal_path) as journal:
            latest = journal.games(include_archived=True)[0]
            return Session.resume(journal, latest.id).to_json()

    def saved_games(self) -> int:
        with Journal(self.journal_path) as journal:
            return len(journal.games(include_archived=True))

    def close(self) -> None:
        if self.process.poll() is None:
            try:
                self.ask("stop")
                self.process.wait(timeout=15)
            except (OSError, subprocess.TimeoutExpired):
                self.process.kill()
                self.process.wait()
        self.log.close()


@pytest.fixture
def screen() -> Iterator[VirtualScreen]:
    for tool in ("Xvfb", "xdotool"):
        assert shutil.which(tool), f"{tool} is needed (systemd/install --test installs it)"
    display = VirtualScreen()
    yield display
    display.close()


@pytest.fixture
def app(screen: VirtualScreen, tmp_path: Path) -> Iterator[AppDriver]:
    driver = AppDriver(screen, tmp_path)
    yield driver
    driver.close()
