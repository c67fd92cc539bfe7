"""The table's LED trackers: assignment (kept across restarts), blinking, our firmware on MQTT."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from companion.firmware.emulator import TrackerEmulator
from companion.links import TrackersConfig
from companion.trackers import TrackerStore, Trackers, UnknownTracker
from companion.trackers.simulated import SimulatedTracker
from tests.support.broker import SecureBroker
from tests.support.mqtt import Companion, Probe, validate
from tests.support.wait import until

T = "runes/t1"


def test_new_trackers_fill_the_free_seats_and_show_them(zun_table, tmp_path):
    trackers = Trackers(TrackerStore(tmp_path / "trackers.json"))
    trackers.attach(zun_table)
    sims = [SimulatedTracker(f"s{n}") for n in range(4)]
    for sim in sims:
        trackers.add(sim)
    assert [s.seat for s in sims] == [1, 2, 3, 4]
    assert [s.shown and s.shown["name"] for s in sims] == ["Ann", "Bob", "Cid", None]
    validate("seat", sims[0].shown)

    zun_table.execute("damage Bob 4")
    assert sims[1].shown["hp"] == 8 and sims[1].shown["tier"] == 2
    assert len(sims[0].history) == 1, "a tracker is told only when its seat changes"
    for _ in range(4):  # Start, Action, Recovery, End: then Bob's turn
        zun_table.execute("next")
    assert sims[0].shown["active"] is False and sims[1].shown["active"] is True


def test_assignments_survive_a_restart(zun_table, tmp_path):
    store = TrackerStore(tmp_path / "trackers.json")
    first = Trackers(store)
    first.add(SimulatedTracker("a"))
    first.add(SimulatedTracker("b"))
    first.assign("a", 3)
    first.assign("b", None)
    again = Trackers(TrackerStore(tmp_path / "trackers.json"))
    again.attach(zun_table)
    a, b = SimulatedTracker("a"), SimulatedTracker("b")
    again.add(a)
    again.add(b)
    assert (a.seat, b.seat) == (3, None)
    assert a.shown["name"] == "Cid" and b.shown is None
    assert [(i.id, i.seat, i.kind) for i in again.trackers()] == [
        ("a", 3, "simulated"), ("b", None, "simulated")]


def test_brightness_reaches_the_tracker_and_survives_a_restart(zun_table, tmp_path):
    path = tmp_path / "trackers.json"
    first = Trackers(TrackerStore(path))
    sim = SimulatedTracker("a")
    first.add(sim)
    assert sim.brightness is None, "the tracker's own until the companion sets one"
    first.set_brightness("a", 0.4)
    assert (sim.seat, sim.brightness) == (1, 0.4)
    saved = json.loads(path.read_text())
    validate("tracker-assignments", saved)
    assert saved["trackers"]["a"] == {"kind": "simulated", "seat": 1, "brightness": 0.4}
    first.assign("a", 2)
    assert (sim.seat, sim.brightness) == (2, 0.4), "a new seat keeps the brightness"
    for bad in (1.5, -0.1, "0.5", True, float("nan")):
        with pytest.raises(ValueError, match="a brightness is a number from 0 to 1"):
            first.set_brightness("a", bad)
    with pytest.raises(UnknownTracker):
        first.set_brightness("z", 0.5)

    again = Trackers(TrackerStore(path))
    back = SimulatedTracker("a")
    again.add(back)
    assert (back.seat, back.brightness) == (2, 0.4)
    assert again.trackers()[0].brightness == 0.4


def test_an_assignment_file_from_before_brightness_still_loads(tmp_path):
    path = tmp_path / "trackers.json"
    path.write_text('{"schema": 1, "trackers": {"a": {"kind": "simulated", "seat": 2}}}')
    trackers = Trackers(TrackerStore(path))
    sim = SimulatedTracker("a")
    trackers.add(sim)
    assert (sim.seat, sim.brightness) == (2, None)


def test_a_damaged_assignment_file_is_set_aside(tmp_path, caplog):
    path = tmp_path / "trackers.json"
    path.write_text('{"schema": 1, "trackers": {"a": {"kind": "firmware", "seat": "two"}}}')
    with caplog.at_level(logging.ERROR):
        trackers = Trackers(TrackerStore(path))
    assert trackers.trackers() == []
    assert "unreadable" in caplog.text
    assert (tmp_path / "trackers.json.bad").exists()


def test_blink_and_bad_requests():
    trackers = Trackers(blink_seconds=2.5)
    sim = SimulatedTracker("a")
    trackers.add(sim)
    trackers.blink("a")
    trackers.blink("a", 1)
    assert sim.blinks == [2.5, 1]
    with pytest.raises(UnknownTracker, match="no tracker 'z'"):
        trackers.blink("z")
    with pytest.raises(ValueError, match="a seat is a number"):
        trackers.assign("a", 0)


def test_a_broken_tracker_does_not_keep_the_others_dark(zun_table, caplog):
    class Broken(SimulatedTracker):
        def show(self, seat):
            raise OSError("unplugged")

    trackers = Trackers()
    trackers.attach(zun_table)
    broken, fine = Broken("x"), SimulatedTracker("y")
    trackers.add(broken)
    trackers.add(fine)
    zun_table.execute("damage Bob 1")
    assert fine.shown["hp"] == 11
    assert "tracker x could not show seat 1" in caplog.text


@pytest.fixture
def companion(tmp_path: Path, locked_broker: SecureBroker):
    c = Companion(tmp_path, locked_broker, trackers=TrackersConfig(blink=1.5)).start()
    yield c
    c.stop()


def tracker_client(broker: SecureBroker) -> Probe:
    probe = Probe(broker.host, broker.port, broker.users["tracker-t1-tr1"], client_id="tr1")
    assert not probe.connect().is_failure
    probe.subscribe(f"{T}/tracker/tr1/#")
    return probe


def test_our_firmware_announces_itself_and_follows_its_seat(companion, locked_broker, tmp_path):
    tracker = tracker_client(locked_broker)
    heartbeat = {"id": "tr1", "firmware": "1.0", "uptime": 3, "rssi": -60, "dropped": 0}
    validate("tracker-status", heartbeat)
    tracker.publish(f"{T}/tracker/tr1/status", json.dumps(heartbeat), retain=True)
    assignment = tracker.latest(f"{T}/tracker/tr1/seat")
    validate("tracker-seat", assignment)
    assert assignment["seat"] == 1
    tracker.subscribe(f"{T}/seat/1")
    assert tracker.latest(f"{T}/seat/1")["name"] == "Ann"
    info = {i.id: i for i in companion.links.trackers.trackers()}["tr1"]
    assert info.online and info.kind == "firmware" and info.details["firmware"] == "1.0"

    companion.links.trackers.blink("tr1")
    blink = tracker.latest(f"{T}/tracker/tr1/blink")
    validate("tracker-blink", blink)
    assert blink["seconds"] == 1.5

    companion.links.trackers.assign("tr1", 2)
    assert tracker.latest(f"{T}/tracker/tr1/seat", where=lambda d: d["seat"] == 2)
    assert "brightness" not in tracker.latest(f"{T}/tracker/tr1/seat"), "its own, until set"
    companion.links.trackers.set_brightness("tr1", 0.5)
    bright = tracker.latest(f"{T}/tracker/tr1/seat", where=lambda d: "brightness" in d)
    validate("tracker-seat", bright)
    assert bright == {"schema": 1, "seat": 2, "brightness": 0.5}

    tracker.publish(f"{T}/tracker/tr1/status", b"offline", retain=True)  # its last will
    until(lambda: not {i.id: i for i in companion.links.trackers.trackers()}["tr1"].online)
    tracker.close()

    # The companion restarts: the assignment comes back from the file, and is republished
    # for the tracker before it says anything.
    companion.stop()
    again = Companion(tmp_path / "again", locked_broker,
                      trackers=TrackersConfig(state_file=tmp_path / "trackers.json")).start()
    try:
        late = tracker_client(locked_broker)
        assert late.latest(f"{T}/tracker/tr1/seat")["seat"] == 2
        late.close()
    finally:
        again.stop()


def test_garbage_on_a_tracker_status_is_ignored(companion, locked_broker, caplog):
    tracker = tracker_client(locked_broker)
    for payload in (b"\xff\x00", b"[1]", b'{"id": "someone-else"}', b"x" * 5000):
        tracker.publish(f"{T}/tracker/tr1/status", payload)
    tracker.publish(f"{T}/tracker/tr1/status", b'{"id": "tr1"}')
    assert tracker.latest(f"{T}/tracker/tr1/seat")["seat"] == 1
    assert caplog.text.count("ignoring a bad status from tracker tr1") == 4
    tracker.close()


GREEN = (0, 224, 0)  # the firmware's colour for the top HP tier, at full brightness


def test_the_real_firmware_follows_the_bridge_on_the_locked_broker(tmp_path, locked_broker):
    """Our firmware on the MicroPython unix port, with a tracker's credentials only."""
    c = Companion(tmp_path, locked_broker).start()
    me = locked_broker.users["tracker-t1-tr1"]
    settings = {"id": "tr1", "table": "t1", "broker": locked_broker.host,
                "port": locked_broker.port, "user": me.user, "password": me.password,
                "brightness": 1.0, "pulse_ms": 0, "heartbeat_s": 2,
                "backoff_min_ms": 100, "backoff_max_ms": 1000}
    try:
        with TrackerEmulator(settings, tmp_path / "tr1") as board:
            until(lambda: "tr1" in c.links.trackers, timeout=20)
            board.wait_for(lambda pixels: pixels[:12].count(GREEN) == 12, timeout=20)
            assert c.play("damage Ann 3").ok
            board.wait_for(lambda pixels: pixels[:12].count(GREEN) == 9)
            c.links.trackers.assign("tr1", 2)  # Bob's seat
            board.wait_for(lambda pixels: pixels[:12].count(GREEN) == 12)
            c.links.trackers.assign("tr1", None)  # withdrawn: its own setting, seat 1
            board.wait_for(lambda pixels: pixels[:12].count(GREEN) == 9)
            until(lambda: _info(c, "tr1").details.get("seat") == 1)
            validate("tracker-status", dict(_info(c, "tr1").details))
            assert _info(c, "tr1").details["errors"] == 0, board.log()
    finally:
        c.stop()


def _info(companion: Companion, tracker_id: str):
    return {i.id: i for i in companion.links.trackers.trackers()}[tracker_id]
