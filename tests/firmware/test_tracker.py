"""The tracker's behaviour on the MicroPython unix port: bad input, revisions, assignment,
the button, the offline mark, the heartbeat, its settings file and the serial line format.

These run the real HpTracker with a fake link and a hand-moved clock (tests/firmware/on_device/harness.py);
the real links are tested end to end in test_e2e.py.
"""

from __future__ import annotations

import binascii
import json
from pathlib import Path

import pytest

from tests.support.firmware import pixels, run_micropython, serial_line

GREEN, RED, GLOW = (0, 224, 0), (255, 0, 0), (14, 3, 3)
NINE = [GREEN] * 9 + [GLOW] * 3


# -- bad input: keeps running, shows the last good state, reports the error --------------

BAD = [
    ("not JSON", "b'not json'", "seat/1: not JSON: b'not json'"),
    ("a JSON array", "b'[1, 2]'", "seat/1: a seat payload is a JSON object, got [1, 2]"),
    ("HP above the strip", "seat(hp=13, revision=2)",
     "seat/1: hp 13 is more than the 12 LEDs of the strip"),
    ("negative HP", "seat(hp=-1, revision=2)", "seat/1: hp -1 is negative"),
    ("HP as text", "seat(hp='9', revision=2)", "seat/1: hp must be a whole number, got '9'"),
    ("unknown game", "seat(game='chess', revision=2)",
     "seat/1: unknown game 'chess' (this firmware shows zun, runecast, market)"),
    ("unknown schema", "seat(schema=2, revision=2)",
     "seat/1: unknown schema 2 (this firmware reads 1)"),
    ("bad colour", "seat(colour='red', revision=2)", "seat/1: 'red' is not a #rrggbb colour"),
    ("negative runes", "seat(game='market', hp=None, runes=-2, revision=2)",
     "seat/1: runes -2 is negative"),
    ("negative revision", "seat(revision=-1)", "seat/1: revision -1 is negative"),
]


