"""LED HP trackers: one small interface, and the table's set of them.

A tracker is any device that shows one seat: our firmware on Wi-Fi, a WLED
strip (one segment per seat, or one device per seat), a board on USB serial,
or a simulated one. The :class:`Trackers` set decides which seat each tracker
shows (kept across restarts by a :class:`TrackerStore`), follows the table, and
hands every tracker its seat's document when it changes.

Threads: the table's listener runs on the owner thread, but trackers announce
themselves on other threads (paho's, a serial reader's), so the set is guarded
by a lock and keeps its own copy of the seat documents: nothing here touches
the session. Drivers must not block in ``show``: they queue, or hand over to
paho, whose publish only queues.
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from companion.core.session import Change, Session
from companion.payloads import PAYLOAD_SCHEMA, seat_key, seat_payloads
from companion.table import Table

__all__ = ["Tracker", "TrackerInfo", "TrackerStore", "Trackers", "UnknownTracker", "assignment"]

log = logging.getLogger(__name__)

Seat = Mapping[str, Any]


class UnknownTracker(KeyError):
    """A tracker id that no driver has announced."""

    def __str__(self) -> str:
        return str(self.args[0])


class Tracker(ABC):
    """One LED tracker, whatever carries its messages."""

    kind: ClassVar[str]
    """``firmware``, ``wled``, ``serial`` or ``simulated``: stored with the assignment."""

    def __init__(self, tracker_id: str) -> None:
        self.id = tracker_id

    def assign(self, seat: int | None, brightness: float | None = None) -> None:
        """Tell the device which seat it shows, and how bright (0 to 1; None: as it is, our
        firmware keeping its level and WLED using its full range). A seat of None withdraws
        the assignment: our firmware then shows the seat of its own settings."""

    @abstractmethod
    def show(self, seat: Seat | None) -> None:
        """Show one seat document (see ``docs/mqtt.md``), or nothing when unassigned."""

    @abstractmethod
    def blink(self, seconds: float) -> None:
        """Flash for ``seconds`` so that a person can tell which tracker this is."""

    def close(self) -> None:
        """Let go of the device (a port, a thread); the assignment stays stored."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.id}>"


def assignment(seat: int, brightness: float | None) -> dict[str, Any]:
    """What our firmware is told of its assignment: ``tracker/<id>/seat`` on MQTT, ``CONF``
    on serial (docs/schemas/tracker-seat.json)."""
    document: dict[str, Any] = {"schema": PAYLOAD_SCHEMA, "seat": seat}
    if brightness is not None:
        document["brightness"] = brightness
    return document


BLINK_LIMIT = 30.0
"""The longest blink a tracker shows (docs/schemas/tracker-blink.json)."""


@dataclass(frozen=True, slots=True)
class TrackerInfo:
    """What the setup screen lists about one tracker."""

    id: str
    kind: str
    seat: int | None
    online: bool
    last_seen: float | None
    """``time.time()`` of the last sign of life, None if never heard from."""
    details: Mapping[str, Any] = field(default_factory=dict)
    """The tracker's last heartbeat (firmware version, signal, dropped messages...)."""
    brightness: float | None = None
    """The brightness the companion gave it (0 to 1); None: none, the tracker keeps its own."""


