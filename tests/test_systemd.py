"""The processes tell systemd they are ready and alive, over its real notify socket protocol."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from companion.systemd import Watchdog


@pytest.fixture
def notify_socket(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[socket.socket]:
    """A datagram socket standing in for systemd's, where the messages can be read back."""
    path = tmp_path / "notify"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(path))
    sock.settimeout(1)
    monkeypatch.setenv("NOTIFY_SOCKET", str(path))
    yield sock
    sock.close()


def test_ready_and_rate_limited_watchdog_pings(notify_socket: socket.socket,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WATCHDOG_USEC", "4000000")  # WatchdogSec=4: ping every 2 s
    now = [100.0]
    dog = Watchdog(clock=lambda: now[0])
    dog.ready("serving table t1")
    for t in (100.0, 100.5, 101.9, 102.0, 103.0, 104.1):
        now[0] = t
        dog.ping()
    dog.stopping()
    got = []
    while True:
        try:
            got.append(notify_socket.recv(200).decode())
        except TimeoutError:
            break
    assert got == ["READY=1\nSTATUS=serving table t1", "WATCHDOG=1", "WATCHDOG=1", "WATCHDOG=1",
                   "STOPPING=1"]


def test_without_systemd_nothing_is_sent(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NOTIFY_SOCKET", raising=False)
    monkeypatch.delenv("WATCHDOG_USEC", raising=False)
    dog = Watchdog()
    dog.ready()
    dog.ping()
    assert dog.interval is None
