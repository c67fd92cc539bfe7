"""Home Assistant MQTT discovery: the table as a device, each seat's HP as a sensor.

Home Assistant reads retained ``<prefix>/<component>/<node_id>/<object_id>/config``
documents and creates entities from them. The sensors read the seat topics the
trackers already use (``value_json.hp``), so nothing extra is published per
action; the table's ``status`` topic (with the companion's last will) is their
availability. When Home Assistant restarts it says ``online`` on
``<prefix>/status`` and the bridge sends these documents again.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from companion import __version__

from .topics import Topics

__all__ = ["Discovery"]


class Discovery:
    """The discovery documents of one table."""

    def __init__(self, topics: Topics, prefix: str = "homeassistant") -> None:
        self.topics = topics
        self.prefix = prefix.strip("/")
        self.node = f"runes_{topics.table}"

    @property
    def status_topic(self) -> str:
        """Where Home Assistant says ``online`` after it (re)starts."""
        return f"{self.prefix}/status"

    def owns(self, topic: str) -> bool:
        """True for this table's discovery topics (and no other table's)."""
        parts = topic.split("/")
        return (len(parts) == 5 and parts[0] == self.prefix and parts[2] == self.node
                and parts[4] == "config")

    @property
    def filter(self) -> str:
        """Matches every discovery topic this table may have left on the broker."""
        return f"{self.prefix}/+/{self.node}/+/config"

    def configs(self, seats: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
        """Topic → document for the game being played: its name, and per seat HP (or runes)."""
        documents = {
            self._topic("game"): self._sensor(
                "game", "Game", self.topics.state, "{{ value_json.game }}", icon="mdi:cards"),
        }
        for seat in seats:
            n = seat["seat"]
            if seat.get("hp") is not None:
                documents[self._topic(f"seat{n}_hp")] = self._sensor(
                    f"seat{n}_hp", f"Seat {n} HP", self.topics.seat(n), "{{ value_json.hp }}",
                    icon="mdi:heart", unit="HP", attributes=True)
            if "runes" in seat:
                documents[self._topic(f"seat{n}_runes")] = self._sensor(
                    f"seat{n}_runes", f"Seat {n} runes", self.topics.seat(n),
                    "{{ value_json.runes }}", icon="mdi:diamond-stone", unit="runes",
                    attributes=True)
        return documents

    def _topic(self, object_id: str) -> str:
        return f"{self.prefix}/sensor/{self.node}/{object_id}/config"

    def _sensor(self, object_id: str, name: str, state_topic: str, template: str, *,
                icon: str, unit: str | None = None, attributes: bool = False) -> dict[str, Any]:
        document: dict[str, Any] = {
            "name": name,
            "unique_id": f"{self.node}_{object_id}",
            "state_topic": state_topic,
            "value_template": template,
            "availability_topic": self.topics.status,
            "payload_available": "online",
            "payload_not_available": "offline",
            "icon": icon,
            "device": {
                "identifiers": [self.node],
                "name": f"Rune table {self.topics.table}",
                "manufacturer": "Rune Table Companion",
                "model": "Rune Table Companion",
                "sw_version": __version__,
            },
        }
        if unit is not None:
            document["unit_of_measurement"] = unit
            document["state_class"] = "measurement"
        if attributes:
            # The whole seat document (name, team, tier...) as the sensor's attributes.
            document["json_attributes_topic"] = state_topic
        return document
