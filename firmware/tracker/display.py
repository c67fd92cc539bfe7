# The tracker's strips: which seat each segment shows, and when to write.
#
# The display is handed its strips (a machine NeoPixel on the board, a
# FakeStrip on the unix port); it never opens a pin itself. It keeps the last
# good payload of every segment, so whatever happens to the link the LEDs go on
# showing the last known state, with an "offline" mark while the link is down.
# A blink (the companion asking "which tracker is this?") covers every strip for
# a while; the segments keep following their seats underneath, so what shows
# when it ends is the seats as they are then.
from tracker import render


class SeatView:
    """One seat's segment of the strip."""

    def __init__(self, n):
        self.n = n
        self.seat = None
        self.frame = [render.OFF] * n
        self.change = None

    def show(self, seat, now, look):
        frame = render.still(seat, self.n, look)
        if self.seat is not None and frame != self.frame:
            self.change = render.Change(self.frame, render.count(self.seat, self.n),
                                        render.down(self.seat), now)
        self.seat = seat
        self.frame = frame

    def pixels(self, now, look):
        if self.seat is None:
            return self.frame
        return render.moving(self.seat, self.frame, self.change, now, look)


class Display:
    """`seats` segments of `leds` LEDs on `strip`, and Loki's pool on `pool` if fitted."""

    def __init__(self, strip, look, leds, seats=1, pool=None, brightness=0.25):
        if len(strip) < leds * seats:
            raise ValueError("the strip has %d LEDs, %d seats of %d need %d"
                             % (len(strip), seats, leds, leds * seats))
        self.strip = strip
        self.pool_strip = pool
        self.look = look
        self.leds = leds
        self.views = [SeatView(leds) for _ in range(seats)]
        self.brightness = brightness
        self.offline = False
        self.loki_pool = 0
        self.blink_at = 0
        self.blink_until = 0
        self._written = None
        self._pool_written = None

    def show(self, index, seat, now):
        """Show a checked seat payload on segment `index`."""
        self.views[index].show(seat, now, self.look)
        if seat["game"] == "runecast":
            self.loki_pool = seat.get("loki_pool") or 0

    def blink(self, now, ms):
        """Show the identify pattern on every strip for `ms` from `now` (again from
        the start if a blink is under way)."""
        self.blink_at = now
        self.blink_until = now + ms

    def clear(self):
        """Forget every segment (the tracker now shows other seats)."""
        self.views = [SeatView(self.leds) for _ in self.views]
        self.loki_pool = 0

    def frame(self, now):
        """The main strip's pixels at `now`, before brightness."""
        if now < self.blink_until:
            return render.identify(self.leds * len(self.views), now - self.blink_at)
        out = []
        for view in self.views:
            pixels = view.pixels(now, self.look)
            if self.offline:
                pixels = render.offline(pixels, now, self.look)
            out.extend(pixels)
        return out

    def tick(self, now):
        """Write the strips if what they should show has changed; True if written."""
        wrote = False
        frame = self.frame(now)
        if frame != self._written:
            self._write(self.strip, frame)
            self._written = frame
            wrote = True
        if self.pool_strip is not None:
            if now < self.blink_until:
                frame = render.identify(len(self.pool_strip), now - self.blink_at)
            else:
                frame = render.pool(self.loki_pool, len(self.pool_strip), self.look)
            if frame != self._pool_written:
                self._write(self.pool_strip, frame)
                self._pool_written = frame
                wrote = True
        return wrote

    def set_brightness(self, value):
        self.brightness = max(0.0, min(1.0, value))
        self._written = self._pool_written = None

    def _write(self, strip, frame):
        b = self.brightness
        for i in range(len(frame)):
            strip[i] = render.scale(frame[i], b)
        strip.write()
