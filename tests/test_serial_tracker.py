"""A tracker on USB serial: the line protocol, through a real pseudo-terminal pair."""

from __future__ import annotations

import binascii
import json
import logging
import os
import select
import time
from typing import Any

import pytest
from hypothesis import given, strategies as st

from companion.payloads import dumps
from companion.trackers import Trackers
from companion.trackers.serial import LINE_LIMIT, LineError, SerialLink, decode_line, encode_line
from tests.support.mqtt import validate
from tests.support.wait import until

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-2**53, 2**53) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                 max_size=4),
    max_leaves=12)
documents = st.dictionaries(st.text(max_size=10), json_values, max_size=6)
kinds = st.sampled_from(["SEAT", "CONF", "PING", "BLNK", "STAT", "ERR"])


@given(kinds, documents)
def test_every_message_round_trips(kind, document):
    try:
        line = encode_line(kind, document)
    except LineError:
        # Only a long document is refused; the limit counts bytes (UTF-8), not characters.
        assert len(dumps(document)) > 900
        return
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    assert decode_line(line) == (kind, document)
    assert decode_line(line[:-1] + b"\r\n") == (kind, document), "MicroPython's stdout sends \\r\\n"


@given(kinds, documents, st.data())
def test_any_changed_byte_is_rejected(kind, document, data):
    try:
        line = bytearray(encode_line(kind, document)[:-1])
    except LineError:
        return
    at = data.draw(st.integers(0, len(line) - 1))
    line[at] = data.draw(st.integers(0, 255).filter(lambda b: b != line[at]))
    with pytest.raises(LineError):
        decode_line(bytes(line))


def test_the_checksum_is_crc32_of_type_and_json():
    line = encode_line("PING", {})
    assert line == b"PING {}*" + b"%08x" % binascii.crc32(b"PING {}") + b"\n"
    with pytest.raises(LineError, match="over the 1024-byte limit"):
        encode_line("SEAT", {"name": "x" * LINE_LIMIT})


class PtyTracker:
    """The board's end of the cable: the master side of a pseudo-terminal."""

    def __init__(self) -> None:
        self.master, self.slave = os.openpty()
        self.name = os.ttyname(self.slave)
        self.buffer = b""
        self.lines: list[tuple[str, dict[str, Any]]] = []

    def read(self, timeout: float = 5.0, kind: str | None = None) -> dict[str, Any]:
        """The next message (of ``kind``) the companion sent, its checksum checked by hand."""
        deadline = time.monotonic() + timeout
        while True:
            while b"\n" in self.buffer:
                raw, self.buffer = self.buffer.split(b"\n", 1)
                body, crc = raw.rsplit(b"*", 1)
                assert int(crc, 16) == binascii.crc32(body) and crc == crc.lower()
                got, text = body.decode().split(" ", 1)
                self.lines.append((got, json.loads(text)))
                if kind is None or got == kind:
                    return self.lines[-1][1]
            left = deadline - time.monotonic()
            assert left > 0, f"no {kind or 'line'} within {timeout} s; got {self.lines}"
            if select.select([self.master], [], [], left)[0]:
                self.buffer += os.read(self.master, 4096)

    def write(self, data: bytes) -> None:
        os.write(self.master, data)

    def say(self, kind: str, document: dict[str, Any]) -> None:
        self.write(encode_line(kind, document))

    def unplug(self) -> None:
        os.close(self.slave)
        os.close(self.master)


@pytest.fixture
def link_to(zun_table):
    links: list[SerialLink] = []

    def make(port: str) -> tuple[SerialLink, Trackers]:
        trackers = Trackers(blink_seconds=2)
        trackers.attach(zun_table)
        link = SerialLink(port, trackers, ping_every=0.5)
        link.start()
        links.append(link)
        return link, trackers

    yield make
    for link in links:
        link.stop()


