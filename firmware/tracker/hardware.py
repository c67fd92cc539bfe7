# The only part of the tracker that knows it runs on a board.
#
# Every driver takes its pin objects as arguments (NeoPixel(pin, n)), and the
# functions here pick the real part or its stand-in when they are first
# called, never at import: on the unix port there is no neopixel, no Wi-Fi and
# no watchdog, so the same program drives a FakeStrip that records its pixels
# and, if asked, sends every frame to the desktop demo over UDP.
import json
import socket


class FakeStrip:
    """A strip of WS2812 LEDs that records what it shows (the unix port's NeoPixel).

    Like NeoPixel, setting a pixel changes a buffer and `write()` shows it:
    `shown` is what the LEDs display, `writes` counts the writes.
    """

    def __init__(self, n, name="main", sink=None):
        self.n = n
        self.name = name
        self.sink = sink
        self.buffer = [(0, 0, 0)] * n
        self.shown = list(self.buffer)
        self.writes = 0

    def __len__(self):
        return self.n

    def __setitem__(self, i, c):
        self.buffer[i] = (c[0], c[1], c[2])

    def __getitem__(self, i):
        return self.buffer[i]

    def fill(self, c):
        for i in range(self.n):
            self[i] = c

    def write(self):
        self.shown = list(self.buffer)
        self.writes += 1
        if self.sink is not None:
            self.sink.send(self.name, self.shown)


class FrameSink:
    """Sends each frame a fake strip shows as one UDP datagram of JSON:
    {"id": tracker id, "strip": "main" or "pool", "seq": n, "pixels": "rrggbb..."}.

    The desktop demo draws them and the tests read them. UDP because a
    missing listener must never slow or stop the tracker.
    """

    def __init__(self, address, tracker_id):
        kind, host, port = address.split(":")
        if kind != "udp":
            raise ValueError("frames: expected udp:<host>:<port>, got %r" % address)
        self.addr = socket.getaddrinfo(host, int(port))[0][-1]
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.id = tracker_id
        self.seq = 0

    def send(self, name, pixels):
        self.seq += 1
        hexes = "".join(["%02x%02x%02x" % p for p in pixels])
        data = json.dumps({"id": self.id, "strip": name, "seq": self.seq, "pixels": hexes})
        try:
            self.sock.sendto(data.encode(), self.addr)
        except OSError:
            pass  # nobody listening: the frame is simply not seen


def open_strip(pin, n, order="GRB", name="main", sink=None):
    """A NeoPixel on `pin` on a board; a FakeStrip where there is none."""
    try:
        from machine import Pin
        from neopixel import NeoPixel
    except ImportError:
        return FakeStrip(n, name, sink)
    strip = NeoPixel(Pin(pin, Pin.OUT), n)
    if order == "RGB":
        strip.ORDER = (0, 1, 2, 3)
    return strip


class FakePin:
    """An input pin whose level the tests set (1 is released, with the pull-up)."""

    def __init__(self, level=1):
        self.level = level

    def value(self, level=None):
        if level is not None:
            self.level = level
        return self.level


def open_button_pin(pin):
    """The button's pin: an input pulled up, pressed when it reads 0."""
    from machine import Pin
    return Pin(pin, Pin.IN, Pin.PULL_UP)


class Button:
    """A push button to ground, debounced by sampling: a level counts once it
    has held for `debounce_ms` (contacts bounce for a few ms)."""

    def __init__(self, pin, debounce_ms=30):
        self.pin = pin
        self.debounce_ms = debounce_ms
        self.level = pin.value()
        self.raw = self.level
        self.since = 0

    def pressed(self, now):
        """True once for each press, when the button has settled down."""
        raw = self.pin.value()
        if raw != self.raw:
            self.raw = raw
            self.since = now
        elif raw != self.level and now - self.since >= self.debounce_ms:
            self.level = raw
            return raw == 0
        return False


def watchdog(ms):
    """A started hardware watchdog, or None where the port has none (unix)."""
    if not ms:
        return None
    try:
        from machine import WDT
    except ImportError:
        return None
    return WDT(timeout=ms)


class HostNetwork:
    """The unix port's network: the host's, always up, no RSSI."""

    def connect(self):
        pass

    def up(self):
        return True

    def rssi(self):
        return None


class Wifi:
    """The board's Wi-Fi station. Connecting runs in the background; the MQTT
    link asks `up()` and calls `connect()` again on its backoff schedule."""

    def __init__(self, network, ssid, password):
        self.wlan = network.WLAN(network.STA_IF)
        self.ssid = ssid
        self.password = password

    def connect(self):
        if not self.ssid:
            return          # never up; the tracker reports the missing setting
        self.wlan.active(True)
        try:
            self.wlan.disconnect()
        except OSError:
            pass
        self.wlan.connect(self.ssid, self.password)

    def up(self):
        return self.wlan.isconnected()

    def rssi(self):
        try:
            return self.wlan.status("rssi")
        except (OSError, ValueError):
            return None


def open_network(ssid, password):
    """Wi-Fi on a board, the host's network on the unix port."""
    try:
        import network
    except ImportError:
        return HostNetwork()
    return Wifi(network, ssid, password)
