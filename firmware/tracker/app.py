# The LED HP tracker: seat payloads in from a link (MQTT or USB serial), LEDs
# out, a heartbeat back, and a blink on request to show which tracker it is.
# It never stops: bad input is reported and ignored, a lost link is re-made,
# and the watchdog resets a board that hangs.
import gc
import sys
import time

from tracker import config as settings
from tracker import hardware
from tracker.display import Display
from tracker.protocol import check_blink, check_conf, check_seat, decode_line, newer, parse_json
from tracker.render import Look

MAX_SEATS = 16      # seat payloads remembered, so a new assignment shows at once
INBOX = 32          # room for every retained seat, the assignment and the echo after a connect


class Clock:
    """Milliseconds since start that never wrap (time.ticks_ms does, after days)."""

    def __init__(self):
        self.last = time.ticks_ms()
        self.now = 0

    def ms(self):
        t = time.ticks_ms()
        self.now += time.ticks_diff(t, self.last)
        self.last = t
        return self.now


class Inbox:
    """A bounded queue of received messages: when full, the oldest is dropped
    and counted (a newer payload of the same seat is on its way behind it)."""

    def __init__(self, size):
        self.size = size
        self.items = []
        self.dropped = 0

    def put(self, item):
        if len(self.items) >= self.size:
            self.items.pop(0)
            self.dropped += 1
        self.items.append(item)

    def take(self):
        return self.items.pop(0) if self.items else None


class HpTracker:
    """One tracker: `display` shows what `link` brings; see the module comment."""

    def __init__(self, config, tracker_id, display, link, button=None, watchdog=None, log=None,
                 clock=None):
        self.config = config
        self.id = tracker_id
        self.display = display
        self.link = link
        self.button = button
        self.watchdog = watchdog
        self.log = log or (lambda text: None)
        self.clock = clock or Clock()
        self.inbox = Inbox(INBOX)
        self.first = config["seat"]
        self.seats = {}
        self.errors = 0
        self.error = None
        self.stale = 0
        self.beat_at = 0
        link.start(self)

    # -- what the link calls -------------------------------------------------

    def received(self, kind, where, data):
        """Queue one message: ("SEAT", seat number, JSON), ("CONF", None, JSON),
        ("BLNK", None, JSON) or ("LINE", None, a line of the serial protocol)."""
        self.inbox.put((kind, where, data))

    def connected(self):
        self.log("%s link up" % self.link.kind)
        self.link.send_status(self.status())
        self.beat_at = self.clock.ms()

    def disconnected(self, reason):
        # Not counted in `errors` (that is rejected input), but the status sent on the
        # next connect says what happened.
        self.error = reason
        self.log(reason)

    def fail(self, error):
        """Report bad input or trouble; the display keeps its last good state."""
        self.errors += 1
        self.error = error
        self.log("error: " + error)
        self.link.report(error, self.status())

    # -- messages ----------------------------------------------------------------

    def handle(self, kind, where, data):
        source = {"LINE": "serial", "SEAT": "seat/%s" % (where,), "CONF": "assignment",
                  "BLNK": "blink"}[kind]
        try:
            if kind == "LINE":
                kind, obj = decode_line(data)
                source = "serial " + kind
            else:
                obj = parse_json(data)
            if kind == "SEAT":
                self.show_seat(obj, where)
            elif kind == "CONF":
                self.configure(obj)
            elif kind == "BLNK":
                self.blink(check_blink(obj))
            elif kind == "PING":
                self.link.send_status(self.status())
            # STAT and ERR are what the tracker itself sends: an echo, ignored.
        except ValueError as e:
            self.fail("%s: %s" % (source, e))

    def show_seat(self, seat, where):
        if seat is None:
            # The companion cleared a seat's retained payload: that seat is gone.
            self.seats.pop(where, None)
            self._refresh()
            return
        check_seat(seat, self.config["leds"])
        number = seat["seat"]
        if where is not None and where != number:
            raise ValueError("the payload on seat/%s is seat %d's" % (where, number))
        if number > MAX_SEATS:
            raise ValueError("seat %d: this firmware follows seats 1 to %d" % (number, MAX_SEATS))
        if not newer(seat, self.seats.get(number)):
            self.stale += 1
            return
        self.seats[number] = seat
        index = number - self.first
        if 0 <= index < len(self.display.views):
            self.display.show(index, seat, self.clock.ms())

    def configure(self, conf):
        if conf is None:
            conf = {"seat": self.config["seat"]}     # assignment withdrawn
        check_conf(conf)
        if "brightness" in conf:
            self.display.set_brightness(conf["brightness"])
        if "seat" in conf and conf["seat"] != self.first:
            self.first = conf["seat"]
            self._refresh()
        self.link.send_status(self.status())

    def blink(self, seconds):
        """Identify this tracker: the blink pattern on every strip for `seconds`,
        then the seats again (see Display.blink)."""
        self.log("blinking for %s s" % seconds)
        self.display.blink(self.clock.ms(), int(seconds * 1000))

    def _refresh(self):
        self.display.clear()
        now = self.clock.ms()
        for index in range(len(self.display.views)):
            seat = self.seats.get(self.first + index)
            if seat is not None:
                self.display.show(index, seat, now)

    def press(self):
        """The player's button: the next brightness step, round and round."""
        steps = self.config["brightness_steps"]
        b = self.display.brightness
        later = [s for s in steps if s > b + 0.001]
        self.display.set_brightness(later[0] if later else steps[0])

    # -- running -------------------------------------------------------------------

    def status(self):
        first = self.seats.get(self.first)
        return {
            "id": self.id, "table": self.config["table"], "firmware": settings.VERSION,
            "link": self.link.kind, "seat": self.first, "seats": len(self.display.views),
            "revision": first["revision"] if first else None,
            "brightness": self.display.brightness,
            "rssi": self.link.rssi(),
            "free": gc.mem_free(), "uptime": self.clock.ms() // 1000,
            "errors": self.errors, "error": self.error, "dropped": self.inbox.dropped,
            "stale": self.stale, "connects": self.link.connects,
        }

    def step(self):
        """One turn of the loop: wait for input (at most one frame), apply it,
        draw, beat, feed the watchdog."""
        self.link.poll(self.config["frame_ms"])
        item = self.inbox.take()
        while item is not None:
            self.handle(*item)
            item = self.inbox.take()
        now = self.clock.ms()
        if self.button is not None and self.button.pressed(now):
            self.press()
        self.display.offline = not self.link.online
        self.display.tick(now)
        if now - self.beat_at >= self.config["heartbeat_s"] * 1000:
            self.beat_at = now
            self.link.send_status(self.status())
        if self.watchdog is not None:
            self.watchdog.feed()

    def run(self):
        while True:
            try:
                self.step()
            except Exception as e:
                # The last line of defence: a bug must not darken the table.
                # (KeyboardInterrupt is not an Exception: Ctrl-C still stops it.)
                self.fail("internal error: %r" % (e,))
                time.sleep_ms(100)


