"""Publishing a game's seat payloads as docs/mqtt.md says, for the tracker tests and benchmark.

The documents are the companion's own (``companion.payloads``); only the publishing is kept
this small, so the firmware's tests need no locked broker. ``tests/test_trackers.py`` runs
the firmware against the real bridge.
"""

from __future__ import annotations

from typing import Any

import paho.mqtt.client as mqtt

from companion.core.session import Session
from companion.payloads import dumps, seat_payloads


def publish_seats(client: mqtt.Client, table: str, session: Session[Any]) -> None:
    """Publish every seat of ``session``, retained, on ``runes/<table>/seat/<n>``."""
    for seat in seat_payloads(session):
        client.publish(f"runes/{table}/seat/{seat['seat']}", dumps(seat), qos=1, retain=True)
