"""A tracker on USB serial: the line protocol of ``docs/mqtt.md``, for a table without Wi-Fi.

One message per line, ``<TYPE> <JSON>*<CRC>``, the CRC-32 of ``<TYPE> <JSON>``
in 8 lowercase hex digits. The companion sends ``SEAT`` (the seat document),
``CONF`` (settings: which seat, how bright), ``BLNK`` (identify) and ``PING``; the tracker
sends ``STAT`` (its heartbeat, with its ``id``, also the answer to ``PING``) and
``ERR`` (a line it rejected). A line that is too long, has a bad checksum, an
unknown type or bad JSON is dropped and logged, never acted on.

The port is served by one thread that owns it: it reads with a short timeout,
writes what is waiting, pings, and reopens the port when it goes away (a
tracker unplugged is logged, shown offline, and picked up again when it comes
back). Waiting messages are kept per type, newest only, so a tracker that
cannot keep up sees the latest state instead of an ever-growing backlog.
"""

from __future__ import annotations

import binascii
import logging
import re
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import PurePath
from typing import Any

import serial

from companion.mqtt.topics import ID_PATTERN
from companion.payloads import PAYLOAD_SCHEMA, dumps, read_object

from .base import Seat, Tracker, Trackers, assignment

__all__ = ["LINE_LIMIT", "LineError", "SerialLink", "SerialTracker", "decode_line",
           "encode_line"]

log = logging.getLogger(__name__)

LINE_LIMIT = 1024
"""Longest line in bytes, without its ``\\n``."""
TO_TRACKER = ("CONF", "SEAT", "BLNK", "PING")
"""In the order waiting messages are written: the seat's number before its document."""
FROM_TRACKER = ("STAT", "ERR")
_CRC = re.compile(rb"[0-9a-f]{8}")


class LineError(ValueError):
    """A serial line that is not a well-formed message of the protocol."""


def encode_line(kind: str, document: Mapping[str, Any]) -> bytes:
    """One message as the bytes of its line, ``\\n`` included."""
    if kind not in TO_TRACKER + FROM_TRACKER:
        raise LineError(f"unknown message type {kind!r}")
    body = kind.encode("ascii") + b" " + dumps(document)
    line = body + b"*" + b"%08x" % binascii.crc32(body)
    if len(line) > LINE_LIMIT:
        raise LineError(f"a {kind} line of {len(line)} bytes is over the {LINE_LIMIT}-byte limit")
    return line + b"\n"


def decode_line(line: bytes) -> tuple[str, dict[str, Any]]:
    """``(type, document)`` from one line (with or without its ``\\n`` or ``\\r\\n``)."""
    line = line.rstrip(b"\n").rstrip(b"\r")
    if len(line) > LINE_LIMIT:
        raise LineError(f"{len(line)} bytes, over the {LINE_LIMIT}-byte limit")
    body, star, crc = line.rpartition(b"*")
    if not star or not _CRC.fullmatch(crc):
        raise LineError("no *crc32 checksum at the end")
    if binascii.crc32(body) != int(crc, 16):
        raise LineError("bad checksum")
    raw_kind, space, text = body.partition(b" ")
    kind = raw_kind.decode("ascii", "replace")
    if not space or kind not in TO_TRACKER + FROM_TRACKER:
        raise LineError(f"unknown message type {kind!r}")
    try:
        return kind, read_object(text)
    except ValueError as e:
        raise LineError(f"the message {e}") from None


class SerialTracker(Tracker):
    """The tracker on a serial link, known by the id it gives in its ``STAT``."""

    kind = "serial"

    def __init__(self, tracker_id: str, link: SerialLink) -> None:
        super().__init__(tracker_id)
        self.link = link

    def assign(self, seat: int | None, brightness: float | None = None) -> None:
        if seat is not None:  # withdrawn: nothing to send, it keeps the seat it shows
            self.link.post("CONF", assignment(seat, brightness))

    def show(self, seat: Seat | None) -> None:
        if seat is not None:
            self.link.post("SEAT", seat)

    def blink(self, seconds: float) -> None:
        self.link.post("BLNK", {"schema": PAYLOAD_SCHEMA, "seconds": seconds})


