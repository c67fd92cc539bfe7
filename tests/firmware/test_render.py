"""What the tracker's LEDs show for every game state, pixel by pixel, on the MicroPython unix port.

Each case delivers seat payloads to a real HpTracker (FakeStrip, fake link, hand-moved clock;
see tests/firmware/on_device/harness.py) and reads the strip at a given time. Colours are the defaults of
firmware/tracker/config.py at brightness 1, written out by hand here.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import pytest

from tests.support.firmware import pixels, run_micropython

OFF = (0, 0, 0)
RED, AMBER, GREEN = (255, 0, 0), (255, 160, 0), (0, 224, 0)     # tiers 1, 2, 3
GLOW = (14, 3, 3)              # Ann's team colour #e53935 at 6 %
TEAM = (229, 57, 53)           # #e53935
BLUE_GLOW = (2, 8, 14)         # #1e88e5 at 6 %
DEFEAT = (64, 0, 0)
WHITE = (255, 255, 255)
LOKI, LOKI_GLOW, LOKI_HALF = (32, 255, 64), (2, 15, 4), (16, 128, 32)
GOLD, CYAN = (255, 176, 0), (0, 192, 255)

RC = {"game": "runecast", "alive": True, "loki": False, "thrall": False, "loki_pool": 0}
MARKET = {"game": "market", "hp": None, "max": None, "tier": None, "runes": 0}


def strip_at(shows: list[tuple[int, dict[str, Any]]], now: int,
             **settings: Any) -> dict[str, Any]:
    """Deliver each (time, payload changes) in order, with rising revisions; the strips at ``now``."""
    spec = {"settings": settings, "shows": [[at, {"revision": i + 1, **fields}]
                                           for i, (at, fields) in enumerate(shows)], "now": now}
    shown: dict[str, Any] = run_micropython(f"""
spec = json.loads({json.dumps(spec)!r})
t = tracker(**spec["settings"])
for at, fields in spec["shows"]:
    show(t, at, **fields)
report(main=frame(t, spec["now"]),
       pool=frame(t, spec["now"], "pool") if t.display.pool_strip else None)
