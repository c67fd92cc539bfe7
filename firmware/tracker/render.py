# What one seat's LEDs show: pure functions of the seat payload and the time.
#
# Everything here is arithmetic on (r, g, b) tuples: no pins, no clock, no
# network. The board and the unix port run exactly this code, and the tests
# check its frames pixel by pixel.
#
# A frame is built in two steps. `still` is what the LEDs settle on: the number
# (HP or runes) as lit LEDs, the rest dark or glowing faintly in the team
# colour. `moving` then adds what changes with time: a fading ghost of lost HP,
# gained HP fading in, the active player's pulse, the Thrall's glow, the
# victory chase. Animations only ever touch a lit LED's brightness or an unlit
# LED's colour, so the number can be counted at every instant.
import math

OFF = (0, 0, 0)
WHITE = (255, 255, 255)
GAMES = ("zun", "runecast", "market")
GHOST = 0.5     # a lost LED starts its fade at half its old brightness
IDENTIFY_MS = 250   # the identify flash: this long on, this long off (2 Hz)


def colour(text):
    """(r, g, b) from "#rrggbb"."""
    if type(text) is not str or len(text) != 7 or text[0] != "#":
        raise ValueError("%r is not a #rrggbb colour" % (text,))
    v = int(text[1:], 16)
    return ((v >> 16) & 255, (v >> 8) & 255, v & 255)


def scale(c, f):
    return (int(c[0] * f + 0.5), int(c[1] * f + 0.5), int(c[2] * f + 0.5))


def mix(a, b, f):
    """From a (f=0) to b (f=1)."""
    return (int(a[0] + (b[0] - a[0]) * f + 0.5), int(a[1] + (b[1] - a[1]) * f + 0.5),
            int(a[2] + (b[2] - a[2]) * f + 0.5))


class Look:
    """The colours and timings of the display, read once from the settings."""

    def __init__(self, config):
        self.tiers = [colour(c) for c in config["tier_colours"]]
        self.runes = [colour(c) for c in config["rune_colours"]]
        self.pool = [colour(c) for c in config["pool_colours"]]
        self.loki = colour(config["loki_colour"])
        self.defeat = colour(config["defeat_colour"])
        self.revive = colour(config["revive_colour"])
        self.offline = colour(config["offline_colour"])
        if not (self.tiers and self.runes and self.pool):
            raise ValueError("tier_colours, rune_colours and pool_colours need a colour each")
        self.background = config["background"]
        self.pulse_ms = config["pulse_ms"]
        self.pulse_depth = config["pulse_depth"]
        self.fade_ms = config["fade_ms"]
        self.revive_ms = config["revive_ms"]
        self.chase_ms = config["chase_ms"]

    def tier(self, tier):
        return self.tiers[max(1, min(tier, len(self.tiers))) - 1]


def down(seat):
    """Defeated, or (Runecast) out of the game for good."""
    return bool(seat.get("defeated")) or seat.get("alive") is False


def count(seat, n):
    """How many LEDs make up the number: HP, or runes up to one lap of the strip."""
    if seat["game"] == "market":
        return min(seat["runes"], n)
    return 0 if down(seat) else seat["hp"]


def bar(value, n, colours):
    """`value` as lit LEDs; past `n` it goes round again in the next colour,
    like a clock's hands (15 on 12 LEDs: 3 in the second colour, 9 in the
    first). Unlit LEDs are None."""
    if value <= 0:
        return [None] * n
    lap = (value - 1) // n
    if lap >= len(colours):
        return [colours[-1]] * n
    ahead = value - lap * n
    behind = colours[lap - 1] if lap else None
    return [colours[lap] if i < ahead else behind for i in range(n)]


def still(seat, n, look):
    """The frame the LEDs settle on for this seat payload."""
    agent = bool(seat.get("loki"))
    glow = scale(look.loki if agent else colour(seat["colour"]), look.background)
    if seat["game"] == "market":
        lit = bar(seat["runes"], n, look.runes)
        return [glow if c is None else c for c in lit]
    if down(seat):
        # Dark, with one dim LED: red, or Loki's colour for his agent.
        frame = [glow if agent else OFF] * n
        frame[0] = scale(look.loki, 0.5) if agent else look.defeat
        return frame
    hp = seat["hp"]
    top = min(seat.get("max") or n, n)     # LEDs past the maximum HP stay dark
    lit = look.tier(seat.get("tier") or (hp + 3) // 4)
    return [lit if i < hp else (glow if i < top else OFF) for i in range(n)]


def pulse(now, period, depth):
    """Brightness factor of a slow breath: 1 at now=0, 1-depth half a period later."""
    if period <= 0:
        return 1.0
    return 1.0 - depth * (1.0 - math.cos(2 * math.pi * (now % period) / period)) / 2


class Change:
    """What the seat showed before its last change, for the transition."""

    def __init__(self, before, lit_before, was_down, at):
        self.before = before
        self.lit_before = lit_before
        self.was_down = was_down
        self.at = at


def moving(seat, frame, change, now, look):
    """`frame` (the seat's still frame) as shown at time `now` (ms).

    `change` describes the last change (None if there was none to animate);
    `now - change.at` is its age.
    """
    n = len(frame)
    lit = count(seat, n)
    out = list(frame)
    if change is not None:
        age = now - change.at
        revived = change.was_down and not down(seat)
        length = look.revive_ms if revived else look.fade_ms
        if 0 <= age < length:
            f = age / length
            for i in range(lit, n):
                # A LED that left the number fades out from half its old colour.
                if i < change.lit_before and change.before[i] != frame[i]:
                    out[i] = mix(scale(change.before[i], GHOST), frame[i], f)
            start = 0 if revived else change.lit_before
            for i in range(start, lit):
                # A LED that joined the number fades in from white (a heal, a revive).
                out[i] = mix(look.revive, frame[i], f)
    active = seat.get("active") and not seat.get("over")
    if active and look.pulse_ms > 0:
        f = pulse(now, look.pulse_ms, look.pulse_depth)
        for i in range(lit):
            out[i] = scale(out[i], f)
    if seat.get("thrall") and not seat.get("over"):
        # Loki's Thrall this round: the unlit LEDs breathe in Loki's colour.
        f = 1.0 - pulse(now, look.pulse_ms or 2000, 1.0)
        for i in range(lit, n):
            out[i] = mix(out[i], look.loki, f * 0.6)
    if seat.get("winner") and seat.get("over"):
        # Victory: every third unlit LED in the team colour, running along.
        team = colour(seat["colour"])
        step = now // look.chase_ms if look.chase_ms > 0 else 0
        for i in range(lit, n):
            if (i - step) % 3 == 0:
                out[i] = team
    return out


def pool(value, n, look):
    """Loki's pool (Runecast) on the second strip: dice as lit LEDs."""
    return [OFF if c is None else c for c in bar(value, n, look.pool)]


def offline(frame, now, look):
    """The offline mark: the last LED blinks blue for half a second every two."""
    if frame and now % 2000 < 500:
        frame = list(frame)
        frame[-1] = look.offline
    return frame


def identify(n, age):
    """The identify pattern ("which tracker is this?"), `age` ms after it began:
    every LED white, then every LED dark, twice a second. Nothing a game shows
    switches the whole strip on and off like this."""
    return [WHITE if (age // IDENTIFY_MS) % 2 == 0 else OFF] * n
