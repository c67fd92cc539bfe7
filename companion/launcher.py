"""Starting a set of processes that stop together, for the demo and the end-to-end tests.

The demo is several real processes (a broker, the app, the camera process, LED trackers
under MicroPython). One Ctrl-C must stop all of them and leave nothing behind, so:

* each child gets its own process group, and stopping kills the whole group, so a child's
  own children (the MicroPython binary under a tracker wrapper) go too;
* each child asks the kernel to send it SIGTERM if the launcher dies, even by SIGKILL
  (``PR_SET_PDEATHSIG``, Linux), so a crashed launcher leaves no orphans either;
* stopping is in reverse order of starting (the app before the broker it talks to), first
  politely (SIGTERM), then SIGKILL after a grace period.
"""

from __future__ import annotations

import ctypes
import logging
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any

__all__ = ["Launcher", "Child"]

log = logging.getLogger(__name__)

_PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:
    """Runs in the child before exec: ask for SIGTERM when the launcher goes away."""
    if sys.platform.startswith("linux"):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)


@dataclass
class Child:
    name: str
    process: subprocess.Popen[bytes]
    log_path: Path | None

    @property
    def running(self) -> bool:
        return self.process.poll() is None


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


class Launcher:
    """Children started with :meth:`start`, stopped together by :meth:`stop`.

    Use it as a context manager: however the block is left (Ctrl-C or SIGTERM at any moment,
    even while starting, a failed start, an error), every child is stopped::

        with Launcher(log_dir) as launcher:
            launcher.start("broker", [...], ready=broker_listening)
            launcher.wait()
    """

    def __init__(self, log_dir: Path | None = None) -> None:
        self.log_dir = log_dir
        self.children: list[Child] = []
        self._previous: dict[int, Any] = {}

    def __enter__(self) -> Launcher:
        # SIGTERM (systemd, kill) stops the launcher the same way Ctrl-C does. SIGINT is
        # set too: a shell starts a background job with SIGINT ignored, and Python then
        # leaves it ignored, so the demo started with `&` would not stop on SIGINT.
        self._previous = {sig: signal.signal(sig, _interrupt) for sig in (signal.SIGTERM, signal.SIGINT)}
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            self.stop()
        finally:
            for sig, handler in self._previous.items():
                signal.signal(sig, handler)

    def start(self, name: str, argv: Sequence[str], *, env: Mapping[str, str] | None = None,
              cwd: Path | None = None, ready: Callable[[], bool] | None = None,
              timeout: float = 30.0) -> Child:
        """Start ``argv``; with ``ready``, wait until it returns True (or fail after timeout)."""
        log_path = self.log_dir / f"{name}.log" if self.log_dir is not None else None
        output = log_path.open("ab") if log_path is not None else subprocess.DEVNULL
        try:
            process = subprocess.Popen(list(argv), env=dict(env) if env is not None else None,
                                       cwd=cwd, stdout=output, stderr=subprocess.STDOUT,
                                       stdin=subprocess.DEVNULL, start_new_session=True,
                                       preexec_fn=_die_with_parent)
        finally:
            if log_path is not None:
                output.close()  # type: ignore[union-attr]
        child = Child(name, process, log_path)
        self.children.append(child)
        log.info("started %s (pid %d)", name, process.pid)
        if ready is not None:
            deadline = time.monotonic() + timeout
            while not ready():
                if not child.running:
                    raise RuntimeError(f"{name} exited with status {process.returncode}"
                                       + (f"; see {log_path}" if log_path else ""))
                if time.monotonic() > deadline:
                    raise RuntimeError(f"{name} was not ready within {timeout:.0f} s")
                time.sleep(0.05)
        return child

    def stop_child(self, child: Child, grace: float = 5.0) -> None:
        """Stop one child and everything it started."""
        self._signal_group(child, signal.SIGTERM)
        try:
            child.process.wait(grace)
        except subprocess.TimeoutExpired:
            log.warning("%s did not stop within %.0f s; killing it", child.name, grace)
        # Its group may hold grandchildren even after it exited.
        self._signal_group(child, signal.SIGKILL)
        if child.running:
            child.process.wait()

    def stop(self, grace: float = 5.0) -> None:
        """Stop every child, the last started first."""
        for child in reversed(self.children):
            self.stop_child(child, grace)
        self.children.clear()

    @staticmethod
    def _signal_group(child: Child, sig: int) -> None:
        try:
            os.killpg(child.process.pid, sig)
        except ProcessLookupError:
            pass  # the whole group is already gone

    def wait(self, critical: Sequence[str] = ()) -> str:
        """Block until Ctrl-C, SIGTERM, or a ``critical`` child exits; say which."""
        try:
            while True:
                for child in self.children:
                    if child.name in critical and not child.running:
                        return f"{child.name} exited with status {child.process.returncode}"
                time.sleep(0.1)
        except KeyboardInterrupt:
            return "stop requested"
