# The tracker on USB, for tables without Wi-Fi: the line protocol of
# docs/mqtt.md on the board's USB serial port (stdin/stdout).
#
# Lines are assembled here, bounded by MAX_LINE; what a line means is the
# tracker's business, like an MQTT message's.
import select
import time

from tracker.protocol import MAX_LINE, encode_line

BURST = 4096    # bytes read in one poll, so the LEDs keep moving in a flood


class SerialLink:
    """Lines in from `stream` (the USB serial port, sys.stdin on a board), STAT
    and ERR lines out to `out` (bytes)."""

    kind = "serial"

    def __init__(self, config, stream, out):
        self.stream = stream
        self.reader = getattr(stream, "buffer", stream)     # bytes, not text
        self.out = out
        self.poller = select.poll()
        self.poller.register(stream, select.POLLIN)
        self.open = True
        self.line = bytearray()
        self.too_long = False
        self.silence_ms = config["serial_offline_s"] * 1000
        self.heard_at = 0
        self.connects = 1
        self.tracker = None

    @property
    def online(self):
        return self.open and (not self.silence_ms
                              or self.tracker.clock.ms() - self.heard_at < self.silence_ms)

    def start(self, tracker):
        self.tracker = tracker
        self.heard_at = tracker.clock.ms()
        tracker.connected()

    def poll(self, timeout_ms):
        if not self.open:
            time.sleep_ms(timeout_ms)
            return
        ready = self.poller.poll(timeout_ms)
        for _ in range(BURST):
            if not ready:
                return
            try:
                byte = self.reader.read(1) if ready[0][1] & select.POLLIN else b""
            except OSError:
                byte = b""
            if not byte:
                self._close()
                return
            self.heard_at = self.tracker.clock.ms()
            self._take(byte)
            ready = self.poller.poll(0)

    def _take(self, byte):
        if byte != b"\n":
            if len(self.line) < MAX_LINE:
                self.line.extend(byte)
            else:
                self.too_long = True
            return
        line, self.line = bytes(self.line), bytearray()
        if self.too_long:
            self.too_long = False
            self.tracker.fail("line longer than %d bytes dropped" % MAX_LINE)
        elif line.strip():
            self.tracker.received("LINE", None, line)

    def rssi(self):
        return None

    def send_status(self, status):
        self._write(encode_line("STAT", status))

    def report(self, error, status):
        self._write(encode_line("ERR", {"error": error}))

    def _write(self, line):
        if not self.open:
            return
        try:
            self.out.write(line)
        except OSError:
            self._close()

    def _close(self):
        # The other end has gone (only on the unix port: a board's USB port never
        # closes). Keep showing the last state, offline.
        self.open = False
        self.poller.unregister(self.stream)
        self.tracker.disconnected("serial port closed")
