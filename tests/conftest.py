"""Fixtures shared by every test suite."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.broker import Broker


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Broker]:
    """A real Mosquitto broker, anonymous, on a free loopback port; stopped afterwards."""
    b = Broker(tmp_path)
    b.start()
    yield b
    b.stop()
