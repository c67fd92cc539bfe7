"""The JSON documents the companion tells the world: state, seats, events, results.

MQTT, the LED tracker drivers and the serial line all send the same documents,
so they are built here once; ``docs/mqtt.md`` describes them and
``docs/schemas/`` holds a JSON Schema for each. Every document carries
``"schema": PAYLOAD_SCHEMA`` so a reader can refuse a version it does not know.

A seat document is what one LED tracker shows. It is built from the game's
``Rules.seats(state)`` plus who and when: ``game``, ``game_id`` (a new game
starts its revisions again from 0, so a tracker that only moves forward must
also accept a different game) and ``revision``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from companion.core.session import Change, Session
from companion.table import Result

__all__ = ["PAYLOAD_SCHEMA", "dumps", "event_payload", "read_object", "result_payload",
           "seat_key", "seat_payloads", "state_payload"]

PAYLOAD_SCHEMA = 1
"""Version of every document in this module; bumped when a field changes meaning."""


def dumps(document: Any) -> bytes:
    """Compact UTF-8 JSON: small on the wire and on one line (the serial protocol needs that)."""
    return json.dumps(document, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def read_object(payload: bytes | bytearray) -> dict[str, Any]:
    """A JSON object from bytes received (a command, a heartbeat, a serial line).

    Raises ValueError with the reason as a short phrase ("is not JSON (...)"), for
    the caller to put in its own sentence.
    """
    try:
        document = json.loads(payload.decode("utf-8"))
    except UnicodeDecodeError:
        raise ValueError("is not UTF-8 text") from None
    except (ValueError, RecursionError) as e:
        raise ValueError(f"is not JSON ({e})") from None
    if not isinstance(document, dict):
        raise ValueError("is not a JSON object")
    return document


def state_payload(session: Session[Any]) -> dict[str, Any]:
    """The whole game: ``Session.to_json()``, which carries its own ``schema``."""
    return session.to_json()


def seat_payloads(session: Session[Any]) -> list[dict[str, Any]]:
    """One document per seat, in seat order, stamped with the current revision."""
    stamp = {"schema": PAYLOAD_SCHEMA, "game": session.rules.name,
             "game_id": session.game_id, "revision": session.revision}
    return [{**stamp, **seat} for seat in session.rules.seats(session.state)]


def seat_key(seat: Mapping[str, Any]) -> dict[str, Any]:
    """A seat document without its revision: what decides whether a tracker must be told again."""
    return {k: v for k, v in seat.items() if k != "revision"}


def event_payload(session: Session[Any], change: Change[Any]) -> dict[str, Any]:
    """What one change did, for the (not retained) event stream."""
    return {
        "schema": PAYLOAD_SCHEMA,
        "game": session.rules.name,
        "game_id": session.game_id,
        "revision": change.revision,
        "action": change.command.to_json(),
        "events": [e.to_json() for e in change.events],
    }


def result_payload(result: Result, correlation: str | None = None) -> dict[str, Any]:
    """The answer to one command, with the asker's ``correlation`` echoed back."""
    document = {"schema": PAYLOAD_SCHEMA, **result.to_json()}
    if correlation is not None:
        document["correlation"] = correlation
    return document
