# What the tracker accepts from the companion (docs/mqtt.md), checked once on
# arrival: a payload that fails here never reaches the display, and the
# ValueError's message is what the tracker reports on its status.
import binascii
import json

from tracker.render import GAMES, colour

SCHEMA = 1
MAX_LINE = 1024
MAX_BLINK_S = 30    # a longer blink is cut short: the tracker has a seat to show
TO_TRACKER = ("SEAT", "CONF", "BLNK", "PING")
FROM_TRACKER = ("STAT", "ERR")


def _whole(seat, key, low):
    value = seat.get(key)
    if type(value) is not int:
        raise ValueError("%s must be a whole number, got %r" % (key, value))
    if value < low:
        raise ValueError("%s %d is negative" % (key, value) if low == 0
                         else "%s %d is below %d" % (key, value, low))
    return value


def _document(obj, what):
    if type(obj) is not dict:
        raise ValueError("%s is a JSON object, got %r" % (what, obj))
    if obj.get("schema") != SCHEMA:
        raise ValueError("unknown schema %r (this firmware reads %d)" % (obj.get("schema"), SCHEMA))


def check_seat(seat, leds):
    """The seat payload `seat` if a segment of `leds` LEDs can show it."""
    _document(seat, "a seat payload")
    game = seat.get("game")
    if game not in GAMES:
        raise ValueError("unknown game %r (this firmware shows %s)" % (game, ", ".join(GAMES)))
    _whole(seat, "seat", 1)
    _whole(seat, "revision", 0)
    colour(seat.get("colour"))
    if game == "market":
        _whole(seat, "runes", 0)
    else:
        hp = _whole(seat, "hp", 0)
        if hp > leds:
            raise ValueError("hp %d is more than the %d LEDs of the strip" % (hp, leds))
        if seat.get("max") is not None:
            _whole(seat, "max", 0)
        if seat.get("tier") is not None:
            _whole(seat, "tier", 0)
    if seat.get("loki_pool") is not None:
        _whole(seat, "loki_pool", 0)
    return seat


def newer(seat, old):
    """Whether `seat` may replace `old`: revisions only go forward within one game.

    A payload of another game, or of another game_id (a new game restarts its
    revisions at 0), is always newer. An equal revision is the same state
    delivered again (a retained message after a reconnect) and is harmless.
    """
    if old is None or seat["game"] != old["game"] or seat.get("game_id") != old.get("game_id"):
        return True
    return seat["revision"] >= old["revision"]


def check_conf(conf):
    """Settings from the companion: {"seat": n, "brightness": 0..1}, any of them."""
    if type(conf) is not dict:
        raise ValueError("settings are a JSON object, got %r" % (conf,))
    if "seat" in conf:
        _whole(conf, "seat", 1)
    b = conf.get("brightness")
    if b is not None and (type(b) not in (int, float) or not 0 <= b <= 1):
        raise ValueError("brightness must be a number from 0 to 1, got %r" % (b,))
    return conf


def check_blink(blink):
    """The seconds of a blink request {"schema": 1, "seconds": s}, at most MAX_BLINK_S."""
    _document(blink, "a blink request")
    seconds = blink.get("seconds")
    # `not seconds > 0` also refuses NaN; bool is not a number here, as in JSON.
    if type(seconds) not in (int, float) or not seconds > 0:
        raise ValueError("seconds must be a number above 0, got %r" % (seconds,))
    return min(seconds, MAX_BLINK_S)


def parse_json(data):
    """The JSON document in an MQTT payload; an empty payload (a cleared retained topic) is None."""
    if not data:
        return None
    try:
        return json.loads(data)
    except ValueError:
        raise ValueError("not JSON: %r" % (data[:60],))


def encode_line(kind, obj):
    """One line of the serial protocol: `<TYPE> <JSON>*<crc32 hex>\\n`."""
    body = ("%s %s" % (kind, json.dumps(obj))).encode()
    return b"%s*%08x\n" % (body, binascii.crc32(body) & 0xFFFFFFFF)


def decode_line(line):
    """(TYPE, object) from one received line (bytes, without its newline)."""
    if len(line) > MAX_LINE:
        raise ValueError("line of %d bytes is longer than %d" % (len(line), MAX_LINE))
    body, star, crc = line.rstrip(b"\r").rpartition(b"*")
    if not star:
        raise ValueError("line has no checksum: %r" % (line[:40],))
    if crc != b"%08x" % (binascii.crc32(body) & 0xFFFFFFFF):
        raise ValueError("bad checksum on line %r" % (line[:40],))
    kind, _, text = body.partition(b" ")
    try:
        kind = kind.decode()
    except UnicodeError:
        kind = None
    if kind not in TO_TRACKER and kind not in FROM_TRACKER:
        raise ValueError("unknown line type %r" % (kind or body[:8],))
    try:
        return kind, json.loads(text)
    except ValueError:
        raise ValueError("bad JSON on line %r" % (line[:40],))