class TrackerStore:
    """Which tracker shows which seat, in a small JSON file, so it survives restarts.

    A JSON file beside the journal rather than a table in it: the assignment
    belongs to the table's hardware, not to any game, and the journal's schema
    stays the game core's. Writes go to a temporary file that replaces the old
    one, so a power cut leaves the old or the new file, never half of one. A
    damaged file is set aside (``.bad``) and the trackers start unassigned.
    """

    SCHEMA = 1

    def __init__(self, path: Path | None = None) -> None:
        self.path = path

    def load(self) -> dict[str, dict[str, Any]]:
        """Tracker id → ``{"kind": ..., "seat": n or None, "brightness": 0-1 or None}``.

        ``brightness`` came after the first files were written: a file without it is
        read as "the tracker's own brightness"."""
        if self.path is None or not self.path.exists():
            return {}
        try:
            document = json.loads(self.path.read_text(encoding="utf-8"))
            trackers = document["trackers"]
            if document.get("schema") != self.SCHEMA or not isinstance(trackers, dict):
                raise ValueError("not a tracker file of schema 1")
            return {str(k): {"kind": str(v["kind"]), "seat": _seat_number(v["seat"]),
                             "brightness": _level(v.get("brightness"))}
                    for k, v in trackers.items()}
        except (OSError, ValueError, KeyError, TypeError) as e:
            bad = self.path.with_suffix(self.path.suffix + ".bad")
            log.error("tracker assignments in %s are unreadable (%s); set aside as %s, "
                      "trackers start unassigned", self.path, e, bad)
            try:
                self.path.replace(bad)
            except OSError:
                pass
            return {}

    def save(self, assignments: Mapping[str, Mapping[str, Any]]) -> None:
        if self.path is None:
            return
        text = json.dumps({"schema": self.SCHEMA, "trackers": assignments}, indent=2,
                          sort_keys=True)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, temporary = tempfile.mkstemp(prefix=".trackers-", dir=self.path.parent)
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text)
                f.flush()
                os.fsync(f.fileno())
            os.replace(temporary, self.path)
        except OSError as e:
            # The assignment still holds until the companion stops; say so, do not crash.
            log.error("cannot save tracker assignments to %s: %s", self.path, e)


def _seat_number(value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, int) and not isinstance(value, bool) and value >= 1:
        return value
    raise ValueError(f"a seat must be a number from 1 or null, got {value!r}")


def _level(value: Any) -> float | None:
    """A brightness: a number from 0 to 1, or None (the tracker's own)."""
    if value is None:
        return None
    if isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value <= 1:
        return float(value)
    raise ValueError(f"a brightness is a number from 0 to 1, got {value!r}")


@dataclass
class _Entry:
    tracker: Tracker | None
    kind: str
    seat: int | None
    brightness: float | None = None
    online: bool = False
    last_seen: float | None = None
    details: Mapping[str, Any] = field(default_factory=dict)
    shown: Any = None
    """The seat document last handed to the tracker (without revision), to skip repeats."""


