"""USB serial mode through a pty pair: the real firmware on the MicroPython unix port holds one
end (as a board holds its USB port), the test opens the other with pyserial, as the companion's
serial driver opens /dev/ttyACM0, and speaks the line protocol of docs/mqtt.md. The last test
puts the companion's own serial driver (companion/trackers/serial.py) on that end instead.
"""

from __future__ import annotations

import binascii
import json
import os
import pty
import tty
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import serial

from companion.core.session import Session
from companion.firmware.emulator import Frame, TrackerEmulator
from companion.table import Table
from companion.trackers import Trackers
from companion.trackers.serial import SerialLink
from tests.support.firmware import serial_line as line
from tests.support.wait import until

GREEN, AMBER, GLOW = (0, 224, 0), (255, 160, 0), (14, 3, 3)
WHITE, OFF = (255, 255, 255), (0, 0, 0)


class Port:
    """The companion's end of the line."""

    def __init__(self, path: str) -> None:
        self.serial = serial.Serial(path, 115200, timeout=5)

    def send(self, data: bytes) -> None:
        self.serial.write(data)
        self.serial.flush()

    def receive(self, kind: str) -> Any:
        """The JSON of the next line of ``kind`` (earlier lines of other kinds are skipped)."""
        while True:
            raw = self.serial.readline()
            assert raw.endswith(b"\n"), f"no {kind} line within the timeout (got {raw!r})"
            body, _, crc = raw.rstrip(b"\n").rpartition(b"*")
            assert crc == b"%08x" % (binascii.crc32(body) & 0xFFFFFFFF), raw
            got, _, text = body.decode().partition(" ")
            if got == kind:
                return json.loads(text)


SETTINGS = {"id": "usb1", "mode": "serial", "brightness": 1.0, "pulse_ms": 0, "heartbeat_s": 1}


@pytest.fixture
def wired(tmp_path: Path) -> Iterator[tuple[TrackerEmulator, Port]]:
    board, companion_end = pty.openpty()
    # Raw before anyone writes: a tty's echo would hand the tracker its own lines back.
    tty.setraw(companion_end)
    tracker = TrackerEmulator(SETTINGS, tmp_path, stdin=board, stdout=board)
    port = Port(os.ttyname(companion_end))
    with tracker:
        os.close(board)
        yield tracker, port
    port.serial.close()
    os.close(companion_end)


def seat_payload(session: Session[Any], seat: int) -> dict[str, Any]:
    return {"schema": 1, "game": session.rules.name, "game_id": session.game_id,
            "revision": session.revision, **session.rules.seats(session.state)[seat - 1]}


def test_the_line_protocol_drives_the_display(wired: tuple[TrackerEmulator, Port]) -> None:
    tracker, port = wired
    assert port.receive("STAT")["link"] == "serial"
    session: Session[Any] = Session.new("zun", "players=Ann,Bob")
    session.play("damage Ann 3")
    port.send(line("SEAT", seat_payload(session, 1)))
    tracker.wait_for(lambda pixels: list(pixels) == [GREEN] * 9 + [GLOW] * 3)

    session.play("damage Ann 3")
    port.send(line("SEAT", seat_payload(session, 1)))
    tracker.wait_for(lambda pixels: list(pixels) == [AMBER] * 6 + [GLOW] * 6)

    port.send(line("CONF", {"brightness": 0.5}))
    tracker.wait_for(lambda pixels: list(pixels) == [(128, 80, 0)] * 6 + [(7, 2, 2)] * 6)

    port.send(line("PING", {}))
    status = port.receive("STAT")
    assert status["id"] == "usb1" and status["revision"] == 2 and status["brightness"] == 0.5