""")
    return shown


CASES = [
    # -- Runes of Zun: HP as lit LEDs by tier ---------------------------------------
    ("full HP", [(0, dict(hp=12, tier=3))], 0, [GREEN] * 12),
    ("9-12 tier", [(0, dict(hp=9, tier=3))], 0, [GREEN] * 9 + [GLOW] * 3),
    ("5-8 tier", [(0, dict(hp=6, tier=2))], 0, [AMBER] * 6 + [GLOW] * 6),
    ("1-4 tier", [(0, dict(hp=3, tier=1))], 0, [RED] * 3 + [GLOW] * 9),
    ("tier taken from HP when missing", [(0, dict(hp=7, tier=None))], 0,
     [AMBER] * 7 + [GLOW] * 5),
    ("LEDs past the maximum stay dark", [(0, dict(hp=5, tier=2, max=10))], 0,
     [AMBER] * 5 + [GLOW] * 5 + [OFF] * 2),
    ("team colour glows on the unlit LEDs", [(0, dict(hp=4, tier=1, colour="#1e88e5"))], 0,
     [RED] * 4 + [BLUE_GLOW] * 8),
    ("defeated: dark with one dim red", [(0, dict(hp=0, tier=0, defeated=True))], 0,
     [DEFEAT] + [OFF] * 11),
    # The active player's pulse: full at 0, half at half the 2 s period; the glow stays.
    ("active, pulse at its peak", [(0, dict(hp=9, active=True))], 0, [GREEN] * 9 + [GLOW] * 3),
    ("active, pulse a quarter in", [(0, dict(hp=9, active=True))], 500,
     [(0, 168, 0)] * 9 + [GLOW] * 3),
    ("active, pulse at its lowest", [(0, dict(hp=9, active=True))], 1000,
     [(0, 112, 0)] * 9 + [GLOW] * 3),
    ("game over: no pulse", [(0, dict(hp=9, active=True, over=True))], 1000,
     [GREEN] * 9 + [GLOW] * 3),
    ("victory: every third unlit LED in the team colour", [(0, dict(hp=5, tier=2, winner=True,
                                                                  over=True))], 0,
     [AMBER] * 5 + [GLOW, TEAM, GLOW, GLOW, TEAM, GLOW, GLOW]),
    ("victory: the chase moves on", [(0, dict(hp=5, tier=2, winner=True, over=True))], 150,
     [AMBER] * 5 + [GLOW, GLOW, TEAM, GLOW, GLOW, TEAM, GLOW]),
    ("the loser still standing: steady", [(0, dict(hp=3, tier=1, over=True))], 1000,
     [RED] * 3 + [GLOW] * 9),
    # Transitions never hide the final number: it is lit at once, only the rest moves.
    ("damage: lost HP starts as a half-bright ghost",
     [(0, dict(hp=9)), (1000, dict(hp=6, tier=2))], 1000,
     [AMBER] * 6 + [(0, 112, 0)] * 3 + [GLOW] * 3),
    ("damage: the ghost half faded", [(0, dict(hp=9)), (1000, dict(hp=6, tier=2))], 1200,
     [AMBER] * 6 + [(7, 58, 2)] * 3 + [GLOW] * 3),
    ("damage: settled", [(0, dict(hp=9)), (1000, dict(hp=6, tier=2))], 1400,
     [AMBER] * 6 + [GLOW] * 6),
    ("heal: gained HP starts white", [(0, dict(hp=6, tier=2)), (1000, dict(hp=8, tier=2))], 1000,
     [AMBER] * 6 + [WHITE] * 2 + [GLOW] * 4),
    ("heal: half way to the tier colour",
     [(0, dict(hp=6, tier=2)), (1000, dict(hp=8, tier=2))], 1200,
     [AMBER] * 6 + [(255, 208, 128)] * 2 + [GLOW] * 4),
    ("defeat: the last HP fades into the dim red",
     [(0, dict(hp=2, tier=1)), (1000, dict(hp=0, tier=0, defeated=True))], 1000,
     [(128, 0, 0)] * 2 + [OFF] * 10),
    ("defeat: settled", [(0, dict(hp=2, tier=1)), (1000, dict(hp=0, tier=0, defeated=True))],
     1400, [DEFEAT] + [OFF] * 11),
    ("revive: every LED flashes white",
     [(0, dict(hp=0, tier=0, defeated=True)), (1000, dict(hp=2, tier=1))], 1000,
     [WHITE] * 2 + [GLOW] * 10),
    ("revive: half way (a longer fade than a heal)",
     [(0, dict(hp=0, tier=0, defeated=True)), (1000, dict(hp=2, tier=1))], 1600,
     [(255, 128, 128)] * 2 + [GLOW] * 10),
    ("revive: settled", [(0, dict(hp=0, tier=0, defeated=True)), (1000, dict(hp=2, tier=1))],
     2200, [RED] * 2 + [GLOW] * 10),
    # -- Runecast -----------------------------------------------------------------------
    ("Runecast HP", [(0, dict(RC, hp=6, tier=2))], 0, [AMBER] * 6 + [GLOW] * 6),
    ("agent of Loki: Loki's glow on the unlit LEDs", [(0, dict(RC, hp=4, tier=1, loki=True))], 0,
     [RED] * 4 + [LOKI_GLOW] * 8),
    ("agent of Loki, defeated", [(0, dict(RC, hp=0, tier=0, defeated=True, loki=True))], 0,
     [LOKI_HALF] + [LOKI_GLOW] * 11),
    ("out of the game for good (alive false)", [(0, dict(RC, hp=0, tier=0, alive=False))], 0,
     [DEFEAT] + [OFF] * 11),
    ("the Thrall's turn: the unlit LEDs breathe Loki's colour, low",
     [(0, dict(RC, hp=5, tier=2, thrall=True))], 0, [AMBER] * 5 + [GLOW] * 7),
    ("the Thrall's turn, breath at its top", [(0, dict(RC, hp=5, tier=2, thrall=True))], 1000,
     [AMBER] * 5 + [(25, 154, 40)] * 7),
    # -- The Rune Market -------------------------------------------------------------------
    ("runes", [(0, dict(MARKET, runes=5))], 0, [GOLD] * 5 + [GLOW] * 7),
    ("no runes", [(0, dict(MARKET, runes=0))], 0, [GLOW] * 12),
    ("runes past one lap go round in white", [(0, dict(MARKET, runes=15))], 0,
     [WHITE] * 3 + [GOLD] * 9),
    ("runes past every lap: all in the last colour", [(0, dict(MARKET, runes=40))], 0,
     [CYAN] * 12),
    ("runes, active", [(0, dict(MARKET, runes=5, active=True))], 1000,
     [(128, 88, 0)] * 5 + [GLOW] * 7),
    ("runes, victory", [(0, dict(MARKET, runes=5, winner=True, over=True))], 0,
     [GOLD] * 5 + [GLOW, TEAM, GLOW, GLOW, TEAM, GLOW, GLOW]),
]


@pytest.mark.parametrize(("shows", "now", "expected"), [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_the_strip_shows(shows: list[tuple[int, dict[str, Any]]], now: int,
                         expected: list[tuple[int, int, int]]) -> None:
    assert pixels(strip_at(shows, now)["main"]) == expected


def test_brightness_scales_every_led() -> None:
    shown = strip_at([(0, dict(hp=9))], 0, brightness=0.25)
    assert pixels(shown["main"]) == [(0, 56, 0)] * 9 + [(4, 1, 1)] * 3


@pytest.mark.parametrize(("pool", "expected"), [
    (0, [OFF] * 12),
    (5, [LOKI] * 5 + [OFF] * 7),
    (15, [WHITE] * 3 + [LOKI] * 9),
    (30, [WHITE] * 12),
])
def test_lokis_pool_on_the_second_strip(pool: int, expected: list[tuple[int, int, int]]) -> None:
    shown = strip_at([(0, dict(RC, hp=6, tier=2, loki_pool=pool))], 0, pool_leds=12)
    assert pixels(shown["pool"]) == expected
    assert pixels(shown["main"]) == [AMBER] * 6 + [GLOW] * 6


def test_a_strip_of_two_seats_shows_each_in_its_segment() -> None:
    shown = strip_at([(0, dict(seat=1, hp=9)),
                      (0, dict(seat=2, name="Bob", colour="#1e88e5", hp=3, tier=1))], 0, seats=2)
    assert pixels(shown["main"]) == [GREEN] * 9 + [GLOW] * 3 + [RED] * 3 + [BLUE_GLOW] * 9


def test_colours_are_settings() -> None:
    shown = strip_at([(0, dict(hp=6, tier=2))], 0,
                     tier_colours=["#110000", "#001100", "#000011"], background=0.0)
    assert pixels(shown["main"]) == [(0, 17, 0)] * 6 + [OFF] * 6



# -- the blink ("which tracker is this?") -------------------------------------------------

def blink_frames(times: list[int], *, seconds: float = 1, at: int = 1000,
                 during: Sequence[tuple[int, dict[str, Any]]] = (), **settings: Any) -> list[Any]:
    """Ann's seat at 9 HP from time 0, a blink of ``seconds`` asked for at ``at``, the seat
    payloads ``during`` delivered at their times, and both strips at each of ``times``."""
    spec = {"settings": settings, "at": at, "seconds": seconds, "times": times,
            "during": [[t, {"revision": i + 2, **fields}] for i, (t, fields) in enumerate(during)]}
    out: dict[str, Any] = run_micropython(f"""
