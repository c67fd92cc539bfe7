"""Waiting for something that another thread or process makes true."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any


def until(condition: Callable[[], Any], timeout: float = 5.0) -> None:
    """Wait for ``condition()`` to hold, checking often; fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "condition not met in time"
        time.sleep(0.02)