class Trackers:
    """Every LED tracker of one table; see the module docstring."""

    def __init__(self, store: TrackerStore | None = None, *, blink_seconds: float = 3.0,
                 clock: Callable[[], float] = time.time) -> None:
        self.store = store or TrackerStore()
        self.blink_seconds = blink_seconds
        self.when_changed: Callable[[], None] | None = None
        """Called (on any thread) when a tracker appears, goes on or offline, or moves seat."""
        self._clock = clock
        self._lock = threading.RLock()
        self._seats: list[dict[str, Any]] = []
        self._entries: dict[str, _Entry] = {
            tracker_id: _Entry(None, saved["kind"], saved["seat"], saved["brightness"])
            for tracker_id, saved in self.store.load().items()
        }

    # -- following the table (owner thread) ---------------------------------------

    def attach(self, table: Table) -> Callable[[], None]:
        """Follow ``table``: every change reaches the trackers whose seat it touched."""
        detach = table.subscribe(self._on_change)
        if table.session is not None:
            self._on_change(table.session, None)
        return detach

    def _on_change(self, session: Session[Any], change: Change[Any] | None) -> None:
        seats = seat_payloads(session)
        with self._lock:
            self._seats = seats
            for entry in self._entries.values():
                self._show(entry, force=change is None)

    def _document(self, seat: int | None) -> dict[str, Any] | None:
        if seat is None or not 1 <= seat <= len(self._seats):
            return None
        return self._seats[seat - 1]

    def _show(self, entry: _Entry, *, force: bool = False) -> None:
        if entry.tracker is None:
            return
        document = self._document(entry.seat)
        key = None if document is None else seat_key(document)
        if force or key != entry.shown:
            entry.shown = key
            try:
                entry.tracker.show(document)
            except Exception:
                # One broken device must not keep the others dark.
                log.exception("tracker %s could not show seat %s", entry.tracker.id, entry.seat)

    # -- drivers (any thread) --------------------------------------------------------

    def add(self, tracker: Tracker) -> None:
        """Take a tracker (again: a serial board that was replugged); it gets its seat at once.

        A tracker never seen before gets the lowest seat no known tracker holds,
        so trackers plugged in one after another fill seats 1, 2, 3...; the setup
        screen can move them.
        """
        with self._lock:
            entry = self._entries.get(tracker.id)
            if entry is None:
                entry = self._entries[tracker.id] = _Entry(tracker, tracker.kind,
                                                           self._free_seat())
                self._save()
            else:
                if entry.tracker is not None and entry.tracker is not tracker:
                    entry.tracker.close()
                entry.tracker, entry.kind = tracker, tracker.kind
            tracker.assign(entry.seat, entry.brightness)
            self._show(entry, force=True)
        self._changed()

    def _free_seat(self) -> int:
        taken = {e.seat for e in self._entries.values()}
        seat = 1
        while seat in taken:
            seat += 1
        return seat

    def seen(self, tracker_id: str, *, online: bool = True,
             details: Mapping[str, Any] | None = None) -> None:
        """A sign of life (or of death) from a tracker's driver."""
        with self._lock:
            entry = self._entries.get(tracker_id)
            if entry is None:
                return
            was = entry.online
            entry.online = online
            if online:
                entry.last_seen = self._clock()
            if details is not None:
                entry.details = dict(details)
        if was != online:
            log.info("tracker %s is %s", tracker_id, "online" if online else "offline")
            self._changed()

    def known(self, kind: str) -> list[str]:
        """Ids of stored trackers of ``kind`` that no driver has taken yet."""
        with self._lock:
            return [i for i, e in self._entries.items() if e.kind == kind and e.tracker is None]

    def __contains__(self, tracker_id: object) -> bool:
        with self._lock:
            entry = self._entries.get(tracker_id) if isinstance(tracker_id, str) else None
            return entry is not None and entry.tracker is not None

    # -- the setup screen (any thread) -------------------------------------------------

    def assign(self, tracker_id: str, seat: int | None) -> None:
        """Make ``tracker_id`` show ``seat`` (None: withdraw it), now and after restarts."""
        if seat is not None and (isinstance(seat, bool) or not isinstance(seat, int) or seat < 1):
            raise ValueError(f"a seat is a number from 1, got {seat!r}")
        with self._lock:
            entry = self._entry(tracker_id)
            entry.seat = seat
            self._save()
            if entry.tracker is not None:
                entry.tracker.assign(seat, entry.brightness)
                self._show(entry, force=True)
        self._changed()

    def set_brightness(self, tracker_id: str, level: float | None) -> None:
        """Make ``tracker_id`` shine at ``level`` (0 to 1; None: stop setting it), now and
        after restarts.

        The level travels with the assignment (the retained ``tracker/<id>/seat``, the
        serial ``CONF``), so a tracker without a seat keeps its own brightness until it
        is given one.
        """
        level = _level(level)
        with self._lock:
            entry = self._entry(tracker_id)
            entry.brightness = level
            self._save()
            if entry.tracker is not None:
                entry.tracker.assign(entry.seat, level)
                self._show(entry, force=True)
        self._changed()

    def blink(self, tracker_id: str, seconds: float | None = None) -> None:
        """Flash one tracker so the players can see which one it is (at most 30 s)."""
        with self._lock:
            tracker = self._entry(tracker_id).tracker
        if tracker is None:
            raise UnknownTracker(f"tracker {tracker_id} has not been seen since the start")
        wanted = self.blink_seconds if seconds is None else seconds
        # The firmware honours at most BLINK_LIMIT seconds; the payload schema says so too.
        tracker.blink(min(max(wanted, 0.1), BLINK_LIMIT))

    def trackers(self) -> list[TrackerInfo]:
        """Every tracker known, by id."""
        with self._lock:
            return [TrackerInfo(i, e.kind, e.seat, e.online, e.last_seen, e.details, e.brightness)
                    for i, e in sorted(self._entries.items())]

    def close(self) -> None:
        with self._lock:
            trackers = [e.tracker for e in self._entries.values() if e.tracker is not None]
        for tracker in trackers:
            tracker.close()

    def _entry(self, tracker_id: str) -> _Entry:
        entry = self._entries.get(tracker_id)
        if entry is None:
            raise UnknownTracker(f"no tracker {tracker_id!r}; known: "
                                 + (", ".join(sorted(self._entries)) or "none"))
        return entry

    def _save(self) -> None:
        self.store.save({i: {"kind": e.kind, "seat": e.seat, "brightness": e.brightness}
                         for i, e in self._entries.items()})

    def _changed(self) -> None:
        if self.when_changed is not None:
            try:
                self.when_changed()
            except Exception:
                log.exception("trackers when_changed callback failed")
