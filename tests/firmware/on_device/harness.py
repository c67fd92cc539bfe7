# MicroPython, not CPython: what the firmware tests run on the unix port
# before their own lines (see tests/support/firmware.py). A tracker built
# here is the real HpTracker with a FakeStrip, a fake link that records what
# the tracker sends, and a clock the test moves by hand.
import json

from tracker import config, hardware, render
from tracker.app import HpTracker
from tracker.display import Display


class FakeClock:
    def __init__(self):
        self.now = 0

    def ms(self):
        return self.now


class FakeLink:
    kind = "fake"

    def __init__(self):
        self.statuses = []
        self.errors = []
        self.online = True
        self.connects = 1
        self.tracker = None

    def start(self, tracker):
        self.tracker = tracker

    def poll(self, timeout_ms):
        pass

    def rssi(self):
        return None

    def send_status(self, status):
        self.statuses.append(status)

    def report(self, error, status):
        self.errors.append(error)


class FakeNetwork:
    """Wi-Fi that comes up on the check after `up_after` checks."""

    def __init__(self, up_after=0):
        self.up_after = up_after
        self.checks = 0
        self.connects = 0

    def connect(self):
        self.connects += 1

    def up(self):
        self.checks += 1
        return self.checks > self.up_after

    def rssi(self):
        return -61


def settings(**changes):
    c = dict(config.DEFAULTS)
    c["brightness"] = 1.0
    c.update(changes)
    return c


def tracker(link=None, **changes):
    c = settings(**changes)
    strip = hardware.FakeStrip(c["leds"] * c["seats"])
    pool = hardware.FakeStrip(c["pool_leds"], "pool") if c["pool_leds"] else None
    display = Display(strip, render.Look(c), c["leds"], c["seats"], pool, c["brightness"])
    return HpTracker(c, "t1", display, link or FakeLink(), clock=FakeClock())


ZUN = {"schema": 1, "game": "zun", "game_id": 1, "revision": 1, "seat": 1, "name": "Ann",
       "colour": "#e53935", "team": None, "hp": 12, "max": 12, "tier": 3, "defeated": False,
       "active": False, "winner": False, "over": False}


def seat(**fields):
    """A seat payload (JSON bytes): Ann's in Runes of Zun, changed by `fields`."""
    payload = dict(ZUN)
    payload.update(fields)
    return json.dumps(payload).encode()


def show(t, at, **fields):
    """Deliver a seat payload at time `at` (ms) and run one step of the loop."""
    t.clock.now = at
    t.received("SEAT", fields.get("seat", 1), seat(**fields))
    t.step()


def frame(t, at, strip="main"):
    """What the strip shows at time `at`."""
    t.clock.now = at
    t.step()
    s = t.display.strip if strip == "main" else t.display.pool_strip
    return s.shown


def report(**values):
    print(json.dumps(values))
