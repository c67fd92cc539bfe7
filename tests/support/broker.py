"""A real Mosquitto broker on a free loopback port, for tests and benchmarks."""

from __future__ import annotations

import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Broker:
    """``mosquitto`` with a given configuration; ``restart()`` keeps the port."""

    def __init__(self, workdir: Path, config: str = "allow_anonymous true\n",
                 port: int | None = None) -> None:
        self.executable = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
        self.workdir = workdir
        self.port = port or free_port()
        self.host = "127.0.0.1"
        self.config_path = workdir / "mosquitto.conf"
        self.config_path.write_text(
            f"listener {self.port} {self.host}\n" + config
            + f"\npersistence false\nlog_dest file {workdir / 'mosquitto.log'}\n"
        )
        self.process: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 10.0) -> None:
        self.process = subprocess.Popen([self.executable, "-c", str(self.config_path)],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"mosquitto exited: {self.process.stderr.read().decode()}")  # type: ignore[union-attr]
            try:
                with socket.create_connection((self.host, self.port), timeout=0.2):
                    return
            except OSError:
                time.sleep(0.02)
        raise RuntimeError(f"mosquitto did not listen on {self.port} within {timeout} s")

    def stop(self, sig: int = signal.SIGTERM) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(sig)
            self.process.wait(10)
        self.process = None

    def kill(self) -> None:
        self.stop(signal.SIGKILL)

    def restart(self) -> None:
        self.kill()
        self.start()