class SerialLink:
    """One serial port with a tracker on it; see the module docstring."""

    READ_TIMEOUT = 0.05
    """How long a read waits: also the longest delay before a waiting message is written."""

    def __init__(self, port: str, trackers: Trackers, *, baudrate: int = 115200,
                 ping_every: float = 5.0,
                 opener: Callable[..., serial.SerialBase] = serial.serial_for_url) -> None:
        self.port = port
        self.trackers = trackers
        self.baudrate = baudrate
        self.ping_every = ping_every
        self.rejected = 0
        """Lines dropped since the start: bad checksum, unknown type, bad JSON, too long."""
        self._opener = opener
        self._lock = threading.Lock()
        self._pending: dict[str, bytes] = {}
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._serial: serial.SerialBase | None = None
        self._buffer = bytearray()
        self._skipping = False
        self._tracker: SerialTracker | None = None
        self._fresh = True
        self._uptime: float | None = None
        self._heard = 0.0
        self._pinged = 0.0
        self._complained = 0.0
        self._quiet = 0

    @property
    def fallback_id(self) -> str:
        """The id of a tracker that sends none: ``serial-`` and the port's name."""
        name = re.sub(r"[^A-Za-z0-9_-]", "-", PurePath(self.port).name)
        return f"serial-{name}"[:32]

    # -- life ------------------------------------------------------------------------

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name=f"tracker {self.port}",
                                        daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 2.0) -> None:
        self._stopping.set()
        if self._thread is not None:
            self._thread.join(timeout)
        self._close()

    def post(self, kind: str, document: Mapping[str, Any]) -> None:
        """Queue one message (replacing a waiting one of the same type); never blocks."""
        try:
            line = encode_line(kind, document)
        except LineError as e:
            log.error("cannot send to the tracker on %s: %s", self.port, e)
            return
        with self._lock:
            self._pending[kind] = line

    # -- the port's thread ---------------------------------------------------------------

    def _run(self) -> None:
        delay = 0.5
        while not self._stopping.is_set():
            if self._serial is None:
                if not self._open():
                    self._stopping.wait(delay)
                    delay = min(delay * 2, 10.0)
                    continue
                delay = 0.5
            try:
                self._step()
            except (serial.SerialException, OSError) as e:
                log.warning("the tracker on %s went away (%s); waiting for it to come back",
                            self.port, e)
                self._close()
                self._lost()

    def _open(self) -> bool:
        try:
            self._serial = self._opener(self.port, baudrate=self.baudrate,
                                        timeout=self.READ_TIMEOUT, write_timeout=1.0)
        except (serial.SerialException, OSError, ValueError) as e:
            if self._quiet == 0:
                log.warning("no tracker on %s yet (%s); will keep trying", self.port, e)
            self._quiet += 1
            return False
        log.info("serial tracker port %s open", self.port)
        self._quiet = 0
        self._buffer.clear()
        self._skipping = False
        self._fresh = True
        with self._lock:
            self._pending.clear()
        self._heard = time.monotonic()
        self._ping()
        return True

    def _close(self) -> None:
        port, self._serial = self._serial, None
        if port is not None:
            try:
                port.close()
            except (serial.SerialException, OSError):
                pass

    def _step(self) -> None:
        port = self._serial
        assert port is not None
        data = port.read(max(1, port.in_waiting))
        if data:
            self._feed(data)
        now = time.monotonic()
        if now - self._pinged >= self.ping_every:
            self._ping()
        if self._tracker is not None and now - self._heard > 3 * self.ping_every:
            self.trackers.seen(self._tracker.id, online=False)
        with self._lock:
            lines = [self._pending.pop(k) for k in TO_TRACKER if k in self._pending]
        for line in lines:
            port.write(line)

    def _ping(self) -> None:
        self._pinged = time.monotonic()
        self.post("PING", {})

    def _feed(self, data: bytes) -> None:
        self._buffer += data
        while True:
            end = self._buffer.find(b"\n")
            if end < 0:
                if len(self._buffer) > LINE_LIMIT + 1:
                    self._reject(LineError(f"a line over the {LINE_LIMIT}-byte limit"),
                                 bytes(self._buffer[:60]))
                    self._buffer.clear()
                    self._skipping = True
                return
            line = bytes(self._buffer[:end])
            del self._buffer[:end + 1]
            if self._skipping:  # the tail of a line already refused as too long
                self._skipping = False
            elif line.strip():
                self._line(line)

    def _line(self, line: bytes) -> None:
        try:
            kind, document = decode_line(line)
        except LineError as e:
            self._reject(e, line)
            return
        self._heard = time.monotonic()
        if kind == "STAT":
            self._stat(document)
        elif kind == "ERR":
            log.warning("the tracker on %s refused a line: %s", self.port,
                        str(document.get("error", document))[:200])
        else:
            self._reject(LineError(f"{kind} goes to a tracker, not from one"), line)

    def _stat(self, document: dict[str, Any]) -> None:
        tracker_id = document.get("id")
        if not isinstance(tracker_id, str) or not ID_PATTERN.fullmatch(tracker_id):
            tracker_id = self.fallback_id
        uptime = document.get("uptime")
        rebooted = (isinstance(uptime, (int, float)) and self._uptime is not None
                    and uptime < self._uptime)
        self._uptime = uptime if isinstance(uptime, (int, float)) else None
        if self._fresh or rebooted or self._tracker is None or self._tracker.id != tracker_id:
            # New port, new board or a board that restarted: it knows nothing, tell it all.
            self._fresh = False
            if self._tracker is not None and self._tracker.id != tracker_id:
                self.trackers.seen(self._tracker.id, online=False)
            self._tracker = SerialTracker(tracker_id, self)
            self.trackers.add(self._tracker)
        self.trackers.seen(tracker_id, online=True, details=document)

    def _lost(self) -> None:
        if self._tracker is not None:
            self.trackers.seen(self._tracker.id, online=False)

    def _reject(self, error: LineError, line: bytes) -> None:
        """Count a bad line; log it, but at most one line every few seconds (garbage floods)."""
        self.rejected += 1
        now = time.monotonic()
        if now - self._complained >= 5.0:
            self._complained = now
            log.warning("dropped a line from the tracker on %s (%s): %r (%d dropped so far)",
                        self.port, error, line[:60], self.rejected)