@pytest.mark.parametrize(("payload", "error"), [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_bad_input_is_reported_and_the_last_good_state_stays(payload: str, error: str) -> None:
    out = run_micropython(f"""
t = tracker()
show(t, 0, hp=9)
t.received("SEAT", 1, {payload})
report(shown=frame(t, 5000), errors=t.link.errors, count=t.errors, status=t.status())
""")
    assert pixels(out["shown"]) == NINE
    assert out["errors"] == [error]
    assert out["count"] == 1
    assert out["status"]["error"] == error and out["status"]["errors"] == 1


def test_a_payload_on_another_seats_topic_is_refused() -> None:
    out = run_micropython("""
t = tracker()
show(t, 0, hp=9)
t.received("SEAT", 2, seat(seat=1, hp=3, revision=2))
report(shown=frame(t, 5000), errors=t.link.errors)
""")
    assert pixels(out["shown"]) == NINE
    assert out["errors"] == ["seat/2: the payload on seat/2 is seat 1's"]


def test_revisions_only_go_forward_within_a_game() -> None:
    out = run_micropython("""
t = tracker()
show(t, 0, hp=9, revision=5)
show(t, 100, hp=3, tier=1, revision=4)
old = frame(t, 5000)
show(t, 5100, hp=3, tier=1, revision=2, game_id=2)
report(old=old, new=frame(t, 9000), stale=t.stale, errors=t.link.errors)
""")
    assert pixels(out["old"]) == NINE, "an older revision of the same game is ignored"
    assert out["stale"] == 1 and out["errors"] == []
    assert pixels(out["new"]) == [RED] * 3 + [GLOW] * 9, "a new game starts its revisions again"


def test_a_cleared_seat_goes_dark() -> None:
    out = run_micropython("""
t = tracker()
show(t, 0, hp=9)
t.received("SEAT", 1, b"")
report(shown=frame(t, 100), errors=t.link.errors)
""")
    assert pixels(out["shown"]) == [(0, 0, 0)] * 12 and out["errors"] == []


# -- assignment and settings from the companion -----------------------------------------------

def test_an_assignment_shows_the_new_seat_at_once_from_what_it_already_heard() -> None:
    out = run_micropython("""
t = tracker()
show(t, 0, seat=1, hp=9)
show(t, 0, seat=2, name="Bob", hp=3, tier=1)
before = frame(t, 100)
t.received("CONF", None, b'{"seat": 2}')
after = frame(t, 200)
t.received("CONF", None, b"")
withdrawn = frame(t, 300)
report(before=before, after=after, withdrawn=withdrawn, status=t.link.statuses[-1])
""")
    assert pixels(out["before"]) == NINE
    assert pixels(out["after"]) == [RED] * 3 + [GLOW] * 9
    assert pixels(out["withdrawn"]) == NINE, "a withdrawn assignment goes back to the settings"
    assert out["status"]["seat"] == 1


def test_brightness_from_the_companion_and_a_bad_setting() -> None:
    out = run_micropython("""
t = tracker()
show(t, 0, hp=9)
t.received("CONF", None, b'{"brightness": 0.5}')
half = frame(t, 100)
t.received("CONF", None, b'{"brightness": 2}')
report(half=half, still=frame(t, 200), errors=t.link.errors)
""")
    assert pixels(out["half"]) == [(0, 112, 0)] * 9 + [(7, 2, 2)] * 3
    assert out["still"] == out["half"]
    assert out["errors"] == ["assignment: brightness must be a number from 0 to 1, got 2"]


def test_the_button_steps_through_the_brightness_levels_once_per_press() -> None:
    out = run_micropython("""
t = tracker(brightness=0.25)
pin = hardware.FakePin()
t.button = hardware.Button(pin)
levels = []
for at, level in [(0, 0), (5, 1), (10, 0), (50, 0), (60, 1), (100, 1), (200, 0), (240, 0),
                  (300, 1), (340, 1), (400, 0), (440, 0), (500, 1), (540, 1)]:
    pin.value(level)
    frame(t, at)
    levels.append(t.display.brightness)
report(levels=levels)
""")
    # A bounce (0, 1, 0 within 10 ms) is not a press; each settled press is one step.
    assert out["levels"] == [0.25, 0.25, 0.25, 0.5, 0.5, 0.5, 0.5, 1.0, 1.0, 1.0,
                             1.0, 0.05, 0.05, 0.05]


# -- the blink ("which tracker is this?") -------------------------------------------------------

WHITE, OFF = (255, 255, 255), (0, 0, 0)

BAD_BLINKS = [
    ("not JSON", b"blink!", "not JSON: b'blink!'"),
    ("empty", b"", "a blink request is a JSON object, got None"),
    ("a JSON array", b"[3]", "a blink request is a JSON object, got [3]"),
    ("no schema", b'{"seconds": 3}', "unknown schema None (this firmware reads 1)"),
    ("unknown schema", b'{"schema": 2, "seconds": 3}', "unknown schema 2 (this firmware reads 1)"),
    ("no seconds", b'{"schema": 1}', "seconds must be a number above 0, got None"),
    ("zero seconds", b'{"schema": 1, "seconds": 0}', "seconds must be a number above 0, got 0"),
    ("negative", b'{"schema": 1, "seconds": -2.5}',
     "seconds must be a number above 0, got -2.5"),
    ("seconds as text", b'{"schema": 1, "seconds": "3"}',
     "seconds must be a number above 0, got '3'"),
    ("seconds as true", b'{"schema": 1, "seconds": true}',
     "seconds must be a number above 0, got True"),
]


@pytest.mark.parametrize(("payload", "error"), [b[1:] for b in BAD_BLINKS],
                         ids=[b[0] for b in BAD_BLINKS])
def test_a_bad_blink_request_is_reported_and_nothing_blinks(payload: bytes, error: str) -> None:
    # The same document as a serial BLNK line too, where it is one.
    lines = [serial_line("BLNK", json.loads(payload))[:-1]] if payload.startswith(b"{") else []
    out = run_micropython(f"""
t = tracker()
show(t, 0, hp=9)
t.received("BLNK", None, {payload!r})
shown = [frame(t, 100), frame(t, 400)]
for line in {lines!r}:
    t.received("LINE", None, line)
    shown += [frame(t, 500), frame(t, 800)]
report(shown=shown, errors=t.link.errors, status=t.status())
""")
    assert [pixels(f) for f in out["shown"]] == [NINE] * len(out["shown"])
    expected = ["blink: " + error] + ["serial BLNK: " + error for _ in lines]
    assert out["errors"] == expected
    assert out["status"]["errors"] == len(expected) and out["status"]["error"] == expected[-1]


@pytest.mark.parametrize(("seconds", "white", "dark", "back"), [
    (0.3, 249, 250, 300),             # a fraction of a second
    (1.5, 1000, 1499, 1500),
    (30, 29500, 29999, 30000),
    (1000, 29500, 29999, 30000),      # cut to 30 s
    (1e300, 29500, 29999, 30000),
])
def test_a_blink_lasts_its_seconds_up_to_30(seconds: float, white: int, dark: int,
                                            back: int) -> None:
    out = run_micropython(f"""
t = tracker()
show(t, 0, hp=9)
t.received("BLNK", None, json.dumps({{"schema": 1, "seconds": {seconds!r}}}).encode())
shown = [frame(t, 0), frame(t, {white}), frame(t, {dark}), frame(t, {back})]
report(shown=shown, errors=t.link.errors)
""")
    assert [pixels(f) for f in out["shown"]] == [[WHITE] * 12, [WHITE] * 12, [OFF] * 12, NINE]
    assert out["errors"] == []


def test_a_blink_line_on_serial_blinks() -> None:
    out = run_micropython(f"""
t = tracker()
show(t, 0, hp=9)
t.received("LINE", None, {serial_line("BLNK", {"schema": 1, "seconds": 3})[:-1]!r})
report(shown=[frame(t, 0), frame(t, 2999), frame(t, 3000)], errors=t.link.errors)
""")
    assert [pixels(f) for f in out["shown"]] == [[WHITE] * 12, [OFF] * 12, NINE]
    assert out["errors"] == []


# -- never giving up ------------------------------------------------------------------------------

def test_offline_mark_blinks_on_the_last_led_over_the_last_state() -> None:
    out = run_micropython("""
t = tracker()
show(t, 0, hp=12)
t.link.online = False
mark = frame(t, 2000)
between = frame(t, 2600)
t.link.online = True
report(mark=mark, between=between, back=frame(t, 4000))
""")
    assert pixels(out["mark"]) == [GREEN] * 11 + [(0, 48, 255)]
    assert pixels(out["between"]) == [GREEN] * 12
    assert pixels(out["back"]) == [GREEN] * 12


def test_a_flood_drops_the_oldest_messages_and_counts_them() -> None:
    out = run_micropython("""
t = tracker()
for r in range(1, 41):
    t.received("SEAT", 1, seat(hp=12 if r == 40 else 1, tier=3 if r == 40 else 1, revision=r))
frame(t, 0)
report(shown=frame(t, 1000), status=t.status())
""")
    assert out["status"]["dropped"] == 8
    assert pixels(out["shown"]) == [GREEN] * 12, "the newest payload got through"


def test_the_heartbeat_says_who_it_is_and_how_it_is() -> None:
    out = run_micropython("""
t = tracker(heartbeat_s=10)
show(t, 0, hp=9, revision=7)
frame(t, 9999)
quiet = len(t.link.statuses)
frame(t, 10000)
report(quiet=quiet, statuses=t.link.statuses)
""")
    assert out["quiet"] == 0
    status = out["statuses"][-1]
    assert status["id"] == "t1" and status["table"] == "table" and status["seat"] == 1
    assert status["firmware"] == "0.1.0" and status["revision"] == 7 and status["uptime"] == 10
    assert status["free"] > 0 and status["rssi"] is None and status["errors"] == 0


def test_reconnects_back_off_with_jitter_and_never_stop() -> None:
    out = run_micropython("""
from tracker.mqtt_link import MqttLink
net = FakeNetwork(up_after=3)
c = settings(broker="127.0.0.1", port=1, backoff_min_ms=100, backoff_max_ms=1000)
link = MqttLink(c, net, "t1")
t = tracker(link=link, **c)
attempts = []
for i in range(12):
    t.clock.now = link.retry_at
    link.poll(0)
    attempts.append([link.retry_at - t.clock.now, link.failures])
report(attempts=attempts, wifi_connects=net.connects, online=link.online, connects=link.connects)
""")
    # Wi-Fi down for 3 checks (associating, started once), then the broker refuses: the delay
    # doubles from 100 ms up to 1 s, each one drawn from its upper half.
    for i, (delay, failures) in enumerate(out["attempts"]):
        ceiling = min(1000, 100 << i)
        assert failures == i + 1
        assert ceiling // 2 <= delay <= ceiling, (i, delay)
    assert len({d for d, _ in out["attempts"][6:]}) > 1, "the jitter varies the delays"
    assert out["wifi_connects"] == 1
    assert out["online"] is False and out["connects"] == 0


def test_an_internal_error_is_reported_and_the_loop_goes_on() -> None:
    out = run_micropython("""
t = tracker()
show(t, 0, hp=9)
ticks = []
def tick(now):
    ticks.append(now)
    if len(ticks) == 1:
        raise RuntimeError("boom")
    raise SystemExit   # not an Exception: it ends run(), as Ctrl-C would
t.display.tick = tick
try:
    t.run()
except SystemExit:
    pass
report(ticks=len(ticks), errors=t.link.errors)
""")
    assert out["ticks"] == 2
    assert len(out["errors"]) == 1 and out["errors"][0].startswith("internal error: RuntimeError")


# -- the settings file --------------------------------------------------------------------------

def test_settings_file_overrides_defaults_and_reports_mistakes(tmp_path: Path) -> None:
    path = tmp_path / "secrets.json"
    path.write_text(json.dumps({"id": "t7", "table": "t", "leds": 16, "brightness": 1,
                                "colour": "#fff", "seats": "two"}))
    out = run_micropython(f"""
c, problems = config.load({str(path)!r}, "rp2")
report(id=c["id"], leds=c["leds"], brightness=c["brightness"], seats=c["seats"], pin=c["pin"],
       problems=problems)
""")
    assert out["id"] == "t7" and out["leds"] == 16 and out["brightness"] == 1
    assert out["seats"] == 1 and out["pin"] == 2
    assert out["problems"] == [f"{path}: unknown setting 'colour'",
                               f"{path}: seats must be like 1, got 'two'"]


def test_a_broken_settings_file_leaves_the_defaults(tmp_path: Path) -> None:
    path = tmp_path / "secrets.json"
    path.write_text("{oops")
    out = run_micropython(f"""
c, problems = config.load({str(path)!r})
report(leds=c["leds"], problems=problems)
""")
    assert out["leds"] == 12 and out["problems"][0].startswith(f"{path}: not JSON")


# -- the serial line format, against CPython's binascii ------------------------------------------

def test_lines_encoded_by_the_firmware_carry_the_crc_cpython_computes() -> None:
    out = run_micropython("""
from tracker.protocol import encode_line
report(line=encode_line("STAT", {"id": "t1", "free": 100}).decode())
""")
    text = out["line"]
    assert text.endswith("\n")
    body, _, crc = text.rstrip("\n").rpartition("*")
    assert crc == "%08x" % (binascii.crc32(body.encode()) & 0xFFFFFFFF)
    assert body.startswith("STAT {")


@pytest.mark.parametrize(("raw", "error"), [
    (serial_line("SEAT", {"a": 1})[:-2] + b"0", "bad checksum"),
    (b"SEAT {}", "line has no checksum"),
    (serial_line("HELO", {})[:-1], "unknown line type 'HELO'"),
    (serial_line("SEAT", {})[:-1].replace(b"{}", b"{x"), "bad checksum"),
    (b"CONF {x*" + b"%08x" % (binascii.crc32(b"CONF {x") & 0xFFFFFFFF), "bad JSON on line"),
    (b"\xff\xfe*" + b"%08x" % (binascii.crc32(b"\xff\xfe") & 0xFFFFFFFF), "unknown line type b'\\xff\\xfe'"),
    (b"x" * 1025, "line of 1025 bytes is longer than 1024"),
])
def test_garbage_lines_are_refused_with_a_reason(raw: bytes, error: str) -> None:
    out = run_micropython(f"""
from tracker.protocol import decode_line
try:
    decode_line({raw!r})
    report(error=None)
except ValueError as e:
    report(error=str(e))
""")
    assert out["error"] is not None and error in out["error"]


def test_a_good_line_decodes() -> None:
    out = run_micropython(f"""
from tracker.protocol import decode_line
report(got=decode_line({serial_line("SEAT", {"seat": 2, "name": "A*B"})[:-1]!r}))
""")
    assert out["got"] == ["SEAT", {"seat": 2, "name": "A*B"}]
