"""The topic names of one table, in one place (``docs/mqtt.md`` lists them).

Everything a table publishes or reads lives under ``runes/<table>/``, so one
broker (or a set of bridged brokers) serves a whole game store: nothing here
assumes there is only one table. Ids that become topic levels are checked, so
a ``+``, ``#`` or ``/`` in a setting can never widen a subscription or an ACL.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["ID_PATTERN", "Topics", "check_id"]

ID_PATTERN = re.compile(r"[A-Za-z0-9_-]{1,32}")
"""Table and tracker ids: one topic level, also valid in Home Assistant's discovery topics."""


def check_id(value: str, what: str) -> str:
    """``value`` if it is a valid table or tracker id, else a ValueError naming ``what``."""
    if not isinstance(value, str) or not ID_PATTERN.fullmatch(value):
        raise ValueError(f"{what} must be 1 to 32 letters, digits, '-' or '_', got {value!r}")
    return value


@dataclass(frozen=True, slots=True)
class Topics:
    """Every topic of the table ``table``."""

    table: str

    def __post_init__(self) -> None:
        check_id(self.table, "a table id")

    @property
    def base(self) -> str:
        return f"runes/{self.table}"

    @property
    def status(self) -> str:
        """``online``/``offline``, retained; ``offline`` is also the companion's last will."""
        return f"{self.base}/status"

    @property
    def state(self) -> str:
        return f"{self.base}/state"

    @property
    def event(self) -> str:
        return f"{self.base}/event"

    @property
    def cmd(self) -> str:
        return f"{self.base}/cmd"

    @property
    def result(self) -> str:
        """Where answers go; MQTT 5 response topics must lie below it."""
        return f"{self.base}/cmd/result"

    def seat(self, number: int) -> str:
        return f"{self.base}/seat/{number}"

    @property
    def seats(self) -> str:
        return f"{self.base}/seat/+"

    def tracker(self, tracker_id: str, leaf: str) -> str:
        """``runes/<table>/tracker/<id>/<leaf>``: ``status``, ``seat`` or ``blink``."""
        return f"{self.base}/tracker/{check_id(tracker_id, 'a tracker id')}/{leaf}"

    def trackers(self, leaf: str) -> str:
        """The filter matching ``leaf`` of every tracker of the table."""
        return f"{self.base}/tracker/+/{leaf}"

    def tracker_of(self, topic: str) -> str | None:
        """The tracker id in ``runes/<table>/tracker/<id>/...``, or None."""
        prefix = f"{self.base}/tracker/"
        if not topic.startswith(prefix):
            return None
        tracker_id = topic[len(prefix):].split("/", 1)[0]
        return tracker_id if ID_PATTERN.fullmatch(tracker_id) else None
