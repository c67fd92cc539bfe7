"""WLED devices as trackers: payloads in WLED's documented JSON API, through its MQTT topic."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from companion.links import TrackersConfig
from companion.payloads import dumps
from companion.trackers.wled import (
    DOWN, MAX_SEGMENTS, WLED_MESSAGE_LIMIT, rgb, segment_state,
)
from tests.support.broker import SecureBroker
from tests.support.mqtt import Companion, Probe, validate
from tests.support.wait import until

SEAT = {"schema": 1, "game": "zun", "game_id": 1, "revision": 3, "seat": 1, "name": "Ann",
        "colour": "#e53935", "team": None, "hp": 12, "max": 12, "tier": 3, "defeated": False,
        "active": True, "winner": False, "over": False}
RED = [0xE5, 0x39, 0x35]


def leds(segment: dict[str, Any], count: int) -> list[list[int]]:
    """What WLED's documented individual LED control does with ``i`` ranges."""
    out = [[0, 0, 0]] * count
    items = segment["i"]
    k = 0
    while k < len(items):
        start, stop, colour = items[k], items[k + 1], items[k + 2]
        for n in range(start, stop):
            out[n] = colour
        k += 3
    return out


@pytest.mark.parametrize("changes, lit, bri", [
    ({}, 10, 255),
    ({"hp": 9}, 8, 255),              # ceil(9 / 12 * 10)
    ({"hp": 1, "active": False}, 1, 96),
    ({"hp": None, "max": None, "runes": 4}, 4, 255),
    ({"hp": None, "max": None}, 10, 255),
])
def test_a_seat_is_a_bar_of_its_colour(changes, lit, bri):
    state = segment_state(2, {**SEAT, **changes}, leds=10, dim=96)
    validate("wled-state", {"seg": [state]})
    assert state["id"] == 2 and state["on"] and state["bri"] == bri
    assert leds(state, 10) == [RED] * lit + [[0, 0, 0]] * (10 - lit)


def test_defeated_winner_and_no_seat():
    down = segment_state(0, {**SEAT, "hp": 0, "tier": 0, "defeated": True}, leds=10, dim=96)
    assert leds(down, 10) == [DOWN] * 10
    won = segment_state(0, {**SEAT, "over": True, "winner": True}, leds=10, dim=96)
    assert won["fx"] == 2 and won["col"][0] == RED and won["frz"] is False and "i" not in won
    assert segment_state(0, None, leds=10, dim=96) == {"id": 0, "on": False}
    for state in (down, won):
        validate("wled-state", {"seg": [state]})
    assert rgb("not a colour") == [255, 255, 255]


@pytest.mark.parametrize("changes, bri", [
    ({}, 128), ({"active": False}, 48), ({"defeated": True, "hp": 0, "tier": 0}, 48),
    ({"over": True, "winner": True}, 128),
])
def test_the_trackers_brightness_scales_the_segment(changes, bri):
    state = segment_state(0, {**SEAT, **changes}, leds=10, dim=96, level=0.5)
    validate("wled-state", {"seg": [state]})
    assert state["bri"] == bri


def test_a_whole_device_fits_in_one_wled_message():
    worst = [segment_state(k, {**SEAT, "hp": 7, "max": 999, "colour": "#fefefe"},
                           leds=999, dim=255) for k in range(MAX_SEGMENTS)]
    payload = dumps({"on": True, "seg": worst})
    assert len(payload) <= WLED_MESSAGE_LIMIT


@pytest.fixture
def companion(tmp_path: Path, locked_broker: SecureBroker):
    config = TrackersConfig(wled=("wled/strip",), wled_segments=3, wled_leds=10, blink=0.5)
    c = Companion(tmp_path, locked_broker, trackers=config).start()
    yield c
    c.stop()


def wled_device(broker: SecureBroker) -> Probe:
    """A client with the WLED device's credentials, listening where WLED listens."""
    probe = Probe(broker.host, broker.port, broker.users["wled-t1-strip"], client_id="WLED-strip")
    assert not probe.connect().is_failure
    probe.subscribe("wled/strip/api")
    return probe


def test_the_strip_shows_every_seat_and_follows_the_game(companion, locked_broker):
    first = wled_device(locked_broker)
    first.latest("wled/strip/api")  # the broker has it now...
    first.close()
    device = wled_device(locked_broker)
    state = device.latest("wled/strip/api")
    assert device.on("wled/strip/api")[0].retain  # ...for a WLED that (re)starts later
    validate("wled-state", state)
    assert [s["id"] for s in state["seg"]] == [0, 1, 2]
    assert [leds(s, 10).count(RED) for s in state["seg"][:1]] == [10]
    assert state["seg"][0]["bri"] == 255 and state["seg"][1]["bri"] == 96

    assert companion.play("damage Bob 6").ok
    state = device.latest("wled/strip/api", where=lambda d: "i" in d["seg"][1]
                          and leds(d["seg"][1], 10)[5] == [0, 0, 0])
    assert leds(state["seg"][1], 10)[:5] == [[0x1E, 0x88, 0xE5]] * 5
    for message in device.on("wled/strip/api"):
        assert len(message.payload) <= WLED_MESSAGE_LIMIT
        validate("wled-state", json.loads(message.payload))
    device.close()


def test_wled_online_blink_and_restore(companion, locked_broker):
    device = wled_device(locked_broker)
    device.latest("wled/strip/api")
    seen = len(device.messages)
    device.publish("wled/strip/status", b"online", retain=True)
    first = device.wait_for(lambda m: True, after=seen)
    assert json.loads(first.payload) == {"on": True}, "on alone, before individual LEDs"
    after_on = device.wait_for(lambda m: "seg" in json.loads(m.payload), after=seen)
    assert len(json.loads(after_on.payload)["seg"]) == 3
    until(lambda: all(i.online for i in companion.links.trackers.trackers()))

    seen = len(device.messages)
    companion.links.trackers.blink("wled:wled/strip:1")
    blink = json.loads(device.wait_for(lambda m: True, after=seen).payload)
    validate("wled-state", blink)
    assert blink["seg"] == [{"id": 1, "on": True, "bri": 255, "frz": False, "fx": 1, "sx": 200,
                             "col": [[255, 255, 255], [0, 0, 0]]}]
    restored = json.loads(device.wait_for(
        lambda m: any("i" in s for s in json.loads(m.payload)["seg"]), after=seen,
        timeout=3).payload)
    assert leds(restored["seg"][1], 10) == [[0x1E, 0x88, 0xE5]] * 10

    device.publish("wled/strip/status", b"offline", retain=True)
    until(lambda: not any(i.online for i in companion.links.trackers.trackers()))
    device.close()


def test_a_segments_brightness(companion, locked_broker):
    device = wled_device(locked_broker)
    assert [s["bri"] for s in device.latest("wled/strip/api")["seg"]] == [255, 96, 96]
    companion.links.trackers.set_brightness("wled:wled/strip:1", 0.5)
    state = device.latest("wled/strip/api", where=lambda d: d["seg"][1]["bri"] != 96)
    validate("wled-state", state)
    assert [s["bri"] for s in state["seg"]] == [255, 48, 96], "that segment only"
    device.close()