def board_id():
    try:
        import machine
        return "".join(["%02x" % b for b in machine.unique_id()])
    except (ImportError, AttributeError):
        return "unix"


def main(path=None):
    """Start the tracker from its settings file (default secrets.json)."""
    if path is None:
        path = sys.argv[1] if len(sys.argv) > 1 else "secrets.json"
    config, problems = settings.load(path)
    tracker_id = config["id"] or board_id()
    serial = config["mode"] == "serial"
    # On a board, the serial protocol owns the USB port: nothing else may print.
    quiet = serial and sys.platform != "linux"
    log = (lambda text: None) if quiet else (lambda text: print("tracker:", text, file=sys.stderr))
    try:
        look = Look(config)
    except ValueError as e:
        problems.append("colours: %s (using the defaults)" % e)
        look = Look(settings.DEFAULTS)
    sink = hardware.FrameSink(config["frames"], tracker_id) if config["frames"] else None
    strip = hardware.open_strip(config["pin"], config["leds"] * config["seats"], config["order"],
                                "main", sink)
    pool = None
    if config["pool_leds"]:
        pool = hardware.open_strip(config["pool_pin"], config["pool_leds"], config["order"],
                                   "pool", sink)
    if isinstance(strip, hardware.FakeStrip):
        log("no NeoPixel on this port: the strip is a FakeStrip")
    display = Display(strip, look, config["leds"], config["seats"], pool, config["brightness"])
    button = None
    if config["button_pin"] is not None:
        button = hardware.Button(hardware.open_button_pin(config["button_pin"]))
    if serial:
        from tracker.serial_link import SerialLink
        link = SerialLink(config, sys.stdin, sys.stdout.buffer)
    else:
        from tracker.mqtt_link import MqttLink
        network = hardware.open_network(config["wifi_ssid"], config["wifi_password"])
        if isinstance(network, hardware.Wifi) and not config["wifi_ssid"]:
            problems.append("wifi_ssid is not set: run the companion's tracker setup script")
        link = MqttLink(config, network, tracker_id)
    tracker = HpTracker(config, tracker_id, display, link, button,
                        hardware.watchdog(config["watchdog_ms"]), log)
    for problem in problems:
        tracker.fail(problem)
    tracker.run()

