"""Telling systemd how a process is doing: ready, alive, stopping.

The units (``systemd/*.service``) are ``Type=notify`` with ``WatchdogSec=``: systemd
starts the next unit only once this process says ``READY=1``, and restarts it if the
pings stop (a hung UI loop, a stuck camera read). Pings come from the process's own
main loop, so they prove the loop is turning, not just that a thread is alive.

Outside systemd (``$NOTIFY_SOCKET`` unset: a desktop, the tests) every call is a no-op.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable

import sdnotify

__all__ = ["Watchdog"]


class Watchdog:
    """``ready()`` once started, ``ping()`` from the main loop as often as you like."""

    def __init__(self, *, clock: Callable[[], float] = time.monotonic) -> None:
        self._enabled = bool(os.environ.get("NOTIFY_SOCKET"))
        self._notifier = sdnotify.SystemdNotifier() if self._enabled else None
        usec = int(os.environ.get("WATCHDOG_USEC", "0") or 0)
        # Ping at twice the rate systemd demands, and no faster (pings cost a syscall).
        self.interval = usec / 2e6 if usec else None
        self._clock = clock
        self._last = float("-inf")

    def _send(self, message: str) -> None:
        if self._notifier is not None:
            self._notifier.notify(message)

    def ready(self, status: str = "") -> None:
        self._send("READY=1" + (f"\nSTATUS={status}" if status else ""))

    def status(self, text: str) -> None:
        self._send(f"STATUS={text}")

    def ping(self) -> None:
        if self.interval is None:
            return
        now = self._clock()
        if now - self._last >= self.interval:
            self._last = now
            self._send("WATCHDOG=1")

    def stopping(self) -> None:
        self._send("STOPPING=1")