@pytest.mark.parametrize(("garbage", "error"), [
    (b"hello there\n", "serial: line has no checksum: b'hello there'"),
    (line("SEAT", {"hp": 3})[:-3] + b"00\n", "serial: bad checksum on line"),
    (line("BOOM", {}), "serial: unknown line type 'BOOM'"),
    (b"\xff\xfe\x00*00000000\n", "serial: bad checksum on line"),
    (b"x" * 3000 + b"\n", "line longer than 1024 bytes dropped"),
    (line("SEAT", {"schema": 1, "game": "zun", "revision": 9, "seat": 1, "colour": "#e53935",
                   "hp": -2}), "serial SEAT: hp -2 is negative"),
    (line("SEAT", {"schema": 1, "game": "poker", "revision": 9, "seat": 1}),
     "serial SEAT: unknown game 'poker'"),
])
def test_a_garbage_line_is_answered_with_err_and_changes_nothing(
        wired: tuple[TrackerEmulator, Port], garbage: bytes, error: str) -> None:
    tracker, port = wired
    session: Session[Any] = Session.new("zun", "players=Ann,Bob")
    port.send(line("SEAT", seat_payload(session, 1)))
    tracker.wait_for(lambda pixels: list(pixels) == [GREEN] * 12)
    port.send(garbage)
    assert port.receive("ERR")["error"].startswith(error)
    port.send(line("PING", {}))
    assert port.receive("STAT")["errors"] == 1
    assert list(tracker.frame().pixels) == [GREEN] * 12  # type: ignore[union-attr]


def flashes(frames: list[Frame], first: Frame, last: Frame) -> list[tuple[Any, ...]]:
    """The pixels of the frames from ``first`` up to (not including) ``last``."""
    return [f.pixels for f in frames if first.number <= f.number < last.number]


def test_a_blnk_line_blinks_then_the_seat_shows_again(wired: tuple[TrackerEmulator, Port]) -> None:
    tracker, port = wired
    frames: list[Frame] = []
    tracker.on_frame = frames.append
    session: Session[Any] = Session.new("zun", "players=Ann,Bob")
    port.send(line("SEAT", seat_payload(session, 1)))
    tracker.wait_for(lambda pixels: list(pixels) == [GREEN] * 12)

    port.send(line("BLNK", {"schema": 1, "seconds": 1}))
    white = tracker.wait_for(lambda pixels: list(pixels) == [WHITE] * 12)
    session.play("damage Ann 6")                # while it blinks
    port.send(line("SEAT", seat_payload(session, 1)))
    back = tracker.wait_for(lambda pixels: list(pixels) == [AMBER] * 6 + [GLOW] * 6,
                            since=white.number)
    assert set(flashes(frames, white, back)) == {(WHITE,) * 12, (OFF,) * 12}
    assert back.at - white.at > 0.5

    port.send(line("BLNK", {"schema": 1, "seconds": 0}))
    assert port.receive("ERR")["error"] == "serial BLNK: seconds must be a number above 0, got 0"
    port.send(line("PING", {}))
    assert port.receive("STAT")["errors"] == 1
    assert list(tracker.frame().pixels) == [AMBER] * 6 + [GLOW] * 6  # type: ignore[union-attr]


def test_the_companions_serial_driver_makes_the_tracker_blink(zun_table: Table,
                                                              tmp_path: Path) -> None:
    """``Trackers.blink`` through ``SerialLink`` on the pty: the whole chain of a USB table."""
    board, companion_end = pty.openpty()
    tty.setraw(companion_end)
    trackers = Trackers()
    trackers.attach(zun_table)
    frames: list[Frame] = []
    with TrackerEmulator(SETTINGS, tmp_path / "usb1", stdin=board, stdout=board,
                         on_frame=frames.append) as tracker:
        os.close(board)
        link = SerialLink(os.ttyname(companion_end), trackers, ping_every=0.5)
        link.start()
        try:
            until(lambda: "usb1" in trackers, timeout=10)
            tracker.wait_for(lambda pixels: list(pixels) == [GREEN] * 12)

            trackers.blink("usb1", 1.5)
            white = tracker.wait_for(lambda pixels: list(pixels) == [WHITE] * 12)
            zun_table.execute("damage Ann 3")   # while it blinks
            back = tracker.wait_for(lambda pixels: list(pixels) == [GREEN] * 9 + [GLOW] * 3,
                                    since=white.number)
            assert set(flashes(frames, white, back)) == {(WHITE,) * 12, (OFF,) * 12}
            assert back.at - white.at > 1.0
            assert trackers.trackers()[0].details["errors"] == 0
            assert link.rejected == 0
        finally:
            link.stop()
    os.close(companion_end)
