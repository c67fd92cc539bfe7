"""The app as systemd runs it (``Type=notify``, ``WatchdogSec=``), over the real notify protocol.

``READY=1`` comes once the first frame is on screen with the game resumed, watchdog pings
come from Kivy's clock (so a hung UI loop stops them), ``STOPPING=1`` on the way out. The
app here also has a pin map with a mistake: the panel is off, Settings says why, naming the
line, and the app is ready and plays all the same.
"""

from __future__ import annotations

import socket
import threading
import time
from pathlib import Path

from companion.app.display import VirtualScreen
from tests.app.conftest import AppDriver

BAD_PINMAP = """\
[[device]]
function = "next"
pin = 2
pull_up = true
"""


class Systemd:
    """A datagram socket standing in for systemd's notify socket: every message, timed."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.heard: list[tuple[float, str]] = []
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self._sock.bind(str(path))
        self._sock.settimeout(0.2)
        self._open = True
        self._thread = threading.Thread(target=self._listen, daemon=True)
        self._thread.start()

    def _listen(self) -> None:
        while self._open:
            try:
                message = self._sock.recv(4096).decode()
            except TimeoutError:
                continue
            self.heard.append((time.time(), message))

    def messages(self, prefix: str) -> list[tuple[float, str]]:
        return [(at, m) for at, m in list(self.heard) if m.startswith(prefix)]

    def wait_for(self, prefix: str, timeout: float = 20.0) -> tuple[float, str]:
        deadline = time.monotonic() + timeout
        while not self.messages(prefix):
            assert time.monotonic() < deadline, f"no {prefix} from the app; heard {self.heard}"
            time.sleep(0.05)
        return self.messages(prefix)[0]

    def wait_for_after(self, prefix: str, since: float, timeout: float = 5.0) -> None:
        deadline = time.monotonic() + timeout
        while not [at for at, _ in self.messages(prefix) if at > since]:
            assert time.monotonic() < deadline, f"no {prefix} since {since}"
            time.sleep(0.05)

    def close(self) -> None:
        self._open = False
        self._thread.join()
        self._sock.close()


def test_systemd_hears_ready_pings_and_stopping(screen: VirtualScreen, tmp_path: Path) -> None:
    systemd = Systemd(tmp_path / "notify")
    (tmp_path / "pinmap.toml").write_text(BAD_PINMAP)
    settings = f'[app]\nhardware = "simulated"\n[panel]\npinmap = "{tmp_path / "pinmap.toml"}"\n'
    # WatchdogSec=1: a ping every half second at least.
    app = AppDriver(screen, tmp_path, settings=settings, extra_args=("--demo",),
                    env={"NOTIFY_SOCKET": str(systemd.path), "WATCHDOG_USEC": "1000000"})
    try:
        ready_at, ready = systemd.wait_for("READY=1")
        assert ready == "READY=1\nSTATUS=table table1, game 1 (zun)"
        first_frame = app.ask("ping")["first_frame_wall"]
        assert first_frame is not None and first_frame <= ready_at, "ready after the first frame"
        assert len(systemd.messages("READY=1")) == 1

        # The panel's pin map has a mistake: the app says so, and goes on without buttons.
        message = app.view()["message"]
        assert message.startswith("The button panel is off:") and "line 3" in message
        app.click("status_corner")
        app.click("tab:pins")
        note = app.find("pins_note")["text"]
        assert "pinmap.toml, line 3: GPIO2 (header pin 3) is reserved" in note
        assert not any(t.startswith("pin:") for t in app.ask("tags")["tags"])
        app.click("back")
        app.click("plus:Ann", times=1)
        app.click("minus:Ann", times=2, delay_ms=120)
        app.click("ok:Ann")
        assert app.engine()["players"][0]["hp"] == 11

        # Pings while the UI loop turns; none while it hangs; again once it turns.
        assert len(systemd.messages("WATCHDOG=1")) >= 2
        hung_at = time.time()
        app.ask("freeze", seconds=1.5)
        resumed_at = time.time()
        pings = [at for at, _ in systemd.messages("WATCHDOG=1")]
        assert not [at for at in pings if hung_at + 0.3 < at < resumed_at - 0.1], \
            "a hung UI loop must not ping"
        systemd.wait_for_after("WATCHDOG=1", resumed_at)
    finally:
        app.close()
        systemd.close()
    assert app.process.returncode == 0
    assert systemd.heard[-1][1] == "STOPPING=1"