spec = json.loads({json.dumps(spec)!r})
t = tracker(**spec["settings"])
show(t, 0, hp=9, revision=1)
pool = t.display.pool_strip
blink = json.dumps({{"schema": 1, "seconds": spec["seconds"]}}).encode()
during = list(spec["during"])
frames = []
for now in spec["times"]:
    if blink and spec["at"] <= now:
        t.clock.now = spec["at"]
        t.received("BLNK", None, blink)
        t.step()
        blink = None
    while during and during[0][0] <= now:
        at, fields = during.pop(0)
        show(t, at, **fields)
    frames.append([frame(t, now), frame(t, now, "pool") if pool else None])
report(frames=frames, errors=t.link.errors)
""")
    assert out["errors"] == []
    return out["frames"]


def test_a_blink_flashes_every_led_white_twice_a_second_then_the_seat_comes_back() -> None:
    # Asked for at 1 s, for 1 s: white 250 ms, dark 250 ms, twice; at 2 s the seat again.
    times = [999, 1000, 1249, 1250, 1499, 1500, 1750, 1999, 2000, 5000]
    shown = [pixels(main) for main, _ in blink_frames(times)]
    assert shown == [
        [GREEN] * 9 + [GLOW] * 3,
        [WHITE] * 12, [WHITE] * 12, [OFF] * 12, [OFF] * 12, [WHITE] * 12, [OFF] * 12,
        [OFF] * 12,
        [GREEN] * 9 + [GLOW] * 3,
        [GREEN] * 9 + [GLOW] * 3,
    ]


def test_the_seat_keeps_changing_under_a_blink() -> None:
    # Damage during the blink: hidden while it lasts, and shown, settled, the moment it ends.
    frames = blink_frames([1500, 1750, 2000], during=[(1500, dict(hp=6, tier=2))])
    assert [pixels(main) for main, _ in frames] == [
        [WHITE] * 12, [OFF] * 12, [AMBER] * 6 + [GLOW] * 6]


def test_a_blink_covers_every_segment_and_the_pool_at_the_strips_brightness() -> None:
    half = (128, 128, 128)
    frames = blink_frames([1000, 1250, 2000], seats=2, pool_leds=8, brightness=0.5,
                          during=[(1000, dict(RC, hp=6, tier=2, loki_pool=3))])
    assert [(pixels(main), pixels(pool)) for main, pool in frames] == [
        ([half] * 24, [half] * 8),
        ([OFF] * 24, [OFF] * 8),
        ([(128, 80, 0)] * 6 + [(7, 2, 2)] * 6 + [OFF] * 12, [(16, 128, 32)] * 3 + [OFF] * 5),
    ]


def test_a_new_blink_starts_the_pattern_again() -> None:
    # Blinks of 1 s asked for at 1 s and at 1.3 s: the second starts white and lasts to 2.3 s.
    out = run_micropython("""
t = tracker()
show(t, 0, hp=9)
shown = []
for ask, now in [(True, 1000), (True, 1300), (False, 1550), (False, 2000), (False, 2299),
                 (False, 2300)]:
    t.clock.now = now
    if ask:
        t.received("BLNK", None, b'{"schema": 1, "seconds": 1}')
    shown.append(frame(t, now))
report(shown=shown)
""")
    assert [pixels(f) for f in out["shown"]] == [
        [WHITE] * 12, [WHITE] * 12, [OFF] * 12, [WHITE] * 12, [OFF] * 12,
        [GREEN] * 9 + [GLOW] * 3]
