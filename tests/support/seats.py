"""Publishing a game's seat payloads as docs/mqtt.md says, for the tracker tests and benchmark.

A stand-in for the companion's MQTT publisher, which is being written in parallel: when it
lands, swap :func:`publish_seats` for it and nothing else changes.
"""

from __future__ import annotations

import json
from typing import Any

import paho.mqtt.client as mqtt

from companion.core.session import Session


def publish_seats(client: mqtt.Client, table: str, session: Session[Any]) -> None:
    """Publish every seat of ``session``, retained, on ``runes/<table>/seat/<n>``."""
    envelope = {"schema": 1, "game": session.rules.name, "game_id": session.game_id,
                "revision": session.revision}
    for seat in session.rules.seats(session.state):
        client.publish(f"runes/{table}/seat/{seat['seat']}", json.dumps({**envelope, **seat}),
                       qos=1, retain=True)
