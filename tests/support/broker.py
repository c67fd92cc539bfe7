"""A real Mosquitto broker on a free loopback port, for tests and benchmarks."""

from __future__ import annotations

import os
import pwd
import re
import shutil
import signal
import socket
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from companion.broker import BrokerDir, User

REPO = Path(__file__).resolve().parents[2]
BROKER_CONF = REPO / "systemd" / "mosquitto" / "runes.conf"
"""The broker configuration the repo ships (installed in /etc/mosquitto/conf.d/)."""


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
        # Run as whoever runs the tests: as root, Mosquitto would otherwise drop to the
        # mosquitto user, which cannot read files in a private temporary directory.
        user = pwd.getpwuid(os.geteuid()).pw_name
        self.config_path.write_text(
            f"listener {self.port} {self.host}\n" + config
            + f"\npersistence false\nuser {user}\nlog_dest file {workdir / 'mosquitto.log'}\n"
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

    def reload(self) -> None:
        """SIGHUP: Mosquitto reads its password file and ACL again."""
        assert self.process is not None
        self.process.send_signal(signal.SIGHUP)


def secure_config(files: Path, tls_port: int) -> str:
    """The repo's broker configuration with its files in ``files``, TLS on ``tls_port``.

    Only the directory and the two listener lines change; the plain listener is the
    one :class:`Broker` puts on its free port.
    """
    text = BROKER_CONF.read_text().replace("/etc/mosquitto/runes", str(files))
    text, plain = re.subn(r"(?m)^listener 1883\s*$", "", text)
    text, tls = re.subn(r"(?m)^listener 8883\s*$", f"listener {tls_port} 127.0.0.1", text)
    assert plain == tls == 1, f"{BROKER_CONF} no longer has the listeners 1883 and 8883"
    return text


@dataclass
class Credentials:
    user: str
    password: str


@dataclass
class SecureBroker:
    """A broker with the repo's configuration and users made by ``runes-broker``'s code."""

    broker: Broker
    files: BrokerDir
    table: str
    tls_port: int
    users: dict[str, Credentials] = field(default_factory=dict)

    @property
    def host(self) -> str:
        return self.broker.host

    @property
    def port(self) -> int:
        return self.broker.port

    @property
    def ca(self) -> Path:
        return self.files.certs / "ca.crt"

    def add(self, role: str, device: str | None = None, table: str | None = None) -> Credentials:
        """A new user (the broker must be reloaded to know it); the key is its name."""
        table = None if role == "homeassistant" else (table or self.table)
        user = User(User.default_name(role, table, device), role, table, device)
        credentials = Credentials(user.name, self.files.add(user))
        self.users[user.name] = credentials
        return credentials


def secure_broker(workdir: Path, table: str = "t1") -> SecureBroker:
    """Broker files with one user per role for ``table``, and a broker (not started) using them."""
    files = BrokerDir(workdir / "broker-files")
    files.init()
    files.make_certificates(["localhost", "127.0.0.1"])
    tls_port = free_port()
    secure = SecureBroker(Broker(workdir, secure_config(files.path, tls_port)), files, table,
                          tls_port)
    for role, device in (("companion", None), ("tracker", "tr1"), ("controller", None),
                         ("vision", None), ("homeassistant", None), ("wled", "strip")):
        secure.add(role, device)
    return secure