def test_a_serial_tracker_is_told_its_seat_and_follows_it(zun_table, link_to):
    board = PtyTracker()
    link, trackers = link_to(board.name)
    validate("serial-ping", board.read(kind="PING"))
    status = {"id": "usb1", "firmware": "1.0", "uptime": 1}
    validate("tracker-status", status)
    board.say("STAT", status)
    conf = board.read(kind="CONF")
    validate("tracker-seat", conf)
    assert conf["seat"] == 1
    seat = board.read(kind="SEAT")
    validate("seat", seat)
    assert seat["name"] == "Ann" and seat["hp"] == 12
    assert [(i.id, i.kind, i.seat, i.online) for i in trackers.trackers()] == [
        ("usb1", "serial", 1, True)]

    zun_table.execute("damage Ann 5")
    assert board.read(kind="SEAT")["hp"] == 7
    trackers.blink("usb1")
    blink = board.read(kind="BLNK")
    validate("tracker-blink", blink)
    assert blink["seconds"] == 2

    trackers.set_brightness("usb1", 0.3)
    conf = board.read(kind="CONF")
    validate("tracker-seat", conf)
    assert conf == {"schema": 1, "seat": 1, "brightness": 0.3}

    board.say("STAT", {"id": "usb1", "uptime": 0})  # it restarted: tell it everything again
    assert board.read(kind="CONF") == {"schema": 1, "seat": 1, "brightness": 0.3}
    assert board.read(kind="SEAT")["hp"] == 7
    board.unplug()


def test_corrupted_lines_are_dropped_and_logged(link_to, caplog):
    board = PtyTracker()
    link, trackers = link_to(board.name)
    board.read(kind="PING")
    good = encode_line("STAT", {"id": "usb1"})
    bad = [
        good.replace(b"usb1", b"usb2"),                   # the checksum no longer matches
        good[:-10] + good[-10:].upper(),                  # checksum digits in upper case
        good.replace(b"*", b"#"),                         # no checksum at all
        encode_line("STAT", {"id": "x"}).replace(b"STAT", b"STAY"),
        b"STAT {not json*" + b"%08x" % binascii.crc32(b"STAT {not json") + b"\n",
        b"STAT [1]*" + b"%08x" % binascii.crc32(b"STAT [1]") + b"\n",
        encode_line("SEAT", {"seat": 1}),                 # only the companion sends SEAT
        b"\xff\xfe\x00\x80 binary noise\n",
        b"y" * 3000 + b"\n",                              # over the limit
    ]
    with caplog.at_level(logging.WARNING):
        for line in bad:
            board.write(line)
        board.say("ERR", {"error": "bad checksum"})
        board.write(good)
        board.read(kind="CONF")
    assert link.rejected == len(bad)
    assert [i.id for i in trackers.trackers()] == ["usb1"]
    assert "dropped a line from the tracker" in caplog.text
    assert "refused a line: bad checksum" in caplog.text
    board.unplug()


def test_an_unplugged_tracker_goes_offline_and_comes_back(zun_table, link_to, tmp_path, caplog):
    port = tmp_path / "ttyTRACKER"
    link, trackers = link_to(str(port))       # nothing plugged in yet: it keeps trying
    time.sleep(0.6)
    assert "no tracker on" in caplog.text
    board = PtyTracker()
    port.symlink_to(board.name)
    board.read(kind="PING", timeout=15)
    board.say("STAT", {"id": "usb1", "uptime": 5})
    board.read(kind="SEAT")
    until(lambda: trackers.trackers()[0].online)

    board.unplug()
    port.unlink()
    until(lambda: not trackers.trackers()[0].online)
    assert "went away" in caplog.text

    zun_table.execute("damage Ann 1")  # while unplugged: nothing breaks
    board = PtyTracker()
    port.symlink_to(board.name)
    board.read(kind="PING", timeout=15)
    board.say("STAT", {"id": "usb1", "uptime": 1})
    assert board.read(kind="CONF")["seat"] == 1
    assert board.read(kind="SEAT")["hp"] == 11, "a replugged tracker gets the current state"
    until(lambda: trackers.trackers()[0].online)
    board.unplug()
