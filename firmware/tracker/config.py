# Settings of the tracker: the defaults live here, in code; each board's own
# values (Wi-Fi, broker credentials, ids, its wiring) live in a small local
# file, secrets.json, written by the companion's setup script. Only the keys a
# board changes go in that file, so a firmware update brings new defaults.
import json
import sys

VERSION = "0.1.0"

DEFAULTS = {
    # Who the tracker is and which table it belongs to (topics runes/<table>/...).
    "id": None,                 # None: the board's unique id, in hex
    "table": "table",
    # How the companion reaches it: "mqtt" over Wi-Fi, or "serial" over USB.
    "mode": "mqtt",
    "wifi_ssid": None,
    "wifi_password": None,
    "broker": "runes.local",
    "port": 1883,
    "user": None,
    "password": None,
    "keepalive_s": 30,
    "heartbeat_s": 10,          # status every 10 s; 3 missed echoes mean a dead link
    "backoff_min_ms": 500,      # reconnect delays double from here...
    "backoff_max_ms": 30000,    # ...up to here, each with random jitter
    "connect_timeout_ms": 3000,
    "watchdog_ms": 8000,        # the Pico's longest; 0 turns the watchdog off
    "serial_offline_s": 0,      # serial mode: silence that shows "offline" (0: never)
    # Which seats it shows: `seats` consecutive seats from `seat`, until the
    # companion assigns one on runes/<table>/tracker/<id>/seat.
    "seat": 1,
    "seats": 1,
    # The wiring. Pins of None take the board's default (PINS below).
    "leds": 12,                 # LEDs per seat
    "pin": None,
    "pool_leds": 0,             # a second strip for Loki's pool (Runecast); 0: none
    "pool_pin": None,
    "button_pin": None,
    "order": "GRB",             # WS2812/WS2812B; "RGB" for some clones
    # The look.
    "brightness": 0.25,
    "brightness_steps": [0.05, 0.1, 0.25, 0.5, 1.0],
    "tier_colours": ["#ff0000", "#ffa000", "#00e000", "#00a0ff"],
    "rune_colours": ["#ffb000", "#ffffff", "#00c0ff"],
    "pool_colours": ["#20ff40", "#ffffff"],
    "loki_colour": "#20ff40",
    "defeat_colour": "#400000",
    "revive_colour": "#ffffff",
    "offline_colour": "#0030ff",
    "background": 0.06,         # unlit LEDs glow in the team colour at this fraction
    "pulse_ms": 2000,           # the active player's pulse; 0: steady
    "pulse_depth": 0.5,
    "fade_ms": 400,             # lost HP fades out, gained HP fades in, this long
    "revive_ms": 1200,
    "chase_ms": 150,            # the victory chase, one step per this many ms
    "frame_ms": 20,
    # Unix port only: "udp:<host>:<port>" gets every frame the fake strip shows.
    "frames": None,
}

# Default pins per board (sys.platform), matching hardware/tracker/.
PINS = {
    "esp32": {"pin": 18, "pool_pin": 19, "button_pin": 4},
    "rp2": {"pin": 2, "pool_pin": 3, "button_pin": 15},
}


def load(path="secrets.json", platform=None):
    """The settings: defaults, the board's pins, then the local file on top.

    Returns (config, problems). A missing file is no problem (serial mode
    needs none); a broken one, an unknown key or a value of the wrong type is
    a problem: the tracker still starts, with the default for that key, and
    reports the problem on its status.
    """
    config = dict(DEFAULTS)
    config.update(PINS.get(platform or sys.platform, {}))
    problems = []
    try:
        with open(path) as f:
            local = json.load(f)
    except OSError:
        local = {}
    except ValueError as e:
        return config, ["%s: not JSON (%s)" % (path, e)]
    if type(local) is not dict:
        return config, ["%s: not a JSON object" % path]
    for key in local:
        value = local[key]
        if key not in DEFAULTS:
            problems.append("%s: unknown setting %r" % (path, key))
        elif not _fits(DEFAULTS[key], value):
            problems.append("%s: %s must be like %r, got %r" % (path, key, DEFAULTS[key], value))
        else:
            config[key] = value
    return config, problems


def _fits(default, value):
    # A None default (ids, pins, credentials) takes text, a number or None;
    # otherwise the type must match the default's, except that a whole number
    # is a fine float (JSON writes 1.0 as 1) and a list's items follow its first.
    if default is None:
        return value is None or type(value) in (str, int)
    if type(default) is float:
        return type(value) in (int, float)
    if type(default) is list:
        return type(value) is list and all(_fits(default[0], v) for v in value)
    return type(value) is type(default)
