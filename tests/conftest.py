"""Fixtures shared by every test suite."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from companion.core.journal import Journal
from companion.table import Table
from tests.support.broker import Broker, SecureBroker, secure_broker
from tests.support.mqtt import Companion


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Broker]:
    """A real Mosquitto broker, anonymous, on a free loopback port; stopped afterwards."""
    b = Broker(tmp_path)
    b.start()
    yield b
    b.stop()


@pytest.fixture
def locked_broker(tmp_path: Path) -> Iterator[SecureBroker]:
    """Mosquitto with the repo's configuration (systemd/mosquitto/runes.conf): passwords,
    ACLs and TLS, with one user per role for table ``t1`` (``locked_broker.users``)."""
    b = secure_broker(tmp_path)
    b.broker.start()
    yield b
    b.broker.stop()


@pytest.fixture
def zun_table(tmp_path: Path) -> Iterator[Table]:
    """A table (journal in ``tmp_path``, id ``t1``) playing Runes of Zun: Ann, Bob, Cid."""
    journal = Journal(tmp_path / "journal.sqlite")
    table = Table(journal, table_id="t1")
    table.start("zun", "zun players=Ann,Bob,Cid")
    yield table
    journal.close()


@pytest.fixture
def mqtt_companion(tmp_path: Path, locked_broker: SecureBroker) -> Iterator[Companion]:
    """``zun_table``'s game linked to ``locked_broker``, its owner loop on a thread."""
    companion = Companion(tmp_path, locked_broker).start()
    yield companion
    companion.stop()
